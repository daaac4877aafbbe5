"""Names from wherever the plant keeps them: a site's `names.sql` (docs/adapting.md "Names without
master tables"). At a small plant the ticket row carries the names (NamaBarang, NamaRelasi)
and there is no product or customer table; the worked example docs/examples/names (its
transactions.sql over the ticket table TBL_TIMBANG, and its names.sql) serves transactions
alone, and the summaries grouped by productcode and custcode answer the tickets' names.

Every expected name is computed here from the rows inserted (tests/helpers.py
`grouped`, whose `name_of`, given rows without an id, takes the least non-null name of the
rows whose code is the same as the engine compares strings), on every engine.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from flask.testing import FlaskClient

from app import create_app
from app.database.sqltext import QueryFileError
from app.model.labels import FIELD_LABELS
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import MakeClient, insert_rows
from tests.contract import PAIRS, same_text
from tests.helpers import grouped, in_range, keys, weighing
from tests.tickets import (
    EXAMPLE,
    ROOT,
    TICKET_COLUMNS,
    TICKETS,
    contract_row,
    example_sql,
    masters,
    ticket_settings,
)

START, END = "2026-03-09T00:00:00", "2026-03-11T23:59:59"
URL = "/transactions/summary/2026-03-09/00:00/2026-03-11/23:59:59"


@pytest.fixture(scope="module")
def ticket_site(request: pytest.FixtureRequest, module_engine: str,
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example site's settings over one ticket table per engine for the module's tests
    that only read it (building the table and the app for each test was their time)."""
    return ticket_settings(request, module_engine, tmp_path_factory.mktemp("tickets"))


@pytest.fixture(scope="module")
def tickets(ticket_site: dict[str, Any]) -> FlaskClient:
    return create_app(ticket_site).test_client()


def want(by: str, engine: str) -> list[dict[str, Any]]:
    rows = in_range([contract_row(t) for t in TICKETS], PAIRS["dt1"], START, END)
    return grouped(rows, by.split(","), PAIRS["dt1"], weighing, masters(TICKETS),
                   same_text(engine))


# -- the summaries ------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["productcode", "custcode", "productcode,custcode,transcode",
                                "direction,productcode", "day,custcode"])
def test_the_summaries_name_codes_from_the_tickets(tickets: FlaskClient, module_engine: str,
                                                   by: str) -> None:
    got = tickets.get(f"{URL}?by={by}")
    assert got.status_code == 200, got.get_json()
    assert got.get_json() == want(by, module_engine)
    assert keys(got.get_json()) == keys(want(by, module_engine))  # each name right after its code


def test_what_the_names_are(tickets: FlaskClient, module_engine: str) -> None:
    """The cases spelled out, beside the computed answer."""
    server = module_engine == "mssql"  # trailing blanks and case do not count under its collation
    products = {g["productcode"]: g["productname"]
                for g in tickets.get(f"{URL}?by=productcode").get_json()}
    assert products == {None: None, "FG001": "Bata Ringan 10 cm", "RM001": "Pasir Lumajang",
                        "RM002": "Kapur Tohor" if server else None, "RM003": "Semen Gresik"}
    customers = {g["custcode"]: g["custname"]
                 for g in tickets.get(f"{URL}?by=custcode").get_json()}
    assert customers == {None: None, "CUS-1": "Toko Bangunan Jaya",
                         "SUP-1": "CV Sumber Rejeki", "SUP-2": "UD Kapur Jaya" if server else None,
                         "SUP-3": "PT Semen Gresik"}
    # No transporters query and no transporters served: null, the answer keeps its shape.
    assert tickets.get(f"{URL}?by=transcode").get_json()[0] == {
        "transcode": None, "transname": None, **weighing(
            in_range([contract_row(t) for t in TICKETS], PAIRS["dt1"], START, END))}


