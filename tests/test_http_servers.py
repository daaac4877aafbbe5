"""The service as it runs in production, asked over a real socket: under gunicorn
(`gunicorn wsgi:app`, Linux) and under waitress (`jembatan serve --server waitress`, the
server on Windows), each over the embedded engine (sqlite3) and, when JEMBATAN_TEST_MSSQL
names one, the T-SQL server. Checks what the Flask test client cannot: that `/<c>` goes out
chunked as it is read, that the server plus ProxyFix honour one reverse proxy's headers, that
each request is logged once, and what each server refuses before Flask sees a request."""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyodbc
import pytest
import requests
from gunicorn.config import KNOWN_SETTINGS, Config
from waitress.adjustments import Adjustments

from app.ops import gunicorn_hooks, waitress_serving
from tests import mssql
from tests.conftest import build_database
from tests.contract import expected
from tests.servers import SERVERS, eventually, free_port, http_server

ROWS = 2000
ENGINES = ("sqlite3",) + (("mssql",) if mssql.connection_string() else ())
# Each server over each engine; the T-SQL server's runs carry its mark (-m "not mssql").
SHAPES = [pytest.param((kind, engine), id=f"{kind}-{engine}",
                       marks=[pytest.mark.mssql] if engine == "mssql" else [])
          for engine in ENGINES for kind in SERVERS]


def under(kind: str) -> pytest.MarkDecorator:
    """A test of one server's own behaviour: the module's servers of that kind only."""
    return pytest.mark.parametrize("served", [p for p in SHAPES if p.values[0][0] == kind],
                                   indirect=True)


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
    def __init__(self, kind: str, engine: str, base: str, rows: list[dict[str, Any]],
                 log: Any):
        self.kind, self.engine, self.base, self.rows, self.log = kind, engine, base, rows, log

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return requests.get(self.base + path, **kwargs)


