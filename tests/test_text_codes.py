"""Codes as a plant's SQL Server holds them (docs/api.md §4 "Values on the wire"; docs/adapting.md,
"A master keyed by a code"): text sent without its trailing blanks, and a master keyed by a
text code (`MST_CUST (KD_CUST varchar(10) PRIMARY KEY, ...)`, no integer id) served with
lookups by that code, on every engine.

The plant's table holds its codes padded, as the vendor program writes them (a CHAR column
pads them on every engine but SQLite; the rows here are padded already). On SQL Server `=`
ignores trailing blanks, so the mapping gives the column as it is; on SQLite and PostgreSQL
text compares exactly, so the mapping there gives `RTRIM("KD_CUST")`, as docs/adapting.md says.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import openpyxl
import pytest
from flask.testing import FlaskClient

from app import create_app
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import quote as quote_name
from tests.conftest import site_table
from tests.contract import PAIRS, same_text
from tests.helpers import Masters, grouped, in_range, weighing

TABLE = "MST_CUST"
# The plant's columns, with SQL Server's types, and the customers field each one gives
# (KD_CUST unique and indexed on SQL Server: `plant`).
COLUMNS = {"KD_CUST": "varchar(10)", "NM_CUST": "varchar(60)",
           "ALAMAT": "varchar(60)", "KOTA": "char(12)", "TELP": "nchar(15)",
           "KONTAK": "varchar(30)", "KET": "varchar(60)"}
FIELDS = {"KD_CUST": "CustCode", "NM_CUST": "CustName", "ALAMAT": "Address", "KOTA": "City",
          "TELP": "Phone", "KONTAK": "Contact", "KET": "Remark"}
# Codes as the vendor writes them: padded to the column's width, one that reads as a number,
# and some that a URL must encode ('/', ' ', '%', '#', '?', '&', a letter outside ASCII).
# Chosen so that every collation orders them as Python orders their trimmed text.
CODES = ["007", "A/B", "C005", "X Y%#?", "Z\u00e9&1"]
WIDTHS = {"KD_CUST": 10, "KOTA": 12, "TELP": 15}


def padded(column: str, value: str | None) -> str | None:
    """The value as the plant stores it: a code padded to its column's width, any other text
    with the blanks a vendor program leaves after it."""
    if value is None:
        return None
    return value.ljust(WIDTHS[column]) if column in WIDTHS else value + "   "


def plant_rows() -> list[dict[str, Any]]:
    """MST_CUST's rows: per code a name, an address with blanks inside it, a city, a phone,
    a remark ending in a tab (which is the remark's own) and one NULL."""
    rows = []
    for n, code in enumerate(CODES):
        row = {"KD_CUST": code, "NM_CUST": f"PT Pelanggan {n}", "ALAMAT": f"Jl.  Raya {n}  No. 1",
               "KOTA": "Medan", "TELP": f"0812 {n}", "KONTAK": None if n == 2 else f"Ibu {n}",
               "KET": f"catatan {n}\t"}
        rows.append({c: padded(c, v) for c, v in row.items()})
    return rows


def wire(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The customers records these rows are, computed from them alone: every text without
    its trailing blanks (spaces only), the code as the id."""
    def sent(v: str | None) -> str | None:
        return None if v is None else v.rstrip(" ")
    return sorted(({"id": sent(r["KD_CUST"]), **{f: sent(r[c]) for c, f in FIELDS.items()}}
                   for r in rows), key=lambda r: r["id"])


def mapping(engine: str) -> str:
    """sql/customers.sql of the plant: the code as the key; trimmed where `=` counts blanks."""
    key = '"KD_CUST"' if engine == "mssql" else 'RTRIM("KD_CUST")'
    lines = [f'    {key} AS "id"'] + [f'    {key if c == "KD_CUST" else quote_name(c)} AS "{f}"'
                                       for c, f in FIELDS.items()]
    return ("-- name: records\n-- MST_CUST, keyed by its code KD_CUST.\nSELECT\n"
            + ",\n".join(lines) + f'\nFROM "{TABLE}";\n')


@pytest.fixture
def plant(request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> FlaskClient:
    """The service over MST_CUST on this test's engine, customers keyed by KD_CUST."""
    database = site_table(request, engine, tmp_path / "plant.sqlite3", TABLE, COLUMNS,
                          plant_rows())
    if engine == "mssql":  # KD_CUST unique and indexed, as the plant's primary key is
        # (Babelfish cannot make a column NOT NULL after the insert that site_table makes).
        request.getfixturevalue("mssql_server").execute(
            f'CREATE UNIQUE INDEX "PK_{TABLE}" ON "{TABLE}" ("KD_CUST")')
    sql_dir = tmp_path / "sql"
    sql_dir.mkdir()
    (sql_dir / "customers.sql").write_text(mapping(engine), encoding="utf-8")
    app = create_app({"database": database | {"sql_dir": str(sql_dir),
                                               "prove_on_first_read": False},
                      "collections": {"serve": ["customers"], "text_keys": ["customers"]}})
    return app.test_client()


def test_records_come_trimmed_in_the_codes_order(plant: FlaskClient) -> None:
    expected = wire(plant_rows())
    response = plant.get("/customers")
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == expected
    assert [type(r["id"]) for r in response.get_json()] == [str] * len(CODES)


def test_pages_keep_the_codes_order(plant: FlaskClient) -> None:
    expected = wire(plant_rows())
    pages = [plant.get(f"/customers/page/{n}?page_size=2") for n in (1, 2, 3)]
    assert [p.status_code for p in pages] == [200] * 3
    assert [r for p in pages for r in p.get_json()] == expected


@pytest.mark.parametrize("code", CODES)
def test_a_record_by_its_code(plant: FlaskClient, code: str) -> None:
    """Each code, URL-encoded, finds its record: 'C005' its padded 'C005      ', '007' the
    text code, not a number 7."""
    expected = next(r for r in wire(plant_rows()) if r["id"] == code)
    response = plant.get(f"/customers/{quote(code, safe='')}")
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == expected


@pytest.mark.parametrize("code", ["7", "C00", "C0055", "c005x"])
def test_no_record_of_another_code(plant: FlaskClient, code: str) -> None:
    response = plant.get(f"/customers/{quote(code, safe='')}")
    assert response.status_code == 404, response.get_json()
    assert response.get_json() == {"code": 404, "status": "Not Found",
                                   "message": f"no customers record with ID {code}"}


def test_a_code_too_long_is_a_400(plant: FlaskClient) -> None:
    response = plant.get("/customers/" + "A" * 256)
    assert response.status_code == 400
    assert response.get_json()["message"] == (
        "ID must be the record's code, 1 to 255 printable characters (URL-encoded in a path), "
        "e.g. C005; got " + repr("A" * 40))


def test_filters_on_the_code_and_csv(plant: FlaskClient) -> None:
    """A filter on the key takes the code as text; CSV sends the values JSON sends."""
    expected = [r for r in wire(plant_rows()) if r["id"] in ("007", "A/B")]
    response = plant.get("/customers?id__in=007,A/B&format=csv")
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    fields = ["id", *FIELDS.values()]
    assert rows == [fields] + [["" if r[f] is None else r[f] for f in fields] for r in expected]


def test_openapi_says_the_key_is_text(plant: FlaskClient) -> None:
    doc = plant.get("/openapi.json").get_json()
    (parameter,) = [p for p in doc["paths"]["/customers/{ID}"]["parameters"]
                    if p["name"] == "ID"]
    assert parameter["in"] == "path" and parameter["schema"]["type"] == "string"
    schemas = doc["components"]["schemas"]
    record = next(s for name, s in schemas.items() if name.startswith("CustomerByCode"))
    assert record["properties"]["id"]["type"] == "string"


def test_the_mcp_tool_gets_a_record_by_its_code(plant: FlaskClient) -> None:
    expected = next(r for r in wire(plant_rows()) if r["id"] == "007")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_record",
                       "arguments": {"collection": "customers", "key": "007"}}}
    response = plant.post("/mcp", json=call, headers={"Accept": "application/json, "
                                                                "text/event-stream"})
    assert response.status_code == 200, response.get_data(as_text=True)
    content = response.get_json()["result"]["structuredContent"]
    assert content == {"collection": "customers", "record": expected}


