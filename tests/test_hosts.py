"""The service's doors (docs/api.md §10 and §10.1): the host a request may ask for, the URLs
Jembatan writes (api.public_url), whom X-Forwarded-* is believed from (api.trusted_proxies),
and a browser's CORS preflight with keys configured. On SQLite alone: none of it reads the
database differently. tests/test_nginx.py runs the shipped nginx site with these settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from app import create_app
from app.ops.config import ConfigError, host_name, load_settings
from tests.conftest import build_database
from tests.helpers import make_row

KEY = "a-sufficiently-long-test-key"
ORIGIN = "https://intranet.plant.local"
PUBLIC = "https://weighbridge.plant.local/api"
ROWS = {"customers": [{"id": i, "CustCode": f"C{i}", "CustName": f"PT {i}"} for i in range(1, 6)],
        "transactions": [make_row("transactions", i, {"update": ("2026-01-02", f"10:00:0{i}")})
                         for i in range(1, 4)]}
COLLECTIONS = ("customers", "transactions")
LOOPBACK = "127.0.0.1, ::1, localhost"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("hosts") / "plant.sqlite3", ROWS)


def client(database: Path, keyed: bool = False, **api: Any) -> FlaskClient:
    settings: dict[str, Any] = {
        "database": {"sqlite": str(database), "prove_on_first_read": False},
        "collections": {"serve": list(COLLECTIONS)}, "api": api,
        "feed": {"settle_seconds": 0, "lookback_seconds": 86400}}
    if keyed:
        settings["auth"] = {"api_keys": [KEY]}
    return create_app(settings).test_client()


def refused(host: str, accepted: str) -> dict[str, Any]:
    return {"code": 400, "status": "Bad Request",
            "message": f"This service does not answer to the host '{host}': the hosts it "
                       f"answers to are {accepted} (the operator sets them with "
                       f"api.public_url or api.allowed_hosts)."}


def index_urls(base: str) -> dict[str, Any]:
    """The URLs of the index, all under `base`."""
    return {"collections": {c: f"{base}/{c}" for c in COLLECTIONS}, "docs": f"{base}/docs",
            "openapi": f"{base}/openapi.json", "dashboard": f"{base}/dashboard",
            "report": f"{base}/report"}


def urls_of(body: dict[str, Any]) -> dict[str, Any]:
    return {"collections": {c["name"]: c["url"] for c in body["collections"]},
            **{k: body[k] for k in ("docs", "openapi", "dashboard", "report")}}


def page_links(base: str) -> str:
    """The Link header of /customers/page/2?page_size=2 (5 records: 3 pages) under `base`."""
    page = f"{base}/customers/page/{{}}?page_size=2"
    return ", ".join(f'<{page.format(n)}>; rel="{rel}"'
                     for n, rel in ((1, "first"), (3, "last"), (1, "prev"), (3, "next")))


# -- the host a request asks for -----------------------------------------------------------


@pytest.mark.parametrize("keyed", [False, True])
def test_a_host_outside_the_allowed_ones_is_a_400_everywhere(database: Path,
                                                              keyed: bool) -> None:
    """Keyless or not, a key sent or not, on the data, the open endpoints, a path that is
    nothing, and POST /mcp: a DNS-rebinding page's own name is refused."""
    c = client(database, keyed=keyed)
    key = {"X-API-Key": KEY} if keyed else {}
    for method, path in [("GET", "/customers/1"), ("GET", "/"), ("GET", "/health"),
                         ("GET", "/docs"), ("GET", "/nothing"), ("OPTIONS", "/customers"),
                         ("POST", "/mcp")]:
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
            r = c.open(path, method=method, headers={"Host": host, **key},
                       json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert (r.status_code, r.get_json()) == (400, refused(host, LOOPBACK)), (path, host)


def test_the_loopback_names_are_always_answered(database: Path) -> None:
    c = client(database)
    for host, base in [("localhost", "http://localhost"), ("127.0.0.1:8000",
                       "http://127.0.0.1:8000"), ("[::1]:8000", "http://[::1]:8000"),
                       ("LOCALHOST", "http://localhost")]:
        r = c.get("/", headers={"Host": host})
        assert r.status_code == 200 and urls_of(r.get_json()) == index_urls(base), host


def test_allowed_hosts_and_any(database: Path) -> None:
    c = client(database, allowed_hosts=["Plant.Example", "10.1.1.30"])
    for host in ("plant.example", "PLANT.example:8443", "10.1.1.30:8000", "localhost"):
        assert c.get("/customers/1", headers={"Host": host}).status_code == 200, host
    r = c.get("/customers/1", headers={"Host": "other.example"})
    assert r.get_json() == refused("other.example", "10.1.1.30, 127.0.0.1, ::1, localhost, "
                                                    "plant.example")
    anyone = client(database, allowed_hosts=["*"])
    assert anyone.get("/customers/1", headers={"Host": "other.example"}).status_code == 200


def test_a_host_with_control_characters_is_refused_and_shown_escaped(database: Path) -> None:
    r = client(database).get("/customers/1", headers={"Host": "evil\x1b[31m.example"})
    assert r.status_code == 400
    assert r.get_json() == refused("evil\\x1b[31m.example", LOOPBACK)  # a backslash, x, 1, b


# -- the URLs Jembatan writes: api.public_url ----------------------------------------------


def test_public_url_builds_every_url_whatever_the_request_says(database: Path) -> None:
    """The index, a page's Link and the feed's next link (its bookmark in it), from the
    public URL: with the loopback Host, with its own host, and with a trusted proxy's
    forwarded host, scheme and prefix."""
    c = client(database, public_url=PUBLIC, trusted_proxies=["127.0.0.1"])
    for headers in ({}, {"Host": "weighbridge.plant.local"},
                    {"X-Forwarded-Host": "weighbridge.plant.local", "X-Forwarded-Proto": "http",
                     "X-Forwarded-Prefix": "/other", "X-Forwarded-Port": "81"}):
        assert urls_of(c.get("/", headers=headers).get_json()) == index_urls(PUBLIC)
        r = c.get("/customers/page/2?page_size=2", headers=headers)
        assert r.headers["Link"] == page_links(PUBLIC)
        r = c.get("/transactions/changes?limit=2", headers=headers)
        assert [rec["id"] for rec in r.get_json()] == [1, 2]
        assert r.headers["Link"] == (f"<{PUBLIC}/transactions/changes?limit=2&after="
                                     f"{r.headers['X-Bookmark']}>; rel=\"next\"")
    r = c.get("/", headers={"X-Forwarded-Host": "evil.example"})
    assert r.get_json() == refused("evil.example", LOOPBACK + ", weighbridge.plant.local")


def test_public_url_under_a_url_prefix(database: Path) -> None:
    """With url_prefix "/api" the routes carry it, and the public URL ends with it: the
    part before is what the proxy strips ("" here)."""
    c = client(database, url_prefix="/api", public_url="http://wb.plant.local:8080/api")
    assert urls_of(c.get("/api/").get_json()) == index_urls("http://wb.plant.local:8080/api")
    assert c.get("/api/openapi.json").get_json()["servers"] == [{"url": "/api"}]
    stripped = client(database, url_prefix="/api", public_url="https://plant.local/wb/api")
    assert urls_of(stripped.get("/api/").get_json()) == index_urls("https://plant.local/wb/api")
    assert stripped.get("/api/openapi.json").get_json()["servers"] == [{"url": "/wb/api"}]


# -- X-Forwarded-*: api.trusted_proxies ----------------------------------------------------


def forwarded(client_: FlaskClient, peer: str) -> tuple[dict[str, Any], str]:
    r = client_.get("/customers/page/2?page_size=2", environ_base={"REMOTE_ADDR": peer},
                    headers={"X-Forwarded-For": "6.6.6.6, 10.1.2.3",
                             "X-Forwarded-Proto": "https", "X-Forwarded-Host": "plant.example",
                             "X-Forwarded-Prefix": "/jembatan"})
    assert r.status_code == 200, r.get_data(as_text=True)
    r.close()  # the access line is written when the response is done
    return r.headers, r.headers["Link"]


def test_forwarded_headers_from_a_trusted_proxy_only(database: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """From a peer of trusted_proxies (an address, a network, an IPv4-mapped address) the
    headers hold: the client is the last X-Forwarded-For entry; from any other peer, and by
    default, they are dropped: the peer is the client and the URLs are the request's own."""
    caplog.set_level("INFO", logger="jembatan.access")
    behind = {"trusted_proxies": ["10.1.1.20", "192.168.7.0/24", "::1"],
              "allowed_hosts": ["plant.example"]}
    cases = [(client(database, **behind), "10.1.1.20", True),
             (client(database, **behind), "192.168.7.99", True),
             (client(database, **behind), "::ffff:10.1.1.20", True),
             (client(database, **behind), "::1", True),
             (client(database, **behind), "10.1.1.21", False),
             (client(database, allowed_hosts=["plant.example"]), "127.0.0.1", False)]
    for c, peer, believed in cases:
        caplog.clear()
        _, links = forwarded(c, peer)
        base = "https://plant.example/jembatan" if believed else "http://localhost"
        assert links == page_links(base), peer
        [line] = [r for r in caplog.records if r.name == "jembatan.access"]
        assert line.fields["client"] == ("10.1.2.3" if believed else peer)  # type: ignore[attr-defined]


# -- a browser's CORS preflight with keys --------------------------------------------------

PREFLIGHT = {"Origin": ORIGIN, "Access-Control-Request-Method": "GET",
             "Access-Control-Request-Headers": "x-api-key"}
CORS = {"Access-Control-Allow-Origin": ORIGIN,
        "Access-Control-Expose-Headers": "X-Pagination, Link, X-Request-ID, Retry-After, "
                                         "X-Bookmark, X-Bookmark-Repeats, X-Left-Out",
        "Vary": "Origin", "Access-Control-Allow-Methods": "GET, HEAD",
        "Access-Control-Allow-Headers": "X-API-Key, Authorization, X-Request-ID",
        "Access-Control-Max-Age": "600"}


def cors_of(headers: Any) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.startswith("Access-Control-") or k == "Vary"}


def test_a_preflight_from_an_allowed_origin_needs_no_key(database: Path) -> None:
    c = client(database, keyed=True, cors_origins=[ORIGIN])
    for path in ("/customers", "/customers/1", "/customers/page/2?page_size=2", "/",
                 "/transactions/changes"):
        r = c.options(path, headers=PREFLIGHT)
        assert (r.status_code, r.data, cors_of(r.headers)) == (200, b"", CORS), path
        # The request that follows carries the key, and is answered with the CORS headers.
        r = c.get(path, headers={"Origin": ORIGIN, "X-API-Key": KEY})
        assert r.status_code == 200 and cors_of(r.headers) == {
            k: v for k, v in CORS.items() if k in ("Access-Control-Allow-Origin",
                                                  "Access-Control-Expose-Headers", "Vary")}
        # Without the key it is a 401 still.
        assert c.get(path, headers={"Origin": ORIGIN}).status_code == 401


def test_a_preflight_from_another_origin_is_refused_without_cors(database: Path) -> None:
    """Another origin, or CORS not configured: a 401 without CORS headers (the browser then
    sends nothing). An OPTIONS that is no preflight (no Access-Control-Request-Method) needs
    the key too; from an allowed origin its 401 carries the CORS headers, as every answer to
    that origin does, so that the page can read why."""
    unauthorized = {"code": 401, "status": "Unauthorized",
                    "message": "an API key is required: send it as X-API-Key: <key> or "
                               "Authorization: Bearer <key>"}
    for origins, headers, cors in [
            ([ORIGIN], {**PREFLIGHT, "Origin": "https://evil.example"}, {}),
            ([], PREFLIGHT, {}),
            ([ORIGIN], {"Origin": ORIGIN}, {k: CORS[k] for k in (
                "Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Vary",
                "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
                "Access-Control-Max-Age")})]:
        c = client(database, keyed=True, cors_origins=origins)
        r = c.options("/customers", headers=headers)
        assert (r.status_code, r.get_json(), cors_of(r.headers)) == (401, unauthorized, cors)


# -- the settings checked at start ---------------------------------------------------------


@pytest.mark.parametrize(("api", "message"), [
    ({"public_url": "weighbridge.plant.local"}, "api.public_url: 'weighbridge.plant.local' is "
     "not the URL clients reach the service at; give scheme://host[:port][/path] with no "
     "trailing slash, query or user, e.g. \"https://weighbridge.plant.local/api\""),
    ({"public_url": "https://wb.local/"}, "api.public_url: 'https://wb.local/' is not"),
    ({"public_url": "ftp://wb.local"}, "api.public_url: 'ftp://wb.local' is not"),
    ({"public_url": "https://wb.local?x=1"}, "api.public_url: 'https://wb.local?x=1' is not"),
    ({"public_url": "https://wb.local/jembatan", "url_prefix": "/api"},
     "api.public_url: 'https://wb.local/jembatan' is not the URL clients reach the service "
     "at; give scheme://host[:port][/path] with no trailing slash, query or user, ending "
     "with api.url_prefix (/api), e.g. \"https://weighbridge.plant.local/api\""),
    ({"allowed_hosts": ["plant.example:8000"]}, "api.allowed_hosts: 'plant.example:8000' is "
     "not a host name; give each as a name or address without scheme, path or port, e.g. "
     "\"weighbridge.plant.local\" or \"10.1.1.30\" (\"*\": any)"),
    ({"allowed_hosts": ["https://plant.example"]}, "api.allowed_hosts: 'https://plant.example'"),
    ({"allowed_hosts": [""]}, "api.allowed_hosts: '' is not a host name"),
    ({"trusted_proxies": ["nginx"]}, "api.trusted_proxies: 'nginx' is not an IP address or "
     "network; give the address nginx or IIS connects from, e.g. \"127.0.0.1\" or "
     "\"10.1.1.20\" (a network as \"10.1.1.0/24\")"),
])
def test_settings_that_cannot_be_are_refused_at_start(api: dict[str, Any],
                                                       message: str) -> None:
    with pytest.raises(ConfigError) as refusal:
        load_settings({"api": api}, {})
    assert str(refusal.value).startswith(message), str(refusal.value)


def test_the_settings_as_read() -> None:
    s = load_settings({"api": {"public_url": "https://WB.plant.local:8443/wb/api",
                               "url_prefix": "/api", "allowed_hosts": ["[fe80::1]", "A.b"],
                               "trusted_proxies": ["10.1.1.0/24", "::1"]}}, {}).api
    assert json.loads(json.dumps({
        "public": [s.public_url.scheme, s.public_url.netloc, s.public_url.root]
        if s.public_url else None, "hosts": sorted(s.allowed_hosts),
        "proxies": [str(p) for p in s.trusted_proxies]})) == {
        "public": ["https", "wb.plant.local:8443", "/wb"],
        "hosts": ["127.0.0.1", "::1", "a.b", "fe80::1", "localhost", "wb.plant.local"],
        "proxies": ["10.1.1.0/24", "::1/128"]}
    assert load_settings(None, {}).api.allowed_hosts == {"localhost", "127.0.0.1", "::1"}


@pytest.mark.parametrize(("host", "name"), [
    ("localhost", "localhost"), ("LOCALHOST:8000", "localhost"), ("[::1]:8000", "::1"),
    ("[::1]", "::1"), ("127.0.0.1:80", "127.0.0.1"), ("wb.plant.local:65535", "wb.plant.local"),
    # Not host[:port]: as it is, which no allowed host is like.
    ("[::1", "[::1"), ("evil.example:", "evil.example:"), ("localhost:99999", "localhost:99999"),
    ("localhost:abc", "localhost:abc"), ("x]:8", "x]:8"), ("a:b:c", "a:b:c")])
def test_the_name_of_a_host(host: str, name: str) -> None:
    assert host_name(host) == name
