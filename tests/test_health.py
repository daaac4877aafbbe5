"""What /health costs the database (docs/operations.md, "What /health costs"): one light
statement at most per call (the ping, its answer kept `database.ping_keep` seconds, shared by
concurrent calls), whatever the number of collections; the mapping's check in the background
at `database.mapping_check`'s pace. And what that check decides: a name the database lacks
marks a collection, records that run again take the mark back without a restart, and any
other failure decides nothing.

The statements are counted by the database itself: PostgreSQL's own log of every statement
of the app's sessions (`log_statement = all`, set for its connections alone).
"""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from app import create_app
from app.core.services import services
from app.model.collections import COLLECTIONS
from tests.conftest import build_database
from tests.helpers import health_checked, records
from tests.postgres import OWNER, Cluster

# One statement the server logged: its text runs to the next line the log begins.
STATEMENT = re.compile(r"LOG:  (?:statement|execute [^:]*): (.*?)(?=\n\d{4}-\d\d-\d\d |\Z)",
                       re.DOTALL)
PING = "SELECT 1 AS \"ok\""  # sql/database.sql's ping, the T-SQL text PostgreSQL runs


def logged(cluster: Cluster, since: int) -> tuple[list[str], int]:
    """The statements the server logged after byte `since` of its log, and the log's end."""
    text = cluster.log.read_bytes()
    return [m.group(1).strip() for m in STATEMENT.finditer(
        text[since:].decode(errors="replace"))], len(text)


def counted_app(cluster: Cluster, database: dict[str, Any]) -> Flask:
    """The ten collections over empty tables of a schema of their own, every statement of
    the app's sessions logged by the server."""
    schema = cluster.create_schema({})
    options = f"-c search_path={schema} -c log_statement=all"
    odbc = cluster.connection_string(user=OWNER, pqopt=f"{{options='{options}'}}")
    app = create_app({"database": {"odbc": odbc, **database}})
    assert len(services(app).collections) == len(COLLECTIONS)
    return app


def settled(app: Flask) -> None:
    """The mapping check that a call began, done."""
    thread = services(app).checks.thread  # type: ignore[union-attr]
    if thread is not None:
        thread.join(timeout=60)
        assert not thread.is_alive()


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> Cluster:
    return request.getfixturevalue("postgres_cluster")


@pytest.mark.postgresql
def test_health_pings_once_whatever_the_collections(cluster: Cluster) -> None:
    """Each call: the ping alone (ping_keep 0), not the ping and a query per collection."""
    app = counted_app(cluster, {"ping_keep": 0})
    client = app.test_client()
    ok = {"status": "ok", "database": "ok"}
    assert client.get("/health").get_json() == ok  # the session opened, the check begun
    settled(app)
    _, end = logged(cluster, 0)
    for _ in range(3):
        response = client.get("/health")
        assert (response.status_code, response.get_json()) == (200, ok)
        said, end = logged(cluster, end)
        assert said == [PING]


@pytest.mark.postgresql
def test_concurrent_calls_share_one_ping(cluster: Cluster) -> None:
    """Sixteen calls at once, the answer kept a minute: one ping between them."""
    app = counted_app(cluster, {"ping_keep": 60})
    _, end = logged(cluster, 0)
    answers: list[tuple[int, Any]] = []
    start = threading.Barrier(16)

    def call() -> None:
        client = app.test_client()
        start.wait()
        response = client.get("/health")
        answers.append((response.status_code, response.get_json()))
    threads = [threading.Thread(target=call) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    settled(app)
    said, _ = logged(cluster, end)
    assert answers == [(200, {"status": "ok", "database": "ok"})] * 16
    mapped = [s for s in said if s.rstrip(";").endswith("WHERE 1 = 0")]  # the one check
    assert said.count(PING) == 1
    assert len(mapped) == len(COLLECTIONS)


# -- what the check decides ---------------------------------------------------------------

CUSTOMERS = [{"id": 1, "CustCode": "C001", "CustName": "PT Maju", "Address": "Jl. Raya 1",
              "City": "Gresik", "Phone": "031-1", "Contact": "Budi", "Remark": "tunai"}]
COLUMNS = '"id", "CustCode", "CustName", "Address", "City", "Phone", "Contact"'


def swapped(path: Path, remark: str) -> None:
    """The customers table replaced by a view of it whose Remark is `remark`'s text."""
    con = sqlite3.connect(path)
    con.executescript(f'DROP VIEW IF EXISTS "customers"; DROP TABLE IF EXISTS "customers"; '
                      f'CREATE VIEW "customers" AS SELECT {COLUMNS}, {remark} AS "Remark" '
                      f'FROM "kept"')
    con.close()


def test_the_check_marks_only_a_name_and_takes_a_mark_back(tmp_path: Path) -> None:
    """A failure that is no name nor syntax (abs() given two arguments) leaves the collection
    served; a column the database lacks marks it; records that run again serve it, without
    a restart, found by the check that /health or a read of it begins."""
    path = build_database(tmp_path / "plant.sqlite3", {"customers": CUSTOMERS})
    con = sqlite3.connect(path)
    con.execute('ALTER TABLE "customers" RENAME TO "kept"')
    con.close()
    swapped(path, '"Remark"')
    app = create_app({"database": {"sqlite": str(path), "mapping_check": 0},
                      "collections": {"serve": ["customers"]}})
    client = app.test_client()
    ok = {"status": "ok", "database": "ok"}
    want = records("customers", CUSTOMERS)

    def health() -> Any:
        return health_checked(client)

    assert (health(), client.get("/customers").get_json()) == (ok, want)
    swapped(path, "abs(1, 2)")  # not a name: decides nothing
    assert health() == ok
    swapped(path, '[Missing]')  # a column the view's table lacks
    assert health() == {"status": "degraded", "database": "ok",
                        "unmapped": {"customers": []}}
    assert client.get("/customers").status_code == 503
    settled(app)  # the check that read began
    swapped(path, '"Remark"')  # put back: a read of it begins the check, no /health needed
    assert client.get("/customers").status_code == 503
    settled(app)
    assert client.get("/customers").get_json() == want
    assert client.get("/health").get_json() == ok
