"""Fixtures: a database built from rows written in each test, on every engine:

- `sqlite3`: a real SQLite file through Python's sqlite3 (the embedded default);
- `odbc`: the same file through pyodbc and the SQLite ODBC driver (Debian libsqliteodbc);
- `postgresql`: a throwaway PostgreSQL cluster (tests/postgres.py) through its ODBC driver,
  which runs each query's main text, the one SQL Server runs; one schema per database;
- `mssql`, only when JEMBATAN_TEST_MSSQL names a T-SQL server (tests/mssql.py): a real SQL
  Server, or in CI the Babelfish server of ../shared/tsql that .ci/run starts, reached
  through pyodbc and the ODBC driver JEMBATAN_TEST_TDS_DRIVER names, as a plant's Linux host
  reaches SQL Server: FreeTDS (the default) or Microsoft's ODBC Driver 18 (`msodbc18`).

Every test that reaches the database runs on every engine. Two kinds of fixture keep the
suite's time down without keeping a test off an engine where the engine matters:
- `shared`: tests that only read ask for the rows of their module's tests at once, and a
  module shares one database per engine and set of rows, and over it one app per set of
  settings (building them for each test was most of the suite's time); `shared_app` gives
  a test a new app over that database, for one that counts what its own app has seen
  (/health, /metrics);
- `arguments_client`: the arguments, paths and methods that are answered 400, 404 or 405
  before any query is built run on the `sqlite3` engine alone. The engine cannot change
  those answers: with the database file deleted after the app was built, every one of them
  still passed (and a read answered 503).

`make test` runs the `mssql` engine through both drivers: through FreeTDS in the whole
suite's run, and at the same time through Driver 18 in a run of `pytest -m mssql` of its own.
Two runs rather than a driver axis inside one: the engine's name stays `mssql` wherever a
test asks which engine it is on, a developer can run either driver alone, and each run's
summary says which driver failed. The T-SQL-specific files (the drivers, the faults, the
fault load) start servers of their own and run through each driver within the first run.

Both runs go in worker processes (pytest-xdist, `--dist loadfile`: a file's tests, and so
its module-scoped databases and apps, stay in one process). Each worker has its own
PostgreSQL cluster, and on the T-SQL server a database of its own per driver
(`mssql_server`, tests/mssql.py run_database), so no two workers share tables; everything
the tests start listens on a free port. `pytest -m "not postgresql"` (or `"not mssql"`)
leaves out a server engine's runs; `make test-quick` also leaves out the slow groups
(SLOW_GROUPS, at the end), and `make test-unit` runs tests/unit alone (no server, no app)."""

from __future__ import annotations

import datetime as dt
import itertools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app import create_app
from app.commands.demo import write_void_mapping
from app.model import tables
from tests import mssql
from tests.helpers import voided
from tests.postgres import Cluster

FILE_ENGINES = ("sqlite3", "odbc")
SERVER_ENGINES = ("postgresql",) + (("mssql",) if mssql.connection_string() else ())
ENGINES = FILE_ENGINES + SERVER_ENGINES
# A server engine's runs carry its mark: `-m "not postgresql"` deselects them.
ENGINE_PARAMS = [pytest.param(e, marks=getattr(pytest.mark, e)) if e in SERVER_ENGINES else e
                 for e in ENGINES]

Tables = Mapping[str, list[dict[str, Any]]]


@pytest.fixture(autouse=True, scope="session")
def proof_verdicts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The proof's verdicts of every app the tests build, and of the servers they start
    (which inherit the environment), kept in a directory of the run's own (the default
    when STATE_DIRECTORY is set), never in the checkout's instance/."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STATE_DIRECTORY", str(tmp_path_factory.mktemp("state")))
        yield


def other_zone_than(plant: str) -> str:
    """A zone whose date now differs from `plant`'s: one of two zones 25 hours apart."""
    def today_in(zone: str) -> dt.date:
        return dt.datetime.now(ZoneInfo(zone)).date()

    return next(z for z in ("Pacific/Kiritimati", "Pacific/Pago_Pago")
                if today_in(z) != today_in(plant))