@pytest.fixture(scope="module", params=SHAPES)
def served(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server process of 2 threads (gunicorn: one worker) over ROWS transactions."""
    kind, engine = request.param
    work = tmp_path_factory.mktemp(kind)
    rows = transaction_rows()
    if engine == "mssql":
        database: mssql.Server = request.getfixturevalue("mssql_server")
        database.ensure({"transactions": rows})
        env = {"JEMBATAN_ODBC": database.odbc}
    else:
        env = {"JEMBATAN_SQLITE": str(build_database(work / "fixture.sqlite3",
                                                     {"transactions": rows}))}
    with http_server(kind, work, env, threads=2) as process:
        yield Server(kind, engine, process.base, rows, process.log)


@pytest.fixture
def server(request: pytest.FixtureRequest, served: Server) -> Server:
    """The module's server, its rows loaded again on the T-SQL server (which holds one set
    of rows at a time)."""
    if served.engine == "mssql":
        request.getfixturevalue("mssql_server").ensure({"transactions": served.rows})
    return served


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


def test_forwarded_headers_from_a_peer_not_trusted_change_nothing(server: Server) -> None:
    """api.trusted_proxies is empty by default: X-Forwarded-* from the client are dropped
    (docs/api.md §10.1), so the URLs are the direct address's (tests/test_hosts.py and
    tests/test_nginx.py: from a trusted proxy)."""
    r = server.get("/", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "thathost",
                                 "X-Forwarded-Prefix": "/evil"})
    assert r.status_code == 200
    body = r.json()
    urls = {c["name"]: c["url"] for c in body["collections"]}
    assert urls["transactions"] == server.base + "/transactions"
    assert body["docs"] == server.base + "/docs"
    assert body["openapi"] == server.base + "/openapi.json"


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


def test_each_request_is_logged_once(server: Server) -> None:
    """One access line per request: not a second one from a handler on the root logger
    (waitress.serve's logging.basicConfig wrote each again as INFO:jembatan.access:...)."""
    rid = f"once-{server.kind}-{server.engine}"
    assert server.get("/transactions/7", headers={"X-Request-ID": rid}).status_code == 200
    assert eventually(lambda: rid in server.log())
    lines = [line for line in server.log().splitlines() if rid in line]
    assert len(lines) == 1, lines
    assert " INFO jembatan.access 127.0.0.1 " in lines[0]
    assert f" {rid} GET /transactions/7 200 " in lines[0] and lines[0].endswith(" rows=1")
    assert "INFO:" not in server.log()
    if server.kind == "waitress":  # waitress's own lines, in Jembatan's format
        port = server.base.rsplit(":", 1)[1]
        assert f" INFO waitress Serving on http://127.0.0.1:{port}\n" in server.log()


@pytest.mark.parametrize("kind", SERVERS)
def test_database_down_503_with_retry_after(tmp_path: Path, kind: str) -> None:
    """A SQL Server that refuses connections (nothing listens on its port): /health and a
    read answer 503 with Retry-After, in JSON, under either server."""
    if "FreeTDS" not in pyodbc.drivers():
        pytest.skip("FreeTDS is not registered with unixODBC (apt-get install tdsodbc)")
    odbc = (f"Driver={{FreeTDS}};Server=127.0.0.1;Port={free_port()};TDS_Version=7.4;"
            "UID=jembatan_ro;PWD=x;Database=Timbangan")
    with http_server(kind, tmp_path, {"JEMBATAN_ODBC": odbc}, threads=2) as process:
        health = requests.get(process.base + "/health", timeout=30)
        read = requests.get(process.base + "/transactions/7", timeout=30)
    for answer in (health, read):
        assert answer.status_code == 503
        assert answer.headers["Content-Type"].startswith("application/json")
        assert answer.headers["Retry-After"].isdigit()
    assert health.json()["status"] == "unavailable"
    assert (read.json()["code"], read.json()["status"]) == (503, "Service Unavailable")


# -- what each server refuses before Flask sees it (docs/api.md §9, docs/deploy.md) -------


def raw_request(server: Server, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are, read the whole answer: (status, headers, body). (A server that
    refuses a request may close with the rest of it unread: a reset after the answer.)"""
    port = int(server.base.rsplit(":", 1)[1])
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            assert answer, "reset before any answer"
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


LONG_LINE = (b"GET /transactions/date/2026-11-01/00:00/2026-11-30/23:59?vehno__in="
             + b",".join(b"L %d XY" % n for n in range(700)).replace(b" ", b"%20")
             + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
BIG_HEADER = (b"GET /customers HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nCookie: "
              + b"a" * 70_000 + b"\r\n\r\n")
MANY_HEADERS = (b"GET /customers HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                + b"".join(b"X-H%d: v\r\n" % n for n in range(120)) + b"\r\n")
NOT_HTTP = b"HELLO THERE\r\n\r\n"
HTTP_9 = b"GET /customers HTTP/9.9\r\nHost: localhost\r\nConnection: close\r\n\r\n"
# Request headers over waitress's max_request_header_size (256 KiB in all).
HUGE_HEADER = (b"GET /customers HTTP/1.1\r\nHost: localhost\r\nCookie: " + b"a" * 300_000
               + b"\r\n\r\n")
IDS = ["request-line", "header-size", "header-count", "not-http", "http-version"]

GUNICORN_REFUSES = [
    # a request line past gunicorn's limit_request_line (4,094 bytes): long query arguments
    (LONG_LINE, 414, "URI Too Long", "limit_request_line"),
    # one header past limit_request_field_size (8,190 bytes): a 70 kB cookie
    (BIG_HEADER, 431, "Request Header Fields Too Large",
     "headers are larger than the server accepts"),
    # more headers than limit_request_fields (100)
    (MANY_HEADERS, 431, "Request Header Fields Too Large", "send fewer or smaller headers"),
    # not HTTP at all
    (NOT_HTTP, 400, "Bad Request", "The request is not valid HTTP"),
    (HTTP_9, 400, "Bad Request", "The request is not valid HTTP"),
]


@under("gunicorn")  # waitress's limits: test_what_waitress_passes_on_jembatan_answers
@pytest.mark.parametrize(("data", "status", "phrase", "words"), GUNICORN_REFUSES, ids=IDS)
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


# waitress has no limit on the request line, on one header or on their number, only on the
# whole of the request's headers; it reads a first line it cannot parse as HTTP/1.0, and
# answers any other version as HTTP/1.0. So what gunicorn refuses reaches Jembatan, which
# answers in JSON: the range (no such plates: []), the customers (none here: []), and for
# `HELLO THERE` a path /THERE that is not Jembatan's.
WAITRESS_PASSES_ON = [(LONG_LINE, 200, []), (BIG_HEADER, 200, []), (MANY_HEADERS, 200, []),
                      (NOT_HTTP, 404, None), (HTTP_9, 200, [])]


@under("waitress")
@pytest.mark.parametrize(("data", "status", "records"), WAITRESS_PASSES_ON, ids=IDS)
def test_what_waitress_passes_on_jembatan_answers(server: Server, data: bytes, status: int,
                                                  records: list[Any] | None) -> None:
    got, headers, body = raw_request(server, data)
    assert (got, headers["Content-Type"]) == (status, "application/json")
    answer = json.loads(body)
    if records is None:
        assert (answer["code"], answer["status"]) == (404, "Not Found")
    else:
        assert answer == records


@under("waitress")
def test_what_waitress_refuses_is_its_own_text(server: Server) -> None:
    """Headers over 256 KiB: waitress answers 431 itself, in its own text (it offers no way
    to change that short of replacing its classes; docs/deploy.md says so)."""
    got, headers, body = raw_request(server, HUGE_HEADER)
    assert got == 431
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert body == (b"Request Header Fields Too Large\r\n\r\nexceeds max_header of 262144"
                    b"\r\n\r\n(generated by jembatan)")
    assert requests.get(server.base + "/customers/1", timeout=10).status_code == 404


# A 300 MiB body announced, none of it sent: each server must answer from the headers alone.
HUGE_BODY = (b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: "
             b"application/json\r\nAccept: application/json\r\nContent-Length: "
             + str(300 << 20).encode() + b"\r\n\r\n")
REFUSED_BODY = {
    "waitress": (413, "text/plain; charset=utf-8", b"Request Entity Too Large\r\n\r\nexceeds "
                 b"max_body of 1048577\r\n\r\n(generated by jembatan)"),
    "gunicorn": (413, "application/json", json.dumps({
        "jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "An MCP message is at most 1048576 bytes"}},
        separators=(",", ":")).encode()),
}


def test_a_body_over_the_limit_is_refused_unread(server: Server) -> None:
    """A body larger than the largest Jembatan reads (an MCP message, 1 MiB): 413 as soon as
    the headers announce it (waitress its own text, from max_request_body_size; gunicorn
    passes it to /mcp, which answers before reading); a body of exactly 1 MiB reaches /mcp."""
    got, headers, body = raw_request(server, HUGE_BODY)
    assert (got, headers["Content-Type"], body) == REFUSED_BODY[server.kind]
    message = b"[" + b" " * ((1 << 20) - 2) + b"]"
    fits = requests.post(server.base + "/mcp", data=message, timeout=30, headers={
        "Content-Type": "application/json", "Accept": "application/json"})
    assert fits.headers["Content-Type"] == "application/json"
    assert fits.json()["error"]["code"] == -32600  # an empty batch: JSON-RPC's own refusal


def test_waitress_idles_as_long_as_gunicorn_waits() -> None:
    """waitress's idle timeout is the timeout gunicorn is given (gunicorn.conf.py's settings,
    as gunicorn reads them), and its body limit lets exactly an MCP message's 1 MiB through:
    both as waitress itself takes them (its Adjustments, which create_server builds)."""
    config = Config()
    for name, value in gunicorn_hooks.settings({s.name for s in KNOWN_SETTINGS}).items():
        config.set(name, value)
    adjusted = Adjustments(**waitress_serving.SETTINGS)
    assert (adjusted.channel_timeout, adjusted.max_request_body_size) == (
        config.timeout, (1 << 20) + 1)
