"""A dated collection whose main date is given as NULL is not served as an empty one
(docs/adapting.md "When the database refuses the mapping"): `NULL AS "tgl_dt1"` without
the TODO (the main date of transactions, the default `on` of its ranges and summaries and the
report's) fails check-sql with the reason, and the service answers 503 "not mapped yet" for
it, /health degraded; the feed's own pair given as NULL is said by check-sql, which still
passes. The site: the shipped mapping of transactions, edited as a plant would, over three
weighings of one day.
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from app import create_app
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import build_database
from tests.helpers import make_row

ROWS = [make_row("transactions", n, {"dt1": ("2026-11-20", f"0{n}:15:00"),
                                     "dt2": ("2026-11-20", f"0{n}:45:00"),
                                     "create": ("2026-11-20", f"0{n}:15:00"),
                                     "update": ("2026-11-20", f"0{n}:46:00")},
                 weigh1=30000.0 + n, weigh2=10000.0)
        for n in (1, 2, 3)]
SERVED = {"collections": {"serve": ["transactions"]}}
NULL_MAIN = {'"tgl_dt1" AS "tgl_dt1"': 'NULL AS "tgl_dt1"',
             '"jam_dt1" AS "jam_dt1"': 'NULL AS "jam_dt1"'}
NULL_FEED = {'"tgl_update" AS "tgl_update"': 'NULL AS "tgl_update"',
             '"jam_update" AS "jam_update"': 'NULL AS "jam_update"'}


def site(tmp_path: Path, edits: dict[str, str]) -> dict[str, Any]:
    """The settings of the shipped transactions mapping, edited, over ROWS."""
    sql = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, sql)
    path = sql / "transactions.sql"
    text = path.read_text(encoding="utf-8")
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    return {"database": {"sqlite": str(database), "sql_dir": str(sql)}, **SERVED}


def records_lines(output: str) -> list[str]:
    """check-sql's lines of transactions' records: its verdict and what it says under it."""
    section = output.split("\ntransactions (Weighing)\n", 1)[1]
    lines = section.splitlines()
    end = next(i for i, line in enumerate(lines[1:], 1) if not line.startswith("      "))
    return lines[:end]


def test_check_sql_fails_a_main_date_given_as_null(tmp_path: Path) -> None:
    app = create_app(site(tmp_path, NULL_MAIN))
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 1, result.output
    assert records_lines(result.output) == [
        "  records                ERROR",
        "      tgl_dt1 is given as NULL, but it is the main date of transactions (on=dt1, the "
        "default of its ranges and summaries, and the dashboard's and the report's): every "
        "range, summary and report day would find nothing. Map tgl_dt1 and jam_dt1 to the "
        "columns of its date and time; until then every route of transactions answers 503 "
        "(not mapped yet)",
        "      given as NULL (no such column at this site): jam_dt1, tgl_dt1"]  # file order
    assert result.output.rstrip().endswith("1 query with problems")


def test_the_service_does_not_serve_it_as_empty(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="jembatan"):
        client = create_app(site(tmp_path, NULL_MAIN)).test_client()
    message = ("transactions is not mapped yet: 1 field given as NULL where the main date "
               "belongs (the default `on` of its ranges and summaries, and the report's) in "
               "transactions.sql: tgl_dt1. Its records are not served until the operator maps "
               "those fields, runs `jembatan check-sql transactions` and restarts Jembatan.")
    for url in ("/transactions", "/transactions/1", "/transactions/date/2026-11-20/00:00/"
                "2026-11-20/23:59:59", "/transactions/summary/2026-11-20/00:00/2026-11-20/"
                "23:59:59"):
        response = client.get(url)
        assert response.status_code == 503, url
        assert response.get_json() == {"code": 503, "status": "Service Unavailable",
                                       "message": message, "unmapped": ["tgl_dt1"]}
    assert client.get("/health").get_json() == {
        "status": "degraded", "database": "ok", "unmapped": {"transactions": ["tgl_dt1"]}}
    warned = [r.getMessage() for r in caplog.records if "not mapped yet" in r.getMessage()]
    assert len(warned) == 1 and re.search(r"given as NULL where the main date belongs .* in "
                                          r"\S+transactions\.sql: tgl_dt1", warned[0])


def test_the_feeds_pair_given_as_null_is_said_and_passes(tmp_path: Path) -> None:
    """A table without an update stamp is a right mapping: check-sql passes, and says that
    the feed's default pair finds nothing; the service serves every record."""
    settings = site(tmp_path, NULL_FEED)
    app = create_app(settings)
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 0, result.output
    assert records_lines(result.output) == [
        "  records                OK",
        "      given as NULL (no such column at this site): jam_update, tgl_update",
        "      the feed's default pair (on=update) is NULL: /transactions/changes finds "
        "nothing unless asked with ?on=dt1"]
    response = app.test_client().get("/transactions?fields=id")
    assert response.status_code == 200
    assert response.get_json() == [{"id": n} for n in (1, 2, 3)]