@pytest.fixture
def host_zone() -> Iterator[Callable[[str], None]]:
    """host_zone("UTC"): this process's time zone from now to the test's end (TZ, which
    SQLite's 'localtime' and Python's local date follow) and that of the PostgreSQL
    sessions it opens (PGTZ, which libpq sends at connect)."""
    saved = {k: os.environ.get(k) for k in ("TZ", "PGTZ")}

    def set_zone(name: str) -> None:
        os.environ["TZ"] = os.environ["PGTZ"] = name
        time.tzset()

    yield set_zone
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    time.tzset()


def insert_rows(con: sqlite3.Connection, tables: Tables) -> None:
    """INSERT these rows, each with the columns it names."""
    for table, rows in tables.items():
        for row in rows:
            names = ", ".join(f'"{n}"' for n in row)
            marks = ", ".join("?" for _ in row)
            con.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', list(row.values()))


def build_database(path: Path, rows: Tables) -> Path:
    """A SQLite file with the tables of the seed's fields (app/model/tables.py), the demo's
    void column too where the rows carry it (`voided`), and exactly these rows."""
    con = sqlite3.connect(path)
    con.executescript(tables.script("sqlite", voids=voided(rows)))
    insert_rows(con, rows)
    con.commit()
    con.close()
    return path


def odbc_string(path: Path) -> str:
    # StepAPI=1 streams rows instead of loading the whole result at execute().
    return f"Driver=SQLite3;Database=file:{path}?mode=ro;StepAPI=1"


def database_settings(engine: str, path: Path) -> dict[str, Any]:
    return {"sqlite": str(path)} if engine == "sqlite3" else {"odbc": odbc_string(path)}


