"""The query runner: one connection per worker thread, named queries, streamed results.

`sqlite3` serves the embedded SQLite file; pyodbc (imported only when `database.odbc` is
set) serves SQL Server and any other ODBC source. Both are DB-API 2.0 with `?` placeholders.
Driver errors never leave this module raw: they become DatabaseUnavailable (503) or
QueryFailed (500), whose messages hold no SQL, driver text or connection string.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import logging
import math
import re
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

from ..model.collections import QueryName
from ..ops.config import DatabaseSettings
from ..ops.metrics import Metrics
from .failures import MappingFault, mapping_fault, sqlstate, unavailable_reason
from .filters import Filter
from .queries import Queries, query_name
from .sqltext import LONG_TEXT, declared, numbered
from .templates import Where

log = logging.getLogger("jembatan.db")

# database.sql's queries the database runs around the reads.
VERSION = QueryName("version")
PING = QueryName("ping")
FETCH_SIZE = 500  # rows per fetchmany: large enough to amortise the call, small in memory
COUNTS_KEPT = 256  # counts remembered per connection (one per collection and range asked)
CURSORS_KEPT = 32  # Driver 18: statements whose cursor (prepared handle) a connection keeps


class DatabaseUnavailable(Exception):
    """Unreachable, connection lost, busy or timed out: the client may retry (503)."""

    retry_after = 5  # seconds a client should wait, sent as Retry-After

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ValueRefused(Exception):
    """The database could not compare a filter's value with its column (SQLSTATE class 22,
    a data exception: 2**40 against a PostgreSQL integer column, say): the client's value
    does not fit this site's column, a 400."""


class QueryFailed(Exception):
    """The database refused a query (a site's SQL that does not fit its tables): a 500.

    `detail` holds the database's own words, for the log and `check-sql`, never a client;
    `fault`, what in the query's text it refused (a column, a table, the syntax), when it
    says: a mapping the database refuses, which the service answers 503 (app/core/mapped.py)."""

    def __init__(self, message: str, detail: str = "", fault: MappingFault | None = None,
                 query: str = ""):
        super().__init__(message)
        self.detail = detail or message
        self.fault = fault
        self.query = query  # its name in sql/<collection>.sql (by_key), where one failed


def mask_password(text: str) -> str:
    """Hide PWD=... and Password=... in a connection string or a driver message."""
    # A braced value may hold ';' and '}}' (an escaped '}'): mask up to the closing brace.
    return re.sub(r"(?i)\b(pwd|password)\s*=\s*(\{(?:[^}]|\}\})*\}|[^;]*)", r"\1=***", text)


# FreeTDS (1.3, and its master today) works out a typed date's day number with C's
# truncating division, which is right only from 1600-03-01 on: date(1, 1, 1) leaves it as day
# 0xFFFFFF, past 9999-12-31 (day 3,652,058), which Babelfish reads as 45935-06-17 and no SQL
# Server date can hold; 1582-01-01 arrives as 1582-01-02. Its text-to-date conversion
# ('0001-01-01' becomes 2001-01-01) is no better.
FREETDS_TYPED_DATES_FROM = dt.date(1600, 3, 1)


def bind(values: Mapping[str, Any], names: tuple[str, ...], typed: bool,
         typed_dates_from: dt.date = dt.date.min) -> tuple[Any, ...]:
    """The parameters of one query, in placeholder order.

    Over ODBC dates and times go as typed `date`/`time` parameters: SQL Server parses a
    string date by the session's DATEFORMAT, and under `SET DATEFORMAT dmy` '2026-11-05'
    would be 11 May. SQLite has no date type and stores ISO text, which compares in order.
    A date before `typed_dates_from` (one the driver cannot send typed) goes as 'YYYYMMDD',
    the one text form SQL Server reads alike under every DATEFORMAT and LANGUAGE; compared
    with a date it is converted to one, by type precedence.
    """
    out = []
    for name in names:
        value = values[name]
        if not typed and isinstance(value, dt.date | dt.time):
            value = value.isoformat()
        elif type(value) is dt.date and value < typed_dates_from:
            value = f"{value.year:04d}{value.month:02d}{value.day:02d}"
        out.append(value)
    return tuple(out)


