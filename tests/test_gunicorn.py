"""The service as it runs in production: a real gunicorn process (`gunicorn wsgi:app`), asked
over a real socket. Checks what the Flask test client cannot: that `/<c>` goes out chunked
as it is read, and that gunicorn plus ProxyFix honour one reverse proxy's headers."""

from __future__ import annotations

import json
import random
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import build_database
from tests.contract import expected
from tests.servers import gunicorn

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


class Server:
    def __init__(self, base: str, rows: list[dict[str, Any]]):
        self.base = base
        self.rows = rows

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return requests.get(self.base + path, **kwargs)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("gunicorn")
    rows = transaction_rows()
    database = build_database(work / "fixture.sqlite3", {"transactions": rows})
    with gunicorn(work, {"JEMBATAN_SQLITE": str(database)}, "--workers", "1",
                  "--threads", "2") as process:
        yield Server(process.base, rows)


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


def in_range(rows: list[dict[str, Any]], on: str, start: str,
             end: str) -> list[dict[str, Any]]:
    """The records of whole days start..end on the pair `on`, in the range order."""
    day, clock = f"tgl_{on}", f"jam_{on}"
    inside = [r for r in rows if r.get(day) is not None and start <= r[day] <= end]
    return sorted(inside, key=lambda r: (r[day], r.get(clock) or "", r["id"]))


@pytest.mark.parametrize(("on", "start", "end", "count"), [
    ("dt1", "2026-03-01", "2026-03-31", 167),
    ("dt2", "2026-01-01", "2026-12-31", 1600),  # every fifth row has no tgl_dt2
    ("dt1", "2026-01-01", "2026-12-31", 2000),  # all of them: no longer small
])
def test_a_range_under_2000_records_is_sent_whole(server: Server, on: str, start: str,
                                                   end: str, count: int) -> None:
    whole = count < 2000
    with server.get(f"/transactions/date/{start}/00:00/{end}/23:59:59", params={"on": on},
                    stream=True) as r:
        assert r.status_code == 200
        body = r.content
        if whole:
            assert r.headers["Content-Length"] == str(len(body))
            assert "Transfer-Encoding" not in r.headers
        else:
            assert r.headers.get("Transfer-Encoding") == "chunked"
            assert "Content-Length" not in r.headers
    assert "ETag" not in r.headers
    records = [expected("transactions", row) for row in in_range(server.rows, on, start, end)]
    assert len(records) == count
    assert json.loads(body) == records


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


def test_conditional_requests_over_http(server: Server) -> None:
    for path in ("/transactions/7", "/transactions/page/2?page_size=50",
                 "/transactions/date/2026-01-01/00:00/2026-12-31/23:59:59?page=1",
                 "/transactions/page/1?format=csv"):
        first = server.get(path)
        tag = first.headers["ETag"]
        assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache"
        again = server.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b""
        assert server.get(path, headers={"If-None-Match": '"old"'}).content == first.content


def test_hygiene_headers_over_http(server: Server) -> None:
    r = server.get("/transactions/7", headers={"X-Request-ID": "erp-42"})
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Request-ID"] == "erp-42"
    assert not any(ch.isdigit() for ch in r.headers.get("Server", ""))  # no version banner
    assert "Access-Control-Allow-Origin" not in server.get(
        "/transactions/7", headers={"Origin": "https://elsewhere.example"}).headers


# -- what gunicorn refuses before Flask sees it (docs/api.md §9): JSON all the same --------


def raw_request(server: Server, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are, read the whole answer: (status, headers, body)."""
    port = int(server.base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


REFUSED = [
    # a request line past gunicorn's limit_request_line (4,094 bytes): long query arguments
    (b"GET /transactions/date/2026-11-01/00:00/2026-11-30/23:59?vehno__in="
     + b",".join(b"L %d XY" % n for n in range(700)).replace(b" ", b"%20")
     + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "URI Too Long", "limit_request_line"),
    # one header past limit_request_field_size (8,190 bytes): a 70 kB cookie
    (b"GET /customers HTTP/1.1\r\nHost: x\r\nCookie: " + b"a" * 70_000 + b"\r\n\r\n", 431,
     "Request Header Fields Too Large", "headers are larger than the server accepts"),
    # more headers than limit_request_fields (100)
    (b"GET /customers HTTP/1.1\r\nHost: x\r\n"
     + b"".join(b"X-H%d: v\r\n" % n for n in range(120)) + b"\r\n", 431,
     "Request Header Fields Too Large", "send fewer or smaller headers"),
    # not HTTP at all
    (b"HELLO THERE\r\n\r\n", 400, "Bad Request", "The request is not valid HTTP"),
    (b"GET /customers HTTP/9.9\r\nHost: x\r\n\r\n", 400, "Bad Request",
     "The request is not valid HTTP"),
]


@pytest.mark.parametrize(("data", "status", "phrase", "words"), REFUSED,
                         ids=["request-line", "header-size", "header-count", "not-http",
                              "http-version"])
def test_what_gunicorn_refuses_is_json(server: Server, data: bytes, status: int, phrase: str,
                                       words: str) -> None:
    got, headers, body = raw_request(server, data)
    assert got == status
    assert headers["Content-Type"] == "application/json"
    assert int(headers["Content-Length"]) == len(body)
    answer = json.loads(body)
    assert set(answer) == {"code", "status", "message"}
    assert (answer["code"], answer["status"]) == (status, phrase)
    assert words in answer["message"]
    assert "<html" not in body.decode()
    # And the service goes on answering.
    assert requests.get(server.base + "/customers/1", timeout=10).status_code in (200, 404)
