"""A throwaway PostgreSQL cluster for the tests, reached over TCP through its ODBC driver.

The `postgresql` engine of the HTTP tests runs each query's main text (the T-SQL that SQL
Server runs: ROW_NUMBER() paging, CASE ordering that puts NULLs first, typed date and time
parameters) on a real server. Fault tests can stop, start and kill the same cluster::

    cluster = Cluster()            # a free port and a temporary directory
    cluster.start()                # initdb on the first start, then pg_ctl start
    cluster.connection_string(schema="jt_1")   # for database.odbc
    cluster.kill()                 # SIGKILL the server and its backends: a crash
    cluster.start()                # crash recovery, same port and data
    cluster.stop()                 # a clean shutdown
    cluster.remove()               # stop if running, delete the directory

As root the server runs as the `postgres` user (initdb refuses root) and the directory is
owned by it; otherwise it runs as the current user. Needs Debian's `postgresql` (the
binaries under /usr/lib/postgresql/<version>/bin) and `odbc-postgresql` (the ODBC driver
"PostgreSQL Unicode"); `make test` installs both.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.model import tables
from tests.helpers import voided

DRIVER = "PostgreSQL Unicode"
DATABASE = "jembatan"
READER = "jembatan_ro"  # what the app logs in as: SELECT on the test schemas, nothing else
OWNER = "postgres"  # the superuser that loads the rows
SERVER_USER = "postgres"  # the OS user that runs the server when the tests run as root


class ClusterError(RuntimeError):
    """The cluster could not be made, started or stopped; the message says why."""


def find_bin_dir() -> Path:
    """The bin directory of the newest PostgreSQL under /usr/lib/postgresql, or of the one
    whose pg_ctl is on PATH."""
    versions = []
    for path in Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"):
        try:
            versions.append((tuple(int(p) for p in path.parent.parent.name.split(".")), path))
        except ValueError:
            continue
    if versions:
        return max(versions)[1].parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).resolve().parent
    raise ClusterError("PostgreSQL is not installed: no /usr/lib/postgresql/*/bin/pg_ctl and "
                       "no pg_ctl on PATH (Debian: apt-get install postgresql odbc-postgresql, "
                       "which `make test` does)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One PostgreSQL server in a temporary directory, listening on 127.0.0.1 only."""

    def __init__(self, port: int | None = None, base: Path | None = None):
        self.bin = find_bin_dir()
        self.port = port or free_port()
        self.base = Path(base or tempfile.mkdtemp(prefix="jembatan-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self._as_other = os.geteuid() == 0
        self._schemas = itertools.count(1)
        self._tables: dict[str, dict[str, str]] | None = None
        self._admin: Any = None
        if self._as_other:
            shutil.chown(self.base, SERVER_USER, SERVER_USER)

    # -- the server ----------------------------------------------------------------------

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if self._as_other:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              cwd=self.base, check=False)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ClusterError(f"{' '.join(args[:2])} failed ({done.returncode}): "
                               f"{done.stderr.strip() or done.stdout.strip()}\n{log}")
        return done

    @property
    def initialised(self) -> bool:
        return (self.data / "PG_VERSION").is_file()

    def start(self) -> Cluster:
        """initdb on the first call, then start the server and wait until it accepts."""
        first = not self.initialised
        if first:
            # -N: no fsync of the new files; trust: a throwaway cluster on 127.0.0.1 only.
            self._run("initdb", "-D", str(self.data), "-U", OWNER, "-A", "trust", "-E", "UTF8",
                      "--locale=C", "-N")
        # fsync off: nothing here has to survive a power cut, and after kill() the server
        # still recovers every commit (its WAL is written to the OS, just not synced). Not
        # synchronous_commit=off: that keeps recent commits in shared memory, which a kill
        # loses.
        options = (f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c full_page_writes=off "
                   "-c max_connections=300 -c log_min_messages=warning")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log),
                  "-w", "-t", "60", "start")
        if first:
            self._create_database()
        return self

    def stop(self, mode: str = "fast") -> None:
        """A clean shutdown (`fast` ends the sessions, `immediate` skips the checkpoint)."""
        self._close_admin()
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def kill(self) -> None:
        """SIGKILL the postmaster and its backends, as a crash would; start() recovers."""
        self._close_admin()
        pid = self.pid
        if pid is None:
            return
        victims = [pid, *_children(pid)]
        for p in victims:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in victims):
            if time.monotonic() > deadline:
                raise ClusterError(f"PostgreSQL processes {victims} survived SIGKILL")
            time.sleep(0.02)
        # pg_ctl leaves the postmaster to init, which may reap it late: until then its
        # zombie holds the pid that the lock files name, and a new server would refuse to
        # start over it. The server is dead: the lock files are stale.
        if Path(f"/proc/{pid}").exists():
            for stale in (self.data / "postmaster.pid",
                          self.base / f".s.PGSQL.{self.port}.lock"):
                stale.unlink(missing_ok=True)

    def remove(self) -> None:
        """Stop the server if it runs and delete its directory."""
        try:
            if self.running:
                try:
                    self.stop("immediate")
                except ClusterError:
                    self.kill()
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    @property
    def pid(self) -> int | None:
        """The postmaster's pid while it runs."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None
        return pid if _alive(pid) else None

    @property
    def running(self) -> bool:
        return self.pid is not None

    # -- connections ---------------------------------------------------------------------

    def connection_string(self, database: str = DATABASE, schema: str | None = None,
                          user: str = READER, **options: str) -> str:
        """An ODBC connection string; `schema` becomes the session's search_path (and its
        application_name, so that drop_schema can end the sessions still open on it)."""
        # CommLog=0, Debug=0: Debian's odbcinst.ini turns the driver's log on, a file in
        # /tmp per process.
        parts = {"Driver": "{" + DRIVER + "}", "Server": "127.0.0.1", "Port": str(self.port),
                 "Database": database, "UID": user, "CommLog": "0", "Debug": "0"}
        if schema is not None:
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", schema):
                raise ValueError(f"schema name {schema!r}: lowercase letters, digits and _")
            parts["pqopt"] = f"{{application_name={schema} options='-c search_path={schema}'}}"
        parts.update(options)
        return "".join(f"{k}={v};" for k, v in parts.items())

    def connect(self, database: str = DATABASE, **options: Any) -> Any:
        """A pyodbc connection as the superuser, autocommit."""
        import pyodbc

        return pyodbc.connect(self.connection_string(database, user=OWNER), autocommit=True,
                              **options)

    def _admin_cursor(self) -> Any:
        if self._admin is None:
            self._admin = self.connect()
        return self._admin.cursor()

    def _close_admin(self) -> None:
        if self._admin is not None:
            try:
                self._admin.close()
            except Exception:  # a connection to a server that is gone fails to close
                pass
            self._admin = None

    def _create_database(self) -> None:
        conn = self.connect("postgres")
        try:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
            # The app's login reads and nothing else, as a site's should (docs/deploy.md §7).
            conn.execute(f'CREATE ROLE "{READER}" LOGIN')
            conn.execute(f'ALTER ROLE "{READER}" SET default_transaction_read_only = on')
        finally:
            conn.close()

    # -- test data -----------------------------------------------------------------------

    @property
    def tables(self) -> dict[str, dict[str, str]]:
        """{table: {column: type}} of the ten tables on PostgreSQL (app/model/tables.py)."""
        if self._tables is None:
            self._tables = tables.column_types("postgresql", voids=True)
        return self._tables

    @staticmethod
    def ddl(voids: bool = False) -> str:
        """The ten CREATE TABLE statements (no indexes: a test holds a handful of rows, and
        every make_client gets a schema of its own), ready to send; `voids`: with the demo's
        void column."""
        return "; ".join(tables.table_statements("postgresql", voids))

    def create_schema(self, tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
        """A new schema with the ten tables (the demo's void column too where the rows carry
        `cancelled`) holding exactly these rows; its name."""
        schema = f"jt_{next(self._schemas)}"
        cursor = self._admin_cursor()
        cursor.execute(f'CREATE SCHEMA "{schema}"; SET search_path TO "{schema}"; '
                       + self.ddl(voided(tables)) + _granted(schema) + "; RESET search_path")
        for table, rows in tables.items():
            insert_rows(cursor, f'"{schema}"."{table}"', self.tables[table], rows,
                        time_as_text=True)
        cursor.close()
        return schema

    def create_table(self, table: str, columns: Mapping[str, str],
                     rows: Sequence[Mapping[str, Any]]) -> str:
        """A new schema holding one table of a plant's own, {column: PostgreSQL type}, with
        exactly these rows; its name."""
        schema = f"jt_{next(self._schemas)}"
        cursor = self._admin_cursor()
        cursor.execute(f'CREATE SCHEMA "{schema}"; CREATE TABLE "{schema}"."{table}" ('
                       + ", ".join(f'"{c}" {t}' for c, t in columns.items()) + ")"
                       + _granted(schema))
        insert_rows(cursor, f'"{schema}"."{table}"', columns, rows, time_as_text=True)
        cursor.close()
        return schema

    def drop_schema(self, schema: str) -> None:
        """End the sessions still open on the schema (apps that are not yet garbage) and
        drop it."""
        if not self.running:
            return
        cursor = self._admin_cursor()
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE application_name = ? AND pid <> pg_backend_pid()", schema)
        cursor.fetchall()
        cursor.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        cursor.close()


def _granted(schema: str) -> str:
    """The statements, each after a "; ", that let the app's login read the schema."""
    return (f'; GRANT USAGE ON SCHEMA "{schema}" TO "{READER}"'
            f'; GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO "{READER}"')


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (killed, not yet reaped by its parent) is as good as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return True


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (a postmaster's backends and workers)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


# -- rows ------------------------------------------------------------------------------------

# Many rows per INSERT, within every server's limits: SQL Server takes 2,100 parameters
# and 1,000 rows of VALUES, PostgreSQL 65,535 parameters.
_PARAMS_PER_INSERT = 2000
_ROWS_PER_INSERT = 1000


def convert(value: Any, sql_type: str) -> Any:
    """A test row's value for a typed column: ISO text dates become `date`s (a typed
    parameter, as the runner sends), times become `time`s checked and sent back as ISO
    text by insert_rows (ODBC's TIME struct has no fraction of a second)."""
    base = sql_type.split("(")[0].strip().upper()
    if value is None or not isinstance(value, str):
        return value
    if base == "DATE":
        return dt.date.fromisoformat(value)
    if base == "TIME":
        return dt.time.fromisoformat(value)
    return value


def cast_type(sql_type: str) -> str:
    """What a parameter is CAST to for a PostgreSQL column: its type, less a VARCHAR's length
    (a CAST would cut a longer text short where the INSERT refuses it); a CHAR(n)'s is
    VARCHAR, as a CHAR without its length is one character long."""
    if "CHAR" not in sql_type.upper():
        return sql_type
    base = sql_type.split("(")[0].strip()
    return "VARCHAR" if base.upper() in ("CHAR", "CHARACTER", "NCHAR") else base


def insert_rows(cursor: Any, target: str, columns: Mapping[str, str],
                rows: Sequence[Mapping[str, Any]], time_as_text: bool,
                cast: Callable[[str], str] = cast_type) -> None:
    """INSERT the rows, several per statement; each parameter is CAST to its column's type
    (`cast` of the type the schema script gives it) so that a text time is typed however the
    rows mix them. A NULL is written in the statement, CAST(NULL AS type), never sent as a
    parameter: pyodbc asks the driver a NULL parameter's type (SQLDescribeParam), which
    Microsoft's ODBC Driver 18 answers by a call of sp_describe_undeclared_parameters for
    each, and Babelfish takes seconds over one of a long INSERT (200 rows of half NULLs took
    97 s to load through Driver 18, 1.7 s through FreeTDS or without the NULLs).

    `time_as_text`: send a time as its ISO text (CAST to the column's type by the server) to
    keep its fraction of a second, which ODBC's SQL_TIME_STRUCT cannot carry."""
    groups: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    for row in rows:
        unknown = set(row) - set(columns)
        if unknown:
            raise KeyError(f"{target} has no column {', '.join(sorted(unknown))}")
        groups.setdefault(tuple(row), []).append(row)
    for names, group in groups.items():
        if not names:  # a row of nothing but defaults
            for _ in group:
                cursor.execute(f"INSERT INTO {target} DEFAULT VALUES")
            continue
        types = {n: cast(columns[n]) for n in names}
        per = max(1, min(_ROWS_PER_INSERT, _PARAMS_PER_INSERT // len(names)))
        quoted = ", ".join(f'"{n}"' for n in names)
        for start in range(0, len(group), per):
            chunk = group[start:start + per]
            params, values = [], []
            for row in chunk:
                marks = []
                for name in names:
                    value = convert(row[name], columns[name])
                    if value is None:
                        marks.append(f"CAST(NULL AS {types[name]})")
                        continue
                    if time_as_text and isinstance(value, dt.time):
                        value = value.isoformat()
                    params.append(value)
                    marks.append(f"CAST(? AS {types[name]})")
                values.append("(" + ", ".join(marks) + ")")
            cursor.execute(f"INSERT INTO {target} ({quoted}) VALUES " + ", ".join(values),
                           params)
