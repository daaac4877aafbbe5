"""The test engines themselves: the tables of every engine come from one description, each
engine runs the text it should (a server the main text, SQLite its `-- dialect: sqlite`
variant), and the PostgreSQL cluster of tests/postgres.py survives stop, kill and start."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from app import create_app
from app.model import tables
from tests import contract, mssql
from tests.conftest import FILE_ENGINES
from tests.postgres import Cluster
from tests.tsql_rules import violations

ROOT = Path(__file__).resolve().parent.parent

# The embedded (SQLite) type of a column -> what each server script may give it.
TYPES = {
    "postgresql": {"INTEGER": {"INTEGER", "BIGINT"}, "REAL": {"DOUBLE PRECISION"},
                   "DATE": {"DATE"}, "TIME": {"TIME"}},
    "mssql": {"INTEGER": {"int", "bigint"}, "REAL": {"float"}, "DATE": {"date"},
              "TIME": {"time(6)", "time(7)"}},
}
TEXT = {"postgresql": "VARCHAR({})", "mssql": "nvarchar({})"}
# A condition (the weighings' cancelled, 1 or 0; an INTEGER on SQLite): the server's small type.
CONDITION = {"postgresql": "SMALLINT", "mssql": "bit"}


def created_columns(statements: list[str]) -> dict[str, list[tuple[str, str]]]:
    """{table: [(column, type), ...]} of CREATE TABLE statements as the server receives them."""
    out = {}
    for statement in statements:
        m = re.fullmatch(r'CREATE TABLE "(\w+)" \((.*)\)', statement, re.S)
        assert m, statement
        out[m.group(1)] = re.findall(r'^\s*"(\w+)" ([^,\n]+?),?$', m.group(2), re.M)
    return out


def test_the_tables_of_every_engine_come_from_one_description() -> None:
    """app/model/tables.py creates, on SQLite, PostgreSQL and SQL Server, the ten tables of the
    contract with its columns in its order, typed alike: what SQLite keeps as ISO text is a
    DATE or TIME on the servers, REAL is 8 bytes everywhere."""
    con = sqlite3.connect(":memory:")
    con.executescript(tables.script("sqlite"))
    embedded = {t: [(r[1], r[2]) for r in con.execute(f'PRAGMA table_info("{t}")')]
                for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                        "ORDER BY rowid")}
    con.close()
    assert list(embedded) == list(contract.COLLECTIONS)
    for table, columns in embedded.items():
        assert [name for name, _ in columns] == contract.columns(table), table
        kinds = {name: kind for name, kind in columns}
        assert {n for n, k in kinds.items() if k == "DATE"} == {
            n for n in kinds if n.startswith("tgl_") or n == "tanggal"}, table
        assert {n for n, k in kinds.items() if k == "TIME"} == {
            n for n in kinds if n.startswith("jam")}, table
    for server in ("postgresql", "mssql"):
        created = created_columns(tables.table_statements(server))
        assert list(created) == list(embedded)
        for table, columns in embedded.items():
            assert [n for n, _ in created[table]] == [n for n, _ in columns], (server, table)
            for (name, sqlite_type), (_, given) in zip(columns, created[table], strict=True):
                text_length = re.fullmatch(r"VARCHAR\((\d+)\)", sqlite_type)
                allowed = ({TEXT[server].format(text_length.group(1))} if text_length
                           else {CONDITION[server]} if name == "cancelled"
                           else TYPES[server][sqlite_type])
                assert given in allowed, (server, table, name, sqlite_type, given)
    # Pages walk an index on the canonical order; each date range seeks one on its pair.
    for c, (_, _, ons) in contract.COLLECTIONS.items():
        indexed = [i.columns for i in tables.indexes() if i.table == c]
        assert indexed[0][:1] == (("tanggal",) if c == "bricon2" else ("id",))
        for on in ons:
            assert any(cols[:2] == contract.PAIRS[on] for cols in indexed), (c, on)


def test_mssql_is_collected_only_with_its_variable() -> None:
    from tests.conftest import ENGINES

    assert ("mssql" in ENGINES) == (mssql.connection_string() is not None)
    assert "postgresql" in ENGINES


KIT = ("Driver=FreeTDS;Server=127.0.0.1;Port=1533;TDS_Version=7.4;UID=jembatan;PWD=p;"
       "Database=jembatan_test")


@pytest.mark.parametrize(("given", "to", "expected"), [
    (KIT, mssql.FREETDS, KIT),
    (KIT, mssql.MSODBC18, "Driver={ODBC Driver 18 for SQL Server};Server=127.0.0.1,1533;"
                          "UID=jembatan;PWD=p;Database=jembatan_test;Encrypt=no"),
    ("Driver={ODBC Driver 18 for SQL Server};Server=db.plant,1433;Database=t;UID=u;PWD=x;"
     "Encrypt=yes;TrustServerCertificate=yes", mssql.FREETDS,
     "Driver=FreeTDS;Server=db.plant;Port=1433;TDS_Version=7.4;UID=u;PWD=x;Database=t"),
    ("Driver={ODBC Driver 18 for SQL Server};Server=db.plant,1433;Database=t;UID=u;PWD=x;"
     "Encrypt=yes;TrustServerCertificate=yes", mssql.MSODBC18,
     "Driver={ODBC Driver 18 for SQL Server};Server=db.plant,1433;UID=u;PWD=x;Database=t;"
     "Encrypt=yes;TrustServerCertificate=yes"),
])
def test_the_t_sql_server_string_in_each_drivers_words(given: str, to: str,
                                                         expected: str) -> None:
    """The server of JEMBATAN_TEST_MSSQL, as FreeTDS (Port=, TDS_Version=) and as Driver 18
    (host,port; Encrypt=no unless the string says otherwise) are told it."""
    assert mssql.odbc_string(given, to) == expected


@pytest.mark.mssql
@pytest.mark.skipif(mssql.connection_string() is None, reason=f"{mssql.ENV} is not set")
def test_the_mssql_engine_runs_through_the_chosen_driver(mssql_server: mssql.Server) -> None:
    """The library that answers is the driver JEMBATAN_TEST_TDS_DRIVER names (FreeTDS unless
    it says msodbc18), so that `make test`'s second run is Driver 18's."""
    import pyodbc

    library = {mssql.FREETDS: "libtdsodbc", mssql.MSODBC18: "libmsodbcsql-18"}[mssql.driver()]
    with closing(pyodbc.connect(mssql_server.odbc)) as conn:
        assert conn.getinfo(pyodbc.SQL_DRIVER_NAME).startswith(library)


def break_query(sql_dir: Path, name: str, dialect: str | None) -> None:
    """Make one text of a shape, in the site's own copy of shapes.sql, read a table that does
    not exist."""
    path = sql_dir / "shapes.sql"
    blocks = re.split(r"(?m)^(?=--\s*name:)", path.read_text(encoding="utf-8"))
    for i, block in enumerate(blocks):
        lines = block.splitlines()
        if not lines or lines[0].strip() != f"-- name: {name}":
            continue
        has_dialect = len(lines) > 1 and lines[1].startswith("-- dialect:")
        if has_dialect == (dialect is not None):
            assert 'FROM "records"' in block
            blocks[i] = block.replace('FROM "records"', 'FROM "no_such_table"')
            break
    else:
        raise AssertionError(f"no {name} ({dialect}) block in {path}")
    path.write_text("".join(blocks), encoding="utf-8")


@pytest.mark.parametrize("broken", [None, "sqlite"], ids=["main-text", "sqlite-variant"])
def test_each_engine_runs_its_text(tmp_path, make_database, engine, broken):
    """A server engine runs the main text (as SQL Server does) and never the SQLite
    variant; both SQLite engines run the variant."""
    sql_dir = tmp_path / "site-sql"
    shutil.copytree(ROOT / "sql", sql_dir)
    break_query(sql_dir, "all", broken)
    database = make_database({"customers": [{"id": 2}, {"id": 1}]})
    client = create_app({"database": database | {"sql_dir": str(sql_dir)}}).test_client()
    runs_variant = engine in FILE_ENGINES
    fails = runs_variant == (broken == "sqlite")
    response = client.get("/customers")
    if fails:  # a table the database lacks: customers is not mapped (app/core/mapped.py)
        assert response.status_code == 503
        assert "customers is not mapped yet" in response.get_json()["message"]
    else:
        assert response.status_code == 200
        assert [r["id"] for r in response.get_json()] == [1, 2]


@pytest.mark.postgresql
def test_cluster_stop_kill_start() -> None:
    pyodbc = pytest.importorskip("pyodbc")
    cluster = Cluster()
    try:
        cluster.start()
        schema = cluster.create_schema({"customers": [{"id": 1, "CustName": "PT Maju"}]})
        reader = cluster.connection_string(schema=schema)
        assert re.search(r"Server=127\.0\.0\.1;Port=\d+;", reader)

        def names() -> list[str]:
            with closing(pyodbc.connect(reader, autocommit=True)) as conn:
                return [r[0] for r in conn.execute('SELECT "CustName" FROM "customers"')]

        assert names() == ["PT Maju"]
        assert cluster.pid is not None
        cluster.kill()
        assert not cluster.running
        with pytest.raises(pyodbc.Error):
            names()
        cluster.start()  # crash recovery: the data is still there
        assert names() == ["PT Maju"]
        cluster.stop()
        assert not cluster.running
        cluster.start()
        assert names() == ["PT Maju"]
        # The app's login reads and nothing else.
        with closing(pyodbc.connect(reader, autocommit=True)) as conn, \
                pytest.raises(pyodbc.Error):
            conn.execute('DELETE FROM "customers"')
        cluster.drop_schema(schema)
    finally:
        cluster.remove()
    assert not cluster.base.exists()


class RecordingCursor:
    """Stands in for a SQL Server connection and cursor: keeps what would be sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list[Any]]] = []

    def cursor(self) -> RecordingCursor:
        return self

    def execute(self, sql: str, params: Any = ()) -> None:
        self.sent.append((sql, list(params)))

    def close(self) -> None:
        pass


