"""Database trouble over TDS is a 503, never a 500: gunicorn serving Jembatan
through pyodbc and each driver plants install (FreeTDS at TDS 7.4, Microsoft's ODBC Driver
18) to a T-SQL server of this module's own (Babelfish, from ../shared/tsql, on free
ports), which is stopped between requests, stopped or crashed while connections sit idle in
a worker's pool and then started again, slower than query_timeout, asked with a wrong
password, at its connection limit; and a port that accepts TCP but never answers TDS. No
mocks: the server really goes away.

Every 503 is checked as docs/api.md §9 writes it: the error body (or /health's
{"status": "unavailable", "database": <reason>}), Retry-After: 5, and no password,
connection string, SQL text or driver message in the body, nor the password in the log.

The drivers word the same fault differently and take their own time over it (STALE_ERRORS,
REFUSED, GIVES_UP_WITHIN); Jembatan's answers are the same.

The server is stopped in the middle of a stream in tests/test_tds_drivers.py (a broken
chunked transfer, counted in /metrics), not again here.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from app.model.tables import column_types
from app.ops.config import SHIPPED_SQL_DIR
from tests.contract import expected
from tests.helpers import value
from tests.mssql import DRIVERS, FREETDS, MSODBC18, Kit, odbc_string, require_driver, started
from tests.servers import ODBC_CONNECT_TIMEOUT, Running, free_port, serve_odbc, workers

PASSWORD = "Jembatan-test-1"  # ../shared/tsql/start's; never in a body or a log
APP_NAME = "jembatan-tsql-faults"  # APP= (both drivers): Jembatan's sessions on the server

# A pooled connection's first error once its server has gone (stopped, or stopped and back),
# as each driver words it here, the first the one a stop between requests gave every time:
# FreeTDS's HY000 "Unknown error" (app/database/db.py cannot tell it from a query's own error, so
# the query runs once more on a fresh connection) or, when the server's goodbye has reached
# it first, its 08S01; Driver 18's 08S01 from its TCP provider, the link reset by the peer
# (10054).
STALE_ERRORS = {
    FREETDS: ("[HY000] [FreeTDS][SQL Server]Unknown error (0)",
              "[08S01] [FreeTDS][SQL Server]Communication link failure"),
    MSODBC18: ("[08S01] [Microsoft][ODBC Driver 18 for SQL Server]TCP Provider: "
               "Error code 0x2746 (10054)",),
}
# A connection to the stopped server's port (refused TCP), as each driver words it here:
# FreeTDS at once; Driver 18 only when the login timeout is over (it tries again meanwhile).
REFUSED = {
    FREETDS: "[08S01] [FreeTDS][SQL Server]Unable to connect: Adaptive Server is unavailable "
             "or does not exist (20009)",
    MSODBC18: "[HYT00] [Microsoft][ODBC Driver 18 for SQL Server]Login timeout expired",
}

CUSTOMERS = [{"id": 1, "CustCode": "SUP001"}, {"id": 2, "CustCode": "SUP002"}]
TRANSACTIONS = [{"id": n, "tgl_dt1": "20261101", "jam_dt1": f"0{n}:00:00",
                 "vehno": f"L {n}"} for n in range(1, 4)]

# One read of each kind: a list, a page, a record by key, a date range (paged: its count too).
DATA_PATHS = {"list": "/customers", "page": "/customers/page/1?page_size=1",
              "key": "/customers/1",
              "range": "/transactions/date/2026-11-01/00:00/2026-11-01/23:59?page=1"}
CUSTOMERS_JSON = [expected("customers", r) for r in CUSTOMERS]


class Server(Kit):
    """tests/test_tds_drivers.py's server on free ports, stopped and resumed at will."""

    def stop(self, immediate: bool = False) -> None:
        self.run("stop", *(["--immediate"] if immediate else []))

    def resume(self) -> None:
        assert self.run("resume") == self.printed

    def restart(self) -> None:
        self.stop()
        self.resume()

    def sessions(self) -> int:
        """Jembatan's sessions on the server now."""
        return int(self.psql(f"SELECT count(*) FROM pg_stat_activity "
                             f"WHERE application_name = '{APP_NAME}'"))

    def cancel_runaway(self) -> int:
        """Cancel the count of SLOW_ALL where it still runs; how many were."""
        return self.cancel('"digits" AS "d8"')

    def check_passwords(self) -> None:
        """Make TDS logins over 127.0.0.1 prove their password, as SQL Server's do: start's
        cluster trusts every local login (initdb -A trust), and Babelfish's TDS listener
        takes `md5` (or `password`), not scram-sha-256."""
        hba = self.state / "data" / "pg_hba.conf"
        text, n = re.subn(r"(?m)^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust$",
                          "host all all 127.0.0.1/32 md5", hba.read_text())
        assert n == 1, hba.read_text()
        hba.write_text(text)
        assert self.psql("SELECT pg_reload_conf()") == "t"


