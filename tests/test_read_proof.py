"""check-sql proves every read on the site's own records (app/core/proof.py): a mapping whose
values fit but whose reads miss or repeat a record fails, naming the collection, the field,
the record and the likely cause; a correct mapping passes on every engine."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from app import create_app
from app.core.services import services
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import FILE_ENGINES, database_settings, own_table, quote

TRANSACTIONS = next(c for c in COLLECTIONS if c.name == "transactions")
HEADER = "-- name: records\n-- The plant's weighbridge table.\n"
TGL_DT1 = 'AS "tgl_dt1"'
NULL_TYPES = {"Integer": "int", "Number": "float", "String": "varchar(255)", "Date": "date",
              "Time": "time", "Boolean": "int"}


def mapping(site: Path, sources: Mapping[str, str], source: str = '"Timbangan"',
            sqlite: Mapping[str, str] | None = None, of: str = "transactions") -> Path:
    """sql/<of>.sql over the plant's table: each field from `sources`, the others NULL;
    with `sqlite`, a `-- dialect: sqlite` text with those fields written otherwise."""
    if not site.exists():
        shutil.copytree(SHIPPED_SQL_DIR, site)
    declared = next(c for c in COLLECTIONS if c.name == of).schema._declared_fields
    # A NULL of the field's type: PostgreSQL takes a plain NULL for text.
    nulls = {f: f"CAST(NULL AS {NULL_TYPES[type(k).__name__]})" for f, k in declared.items()
             if not k.dump_only and f != "numberrow"}

    def select(given: Mapping[str, str]) -> str:
        return "SELECT\n    " + ",\n    ".join(
            f'{given.get(f, null)} AS "{f}"' for f, null in nulls.items()) + (
            f"\nFROM {source};\n")

    text = HEADER + select(sources)
    if sqlite:
        text += "\n" + HEADER.replace("records\n", "records\n-- dialect: sqlite\n") + select(
            {**sources, **sqlite})
    (site / f"{of}.sql").write_text(text)
    return site


def line_of(path: Path, text: str) -> str:
    """'file:line: the line' of the first line holding `text` (as check-sql names it)."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return f"{path}:{n}: {line.strip()}"
    raise AssertionError(text)


def check(settings: dict[str, Any], *args: str, serve: str = "transactions"
          ) -> tuple[int, str]:
    app = create_app({"database": settings, "collections": {"serve": [serve]}})
    result = app.test_cli_runner().invoke(args=["check-sql", *args])
    return result.exit_code, result.output


def proof_lines(output: str, collection: str = "transactions") -> list[str]:
    """The proof's line of a collection's section and the findings under it."""
    section = output.split(f"\n{collection} (", 1)[1].split("\n\n", 1)[0].split("\n")
    start = next(i for i, line in enumerate(section) if line.startswith("  proof on "))
    return [line.strip() if i else line for i, line in enumerate(section[start:])]


# -- a table of the plant's own, on each engine ---------------------------------------------

TYPES = {  # column -> its type on sqlite, postgresql, mssql
    "NoTiket": ("INTEGER", "INTEGER", "int"),
    "TglJam": ("DATETIME", "TIMESTAMP", "datetime"),
    "Jam": ("TEXT", "TIME", "varchar(8)"),
    "KodeBarang": ("TEXT", "CHAR(10)", "char(10)"),
    "KodeAngka": ("INTEGER", "INTEGER", "int"),
    "Bruto": ("REAL", "DOUBLE PRECISION", "float"),
}


