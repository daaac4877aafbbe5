"""The service as it runs in production: a real gunicorn process (`gunicorn wsgi:app`), asked
over a real socket. Checks what the Flask test client cannot: that `/<c>` goes out chunked
as it is read, and that gunicorn plus ProxyFix honour one reverse proxy's headers."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import build_database
from tests.contract import expected

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).parent / "gunicorn"
START_TIMEOUT = 20.0
ROWS = 2000


def transaction_rows() -> list[dict[str, Any]]:
    """~2,000 weighbridge transactions with varied values, some NULLs, in shuffled order."""
    rng = random.Random(20261101)
    rows = []
    for i in range(1, ROWS + 1):
        day = f"2026-{(i % 12) + 1:02d}-{(i % 28) + 1:02d}"
        clock = f"{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}"
        row: dict[str, Any] = {
            "id": i,
            "vehno": f"B {1000 + i} XY",
            "custcode": f"C{i % 37:03d}",
            "drivername": "Budi \"Si Kancil\", Jr." if i % 97 == 0 else f"Sopir {i}",
            "remark": "berat ✓ ok; 50% kadar air" if i % 13 == 0 else None,
            "tgl_dt1": day,
            "jam_dt1": clock,
            "tgl_dt2": day if i % 5 else None,
            "jam_dt2": f"{(i + 1) % 24:02d}:15:00.250000" if i % 11 == 0 else None,
            "tgl_create": day,
            "jam_create": clock,
            "weigh1": round(10000 + rng.random() * 30000, 1),
            "weigh2": float(8000 + i) if i % 3 else None,
            "adjustweigh": 0.5 if i % 4 == 0 else None,
            "weighunit1": 1.0,
            "transcode": "T01" if i % 2 else "T02",
            "wbname1": "JT1",
            "wbname2": "JT2" if i % 2 else "JT1",
            "pending": "N",
        }
        rows.append(row)
    rng.shuffle(rows)
    return rows


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, base: str, rows: list[dict[str, Any]]):
        self.base = base
        self.rows = rows

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return requests.get(self.base + path, **kwargs)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    assert GUNICORN.is_file(), f"gunicorn is not installed next to {sys.executable}"
    work = tmp_path_factory.mktemp("gunicorn")
    rows = transaction_rows()
    database = build_database(work / "fixture.sqlite3", {"transactions": rows})
    empty_config = work / "empty.toml"
    empty_config.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    env |= {"JEMBATAN_SQLITE": str(database),
            # Nothing from a config.toml someone left in the checkout.
            "JEMBATAN_CONFIG": str(empty_config), "JEMBATAN_API_KEYS": ""}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    stderr_path = work / "stderr.log"
    with open(stderr_path, "wb") as stderr, open(work / "stdout.log", "wb") as stdout:
        process = subprocess.Popen(
            [str(GUNICORN), "-b", f"127.0.0.1:{port}", "--workers", "1", "--threads", "2",
             "wsgi:app"],
            cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"gunicorn exited with {process.returncode}:\n"
                            f"{stderr_path.read_text(errors='replace')}")
            try:
                if requests.get(base + "/health", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"gunicorn did not answer /health within {START_TIMEOUT:.0f} s:\n"
                            f"{stderr_path.read_text(errors='replace')}")
            time.sleep(0.2)
        yield Server(base, rows)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def in_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: r["id"])


def test_health(server: Server) -> None:
    r = server.get("/health")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "database": "ok"}


def test_all_records_streamed_complete(server: Server) -> None:
    with server.get("/transactions", stream=True) as r:
        assert r.status_code == 200
        assert r.headers["Content-Type"].startswith("application/json")
        # Streamed as read, not buffered into one body of known length.
        assert r.headers.get("Transfer-Encoding") == "chunked"
        assert "Content-Length" not in r.headers
        body = r.content
    assert len(body) > 64 * 1024  # large enough to take several chunks
    records = r.json()
    assert len(records) == ROWS
    assert records == [expected("transactions", row) for row in in_order(server.rows)]
    assert list(records[0]) == list(expected("transactions", server.rows[0]))


def test_page(server: Server) -> None:
    r = server.get("/transactions/page/3", params={"page_size": 7})
    assert r.status_code == 200
    assert r.json() == [expected("transactions", row) for row in in_order(server.rows)[14:21]]
    pagination = json.loads(r.headers["X-Pagination"])
    assert pagination["total"] == ROWS
    assert pagination["page"] == 3
    assert pagination["total_pages"] == (ROWS + 6) // 7


def test_key_lookup(server: Server) -> None:
    row = next(r for r in server.rows if r["id"] == 1234)
    r = server.get("/transactions/1234")
    assert r.status_code == 200
    assert r.json() == expected("transactions", row)


def test_unknown_key_404_json(server: Server) -> None:
    r = server.get("/transactions/999999")
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.json()["code"] == 404


def test_unknown_path_404_json(server: Server) -> None:
    r = server.get("/no/such/thing")
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    assert body["code"] == 404 and body["status"] == "Not Found" and body["message"]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_write_method_405_json(server: Server, method: str) -> None:
    r = requests.request(method, server.base + "/transactions", json={"id": 1}, timeout=30)
    assert r.status_code == 405
    assert r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    assert body["code"] == 405 and body["message"]
    allow = {m.strip().upper() for m in r.headers["Allow"].split(",")}
    assert {"GET", "HEAD"} <= allow
    assert not allow & {"POST", "PUT", "PATCH", "DELETE"}


def test_forwarded_proto_and_host(server: Server) -> None:
    r = server.get("/", headers={"X-Forwarded-Proto": "https",
                                 "X-Forwarded-Host": "thathost"})
    assert r.status_code == 200
    body = r.json()
    urls = {c["name"]: c["url"] for c in body["collections"]}
    assert urls["transactions"] == "https://thathost/transactions"
    assert all(url.startswith("https://thathost/") for url in urls.values())
    assert body["docs"] == "https://thathost/docs"
    assert body["openapi"] == "https://thathost/openapi.json"


def test_without_forwarded_headers_the_direct_address(server: Server) -> None:
    body = server.get("/").json()
    assert body["openapi"] == server.base + "/openapi.json"