def create_tables(odbc: str) -> None:
    """customers and transactions with SQL Server's column types, and `digits` (0-9) for a
    query that takes long."""
    import pyodbc

    with contextlib.closing(pyodbc.connect(odbc, autocommit=True)) as conn:
        cursor = conn.cursor()
        types = column_types("mssql")
        for table, rows in (("customers", CUSTOMERS), ("transactions", TRANSACTIONS)):
            cursor.execute(f'CREATE TABLE "{table}" ('
                           + ", ".join(f'"{n}" {t}' for n, t in types[table].items()) + ")")
            for row in rows:
                cursor.execute(f'INSERT INTO "{table}" (' + ", ".join(f'"{n}"' for n in row)
                               + ") VALUES (" + ", ".join("?" for _ in row) + ")",
                               list(row.values()))
        cursor.execute('CREATE TABLE "digits" ("d" int)')
        cursor.execute('INSERT INTO "digits" VALUES (0), (1), (2), (3), (4), (5), (6), (7), '
                       '(8), (9)')


def _prepare(tsql: Server) -> None:
    tsql.check_passwords()
    create_tables(tsql.odbc())


@pytest.fixture(scope="module")
def module_server() -> Iterator[Server]:
    with started(Server(), _prepare) as tsql:
        yield tsql


@pytest.fixture
def tsql(module_server: Server) -> Server:
    """The server, running (a test before may have stopped it)."""
    module_server.resume()
    return module_server


@pytest.fixture(scope="module", params=DRIVERS)
def driver(request: pytest.FixtureRequest) -> str:
    """Each driver in turn: FreeTDS (TDS 7.4), Driver 18."""
    return request.param


@pytest.fixture
def odbc(tsql: Server, driver: str) -> str:
    """The running server's string for the driver (a test may name the driver itself)."""
    require_driver(driver)
    return tsql.odbc(driver)


# How the server goes away: stopped, or crashed (--immediate). FreeTDS's first error after
# it is the race of the server's goodbye (STALE_ERRORS), so both; Driver 18 said 10054 after
# either, so the crash alone (each of its cases takes seconds more: it waits out the login
# timeout on a refused port).
STOPS = {"freetds-stop": (FREETDS, False), "freetds-stop-immediate": (FREETDS, True),
         "msodbc18-stop-immediate": (MSODBC18, True)}


@contextlib.contextmanager
def serve(odbc: str, work: Path, threads: int = 1, **database: object) -> Iterator[Running]:
    """One worker (with `threads` threads) serving Jembatan from `odbc`, as APP_NAME."""
    with serve_odbc(f"{odbc};APP={APP_NAME}", work, threads, ("customers", "transactions"),
                    **database) as web:
        yield web


def timed_get(web: Running, path: str) -> tuple[requests.Response, float]:
    start = time.monotonic()
    response = requests.get(web.base + path, timeout=30)
    return response, time.monotonic() - start


# What a body must never hold: the password, the connection string, SQL, the driver's words.
LEAKS = (PASSWORD, "PWD", "UID=", "Driver=", "FreeTDS", "SQL Server", "Microsoft", "ODBC",
         "TCP Provider", "SELECT", "FROM", '"records"', "HY000", "08S01", "42000", "HYT00",
         "SQLDriverConnect", "SQLExecDirect")


