"""Errors (docs/api.md §9): 405 for every method but GET and HEAD, 404 for unknown paths, 503
when the database cannot answer, 500 with a request id for anything unexpected, and the
refusals at start (a broken SQL directory, a SQLite path that does not exist)."""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import arguments_client, build_database, database_settings, odbc_string
from contract import COLLECTIONS

from app import create_app
from tests.helpers import assert_error

SHIPPED_SQL = Path(__file__).resolve().parent.parent / "sql"
WRITING = {"POST", "PUT", "PATCH", "DELETE"}
METHODS = ["POST", "PUT", "PATCH", "DELETE", "BREW", "PROPFIND", "TRACE"]
RANGE = "date/2026-11-01/00:00/2026-11-02/23:59"
# What must never reach a client in an error body: SQL, driver text, connection strings.
LEAKS = ["SELECT", "FROM ", "WHERE", "Traceback", "OperationalError", "DatabaseError",
         "pyodbc", "sqlite3.", "Driver=", "SQLite3", "mode=ro", "StepAPI", "HY000",
         "unable to open", "not a database", "no such column", "File \""]


def assert_no_leak(text: str, *secrets: str) -> None:
    for leak in [*LEAKS, *secrets]:
        assert leak not in text, (leak, text)


def assert_retry_after(response: Any) -> None:
    value = response.headers.get("Retry-After")
    assert value is not None, dict(response.headers)
    assert value.strip().isdigit(), value


def allow_methods(response: Any) -> set[str]:
    header = response.headers.get("Allow")
    assert header, dict(response.headers)
    return {m.strip().upper() for m in header.split(",") if m.strip()}


def weighing_row(key: int) -> dict[str, Any]:
    return {"id": key, "tgl_dt1": "2026-11-01", "jam_dt1": f"0{key}:00:00",
            "remark": f"record {key}"}


# The 405s of the routes, the 404s of unknown paths and the 400s of malformed requests are
# answered before any query is built, so whatever the engine: those tests share one client
# on SQLite.


@pytest.fixture(scope="module")
def rejects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return arguments_client(tmp_path_factory, {"weighing": [weighing_row(1)]})


# -- 405 -----------------------------------------------------------------------------------


def urls_of(collection: str) -> list[str]:
    out = [f"/{collection}", f"/{collection}/page/1", f"/{collection}/1"]
    if COLLECTIONS[collection][2]:
        out.append(f"/{collection}/{RANGE}")
    return out


@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_methods_other_than_get_and_head_are_405(rejects, collection):
    client = rejects
    for path in urls_of(collection):
        for method in METHODS:
            response = client.open(path, method=method)
            body = assert_error(response, 405)
            allowed = allow_methods(response)
            assert {"GET", "HEAD"} <= allowed, (method, path, allowed)
            assert not allowed & WRITING, (method, path, allowed)
            assert method not in allowed, (method, path, allowed)
            assert_no_leak(body["message"])


def test_methods_on_the_service_urls_are_405(rejects):
    client = rejects
    for path in ("/", "/health"):
        for method in METHODS:
            response = client.open(path, method=method)
            assert_error(response, 405)
            allowed = allow_methods(response)
            assert {"GET", "HEAD"} <= allowed and not allowed & WRITING, (path, allowed)


def test_a_405_with_a_body_sent_is_still_405(make_client):
    client = make_client({"weighing": [weighing_row(1)]})
    response = client.post("/weighing", json=weighing_row(2))
    assert_error(response, 405)
    response = client.put("/weighing/1", data="id=1", content_type="text/plain")
    assert_error(response, 405)
    # nothing was written
    assert [r["id"] for r in client.get("/weighing").get_json()] == [1]


# -- 404 and HEAD --------------------------------------------------------------------------


def test_unknown_paths_are_404_in_the_error_shape(rejects):
    client = rejects
    for path in ("/nope", "/weighing/page/1/extra", "/weighing/1/extra", "/Weighing",
                 "/weighing/page/", "/customers/date/2026-11-01/00:00/2026-11-02/00:00",
                 "/nope/1", "/nope/date/2026-11-01/00:00/2026-11-02/00:00",
                 "/weighing/page/1/2"):
        body = assert_error(client.get(path), 404)
        assert_no_leak(body["message"])
        head = client.head(path)
        assert head.status_code == 404 and head.data == b""