@pytest.fixture(scope="session")
def void_mapping(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sql_dir as a site with a void flag writes it (tests/helpers.py write_void_mapping),
    for the tests whose rows void tickets (`voided`)."""
    return write_void_mapping(tmp_path_factory.mktemp("void-mapping"))


def open_database(request: pytest.FixtureRequest, engine: str, tables: Tables,
                  path: Path) -> dict[str, Any]:
    """The `database` settings of a new database on `engine` holding exactly these rows:
    the tables of the seed's fields, served by the shipped sql/; rows that void tickets
    (`voided`) get the demo's void column and the mapping that reads it (`void_mapping`).

    `path` is the SQLite file for the file engines. On PostgreSQL the rows go into a schema
    of their own, dropped when the scope of `request` ends. On SQL Server the ten tables are
    dropped and created again: the last database opened is the only one (see ensure_rows).
    """
    voids = voided(tables)
    mapping = {"sql_dir": str(request.getfixturevalue("void_mapping"))} if voids else {}
    if engine in FILE_ENGINES:
        return database_settings(engine, build_database(path, tables)) | mapping
    if engine == "postgresql":
        cluster: Cluster = request.getfixturevalue("postgres_cluster")
        schema = cluster.create_schema(tables)
        request.addfinalizer(lambda: cluster.drop_schema(schema))
        return {"odbc": cluster.connection_string(schema=schema)} | mapping
    if engine == "mssql":
        server: mssql.Server = request.getfixturevalue("mssql_server")
        server.load(tables)
        return {"odbc": server.odbc} | mapping
    raise ValueError(f"unknown engine {engine!r}")


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# A column of a plant's own table: its type on sqlite, postgresql and mssql.
ColumnTypes = Mapping[str, tuple[str, str, str]]


def own_table(request: pytest.FixtureRequest, engine: str, path: Path, table: str,
              columns: ColumnTypes, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The `database` settings of a database holding one table of a plant's own naming and
    types with exactly these rows, on `engine` (`path`: the SQLite file of the file engines;
    on PostgreSQL a schema of its own, on SQL Server the table, each dropped at the end)."""
    if engine in FILE_ENGINES:
        con = sqlite3.connect(path)
        con.execute(f"CREATE TABLE {quote(table)} (" + ", ".join(
            f"{quote(c)} {t[0]}" for c, t in columns.items()) + ")")
        insert_rows(con, {table: rows})
        con.commit()
        con.close()
        return database_settings(engine, path)
    if engine == "mssql":
        server: mssql.Server = request.getfixturevalue("mssql_server")
        request.addfinalizer(lambda: server.drop_table(table))
        server.create_table(table, {c: t[2] for c, t in columns.items()}, rows)
        return {"odbc": server.odbc}
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    schema = cluster.create_table(table, {c: t[1] for c, t in columns.items()}, rows)
    request.addfinalizer(lambda: cluster.drop_schema(schema))
    return {"odbc": cluster.connection_string(schema=schema)}


def site_table(request: pytest.FixtureRequest, engine: str, path: Path, table: str,
               columns: Mapping[str, str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """own_table with each column's SQL Server type alone: SQLite takes those names as they
    are, PostgreSQL gets varchar for nvarchar."""
    def postgresql(t: str) -> str:
        return t.lower().removeprefix("n") if "char" in t.lower() else t

    return own_table(request, engine, path, table,
                     {c: (t, postgresql(t), t) for c, t in columns.items()}, rows)


def ensure_rows(request: pytest.FixtureRequest, engine: str, tables: Tables) -> None:
    """For a database opened by a fixture wider than one test: put its rows back where
    another test may have replaced them since (SQL Server's shared tables)."""
    if engine == "mssql":
        request.getfixturevalue("mssql_server").ensure(tables)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """One PostgreSQL cluster for the whole run, on a free port, removed at the end."""
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def mssql_server() -> Iterator[mssql.Server]:
    odbc = mssql.connection_string()
    if odbc is None:  # not reached: the engine is collected only with the variable set
        pytest.skip(f"{mssql.ENV} is not set")
    database = mssql.run_database(odbc, os.environ.get("PYTEST_XDIST_WORKER"))
    server = mssql.Server(mssql.create_database(odbc, database) if database else odbc)
    server.open()  # here, so that a server that cannot be reached fails the run at once
    yield server
    server.close()
    if database:
        mssql.drop_database(odbc, database)


@pytest.fixture(params=ENGINE_PARAMS)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module", params=ENGINE_PARAMS)
def module_engine(request: pytest.FixtureRequest) -> str:
    """The engine of a database a module's tests share (shared_client)."""
    return request.param


def shared_client(request: pytest.FixtureRequest, factory: pytest.TempPathFactory,
                  engine: str, tables: Tables, **settings: Any) -> FlaskClient:
    """A client over a new database of these rows on `engine`, for a module-scoped fixture
    whose tests only read: building the app and the database for each test is what made the
    suite slow. The function fixture that hands it to a test calls ensure_rows first (on SQL
    Server the ten tables are every test's)."""
    database = open_database(request, engine, tables, factory.mktemp("db") / "db.sqlite3")
    return create_app({"database": database | {"prove_on_first_read": False},
                       **settings}).test_client()


class SharedClients:
    """The databases and clients of a module on one engine: one database per set of rows
    (on SQL Server the ten tables, loaded again by ensure_rows when another test replaced
    them), and over it one app per set of settings it was first asked with (see the `shared`
    fixture); building the app and the database for each test is what made the suite slow."""

    def __init__(self, request: pytest.FixtureRequest, factory: pytest.TempPathFactory,
                 engine: str) -> None:
        self.request, self.factory, self.engine = request, factory, engine
        self.databases: dict[str, dict[str, Any]] = {}
        self.clients: dict[str, FlaskClient] = {}

    def database(self, tables: Tables) -> dict[str, Any]:
        """The `database` settings of the module's database of these rows."""
        key = mssql.frozen(tables)
        if key not in self.databases:
            if self.engine == "mssql":  # the ten tables: loaded unless they hold these rows
                server: mssql.Server = self.request.getfixturevalue("mssql_server")
                server.ensure(tables)
                self.databases[key] = {"odbc": server.odbc} | ({"sql_dir": str(
                    self.request.getfixturevalue("void_mapping"))} if voided(tables) else {})
            else:
                self.databases[key] = open_database(self.request, self.engine, tables,
                                                    self.factory.mktemp("db") / "db.sqlite3")
        return self.databases[key]

    def app(self, request: pytest.FixtureRequest, tables: Tables, **settings: Any) -> Flask:
        """A new app over the module's database of these rows, as make_client builds one."""
        database = self.database(tables) | {"prove_on_first_read": False} | settings.pop(
            "database", {})
        ensure_rows(request, self.engine, tables)
        return create_app({"database": database, **settings})

    def get(self, request: pytest.FixtureRequest, tables: Tables, **settings: Any
            ) -> FlaskClient:
        key = repr((mssql.frozen(tables), sorted(settings.items())))
        if key not in self.clients:
            self.clients[key] = self.app(request, tables, **settings).test_client()
        ensure_rows(request, self.engine, tables)
        return self.clients[key]


@pytest.fixture(scope="module")
def module_clients(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                   module_engine: str) -> SharedClients:
    return SharedClients(request, tmp_path_factory, module_engine)


SharedClient = Callable[..., FlaskClient]


@pytest.fixture
def shared(request: pytest.FixtureRequest, module_clients: SharedClients) -> SharedClient:
    """shared({"weighing": [row, ...]}, api={"page_size": 2}) -> a Flask test client like
    make_client's, but over a database built once per module and engine for these rows and
    settings, for tests that only read. A test that reads one collection can ask for the rows
    of every collection's test at once, so that its siblings share the database."""
    return lambda tables, **settings: module_clients.get(request, tables, **settings)


@pytest.fixture
def shared_app(request: pytest.FixtureRequest, module_clients: SharedClients
               ) -> Callable[..., Flask]:
    """shared_app({"weighing": [row, ...]}, api={...}) -> a new app (settings as make_client's,
    `database` merged), over the module's database of these rows that `shared` reads too: for
    a test that only reads but counts what its app has seen (/health, /metrics)."""
    return lambda tables, **settings: module_clients.app(request, tables, **settings)


def arguments_client(factory: pytest.TempPathFactory, tables: Tables, **settings: Any
                     ) -> FlaskClient:
    """A client over a SQLite file of these rows (the sqlite3 engine), for the tests of
    arguments that are answered 400 before any query is built: the engine cannot change
    those answers, so they run on one."""
    path = build_database(factory.mktemp("db") / "db.sqlite3", tables)
    return create_app({"database": database_settings("sqlite3", path) | {
        "prove_on_first_read": False}, **settings}).test_client()


@pytest.fixture
def make_database(request: pytest.FixtureRequest, tmp_path: Path,
                  engine: str) -> Callable[[Tables], dict[str, Any]]:
    """make_database({"weighing": [row, ...]}) -> the `database` settings of a new database
    holding exactly these rows on this test's engine."""
    counter = itertools.count()

    def make(tables: Tables) -> dict[str, Any]:
        return open_database(request, engine, tables, tmp_path / f"db{next(counter)}.sqlite3")

    return make


MakeClient = Callable[..., FlaskClient]


@pytest.fixture
def make_client(make_database: Callable[[Tables], dict[str, Any]]) -> MakeClient:
    """make_client({"weighing": [row, ...]}, api={"page_size": 2}) -> a Flask test client."""

    def make(tables: Tables, **settings: Any) -> FlaskClient:
        # The proof at the first read is off for these clients, which test the reads
        # themselves (tests/test_read_proof.py and test_unmapped.py test it, and every
        # gunicorn the tests start runs it): on the server engines it would add some 70
        # queries to each test's first request.
        database = make_database(tables) | {"prove_on_first_read": False} | settings.pop(
            "database", {})
        app = create_app({"database": database, **settings})
        return app.test_client()

    return make


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A fresh headless Chromium (tests/browser.py), closed after the test."""
    from tests.browser import Browser  # only the browser tests need it

    chromium = Browser(tmp_path / "chromium-profile", tmp_path / "chromium.log")
    try:
        yield chromium
    finally:
        chromium.close()


def pytest_report_header() -> str | None:
    """Which driver the `mssql` engine runs through, at the top of the run."""
    if mssql.connection_string() is None:
        return None
    return f"mssql engine: {mssql.ENV} through {mssql.driver()} ({mssql.DRIVER_ENV})"


# The slow groups, by file, each a marker of its own (setup.cfg): a developer's inner loop
# leaves them out (`make test-quick`); `make test` runs everything.
SLOW_GROUPS: dict[str, tuple[str, ...]] = {
    "soak": ("test_soak.py", "test_feed_soak.py", "test_warehouse_fleet.py"),
    "faults": ("test_faults.py", "test_fault_load.py", "test_tsql_faults.py"),
    "browser": ("test_dashboard.py", "test_report.py", "test_docs_browser.py"),
    "fuzz": ("test_fuzz.py",),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test of a slow group's files with the group's marker."""
    group_of = {name: group for group, names in SLOW_GROUPS.items() for name in names}
    missing = set(group_of) - {p.name for p in Path(__file__).parent.glob("test_*.py")}
    assert not missing, f"SLOW_GROUPS names files that are not in tests/: {sorted(missing)}"
    for item in items:
        group = group_of.get(item.path.name)
        if group is not None:
            item.add_marker(group)
