"""check-sql says which reads no index can serve (app/commands/indexes.py): a date the mapping
converts from a text column, and what a DBA can add (SQLite: an index on the same
expressions, which the range then uses; SQL Server: persisted computed columns and their
index). A mapping of plain date columns gets no note."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app import create_app
from app.core.services import services
from tests.conftest import database_settings
from tests.test_read_proof import check, mapping

ROWS = [(1, "L 1234 AB", "2026-11-24 07:05:00", 30120.0),
        (2, "L 5678 CD", "2026-11-24 13:40:00", 28000.0)]


def plant(tmp_path: Path) -> Path:
    path = tmp_path / "plant.sqlite3"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE "Timbangan" ("NoTiket" INTEGER PRIMARY KEY, "NoPolisi" TEXT, '
                '"WaktuTimbang1" TEXT, "Bruto" REAL)')
    con.executemany('INSERT INTO "Timbangan" VALUES (?, ?, ?, ?)', ROWS)
    con.commit()
    con.close()
    return path


def notes(output: str) -> list[str]:
    """The indexes line of transactions' section and the lines under it."""
    lines = output.split("\n")
    start = lines.index("  indexes                NOTE")
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("      "))
    return lines[start:end]


def test_a_date_converted_from_text_gets_the_index_that_serves_it(tmp_path: Path) -> None:
    path = plant(tmp_path)
    site = mapping(tmp_path / "site", {"id": '"NoTiket"', "vehno": '"NoPolisi"',
                                       "weigh1": '"Bruto"'},
                   sqlite={"tgl_dt1": 'date("WaktuTimbang1")',
                           "jam_dt1": 'time("WaktuTimbang1")'})
    code, output = check({"sqlite": str(path), "sql_dir": str(site)})
    assert code == 0, output
    index = ('CREATE INDEX "jembatan_transactions_dt1" ON "Timbangan" '
             '(date("WaktuTimbang1"), time("WaktuTimbang1"));')
    assert notes(output) == [
        "  indexes                NOTE",
        '      the reads on=dt1 (the ranges, their counts and pages, the feed and the '
        'summaries) compare tgl_dt1 as date("WaktuTimbang1"), a conversion of text that no '
        'index of the column can serve: without one of the kind below, each reads the whole '
        'table.',
        "        On SQLite an index on the same expressions serves them, with no change to "
        "the mapping:",
        f"          {index}"]
    # The index it prints is the one SQLite then uses for the range, as the service asks it.
    con = sqlite3.connect(path)
    con.execute(index)
    con.commit()
    db = services(create_app({"database": {"sqlite": str(path), "sql_dir": str(site),
                                  "prove_on_first_read": False}})).db
    query = db.queries.get("transactions", "range_dt1", "sqlite")
    values = {"start_date": "2026-11-24", "start_time": "00:00:00", "end_date": "2026-11-24",
              "end_time": "23:59:59", "midnight": "24:00:00"}
    plan = con.execute("EXPLAIN QUERY PLAN " + query.sql,
                       [values[p] for p in query.params]).fetchall()
    con.close()
    assert [row[3] for row in plan] == [
        "SEARCH Timbangan USING INDEX jembatan_transactions_dt1 (<expr>>? AND <expr><?)"]


@pytest.mark.postgresql
def test_sql_server_gets_a_persisted_computed_column(request: pytest.FixtureRequest,
                                                     tmp_path: Path) -> None:
    """The main texts (SQL Server's, run here by PostgreSQL): a text column CAST to a date."""
    from tests.conftest import own_table

    database = own_table(request, "postgresql", tmp_path / "plant.sqlite3", "Timbangan",
                         {"NoTiket": ("INTEGER", "INTEGER", "int"),
                          "Tgl": ("TEXT", "VARCHAR(10)", "varchar(10)"),
                          "Jam": ("TEXT", "VARCHAR(8)", "varchar(8)")},
                         [{"NoTiket": 1, "Tgl": "2026-11-24", "Jam": "07:05:00"}])
    site = mapping(tmp_path / "site", {"id": '"NoTiket"', "tgl_dt1": 'CAST("Tgl" AS date)',
                                       "jam_dt1": '"Jam"'})
    code, output = check(database | {"sql_dir": str(site)})
    assert notes(output)[2:] == [
        "        On SQL Server a DBA can add a PERSISTED computed column per converted field "
        "and an index on them (SQL Server persists a conversion of text only with an "
        "explicit style, such as CONVERT(date, column, 103) for dd/mm/yyyy):",
        '          ALTER TABLE "Timbangan" ADD "jembatan_tgl_dt1" AS CAST("Tgl" AS date) '
        'PERSISTED;',
        '          CREATE INDEX "jembatan_transactions_dt1" ON "Timbangan" '
        '("jembatan_tgl_dt1", "Jam");',
        '        then map "jembatan_tgl_dt1" AS "tgl_dt1" in transactions.sql'], output


@pytest.mark.parametrize("engine", ["sqlite3"])
def test_date_columns_get_no_note(engine: str, tmp_path: Path) -> None:
    path = plant(tmp_path)
    site = mapping(tmp_path / "site", {"id": '"NoTiket"', "tgl_dt1": '"WaktuTimbang1"'})
    _, output = check(database_settings(engine, path) | {"sql_dir": str(site)})
    assert "indexes" not in output