@pytest.mark.parametrize(("path", "given"), [
    ("/weighing/date/2026-11-01/00:00/2026-11-02", "has 3 parts after /date: "
                                                   "2026-11-01/00:00/2026-11-02."),
    ("/weighing/date/2026-11-01/00:00/2026-11-02/00:00/extra",
     "has 5 parts after /date: 2026-11-01/00:00/2026-11-02/00:00/extra."),
    ("/transactions/date/24/11/2026/00:00/25/11/2026/23:59",
     "has 8 parts after /date: 24/11/2026/00:00/25/11/2026/23:59."),
    ("/transactions/date/2026-11-20", "has 1 part after /date: 2026-11-20."),
    ("/bricon2/summary/2026-11-20/", "has 1 part after /summary: 2026-11-20."),
])
def test_a_date_path_with_the_wrong_parts_is_a_400_that_shows_the_format(
        rejects, path: str, given: str) -> None:
    """Not the 404 of an unknown path: the collection has ranges, the path is only malformed."""
    client = rejects
    collection, kind = path.split("/")[1:3]
    body = assert_error(client.get(path), 400)
    assert body["message"] == (
        f"A {'date range' if kind == 'date' else 'summary'} is /{collection}/{kind}/"
        "{YYYY-MM-DD}/{HH:MM[:SS]}/{YYYY-MM-DD}/{HH:MM[:SS]}: four parts, the start date and "
        "time, then the end date and time (both inclusive; HH:MM means HH:MM:00), such as "
        f"/{collection}/{kind}/2026-11-01/00:00/2026-11-30/23:59:59. This path {given}")


# Each request below has every fault of the ones after it in the list, plus its own: the
# answer names the first in docs/api.md §6.2's order (argument names, filter values, the
# other arguments' values, the path).
FAULTS_IN_ORDER = [
    ("/weighing/page/x?nope=1&id=abc&page_size=0", "nope", "unknown argument 'nope'"),
    ("/weighing/page/x?id=abc&page_size=0", "id", "id takes an integer in digits"),
    ("/weighing/page/x?page_size=0", "page_size", "Must be greater than or equal to 1"),
    ("/weighing/page/x", None, "pagenumber must be an integer of at least 1"),
    ("/weighing/date/2026-13-01/00:00/2026-11-02/00:00?id=abc&page=0", "id",
     "id takes an integer in digits"),
    ("/weighing/date/2026-13-01/00:00/2026-11-02/00:00?page=0", "page",
     "Must be greater than or equal to 1"),
    ("/weighing/date/2026-13-01/00:00/2026-11-02/00:00", None,
     "'2026-13-01' is not a date of the calendar"),
]


@pytest.mark.parametrize(("path", "argument", "named"), FAULTS_IN_ORDER)
def test_a_request_with_several_faults_names_the_first_in_order(rejects, path, argument,
                                                                 named):
    client = rejects
    body = assert_error(client.get(path), 400)
    assert named in body["message"], body
    if argument is not None:
        assert body["message"].startswith(f"Invalid query parameter {argument}:"), body


def test_head_is_200_with_no_body(make_client):
    client = make_client({"weighing": [weighing_row(1), weighing_row(2)],
                          "customers": [{"id": 1, "CustName": "PT Maju"}]})
    for path in ("/weighing", "/customers", "/weighing/page/1", "/weighing/1",
                 "/customers/1", f"/weighing/{RANGE}", f"/weighing/{RANGE}?page=1",
                 "/health", "/"):
        response = client.head(path)
        assert response.status_code == 200, path
        assert response.data == b"", path
        assert response.mimetype == "application/json", path
        # and GET of the same URL does have a body
        assert client.get(path).data != b"", path


# -- 503: the database cannot be reached ---------------------------------------------------


def data_urls() -> list[str]:
    return ["/weighing", "/weighing/page/1", "/weighing/1", f"/weighing/{RANGE}",
            f"/weighing/{RANGE}?page=1&page_size=10", "/customers", "/customers/1",
            "/bricon2", "/vehicles/page/2", "/report/2026-11-01.json"]


def assert_unavailable(app: Any, *secrets: str) -> None:
    assert_data_unavailable(app, *secrets)
    assert_health_unavailable(app, *secrets)


def assert_data_unavailable(app: Any, *secrets: str) -> None:
    client = app.test_client()
    for path in data_urls():
        response = client.get(path)
        body = assert_error(response, 503)
        assert_retry_after(response)
        assert_no_leak(response.get_data(as_text=True), *secrets)
        assert body["message"]


def assert_health_unavailable(app: Any, *secrets: str) -> None:
    health = app.test_client().get("/health")
    assert health.status_code == 503
    assert health.mimetype == "application/json"
    assert_retry_after(health)
    body = health.get_json()
    assert set(body) == {"status", "database"}, body
    assert body["status"] == "unavailable"
    assert isinstance(body["database"], str) and 0 < len(body["database"]) <= 80, body
    assert body["database"] != "ok"
    assert_no_leak(health.get_data(as_text=True), *secrets)