def test_integer_ids_stay_as_they_were() -> None:
    """A site that keeps integer ids: the shipped collections, id an integer."""
    for c in COLLECTIONS:
        assert not c.text_key
        if c.key == "id":
            assert type(c.schema._declared_fields["id"]).__name__ == "Integer", c.name


@pytest.mark.parametrize("given, message", [
    (["transactions"], "collections.text_keys: 'transactions' cannot be keyed by a text code; "
                       "those that can: customers, products, transporters"),
    (["products"], "collections.text_keys: 'products' is not served here (collections.serve)"),
    (["customers", "customers"], "collections.text_keys names 'customers' twice"),
])
def test_text_keys_checked_at_start(tmp_path: Path, given: list[str], message: str) -> None:
    from app.ops.config import ConfigError
    with pytest.raises(ConfigError) as raised:
        create_app({"database": {"sqlite": str(tmp_path / "none.sqlite3")},
                    "collections": {"serve": ["customers"], "text_keys": given}})
    assert str(raised.value) == message


# -- padded codes on the tickets, and names from a master keyed by its code -----------------

SUMMARY = "/transactions/summary/2026-11-01/00:00/2026-11-30/23:59:59"
# Tickets whose customer code the weighbridge program wrote padded, or not.
TICKETS = [
    {"id": 1, "custcode": "C005", "productcode": "RM1", "tgl_dt1": "2026-11-01",
     "jam_dt1": "07:00:00", "weigh1": 30000.0, "weigh2": 10000.0},
    {"id": 2, "custcode": "C005      ", "productcode": "RM1  ", "tgl_dt1": "2026-11-02",
     "jam_dt1": "08:00:00", "weigh1": 28000.0, "weigh2": 9000.0},
    {"id": 3, "custcode": "C005 ", "productcode": "RM1", "tgl_dt1": "2026-11-03",
     "jam_dt1": "09:00:00", "weigh1": 20000.0, "weigh2": 5000.0},
    {"id": 4, "custcode": "007", "productcode": "RM2", "tgl_dt1": "2026-11-03",
     "jam_dt1": "10:00:00", "weigh1": 9000.0, "weigh2": 31000.0},
    {"id": 5, "custcode": "T07", "productcode": None, "tgl_dt1": "2026-11-04",
     "jam_dt1": "11:00:00", "weigh1": 15000.0, "weigh2": None},
    {"id": 6, "custcode": None, "productcode": "RM2", "tgl_dt1": "2026-11-05",
     "jam_dt1": "12:00:00", "weigh1": 16000.0, "weigh2": 6000.0},
]
# The customers table, mapped with its code as the key: C005 twice (the least name of the
# same key names it), and T07 stored padded, which names the tickets' T07 where `=` ignores
# trailing blanks (SQL Server) and not where it counts them.
CUSTOMERS = [
    {"id": 1, "CustCode": "C005", "CustName": "PT B"},
    {"id": 2, "CustCode": "C005", "CustName": "PT A"},
    {"id": 3, "CustCode": "007", "CustName": "CV Nol"},
    {"id": 4, "CustCode": "T07   ", "CustName": "UD Tujuh"},
]
CUSTOMERS_BY_CODE = """-- name: records
-- The customers, keyed by their code.
SELECT
    "CustCode" AS "id",
    "CustCode" AS "CustCode",
    "CustName" AS "CustName",
    "Address" AS "Address",
    "City" AS "City",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "customers";
"""


