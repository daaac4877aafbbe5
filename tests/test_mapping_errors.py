"""A mapping fails loudly or not at all (app/core/mapped.py, docs/adapting.md
"When the database refuses the mapping"): a column the table lacks or a syntax error in a
`records` query ends `jembatan serve --check-config` and the start with the file, the line
and the column in words; a `;` followed by a comment ends a query as a `;` alone does; a table
or column renamed under a running service makes that collection answer 503 "not mapped"
(never a 500) and /health degraded, the log saying it once; a database out of reach at start
lets the service start and is tried once it answers.

The site: the shipped mapping of customers and products, copied and edited as a plant would,
over the embedded tables holding the rows below, on every engine.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from app import create_app
from app.console import serving
from app.ops.config import SHIPPED_SQL_DIR
from tests import mssql
from tests.conftest import FILE_ENGINES, build_database, odbc_string, open_database
from tests.helpers import QUERYS_OWN_ERROR, health_checked, own_failing_read, records
from tests.postgres import Cluster
from tests.servers import JEMBATAN, environment, free_port

CUSTOMERS = [{"id": 1, "CustCode": "C001", "CustName": "PT Maju", "Address": "Jl. Raya 1",
              "City": "Gresik", "Phone": "031-1", "Contact": "Budi", "Remark": "tunai"},
             {"id": 2, "CustCode": "C002", "CustName": "CV Jaya", "Address": None,
              "City": "Tuban", "Phone": None, "Contact": None, "Remark": None}]
PRODUCTS = [{"id": 1, "ProductCode": "RM001", "ProductName": "Semen", "Unit": "kg",
             "Remark": None}]
TABLES = {"customers": CUSTOMERS, "products": PRODUCTS}
REMARK_LINE = 13  # sql/customers.sql: '    "Remark" AS "Remark"'
FROM_LINE = 14  # sql/customers.sql: 'FROM "customers";'
AGAIN = ". Correct the mapping (`jembatan check-sql customers` runs each of its queries), " \
        "then start again"


def site_sql(tmp_path: Path, old: str = "", new: str = "") -> Path:
    """The shipped mapping copied to the site, customers.sql edited (`old` made `new`)."""
    copy = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, copy)
    path = copy / "customers.sql"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return copy


def settings_file(tmp_path: Path, database: dict[str, Any], sql_dir: Path) -> Path:
    """A settings file with these `database` settings, serving customers and products."""
    lines = ["[database]", *(f"{k} = {json.dumps(v)}" for k, v in database.items()),
             f"sql_dir = {json.dumps(str(sql_dir))}", "", "[collections]",
             'serve = ["customers", "products"]']
    path = tmp_path / "site.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def started(monkeypatch: pytest.MonkeyPatch, config: Path) -> Flask | str:
    """What `jembatan serve` builds from `config`: the app, or the line it exits with."""
    monkeypatch.setenv("JEMBATAN_CONFIG", str(config))
    try:
        return serving.application()
    except SystemExit as exc:
        return str(exc.code)


def database_on(request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> dict[str, Any]:
    return open_database(request, engine, TABLES, tmp_path / "plant.sqlite3")


# The changes a DBA makes under the running service: SQLite's and PostgreSQL's words, and
# SQL Server's (sp_rename).
RENAMED_TABLE = ('ALTER TABLE "customers" RENAME TO "customers_before"',
                 "EXEC sp_rename 'customers', 'customers_before', 'OBJECT'")
RENAMED_COLUMN = ('ALTER TABLE "customers" RENAME COLUMN "Remark" TO "Catatan"',
                  "EXEC sp_rename 'customers.Remark', 'Catatan', 'COLUMN'")
RENAMED_BACK = ('ALTER TABLE "customers" RENAME COLUMN "Catatan" TO "Remark"',
                "EXEC sp_rename 'customers.Catatan', 'Remark', 'COLUMN'")


def alter(request: pytest.FixtureRequest, engine: str, tmp_path: Path,
          database: dict[str, Any], change: tuple[str, str]) -> None:
    """Change the tables under the running service, as a DBA would, on its engine."""
    sql, tsql = change
    if engine in FILE_ENGINES:
        with sqlite3.connect(tmp_path / "plant.sqlite3") as con:
            con.execute(sql)
        return
    if engine == "mssql":
        server: mssql.Server = request.getfixturevalue("mssql_server")
        request.addfinalizer(lambda: server.load(TABLES))
        request.addfinalizer(lambda: server.drop_table("customers_before"))
        server.execute(tsql)
        return
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    schema = re.search(r"application_name=(\w+)", database["odbc"])
    assert schema is not None
    conn = cluster.connect()
    try:
        conn.execute(f'SET search_path TO "{schema.group(1)}"')
        conn.execute(sql)
    finally:
        conn.close()


# -- at the start and in serve --check-config --------------------------------------------------


def test_check_config_refuses_a_column_the_table_lacks(tmp_path: Path) -> None:
    """A plant's typo (nBerat1): `serve --check-config` exits 1 with the file,
    line and column, and the database's own words; nothing says it is good to serve."""
    sql = site_sql(tmp_path, '"Remark" AS "Remark"', 'nBerat1 AS "Remark"')
    database = build_database(tmp_path / "plant.sqlite3", TABLES)
    config = settings_file(tmp_path, {"sqlite": str(database)}, sql)
    done = serving_command(tmp_path, "serve", "--check-config", "--config", str(config))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines()[-2:] == [
        f"jembatan: customers: {sql / 'customers.sql'} line {REMARK_LINE}, column 5: the "
        f"database has no column nBerat1 (the records query of customers, the line that gives "
        f"Remark); the database says: no such column: nBerat1",
        "jembatan: not good to serve: 1 of the 2 served collections would answer 503 "
        "(customers); `jembatan serve` would refuse to start: the database refuses the mapping "
        "of customers. Correct the mapping (`jembatan check-sql <collection>` runs each of its "
        "queries and proves its reads), or leave the collection out of collections.serve, then "
        "check again"]
    assert "Traceback" not in done.stderr