def test_csv_and_the_workbook_carry_the_names(tickets: FlaskClient, module_engine: str
                                              ) -> None:
    by = "direction,productcode,custcode"
    expected = want(by, module_engine)
    names = list(expected[0])
    got = tickets.get(f"{URL}?by={by}&format=csv")
    assert got.status_code == 200
    assert list(csv.reader(io.StringIO(got.get_data(as_text=True)))) == [names] + [
        ["" if g[n] is None else str(g[n]) for n in names] for g in expected]
    got = tickets.get(f"{URL}?by={by}&format=xlsx")
    assert got.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(got.get_data())).worksheets[0]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    # Headed by the default labels (docs/api.md §5.8): the names' columns too.
    assert rows == [[FIELD_LABELS.get(n, n) for n in names]] + [[g[n] for n in names]
                                                                for g in expected]
    assert [r[names.index("productname")] for r in rows[1:]] == [
        g["productname"] for g in expected]


def test_names_sql_comes_before_a_served_master(make_client: MakeClient, tmp_path: Path) -> None:
    """Where names.sql has a query for a master, the summaries read it even where the site
    serves that master collection; where it has none, the collection's records, as before."""
    site = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    (site / "names.sql").write_text(
        "-- name: products\n-- The material's name in the weighing's remark.\n"
        'SELECT "productcode" AS "ProductCode", "remark" AS "ProductName"\n'
        'FROM "transactions";\n\n'
        "-- name: transporters\n-- A haulier's name in its trucks' Opt1.\n"
        'SELECT "TransCode" AS "TransCode", "Opt1" AS "TransName" FROM "vehicles";\n',
        encoding="utf-8")
    weighings = [{"id": n, "tgl_dt1": "2026-03-10", "jam_dt1": "08:00:00", "weigh1": 9000.0,
                  "weigh2": 3000.0, "productcode": code, "custcode": "SUP-1", "remark": remark}
                 for n, (code, remark) in enumerate([("RM001", "Pasir (remark)"),
                                                     ("RM001", None), ("RM002", None)], 1)]
    vehicles = [{"id": n, "Number": f"L {n} A", "TransCode": code, "Opt1": name,
                 "tgl_create": "2026-03-10", "jam_create": "09:00:00"}
                for n, (code, name) in enumerate([("TR01", "CV Armada (Opt1)"), ("TR01", None),
                                                  ("TR02", None)], 1)]
    rows = {"transactions": weighings, "vehicles": vehicles,
            "products": [{"id": 1, "ProductCode": "RM002", "ProductName": "Kapur (master)"}],
            "customers": [{"id": 1, "CustCode": "SUP-1", "CustName": "CV Sumber (master)"}],
            "transporters": [{"id": 1, "TransCode": "TR02", "TransName": "PT Trans (master)"}]}
    client = make_client(rows, database={"sql_dir": str(site)})
    got = client.get(f"{URL}?by=productcode,custcode").get_json()
    assert [(g["productcode"], g["productname"], g["custcode"], g["custname"]) for g in got] == [
        ("RM001", "Pasir (remark)", "SUP-1", "CV Sumber (master)"),
        ("RM002", None, "SUP-1", "CV Sumber (master)")]
    got = client.get("/vehicles/summary/2026-03-10/00:00/2026-03-10/23:59:59?by=TransCode")
    assert got.get_json() == [{"TransCode": "TR01", "TransName": "CV Armada (Opt1)", "records": 2},
                              {"TransCode": "TR02", "TransName": None, "records": 1}]
    checked = client.application.test_cli_runner().invoke(args=["check-sql"])
    assert checked.exit_code == 0, checked.output
    assert ("  products               OK (read instead of the products records)\n"
            "  transporters           OK (read instead of the transporters records)\n"
            ) in checked.output