def assert_unavailable(response: requests.Response, reason: str) -> None:
    """A 503 as docs/api.md §9 has it, for a record route or /health."""
    assert response.status_code == 503, (response.status_code, response.text)
    assert response.headers.get("Retry-After") == "5", response.headers
    if response.url.endswith("/health"):
        assert response.json() == {"status": "unavailable", "database": reason}
    else:
        assert response.json() == {
            "code": 503, "status": "Service Unavailable",
            "message": f"The database is unavailable ({reason}); try again in a few seconds."}
    for leak in LEAKS:
        assert leak not in response.text, (leak, response.text)
    for leak in ("pwd=", "uid=", "driver=", "server=", PASSWORD.lower()):
        assert leak not in response.text.lower(), (leak, response.text)


def assert_no_password(web: Running, *passwords: str) -> None:
    log = web.log()
    for password in (PASSWORD, *passwords):
        assert password not in log, f"{password!r} in gunicorn's log"


def database_lines(web: Running) -> list[str]:
    """What the worker logged of the driver's errors (for the report with -s)."""
    return [line for line in web.log().splitlines()
            if re.search(r"query \S+ failed|query \S+: |cannot connect", line)]


def metrics(web: Running, counted: Callable[[dict], bool] = lambda found: True
            ) -> dict[Any, float]:
    return web.scrape(counted)


def no_500(found: dict[Any, float]) -> None:
    for kind in ("list", "page", "key", "range", "summary", "meta"):
        assert value(found, "jembatan_requests_total", kind=kind, status="500") == 0, kind
    assert value(found, "jembatan_database_errors_total", kind="query_failed") == 0


def all_ok(web: Running) -> None:
    """Every kind of read answers 200; the list with its records."""
    for kind, path in DATA_PATHS.items():
        response = requests.get(web.base + path, timeout=30)
        assert response.status_code == 200, (kind, response.status_code, response.text)
    assert requests.get(web.base + "/customers", timeout=30).json() == CUSTOMERS_JSON


# -- a. stopped between requests ---------------------------------------------------------------


@pytest.mark.parametrize(("driver", "immediate"), STOPS.values(), ids=STOPS.keys())
def test_server_stopped_between_requests_is_503(tsql: Server, driver: str, odbc: str,
                                                tmp_path: Path, immediate: bool) -> None:
    """Every read and /health: 503 "cannot connect to the database" once the driver gives up
    on the refused port, never 500: the pooled connection's first error (STALE_ERRORS) is
    tried again on a fresh connection, which cannot be made. Back: 200 from the same
    worker."""
    with serve(odbc, tmp_path) as web:
        all_ok(web)  # the worker's connection is made, and has served
        before = workers(web)
        tsql.stop(immediate)
        for kind, path in DATA_PATHS.items():
            response, took = timed_get(web, path)
            print(f"server stopped: GET {path} -> {response.status_code} in {took:.3f} s")
            assert_unavailable(response, "cannot connect to the database")
            assert took < ODBC_CONNECT_TIMEOUT + 1, (kind, took)
        response, took = timed_get(web, "/health")
        assert_unavailable(response, "cannot connect to the database")
        assert took < ODBC_CONNECT_TIMEOUT + 1
        found = metrics(web, lambda found: all(value(
            found, "jembatan_requests_total", kind=kind, status="503") for kind in DATA_PATHS))
        # One failed connection per request, and a 503 of each kind. The stale connection's
        # error counts only where the driver called it a lost link (Driver 18): FreeTDS's
        # "Unknown error" was a query's, tried again.
        assert value(found, "jembatan_database_errors_total", kind="unreachable",
                     reason="cannot connect to the database") == len(DATA_PATHS) + 1
        assert value(found, "jembatan_database_errors_total", kind="unreachable",
                     reason="connection lost") == STALE_ERRORS[driver][0].startswith("[08S01]")
        for kind in DATA_PATHS:
            assert value(found, "jembatan_requests_total", kind=kind, status="503") == 1, kind
        no_500(found)
        log = web.log()
        # The pooled connection's error, tried again; then the refusal.
        assert STALE_ERRORS[driver][0] in log and "reconnecting and trying once more" in log
        assert log.count(REFUSED[driver]) == len(DATA_PATHS) + 1
        print("\n".join(database_lines(web)))

        tsql.resume()
        all_ok(web)
        assert requests.get(web.base + "/health", timeout=30).json() == {
            "status": "ok", "database": "ok"}
        assert workers(web) == before
        assert "Internal Server Error" not in web.log()
        assert_no_password(web)


