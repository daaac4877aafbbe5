"""Generated clients work without workarounds: from the live /openapi.json of a
real gunicorn, openapi-python-client builds a client that reads every kind of answer typed;
openapi-typescript + openapi-fetch type a list's body as the JSON record (tsc --strict); and
@redocly/cli's recommended rules find no error in the document, with API keys or without,
under a url_prefix and a proxy's prefix too.

The node tools are pinned in tests/clients/package-lock.json and installed by `make test`
(npm ci); a bare pytest without them skips those two tests, except in CI, where they fail.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import requests

from app import create_app
from tests.conftest import build_database
from tests.contract import PAIRS, expected
from tests.helpers import grouped, in_range, weighing
from tests.servers import gunicorn

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = ROOT / "tests" / "clients"
NODE_BIN = CLIENTS / "node_modules" / ".bin"
GENERATOR = Path(sys.executable).parent / "openapi-python-client"
PACKAGE = "jembatan_client"  # the generated package's name

needs_node = pytest.mark.skipif(
    not (NODE_BIN / "redocly").exists() and not os.environ.get("CI"),
    reason="tests/clients/node_modules is not installed (make test runs npm ci)")

# Weighbridge transactions in no particular order: NULL weights, times and texts, two days.
ROWS: list[dict[str, Any]] = [
    {"id": 4, "vehno": "B 4 XY", "custcode": "SUP-1", "productcode": "RM001",
     "tgl_dt1": "2026-11-02", "jam_dt1": "07:45:00", "weigh1": 9000.0, "weigh2": None,
     "tgl_dt2": "2026-11-02", "jam_dt2": "08:10:00"},
    {"id": 1, "vehno": "B 1 XY", "custcode": "SUP-1", "productcode": "RM001",
     "tgl_dt1": "2026-11-01", "jam_dt1": "06:00:00", "weigh1": 30000.5, "weigh2": 11000.0,
     "tgl_dt2": "2026-11-01", "jam_dt2": "06:40:00", "remark": "kadar air 12%, \"ok\""},
    {"id": 3, "vehno": "B 3 XY", "custcode": "CUS-9", "productcode": "FG001",
     "tgl_dt1": "2026-11-01", "jam_dt1": None, "weigh1": 8000.0, "weigh2": 31000.75},
    {"id": 2, "vehno": "B 2 XY", "custcode": "SUP-1", "productcode": "RM002",
     "tgl_dt1": "2026-11-01", "jam_dt1": "23:59:59", "weigh1": 25000.0, "weigh2": 9000.25,
     "tgl_dt2": "2026-11-02", "jam_dt2": "00:20:00"},
    {"id": 5, "vehno": None, "custcode": None, "productcode": None,
     "tgl_dt1": None, "jam_dt1": "08:00:00", "weigh1": 1.0, "weigh2": 2.0},
    {"id": 6, "vehno": "B 6 XY", "custcode": "SUP-1", "productcode": "RM001",
     "tgl_dt1": "2026-11-03", "jam_dt1": "00:00:00", "weigh1": 40000.0, "weigh2": 15000.0},
]


def records(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The JSON records the contract promises for these rows, in canonical order (id)."""
    return [expected("transactions", row) for row in sorted(rows, key=lambda r: r["id"])]


def range_records(start: str, end: str, on: str = "dt1") -> list[dict[str, Any]]:
    """A range's records: by date, time (NULL first), then id."""
    day, clock = PAIRS[on]
    inside = in_range(ROWS, PAIRS[on], start, end)
    return [expected("transactions", row) for row in
            sorted(inside, key=lambda r: (r[day], r.get(clock) or "", r["id"]))]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real gunicorn over the rows; its base URL."""
    work = tmp_path_factory.mktemp("clients")
    database = build_database(work / "plant.sqlite3", {"transactions": ROWS})
    with gunicorn(work, {"JEMBATAN_SQLITE": str(database)}, "--workers", "1",
                  "--threads", "2") as process:
        yield process.base


@pytest.fixture(scope="module")
def spec_file(server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The live document, as a client's author would save it."""
    response = requests.get(server + "/openapi.json", timeout=30)
    assert response.status_code == 200
    path = tmp_path_factory.mktemp("spec") / "openapi.json"
    path.write_bytes(response.content)
    return path


