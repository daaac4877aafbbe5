"""The service around the collections: index, health, OpenAPI, Swagger UI, url_prefix, proxy
headers, the wire format of driver values (docs/api.md §4) and API keys (docs/api.md §10)."""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from flask.testing import FlaskClient

from app import create_app
from app.model.schemas import Date, JoinedDateTime, Number, Time
from tests.conftest import (
    ENGINE_PARAMS,
    MakeClient,
    build_database,
    ensure_rows,
    open_database,
)
from tests.contract import COLLECTIONS
from tests.test_read_kinds import routes_of

WEIGHING_ROW = {"id": 1, "vehno": "B 1234 XY", "tgl_dt1": "2026-03-01", "jam_dt1": "07:05:03",
                "weigh1": 12500.5}


def module_client(request: pytest.FixtureRequest, factory: pytest.TempPathFactory,
                  engine: str, tables: dict[str, list[dict[str, Any]]],
                  **settings: Any) -> FlaskClient:
    """A client shared by a module's tests (building the app for each one is slow)."""
    database = open_database(request, engine, tables, factory.mktemp("db") / "db.sqlite3")
    return create_app({"database": database, **settings}).test_client()


# -- index and health ----------------------------------------------------------------------


def test_index(make_client: MakeClient) -> None:
    client = make_client({})
    r = client.get("/")
    assert r.status_code == 200
    assert r.mimetype == "application/json"
    body = r.get_json()
    listed = {c["name"]: c["url"] for c in body["collections"]}
    assert list(listed) == list(COLLECTIONS)
    for name, url in listed.items():
        assert url == f"http://localhost/{name}"
        assert client.get(urlsplit(url).path).status_code == 200
    assert body["docs"] == "http://localhost/docs"
    assert body["openapi"] == "http://localhost/openapi.json"
    assert body["dashboard"] == "http://localhost/dashboard"
    assert client.get("/dashboard").mimetype == "text/html"


def test_health(make_client: MakeClient) -> None:
    r = make_client({}).get("/health")
    assert r.status_code == 200
    assert r.mimetype == "application/json"
    assert r.get_json() == {"status": "ok", "database": "ok"}


# -- OpenAPI -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spec(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The document does not depend on the engine: built once, over sqlite3."""
    r = module_client(request, tmp_path_factory, "sqlite3", {}).get("/openapi.json")
    assert r.status_code == 200
    assert r.mimetype == "application/json"
    return r.get_json()


def resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        _, *parts = node["$ref"].split("/")
        node = spec
        for part in parts:
            node = node[part]
    return node


def key_path(spec: dict[str, Any], collection: str) -> str:
    """`/<c>/{key}` as the document names it: {key}, {ID} or {numberrow} (seed §4)."""
    found = [p for p in spec["paths"] if re.fullmatch(rf"/{collection}/\{{\w+\}}", p)]
    assert len(found) == 1, f"no single key path for {collection}: {found}"
    name = found[0].split("{")[1].rstrip("}")
    allowed = {"key", "numberrow"} if COLLECTIONS[collection][1] == "numberrow" else {
        "key", "ID", "id"}
    assert name in allowed, found[0]
    return found[0]


def date_path(collection: str) -> str:
    return f"/{collection}/date/{{tglawal}}/{{jam_awal}}/{{tglakhir}}/{{jam_akhir}}"


def test_openapi_is_version_3(spec: dict[str, Any]) -> None:
    assert spec["openapi"].startswith("3.")
    assert spec["info"]["title"]


@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_openapi_paths_and_summaries(spec: dict[str, Any], collection: str) -> None:
    paths = spec["paths"]
    fields, key, ons = COLLECTIONS[collection]
    assert paths[f"/{collection}"]["get"]["summary"] == "gets all"
    assert paths[f"/{collection}/page/{{pagenumber}}"]["get"]["summary"] == "gets by page"
    by_key = paths[key_path(spec, collection)]["get"]
    assert by_key["summary"] == ("finds by row number" if key == "numberrow" else "finds by ID")
    if ons:
        assert paths[date_path(collection)]["get"]["summary"] == "gets by date"
    else:
        assert date_path(collection) not in paths
        assert not any(p.startswith(f"/{collection}/date") for p in paths)
    # Only reads are documented.
    for p in paths:
        if p == f"/{collection}" or p.startswith(f"/{collection}/"):
            assert set(paths[p]) - {"parameters"} <= {"get", "head", "options"}, p