# -- b, c. stopped or crashed while connections sit idle, then back ---------------------------

THREADS = 2


def burst(web: Running, n: int) -> list[requests.Response]:
    """n reads at once (so that each of the worker's threads serves some)."""
    paths = [list(DATA_PATHS.values())[i % len(DATA_PATHS)] for i in range(n)]
    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda p: requests.get(web.base + p, timeout=30), paths))


@pytest.mark.parametrize(("driver", "immediate"), STOPS.values(), ids=STOPS.keys())
def test_idle_connections_after_the_server_returns_serve_at_once(
        tsql: Server, driver: str, odbc: str, tmp_path: Path, immediate: bool) -> None:
    """Each thread of the worker holds a connection; the server stops (or crashes) and comes
    back while they sit idle. Each stale connection's first query then fails (STALE_ERRORS):
    it is run again on a fresh connection, so the first request after the
    server's return is a 200, /health at once, and every later one 200."""
    with serve(odbc, tmp_path, threads=THREADS) as web:
        deadline = time.monotonic() + 20
        while tsql.sessions() < THREADS:  # every thread has made its connection
            assert all(r.status_code == 200 for r in burst(web, 8))
            assert time.monotonic() < deadline, f"{tsql.sessions()} sessions of {THREADS}"
        assert tsql.sessions() == THREADS
        before = workers(web)

        tsql.stop(immediate)
        tsql.resume()
        response, took = timed_get(web, "/health")
        print(f"server back: GET /health -> {response.status_code} {response.text.strip()} "
              f"in {took:.3f} s")
        assert response.status_code == 200, (response.text, web.log()[-3000:])
        assert response.json() == {"status": "ok", "database": "ok"}
        # At once: no login timeout (database.connect_timeout, 5 s) waited out. About 0.6 s on a
        # quiet machine (a fresh login and the check); 1.3 s once on a loaded one.
        assert took < 4

        # Until both stale connections have been met (and replaced), every answer is 200.
        # A stale connection's first error is HY000 "Unknown error" or, when the server's
        # goodbye has reached FreeTDS first, 08S01 "Communication link failure" (a lost
        # link, counted as unreachable): which one is the race of the stop, and either way
        # the query runs again on a fresh connection ("reconnecting").
        retried = "reconnecting and trying once more"
        deadline = time.monotonic() + 20
        while web.log().count(retried) < THREADS:
            for response in burst(web, 8):
                assert response.status_code == 200, (response.status_code, response.text)
            assert time.monotonic() < deadline, web.log()[-3000:]
        log = web.log()
        assert log.count(retried) == THREADS  # each once
        unknown, lost = log.count("trying a fresh one"), log.count(": connection lost (")
        assert unknown + lost + log.count(": no cursor (") == THREADS, log[-3000:]
        stale = [line for line in log.splitlines()
                 if "trying a fresh one" in line or ": connection lost (" in line]
        assert all(any(error in line for error in STALE_ERRORS[driver]) for line in stale), stale
        all_ok(web)
        assert tsql.sessions() == THREADS
        print("\n".join(database_lines(web)))

        found = metrics(web)
        no_500(found)
        assert value(found, "jembatan_database_errors_total", kind="unreachable") == lost
        assert sum(value(found, "jembatan_requests_total", kind=k, status="503")
                   for k in DATA_PATHS) == 0
        assert workers(web) == before
        assert "Internal Server Error" not in web.log()
        assert_no_password(web)


# -- e. a query past query_timeout -------------------------------------------------------------

# A site's own `all` for customers that counts 10**9 rows first (a minute here); its other
# reads stay quick. T-SQL has no sleep inside a SELECT.
SLOW_ALL = ('\n-- name: all\nSELECT {fields} FROM "records"\nCROSS JOIN (SELECT COUNT(*) '
            'AS "n" FROM ' + " CROSS JOIN ".join(f'"digits" AS "d{n}"' for n in range(9))
            + ') AS "slow"\nORDER BY {order};\n')
