"""`flask --app wsgi check-sql` for a new site: every query run once, its columns compared
with the record shape; a non-zero exit when anything is wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

from app import create_app
from app.config import SHIPPED_SQL_DIR
from tests.conftest import build_database


def run_check(tmp_path: Path, sql_dir: Path = SHIPPED_SQL_DIR) -> tuple[int, str]:
    database = build_database(tmp_path / "site.sqlite3", {
        "customers": [{"id": 1, "CustCode": "C1", "CustName": "PT Maju"}],
        "transactions": [{"id": 1, "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00"}]})
    app = create_app({"database": {"sqlite": str(database), "sql_dir": str(sql_dir)}})
    result = app.test_cli_runner().invoke(args=["check-sql"])
    return result.exit_code, result.output


def test_the_shipped_queries_pass(tmp_path: Path) -> None:
    code, output = run_check(tmp_path)
    assert code == 0, output
    assert "ERROR" not in output
    for collection in ("customers", "transactions", "bricon2", "biao1"):
        assert f"\n{collection} (" in output
    assert "range_update_page" in output and "Every query runs" in output


def test_a_renamed_column_is_found_with_a_suggestion(tmp_path: Path) -> None:
    site = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    path = site / "transactions.sql"
    path.write_text(path.read_text().replace('"tgl_dt1" AS "tgl_dt1"', '"tgl_dt1" AS "tgl_dt"'))
    path = site / "customers.sql"
    path.write_text(path.read_text().replace('"CustName" AS "CustName"',
                                             '"CustNme" AS "CustName"'))
    code, output = run_check(tmp_path, site)
    assert code == 1
    assert 'no column tgl_dt1 (did you mean "tgl_dt"?)' in output
    assert "columns the record does not have: tgl_dt" in output
    # SQLite reads the misspelt "CustNme" as a string: caught by its values.
    assert 'every CustName is the text "CustNme"' in output
    assert "queries with problems" in output