def serving_command(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(JEMBATAN), *args], cwd=work, capture_output=True, text=True,
                          timeout=120, env=environment(work, {}))


# The name each engine's message gives the column (PostgreSQL folds an unquoted name; so
# does Babelfish, the tests' T-SQL server, any name: SQL Server would say nBerat1).
FOLDED = {"sqlite3": "nBerat1", "odbc": "nBerat1", "postgresql": "nberat1", "mssql": "nberat1"}


def test_the_start_refuses_a_column_the_table_lacks_on_every_engine(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    sql = site_sql(tmp_path, '"Remark" AS "Remark"', 'nBerat1 AS "Remark"')
    database = database_on(request, engine, tmp_path)
    said = started(monkeypatch, settings_file(tmp_path, database, sql))
    assert isinstance(said, str), "the service started"
    head = (f"jembatan: {sql / 'customers.sql'} line {REMARK_LINE}, column 5: the database "
            f"has no column {FOLDED[engine]} (the records query of customers, the line that "
            f"gives Remark); the database says: ")
    assert said.startswith(head) and said.endswith(AGAIN), said
    words = said[len(head):-len(AGAIN)]
    assert FOLDED[engine] in words  # the driver's own message, which names it
    assert "Driver=" not in words and database.get("odbc", "@@") not in said


def test_a_syntax_error_is_refused_where_it_is(request: pytest.FixtureRequest, engine: str,
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    sql = site_sql(tmp_path, 'FROM "customers";', 'FORM "customers";')
    database = database_on(request, engine, tmp_path)
    said = started(monkeypatch, settings_file(tmp_path, database, sql))
    assert isinstance(said, str), "the service started"
    head = (f"jembatan: {sql / 'customers.sql'} line {FROM_LINE}, column 1: the database "
            f"refuses its syntax near FORM (the records query of customers); the database "
            f"says: ")
    assert said.startswith(head) and said.endswith(AGAIN), said


@pytest.mark.parametrize("end", [";  -- the end of the mapping", "; /* checked 2026-11 */",
                                 ";"])
def test_a_comment_after_the_semicolon_starts_and_serves(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, end: str) -> None:
    sql = site_sql(tmp_path, 'FROM "customers";', f'FROM "customers"{end}')
    database = database_on(request, engine, tmp_path)
    app = started(monkeypatch, settings_file(tmp_path, database, sql))
    assert isinstance(app, Flask), app
    client = app.test_client()
    for url, want in (("/customers", records("customers", CUSTOMERS)),
                      ("/customers/2", records("customers", CUSTOMERS)[1])):
        response = client.get(url)
        assert response.status_code == 200 and response.get_json() == want
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}


def test_a_database_out_of_reach_at_start_is_tried_once_it_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The start goes on (503s, /health unavailable); /health tries the mapping once the
    database answers, and finds the column it lacks."""
    sql = site_sql(tmp_path, '"Remark" AS "Remark"', 'nBerat1 AS "Remark"')
    path = tmp_path / "later.sqlite3"  # not there yet: the SQLite ODBC driver cannot open it
    app = started(monkeypatch, settings_file(tmp_path, {"odbc": odbc_string(path),
                                                        "connect_timeout": 1,
                                                        "ping_keep": 0}, sql))
    assert isinstance(app, Flask), app
    client = app.test_client()
    assert client.get("/health").get_json() == {"status": "unavailable",
                                                 "database": "cannot connect to the database"}
    build_database(path, TABLES)
    assert health_checked(client) == {"status": "degraded", "database": "ok",
                                      "unmapped": {"customers": ["Remark"]}}
    body = client.get("/customers/1").get_json()
    assert body == {"code": 503, "status": "Service Unavailable", "unmapped": ["Remark"],
                    "message": refused_column("nBerat1", REMARK_LINE, "Remark")}


# -- a database that changes under a running service ------------------------------------------


def folded(engine: str, name: str) -> str:
    """A quoted name as the engine's message gives it: Babelfish folds it to lower case."""
    return name.lower() if engine == "mssql" else name


def refused_column(column: str, line: int, field: str) -> str:
    return (f"customers is not mapped yet: 1 field the database refuses in customers.sql: "
            f"{field} (the records query, line {line}, column 5: the database has no column "
            f"{column}). Its records are not served until the operator maps those fields, "
            f"runs `jembatan check-sql customers` and restarts Jembatan.")


def running(request: pytest.FixtureRequest, engine: str, tmp_path: Path, sql: Path
            ) -> tuple[Flask, dict[str, Any]]:
    """The service over the customers and products, serving them right as it starts."""
    database = database_on(request, engine, tmp_path)
    monkeypatch = request.getfixturevalue("monkeypatch")
    # A check begun by each /health that comes when none runs (the tests' pace).
    app = started(monkeypatch, settings_file(tmp_path, {**database, "mapping_check": 0}, sql))
    assert isinstance(app, Flask), app
    response = app.test_client().get("/customers")
    assert response.status_code == 200
    assert response.get_json() == records("customers", CUSTOMERS)
    return app, database


def still_served(app: Flask) -> None:
    """The other collection serves; the log said the collection's fault once, as an error."""
    response = app.test_client().get("/products/1")
    assert response.status_code == 200
    assert response.get_json() == records("products", PRODUCTS)[0]


def said_once(caplog: pytest.LogCaptureFixture, words: str) -> None:
    said = [r for r in caplog.records if r.name == "jembatan" and "not mapped" in r.message]
    assert len(said) == 1 and said[0].levelno == logging.ERROR and words in said[0].message


def test_a_table_renamed_under_the_service_is_not_mapped(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """A read first: its 503 says where the mapping names the table; /health then lists it."""
    app, database = running(request, engine, tmp_path, site_sql(tmp_path))
    alter(request, engine, tmp_path, database, RENAMED_TABLE)
    client = app.test_client()
    message = ("customers is not mapped yet: a query the database refuses in customers.sql "
               f"(the records query, line {FROM_LINE}, column 6: the database has no table or "
               "view customers). Its records are not served until the operator corrects its "
               "mapping, runs `jembatan check-sql customers` and restarts Jembatan.")
    with caplog.at_level(logging.INFO):
        for url in ("/customers", "/customers/1", "/customers/page/1",
                    "/customers?format=csv", "/customers/count"):
            response = client.get(url)
            assert response.status_code == 503, (url, response.data)
            assert response.get_json() == {"code": 503, "status": "Service Unavailable",
                                           "message": message, "unmapped": []}
            assert "Retry-After" not in response.headers
        assert client.get("/health").get_json() == {
            "status": "degraded", "database": "ok", "unmapped": {"customers": []}}
        # The MCP face says the same, as a tool error.
        response = client.post("/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_record", "arguments": {"collection": "customers",
                                                           "key": 1}}},
            headers={"Accept": "application/json, text/event-stream",
                     "MCP-Protocol-Version": "2025-11-25"})
        assert response.get_json()["result"] == {
            "content": [{"type": "text", "text": message}], "isError": True}
    still_served(app)
    said_once(caplog, f"line {FROM_LINE}, column 6: the database has no table or view "
                      f"customers")