def _responses(spec: dict[str, Any], path: str) -> dict[str, Any]:
    return spec["paths"][path]["get"]["responses"]


def _error_documented(spec: dict[str, Any], responses: dict[str, Any], code: str) -> None:
    assert code in responses, f"{code} not documented"
    response = resolve(spec, responses[code])
    schema = resolve(spec, response["content"]["application/json"]["schema"])
    assert {"code", "status", "message"} <= set(schema["properties"])


@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_openapi_error_responses(spec: dict[str, Any], collection: str) -> None:
    _, _, ons = COLLECTIONS[collection]
    expected = {f"/{collection}": ["503"],
                f"/{collection}/page/{{pagenumber}}": ["400", "503"],
                key_path(spec, collection): ["400", "404", "503"]}
    if ons:
        expected[date_path(collection)] = ["400", "503"]
    for path, codes in expected.items():
        responses = _responses(spec, path)
        assert "200" in responses
        for code in codes:
            _error_documented(spec, responses, code)


def _record_schema(spec: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    schema = resolve(spec, resolve(spec, response)["content"]["application/json"]["schema"])
    if schema.get("type") == "array":
        schema = resolve(spec, schema["items"])
    return schema


@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_openapi_record_schemas(spec: dict[str, Any], collection: str) -> None:
    """Every response carries the record shape: its fields in the contract's order, all
    nullable but a weighing's cancelled, a boolean that is never null (docs/api.md §3)."""
    fields, _, ons = COLLECTIONS[collection]
    paths = [f"/{collection}", f"/{collection}/page/{{pagenumber}}",
             key_path(spec, collection)] + ([date_path(collection)] if ons else [])
    for path in paths:
        schema = _record_schema(spec, _responses(spec, path)["200"])
        properties = schema["properties"]
        assert list(properties) == fields, path
        for name, prop in properties.items():
            if name == "cancelled":
                assert resolve(spec, prop) == {"type": "boolean"}, path
                continue
            assert resolve(spec, prop).get("nullable") is True, f"{path}: {name}"


@pytest.mark.parametrize("collection", [c for c, v in COLLECTIONS.items() if v[2]])
def test_openapi_date_range_parameters(spec: dict[str, Any], collection: str) -> None:
    operation = spec["paths"][date_path(collection)]
    params = {p["name"]: p for p in operation.get("parameters", []) + operation["get"].get(
        "parameters", [])}
    for name in ("tglawal", "jam_awal", "tglakhir", "jam_akhir"):
        assert params[name]["in"] == "path"
    on = resolve(spec, params["on"]["schema"])
    assert on["enum"] == COLLECTIONS[collection][2]
    assert on.get("default") == COLLECTIONS[collection][2][0]


def _parameters(spec: dict[str, Any], path: str) -> dict[str, dict[str, Any]]:
    item = spec["paths"][path]
    return {p["name"]: p for p in item.get("parameters", []) + item["get"].get(
        "parameters", [])}


@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_openapi_lists_document_their_filters(spec: dict[str, Any], collection: str) -> None:
    """Each list operation has each stored field's equality filter as a query parameter of
    the field's type, and names the operators; a record by key takes no filter."""
    fields, _, ons = COLLECTIONS[collection]
    stored = [f for f in fields if f not in ("numberrow", "CreatedDate", "ExpireDate")]
    lists = [f"/{collection}", f"/{collection}/page/{{pagenumber}}"] + (
        [date_path(collection)] if ons else [])
    types = {"id": ("integer", "int64"), "vehno": ("string", None), "weigh1": ("number", None),
             "tgl_dt1": ("string", "date"), "isproses": ("integer", "int64"),
             "tanggal": ("string", "date"), "Number": ("string", None)}
    for path in lists:
        params = _parameters(spec, path)
        filters = [n for n, p in params.items() if p["in"] == "query" and n in stored]
        assert filters == stored, path
        for name in filters:
            assert params[name]["required"] is False
            if name == "cancelled":  # a condition takes true, false or all, no operator
                assert resolve(spec, params[name]["schema"]) == {
                    "type": "string", "enum": ["true", "false", "all"]}
                assert "__" not in params[name]["description"], path
                continue
            assert f"{name}__not" in params[name]["description"]
            schema = resolve(spec, params[name]["schema"])
            if name in types:
                assert (schema["type"], schema.get("format")) == types[name], (path, name)
            if name.startswith("jam"):
                assert schema["pattern"].startswith("^([01][0-9]|2[0-3])"), (path, name)
        description = spec["paths"][path]["get"]["description"]
        for word in ("`field__not=v`", "NULL included", "`field__in=v1,v2`",
                     "`field__isnull=true|false`", "numberrow is null"):
            assert word in description, (path, word)
    key = _parameters(spec, key_path(spec, collection))
    assert not set(key) & set(stored) - {"id"} and key.get("id", {}).get("in") != "query"


# -- Swagger UI ----------------------------------------------------------------------------


def _docs_references(html: str) -> list[str]:
    refs = re.findall(r"""<script[^>]*\bsrc\s*=\s*["']([^"']+)["']""", html, re.I)
    refs += re.findall(r"""<link[^>]*\bhref\s*=\s*["']([^"']+)["']""", html, re.I)
    return refs


def check_docs(client: FlaskClient, path: str, host: str = "localhost",
               headers: dict[str, str] | None = None) -> None:
    page_url = f"http://{host}{path}"
    r = client.get(path, headers=headers)
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    # Nothing from another host: the page works on a plant LAN with no internet.
    for url in re.findall(r"""https?://[^\s"'<>)]+""", html):
        assert urlsplit(url).hostname == host, f"/docs loads {url}"
    refs = _docs_references(html)
    assert any(ref.endswith(".js") for ref in refs), refs
    assert any(ref.endswith(".css") for ref in refs), refs
    for ref in refs:
        assert not ref.startswith("//"), ref
        url = urlsplit(urljoin(page_url, ref))
        assert url.hostname == host, ref
        with client.get(url.path, headers=headers) as asset:
            assert asset.status_code == 200, f"{ref} -> {url.path}: {asset.status_code}"
            assert asset.data
    # The document the page loads is served too.
    m = re.search(r"""\burl\s*:\s*["']([^"']+)["']""", html)
    assert m, "no OpenAPI url in the page"
    spec_url = urlsplit(urljoin(page_url, m.group(1)))
    assert spec_url.hostname == host
    spec = client.get(spec_url.path, headers=headers)
    assert spec.status_code == 200
    assert spec.get_json()["openapi"].startswith("3.")


def test_docs_served_by_the_service(make_client: MakeClient) -> None:
    check_docs(make_client({}), "/docs")


def test_docs_behind_a_proxy_prefix(make_client: MakeClient) -> None:
    """Behind a proxy that strips /jembatan, the page's own URLs still lead to its files."""
    client = make_client({}, api=BEHIND_A_PROXY)
    headers = {"X-Forwarded-Prefix": "/jembatan", "X-Forwarded-Host": "plant.example"}
    r = client.get("/docs", headers=headers)
    html = r.get_data(as_text=True)
    page_url = "http://plant.example/jembatan/docs"
    for ref in _docs_references(html):
        assert urlsplit(urljoin(page_url, ref)).path.startswith("/jembatan/"), ref
    m = re.search(r"""\burl\s*:\s*["']([^"']+)["']""", html)
    assert m and urljoin(page_url, m.group(1)) in (
        "http://plant.example/jembatan/openapi.json", "/jembatan/openapi.json"), m


# -- url_prefix ----------------------------------------------------------------------------


def test_url_prefix_moves_everything(make_client: MakeClient) -> None:
    client = make_client({"weighing": [WEIGHING_ROW]}, api={"url_prefix": "/api"})
    index = client.get("/api/")
    assert index.status_code == 200
    body = index.get_json()
    assert {c["name"]: c["url"] for c in body["collections"]} == {
        c: f"http://localhost/api/{c}" for c in COLLECTIONS}
    assert body["docs"] == "http://localhost/api/docs"
    assert body["openapi"] == "http://localhost/api/openapi.json"
    assert body["dashboard"] == "http://localhost/api/dashboard"
    assert client.get("/api/health").get_json() == {"status": "ok", "database": "ok"}
    r = client.get("/api/weighing")
    assert r.status_code == 200
    assert [rec["id"] for rec in r.get_json()] == [1]
    assert client.get("/api/weighing/page/1").status_code == 200
    assert client.get("/api/weighing/1").status_code == 200
    assert client.get("/api/weighing/date/2026-03-01/00:00/2026-03-01/23:59").get_json()[0][
        "id"] == 1
    for path in ("/weighing", "/weighing/1", "/health", "/openapi.json", "/docs"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.get_json()["code"] == 404, path
    spec = client.get("/api/openapi.json").get_json()
    servers = [s.get("url", "") for s in spec.get("servers", [])]
    if any(s.rstrip("/").endswith("/api") for s in servers):
        assert "/weighing" in spec["paths"]
    else:
        assert "/api/weighing" in spec["paths"]
        assert "/weighing" not in spec["paths"]
    check_docs(client, "/api/docs")


# -- proxy headers -------------------------------------------------------------------------

# The test client connects from 127.0.0.1: the proxy these settings trust (docs/api.md §10.1),
# which forwards the host plant.example.
BEHIND_A_PROXY = {"trusted_proxies": ["127.0.0.1"], "allowed_hosts": ["plant.example"]}


def test_forwarded_headers_show_in_the_index(make_client: MakeClient) -> None:
    client = make_client({}, api=BEHIND_A_PROXY)
    body = client.get("/", headers={"X-Forwarded-Proto": "https",
                                    "X-Forwarded-Host": "plant.example",
                                    "X-Forwarded-Prefix": "/jembatan"}).get_json()
    assert {c["name"]: c["url"] for c in body["collections"]} == {
        c: f"https://plant.example/jembatan/{c}" for c in COLLECTIONS}
    assert body["docs"] == "https://plant.example/jembatan/docs"
    assert body["openapi"] == "https://plant.example/jembatan/openapi.json"


def test_forwarded_headers_show_in_page_links(make_client: MakeClient) -> None:
    rows = [{"id": i} for i in range(1, 6)]
    client = make_client({"customers": rows}, api=BEHIND_A_PROXY)
    r = client.get("/customers/page/2?page_size=2",
                   headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "plant.example"})
    assert r.status_code == 200
    links = r.headers["Link"]
    for url in re.findall(r"<([^>]+)>", links):
        assert url.startswith("https://plant.example/customers/page/"), links


# -- the wire format of driver values (docs/api.md §4) -------------------------------------


def dump(field: Any, value: Any) -> str:
    """The field's value as it goes on the wire."""
    return json.dumps(field.serialize("v", {"v": value}))


@pytest.mark.parametrize(("value", "wire"), [
    (Decimal("12.50"), "12.5"),
    (Decimal("7"), "7"),
    (Decimal("7.000"), "7"),
    (Decimal("-0.25"), "-0.25"),
    (Decimal("123456789.125"), "123456789.125"),
    (12.5, "12.5"),
    (3, "3"),
    (float("nan"), "null"),
    (float("inf"), "null"),
    (None, "null"),
])
def test_number(value: Any, wire: str) -> None:
    assert dump(Number(allow_none=True), value) == wire


@pytest.mark.parametrize(("value", "wire"), [
    (dt.time(7, 5, 3), '"07:05:03"'),
    (dt.time(7, 5, 3, 500000), '"07:05:03.500000"'),
    (dt.time(0, 0), '"00:00:00"'),
    ("07:05:03", '"07:05:03"'),
    ("07:05:03.5", '"07:05:03.500000"'),
    ("07:05:03.000", '"07:05:03"'),
    (None, "null"),
])
def test_time(value: Any, wire: str) -> None:
    assert dump(Time(allow_none=True), value) == wire


@pytest.mark.parametrize(("value", "wire"), [
    (dt.date(2026, 3, 1), '"2026-03-01"'),
    (dt.datetime(2026, 3, 1, 0, 0), '"2026-03-01"'),
    ("2026-03-01", '"2026-03-01"'),
    (None, "null"),
])
def test_date(value: Any, wire: str) -> None:
    assert dump(Date(allow_none=True), value) == wire


@pytest.mark.parametrize(("day", "clock", "wire"), [
    (dt.date(2026, 3, 1), dt.time(7, 5, 3), '"2026-03-01T07:05:03"'),
    ("2026-03-01", "07:05:03", '"2026-03-01T07:05:03"'),
    (dt.date(2026, 3, 1), None, '"2026-03-01T00:00:00"'),
    (None, dt.time(7, 5, 3), "null"),
])
def test_joined_datetime(day: Any, clock: Any, wire: str) -> None:
    field = JoinedDateTime("d", "t")
    assert json.dumps(field.serialize("x", {"d": day, "t": clock})) == wire


# -- API keys (docs/api.md §10) ------------------------------------------------------------


LOCKED_ROWS = {"weighing": [WEIGHING_ROW], "customers": [{"id": 1}]}


@pytest.fixture(scope="module", params=ENGINE_PARAMS)
def locked_app(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> tuple[str, FlaskClient]:
    return request.param, module_client(request, tmp_path_factory, request.param, LOCKED_ROWS,
                                        auth={"api_keys": ["k1-0123456789abc"]})


@pytest.fixture
def locked(request: pytest.FixtureRequest, locked_app: tuple[str, FlaskClient]) -> FlaskClient:
    engine, client = locked_app
    ensure_rows(request, engine, LOCKED_ROWS)
    return client


DATA_PATHS = ["/weighing", "/weighing/page/1", "/weighing/1",
              "/weighing/date/2026-03-01/00:00/2026-03-01/23:59", "/customers/1"]


@pytest.mark.parametrize("path", DATA_PATHS)
@pytest.mark.parametrize("headers", [
    {},
    {"X-API-Key": "k2-0123456789abc"},
    {"X-API-Key": ""},
    {"X-API-Key": "k1-0123456789abc "},
    {"X-API-Key": "K1"},
    {"Authorization": "Bearer k2-0123456789abc"},
    {"Authorization": "Basic k1-0123456789abc"},
    {"Authorization": "k1-0123456789abc"},
], ids=["none", "wrong", "empty", "trailing-space", "case", "bearer-wrong", "basic", "bare"])
def test_without_a_valid_key_401(locked: FlaskClient, path: str,
                                 headers: dict[str, str]) -> None:
    r = locked.get(path, headers=headers)
    assert r.status_code == 401
    assert r.mimetype == "application/json"
    assert r.headers["WWW-Authenticate"].split()[0] == "Bearer"
    body = r.get_json()
    assert body["code"] == 401 and body["status"] == "Unauthorized" and body["message"]
    assert "k1-0123456789abc" not in r.get_data(as_text=True)


@pytest.mark.parametrize("path", DATA_PATHS)
@pytest.mark.parametrize("headers", [{"X-API-Key": "k1-0123456789abc"},
                                     {"Authorization": "Bearer k1-0123456789abc"}],
                         ids=["x-api-key", "bearer"])
def test_with_the_key_200(locked: FlaskClient, path: str, headers: dict[str, str]) -> None:
    r = locked.get(path, headers=headers)
    assert r.status_code == 200
    body = r.get_json()
    record = body[0] if isinstance(body, list) else body
    assert record["id"] == 1


def test_one_of_several_keys(make_client: MakeClient) -> None:
    client = make_client({}, auth={"api_keys": ["k1-0123456789abc", "k2-0123456789abc"]})
    assert client.get("/customers", headers={"X-API-Key": "k2-0123456789abc"}).status_code == 200
    assert client.get("/customers",
                      headers={"Authorization": "Bearer k1-0123456789abc"}).status_code == 200
    assert client.get("/customers", headers={"X-API-Key": "k3-0123456789abc"}).status_code == 401


def test_open_endpoints_with_keys(locked: FlaskClient) -> None:
    r = locked.get("/health")
    assert r.status_code == 200 and r.get_json() == {"status": "ok", "database": "ok"}
    r = locked.get("/openapi.json")
    assert r.status_code == 200 and r.get_json()["openapi"].startswith("3.")
    check_docs(locked, "/docs")


def test_no_keys_no_auth(make_client: MakeClient) -> None:
    assert make_client({}).get("/customers").status_code == 200


def test_openapi_document_is_valid_and_every_operation_is_documented(tmp_path) -> None:
    from openapi_spec_validator import validate

    from app import create_app
    from tests.conftest import build_database

    database = build_database(tmp_path / "db.sqlite3", {})
    spec = create_app({"database": {"sqlite": str(database)}}).test_client().get(
        "/openapi.json").get_json()
    validate(spec)  # raises on an invalid OpenAPI 3 document
    for path, item in spec["paths"].items():
        operation = item["get"]
        assert operation.get("summary"), path
        ok = operation["responses"]["200"]
        assert "example" in ok["content"]["application/json"] or path in ("/", "/health"), path
        for parameter in item.get("parameters", []) + operation.get("parameters", []):
            assert parameter.get("description"), (path, parameter["name"])
        assert "400" in operation["responses"], path  # / and /health take no argument
        if path not in ("/", "/health"):
            assert {"400", "503"} <= set(operation["responses"]), path
        # No API keys, no 401: the document says no operation asks for credentials.
        assert "401" not in operation["responses"], path
    assert spec["security"] == [] and "securitySchemes" not in spec.get("components", {})


def test_operation_ids_are_stable_and_unique(spec: dict[str, Any]) -> None:
    """Generated clients name their functions after operationId: <collection>_<read>."""
    found = {(path, method): op["operationId"] for path, item in spec["paths"].items()
             for method, op in item.items() if method in ("get", "head")}
    assert len(set(found.values())) == len(found)
    for collection, (_, _, ons) in COLLECTIONS.items():
        assert found[(f"/{collection}", "get")] == f"{collection}_list"
        assert found[(f"/{collection}/page/{{pagenumber}}", "get")] == f"{collection}_page"
        assert found[(key_path(spec, collection), "get")] == f"{collection}_get"
        if ons:
            assert found[(date_path(collection), "get")] == f"{collection}_range"
            assert found[(date_path(collection).replace("/date/", "/summary/"), "get")] == \
                f"{collection}_summary"
    assert found[("/", "get")] == "index" and found[("/health", "get")] == "health"


def test_the_index_names_schemas_of_the_document(make_client: MakeClient,
                                                 spec: dict[str, Any]) -> None:
    for c in make_client({}).get("/").get_json()["collections"]:
        assert c["record"] in spec["components"]["schemas"], c


def test_x_pagination_is_documented_with_its_schema(spec: dict[str, Any]) -> None:
    header = spec["paths"]["/transactions/page/{pagenumber}"]["get"]["responses"]["200"][
        "headers"]["X-Pagination"]
    schema = resolve(spec, header["content"]["application/json"]["schema"])
    assert {"total", "total_pages", "first_page", "last_page", "page", "previous_page",
            "next_page"} <= set(schema["properties"])


def _document_client(tmp_path: Path, rows: dict[str, Any] | None = None,
                     **settings: Any) -> FlaskClient:
    """A client over SQLite alone: the document does not depend on the engine."""
    database = build_database(tmp_path / "db.sqlite3", rows or {})
    return create_app({"database": {"sqlite": str(database)}, **settings}).test_client()


def test_with_keys_401_and_the_schemes_are_documented(tmp_path: Path) -> None:
    spec = _document_client(tmp_path, auth={"api_keys": ["k1-0123456789abc"]}).get(
        "/openapi.json").get_json()
    assert spec["security"] == [{"ApiKey": []}, {"Bearer": []}]
    assert set(spec["components"]["securitySchemes"]) == {"ApiKey", "Bearer"}
    for path, item in spec["paths"].items():
        operation = item["get"]
        if path == "/health":
            assert operation["security"] == [] and "401" not in operation["responses"]
        else:
            assert "security" not in operation and "401" in operation["responses"], path


def test_json_only_is_documented_and_csv_is_described(spec: dict[str, Any]) -> None:
    """Generated clients keep the JSON type: a 200 lists application/json alone and `format`
    is no parameter (a client could ask for a body it cannot parse); each record operation's
    description says how to ask for CSV, which the service still serves."""
    records = [p for p in spec["paths"] if p not in ("/", "/health")]
    # Every collection's list, page and record; each one with dates also its range, its
    # summary and its changes (routes_of: the table of read kinds).
    assert len(records) == sum(routes_of(bool(dates)) for _, _, dates in COLLECTIONS.values())
    for path in records:
        operation = spec["paths"][path]["get"]
        assert list(operation["responses"]["200"]["content"]) == ["application/json"], path
        names = [p["name"] for p in spec["paths"][path].get("parameters", [])
                 + operation.get("parameters", [])]
        assert "format" not in names, path
        assert "`?format=csv` or `Accept: text/csv`" in operation["description"], path


def test_csv_is_still_served(tmp_path: Path) -> None:
    client = _document_client(tmp_path, {"weighing": [WEIGHING_ROW]})
    for url, headers in (("/weighing/1?format=csv", {}), ("/weighing/1", {"Accept": "text/csv"})):
        response = client.get(url, headers=headers)
        assert response.status_code == 200 and response.mimetype == "text/csv", url
    assert client.get("/weighing/1?format=xml").status_code == 400  # still checked


@pytest.mark.parametrize(("prefix", "forwarded", "server"), [
    ("", None, "/"), ("", "/jembatan", "/jembatan"), ("/api", None, "/api"),
    ("/api", "/jembatan", "/jembatan/api")])
def test_the_server_entry_is_where_the_api_is_reached(tmp_path: Path, prefix: str,
                                                      forwarded: str | None,
                                                      server: str) -> None:
    """One relative server, right under a url_prefix and behind a proxy that strips its own
    prefix: the paths are relative to it, the index is "/"."""
    client = _document_client(tmp_path, api={"url_prefix": prefix, **BEHIND_A_PROXY})
    headers = {"X-Forwarded-Prefix": forwarded} if forwarded else {}
    spec = client.get(f"{prefix}/openapi.json", headers=headers).get_json()
    assert spec["servers"] == [{"url": server}]
    assert "/" in spec["paths"] and "/weighing" in spec["paths"]


def test_apps_of_one_process_each_take_their_own_page_sizes(tmp_path: Path) -> None:
    """The argument schemas are kept per process: an app with other page sizes is not given
    another's (its document, its defaults and its bounds)."""
    for n, (size, most) in enumerate(((7, 70), (9, 90), (7, 70))):
        (tmp_path / str(n)).mkdir()
        client = _document_client(tmp_path / str(n),
                                  api={"page_size": size, "max_page_size": most})
        operation = client.get("/openapi.json").get_json()[
            "paths"]["/customers/page/{pagenumber}"]["get"]
        (page_size,) = [p for p in operation["parameters"] if p["name"] == "page_size"]
        assert page_size["description"] == (f"Records per page, 1 to {most} "
                                            f"(default {size}).")
        assert client.get(f"/customers/page/1?page_size={most}").status_code == 200
        assert client.get(f"/customers/page/1?page_size={most + 1}").status_code == 400
