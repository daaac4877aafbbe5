"""The opt-in `mssql` engine: a real SQL Server (2008 R2 and later) named by
JEMBATAN_TEST_MSSQL, so that every HTTP test also runs the main text of each query there, as
production does. Without the variable the engine is not collected at all.

How to run it: an empty database that a login may create and drop tables in, then::

    JEMBATAN_TEST_MSSQL='Driver={ODBC Driver 18 for SQL Server};Server=...;\
    Database=jembatan_test;UID=...;PWD=...;TrustServerCertificate=yes' make test

(FreeTDS works too: Driver=FreeTDS;TDS_Version=7.3;...). SQL Server has no per-session
search_path, so tests are isolated by dropping the ten tables and creating them again
(app/model/tables.py's SQL Server DDL: date, time(6), float, int, nvarchar; no indexes, a test holds
a handful of rows) before each test's rows go in: the database must be one for the tests
alone, and two test runs must not share it. In worker processes (pytest-xdist, as `make
test` runs) each worker of each driver's run creates a database of its own beside it
(run_database) and drops it at the end, so the login must be allowed to create databases.
A test that needs a table of the site's own (other names, other SQL Server types) makes it
with Server.create_table and drops it with Server.drop_table when it ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from app.database.sqltext import quote
from app.model import tables
from app.model.tables import table_statements
from tests.helpers import voided
from tests.postgres import insert_rows
from tests.servers import free_port

ENV = "JEMBATAN_TEST_MSSQL"
# The T-SQL server kit (Babelfish over TDS: start, stop, resume) from which the FreeTDS and
# fault tests start servers of their own: JEMBATAN_TSQL, else ../shared/tsql beside the checkout.
TSQL_DIR = Path(os.environ.get("JEMBATAN_TSQL")
                or Path(__file__).resolve().parent.parent.parent / "shared" / "tsql")


# The two ODBC drivers a plant's Linux host reaches SQL Server through: Debian's FreeTDS
# (tdsodbc) and Microsoft's ODBC Driver 18 (`make test` registers the library of PyPI's
# mssql-python-odbc under its usual name). JEMBATAN_TEST_TDS_DRIVER picks the one the `mssql`
# engine uses; `make test` runs that engine through each in turn.
DRIVER_ENV = "JEMBATAN_TEST_TDS_DRIVER"
FREETDS, MSODBC18 = "freetds", "msodbc18"
DRIVERS = (FREETDS, MSODBC18)
MSODBC18_NAME = "ODBC Driver 18 for SQL Server"


def driver() -> str:
    """The driver the `mssql` engine runs through: freetds unless JEMBATAN_TEST_TDS_DRIVER
    says msodbc18."""
    chosen = os.environ.get(DRIVER_ENV, "").strip().lower() or FREETDS
    if chosen not in DRIVERS:
        raise ValueError(f"{DRIVER_ENV}={chosen!r}: expected one of {', '.join(DRIVERS)}")
    return chosen


def parts(odbc: str) -> dict[str, str]:
    """A connection string's keywords, lower-cased, {keyword: value} (braces kept)."""
    pairs = (item.split("=", 1) for item in odbc.split(";") if "=" in item)
    return {key.strip().lower(): value.strip() for key, value in pairs}


def odbc_string(odbc: str, to: str, tds_version: str = "7.4", *, port: int | None = None,
                **extra: str) -> str:
    """The same server, login and database as `odbc` (a FreeTDS or a Driver 18 string), as
    the driver `to` is told them: FreeTDS takes `Server=host;Port=N;TDS_Version=...`, Driver
    18 `Server=host,N` (it ignores Port=) and, against a server without TLS, `Encrypt=no` (its
    default, mandatory, answers 08001 "Encryption not supported"). `port` sends it to another
    port of the same host (one that refuses, or never answers). `extra` keywords are
    appended as given (Encrypt=..., TrustServerCertificate=..., Encryption=..., APP=...); one
    given as "" is left out (Encrypt="": Driver 18's own default applies)."""
    given = parts(odbc)
    host, _, given_port = given["server"].partition(",")
    number = str(port) if port else given_port or given.get("port", "1433")
    login = f"UID={given['uid']};PWD={given['pwd']};Database={given['database']}"
    if to == FREETDS:
        text = f"Driver=FreeTDS;Server={host};Port={number};TDS_Version={tds_version};{login}"
    else:
        kept = {"TrustServerCertificate": given["trustservercertificate"]} \
            if "trustservercertificate" in given else {}
        extra = {"Encrypt": given.get("encrypt", "no")} | kept | extra
        text = f"Driver={{{MSODBC18_NAME}}};Server={host},{number};{login}"
    return text + "".join(f";{key}={value}" for key, value in extra.items() if value)


