"""Values that fit their fields (docs/api.md §4; docs/adapting.md "When a value does not fit its
field").

A site's mapping can give a field a value of another type: SQL Server's `CAST(x AS date)`
served from SQLite makes the year 2026 of a date, a misplaced column puts a plate number in
a date or a remark in a weight. `check-sql` finds each such field in a sample of the
records, with the value and the line of `records` that gives it; and the service never sends
such a value: the read is a 500 that names the field, and the operator sees it in the log,
in /health and in /metrics.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import requests

from app import create_app
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import FILE_ENGINES, MakeClient, build_database, database_settings
from tests.servers import gunicorn, records_before_the_break, stream_cut

# One wrong mapping per kind of field, each written as a plant's IT person might slip:
# field -> (the shipped line's text, the wrong text, what the field holds).
WRONG = {
    "transactions": {
        "tgl_dt1": ('"tgl_dt1" AS "tgl_dt1"', '"vehno" AS "tgl_dt1"', "a date (YYYY-MM-DD)"),
        "jam_dt1": ('"jam_dt1" AS "jam_dt1"', '"drivername" AS "jam_dt1"',
                    "a time of day (HH:MM:SS)"),
        "weigh1": ('"weigh1" AS "weigh1"', '"remark" AS "weigh1"', "a number"),
    },
    "biao1": {
        # Typed: Babelfish cannot send an untyped numeric over TDS (arithmetic overflow).
        "recipe": ('"recipe" AS "recipe"', 'CAST("recipe" + 0.5 AS decimal(9, 1)) AS "recipe"',
                   "an integer"),
    },
}
ROWS = {
    "transactions": [{"id": 1, "vehno": "B 1234 XY", "drivername": "Budi", "remark": "basah",
                      "tgl_dt1": "2026-11-20", "jam_dt1": "07:05:00", "weigh1": 30120.0}],
    "biao1": [{"id": 1, "tanggal": "2026-11-20", "jam": "08:00:00", "recipe": 3}],
}
# What each wrong line gives, as the driver hands it over (a Decimal on the server engines).
SHOWN = {"tgl_dt1": "'B 1234 XY' (str)", "jam_dt1": "'Budi' (str)", "weigh1": "'basah' (str)"}


def wrong_site(tmp_path: Path) -> Path:
    """A copy of the shipped sql/ with each wrong line of WRONG in place of the right one."""
    site = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    for collection, fields in WRONG.items():
        path = site / f"{collection}.sql"
        text = path.read_text()
        for right, wrong, _ in fields.values():
            assert text.count(right) == 1, (path, right)  # the main text only
            text = text.replace(right, wrong)
        path.write_text(text)
    return site


@pytest.fixture(scope="module")
def wrong(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's wrong site (wrong_site), one for the apps over its shared database."""
    return wrong_site(tmp_path_factory.mktemp("wrong"))


def line_of(path: Path, text: str) -> str:
    """'file:line: text' of the one line holding `text`, found the plain way."""
    lines = path.read_text().splitlines()
    numbers = [n for n, line in enumerate(lines, 1) if text in line]
    assert len(numbers) == 1
    return f"{path}:{numbers[0]}: {lines[numbers[0] - 1].strip()}"


def records_section(output: str, collection: str) -> list[str]:
    """The lines check-sql prints under a collection's `records` line."""
    section = output.split(f"\n{collection} (", 1)[1].split("\n\n", 1)[0].splitlines()
    start = next(n for n, line in enumerate(section) if line.startswith("  records "))
    end = next((n for n, line in enumerate(section) if n > start
                and not line.startswith("      ")), len(section))
    return section[start:end]


def test_check_sql_names_each_field_whose_values_do_not_fit(
        shared_app: Any, module_engine: str, wrong: Path) -> None:
    site = wrong
    app = shared_app(ROWS, database={"sql_dir": str(site)})
    for collection, fields in WRONG.items():
        result = app.test_cli_runner().invoke(args=["check-sql", collection])
        assert result.exit_code == 1, result.output
        got = records_section(result.output, collection)
        assert got[0] == "  records                ERROR"
        want = []
        for field, (_, wrong, expected) in fields.items():
            shown = SHOWN.get(field) or ("3.5 (float)" if module_engine in FILE_ENGINES
                                         else "Decimal('3.5') (Decimal)")
            want.append(f"      {field}: {shown} is not {expected}; it comes from "
                        f"{line_of(site / f'{collection}.sql', wrong)}")
        # Fields in the record's order (docs/api.md §3), each once.
        order = next(c for c in COLLECTIONS if c.name == collection).fields
        assert got[1:] == sorted(want, key=lambda line: order.index(
            line.split(":", 1)[0].strip())), result.output