SQL_ATTR_LOGIN_TIMEOUT = 103  # ODBC's connect-time limit; pyodbc's timeout= sets others too


class Watchdog:
    """Cancels ODBC statements that run past their deadline, from one thread of its own.

    Drivers differ: SQL Server's honours a query timeout, PostgreSQL's refuses the attribute
    and SQLite's ignores it; SQLCancel from another thread works on all three.

    SQLCancel is the one call ODBC allows on a statement that another thread is running; it
    must not outlive the statement, though. pyodbc lets go of the GIL both in cancel() and in
    close() (SQLFreeHandle), so a cancel still under way while the statement's thread closes
    its cursor would use a freed handle inside the driver: `done` waits for it to end. (Even
    then psqlODBC under unixODBC 2.3 can crash when cancels keep landing on a fetch that runs
    in another thread, as a loop of them shows; a deadline fires rarely, once a statement.)
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._watched: dict[int, tuple[float, Any]] = {}
        self._fired: set[int] = set()
        self._cancelling: set[int] = set()  # tokens whose cancel() is running now
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None
        self._wakes_at = float("inf")  # when the thread next looks, unless woken sooner

    def watch(self, seconds: float, cursor: Any) -> int:
        with self._cond:
            token = next(self._tokens)
            deadline = time.monotonic() + seconds
            self._watched[token] = (deadline, cursor)
            if self._thread is None:  # started in the worker process, after gunicorn forks
                self._thread = threading.Thread(target=self._run, name="query watchdog",
                                                daemon=True)
                self._thread.start()
            # Wake the thread only for a deadline before the time it will look anyway: a
            # stream watches each fetch, and waking a thread per batch costs real time.
            if deadline < self._wakes_at:
                self._wakes_at = deadline
                self._cond.notify_all()  # all: threads in done() wait on it too
            return token

    def done(self, token: int) -> bool:
        """Stop watching; True if the statement was cancelled for running too long. Returns
        only once no cancel() of it is running: the cursor may be closed next."""
        with self._cond:
            self._watched.pop(token, None)
            while token in self._cancelling:
                self._cond.wait()
            fired = token in self._fired
            self._fired.discard(token)
            return fired

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                expired = [(t, c) for t, (d, c) in self._watched.items() if d <= now]
                for token, _ in expired:
                    del self._watched[token]
                    self._fired.add(token)
                    self._cancelling.add(token)
                if not expired:
                    self._wakes_at = min((d for d, _ in self._watched.values()),
                                         default=float("inf"))
                    self._cond.wait(None if self._wakes_at == float("inf")
                                    else self._wakes_at - now)
                    continue
            for token, cursor in expired:
                try:
                    cursor.cancel()
                except Exception as exc:  # the statement may have just finished
                    log.debug("cancel failed: %s", exc)
                finally:
                    with self._cond:
                        self._cancelling.discard(token)
                        self._cond.notify_all()


# One round trip per read on SQL Server. pyodbc prepares every query that has parameters
# (SQLPrepare, SQLExecute) and binds them again at each execute; the drivers then send
# sp_prepexec, and sp_unprepare when the cursor is closed: two round trips. FreeTDS prepares
# again after any SQLBindParameter, so a kept cursor still costs sp_unprepare + sp_prepexec;
# it sends an ODBC call of a procedure whose arguments are all `?` as one RPC of that
# procedure, though, and nothing to unprepare: the query goes as sp_executesql's statement,
# with its parameters declared from their values (app/database/sqltext.py). Driver 18 sends
# such a call as sp_prepexecrpc (which Babelfish refuses) and its unprepare later; but it
# re-executes a kept cursor's prepared statement with one sp_prepexec and unprepares only
# when the cursor is closed: a statement's cursor is kept, per connection, for its next run.
SEND_AS_RPC = "rpc"  # FreeTDS: sp_executesql by an ODBC call
KEEP_CURSORS = "keep"  # Driver 18 (any other SQL Server driver): a cursor per statement


LONG_TEXT_SIZE = (-10, 0, 0)  # SQL_WLONGVARCHAR: sent whole, as nvarchar(max)


def executesql_call(params: int) -> str:
    """The ODBC call of sp_executesql with a statement, its declarations and `params`."""
    return "{call sp_executesql(" + ", ".join("?" * (params + 2)) + ")}"


class _Connection:
    """One DB-API connection of one thread, with what the runner needs to know about it."""

    def __init__(self, raw: Any, dialect: str | None, typed: bool,
                 typed_dates_from: dt.date = dt.date.min, sending: str | None = None):
        self.raw = raw
        self.dialect = dialect  # which `-- dialect:` variant applies, None for the main text
        self.typed = typed
        self.typed_dates_from = typed_dates_from  # earlier dates go as text (see bind)
        self.deadline = float("inf")  # for sqlite3's progress handler
        self.used = False  # has served a query: a failure may mean it went stale
        self.broken = False  # lost or unusable: the next request reconnects
        self.detached = False  # given up by its thread while a stream still reads from it
        # (stem, name, values) -> (database version, count); see Database.count
        self.counts: dict[tuple[Any, ...], tuple[Any, int]] = {}
        self.versioned = True  # until database.version answers NULL on this connection
        self.sending = sending  # SEND_AS_RPC, KEEP_CURSORS or None: how a query goes
        self.cursors: OrderedDict[str, Any] = OrderedDict()  # KEEP_CURSORS: idle, by text

    def sent(self, sql: str, params: tuple[Any, ...]
             ) -> tuple[str, tuple[Any, ...], list[Any] | None]:
        """The text and parameters that run `sql` with `params` in one round trip, and the
        input sizes to set first, if any (pyodbc's setinputsizes: long text as long text)."""
        if self.sending != SEND_AS_RPC or not params:
            return sql, params, None  # without parameters pyodbc sends the text as a batch
        sent = (numbered(sql), declared(params), *params)
        return executesql_call(len(params)), sent, [
            LONG_TEXT_SIZE if isinstance(v, str) and len(v) > LONG_TEXT else None for v in sent]

    def cursor(self, sql: str) -> Any:
        """The idle cursor kept for `sql`, else a new one."""
        kept = self.cursors.pop(sql, None)
        return kept if kept is not None else self.raw.cursor()

    def keep(self, sql: str, cursor: Any) -> bool:
        """Keep the cursor of `sql`, read to its end, for the next run (KEEP_CURSORS); whether
        it was kept (else the caller closes it)."""
        if self.sending != KEEP_CURSORS or self.broken or self.detached or sql in self.cursors:
            return False
        self.cursors[sql] = cursor
        if len(self.cursors) > CURSORS_KEPT:
            _, oldest = self.cursors.popitem(last=False)
            with contextlib.suppress(Exception):  # its unprepare fails on a lost link
                oldest.close()
        return True

    def close(self) -> None:
        try:
            self.raw.close()
        except Exception:  # closing a broken connection can fail; it is gone either way
            pass


class Result:
    """An executed query: its column names and its rows in batches; close() when done."""

    def __init__(self, db: Database, conn: _Connection, cursor: Any, what: str,
                 values: Mapping[str, Any], query: QueryName, started: float, sql: str = ""):
        self._db, self._conn, self._cursor, self.what = db, conn, cursor, what
        self._sql = sql  # the text it ran, by which its cursor may be kept
        self.query = query  # the query it answers, whose kind its metrics are counted by
        self._values = values
        # When the query was sent (time.monotonic()): execute() itself is the database's
        # work for a sort or a scan before the first row (sqlite3 steps to the first row).
        self._started = started
        self._closed = False
        self._kept = False  # its cursor kept by the connection for the next run of _sql
        self.columns: tuple[str, ...] = tuple(map(itemgetter(0), cursor.description or ()))
        self._ahead: list[list[tuple[Any, ...]]] = []  # batches read before they are asked
        self.ended = False  # the last row has been read

    @property
    def connection(self) -> _Connection:
        return self._conn

    def _fetch(self) -> list[tuple[Any, ...]]:
        with self._db.deadline(self._conn, self._cursor) as timed_out:
            try:
                return self._cursor.fetchmany(FETCH_SIZE)
            except Exception as exc:
                fired = timed_out()  # first: it waits for a cancel still running (Watchdog)
                self.close()
                raise self._db.failure(exc, self.what, self._conn, self.query, fired) from None

    def read_ahead(self, rows: int) -> bool:
        """Read now, until `rows` rows are held or the result ends; whether it ended.

        A failure here is still an error response (503), not a stream that breaks off."""
        held = sum(map(len, self._ahead))
        while not self.ended and held < rows:
            batch = self._fetch()
            if not batch:
                self.ended = True
                break
            self._ahead.append(batch)
            held += len(batch)
        return self.ended

    def batches(self) -> Iterator[list[tuple[Any, ...]]]:
        try:
            while self._ahead:
                yield self._ahead.pop(0)
            while not self.ended:
                rows = self._fetch()
                if not rows:
                    self.ended = True
                    break
                yield rows
        finally:
            self.close()

    def all(self) -> list[tuple[Any, ...]]:
        return [row for batch in self.batches() for row in batch]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            took = time.monotonic() - self._started
            if self._db.metrics is not None:
                self._db.metrics.query(self.query.kind, took)
            if 0 < self._db.slow_query < took:
                log.warning("slow query %s took %.2f s, parameters %s", self.what, took,
                            {k: str(v) for k, v in self._values.items()})
        # Kept (on the first close) for the next run of its text: never closed here again,
        # though close() may be called more than once (a stream's end, then the request's).
        if self._kept or (self.ended and self._conn.keep(self._sql, self._cursor)):
            self._kept = True
            if self._conn.detached:
                self._conn.close()
            return
        try:
            self._cursor.close()
        except Exception:  # a dead connection's cursor may fail to close; nothing to do
            pass
        if self._conn.detached:  # its thread moved on to a new connection: ours to close
            self._conn.close()

    def abandon(self) -> None:
        """The request is over but a reader still holds this result's connection: let the
        request thread connect afresh, and the reader close the old connection when done."""
        self._db.detach(self._conn)


class Database:
    """Runs named queries; the single place connections are made and errors classified."""

    def __init__(self, settings: DatabaseSettings, queries: Queries, slow_query: float = 0,
                 metrics: Metrics | None = None):
        self.settings = settings
        self.queries = queries
        self.slow_query = slow_query  # seconds; a query that takes longer is logged
        self.metrics = metrics
        self._local = threading.local()
        self._watchdog = Watchdog()
        if settings.odbc:
            self.kind = "odbc"
            self.describe = "ODBC " + mask_password(settings.odbc)
        else:
            self.kind = "sqlite3"
            self.describe = f"SQLite {settings.sqlite}"
            # Refuse at start rather than answer 503 forever (and never create an empty file).
            if not settings.sqlite.is_file():
                raise FileNotFoundError(
                    f"database.sqlite: {settings.sqlite} does not exist. Create the demo "
                    f"database with `jembatan demo-db`, or set JEMBATAN_SQLITE or "
                    f"database.sqlite to an existing SQLite file.")

    # -- connections ---------------------------------------------------------------------

    def _connect(self) -> _Connection:
        if self.kind == "sqlite3":
            uri = self.settings.sqlite.resolve().as_uri() + "?mode=ro"
            # check_same_thread=False: a stream's reader thread uses the request's connection
            # while the request thread only sends the spooled bytes.
            raw = sqlite3.connect(uri, uri=True, isolation_level=None,
                                  timeout=self.settings.connect_timeout,
                                  check_same_thread=False)
            conn = _Connection(raw, "sqlite", typed=False)
            # sqlite3 has no statement timeout: abort a step that runs past the deadline.
            raw.set_progress_handler(lambda: time.monotonic() > conn.deadline, 10_000)
            return conn
        import pyodbc  # only here: the pyodbc wheel needs the system's libodbc

        # ODBC counts whole seconds, and 0 means no limit: round up.
        raw = pyodbc.connect(self.settings.odbc, autocommit=True, readonly=True, attrs_before={
            SQL_ATTR_LOGIN_TIMEOUT: math.ceil(self.settings.connect_timeout)})
        try:  # the driver's own query timeout where it has one (SQL Server's); see Watchdog
            raw.timeout = math.ceil(self.settings.query_timeout)
        except pyodbc.Error:
            pass
        dbms = str(raw.getinfo(pyodbc.SQL_DBMS_NAME) or "")
        freetds = str(raw.getinfo(pyodbc.SQL_DRIVER_NAME) or "").startswith("libtdsodbc")
        dialect = dialect_of(dbms)
        sending = None if dialect is not None else SEND_AS_RPC if freetds else KEEP_CURSORS
        if sending == SEND_AS_RPC:
            raw.maxwrite = 1 << 30  # bound whole: FreeTDS puts no data-at-execution in an RPC
        return _Connection(raw, dialect, typed=True, sending=sending,
                           typed_dates_from=FREETDS_TYPED_DATES_FROM if freetds
                           else dt.date.min)

    def _connection(self) -> _Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and conn.broken:
            conn.close()
            conn = self._local.conn = None
        if conn is None:
            try:
                conn = self._connect()
            except Exception as exc:
                reason = unavailable_reason(exc)  # "login failed" says what to mend
                if reason in (None, "connection lost", "query timed out"):
                    reason = "cannot connect to the database"
                log.error("cannot connect to %s: %s (%s)", self.describe, reason,
                          mask_password(str(exc)))
                if self.metrics is not None:
                    self.metrics.database_error(reason)
                raise DatabaseUnavailable(reason) from None
            self._local.conn = conn
        return conn

    def release(self) -> None:
        """Close this thread's connection, if it has one: the start's (app/console/serving.py),
        whose thread serves no request, so that it does not hold a session of the server."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            conn.close()

    def detach(self, conn: _Connection) -> None:
        """This thread stops using `conn` (a stream's reader still does)."""
        conn.detached = True
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None

    @contextlib.contextmanager
    def deadline(self, conn: _Connection, cursor: Any) -> Iterator[Callable[[], bool]]:
        """Bound one database call by query_timeout; yields "did it time out?"."""
        seconds = self.settings.query_timeout
        if not conn.typed:  # sqlite3: its progress handler checks the deadline
            conn.deadline = time.monotonic() + seconds
            yield lambda: False
            return
        token = self._watchdog.watch(seconds, cursor)
        fired = False

        def timed_out() -> bool:
            nonlocal fired
            fired = fired or self._watchdog.done(token)
            return fired
        try:
            yield timed_out
        finally:
            timed_out()

    def failure(self, exc: Exception, what: str, conn: _Connection, query: QueryName,
                timed_out: bool = False, will_retry: bool = False) -> Exception:
        """Classify a driver error of `query` (`what`: where it is, stem.name), log it with
        its detail, return what to raise instead.

        `will_retry`: the query will run again on a fresh connection, so an error that
        looks like the query's own is not yet counted as one (see execute)."""
        reason = "query timed out" if timed_out else unavailable_reason(exc)
        detail = mask_password(str(exc))
        if reason is None and will_retry:
            log.warning("query %s failed on a connection that had served before, trying a "
                        "fresh one: %s", what, detail)
            conn.broken = True
            return QueryFailed(f"query {what} failed", detail)
        if self.metrics is not None:
            self.metrics.database_error(reason)
        if reason is None:
            log.error("query %s failed: %s", what, detail)
            return QueryFailed(f"query {what} failed", detail, mapping_fault(exc),
                               str(query))
        log.warning("query %s: %s (%s)", what, reason, detail)
        # A cancelled query leaves the connection usable on most drivers; where it does not
        # (FreeTDS gives up on the link when the server is slow to answer the cancel), the
        # next query finds it lost and runs again on a fresh one (execute).
        if reason != "query timed out":
            conn.broken = True
        return DatabaseUnavailable(reason)

    # -- queries -------------------------------------------------------------------------

    def execute(self, stem: str, name: QueryName | str, values: Mapping[str, Any] | None = None,
                filters: Sequence[Filter] = (), by: tuple[str, ...] = (),
                table: tuple[str, ...] = ()) -> Result:
        """Run `name` of sql/<stem>.sql, with `filters` if any (composed into its text here,
        app/database/templates.py Where), a summary's groups `by`, or the site's `table` (schema,
        name) it reads; the rows are read from the Result as they are used.

        A query that fails on a connection that has served before, other than by running
        too long or by refusing a filter's value, runs once more on a fresh connection,
        whatever the driver called the failure: after a database restart FreeTDS's first
        error on a pooled connection is HY000 "Unknown error", not a lost link. If the fresh
        connection cannot be made or is lost too, the answer is 503; only an error that
        repeats on a fresh, working connection is the query's own (500).
        """
        name = query_name(name)
        what = f"{stem}.{name}"
        where = Where.of(filters)
        if where is not None:
            values = {**(values or {}), **where.values}
        while True:
            conn = self._connection()
            query = self.queries.get(stem, name, conn.dialect, where, by, table)
            params = bind(values or {}, query.params, conn.typed, conn.typed_dates_from)
            sql, params, sizes = conn.sent(query.sql, params)
            cursor = None
            error: Exception | None = None
            try:
                cursor = conn.cursor(sql)
            except Exception as exc:  # only a closed or dead connection refuses a cursor
                log.warning("query %s: no cursor (%s)", what, mask_password(str(exc)))
                conn.broken = True
                error = DatabaseUnavailable("connection lost")
            started = time.monotonic()
            if cursor is not None:
                with self.deadline(conn, cursor) as timed_out:
                    try:
                        if sizes:
                            cursor.setinputsizes(sizes)
                        cursor.execute(sql, params)
                    except Exception as exc:
                        if where is not None and sqlstate(exc).startswith("22"):
                            error = ValueRefused(f"query {what} refused a filter value: "
                                                 f"{mask_password(str(exc))}")
                        else:
                            error = self.failure(exc, what, conn, name, timed_out(), conn.used)
            if error is None:
                conn.used = True
                return Result(self, conn, cursor, what, values or {}, name, started, sql)
            if cursor is not None:
                try:
                    cursor.close()
                except Exception:  # the error that matters is the one being raised
                    pass
            if conn.used and conn.broken:
                log.info("query %s: reconnecting and trying once more", what)
                continue  # with a new connection, whose failure is final
            raise error

    def scalar(self, stem: str, name: QueryName | str, values: Mapping[str, Any] | None = None,
               filters: Sequence[Filter] = ()) -> int:
        """The first column of the first row as an integer (counts; ODBC may send text)."""
        return _first_int(self.execute(stem, name, values, filters).all())

    def count(self, stem: str, name: QueryName | str, values: Mapping[str, Any] | None = None,
              filters: Sequence[Filter] = ()) -> int:
        """A count query's answer, kept per connection for as long as the database's version
        (database.version) stays the same.

        Every page carries its total (X-Pagination), and on SQLite a COUNT(*) of a million
        rows takes about 2 ms, a tenth of a deep page. SQLite's data_version changes as soon
        as another connection commits, so a kept count is never stale. The version is read
        before the count: a commit in between makes the next request count again. Where the
        main text answers NULL (SQL Server, PostgreSQL), the count runs every time, and the
        version is not asked again on that connection.
        """
        if not self._connection().versioned:  # its version query answered NULL before
            return self.scalar(stem, name, values, filters)
        found = self.execute("database", VERSION)
        conn, rows = found.connection, found.all()
        version = rows[0][0] if rows else None
        if version is None:
            conn.versioned = False  # no round trip for it again on this connection
            return self.scalar(stem, name, values, filters)
        key = (stem, name, tuple(sorted((values or {}).items())), tuple(filters))
        kept = conn.counts.get(key)
        if kept is not None and kept[0] == version:
            return kept[1]
        result = self.execute(stem, name, values, filters)
        total = _first_int(result.all())
        if result.connection is conn:  # not a connection made afresh in between
            if len(conn.counts) >= COUNTS_KEPT:
                del conn.counts[next(iter(conn.counts))]  # the oldest
            conn.counts[key] = (version, total)
        return total

    def dialect(self) -> str | None:
        """The `-- dialect:` whose texts this database runs (None: the main texts)."""
        return self._connection().dialect

    def ping(self) -> None:
        """One round trip to the server, for /health."""
        self.execute("database", PING).all()


def dialect_of(dbms: str) -> str | None:
    """The `-- dialect:` an ODBC source runs, by the name it gives itself (SQL_DBMS_NAME):
    SQLite's and PostgreSQL's where a text needs one, else the main texts (SQL Server)."""
    name = dbms.lower()
    return next((d for d in ("sqlite", "postgresql") if name.startswith(d)), None)


def _first_int(rows: list[tuple[Any, ...]]) -> int:
    return int(rows[0][0]) if rows and rows[0][0] is not None else 0