def test_health_is_ok_when_the_database_answers(make_client):
    client = make_client({})
    response = client.get("/health")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.get_json() == {"status": "ok", "database": "ok"}


def test_sqlite_file_deleted_before_the_first_request_is_503(tmp_path):
    path = build_database(tmp_path / "plant.sqlite3", {"weighing": [weighing_row(1)]})
    app = create_app({"database": database_settings("sqlite3", path)})
    path.unlink()
    assert_unavailable(app, str(tmp_path), path.name)
    assert not path.exists()  # read-only: never an empty database created in its place


def garbage_app(tmp_path: Path) -> tuple[Any, Path]:
    path = build_database(tmp_path / "plant.sqlite3", {"weighing": [weighing_row(1)]})
    app = create_app({"database": database_settings("sqlite3", path)})
    path.write_bytes(b"this is not a SQLite database \x00\xff\xfe" * 300)
    return app, path


def test_sqlite_file_replaced_by_garbage_is_503(tmp_path):
    app, path = garbage_app(tmp_path)
    assert_data_unavailable(app, str(tmp_path), path.name)


def test_health_with_the_sqlite_file_replaced_by_garbage_is_503(tmp_path):
    """Every query fails (503 above), so /health must not report the database ok."""
    app, path = garbage_app(tmp_path)
    assert_health_unavailable(app, str(tmp_path), path.name)


def test_odbc_source_that_cannot_be_reached_is_503(tmp_path):
    missing = tmp_path / "gone" / "plant.sqlite3"
    # The service starts even when an ODBC database cannot be reached (docs/api.md §12).
    app = create_app({"database": {"odbc": odbc_string(missing)}})
    assert_unavailable(app, str(tmp_path), missing.name)
    assert not missing.exists()


def test_odbc_database_back_again_is_served(tmp_path):
    """503 while it cannot be reached; once it can, the same app answers."""
    path = tmp_path / "plant.sqlite3"
    app = create_app({"database": {"odbc": odbc_string(path)}})
    client = app.test_client()
    assert client.get("/health").status_code == 503
    build_database(path, {"weighing": [weighing_row(1)]})
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}
    assert [r["id"] for r in client.get("/weighing").get_json()] == [1]


# -- 503: query timeout --------------------------------------------------------------------

BIG_ROWS = 300_000