@pytest.fixture
def tickets(make_client: Any, tmp_path: Path) -> FlaskClient:
    """Transactions as shipped, customers keyed by CustCode, over TICKETS and CUSTOMERS."""
    sql_dir = tmp_path / "site-sql"
    sql_dir.mkdir()
    shutil.copy(SHIPPED_SQL_DIR / "transactions.sql", sql_dir)
    (sql_dir / "customers.sql").write_text(CUSTOMERS_BY_CODE, encoding="utf-8")
    return make_client({"transactions": TICKETS, "customers": CUSTOMERS},
                       database={"sql_dir": str(sql_dir)},
                       collections={"serve": ["customers", "transactions"],
                                    "text_keys": ["customers"]})


def code_masters() -> Masters:
    return {"customers": [{**c, "id": c["CustCode"]} for c in CUSTOMERS]}


@pytest.mark.parametrize("by", ["custcode", "day,custcode", "productcode,custcode"])
def test_groups_that_differ_by_trailing_blanks_are_one(tickets: FlaskClient, engine: str,
                                                      by: str) -> None:
    """On every engine 'C005', 'C005 ' and 'C005      ' are one group, sent 'C005', named
    from the master keyed by that code (the least name of its key)."""
    rows = in_range(TICKETS, PAIRS["dt1"], "2026-11-01T00:00:00", "2026-11-30T23:59:59")
    expected = grouped(rows, by.split(","), PAIRS["dt1"], weighing, code_masters(),
                       same_text(engine))
    got = tickets.get(f"{SUMMARY}?by={by}")
    assert got.status_code == 200, got.get_json()
    assert got.get_json() == expected
    assert [g["custcode"] for g in got.get_json() if g["custcode"] == "C005"]