def test_the_shipped_mapping_passes_the_value_check(shared_app: Any) -> None:
    app = shared_app(ROWS)
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 0, result.output
    assert ("\nEvery query runs and returns its record's columns, the sampled records' "
            "values fit their fields, and every read finds each of up to 20 sampled records "
            "of a collection exactly once: ") in result.output


def misfit_body(body: dict[str, Any], collection: str, field: str, expected: str) -> None:
    request_id = body.get("request_id", "")
    assert len(request_id) == 32
    assert body == {
        "code": 500, "status": "Internal Server Error", "request_id": request_id,
        "message": f"This site's mapping of {collection} gives {field} a value that is not "
                   f"{expected}, so no record is sent. The operator can find it in the log "
                   f"under request id {request_id}."}


def test_the_service_never_sends_a_value_of_another_type(
        shared_app: Any, wrong: Path, caplog: pytest.LogCaptureFixture) -> None:
    site = wrong
    # An app of its own (its counts start at 0), over the module's database.
    client = shared_app(ROWS, database={"sql_dir": str(site)}).test_client()
    reads = {"transactions": ["/transactions", "/transactions/1", "/transactions/page/1"],
             "biao1": ["/biao1", "/biao1/1", "/biao1/page/1"]}
    first = {"transactions": "jam_dt1", "biao1": "recipe"}  # the first wrong field of each
    for collection, urls in reads.items():
        field = first[collection]
        for url in urls:
            response = client.get(url)
            assert response.status_code == 500, (url, response.data)
            misfit_body(response.get_json(), collection, field, WRONG[collection][field][2])
            assert b"B 1234 XY" not in response.data and b"3.5" not in response.data
    # The operator's view: the log names the value and the line, /health and /metrics count.
    line = line_of(site / "transactions.sql", '"drivername" AS "jam_dt1"')
    assert any("gives jam_dt1 a value that does not fit: 'Budi' (str) is not a time of day "
               f"(HH:MM:SS). No record is sent with it; correct {line}" in r.getMessage()
               for r in caplog.records if r.levelname == "ERROR")
    health = client.get("/health")
    assert health.status_code == 200
    assert health.get_json() == {"status": "degraded", "database": "ok", "mapping": [
        "biao1.recipe: a value that is not an integer, 3 times since start (the log has "
        "each one; run check-sql biao1)",
        "transactions.jam_dt1: a value that is not a time of day (HH:MM:SS), "
        "3 times since start (the log has each one; run check-sql transactions)"]}
    metrics = client.get("/metrics").get_data(as_text=True)
    assert ('jembatan_mapping_errors_total{collection="transactions",'
            'expected="a time of day (HH:MM:SS)",field="jam_dt1"} 3.0') in metrics


def test_a_record_whose_values_fit_is_sent_beside_one_whose_do_not(
        make_client: MakeClient, engine: str) -> None:
    rows = {"transactions": [
        {"id": 1, "tgl_dt1": "2026-11-20", "jam_dt1": "07:05:00", "weigh1": 30120.0},
        {"id": 2, "tgl_dt1": "2026-11-20", "jam_dt1": "07:06:00", "weigh1": 29950.5}]}
    if engine in FILE_ENGINES:  # SQLite keeps what it is given: the text a legacy PC wrote
        rows["transactions"][1] |= {"tgl_dt1": "20-11-2026", "weigh1": "29.950,5"}
    client = make_client(rows)
    one = client.get("/transactions/1").get_json()
    assert (one["tgl_dt1"], one["jam_dt1"], one["weigh1"]) == ("2026-11-20", "07:05:00",
                                                               30120.0)
    two = client.get("/transactions/2")
    if engine == "sqlite3":
        assert two.status_code == 500
        misfit_body(two.get_json(), "transactions", "tgl_dt1", "a date (YYYY-MM-DD)")
    elif engine == "odbc":
        # The SQLite ODBC driver converts by the declared column type itself, before
        # Jembatan sees a value: a DATE it cannot read is NULL, and '29.950,5' in a DECIMAL
        # column is read as far as it goes (docs/adapting.md "When a value does not fit its
        # field").
        got = two.get_json()
        assert (got["tgl_dt1"], got["weigh1"]) == (None, 29.95)
    else:  # a typed column cannot hold such text: the record is sent
        assert two.status_code == 200 and two.get_json()["weigh1"] == 29950.5