# The drivers as plants configure them: FreeTDS told TDS 7.3 (SQL Server 2008's, the first
# with date and time types) or 7.4 (2012 and later), and Driver 18, which settles the
# version with the server itself. {case: (driver, tds_version)}
PLANT_DRIVERS = {"freetds-tds7.3": (FREETDS, "7.3"), "freetds-tds7.4": (FREETDS, "7.4"),
                 "msodbc18": (MSODBC18, "7.4")}


def require_driver(to: str) -> None:
    """Skip the test where unixODBC does not know the driver `to` (`make msodbc18`)."""
    import pyodbc

    name = "FreeTDS" if to == FREETDS else MSODBC18_NAME
    if name not in pyodbc.drivers():
        pytest.skip(f"unixODBC has no driver {name!r} here (make msodbc18 registers Driver 18)")


def connection_string() -> str | None:
    """JEMBATAN_TEST_MSSQL's server, through the driver of JEMBATAN_TEST_TDS_DRIVER."""
    odbc = os.environ.get(ENV, "").strip() or None
    return odbc and odbc_string(odbc, driver())


def with_database(odbc: str, database: str) -> str:
    """The same connection string with `Database=` naming `database`."""
    return ";".join(f"Database={database}" if item.split("=", 1)[0].strip().lower()
                    == "database" else item for item in odbc.split(";"))


def run_database(odbc: str, worker: str | None) -> str | None:
    """The database of one pytest worker (`PYTEST_XDIST_WORKER`) on one driver, beside the
    one `odbc` names: `<that>_<driver>_<worker>`, so that the workers of a run, and the runs
    of the two drivers side by side, never replace each other's tables. None without
    workers: the tests then use the database `odbc` names, as a plant's login may create no
    database."""
    return worker and f"{parts(odbc)['database']}_{driver()}_{worker}"


def create_database(odbc: str, database: str) -> str:
    """Create `database` empty on the server of `odbc` (dropped first if a run left it);
    the connection string that reaches it."""
    import pyodbc

    with contextlib.closing(pyodbc.connect(odbc, autocommit=True)) as conn:
        conn.execute(f"IF DB_ID(N'{database}') IS NOT NULL DROP DATABASE {quote(database)}")
        conn.execute(f"CREATE DATABASE {quote(database)}")
    return with_database(odbc, database)


def drop_database(odbc: str, database: str) -> None:
    """Drop `database` where no session holds it any more; one still held (a driver that
    has not yet closed a connection) is left to the next run's create_database."""
    import pyodbc

    with contextlib.closing(pyodbc.connect(odbc, autocommit=True)) as conn, \
            contextlib.suppress(pyodbc.Error):
        conn.execute(f"DROP DATABASE {quote(database)}")