def test_tickets_come_trimmed_and_a_filter_compares_as_the_database(tickets: FlaskClient,
                                                                     engine: str) -> None:
    """Every text sent trimmed, in JSON and CSV; `custcode=C005` finds what the database's
    `=` finds: every padded C005 on SQL Server, the unpadded one elsewhere."""
    def sent(t: dict[str, Any]) -> list[Any]:
        return [t["id"], *(None if t[f] is None else t[f].rstrip(" ")
                           for f in ("custcode", "productcode"))]
    fields = "id,custcode,productcode"
    got = tickets.get(f"/transactions?fields={fields}")
    assert got.status_code == 200
    assert [list(r.values()) for r in got.get_json()] == [sent(t) for t in TICKETS]
    same = same_text(engine)
    found = [sent(t) for t in TICKETS if t["custcode"] is not None and same(t["custcode"], "C005")]
    got = tickets.get(f"/transactions?fields={fields}&custcode=C005&format=csv")
    assert got.status_code == 200
    assert list(csv.reader(io.StringIO(got.get_data(as_text=True)))) == [
        fields.split(",")] + [[str(v) for v in r] for r in found]


def test_names_of_a_code_keyed_master_in_the_workbook(tickets: FlaskClient, engine: str) -> None:
    """The workbook's cells are the values JSON sends: trimmed codes, and their names."""
    rows = in_range(TICKETS, PAIRS["dt1"], "2026-11-01T00:00:00", "2026-11-30T23:59:59")
    expected = grouped(rows, ["custcode"], PAIRS["dt1"], weighing, code_masters(),
                       same_text(engine))
    got = tickets.get(f"{SUMMARY}?by=custcode&format=xlsx")
    assert got.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(got.data), read_only=True).worksheets[0]
    cells = [list(r) for r in sheet.iter_rows(values_only=True)]
    codes = [(r[0], r[1]) for r in cells[1:]]
    assert codes == [(g["custcode"], g["custname"]) for g in expected]


