"""Which database errors are the database's state (503, with a short reason) and which are the
query's own (500): app/database/failures.py's tables, read by the driver's words (TLS),
native error number and SQLSTATE. The FreeTDS messages and the first Microsoft ODBC Driver
18 ones are the drivers' own words as the T-SQL server of the tests produced them
(tests/test_tls.py makes the TLS ones again); the others are SQL Server's documented texts
behind Driver 18's prefix, and psqlODBC's words. Then the retry rule on a real database: an
error that repeats on a fresh connection is the query's own."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from app import create_app
from app.database.failures import unavailable_reason
from tests.conftest import build_database
from tests.helpers import own_failing_read
from tests.servers import ROOT


class OdbcError(Exception):
    """An exception shaped as pyodbc raises one: (SQLSTATE, message)."""


MSODBC = "[Microsoft][ODBC Driver 18 for SQL Server]"
CASES = [
    # FreeTDS, as seen on the T-SQL server of the tests
    ("HY000", "[HY000] [FreeTDS][SQL Server]Unknown error (0) (SQLExecDirectW)", None),
    ("08S01", "[08S01] [FreeTDS][SQL Server]Communication link failure (0) (SQLExecDirectW)",
     "connection lost"),
    ("08S01", "[08S01] [FreeTDS][SQL Server]Unable to connect: Adaptive Server is unavailable "
              "or does not exist (20009) (SQLDriverConnect)", "connection lost"),
    ("01000", "[01000] [FreeTDS][SQL Server]Unexpected EOF from the server (20017) "
              "(SQLFetch)", "connection lost"),
    ("08004", '[08004] [FreeTDS][SQL Server]database "nosuchdb" does not exist (911) '
              "(SQLDriverConnect)", "cannot open the database"),
    ("HYT00", "[HYT00] [FreeTDS][SQL Server]Query timeout expired (0) (SQLExecDirectW)",
     "query timed out"),
    ("HY008", "[HY008] [FreeTDS][SQL Server]Operation canceled (0) (SQLFetch)",
     "query timed out"),
    ("42000", '[42000] [FreeTDS][SQL Server]relation "nosuchtable" does not exist (33557097) '
              "(SQLExecDirectW)", None),
    ("22012", "[22012] [FreeTDS][SQL Server]division by zero (8134) (SQLExecDirectW)", None),
    ("08001", "[08001] [FreeTDS][SQL Server]Unable to connect to data source (0) "
              "(SQLDriverConnect)", "FreeTDS could not connect: check Server= (a name this "
                                    "host resolves, the port in Port=) and its encryption "
                                    "settings (encryption, ca file, host name)"),
    # Microsoft's ODBC Driver 18, seen on the T-SQL server of the tests
    ("28000", f'[28000] {MSODBC}[SQL Server]Login failed for user "jembatan" (18456) '
              "(SQLDriverConnect)", "login failed"),
    ("08004", f'[08004] {MSODBC}[SQL Server]database "nosuchdb" does not exist (911) '
              "(SQLDriverConnect)", "cannot open the database"),
    ("HYT00", f"[HYT00] {MSODBC}Login timeout expired (0) (SQLDriverConnect)",
     "query timed out"),  # a refused port, after the whole login timeout
    ("08S01", f"[08S01] {MSODBC}TCP Provider: Error code 0x2746 (10054) (SQLExecDirectW)",
     "connection lost"),  # the first error on a connection whose server was stopped
    ("08S01", f"[08S01] {MSODBC}Communication link failure (0) (SQLExecDirectW)",
     "connection lost"),  # the next one
    ("08S01", f"[08S01] {MSODBC}The connection is no longer usable because the server failed "
              "to respond to a command cancellation for a previously executed statement in a "
              "timely manner. Possible causes include application deadlocks or the server "
              "being overloaded. Open a new connection and re-try the operation. (0) "
              "(SQLExecDirectW)", "connection lost"),  # after a query timeout
    ("HYT00", f"[HYT00] {MSODBC}Query timeout expired (0) (SQLExecDirectW)", "query timed out"),
    ("08001", f"[08001] {MSODBC}SSL Provider: [error:0A000086:SSL routines::certificate "
              "verify failed:self-signed certificate] (-1) (SQLDriverConnect)",
     "the server's certificate is not trusted: install its CA on this host or set "
     "TrustServerCertificate=yes"),
    ("08001", f"[08001] {MSODBC}SSL Provider: [error:0A000086:SSL routines::certificate "
              "verify failed:subject name does not match host name] (-1) (SQLDriverConnect)",
     "the server's certificate is for other names: connect by a name it holds or set "
     "HostNameInCertificate to one"),
    ("08001", f"[08001] {MSODBC}Encryption not supported on SQL Server. (20) "
              "(SQLDriverConnect)",
     "the server does not support encryption: set Encrypt=no or enable TLS on the server"),
    # Driver 18's prefix, SQL Server's own documented texts and numbers (no SQL Server here)
    ("42000", f"[42000] {MSODBC}[SQL Server]Cannot open database \"Timbangan\" requested by the "
              "login. The login failed. (4060) (SQLDriverConnect); [42000] "
              f"{MSODBC}[SQL Server]Login failed for user 'jembatan_ro'. (18456)",
     "cannot open the database"),
    ("40001", f"[40001] {MSODBC}[SQL Server]Transaction (Process ID 57) was deadlocked on lock "
              "resources with another process and has been chosen as the deadlock victim. "
              "Rerun the transaction. (1205) (SQLExecDirectW)", "database busy"),
    ("42000", f"[42000] {MSODBC}[SQL Server]There is insufficient system memory in resource "
              "pool 'default' to run this query. (701) (SQLExecDirectW)", "database busy"),
    ("42000", f"[42000] {MSODBC}[SQL Server]A time out occurred while waiting for memory "
              "resources to execute the query in resource pool 'default' (2). Rerun the "
              "query. (8645) (SQLExecDirectW)", "database busy"),
    ("42000", f"[42000] {MSODBC}[SQL Server]A time out occurred while waiting to optimize the "
              "query. Rerun the query. (8628) (SQLExecDirectW)", "database busy"),
    ("HY000", f"[HY000] {MSODBC}[SQL Server]Database 'Timbangan' on server 'wb01' is not "
              "currently available. Please retry the connection later. (40613) "
              "(SQLExecDirectW)", "database busy"),
    ("42S02", f"[42S02] {MSODBC}[SQL Server]Invalid object name 'TBL_TIMBANG'. (208) "
              "(SQLExecDirectW)", None),
    ("42000", f"[42000] {MSODBC}[SQL Server]Incorrect syntax near 'LIMIT'. (102) "
              "(SQLExecDirectW)", None),
    # psqlODBC
    ("57P01", "[57P01] FATAL: terminating connection due to administrator command;\nserver "
              "closed the connection unexpectedly (26) (SQLExecDirectW)", "connection lost"),
    ("53300", "[53300] FATAL: sorry, too many clients already (101) (SQLDriverConnect)",
     "database busy"),
    ("28P01", '[28P01] FATAL: password authentication failed for user "jembatan_ro" (101) '
              "(SQLDriverConnect)", "login failed"),
]


@pytest.mark.parametrize(("state", "message", "reason"), CASES,
                         ids=[f"{c[0]}-{c[2]}-{n}" for n, c in enumerate(CASES)])
def test_each_error_has_its_reason(state: str, message: str, reason: str | None) -> None:
    assert unavailable_reason(OdbcError(state, message)) == reason


def test_an_error_that_repeats_on_a_fresh_connection_is_the_querys_own(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A connection that has served, then a query that fails: it runs again on a fresh
    connection, fails the same way there, and only then is a 500 (logged once as an error,
    counted once in the metrics)."""
    sql = tmp_path / "sql"
    shutil.copytree(ROOT / "sql", sql)
    customers = sql / "customers.sql"
    own_failing_read(customers)
    database = build_database(tmp_path / "plant.sqlite3", {"products": [{"id": 1}]})
    # Without the proof at the first read, whose own reads of customers would fail first.
    client = create_app({"database": {"sqlite": str(database), "sql_dir": str(sql),
                                      "prove_on_first_read": False}}).test_client()
    assert client.get("/products/1").status_code == 200  # the connection has served
    with caplog.at_level(logging.INFO, logger="jembatan.db"):
        response = client.get("/customers/1")
    assert response.status_code == 500
    assert "abs" not in response.get_data(as_text=True)
    said = [(r.levelname, r.getMessage().split(":")[0]) for r in caplog.records
            if r.name == "jembatan.db"]
    assert said == [
        ("WARNING", "query customers.by_key failed on a connection that had served before, "
                    "trying a fresh one"),
        ("INFO", "query customers.by_key"),
        ("ERROR", "query customers.by_key failed"),
    ]
    metrics = client.get("/metrics").get_data(as_text=True)
    assert ('jembatan_database_errors_total{kind="query_failed",reason="query failed"} 1.0'
            in metrics)