def plant_table(path: Path, rows: list[tuple[Any, ...]]) -> Path:
    """A plant: one weighbridge table of its own naming, a datetime per stamp."""
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE "TBL_TIMBANG" ("ID_TIMBANG" INTEGER PRIMARY KEY, '
                '"NOPOL" VARCHAR(20), "TGL_MASUK" DATETIME, "BERAT_MASUK" DECIMAL(12,2))')
    con.executemany('INSERT INTO "TBL_TIMBANG" VALUES (?, ?, ?, ?)', rows)
    con.commit()
    con.close()
    return path


def plant_mapping(site: Path, date_text: str, time_text: str) -> None:
    """transactions.sql over TBL_TIMBANG, the date and time written as given."""
    shutil.copytree(SHIPPED_SQL_DIR, site)
    path = site / "transactions.sql"
    fields = next(c for c in COLLECTIONS if c.name == "transactions").fields
    source = {"id": '"ID_TIMBANG"', "vehno": '"NOPOL"', "weigh1": '"BERAT_MASUK"',
              "tgl_dt1": date_text, "jam_dt1": time_text}
    select = ",\n    ".join(f'{source.get(f, "NULL")} AS "{f}"' for f in fields)
    path.write_text(f"-- name: records\n-- The plant's weighbridge table.\nSELECT\n    "
                    f"{select}\nFROM \"TBL_TIMBANG\";\n")


@pytest.mark.parametrize("engine", FILE_ENGINES)
def test_sql_server_casts_served_from_sqlite_are_caught(engine: str, tmp_path: Path) -> None:
    # SQLite reads CAST('2026-11-20 23:59:30' AS date) as the number 2026.
    database = plant_table(tmp_path / "plant.sqlite3", [
        (31, "N 1234 AB", "2026-11-20 23:59:30", 30120.0),
        (32, "N 5678 CD", "2026-11-21 00:00:10", 29870.0)])
    wrong, right = tmp_path / "wrong-sql", tmp_path / "right-sql"
    plant_mapping(wrong, 'CAST("TGL_MASUK" AS date)', 'CAST("TGL_MASUK" AS time)')
    plant_mapping(right, 'date("TGL_MASUK")', 'time("TGL_MASUK")')
    settings = database_settings(engine, database)
    app = create_app({"database": settings | {"sql_dir": str(wrong)}})
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 1
    cast = line_of(wrong / "transactions.sql", 'CAST("TGL_MASUK" AS date)')
    cast_time = line_of(wrong / "transactions.sql", 'CAST("TGL_MASUK" AS time)')
    hint = ("(SQLite's CAST(... AS date) or AS time makes a number of it: write date(column) "
            "or time(column))")
    assert records_section(result.output, "transactions")[1:3] == [  # in the record's order
        f"      jam_dt1: 2026 (int) is not a time of day (HH:MM:SS); it comes from "
        f"{cast_time} {hint}",
        f"      tgl_dt1: 2026 (int) is not a date (YYYY-MM-DD); it comes from {cast} {hint}"]
    client = app.test_client()
    response = client.get("/transactions/31")
    assert response.status_code == 500 and b'"2026"' not in response.data
    # A range compares the number 2026 with the bounds and finds nothing: no wrong value is
    # sent, but the answer is empty; check-sql above is what tells the operator why.
    assert client.get("/transactions/date/2026-11-20/23:00/2026-11-21/01:00").get_json() == []
    fixed = create_app({"database": settings | {"sql_dir": str(right)}}).test_client()
    got = fixed.get("/transactions/date/2026-11-20/23:59:30/2026-11-21/00:00:10").get_json()
    assert [(r["id"], r["tgl_dt1"], r["jam_dt1"]) for r in got] == [
        (31, "2026-11-20", "23:59:30"), (32, "2026-11-21", "00:00:10")]


def test_a_stream_breaks_off_before_a_value_of_another_type(tmp_path: Path) -> None:
    rows = [{"id": n, "tgl_dt1": "2026-11-20", "jam_dt1": "07:00:00"} for n in range(1, 5001)]
    rows[3999]["tgl_dt1"] = "kemarin"  # "yesterday", typed into a legacy text column
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": rows})
    with gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database)}) as server:
        body, broken = stream_cut(server.base + "/transactions", lambda: None)
        assert broken and b"kemarin" not in body
        assert records_before_the_break(body) < 4000
        health = requests.get(server.base + "/health", timeout=10).json()
        assert health["status"] == "degraded"
        assert health["mapping"][0].startswith("transactions.tgl_dt1: a value that is not a "
                                               "date (YYYY-MM-DD), 1 time since start")
    assert "'kemarin' (str) is not a date (YYYY-MM-DD)" in server.log()
