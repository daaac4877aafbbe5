"""What a read costs SQL Server in messages: one per query it runs, through FreeTDS and
through Microsoft's ODBC Driver 18, on the T-SQL server of ../shared/tsql (Babelfish, started
for this module on free ports, as tests/test_tds_drivers.py starts its own, so no
JEMBATAN_TEST_MSSQL and no `mssql` mark), whose TDS log
(`babelfishpg_tds.tds_debug_log_level = 1`, `log_min_duration_statement = 0`) names every
RPC it receives (sp_prepexec, sp_execute, sp_unprepare, a procedure by name) and every
statement it runs. A statement that no RPC
line announces came as a SQL batch: a message too.

Each read kind of the table (app/model/kinds.py READ_KINDS) is asked twice, on one app and
one connection; the second request is counted, so that the connection's first queries (the
driver's type catalogue, the database's version) are not. A page runs two queries (its count
and its rows), every other kind one; before this change each query cost two messages (its
sp_prepexec, then sp_unprepare as its cursor closed).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from app import create_app
from app.core.leftout import REASONS
from app.model.kinds import READ_KINDS
from app.ops.config import SHIPPED_SQL_DIR
from tests.mssql import DRIVERS, Kit, Server, odbc_string, require_driver, started

APP = "jembatan-round-trips"  # the app's connections, as the server's log names them
DAYS = [dt.date(2026, 11, 1) + dt.timedelta(days=n) for n in range(3)]
ROWS: list[dict[str, Any]] = [
    {"id": n, "vehno": f"B {n}", "productcode": "P1", "weigh1": 1000.0 + n, "weigh2": 400.0,
     "tgl_dt1": day, "jam_dt1": dt.time(8, n), "tgl_dt2": day, "jam_dt2": dt.time(9, n),
     "tgl_create": day, "jam_create": dt.time(8, n), "tgl_update": day,
     "jam_update": dt.time(9, n)}
    for n, day in enumerate(DAYS * 2, 1)]
RANGE = "2026-11-01/00:00/2026-11-02/23:59"

# One request of each read kind of transactions, by the kind's name, with the queries it
# runs: a page its count and its rows; a summary its groups and a count per reason a record
# is left out (docs/api.md §7); the test fails on a kind the table gains until it is asked
# here too.
READS = {"list": ("/transactions", 1),
         "page": ("/transactions/page/2?page_size=2", 2),
         "key": ("/transactions/3", 1),
         "range": (f"/transactions/date/{RANGE}", 1),
         "summary": (f"/transactions/summary/{RANGE}", 1 + len(REASONS)),
         "changes": ("/transactions/changes?limit=100", 1)}


def test_every_read_kind_is_asked() -> None:
    assert set(READS) == {kind.name for kind in READ_KINDS}


def _logging(tsql: Kit) -> None:
    Server(tsql.odbc()).load({"transactions": ROWS})
    tsql.psql("ALTER SYSTEM SET log_min_duration_statement = 0")
    tsql.psql("ALTER SYSTEM SET babelfishpg_tds.tds_debug_log_level = 1")
    tsql.psql("ALTER SYSTEM SET log_line_prefix = '%a|'")
    tsql.psql("SELECT pg_reload_conf()")


@pytest.fixture(scope="module")
def server() -> Iterator[Kit]:
    """The module's T-SQL server, with the rows and its TDS log on."""
    with started(Kit(), _logging) as tsql:
        yield tsql


@pytest.fixture(scope="module", params=DRIVERS)
def client(request: pytest.FixtureRequest, server: Kit) -> FlaskClient:
    require_driver(request.param)
    odbc = odbc_string(server.printed, request.param, APP=APP)
    return create_app({"database": {"odbc": odbc, "sql_dir": str(SHIPPED_SQL_DIR),
                                    "prove_on_first_read": False}}).test_client()


def messages(lines: list[str]) -> list[str]:
    """The TDS messages of these log lines of the app: each RPC, and each statement that
    no RPC announced (a SQL batch)."""
    out: list[str] = []
    announced = False
    for line in lines:
        if "message_type:" in line:
            out.append(line.split("message_type:", 1)[1].strip())
            announced = "rpc_packet_type" in line and "sp_unprepare" not in line
        elif "Query:" in line:
            if not announced:
                out.append("SQL batch")
            announced = False
    return out


def logged(server: Kit, since: int) -> list[str]:
    """The app's LOG lines written since offset `since`, up to a marker batch sent after the
    request on a connection of its own (the server has logged everything before it)."""
    import pyodbc

    marker = f"round-trips marker {since}"
    with pyodbc.connect(server.odbc(), autocommit=True) as conn:
        conn.cursor().execute(f"SELECT '{marker}'").fetchall()
    with open(server.state / "server.log", encoding="utf-8", errors="replace") as log:
        log.seek(since)
        lines = log.read().splitlines()
    assert any(marker in line for line in lines)
    return [line for line in lines if line.startswith(f"{APP}|") and "|LOG:" in line]


@pytest.mark.parametrize("kind", READS)
def test_one_message_per_query(server: Kit, client: FlaskClient, kind: str) -> None:
    url, queries = READS[kind]
    first = client.get(url)
    assert first.status_code == 200, first.get_data(as_text=True)
    since = (server.state / "server.log").stat().st_size
    again = client.get(url)
    assert again.status_code == 200
    assert again.get_data() == first.get_data()
    sent = messages(logged(server, since))
    statements = [m for m in sent if "sp_unprepare" not in m]
    assert (len(statements), len(sent)) == (queries, queries), "\n".join(sent)


def test_a_long_value_is_compared_whole(client: FlaskClient) -> None:
    """A filter's text past 4,000 characters goes whole (FreeTDS would cut an nvarchar
    argument of an RPC off there, and this one would then equal "B 1" less its trailing
    blanks); the statements themselves pass 2,000 characters, the rest of this module."""
    value = "B 1" + " " * 4100 + "x"
    response = client.get("/transactions", query_string={"vehno": value})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json() == [r for r in ROWS if r["vehno"] == value.rstrip()]
