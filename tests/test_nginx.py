"""nginx in front of gunicorn, as docs/deploy.md §4 sets it up: Debian's nginx runs the site
file Jembatan ships (app/ops/deploy/nginx-site.conf, with its snippet jembatan-proxy.conf) and
the docs' "Under a sub-path" blocks A and B, in front of a real gunicorn. Only what the files
mark as the site's own is replaced, mechanically, each an exact number of times (site_conf,
sub_path_block): the listen addresses, the certificate paths, gunicorn's address and the
Prometheus host's address. The expected answers come from the rows the test writes and the
URL the client used."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import sqlite3
import ssl
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from app.model import tables
from app.ops.limits import MAX_BODY
from tests.conftest import build_database
from tests.helpers import links, samples, value
from tests.servers import (
    ROOT,
    Nginx,
    PeakRss,
    Running,
    eventually,
    free_port,
    gunicorn,
    nginx,
    self_signed,
    workers,
)

DEPLOY = ROOT / "app" / "ops" / "deploy"
SITE = DEPLOY / "nginx-site.conf"
SNIPPET = DEPLOY / "jembatan-proxy.conf"
NAME = "jembatan.plant.local"
ELSEWHERE = "192.0.2.10"  # a Prometheus host that is not the test's client (TEST-NET-1)
ROWS = 7  # the small site's transactions
# Jembatan's settings behind nginx on the same host (docs/deploy.md §2): nginx's forwarded
# headers believed. The test's clients ask for the host 127.0.0.1, a loopback name, which is
# answered without api.public_url (which the site sets to its https name).
PROXY_SETTINGS = '[api]\ntrusted_proxies = ["127.0.0.1"]\n'


def docs_blocks() -> list[str]:
    """The ```nginx blocks of docs/deploy.md §4, in order."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    section = text.split("\n## 4. ", 1)[1].split("\n## 5. ", 1)[0]
    return re.findall(r"```nginx\n(.*?)```", section, re.S)


def replaced(text: str, changes: dict[str, tuple[str, int]]) -> str:
    """`text` with each key replaced by its new text, which must occur exactly that often."""
    for old, (new, count) in changes.items():
        assert text.count(old) == count, f"{old!r} is not {count} times in the file"
        text = text.replace(old, new)
    return text


@dataclass
class Site:
    """nginx (the shipped site, and an existing site with the sub-path block) in front of
    gunicorn."""
    server: Running
    proxy: Nginx
    http_port: int
    https_port: int
    sub_port: int
    cert: Path

    @property
    def base(self) -> str:
        """The public URL of the site (https)."""
        return f"https://127.0.0.1:{self.https_port}"

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        """GET `path` from the public https site, the test's certificate trusted."""
        return requests.get(self.base + path, **{"verify": self.cert, "timeout": 60} | kwargs)


def site_conf(site: Site, upstream: str, key: Path, prometheus: str) -> str:
    """The shipped site file with what it names as the site's own replaced by this test's."""
    return replaced(SITE.read_text(), {
        "listen 80;": (f"listen 127.0.0.1:{site.http_port};", 1),
        "listen 443 ssl;": (f"listen 127.0.0.1:{site.https_port} ssl;", 1),
        "/etc/ssl/jembatan/fullchain.pem": (str(site.cert), 1),
        "/etc/ssl/jembatan/privkey.pem": (str(key), 1),
        "http://127.0.0.1:8000": (upstream, 3),
        "allow 127.0.0.1;": (f"allow {prometheus};", 1)})


def existing_site(port: int, block: str) -> str:
    """An existing site on its own port, holding one of docs/deploy.md's sub-path blocks."""
    return (f"server {{\n    listen 127.0.0.1:{port};\n"
            f"    server_name intranet.plant.local;\n{block}}}\n")


def sub_path_block(which: str, upstream: str, prometheus: str) -> str:
    """docs/deploy.md's sub-path block A (nginx strips /jembatan/) or B (Jembatan's
    url_prefix), with the site's own values replaced as in the site file."""
    block = docs_blocks()[{"A": 2, "B": 3}[which]]
    prefix = {"A": "/jembatan", "B": '""'}[which]
    assert block.count(f"X-Forwarded-Prefix {prefix};") == 3, block
    # A's proxy_pass has a URI part ("/"), B's none: only the address is the site's own.
    return replaced(block, {"http://127.0.0.1:8000": (upstream, 3),
                            "allow 127.0.0.1;": (f"allow {prometheus};", 1)})


@contextlib.contextmanager
def proxied(work: Path, server: Running, prometheus: str = ELSEWHERE,
            upstream: str | None = None) -> Iterator[Site]:
    """nginx with the shipped site and the sub-path site in front of `server` (or of
    `upstream`, an address where nothing may listen)."""
    cert, key = self_signed(work, NAME)
    ports = [free_port() for _ in range(3)]
    site = Site(server, None, *ports, cert)  # type: ignore[arg-type]
    upstream = upstream or server.base
    http = (site_conf(site, upstream, key, prometheus)
            + existing_site(site.sub_port, sub_path_block("A", upstream, prometheus)))
    with nginx(work, http, {"snippets/jembatan-proxy.conf": SNIPPET.read_text()},
               ports) as site.proxy:
        yield site


def small_rows() -> list[dict[str, Any]]:
    """The small site's transactions: ids 1 to ROWS, stamped a minute apart in the past."""
    return [{"id": i, "vehno": f"L {i} AB", "tgl_dt1": "2026-11-01", "jam_dt1": f"07:0{i}:00",
             "tgl_update": "2026-11-01", "jam_update": f"08:0{i}:00", "weigh1": 1000.0 + i}
            for i in range(1, ROWS + 1)]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The small site: one gunicorn worker over ROWS transactions, behind nginx."""
    work = tmp_path_factory.mktemp("nginx-small")
    database = build_database(work / "plant.sqlite3", {"transactions": small_rows()})
    config = work / "jembatan.toml"
    config.write_text(PROXY_SETTINGS)
    env = {"JEMBATAN_SQLITE": str(database), "JEMBATAN_CONFIG": str(config)}
    with gunicorn(work, env, "--workers", "1") as server, proxied(work, server) as site:
        yield site


def test_the_docs_show_the_files_the_tests_run() -> None:
    """docs/deploy.md §4 shows the shipped snippet and site file, byte for byte."""
    blocks = docs_blocks()
    assert blocks[0] == SNIPPET.read_text()
    assert blocks[1] == SITE.read_text()
    assert "include snippets/jembatan-proxy.conf;" in blocks[2]


def test_plain_http_is_redirected_to_https(small: Site) -> None:
    """Port 80's server sends every request to https, path and query kept."""
    response = requests.get(f"http://127.0.0.1:{small.http_port}/transactions?fields=id",
                            allow_redirects=False, timeout=10)
    assert response.status_code == 301
    # $host has no port: on a real site https is on 443.
    assert response.headers["Location"] == "https://127.0.0.1/transactions?fields=id"


def page_links(base: str, path: str, query: str, last: int, page: int) -> dict[str, str]:
    """The Link rels of page `page` of `last`, written from the public URL."""
    rels = {"first": 1, "last": last, "prev": page - 1, "next": page + 1}
    return {rel: f"{base}{path}/page/{n}?{query}" for rel, n in rels.items() if 1 <= n <= last}


def test_links_carry_the_public_https_url(small: Site) -> None:
    """Through TLS, Link URLs are the https URL the client used; what a client sends itself
    as X-Forwarded-* does not change them, and the client's address is nginx's view."""
    spoofed = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Prefix": "/evil",
               "X-Forwarded-Proto": "http", "X-Forwarded-Port": "1", "X-Forwarded-For": "6.6.6.6"}
    for headers in ({}, spoofed):
        response = small.get("/transactions/page/2?page_size=3&fields=id", headers=headers)
        assert response.status_code == 200
        assert response.json() == [{"id": 4}, {"id": 5}, {"id": 6}]
        assert links(response) == page_links(small.base, "/transactions",
                                             "page_size=3&fields=id", 3, 2)
    # Jembatan takes the last X-Forwarded-For entry, the one nginx added: the test's own.
    assert re.search(r"jembatan\.access 127\.0\.0\.1 \S+ GET /transactions/page/2",
                     small.server.log())
    assert "6.6.6.6" not in small.server.log()


def test_a_host_not_allowed_is_refused_through_nginx(small: Site) -> None:
    """nginx passes the Host the client sent ($host): one that is not the service's (a
    DNS-rebinding page's own name) is Jembatan's 400, whatever X-Forwarded-Host it adds."""
    for headers in ({"Host": "evil.example"},
                    {"Host": "evil.example", "X-Forwarded-Host": "127.0.0.1"}):
        response = small.get("/transactions/page/1", headers=headers)
        assert (response.status_code, response.json()) == (400, error_body(
            # X-Forwarded-Port, nginx's port, is the host's port.
            400, "Bad Request", f"This service does not answer to the host "
                                f"'evil.example:{small.https_port}': the hosts it answers to "
                                f"are 127.0.0.1, ::1, localhost (the operator sets them with "
                                f"api.public_url or api.allowed_hosts)."))


def test_feed_bookmark_url_is_the_public_one(small: Site) -> None:
    """/changes's next link is this public URL with after=<the bookmark>."""
    response = small.get("/transactions/changes?limit=2&fields=id")
    assert response.status_code == 200
    assert response.json() == [{"id": 1}, {"id": 2}]
    token = response.headers["X-Bookmark"]
    assert links(response) == {
        "next": f"{small.base}/transactions/changes?limit=2&fields=id&after={token}"}
    following = requests.get(links(response)["next"], verify=small.cert, timeout=10)
    assert following.json() == [{"id": 3}, {"id": 4}]


def mcp_plates() -> list[str]:
    """The plates a read_records call names: the small site's, then others up to the 1,000
    values a filter takes, each as long as a plate with its owner's note might be."""
    mine = [row["vehno"] for row in small_rows()]
    return mine + [f"W {n:04d} XYZ (no such truck: {'x' * 31})" for n in range(1000 - ROWS)]


def assert_mcp_call(base: str, verify: Path | bool) -> None:
    """A read_records call of about 60 KB, POSTed to /mcp through nginx: the small site's
    records, as its rows give them."""
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "read_records", "arguments": {
            "collection": "transactions", "fields": ["id", "vehno"],
            "filters": [{"field": "vehno", "op": "in", "value": mcp_plates()}]}}}
    body = json.dumps(call).encode()
    assert 60_000 <= len(body) < 64_000
    response = requests.post(base + "/mcp", data=body, verify=verify, timeout=30, headers={
        "Content-Type": "application/json", "Accept": "application/json",
        "MCP-Protocol-Version": "2025-11-25"})
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert not result.get("isError"), result
    records = [{"id": row["id"], "vehno": row["vehno"]} for row in small_rows()]
    assert result["structuredContent"]["records"] == records


def test_an_mcp_call_of_60_kb_comes_through(small: Site) -> None:
    """/mcp takes bodies up to the MCP limit (1 MiB) through the site; every other path 1 KB."""
    assert_mcp_call(small.base, small.cert)


def test_slow_clients_wait_on_nginx_not_on_gunicorn(small: Site) -> None:
    """50 clients that sent half their headers, and 10 that sent half a body: nginx holds them
    all, and /health through it still answers (gunicorn's one worker has 4 threads, which 4
    such clients straight on it would hold)."""
    context = ssl.create_default_context(cafile=small.cert)
    stalled = []
    try:
        for n in range(60):
            sock = context.wrap_socket(socket.create_connection(
                ("127.0.0.1", small.https_port), timeout=10), server_hostname=NAME)
            stalled.append(sock)
            if n < 50:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: " + NAME.encode() + b"\r\nX-Slow:")
            else:
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: " + NAME.encode() + b"\r\n"
                             b"Content-Type: application/json\r\nContent-Length: 900\r\n\r\n{")
        for _ in range(3):  # each time on a new connection
            health = small.get("/health", headers={"Connection": "close"}, timeout=30)
            assert (health.status_code, health.json()["status"]) == (200, "ok")
    finally:
        for sock in stalled:
            sock.close()


def assert_sub_path(base: str) -> None:
    """Under the sub-path `base`, every URL Jembatan writes carries it, once."""
    response = requests.get(base + "/transactions/page/1?page_size=4&fields=id", timeout=10)
    assert response.status_code == 200
    assert response.json() == [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]
    assert links(response) == page_links(base, "/transactions", "page_size=4&fields=id", 2, 1)
    feed = requests.get(base + "/transactions/changes?limit=3&fields=id", timeout=10)
    assert links(feed) == {"next": f"{base}/transactions/changes?limit=3&fields=id"
                                   f"&after={feed.headers['X-Bookmark']}"}
    assert_mcp_call(base, True)
    bare = requests.get(base, allow_redirects=False, timeout=10)
    assert (bare.status_code, bare.headers["Location"]) == (301, base + "/")
    assert requests.get(base + "/health", timeout=10).json()["status"] == "ok"
    # The metrics only for the Prometheus host here too (the existing site's 403 page).
    metrics = requests.get(base + "/metrics", timeout=10)
    assert metrics.status_code == 403 and "jembatan_requests_total" not in metrics.text


def test_under_a_sub_path_stripped(small: Site) -> None:
    """Block A: /jembatan/ is stripped and named in X-Forwarded-Prefix."""
    assert_sub_path(f"http://127.0.0.1:{small.sub_port}/jembatan")


def test_under_a_sub_path_passed_unchanged(tmp_path: Path) -> None:
    """Block B: the path passed as it is to a Jembatan with url_prefix = "/jembatan"."""
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": small_rows()})
    config = tmp_path / "jembatan.toml"
    config.write_text(PROXY_SETTINGS + 'url_prefix = "/jembatan"\n')
    env = {"JEMBATAN_SQLITE": str(database), "JEMBATAN_CONFIG": str(config)}
    port = free_port()
    with gunicorn(tmp_path, env, "--workers", "1") as server, \
            nginx(tmp_path, existing_site(port, sub_path_block("B", server.base, ELSEWHERE)),
                  {"snippets/jembatan-proxy.conf": SNIPPET.read_text()}, [port]):
        assert_sub_path(f"http://127.0.0.1:{port}/jembatan")
        # gunicorn itself serves under the prefix only.
        assert requests.get(server.base + "/health", timeout=10).status_code == 404
        assert requests.get(server.base + "/jembatan/health", timeout=10).status_code == 200


def test_head_office_loads_the_plant_through_nginx(small: Site, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The company's pipeline (docs/warehouse.md) reads the plant at its public https URL,
    the plant's certificate trusted as requests is told to (REQUESTS_CA_BUNDLE), and under
    the existing site's sub-path: each plant's every ticket lands once."""
    import dlt
    import duckdb

    from app.warehouse import Fleet, Plant, run_fleet

    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    fleet = Fleet((Plant("public", small.base),
                   Plant("sub_path", f"http://127.0.0.1:{small.sub_port}/jembatan")))
    warehouse = tmp_path / "warehouse.duckdb"
    pipeline = dlt.pipeline(pipeline_name="hq", dataset_name="hq",
                            pipelines_dir=str(tmp_path / "pipelines"),
                            destination=dlt.destinations.duckdb(str(warehouse)))
    # Not yet trusted: that plant is skipped, saying why; the other loads.
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "")
    assert run_fleet(pipeline, fleet).skipped == {"public": (
        "/: TLS refused: the plant's certificate is not one this host trusts (set "
        "REQUESTS_CA_BUNDLE to the company's CA file, docs/warehouse.md)")}
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(small.cert))
    assert run_fleet(pipeline, fleet).skipped == {}
    with duckdb.connect(str(warehouse), read_only=True) as con:
        found = con.execute("SELECT plant, id, vehno, weigh1 FROM hq.transactions "
                            "ORDER BY plant, id").fetchall()
    assert found == [(plant, r["id"], r["vehno"], r["weigh1"])
                     for plant in ("public", "sub_path") for r in small_rows()]


def error_body(code: int, status: str, message: str) -> dict[str, Any]:
    return {"code": code, "status": status, "message": message}


GUNICORN_414 = ("The request line is longer than the server accepts (gunicorn's "
                "limit_request_line, 4,094 bytes by default): send fewer or shorter query "
                "arguments.")
GUNICORN_431 = ("The request's headers are larger than the server accepts (gunicorn's "
                "limit_request_field_size, 8,190 bytes a header, and limit_request_fields, 100 "
                "headers): send fewer or smaller headers.")
NGINX_414 = ("The request line is longer than the server accepts (nginx's "
             "large_client_header_buffers, 8 KB): send fewer or shorter query arguments.")
NGINX_431 = ("The request's headers are larger than the server accepts (nginx's "
             "large_client_header_buffers, 8 KB a header line): send fewer or smaller headers.")
MANY = {f"X-Extra-{i}": "1" for i in range(101)}
OVERSIZED = {
    # Under nginx's 8 KB buffer, over gunicorn's 4,094 bytes: gunicorn's own JSON comes through.
    "line-6000": ("/transactions?vehno=" + "A" * 6000, {},
                  error_body(414, "URI Too Long", GUNICORN_414)),
    "line-10000": ("/transactions?vehno=" + "A" * 10000, {},
                   error_body(414, "URI Too Long", NGINX_414)),
    "header-10000": ("/transactions", {"X-Big": "A" * 10000},
                     error_body(431, "Request Header Fields Too Large", NGINX_431)),
    "101-headers": ("/transactions", MANY,
                    error_body(431, "Request Header Fields Too Large", GUNICORN_431)),
}


@pytest.mark.parametrize(("path", "headers", "expected"), OVERSIZED.values(), ids=OVERSIZED)
def test_oversized_requests_answer_json(small: Site, path: str, headers: dict[str, str],
                                        expected: dict[str, Any]) -> None:
    """Request lines and headers too large for gunicorn or for nginx: JSON either way."""
    response = small.get(path, headers=headers)
    assert (response.status_code, response.json()) == (expected["code"], expected)
    assert response.headers["Content-Type"] == "application/json"


def raw_tls(site: Site, data: bytes) -> bytes:
    """What the https site answers to these bytes, read to the end."""
    context = ssl.create_default_context(cafile=site.cert)
    with socket.create_connection(("127.0.0.1", site.https_port), timeout=10) as sock, \
            context.wrap_socket(sock, server_hostname=NAME) as tls:
        tls.sendall(data)
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
    return answer


TOO_LARGE = error_body(413, "Content Too Large", "The request body is too large: nginx takes at "
                       "most 1 KB of a body (Jembatan only reads), and 1 MiB of an MCP message "
                       "(POST /mcp).")


def test_what_nginx_refuses_itself_is_json(small: Site) -> None:
    """Not HTTP: 400; a body over client_max_body_size: 413; a small one reaches Jembatan."""
    answer = raw_tls(small, b"GARBAGE\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert answer.split(b"\r\n\r\n", 1)[1] == (
        b'{"code":400,"status":"Bad Request","message":"The request is not valid HTTP '
        b'(nginx refused it)."}')
    for path, size in (("/transactions", 1025), ("/mcp", MAX_BODY + 1)):
        big = requests.post(small.base + path, data=b"x" * size, verify=small.cert,
                            timeout=10, headers={"Content-Type": "application/json"})
        assert (big.status_code, big.json()) == (413, TOO_LARGE), path
    # An MCP message of Jembatan's largest size reaches it: an empty batch, JSON-RPC's refusal.
    largest = requests.post(small.base + "/mcp", data=b"[" + b" " * (MAX_BODY - 2) + b"]",
                            verify=small.cert, timeout=30, headers={
                                "Content-Type": "application/json", "Accept": "application/json"})
    assert (largest.status_code, largest.json()["error"]["code"]) == (400, -32600)
    tiny = requests.post(small.base + "/transactions", data=b"x", verify=small.cert, timeout=10)
    assert (tiny.status_code, tiny.json()["code"]) == (405, 405)


# The same location to nginx (it decodes and merges the path first): 403; else Jembatan's 404.
# (No /./metrics: requests sends it as /metrics.)
METRICS_PATHS = {"/metrics": 403, "/metrics?x=1": 403, "//metrics": 403, "/%6detrics": 403,
                 "/Metrics": 404, "/metrics/": 404}


@pytest.mark.parametrize(("path", "status"), METRICS_PATHS.items(), ids=METRICS_PATHS)
def test_metrics_only_for_the_prometheus_host(small: Site, path: str, status: int) -> None:
    """/metrics through nginx from any other address: 403 JSON, never the figures;
    gunicorn itself answers them."""
    response = small.get(path)
    assert response.status_code == status
    if status == 403:
        assert response.json() == error_body(403, "Forbidden",
                                             "Only the Prometheus host may read /metrics here.")
    else:
        assert response.json()["message"].startswith(f"Nothing at {path}")
    direct = requests.get(small.server.base + "/metrics", timeout=10)
    assert direct.status_code == 200 and "jembatan_requests_total" in direct.text


def test_metrics_open_to_the_prometheus_host(tmp_path: Path, small: Site) -> None:
    """With the client's address as the Prometheus host, /metrics comes through nginx, on
    the site and under the sub-path."""
    with proxied(tmp_path, small.server, prometheus="127.0.0.1") as site:
        for url in (site.base + "/metrics", f"http://127.0.0.1:{site.sub_port}/jembatan/metrics"):
            response = requests.get(url, verify=site.cert, timeout=10)
            assert response.status_code == 200 and "jembatan_requests_total" in response.text


def test_nginx_own_404_is_json(small: Site) -> None:
    """The error pages' own URIs are internal: from outside, nginx's 404, as JSON; a path
    nginx passes on gets Jembatan's own 404."""
    response = small.get("/_jembatan_error/414")
    assert (response.status_code, response.json()) == (404, error_body(
        404, "Not Found", "Nothing at this path. The collections and their URLs are listed at "
        "the index (/)."))
    assert small.get("/nothing").json()["message"].startswith("Nothing at /nothing")


def test_gunicorn_down_is_a_json_502(tmp_path: Path, small: Site) -> None:
    """nginx's own 502 when nothing listens at gunicorn's address: JSON."""
    with proxied(tmp_path, small.server, upstream=f"http://127.0.0.1:{free_port()}") as site:
        response = site.get("/transactions")
    assert (response.status_code, response.json()) == (502, error_body(
        502, "Bad Gateway", "Jembatan is not answering behind the proxy; try again in a few "
        "seconds."))


MILLION = 1_000_000
FIELDS = "id,vehno,weigh1,weigh2"  # the export's fields (every field: 2 min 45 s for the CSV)


def build_million(path: Path) -> Path:
    """A SQLite file with the embedded tables and MILLION transactions: id i, vehno
    'L i AB', weigh1 1000 + i, weigh2 500 (written by SQLite itself: 5 s here)."""
    con = sqlite3.connect(path)
    con.executescript(tables.script("sqlite"))
    con.execute(f'''WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
                                          WHERE i < {MILLION})
                   INSERT INTO "transactions" ("id", "vehno", "tgl_dt1", "jam_dt1", "weigh1",
                                               "weigh2")
                   SELECT i, 'L ' || i || ' AB', '2026-11-01', '07:00:00', 1000.0 + i, 500.0
                   FROM n''')
    con.commit()
    con.close()
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A million transactions, served by one gunicorn worker with one thread (a stream that
    is not freed blocks every other request), behind nginx."""
    work = tmp_path_factory.mktemp("nginx-big")
    database = build_million(work / "plant.sqlite3")
    # The proof at the first read (docs/operations.md) would read the whole table first.
    config = work / "jembatan.toml"
    config.write_text("[database]\nprove_on_first_read = false\n")
    env = {"JEMBATAN_SQLITE": str(database), "JEMBATAN_CONFIG": str(config)}
    with gunicorn(work, env, "--workers", "1", "--threads", "1", "--timeout", "600") as server, \
            proxied(work, server) as site:
        yield site


def expected_csv() -> Iterator[bytes]:
    """The lines of the million rows' CSV, written from the rows inserted."""
    yield f"{FIELDS}\r\n".encode()
    for i in range(1, MILLION + 1):
        yield f"{i},L {i} AB,{1000.0 + i},500.0\r\n".encode()


def check_csv(path: Path, response: requests.Response) -> None:
    """The whole CSV came, compressed by nginx on the way."""
    assert response.headers["Content-Encoding"] == "gzip"
    with open(path, "rb") as got:  # line by line; strict: a line more or less is an error
        for number, (line, expected) in enumerate(zip(got, expected_csv(), strict=True)):
            assert line == expected, f"line {number + 1}"


def sheet_ends(book: zipfile.ZipFile, name: str) -> tuple[int, bytes, bytes]:
    """How many rows the sheet's XML holds, read in pieces; its first and last 64 KiB."""
    rows, head, tail = 0, b"", b""
    with book.open(name) as sheet:
        while piece := sheet.read(1 << 20):
            rows += (tail[-4:] + piece).count(b"<row ")
            head = head or piece[:1 << 16]
            tail = (tail + piece)[-(1 << 16):]
    return rows, head, tail


def check_xlsx(path: Path, response: requests.Response) -> None:
    """The workbook holds the header row and the million rows, the first and last whole."""
    assert "Content-Encoding" not in response.headers  # not among gzip_types: already a zip
    with zipfile.ZipFile(path) as book:
        sheets = [n for n in book.namelist() if n.startswith("xl/worksheets/sheet")]
        assert sheets == ["xl/worksheets/sheet1.xml"]
        rows, head, tail = sheet_ends(book, sheets[0])
    assert rows == MILLION + 1
    first = head[head.index(b'<row r="2"'):]
    last = tail[tail.rindex(b"<row "):]
    assert last.startswith(f'<row r="{MILLION + 1}"'.encode())
    for i, row in zip((1, MILLION), (first, last), strict=True):
        cells = re.findall(rb"<(?:v|t)>([^<]*)</", row.split(b"</row>", 1)[0])
        assert cells == [str(i).encode(), f"L {i} AB".encode(), str(1000.0 + i).encode(),
                         b"500.0"]


# The bound on how much memory a process may gain while the export streams through it. The
# gunicorn worker keeps up to app/http/streaming.py's MEMORY_LIMIT (8 MiB) of a stream in
# memory before it spills to a file, plus the batches being encoded; nginx, with buffering
# off, holds its proxy buffers and gzip's state. Measured here: see the printed figures.
# Either is far below the body (35 MB of CSV, 25 MB of workbook), which a buffering process
# would have to hold.
GROWTH_BOUND_KIB = {"gunicorn": 24 * 1024, "nginx": 4 * 1024}


@pytest.mark.soak
@pytest.mark.parametrize(("format", "check"), [("csv", check_csv), ("xlsx", check_xlsx)])
def test_a_million_rows_stream_through_with_flat_memory(
        big: Site, tmp_path: Path, format: str,
        check: Callable[[Path, requests.Response], None]) -> None:
    """The export of the million rows comes whole through nginx, and neither nginx's worker
    nor gunicorn's grows by more than GROWTH_BOUND_KIB meanwhile."""
    query = f"?format={format}&fields={FIELDS}"
    assert big.get("/transactions/1" + query).status_code == 200  # the code is loaded
    (worker,), (proxy,) = workers(big.server), big.proxy.workers()
    path, started = tmp_path / f"export.{format}", time.monotonic()
    with PeakRss({worker, proxy}) as rss, big.get("/transactions" + query,
                                                   stream=True) as response, \
            open(path, "wb") as out:
        assert response.status_code == 200
        for chunk in response.iter_content(1 << 20):
            out.write(chunk)
    took = time.monotonic() - started
    print(f"{format}: {path.stat().st_size:,} bytes in {took:.1f} s; growth over "
          f"{rss.samples} samples: gunicorn worker {rss.growth(worker):,} KiB (from "
          f"{rss.first[worker]:,}), nginx worker {rss.growth(proxy):,} KiB (from "
          f"{rss.first[proxy]:,})")
    check(path, response)
    assert rss.samples > 100
    assert rss.growth(worker) < GROWTH_BOUND_KIB["gunicorn"]
    assert rss.growth(proxy) < GROWTH_BOUND_KIB["nginx"]


def test_a_client_gone_mid_stream_frees_the_worker(big: Site) -> None:
    """A client that closes its connection after the first MiB of the million records: nginx
    closes gunicorn's, and the one worker of one thread answers the next request at once
    instead of sending the rest (about 3 min for the whole JSON here)."""
    before = workers(big.server)
    with big.get("/transactions", stream=True) as response:
        assert response.status_code == 200
        received = 0
        for chunk in response.iter_content(64 * 1024):
            received += len(chunk)
            if received >= 1 << 20:
                break
    started = time.monotonic()  # the client has closed its connection
    health = big.get("/health", timeout=30)
    freed = time.monotonic() - started
    print(f"the worker answered {freed:.2f} s after the client went away")
    assert health.status_code == 200 and freed < 10
    assert workers(big.server) == before  # the same worker, neither killed nor replaced

    # gunicorn's access line: a 200 that sent some of the records, not all.
    line = re.compile(r"jembatan\.access \S+ \S+ GET /transactions 200 \S+ rows=(\d+)")
    assert eventually(lambda: line.search(big.server.log()) is not None)
    sent = int(line.search(big.server.log())[1])
    assert 0 < sent < MILLION
    # Not a stream that broke off: the database did not fail, the client left.
    found = samples(requests.get(big.server.base + "/metrics", timeout=10).text)
    assert value(found, "jembatan_streams_broken_total") == 0
    # nginx's access line: the 200 it began, with what it had sent when the client left.
    (proxied_line,) = [a for a in big.proxy.access() if '"GET /transactions HTTP/1.1"' in a]
    assert re.search(r'" 200 (\d+) ', proxied_line)


def test_nginx_limits_the_rate_per_key_and_per_address(tmp_path: Path, small: Site) -> None:
    """limit_req (docs/keys.md): with the key's rate lowered to one a minute and a burst of
    one, a key's third request at once is nginx's JSON 429 with Retry-After, while another
    key from the same address still passes; lowered the same way, the address's limit
    refuses a request whatever key it sends (the rates are per minute: no timing matters)."""
    cert, key = self_signed(tmp_path, NAME)
    for zone, lowered in (("key", "rate=20r/s"), ("address", "rate=40r/s")):
        ports = [free_port() for _ in range(3)]
        site = Site(small.server, None, *ports, cert)  # type: ignore[arg-type]
        conf = replaced(site_conf(site, small.server.base, key, ELSEWHERE), {
            lowered: ("rate=1r/m", 1),
            f"zone=jembatan_{zone} burst={60 if zone == 'key' else 120} nodelay": (
                f"zone=jembatan_{zone} burst=1 nodelay", 1)})
        with nginx(tmp_path / zone, conf, {"snippets/jembatan-proxy.conf": SNIPPET.read_text()},
                   ports[:2]) as site.proxy:  # the shipped site alone: no sub-path site
            one, other = ({"X-API-Key": f"{name}-0123456789abcdef"} for name in "ab")
            assert [site.get("/health", headers=one).status_code for _ in range(2)] == [200, 200]
            refused = site.get("/health", headers=one)
            assert (refused.status_code, refused.headers["Retry-After"], refused.json()) == (
                429, "1", error_body(429, "Too Many Requests", "Too many requests from this "
                                     "key or address (nginx limit_req): slow down and retry "
                                     "in a second."))
            assert site.get("/health", headers=other).status_code == (
                200 if zone == "key" else 429)