def test_a_column_renamed_under_the_service_is_not_mapped(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """/health first: the check it begins tries every mapping, /health lists the collection,
    and its reads answer 503; renamed back, it is served again without a restart.
    The shipped line, "Remark" quoted: SQLite, which would read a quoted name the table lacks
    as a string, is sent it [bracketed] and refuses it as the other engines do."""
    sql = site_sql(tmp_path)
    app, database = running(request, engine, tmp_path, sql)
    alter(request, engine, tmp_path, database, RENAMED_COLUMN)
    client = app.test_client()
    with caplog.at_level(logging.INFO):
        assert health_checked(client) == {
            "status": "degraded", "database": "ok", "unmapped": {"customers": ["Remark"]}}
        for url in ("/customers", "/customers/2"):
            response = client.get(url)
            assert response.status_code == 503
            assert response.get_json() == {
                "code": 503, "status": "Service Unavailable", "unmapped": ["Remark"],
                "message": refused_column(folded(engine, "Remark"), REMARK_LINE, "Remark")}
    still_served(app)
    said_once(caplog, f"line {REMARK_LINE}, column 5: the database has no column "
                      f"{folded(engine, 'Remark')}")
    # The DBA renames it back: the next check serves it again, without a restart.
    alter(request, engine, tmp_path, database, RENAMED_BACK)
    assert health_checked(client) == {"status": "ok", "database": "ok"}
    assert client.get("/customers").get_json() == records("customers", CUSTOMERS)


def test_check_sql_says_where_as_the_start_does(tmp_path: Path) -> None:
    """check-sql builds the app without trying the mapping (it reports each query itself) and
    names the file, the line and the column of what the database lacks."""
    sql = site_sql(tmp_path, '"Remark" AS "Remark"', 'nBerat1 AS "Remark"')
    database = build_database(tmp_path / "plant.sqlite3", TABLES)
    config = settings_file(tmp_path, {"sqlite": str(database)}, sql)
    done = serving_command(tmp_path, "check-sql", "--config", str(config), "customers")
    assert done.returncode == 1
    section = done.stdout.split("\ncustomers (Customer)\n", 1)[1].splitlines()
    assert section[:3] == [
        "  records                ERROR",
        f"      {sql / 'customers.sql'} line {REMARK_LINE}, column 5: the database has no "
        f"column nBerat1 (the records query of customers, the line that gives Remark); the "
        f"database says: no such column: nBerat1",
        "  (every read of the collection reads records: fix it first)"]


def test_any_error_of_the_records_alone_is_the_mappings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error that names nothing (abs() given two arguments) in `records` refuses the start
    too; where the service runs anyway (built without the start's trial), a read that fails
    tries its records alone, which fail, and answers 503, not 500."""
    sql = site_sql(tmp_path, '"Remark" AS "Remark"', f'{QUERYS_OWN_ERROR} AS "Remark"')
    database = build_database(tmp_path / "plant.sqlite3", TABLES)
    said = started(monkeypatch, settings_file(tmp_path, {"sqlite": str(database)}, sql))
    assert said == (f"jembatan: {sql / 'customers.sql'} line 1: the database refuses the "
                    f"query (the records query of customers); the database says: wrong number "
                    f"of arguments to function abs(){AGAIN}")
    client = create_app({"database": {"sqlite": str(database), "sql_dir": str(sql)},
                         "collections": {"serve": ["customers", "products"]}}).test_client()
    response = client.get("/customers/1")
    assert response.status_code == 503
    assert response.get_json() == {
        "code": 503, "status": "Service Unavailable", "unmapped": [],
        "message": "customers is not mapped yet: a query the database refuses in customers.sql "
                   "(the records query, line 1: the database refuses the query). Its records "
                   "are not served until the operator corrects its mapping, runs `jembatan "
                   "check-sql customers` and restarts Jembatan."}
    still_served(client.application)


def test_a_reads_own_error_is_still_a_500(tmp_path: Path) -> None:
    """A site's own text of a read that the database refuses, its records being right: the
    read's own error (500 under a request id), and the collection stays served."""
    sql = site_sql(tmp_path)
    own_failing_read(sql / "customers.sql")
    database = build_database(tmp_path / "plant.sqlite3", TABLES)
    client = create_app({"database": {"sqlite": str(database), "sql_dir": str(sql)},
                         "collections": {"serve": ["customers", "products"]}}).test_client()
    response = client.get("/customers/1", headers={"X-Request-ID": "own-error"})
    assert response.status_code == 500
    assert response.get_json() == {
        "code": 500, "status": "Internal Server Error", "request_id": "own-error",
        "message": "An unexpected error; the operator can find it in the log under request id "
                   "own-error."}
    assert client.get("/customers").get_json() == records("customers", CUSTOMERS)
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}


def test_gunicorn_stops_with_the_line_instead_of_booting_workers_again(tmp_path: Path) -> None:
    """`jembatan serve` under gunicorn: the worker says the line and exits as a worker that
    cannot boot, so the master stops (systemd sees the service fail) instead of starting a
    new worker every second."""
    sql = site_sql(tmp_path, '"Remark" AS "Remark"', 'nBerat1 AS "Remark"')
    database = build_database(tmp_path / "plant.sqlite3", TABLES)
    config = settings_file(tmp_path, {"sqlite": str(database)}, sql)
    done = serving_command(tmp_path, "serve", "--config", str(config), "--bind",
                           f"127.0.0.1:{free_port()}", "--workers", "1")
    assert done.returncode == 3, done.stderr  # gunicorn's "worker failed to boot"
    assert done.stderr.count(f"jembatan: {sql / 'customers.sql'} line {REMARK_LINE}, column 5: "
                             f"the database has no column nBerat1") == 1
    assert "Reason: Worker failed to boot." in done.stderr