def test_the_start_log_says_where_the_names_come_from(request: pytest.FixtureRequest,
                                                     tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    settings = ticket_settings(request, "sqlite3", tmp_path)
    with caplog.at_level("INFO", logger="jembatan"):
        create_app(settings)
    site = Path(settings["database"]["sql_dir"])
    assert (f"names beside codes of products, customers: from {site / 'names.sql'}"
            in caplog.messages)


# -- check-sql ----------------------------------------------------------------------------------


def test_check_sql_runs_and_shows_the_names(ticket_site: dict[str, Any]) -> None:
    settings = ticket_site  # an app of its own over the module's ticket table
    runner = create_app(settings).test_cli_runner()
    result = runner.invoke(args=["check-sql"])
    assert result.exit_code == 0, result.output
    site = Path(settings["database"]["sql_dir"])
    assert (f"\nnames.sql (the names beside the summaries' codes, {site / 'names.sql'})\n"
            f"  products               OK\n  customers              OK\n") in result.output
    assert "  summary_dt1 by=productcode,custcode,transcode,direction OK" in result.output

    shown = runner.invoke(args=["check-sql", "--show"]).output
    assert ("productname from names.sql by name_from, custname from names.sql by name_from, "
            "transname from nowhere: null") in shown
    assert f"-- names.products: A material's name, as the tickets carry it beside its code.\n" \
           f"-- from {site / 'names.sql'}:8; the summaries read it as \"names_products\"\n" \
           f'SELECT "KodeBarang" AS "ProductCode", "NamaBarang" AS "ProductName"\n' \
           f'FROM "TBL_TIMBANG";\n' in shown
    assert ('"names_products" AS (\nSELECT "KodeBarang" AS "ProductCode", "NamaBarang" AS '
            '"ProductName"\nFROM "TBL_TIMBANG"\n)') in shown
    # The group trimmed as text: PostgreSQL has no rtrim() of a number (docs/api.md §7).
    code = ('CAST("grouped"."productcode" AS TEXT)'
            if "PostgreSQL" in settings["database"].get("odbc", "") else '"grouped"."productcode"')
    assert ('(SELECT MIN("named"."ProductName")\n        FROM "names_products" AS "named"\n'
            f'        WHERE "named"."ProductCode" = MIN(RTRIM({code}))) '
            'AS "productname"') in shown


def test_check_sql_names_a_names_query_that_is_wrong(tmp_path: Path) -> None:
    """A names query that gives a column too many, and one whose name column is not there,
    which SQLite quietly takes for a string: every code would be named "NamaBarang"."""
    site = example_sql(tmp_path)
    names = site / "names.sql"
    names.write_text(names.read_text(encoding="utf-8").replace(
        '"NamaRelasi" AS "CustName"', '"NamaRelasi" AS "CustName", "Sopir" AS "Driver"'),
        encoding="utf-8")
    database = tmp_path / "tickets.sqlite3"
    con = sqlite3.connect(database)
    con.execute('CREATE TABLE "TBL_TIMBANG" (' + ", ".join(
        f'"{c}" {t}' for c, t in TICKET_COLUMNS.items() if c != "NamaBarang") + ")")
    insert_rows(con, {"TBL_TIMBANG": [{k: v for k, v in t.items() if k != "NamaBarang"}
                                      for t in TICKETS]})
    con.commit()
    con.close()
    app = create_app({"database": {"sqlite": str(database), "sql_dir": str(site)},
                      "collections": {"serve": ["transactions"]}})
    result = app.test_cli_runner().invoke(args=["check-sql"])
    assert result.exit_code == 1
    assert result.output.endswith(
        "  products               ERROR\n"
        '      every ProductName is the text "NamaBarang": no such column, which SQLite '
        "takes for a string\n"
        "  customers              ERROR\n"
        "      returns the columns CustCode, CustName, Driver, not CustCode, CustName\n"
        "\n2 queries with problems\n")


# -- refused at start ---------------------------------------------------------------------------

SELECT = 'SELECT "KodeBarang" AS "ProductCode", "NamaBarang" AS "ProductName" FROM "T"'


@pytest.mark.parametrize(("text", "line", "message"), [
    (f"-- name: barang\n-- Names.\n{SELECT};\n", 1,
     "unknown query name 'barang'; names.sql may hold: products, customers, transporters"),
    ('-- name: products\n-- Names.\nSELECT "KodeBarang" AS "ProductCode", "NamaBarang" '
     'FROM "T";\n', 1,
     'products gives no "ProductName": write the code column as ... AS "ProductCode" and '
     'the name column as ... AS "ProductName", e.g. SELECT "KODE" AS "ProductCode", "NAMA" '
     'AS "ProductName" FROM "TABLE"'),
    (f"-- name: customers\n-- Names.\n{SELECT};\n", 1, 'customers gives no "CustCode"'),
    (f"-- name: products\n-- Names.\nWITH t AS ({SELECT}) SELECT * FROM t;\n", 1,
     "this query must start with SELECT (Jembatan is read-only), found WITH"),
    ("-- name: products\n-- Names.\nDELETE FROM \"T\";\n", 1,
     "this query must start with SELECT or WITH (Jembatan is read-only), found DELETE"),
    (f"-- name: products\n-- Names.\n{SELECT} WHERE \"Aktif\" = :aktif;\n", 1,
     "products takes no parameters (found :aktif); the summaries look each code up "
     "themselves"),
    (f"-- name: products\n-- Names.\n{SELECT} ORDER BY 1;\n", 1,
     "products may not be ordered (ORDER BY): the summaries pick one name per code "
     "themselves, and SQL Server refuses ORDER BY in a common table expression"),
    (f"-- name: products\n-- Names.\n{SELECT};\n\n-- name: products\n-- Again.\n{SELECT};\n",
     5, "duplicate query 'products', first at"),
    (f"-- name: products\n-- dialect: sqlite\n-- Names.\n{SELECT};\n", 1,
     "a '-- dialect: sqlite' text of 'products' needs a main text of the same name"),
    (f"{SELECT};\n-- name: products\n-- Names.\n{SELECT};\n", 1,
     "SQL before the first '-- name:' line"),
])
def test_a_malformed_names_file_stops_the_start(tmp_path: Path, text: str, line: int,
                                                message: str) -> None:
    site = example_sql(tmp_path)
    (site / "names.sql").write_text(text, encoding="utf-8")
    with pytest.raises(QueryFileError) as caught:
        create_app({"database": {"sqlite": str(tmp_path / "none.sqlite3"),
                                 "sql_dir": str(site)},
                    "collections": {"serve": ["transactions"]}})
    assert str(caught.value).startswith(f"{site / 'names.sql'}:{line}: {message}"), \
        str(caught.value)


def test_a_malformed_names_file_is_one_line_from_gunicorn(tmp_path: Path) -> None:
    site = example_sql(tmp_path)
    (site / "names.sql").write_text(
        "-- name: products\n-- The tickets' names.\n"
        'SELECT "KodeBarang" AS "ProductCode", "NamaBarang" AS "Nama" FROM "TBL_TIMBANG";\n',
        encoding="utf-8")
    config = tmp_path / "site.toml"
    config.write_text(f'[database]\nsqlite = "{tmp_path / "none.sqlite3"}"\n'
                      f'sql_dir = "{site}"\n\n[collections]\nserve = ["transactions"]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    done = subprocess.run([str(Path(sys.executable).parent / "gunicorn"), "--check-config",
                           "wsgi:app"], cwd=ROOT, env=env | {"JEMBATAN_CONFIG": str(config)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (
        f'jembatan: {site / "names.sql"}:1: products gives no "ProductName": write the code '
        f'column as ... AS "ProductCode" and the name column as ... AS "ProductName", e.g. '
        f'SELECT "KODE" AS "ProductCode", "NAMA" AS "ProductName" FROM "TABLE"\n')


def test_a_site_shapes_file_without_name_from(tmp_path: Path) -> None:
    """A site's own shapes.sql copied before name_from existed still starts; with a
    names.sql beside it, the start says which query to copy."""
    site = example_sql(tmp_path, names=False)
    shapes = (SHIPPED_SQL_DIR / "shapes.sql").read_text(encoding="utf-8")
    start = shapes.index("-- name: name_from")
    end = shapes.index("\n-- ", shapes.index(";", start))
    (site / "shapes.sql").write_text(shapes[:start] + shapes[end + 1:], encoding="utf-8")
    database = tmp_path / "empty.sqlite3"
    sqlite3.connect(database).close()
    settings = {"database": {"sqlite": str(database), "sql_dir": str(site)},
                "collections": {"serve": ["transactions"]}}
    create_app(settings)
    shutil.copy(EXAMPLE / "names.sql", site)
    with pytest.raises(QueryFileError) as caught:
        create_app(settings)
    assert str(caught.value) == (f"{site / 'shapes.sql'}: missing query name_from, which "
                                 f"names.sql needs (copy it from Jembatan's sql/shapes.sql)")