QUERY_TIMEOUT = 2
# How long the 503 may take, by driver: Babelfish answers an attention only once this plan
# ends, so the driver gives up on its own. FreeTDS sends the attention at query_timeout and
# gives the server as long again to answer it (4.0 s seen). Driver 18 gives up on a
# connection whose server "failed to respond to a command cancellation ... in a timely
# manner" after one or two more query_timeouts (4.0 s twice, 6.0 s once seen): the
# watchdog's SQLCancel meeting the driver's own attention may start its wait again.
GIVES_UP_WITHIN = {FREETDS: 2 * QUERY_TIMEOUT + 1.5, MSODBC18: 3 * QUERY_TIMEOUT + 1.5}


def test_a_query_past_query_timeout_is_503_and_the_connection_serves_on(
        tsql: Server, driver: str, odbc: str, tmp_path: Path) -> None:
    """503 "query timed out" after about query_timeout; the worker serves the next request
    (the driver has dropped the timed-out connection: its next query fails with 08S01 and
    runs again on a fresh one)."""
    sql = tmp_path / "sql"
    shutil.copytree(SHIPPED_SQL_DIR, sql)
    (sql / "customers.sql").write_text((sql / "customers.sql").read_text() + SLOW_ALL)
    with serve(odbc, tmp_path, query_timeout=QUERY_TIMEOUT,
               sql_dir=str(sql)) as web:
        before = workers(web)
        response, took = timed_get(web, "/customers")
        print(f"query past query_timeout={QUERY_TIMEOUT}: GET /customers -> "
              f"{response.status_code} in {took:.3f} s")
        assert_unavailable(response, "query timed out")
        # After query_timeout, not when the count is done (a minute): the driver's own
        # timeout sends an attention at query_timeout (the watchdog's SQLCancel sends one
        # too), and the driver waits for the answer as GIVES_UP_WITHIN says.
        assert took < GIVES_UP_WITHIN[driver]
        found = metrics(web)
        assert value(found, "jembatan_database_errors_total", kind="timeout") == 1
        # Babelfish reads the attention only once this plan ends, so its backend goes on
        # counting after FreeTDS gave up (SQL Server stops at the attention): end it here,
        # so that the next request does not share two CPUs with it.
        runaway = tsql.cancel_runaway()
        print(f"the count still running on the server after the 503: {runaway}")
        assert runaway <= 1
        # The same worker answers the next requests.
        response = requests.get(web.base + "/customers/2", timeout=30)
        assert response.status_code == 200, (response.text, web.log()[-3000:])
        assert response.json() == CUSTOMERS_JSON[1]
        response = requests.get(web.base + "/health", timeout=30)
        assert response.json() == {"status": "ok", "database": "ok"}
        assert workers(web) == before
        no_500(metrics(web))
        print("\n".join(database_lines(web)))
        assert_no_password(web)


# -- f. a wrong password -----------------------------------------------------------------------

WRONG_PASSWORD = "Wrong-pw-4711"


def test_a_wrong_password_is_503_login_failed(tsql: Server, driver: str,
                                              tmp_path: Path) -> None:
    """The server refuses the login (18456, with the module's pg_hba.conf: see
    Server.check_passwords): 503 "login failed", which says what to mend; neither password
    in a body or the log."""
    odbc = odbc_string(tsql.printed.replace(f"PWD={PASSWORD};", f"PWD={WRONG_PASSWORD};"),
                       driver)
    assert f"PWD={WRONG_PASSWORD};" in odbc
    with serve(odbc, tmp_path) as web:
        response, took = timed_get(web, "/health")
        print(f"wrong password: GET /health -> {response.status_code} "
              f"{response.text.strip()} in {took:.3f} s")
        assert_unavailable(response, "login failed")
        for path in DATA_PATHS.values():
            response, took = timed_get(web, path)
            assert_unavailable(response, "login failed")
            assert WRONG_PASSWORD not in response.text
        assert took < ODBC_CONNECT_TIMEOUT + 1
        found = metrics(web)
        assert value(found, "jembatan_database_errors_total", kind="unreachable",
                     reason="login failed") >= 5
        no_500(found)
        assert "PWD=***" in web.log()  # the connection string is logged, masked
        print("\n".join(database_lines(web)))
        assert_no_password(web, WRONG_PASSWORD)


# -- g. a port that accepts but never answers TDS ----------------------------------------------


