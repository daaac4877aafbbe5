"""Names beside codes (docs/api.md §7, "Names beside codes"): a summary grouped by
productcode, custcode or transcode (vehicles: TransCode) carries the master record's name
right after each code, read through the master collection's own `records` query. Every
expected answer is computed here from the rows the test inserts (tests/helpers.py
`grouped`, `name_of`) and compared whole, keys in order, on every engine.

How codes are matched differs by engine, as the database compares strings: SQL Server (and
Babelfish, which follows its default collation, sql_latin1_general_cp1_ci_as) ignores
trailing blanks and case, so 'FG001 ' and 'rm002' name FG001 and RM002 there; SQLite and
PostgreSQL compare exactly, so they do not. contract.same_text says which, per engine.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.ops.config import SHIPPED_SQL_DIR
from tests.contract import PAIRS, same_text
from tests.helpers import Masters, grouped, in_range, keys, weighing

START, END = "2026-01-01T00:00:00", "2026-01-31T23:59:59"
URL = "/transactions/summary/2026-01-01/00:00/2026-01-31/23:59:59"


def _weighing(n: int, productcode: str | None, custcode: str | None,
              transcode: str | None) -> dict[str, Any]:
    return {"id": n, "tgl_dt1": f"2026-01-{1 + n % 3:02d}", "jam_dt1": "08:00:00",
            "weigh1": 20000.0 + n, "weigh2": 9000.0 if n % 2 else 30000.0,
            "productcode": productcode, "custcode": custcode, "transcode": transcode}


# Every code of the groups once with and once without a master record; a NULL code.
WEIGHINGS = [_weighing(n, p, c, t) for n, (p, c, t) in enumerate([
    ("RM001", "SUP-1", "TR01"), ("RM001", "SUP-2", "TR01"), ("RM002", "SUP-1", None),
    ("FG001", "SUP-3", "TR02"), ("XX999", None, "TR09"), (None, "SUP-1", "TR01"),
    ("RM002", "SUP-2", "TR02"), ("FG001", None, None)], 1)]

MASTERS: Masters = {
    "products": [
        # RM001 twice: the smallest id names it, whatever the order of the rows
        {"id": 7, "ProductCode": "RM001", "ProductName": "Pasir Lumajang (lama)"},
        {"id": 3, "ProductCode": "RM001", "ProductName": "Pasir Lumajang"},
        # a trailing blank: the same code on SQL Server only
        {"id": 4, "ProductCode": "FG001 ", "ProductName": "Bata Ringan 60x20x7,5 cm"},
        # RM002 in two cases: on SQL Server (case-insensitive) id 1 names it, elsewhere id 6
        {"id": 6, "ProductCode": "RM002", "ProductName": "Kapur Tohor"},
        {"id": 1, "ProductCode": "rm002", "ProductName": "kapur (huruf kecil)"},
        # a master record without a code names no group, the NULL one included
        {"id": 2, "ProductCode": None, "ProductName": "Tanpa kode"},
    ],
    "customers": [
        # a NULL id counts only where no record of the code has one
        {"id": None, "CustCode": "SUP-1", "CustName": "CV Tanpa Nomor"},
        {"id": 5, "CustCode": "SUP-1", "CustName": "PT Semen Gresik"},
        {"id": None, "CustCode": "SUP-2", "CustName": "UD Sumber Batu"},
    ],
    "transporters": [
        {"id": 1, "TransCode": "TR01", "TransName": "CV Berkah Logistik"},
        {"id": 2, "TransCode": "TR02", "TransName": None},  # a name may be NULL itself
    ],
}
# The rows of the tests that read them, one database per module and engine (`shared`).
TABLES = {"transactions": WEIGHINGS, **MASTERS}


@pytest.mark.parametrize("by", [
    "productcode", "custcode", "transcode", "productcode,custcode,transcode",
    "day,transcode,productcode", "direction,productcode,day", "custcode,hour",
])
def test_names_beside_codes(shared, module_engine, by) -> None:
    client = shared(TABLES)
    got = client.get(f"{URL}?by={by}")
    assert got.status_code == 200, got.get_json()
    want = grouped(in_range(WEIGHINGS, PAIRS["dt1"], START, END), by.split(","),
                   PAIRS["dt1"], weighing, MASTERS, same_text(module_engine))
    assert got.get_json() == want
    assert keys(got.get_json()) == keys(want)  # each name right after its code


def test_what_the_names_are(shared, module_engine) -> None:
    """The cases spelled out, beside the computed answer: smallest id, NULL ids, trailing
    blanks and case per engine, no master record, a NULL code."""
    client = shared(TABLES)
    products = {g["productcode"]: g["productname"]
                for g in client.get(f"{URL}?by=productcode").get_json()}
    server = module_engine == "mssql"  # trailing blanks and case do not count under its collation
    assert products == {None: None, "FG001": "Bata Ringan 60x20x7,5 cm" if server else None,
                        "RM001": "Pasir Lumajang",
                        "RM002": "kapur (huruf kecil)" if server else "Kapur Tohor",
                        "XX999": None}
    customers = {g["custcode"]: g["custname"]
                 for g in client.get(f"{URL}?by=custcode").get_json()}
    assert customers == {None: None, "SUP-1": "PT Semen Gresik", "SUP-2": "UD Sumber Batu",
                         "SUP-3": None}


def test_names_never_change_the_groups(shared) -> None:
    """The groups and measures with names are exactly those of a group the lookup does not
    touch (day), regrouped: a code named by two master records is still one group."""
    client = shared(TABLES)
    named = client.get(f"{URL}?by=productcode,custcode").get_json()
    bare = grouped(in_range(WEIGHINGS, PAIRS["dt1"], START, END), ["productcode", "custcode"],
                   PAIRS["dt1"], weighing)
    def without_names(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in g.items() if k not in ("productname", "custname")}
                for g in groups]

    assert without_names(named) == without_names(bare)
    assert sum(g["records"] for g in named) == len(WEIGHINGS)


def test_vehicles_by_transcode(make_client, engine) -> None:
    rows = [{"id": n, "Number": f"L {n} A", "TransCode": ("TR01", "TR02", "TR07", None)[n % 4],
             "tgl_create": f"2026-01-{1 + n % 5:02d}", "jam_create": "09:00:00"}
            for n in range(1, 15)]
    transporters = [{"id": 9, "TransCode": "TR01", "TransName": "PT Lain"},
                    {"id": 4, "TransCode": "TR01", "TransName": "CV Armada Pasir Lumajang"},
                    {"id": 5, "TransCode": "TR02", "TransName": "PT Trans Jatim Sejahtera"}]
    client = make_client({"vehicles": rows, "transporters": transporters})
    answers = {}
    for by in ("TransCode", "day,TransCode"):
        got = client.get(f"/vehicles/summary/2026-01-01/00:00/2026-01-31/23:59:59?by={by}")
        want = grouped(in_range(rows, PAIRS["create"], START, END), by.split(","),
                       PAIRS["create"], lambda rs: {"records": len(rs)},
                       {"transporters": transporters}, same_text(engine))
        assert got.get_json() == want and keys(got.get_json()) == keys(want)
        answers[by] = want
    assert answers["TransCode"][0] == {"TransCode": None, "TransName": None, "records": 3}
    assert {g["TransCode"]: g["TransName"] for g in answers["TransCode"]} == {
        None: None, "TR01": "CV Armada Pasir Lumajang", "TR02": "PT Trans Jatim Sejahtera",
        "TR07": None}


def test_csv_puts_each_name_after_its_code(shared, module_engine) -> None:
    client = shared(TABLES)
    got = client.get(f"{URL}?by=day,custcode,transcode&format=csv")
    want = grouped(in_range(WEIGHINGS, PAIRS["dt1"], START, END),
                   ["day", "custcode", "transcode"], PAIRS["dt1"], weighing, MASTERS,
                   same_text(module_engine))
    names = ["day", "custcode", "custname", "transcode", "transname", "records", "weighed",
             "net", "net_min", "net_max", "deduction", "net_after_deduction"]
    assert list(csv.reader(io.StringIO(got.get_data(as_text=True)))) == [names] + [
        ["" if g[n] is None else str(g[n]) for n in names] for g in want]


def test_a_site_mapping_of_the_master_names_the_codes(make_client, engine,
                                                     tmp_path: Path) -> None:
    """A site whose products keep the code in Remark and the name in Unit: only its
    products.sql says so, and the summaries' names follow with no second edit."""
    site = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    mapping = (site / "products.sql").read_text(encoding="utf-8")
    for line, mapped in (('"ProductCode" AS "ProductCode"', '"Remark" AS "ProductCode"'),
                         ('"ProductName" AS "ProductName"', '"Unit" AS "ProductName"'),
                         ('"Unit" AS "Unit"', '"ProductName" AS "Unit"'),
                         ('"Remark" AS "Remark"', '"ProductCode" AS "Remark"')):
        assert line in mapping
        mapping = mapping.replace(line, mapped)
    (site / "products.sql").write_text(mapping, encoding="utf-8")
    products = [{"id": 1, "Remark": "RM001", "Unit": "Pasir Lumajang", "ProductCode": "P-1",
                 "ProductName": "ton"},
                {"id": 2, "Remark": "RM002", "Unit": "Kapur Tohor", "ProductCode": "RM001",
                 "ProductName": "not this one"}]
    client = make_client({"transactions": WEIGHINGS, "products": products},
                         database={"sql_dir": str(site)})
    got = client.get(f"{URL}?by=productcode").get_json()
    assert {g["productcode"]: g["productname"] for g in got} == {
        None: None, "FG001": None, "RM001": "Pasir Lumajang", "RM002": "Kapur Tohor",
        "XX999": None}
    assert client.get("/products/1").get_json()["ProductName"] == "Pasir Lumajang"