class Server:
    """The SQL Server of JEMBATAN_TEST_MSSQL, holding one test's rows at a time."""

    def __init__(self, odbc: str):
        self.odbc = odbc
        self.tables = tables.column_types("mssql", voids=True)
        self.conn: Any = None
        self.loaded: Any = None  # the rows last loaded, so that ensure() can skip a reload

    def open(self) -> None:
        if self.conn is None:
            import pyodbc

            self.conn = pyodbc.connect(self.odbc, autocommit=True)

    def _cursor(self) -> Any:
        self.open()
        return self.conn.cursor()

    def _drop(self, cursor: Any, table: str) -> None:
        # 2008 R2 has no DROP TABLE IF EXISTS.
        name = quote(table)
        bracketed = "[" + table.replace("]", "]]") + "]"  # OBJECT_ID's quoting of a name
        literal = "N'" + bracketed.replace("'", "''") + "'"
        cursor.execute(f"IF OBJECT_ID({literal}, N'U') IS NOT NULL DROP TABLE {name}")

    def load(self, tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        """Drop the ten tables, create them empty (the seed's fields; the demo's void column
        too where the rows carry `cancelled`) and insert these rows."""
        cursor = self._cursor()
        for table in self.tables:
            self._drop(cursor, table)
        for statement in table_statements("mssql", voided(tables)):
            cursor.execute(statement)
        for table, rows in tables.items():
            insert_rows(cursor, f'"{table}"', self.tables[table], rows, time_as_text=True,
                        cast=lambda sql_type: sql_type)
        cursor.close()
        self.loaded = frozen(tables)

    def create_table(self, table: str, columns: Mapping[str, str],
                     rows: Sequence[Mapping[str, Any]] = ()) -> None:
        """Create `table` (dropped first if it is there) with these columns of SQL Server
        types, {column: type}, and insert the rows; a datetime is given as ISO text
        'YYYY-MM-DD hh:mm:ss'. One of the ten tables' names replaces that table until the
        next load()."""
        cursor = self._cursor()
        self._drop(cursor, table)
        if table in self.tables:
            self.loaded = None  # ensure() must load the ten tables again
        cursor.execute(f"CREATE TABLE {quote(table)} ("
                       + ", ".join(f"{quote(c)} {t}" for c, t in columns.items()) + ")")
        insert_rows(cursor, quote(table), columns,
                    [{c: _sent(v, columns[c]) for c, v in row.items()} for row in rows],
                    time_as_text=True, cast=lambda sql_type: sql_type)
        cursor.close()

    def drop_table(self, table: str) -> None:
        """Drop `table` if it is there (a finalizer's work: whatever the test left)."""
        cursor = self._cursor()
        self._drop(cursor, table)
        if table in self.tables:
            self.loaded = None
        cursor.close()

    def execute(self, sql: str, *params: Any) -> list[Any]:
        """Run one statement; the rows of its first result, if it has any."""
        cursor = self._cursor()
        try:
            cursor.execute(sql, *params)
            return cursor.fetchall() if cursor.description else []
        finally:
            cursor.close()

    def ensure(self, tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        """Load these rows unless they are what the tables hold already."""
        if self.loaded != frozen(tables):
            self.load(tables)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


_DATETIMES = ("datetime", "datetime2", "smalldatetime")


def _sent(value: Any, sql_type: str) -> Any:
    """A row's value as sent for a column of `sql_type`: a datetime's ISO text with the T,
    'YYYY-MM-DDThh:mm:ss', the form SQL Server reads the same whatever the session's
    DATEFORMAT and language (a space instead is read by DATEFORMAT for `datetime`)."""
    if isinstance(value, str) and sql_type.split("(")[0].strip().lower() in _DATETIMES:
        return value.replace(" ", "T", 1)
    return value


def frozen(tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> Any:
    return repr(sorted((t, [sorted(r.items()) for r in rows]) for t, rows in tables.items()))


# -- T-SQL servers of the tests' own, from the kit -----------------------------------------


class Kit:
    """A T-SQL server of ../shared/tsql on ports of its own."""

    def __init__(self) -> None:
        self.port, self.pg_port = free_port(), free_port()
        while self.pg_port == self.port:
            self.pg_port = free_port()
        self.env = os.environ | {"TSQL_PORT": str(self.port), "TSQL_PG_PORT": str(self.pg_port)}
        self.printed = ""  # the FreeTDS string that start (and resume) prints

    def run(self, script: str, *args: str) -> str:
        """Run a script of the kit on this server's ports; its last line of output."""
        done = subprocess.run([str(TSQL_DIR / script), *args], env=self.env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"tsql/{script} {' '.join(args)}: {done.stderr[-3000:]}"
        return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""

    def start(self) -> None:
        """A fresh server; keeps the string it prints."""
        self.printed = self.run("start")

    def odbc(self, driver: str = FREETDS, version: str = "7.4", port: int | None = None
             ) -> str:
        """The server's string for `driver` (FreeTDS at TDS `version`), or for another
        `port` of its host."""
        return odbc_string(self.printed, driver, version, port=port)

    @property
    def state(self) -> Path:
        """The kit's directory for this server."""
        return Path(f"/tmp/jembatan-tsql-{self.port}")

    def psql(self, sql: str) -> str:
        """Run `sql` on the server's PostgreSQL side, as ../shared/tsql/start reaches it."""
        prefix = (self.state / "prefix").read_text().strip()
        done = subprocess.run(
            ["runuser", "-u", "jembatan-tsql", "--", "env", f"LD_LIBRARY_PATH={prefix}/lib",
             f"{prefix}/bin/psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1",
             "-h", str(self.state), "-p", str(self.pg_port), "-U", "postgres",
             "-d", "postgres", "-c", sql], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"psql {sql}: {done.stderr}"
        return done.stdout.strip()

    def cancel(self, marker: str) -> int:
        """Cancel the statements whose text holds `marker` where they still run; how many
        were. Babelfish reads a driver's attention only once some plans end, so a query the
        driver gave up on may go on counting (SQL Server stops at the attention)."""
        marker = marker.replace("'", "''")
        return int(self.psql("SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity "
                             f"WHERE query LIKE '%{marker}%' AND pid <> pg_backend_pid()"))

    def remove(self) -> None:
        """Stop the server and throw its data away."""
        self.run("stop", "--immediate")
        shutil.rmtree(self.state, ignore_errors=True)


@contextlib.contextmanager
def started(tsql: Kit, prepare: Callable[[Kit], None]) -> Iterator[Kit]:
    """`tsql` started, made ready by `prepare`, removed afterwards; the module is skipped
    where there is no T-SQL kit or no root to run it."""
    if not (TSQL_DIR / "start").is_file():
        pytest.skip(f"no T-SQL server here: {TSQL_DIR / 'start'} does not exist")
    if os.geteuid() != 0:
        pytest.skip("../shared/tsql/start needs root")
    try:
        tsql.start()
        prepare(tsql)
        yield tsql
    finally:
        tsql.remove()