@contextlib.contextmanager
def silent_listener(port: int) -> Iterator[list[socket.socket]]:
    """Accepts TCP connections on `port` and never says a word."""
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(0.2)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            accepted.append(conn)

    thread = threading.Thread(target=run, name="silent listener", daemon=True)
    thread.start()
    try:
        yield accepted
    finally:
        stop.set()
        thread.join(5)
        listener.close()
        for conn in accepted:
            conn.close()


def test_a_port_that_never_answers_tds_is_503_within_connect_timeout(
        tsql: Server, driver: str, tmp_path: Path) -> None:
    """TCP is accepted but no TDS login answer comes: the driver gives up at connect_timeout
    (HYT00), a 503 "cannot connect to the database", not a request hanging."""
    port = free_port()
    odbc = tsql.odbc(driver, port=port)
    # gunicorn starts while nothing listens there (a refusal: its first /health answers at
    # once through FreeTDS, after connect_timeout through Driver 18), then the port accepts
    # and stays silent.
    with serve(odbc, tmp_path) as web, silent_listener(port) as accepted:
        for path in ("/health", DATA_PATHS["key"]):
            response, took = timed_get(web, path)
            print(f"silent port: GET {path} -> {response.status_code} in {took:.3f} s")
            assert_unavailable(response, "cannot connect to the database")
            assert ODBC_CONNECT_TIMEOUT - 0.5 < took < ODBC_CONNECT_TIMEOUT + 1, (path, took)
        assert len(accepted) == 2  # each request did reach the port
        no_500(metrics(web))
        print("\n".join(database_lines(web)))
        assert_no_password(web)


# -- h. the server at its connection limit -----------------------------------------------------

MAX_CONNECTIONS = 12


@contextlib.contextmanager
def connection_limit(tsql: Server, limit: int) -> Iterator[None]:
    """PostgreSQL's max_connections, which Babelfish's TDS logins count against, lowered
    (a restart) and put back afterwards."""
    tsql.psql(f"ALTER SYSTEM SET max_connections = {limit}")
    tsql.restart()
    try:
        assert tsql.psql("SHOW max_connections") == str(limit)
        yield
    finally:
        tsql.psql("ALTER SYSTEM RESET max_connections")
        tsql.restart()


def test_the_server_at_its_connection_limit_is_503(tsql: Server, odbc: str,
                                                   tmp_path: Path) -> None:
    """Every slot taken: a connection made before serves on, one that must be made now is
    a 503 with Retry-After, and a 200 once a slot is free."""
    import pyodbc

    with connection_limit(tsql, MAX_CONNECTIONS), contextlib.ExitStack() as held:
        for name in ("early", "late"):
            (tmp_path / name).mkdir()
        # A worker that has its connection before the server is full.
        early = held.enter_context(serve(odbc, tmp_path / "early"))
        all_ok(early)
        fillers = held.enter_context(contextlib.ExitStack())
        refused = None
        for _ in range(MAX_CONNECTIONS + 5):  # other clients fill every slot
            try:
                conn = pyodbc.connect(odbc, autocommit=True,
                                      attrs_before={103: ODBC_CONNECT_TIMEOUT})
            except pyodbc.Error as exc:
                refused = exc
                break
            fillers.callback(conn.close)
        assert refused is not None, "the server took more than its max_connections"
        print(f"at the limit the driver says: {refused.args}")

        all_ok(early)  # a connection made before still serves
        # A worker that must connect now: 503, with Retry-After.
        late = held.enter_context(serve(odbc, tmp_path / "late"))
        for path in ("/health", *DATA_PATHS.values()):
            response, took = timed_get(late, path)
            print(f"at the limit: GET {path} -> {response.status_code} "
                  f"{response.text.strip()} in {took:.3f} s")
            # SQL Server refuses with 17809 ("database busy"); Babelfish with its catch-all
            # 33557097 and PostgreSQL's words, which NATIVE_REASONS cannot tell apart from
            # other refusals at login: the reason is the general one.
            assert_unavailable(response, "cannot connect to the database")
            assert took < ODBC_CONNECT_TIMEOUT + 1
        fillers.close()  # a slot frees: the late worker connects and serves
        response = requests.get(late.base + "/health", timeout=30)
        assert response.status_code == 200, response.text
        all_ok(late)
        no_500(metrics(late))
        print("\n".join(database_lines(late)))
        assert_no_password(late)
        assert_no_password(early)