def test_a_site_without_the_master_sends_null_names(shared) -> None:
    """A site that does not serve products (collections.serve) has no products mapping to
    read: productname is null, the answer keeps its shape."""
    client = shared(TABLES, collections={"serve": ["transactions", "customers"]})
    got = client.get(f"{URL}?by=productcode,custcode").get_json()
    want = grouped(in_range(WEIGHINGS, PAIRS["dt1"], START, END), ["productcode", "custcode"],
                   PAIRS["dt1"], weighing, {"customers": MASTERS["customers"]})
    assert got == want and keys(got) == keys(want)


def test_the_openapi_schema_has_the_names(shared) -> None:
    client = shared(TABLES)
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    weighing_group = schemas["WeighingSummary"]["properties"]
    order = list(weighing_group)
    for code, name in (("productcode", "productname"), ("custcode", "custname"),
                       ("transcode", "transname")):
        assert order.index(name) == order.index(code) + 1
        assert weighing_group[name]["type"] == ["string", "null"] or (
            weighing_group[name]["type"] == "string" and weighing_group[name]["nullable"])
    assert weighing_group["direction"]["enum"] == ["in", "out", None]
    vehicle_group = list(schemas["VehicleSummary"]["properties"])
    assert vehicle_group[vehicle_group.index("TransCode") + 1] == "TransName"
    assert "direction" not in schemas["VehicleSummary"]["properties"]
    assert "productname" not in schemas["ProductionSummary"]["properties"]