def test_mssql_loader_sends_t_sql_that_2008_r2_runs() -> None:
    """Without a SQL Server: what the mssql loader would send parses as T-SQL, uses nothing
    2008 R2 lacks (no DROP TABLE IF EXISTS either), stays within SQL Server's 2,100
    parameters and 1,000 rows per INSERT, and carries dates as dates and times as text."""
    server = mssql.Server("Driver=unused")
    recorder = RecordingCursor()
    server.conn = recorder
    weighing = [{"id": n, "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00.500000",
                 "vehno": "B 1 XY", "weigh1": 0.1} for n in range(1, 3)]
    server.load({"weighing": weighing, "customers": [{"id": n} for n in range(1500)],
                 "vehicles": [{"id": 1, "Number": None}, {}]})
    statements = [sql for sql, _ in recorder.sent]
    # Every collection's table is dropped and made afresh.
    assert sum(s.startswith("IF OBJECT_ID(") for s in statements) == len(contract.COLLECTIONS)
    assert sum(s.startswith("CREATE TABLE") for s in statements) == len(contract.COLLECTIONS)
    for sql, params in recorder.sent:
        assert violations(sql) == [], sql
        for node in sqlglot.parse_one(sql, read="tsql").walk():
            assert not (isinstance(node, exp.Drop) and node.args.get("exists")), sql
        assert len(params) <= 2100 and sql.count("), (") < 1000
    inserted = [params for sql, params in recorder.sent if 'INTO "weighing"' in sql]
    assert inserted == [[1, dt.date(2026, 11, 1), "07:00:00.500000", "B 1 XY", 0.1,
                         2, dt.date(2026, 11, 1), "07:00:00.500000", "B 1 XY", 0.1]]
    assert sum(len(p) for sql, p in recorder.sent if 'INTO "customers"' in sql) == 1500
    assert 'INSERT INTO "vehicles" DEFAULT VALUES' in statements
    server.ensure({"weighing": weighing, "customers": [{"id": n} for n in range(1500)],
                   "vehicles": [{"id": 1, "Number": None}, {}]})
    assert len(recorder.sent) == len(statements)  # the same rows: nothing sent again