@pytest.fixture(scope="module")
def jc(spec_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package openapi-python-client generates from the live document, imported."""
    out = tmp_path_factory.mktemp("python-client")
    config = out / "config.yaml"
    # No post hooks: they only format the code with ruff, which the test does not need.
    config.write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
    done = subprocess.run([str(GENERATOR), "generate", "--path", str(spec_file),
                           "--output-path", str(out / PACKAGE), "--meta", "none",
                           "--config", str(config)],
                          capture_output=True, text=True, timeout=300, check=False)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    # A piece of the document the generator could not use is a warning, not a failure.
    assert "Warning" not in report, report
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _module(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


@pytest.fixture
def client(jc: ModuleType, server: str) -> Iterator[Any]:
    """The generated Client; it raises on a status the document does not list. Closed after
    the test, its connections with it."""
    with jc.Client(base_url=server, raise_on_unexpected_status=True) as opened:
        yield opened


def _dicts(parsed: list[Any]) -> list[dict[str, Any]]:
    return [record.to_dict() for record in parsed]


def test_list_and_fields(jc: ModuleType, server: str) -> None:
    sent: list[str] = []  # what the client put on the wire

    def note(request: Any) -> None:
        sent.append(str(request.url))

    api = _module("api.transactions.transactions_list")
    field = _module("models").TransactionsListFieldsItem
    with jc.Client(base_url=server, raise_on_unexpected_status=True,
                   httpx_args={"event_hooks": {"request": [note]}}) as client:
        got = api.sync(client=client)
        # Two fields: the client repeats the argument, the service joins them in order.
        detailed = api.sync_detailed(client=client, fields=[field.VEHNO, field.ID],
                                     custcode="SUP-1")
    assert [type(r).__name__ for r in got] == ["Weighing"] * len(ROWS)
    assert _dicts(got) == records(ROWS)
    assert got[0].tgl_dt1 == dt.date(2026, 11, 1)  # typed, not text
    assert "fields=vehno&fields=id" in sent[-1]
    want = [{"vehno": r["vehno"], "id": r["id"]} for r in records(ROWS)
            if r["custcode"] == "SUP-1"]
    assert [list(r) for r in json.loads(detailed.content)] == [["vehno", "id"]] * len(want)
    assert _dicts(detailed.parsed) == want


def test_page_with_filters_and_pagination(jc: ModuleType, client: Any) -> None:
    api = _module("api.transactions.transactions_page")
    answer = api.sync_detailed(2, client=client, page_size=2, custcode="SUP-1")
    kept = records([r for r in ROWS if r["custcode"] == "SUP-1"])
    assert answer.status_code == 200
    assert _dicts(answer.parsed) == kept[2:4]
    meta = jc.models.PaginationMetadata.from_dict(json.loads(answer.headers["X-Pagination"]))
    assert meta.to_dict() == {"total": 4, "total_pages": 2, "first_page": 1, "last_page": 2,
                              "page": 2, "previous_page": 1}
    # Beyond the last page: an empty list, still typed.
    assert api.sync(3, client=client, page_size=2, custcode="SUP-1") == []


def test_get_by_key_and_a_typed_404(jc: ModuleType, client: Any) -> None:
    api = _module("api.transactions.transactions_get")
    one = api.sync(3, client=client)
    assert type(one).__name__ == "Weighing"
    assert one.to_dict() == expected("transactions", next(r for r in ROWS if r["id"] == 3))
    field = _module("models").TransactionsGetFieldsItem
    assert api.sync(1, client=client, fields=[field.ID, field.REMARK]).to_dict() == {
        "id": 1, "remark": 'kadar air 12%, "ok"'}
    missing = api.sync(99, client=client)
    assert type(missing).__name__ == "Error"
    assert (missing.code, missing.status) == (404, "Not Found")


def test_range_unpaged_and_paged(jc: ModuleType, client: Any) -> None:
    api = _module("api.transactions.transactions_range")
    first, last = dt.date(2026, 11, 1), dt.date(2026, 11, 2)
    whole = api.sync(first, "00:00", last, "23:59:59", client=client)
    want = range_records("2026-11-01T00:00:00", "2026-11-02T23:59:59")
    assert [r["id"] for r in want] == [3, 1, 2, 4]
    assert _dicts(whole) == want

    on = _module("models").TransactionsRangeOn
    paged = api.sync_detailed(first, "06:30", last, "23:59", client=client, on=on.DT2,
                              page=1, page_size=1)
    want = range_records("2026-11-01T06:30:00", "2026-11-02T23:59:00", "dt2")
    assert [r["id"] for r in want] == [1, 2, 4]
    assert _dicts(paged.parsed) == want[:1]
    meta = json.loads(paged.headers["X-Pagination"])
    assert jc.models.PaginationMetadata.from_dict(meta).to_dict() == {
        "total": 3, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 1,
        "next_page": 2}


def test_summary(jc: ModuleType, client: Any) -> None:
    api = _module("api.transactions.transactions_summary")
    by = _module("models").TransactionsSummaryByItem
    got = api.sync(dt.date(2026, 11, 1), "00:00", dt.date(2026, 11, 3), "23:59:59",
                   client=client, by=[by.DAY, by.PRODUCTCODE])
    assert {type(g).__name__ for g in got} == {"WeighingSummary"}
    want = grouped(in_range(ROWS, PAIRS["dt1"], "2026-11-01T00:00:00", "2026-11-03T23:59:59"),
                   ["day", "productcode"], PAIRS["dt1"], weighing)
    assert len(want) == 5
    assert _dicts(got) == want


def test_index_and_health(jc: ModuleType, client: Any, server: str) -> None:
    index = _module("api.service.index").sync(client=client)
    assert type(index).__name__ == "Index"
    assert index.openapi == server + "/openapi.json"
    transactions = next(c for c in index.collections if c.name == "transactions")
    assert transactions.to_dict() == {
        "name": "transactions", "url": server + "/transactions", "record": "Weighing",
        "key": "id", "order": ["id"], "date_range": ["dt1", "dt2", "create", "update"]}
    health = _module("api.service.health").sync(client=client)
    assert health.to_dict() == {"status": "ok", "database": "ok"}


def _node(tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # No update check or usage report: the tests send nothing beyond the host they run on.
    env = os.environ | {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
    return subprocess.run([str(NODE_BIN / tool), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@needs_node
def test_typescript_client_types_a_list_as_records(spec_file: Path, tmp_path: Path) -> None:
    """tests/clients/check.ts reads `.vehno` of a list's first record with no cast: it
    compiles only when the 200's body is typed as the record (not `Weighing[] | string`)."""
    generated = _node("openapi-typescript", str(spec_file), "-o", str(tmp_path / "api.d.ts"),
                      cwd=tmp_path)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    shutil.copy(CLIENTS / "check.ts", tmp_path / "check.ts")
    (tmp_path / "node_modules").symlink_to(CLIENTS / "node_modules")
    compiled = _node("tsc", "--strict", "--noEmit", "--target", "ES2022", "--module", "ESNext",
                     "--moduleResolution", "Bundler", "--lib", "ES2022,DOM", "check.ts",
                     cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


@needs_node
def test_redocly_lint_finds_nothing(spec_file: Path, tmp_path: Path) -> None:
    """The recommended rules (tests/clients/redocly.yaml) on the live document, on the one
    with API keys, and on one under url_prefix behind a proxy that strips its own prefix."""
    database = build_database(tmp_path / "empty.sqlite3", {})
    files = [spec_file]
    for name, settings, url, headers in [
            ("keys", {"auth": {"api_keys": ["k1-0123456789abc"]}}, "/openapi.json", {}),
            ("prefix", {"api": {"url_prefix": "/api", "trusted_proxies": ["127.0.0.1"]}},
             "/api/openapi.json",
             {"X-Forwarded-Prefix": "/jembatan"})]:
        app = create_app({"database": {"sqlite": str(database)}, **settings})
        document = app.test_client().get(url, headers=headers).get_json()
        files.append(tmp_path / f"openapi-{name}.json")
        files[-1].write_text(json.dumps(document))
    done = _node("redocly", "lint", *map(str, files), "--config",
                 str(CLIENTS / "redocly.yaml"), "--format", "json", cwd=tmp_path)
    # One JSON report per file, one after the other.
    reports, text, at = [], done.stdout, 0
    decoder = json.JSONDecoder()
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())  # to the next report's "{"
        report, at = decoder.raw_decode(text, at)
        reports.append(report)
    assert len(reports) == len(files), done.stdout + done.stderr
    problems = [(f.name, p["ruleId"], p["message"], p["location"][0]["pointer"])
                for f, r in zip(files, reports, strict=True) for p in r["problems"]]
    assert problems == [], problems
    assert [r["totals"] for r in reports] == [
        {"errors": 0, "warnings": 0, "ignored": 0}] * len(files)
    assert done.returncode == 0, done.stderr