def plant_table(request: pytest.FixtureRequest, engine: str, tmp_path: Path,
                rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The `database` settings of a database holding the table "Timbangan" (TYPES) with
    exactly these rows, on `engine`."""
    return own_table(request, engine, tmp_path / "plant.sqlite3", "Timbangan", TYPES, rows)


# -- a plant's silent wrong answer ------------------------------------------------------------

@pytest.mark.parametrize("engine", FILE_ENGINES)
def test_a_date_with_a_time_after_it_fails_check_sql(engine: str, tmp_path: Path) -> None:
    """One text column per weighing moment, mapped whole to tgl_dt1 with jam_dt1 NULL:
    before, check-sql passed, a record by key looked right and a one-day range found none."""
    path = tmp_path / "plant.sqlite3"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE "Timbangan" ("NoTiket" INTEGER PRIMARY KEY, "NoPolisi" TEXT, '
                '"WaktuTimbang1" TEXT, "Bruto" REAL)')
    rows = [(1, "L 1234 AB", "2026-11-24 07:05:00", 30120.0),
            (2, "L 5678 CD", "2026-11-24 13:40:00", 28000.0),
            (3, "W 9 XY", "2026-11-25 06:00:00", 25000.0)]
    con.executemany('INSERT INTO "Timbangan" VALUES (?, ?, ?, ?)', rows)
    con.commit()
    con.close()
    site = mapping(tmp_path / "site", {"id": '"NoTiket"', "vehno": '"NoPolisi"',
                                       "tgl_dt1": '"WaktuTimbang1"', "weigh1": '"Bruto"'})
    code, output = check(database_settings(engine, path) | {"sql_dir": str(site)})
    assert code == 1, output
    records = site / "transactions.sql"
    assert (f"      tgl_dt1: '2026-11-24 07:05:00' (str) is not a date (YYYY-MM-DD): a date "
            f"with a time after it, which a date range misses; it comes from "
            f"{line_of(records, TGL_DT1)}") in output.split("\n")

    def cause(value: str) -> str:
        return (f"tgl_dt1 holds {value!r}, a date with a time after it: on SQLite write "
                f'date("WaktuTimbang1") for tgl_dt1 and time("WaktuTimbang1") for jam_dt1')

    # Each record's own moment: the text compares after the day's bounds, so no range at it
    # finds it (the cause is told with the first record's value). The feed from a stamp
    # reads from the day on, where the text is after every bound: from 13:40 on the 24th
    # its first record is the one of 07:05, not id 2.
    assert proof_lines(output) == [
        "  proof on 3 records     ERROR",
        f"tgl_dt1: the range on=dt1 from its own moment to it does not find id 1, id 2, id 3: "
        f"{cause(rows[0][2])}",
        f"tgl_dt1: the range on=dt1 from a day before its moment to it (across the midnight "
        f"before it), paged does not find id 1, id 2, id 3: {cause(rows[0][2])}",
        f"tgl_dt1: the feed (/transactions/changes?on=dt1) from its stamp does not find id 2: "
        f"{cause(rows[1][2])}"]
    assert output.endswith("\n1 query with problems, 3 reads that miss or repeat a sampled "
                           "record\n")
    # Without the proof at the first read (below), the service still refuses the record, as
    # it refuses every value that does not fit: the record by key no longer looks right, and
    # a range over three days is no partial answer.
    client = create_app({"database": database_settings(engine, path) | {
        "sql_dir": str(site), "prove_on_first_read": False}}).test_client()
    for url in ("/transactions/1", "/transactions/date/2026-11-23/00:00/2026-11-25/23:59:59"):
        response = client.get(url)
        body = response.get_json()
        assert (response.status_code, body["message"]) == (500, (
            f"This site's mapping of transactions gives tgl_dt1 a value that is not a date "
            f"(YYYY-MM-DD), so no record is sent. The operator can find it in the log under "
            f"request id {body['request_id']}.")), url


# -- mapping mistakes whose values fit, on every engine --------------------------------------

def test_a_join_that_repeats_a_record(make_database: Callable[..., dict[str, Any]],
                                      tmp_path: Path) -> None:
    database = make_database({
        "products": [{"id": 1, "ProductCode": "P1", "ProductName": "Pasir"},
                     {"id": 2, "ProductCode": "P1", "ProductName": "Pasir (kode lama)"}],
        "transactions": [
            {"id": 1, "tgl_dt1": "2026-11-24", "jam_dt1": "07:05:00", "productcode": "P1"},
            {"id": 2, "tgl_dt1": "2026-11-24", "jam_dt1": "08:00:00", "productcode": "P2"}]})
    site = mapping(tmp_path / "site", {f: f'"t".{quote(f)}' if f != "cancelled" else "0"
                                       for f in TRANSACTIONS.fields},
                   source='"transactions" AS "t"\n    LEFT JOIN "products" AS "p" '
                          'ON "p"."ProductCode" = "t"."productcode"')
    code, output = check(database | {"sql_dir": str(site)})
    assert code == 1, output
    cause = (f"the records query gives this record 2 times (a JOIN that matches more than "
             f"one row, or a row the table holds twice): join on a column that is unique, "
             f"see {site / 'transactions.sql'}:1")
    # id 2 is read once everywhere; id 1 twice by every read (the filters and the summary
    # are asked only within a range that found a record once).
    assert proof_lines(output) == [
        "  proof on 2 records     ERROR",
        f"id: the record by key (/transactions/<id>) finds more than once id 1: {cause}",
        f"tgl_dt1: the range on=dt1 from its own moment to it finds more than once id 1: "
        f"{cause}",
        f"tgl_dt1: the range on=dt1 from a day before its moment to it (across the midnight "
        f"before it), paged finds more than once id 1: {cause}",
        f"tgl_dt1: the feed (/transactions/changes?on=dt1) from its stamp finds more than "
        f"once id 1: {cause}"]


def test_a_key_mapped_to_a_column_that_is_not_unique(
        make_database: Callable[..., dict[str, Any]], tmp_path: Path) -> None:
    database = make_database({"transactions": [
        {"id": 1, "weighsource1": 7, "tgl_dt1": "2026-11-24", "jam_dt1": "07:05:00"},
        {"id": 2, "weighsource1": 7, "tgl_dt1": "2026-11-24", "jam_dt1": "08:00:00"},
        {"id": 3, "weighsource1": 8, "tgl_dt1": "2026-11-24", "jam_dt1": "09:00:00"}]})
    site = tmp_path / "site"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    records = site / "transactions.sql"
    records.write_text(records.read_text().replace('"id" AS "id"', '"weighsource1" AS "id"'))
    code, output = check(database | {"sql_dir": str(site)})
    assert code == 1, output
    line = line_of(records, '"weighsource1" AS "id"')
    assert proof_lines(output) == [
        "  proof on 3 records     ERROR",
        f"id: the record by key (/transactions/<id>) finds more than once id 7, id 7: id 7 "
        f"is held by 2 records, and /transactions/7 answers only the first: id comes from "
        f"{line}, which is not unique at this site; map id to the table's key (a column that "
        f"is unique)"]


PLANT = {"id": '"NoTiket"', "tgl_dt1": 'CAST("TglJam" AS date)',
         "jam_dt1": 'CAST("TglJam" AS time)', "productcode": '"KodeBarang"',
         "weigh1": '"Bruto"'}
PLANT_SQLITE = {"tgl_dt1": 'date("TglJam")', "jam_dt1": 'time("TglJam")'}


def test_a_date_mapped_to_the_datetime_column(request: pytest.FixtureRequest, engine: str,
                                              tmp_path: Path) -> None:
    """tgl_dt1 from the weighing's datetime instead of its date: every range compares the
    whole stamp with the day's bounds, and misses it on every engine."""
    rows = [{"NoTiket": 1, "TglJam": "2026-11-24 07:05:00", "Jam": "07:05:00",
             "KodeBarang": "PSR", "Bruto": 30120.0},
            {"NoTiket": 2, "TglJam": "2026-11-25 13:40:00", "Jam": "13:40:00",
             "KodeBarang": "BTU", "Bruto": 28000.0}]
    database = plant_table(request, engine, tmp_path, rows)
    site = mapping(tmp_path / "site", PLANT | {"tgl_dt1": '"TglJam"', "jam_dt1": '"Jam"'})
    code, output = check(database | {"sql_dir": str(site)})
    assert code == 1, output
    fix = ('on SQLite write date("TglJam")' if engine in FILE_ENGINES
           else 'on this database write CAST("TglJam" AS date)')
    value = ("'2026-11-24 07:05:00'" if engine == "sqlite3"
             else "2026-11-24 07:05:00 (a date and time)")
    cause = f"tgl_dt1 holds {value}, a date with a time after it: {fix} for tgl_dt1"
    assert proof_lines(output) == [
        "  proof on 2 records     ERROR",
        f"tgl_dt1: the range on=dt1 from its own moment to it does not find id 1, id 2: "
        f"{cause}",
        f"tgl_dt1: the range on=dt1 from a day before its moment to it (across the midnight "
        f"before it), paged does not find id 1, id 2: {cause}"]
    misfit = ("'2026-11-24 07:05:00' (str)" if engine == "sqlite3"  # ODBC: a datetime
              else "datetime.datetime(2026, 11, 24, 7, 5) (datetime)")
    assert (f"      tgl_dt1: {misfit} is not a date (YYYY-MM-DD): a date with a time after "
            f"it, which a date range misses; it comes from "
            f"{line_of(site / 'transactions.sql', TGL_DT1)}") in output.split("\n")


def test_a_code_with_blanks_after_it_is_found_by_its_own_value(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> None:
    """A code column that keeps blanks after the code (CHAR(10) on PostgreSQL and SQL
    Server pads it; the SQLite table holds them as written): the record shows the code
    without them (docs/api.md §4), and an `=` filter with that value finds it where `=`
    ignores trailing blanks (SQL Server; PostgreSQL's CHAR). On SQLite it does not: the
    proof says to trim the column in the mapping, and with RTRIM the proof holds."""
    rows = [{"NoTiket": 1, "TglJam": "2026-11-24 07:05:00", "KodeBarang": "PSR       ",
             "Bruto": 30120.0}]
    database = plant_table(request, engine, tmp_path, rows)
    site = mapping(tmp_path / "site", PLANT, sqlite=PLANT_SQLITE)
    code, output = check(database | {"sql_dir": str(site)})
    if engine in FILE_ENGINES:
        assert code != 0, output
        assert proof_lines(output) == [
            "  proof on 1 record      ERROR",
            "productcode: the filter productcode=<its productcode> in the range on=dt1 at its "
            "moment does not find id 1: productcode holds 'PSR       ', with blanks around it, "
            "which `=` on this database does not compare as the record shows it: write "
            'RTRIM(LTRIM("KodeBarang")) for productcode']
        trim = {"productcode": 'RTRIM("KodeBarang")'}
        site = mapping(tmp_path / "trimmed", PLANT | trim, sqlite=PLANT_SQLITE | trim)
        code, output = check(database | {"sql_dir": str(site)})
    assert code == 0, output
    assert proof_lines(output) == ["  proof on 1 record      OK"]


def test_a_code_from_a_number_column_is_found_by_its_own_value(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> None:
    """productcode from a column of numbers: sent as text ("12"), and the filter with that
    text finds it on every engine (each converts one side)."""
    rows = [{"NoTiket": 1, "TglJam": "2026-11-24 07:05:00", "KodeAngka": 12,
             "Bruto": 30120.0}]
    database = plant_table(request, engine, tmp_path, rows)
    site = mapping(tmp_path / "site", PLANT | {"productcode": '"KodeAngka"'},
                   sqlite=PLANT_SQLITE)
    code, output = check(database | {"sql_dir": str(site)})
    assert code == 0, output
    assert proof_lines(output) == ["  proof on 1 record      OK"]


@pytest.mark.parametrize("engine", FILE_ENGINES)
def test_a_number_code_kept_as_text_with_a_blank(request: pytest.FixtureRequest, engine: str,
                                                 tmp_path: Path) -> None:
    """A batch's recipe number in a text column, written ' 3': it fits its integer field
    (3), but `recipe=3` compares the text with the number, and SQLite compares 3 as text,
    '3' with ' 3': the filter misses it (SQL Server would convert the text to a number)."""
    rows = [{"NoTiket": n, "TglJam": f"2026-11-24 0{n}:00:00", "KodeBarang": " 3",
             "Bruto": 1.0} for n in (1, 2)]
    database = plant_table(request, engine, tmp_path, rows)
    site = mapping(tmp_path / "site", {
        "no_produksi": '"NoTiket"', "tanggal": 'CAST("TglJam" AS date)',
        "jam": 'CAST("TglJam" AS time)', "recipe": '"KodeBarang"'}, of="bricon2",
        sqlite={"tanggal": 'date("TglJam")', "jam": 'time("TglJam")'})
    code, output = check(database | {"sql_dir": str(site)}, serve="bricon2")
    assert code == 1, output
    assert proof_lines(output, "bricon2") == [
        "  proof on 2 records     ERROR",
        "recipe: the filter recipe=<its recipe> in the range on=tanggal at its moment does "
        "not find numberrow 1, numberrow 2: recipe holds ' 3', a number kept as text, "
        'which `=` compares as text with the number a client sends: write CAST("KodeBarang" '
        "AS int) for recipe"]


# -- a correct mapping ---------------------------------------------------------------------

def weighing(n: int, day: str, clock: str) -> dict[str, Any]:
    return {"id": n, "tgl_dt1": day, "jam_dt1": clock, "tgl_dt2": day, "jam_dt2": None,
            "tgl_create": day, "jam_create": clock, "tgl_update": day, "jam_update": "23:59:59",
            "productcode": f"P{n % 2}", "custcode": "C1", "transcode": None,
            "vehno": f"L {n} AB", "recno": f"TB-{n:04d}", "weigh1": 30000.0 + n,
            "weigh2": 11000.0}


def test_the_shipped_mapping_proves_every_read(make_database: Callable[..., dict[str, Any]],
                                               engine: str) -> None:
    """Records at midnight, at the last second of a day, several at one moment, a NULL
    time, a NULL date and a time with a fraction of a second (which a range of whole
    seconds holds from its second to the next): every read finds each of them once, on
    every engine; but the SQLite ODBC driver shows that time without its fraction."""
    transactions = [weighing(1, "2026-11-23", "00:00:00"), weighing(2, "2026-11-23", "23:59:59"),
                    weighing(3, "2026-11-24", "07:05:00"), weighing(4, "2026-11-24", "07:05:00"),
                    weighing(5, "2026-11-24", "07:05:00") | {"jam_dt1": None},
                    weighing(6, "2026-11-25", "12:00:00") | {"tgl_dt1": None},
                    weighing(7, "2026-11-25", "06:30:15.250000") | {"jam_create": "06:30:15"}]
    database = make_database({
        "transactions": transactions,
        "customers": [{"id": 1, "CustCode": "C1", "CustName": "PT Maju"}],
        "vehicles": [{"id": 1, "Number": "L 1 AB", "TransCode": "T1",
                      "tgl_create": "2026-11-20", "jam_create": "08:00:00",
                      "tgl_expired": "2027-11-20", "jam_expired": None}],
        "bricon2": [{"no_produksi": n, "no_produksi_": 1, "tanggal": "2026-11-24",
                     "jam": f"0{n}:00:00", "recipe": 3} for n in (1, 2)]})
    app = create_app({"database": database})
    result = app.test_cli_runner().invoke(args=["check-sql"])
    assert result.exit_code == (1 if engine == "odbc" else 0), result.output
    counts = {"customers": 1, "transactions": 7, "vehicles": 1, "bricon2": 2}
    # Through the SQLite ODBC driver a TIME column's text '06:30:15.250000' arrives as
    # 06:30:15, a moment at which a range misses it (docs/adapting.md: serve SQLite with `sqlite`).
    odbc = [f"tgl_dt1: the range on=dt1 {read} does not find id 7: jam_dt1 is shown as "
            f"06:30:15, which the SQLite ODBC driver made of the text the column holds (by its "
            f"declared type), and the range compares that text: serve a SQLite file with "
            f"`sqlite`, not through ODBC" for read in (
                "from its own moment to it", "from a day before its moment to it (across the "
                "midnight before it), paged")]
    for c in COLLECTIONS:
        n = counts.get(c.name, 0)
        label = f"proof on {n} record" + ("s" if n != 1 else "")
        found = odbc if engine == "odbc" and c.name == "transactions" else []
        assert proof_lines(result.output, c.name) == [
            f"  {label:<22} {'ERROR' if found else 'OK'}", *found], c.name
    if engine != "odbc":
        assert re.search(r"\nEvery query runs .* every read finds each of up to 20 sampled "
                         r"records of a collection exactly once", result.output)


@pytest.mark.parametrize("engine", FILE_ENGINES)
def test_a_mapping_the_first_read_disproves_is_not_served(engine: str, tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    """A plant's table served without check-sql: the first read of transactions proves
    it on three of its records, and from then on every route answers 503 "not mapped yet"
    naming tgl_dt1, /health says so, the log names the finding; a collection whose reads
    find their records (products, over the same file) is served."""
    path = tmp_path / "plant.sqlite3"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE "Timbangan" ("NoTiket" INTEGER PRIMARY KEY, "NoPolisi" TEXT, '
                '"WaktuTimbang1" TEXT, "Bruto" REAL)')
    con.executemany('INSERT INTO "Timbangan" VALUES (?, ?, ?, ?)',
                    [(1, "L 1234 AB", "2026-11-24 07:05:00", 30120.0),
                     (2, "L 5678 CD", "2026-11-24 13:40:00", 28000.0)])
    con.commit()
    con.close()
    site = mapping(tmp_path / "site", {"id": '"NoTiket"', "vehno": '"NoPolisi"',
                                       "tgl_dt1": '"WaktuTimbang1"', "weigh1": '"Bruto"'})
    mapping(site, {"id": '"NoTiket"', "ProductCode": '"NoPolisi"'}, of="products")
    # The proof runs in the background; a request waits for its verdict up to proof_wait
    # seconds (here long enough for any engine: the first request gets the verdict).
    client = create_app({"database": database_settings(engine, path) | {
        "sql_dir": str(site), "proof_dir": str(tmp_path / "proofs"), "proof_wait": 120},
        "collections": {"serve": ["transactions", "products"]}}).test_client()
    message = ("transactions is not mapped yet: 1 field mapped so that a read misses or "
               "repeats the site's own records in transactions.sql: tgl_dt1. Its records are "
               "not served until the operator maps those fields, runs `jembatan "
               "check-sql transactions` and restarts Jembatan.")
    for url in ("/transactions/1", "/transactions/date/2026-11-24/00:00/2026-11-24/23:59:59",
                "/transactions", "/transactions/1"):
        response = client.get(url)
        assert (response.status_code, response.get_json()) == (503, {
            "code": 503, "status": "Service Unavailable", "message": message,
            "unmapped": ["tgl_dt1"]}), url
    products = client.get("/products")
    assert products.status_code == 200
    assert [r["ProductCode"] for r in products.get_json()] == ["L 1234 AB", "L 5678 CD"]
    health = client.get("/health")
    assert health.get_json()["unmapped"] == {"transactions": ["tgl_dt1"]}
    warnings = [r.getMessage() for r in caplog.records if "not mapped yet: proven on" in
                r.getMessage()]
    assert len(warnings) == 1
    assert re.match(
        r"transactions is not mapped yet: proven on 3 of its records by jembatan serve \(pid "
        r"\d+\) at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00, ", warnings[0]), warnings[0]
    assert warnings[0].split("+00:00, ", 1)[1].startswith(
        "tgl_dt1: the range on=dt1 from its own moment to it does not find id 1, id 2: "
        "tgl_dt1 holds '2026-11-24 07:05:00', a date with a time after it: on SQLite write "
        'date("WaktuTimbang1") for tgl_dt1 and time("WaktuTimbang1") for jam_dt1;')


# -- a live table: a record changed between the proof's reads ---------------------------------

LIVE = [{"id": n, "tgl_dt1": "2026-11-24", "jam_dt1": f"07:{n:02d}:00", "vehno": f"B {n} X",
         "productcode": "P1", "tgl_update": "2026-11-24", "jam_update": f"08:{n:02d}:00"}
        for n in range(1, 13)]


def test_a_record_a_writer_changes_between_the_reads_is_no_finding(tmp_path: Path) -> None:
    """The sample read, then the plant's program deletes a voided ticket before the reads
    ask for it: one proof misses it, but a second proof on records sampled afresh finds
    nothing about that field, so neither check-sql nor the first read refuses the mapping."""
    from app.core import proof
    from tests.conftest import build_database

    path = build_database(tmp_path / "live.sqlite3", {"transactions": LIVE})
    app = create_app({"database": {"sqlite": str(path)},
                      "collections": {"serve": ["transactions"]}})
    db = services(app).db
    sampled = proof.sample(db, TRANSACTIONS)
    writer = sqlite3.connect(path)  # the last sampled record: a ticket voided
    writer.execute('DELETE FROM "transactions" WHERE "id" = 12')
    writer.commit()
    writer.close()
    assert {f.field for f in proof.prove(db, TRANSACTIONS, sampled)} >= {"id"}  # the race
    assert proof.confirmed(db, TRANSACTIONS, sampled) == []


def test_a_record_written_into_the_range_while_it_is_paged_is_no_finding(tmp_path: Path
                                                                         ) -> None:
    """The plant's PCs stamp new weighings seconds behind the clock, so each lands in the
    ranges before the sampled records' moments. One written after the paged range was counted
    moves each record off the page the count points to (CI saw it: every route of a live
    table refused as "not mapped yet"). The proof reads the count again, and the page again
    when the range changed: no finding, and the record found on the page it is on."""
    from app.core import proof
    from tests.conftest import build_database

    path = build_database(tmp_path / "live.sqlite3", {"transactions": LIVE})
    app = create_app({"database": {"sqlite": str(path)},
                      "collections": {"serve": ["transactions"]}})
    db = services(app).db
    sampled = proof.sample(db, TRANSACTIONS)
    counted, seen, written = db.scalar, set(), []

    def count_then_write(stem: str, query: Any, values: Mapping[str, Any] | None = None,
                         filters: Any = ()) -> int:
        """Each paged range's first count, then a weighing written into that range."""
        answer = counted(stem, query, values, filters)
        name = str(query)  # as sql/<stem>.sql names it: range_dt1_count
        key = (name, repr(sorted((values or {}).items())))
        if name.startswith("range_") and name.endswith("_count") and key not in seen:
            seen.add(key)
            n = 100 + len(written)
            with sqlite3.connect(path) as writer:  # committed when the block ends
                writer.execute(
                    'INSERT INTO "transactions" ("id", "tgl_dt1", "jam_dt1", "tgl_update", '
                    '"jam_update") VALUES (?, ?, ?, ?, ?)',
                    (n, "2026-11-24", "06:00:00", "2026-11-24", "06:00:00"))
            writer.close()
            written.append(n)
        return answer

    db.scalar = count_then_write  # the same database, a real writer at the race's moment
    assert proof.prove(db, TRANSACTIONS, sampled) == []
    assert len(written) >= 2 * len(proof.chosen(TRANSACTIONS, sampled))  # dt1 and update