def test_the_proof_asks_for_rtrim_where_blanks_count(request: pytest.FixtureRequest,
                                                     engine: str, tmp_path: Path) -> None:
    """The mapping that serves SQL Server (the code as it is) is refused at the first read
    where `=` counts trailing blanks: /customers/C005 would miss the record sent as C005."""
    database = site_table(request, engine, tmp_path / "plant.sqlite3", TABLE, COLUMNS,
                          plant_rows())
    sql_dir = tmp_path / "sql"
    sql_dir.mkdir()
    (sql_dir / "customers.sql").write_text(mapping("mssql"), encoding="utf-8")
    app = create_app({"database": database | {"sql_dir": str(sql_dir),
                                               "prove_on_first_read": True,
                                               "proof_dir": str(tmp_path / "proof")},
                      "collections": {"serve": ["customers"], "text_keys": ["customers"]}})
    got = app.test_client().get("/customers/C005")
    if engine == "mssql":
        assert got.status_code == 200, got.get_json()
        assert got.get_json()["id"] == "C005"
    else:
        assert got.status_code == 503, got.get_json()
        assert got.get_json()["unmapped"] == ["id", "CustCode"]


def test_check_sql_passes_the_code_keyed_mapping(plant: FlaskClient) -> None:
    """check-sql runs every query of the master keyed by its code, and the proof holds."""
    result = plant.application.test_cli_runner().invoke(args=["check-sql"])
    assert result.exit_code == 0, result.output
    assert "  by_key                 OK\n" in result.output
    assert "  proof on 5 records     OK\n" in result.output


@pytest.mark.parametrize("count", [1, 4, 5, 1000])
def test_the_encoder_trims_on_each_of_its_paths(count: int) -> None:
    """A few records are checked value by value, a batch column by column; a text column is
    trimmed whichever way, by itself or beside a column the schema converts (a Decimal id),
    and one with no padded value is sent unchanged. Every value compared with the rows'."""
    from decimal import Decimal

    from app.formats.encoding import RecordEncoder
    from app.model.schemas import Customer
    encoder = RecordEncoder(Customer)
    texts = ["C005      ", " lead  ", "tab\t", "", "   ", None, "Zé "]
    for convert in (False, True):
        rows = [(Decimal(n) if convert else n, texts[n % len(texts)], "plain", None, "Medan",
                 None, None, texts[(n + 3) % len(texts)]) for n in range(count)]
        want = [tuple(None if v is None else int(v) if k == 0 else v.rstrip(" ")
                      for k, v in enumerate(row)) for row in rows]
        got = encoder.values(encoder.fields, rows, None)
        assert [tuple(r) for r in got] == want
        assert [type(r[0]) for r in got] == [int] * count


def test_a_sites_own_lookup_of_grouped_group_is_refused(tmp_path: Path) -> None:
    """A site's own shapes.sql whose name_of still writes "grouped".{group} (before {group}
    was the group's value as grouped) is refused, saying what to write; the shipped one
    composes."""
    from app.database.loading import load_queries
    from app.database.sqltext import QueryFileError
    served = [c for c in COLLECTIONS if c.name in ("customers", "transactions")]
    shutil.copytree(SHIPPED_SQL_DIR, tmp_path / "sql")
    shapes = tmp_path / "sql" / "shapes.sql"
    text = shapes.read_text(encoding="utf-8")
    assert text.count('"named".{code} = {group}') == 2  # name_of and name_from
    queries = load_queries(tmp_path / "sql", served, SHIPPED_SQL_DIR)
    assert 'WHERE "named"."CustCode" = MIN(RTRIM("grouped"."custcode"))' in queries.get(
        "transactions", "summary_dt1", None, by=("custcode",)).sql
    old = text.replace('"named".{code} = {group}', '"named".{code} = "grouped".{group}')
    shapes.write_text(old, encoding="utf-8")
    with pytest.raises(QueryFileError) as raised:  # at start, not at a summary
        load_queries(tmp_path / "sql", served, SHIPPED_SQL_DIR)
    assert str(raised.value).startswith(f"{shapes}:")
    assert str(raised.value).endswith(
        ': this lookup writes "grouped".{group}, and {group} is the group\'s value as grouped '
        '(RTRIM("grouped"."code") of a text group): write {group} alone (docs/adapting.md, '
        '"The placeholders")')