@pytest.fixture(scope="module")
def big_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300,000 transactions, all on 2026-11-01 at times before 23:59:59, so that a range at
    23:59:59 of that day matches none of them yet has to look at every one."""
    path = build_database(tmp_path_factory.mktemp("big") / "big.sqlite3", {})
    con = sqlite3.connect(path)
    rows = ((i, "2026-11-01", time.strftime("%H:%M:%S", time.gmtime(i % 86399)),
             "2026-11-01", "12:00:00", f"DO-{i}") for i in range(1, BIG_ROWS + 1))
    con.executemany('INSERT INTO "transactions" ("id", "tgl_dt1", "jam_dt1", "tgl_update", '
                    '"jam_update", "dono") VALUES (?, ?, ?, ?, ?, ?)', rows)
    con.commit()
    con.close()
    return path


SLOW_RANGE = "/transactions/date/2026-11-01/23:59:59/2026-11-01/23:59:59"


def test_query_timeout_is_503(big_database):
    app = create_app({"database": {"sqlite": str(big_database), "query_timeout": 0.001}})
    client = app.test_client()
    for path in (SLOW_RANGE, f"{SLOW_RANGE}?page=1&page_size=10"):
        response = client.get(path)
        assert_error(response, 503)
        assert_retry_after(response)
        assert_no_leak(response.get_data(as_text=True), str(big_database))
    # A quick query on the same app still answers: the timeout ended one query only.
    one = client.get("/transactions/5")
    assert one.status_code == 200 and one.get_json()["dono"] == "DO-5"


def test_the_slow_query_answers_with_an_ordinary_timeout(big_database):
    """The control: the query that timed out above is a valid one that takes a while."""
    app = create_app({"database": {"sqlite": str(big_database), "query_timeout": 60}})
    client = app.test_client()
    started = time.monotonic()
    response = client.get(SLOW_RANGE)
    elapsed = time.monotonic() - started
    assert response.status_code == 200 and response.get_json() == []
    assert elapsed > 0.005, elapsed  # well over the 0.001 s timeout of the test above
    count = client.get("/transactions/date/2026-11-01/23:59:58/2026-11-01/23:59:59"
                       "?page=1&page_size=10")
    assert count.status_code == 200
    assert [r["jam_dt1"] for r in count.get_json()] == ["23:59:58"] * len(count.get_json())
    assert count.get_json()


# -- 500: a site's SQL that does not fit its tables ----------------------------------------


def sql_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL, copy)
    return copy


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


# A column the table lacks is no 500 but a collection not mapped (503, the file, line and
# column): tests/test_mapping_errors.py.
@pytest.mark.parametrize("change", [
    # a site's own read that leaves out a field the API needs
    ('FROM "customers";', 'FROM "customers";\n\n-- name: all\n'
     'SELECT "id", "CustName" FROM "records";', "/customers"),
], ids=["field-left-out"])
def test_broken_site_query_is_500_with_a_request_id(tmp_path, make_database, caplog, change):
    copy = sql_copy(tmp_path)
    old, new, only = change
    edit(copy / "customers.sql", old, new)
    database = make_database({"customers": [{"id": 1, "CustName": "PT Maju", "Remark": "x"}],
                              "products": [{"id": 1, "ProductName": "Semen"}]})
    app = create_app({"database": database | {"sql_dir": str(copy)}})
    client = app.test_client()
    seen = set()
    with caplog.at_level(logging.ERROR):
        for url in [only] if only else ("/customers", "/customers/page/1", "/customers/1"):
            response = client.get(url)
            body = assert_error(response, 500)
            request_id = body.get("request_id")
            assert isinstance(request_id, str) and len(request_id) >= 8, body
            assert request_id not in seen
            seen.add(request_id)
            text = response.get_data(as_text=True)
            assert_no_leak(text, "Remark", "Remark_gone", str(tmp_path), "site-sql",
                           "customers.sql", "CustName")
            assert request_id in caplog.text  # the operator finds it in the log
    # The other collections are not affected.
    assert client.get("/products/1").get_json()["ProductName"] == "Semen"


def refused_at_start(sql_dir: Path, tmp_path: Path) -> str:
    path = build_database(tmp_path / "plant.sqlite3", {})
    with pytest.raises(Exception) as caught:
        create_app({"database": {"sqlite": str(path), "sql_dir": str(sql_dir)}})
    return str(caught.value)


def test_sql_dir_with_a_duplicate_query_is_refused_at_start(tmp_path):
    copy = sql_copy(tmp_path)
    target = copy / "customers.sql"
    text = target.read_text(encoding="utf-8")
    target.write_text(text + "\n" + text, encoding="utf-8")
    message = refused_at_start(copy, tmp_path)
    assert "duplicate query 'records'" in message
    assert f"{target}:{text.count(chr(10)) + 2}:" in message


def test_sql_dir_with_a_missing_query_is_refused_at_start(tmp_path):
    copy = sql_copy(tmp_path)
    target = copy / "shapes.sql"
    blocks = re.split(r"(?m)^(?=--\s*name:)", target.read_text(encoding="utf-8"))
    kept = [b for b in blocks if not re.match(r"--\s*name:\s*range_count\s*$",
                                              b.splitlines()[0])]
    assert len(kept) == len(blocks) - 1
    target.write_text("".join(kept), encoding="utf-8")
    message = refused_at_start(copy, tmp_path)
    assert "range_count" in message and str(target) in message


def test_sql_dir_whose_records_lacks_a_field_is_refused_at_start(tmp_path):
    copy = sql_copy(tmp_path)
    edit(copy / "customers.sql", '"Remark" AS "Remark"', '"Remark" AS "Remark_gone"')
    message = refused_at_start(copy, tmp_path)
    assert f"{copy / 'customers.sql'}:1: records gives no Remark" in message


def test_sql_dir_with_a_missing_file_is_refused_at_start(tmp_path):
    copy = sql_copy(tmp_path)
    (copy / "products.sql").unlink()
    path = build_database(tmp_path / "plant.sqlite3", {})
    with pytest.raises(Exception) as caught:
        create_app({"database": {"sqlite": str(path), "sql_dir": str(copy)}})
    assert "products" in str(caught.value)


def test_unchanged_sql_dir_copy_is_accepted(tmp_path):
    copy = sql_copy(tmp_path)
    path = build_database(tmp_path / "plant.sqlite3", {"weighing": [weighing_row(1)]})
    app = create_app({"database": {"sqlite": str(path), "sql_dir": str(copy)}})
    assert app.test_client().get("/weighing/1").get_json()["remark"] == "record 1"


# -- a SQLite path that does not exist -----------------------------------------------------


@pytest.mark.parametrize("name", ["missing.sqlite3", "no-such-dir/plant.sqlite3"])
def test_missing_sqlite_path_is_an_error_at_start_that_names_it(tmp_path, name):
    missing = tmp_path / name
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(Exception) as caught:
        create_app({"database": {"sqlite": str(missing)}})
    assert str(missing) in str(caught.value)
    assert not missing.exists()
    assert sorted(tmp_path.rglob("*")) == before  # nothing created in its place
