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
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask.testing import FlaskClient

from app import create_app
from app.model.collections import COLLECTIONS
from tests.conftest import site_table

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
    lines = [f'    {key} AS "id"'] + [f'    "{c}" AS "{f}"' for c, f in FIELDS.items()]
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
