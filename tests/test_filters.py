"""Filters on every list (docs/api.md §6.1): `field=v`, `field__not=v` (NULL
included), `__gt`, `__gte`, `__lt`, `__lte`, `__in`, `__isnull`, each value read as its
field's type, ANDed with each other and with a date range, on lists, pages and ranges; the
expected records are computed here from the rows each test inserts, with the contract's
NULL semantics, and compared whole, in order, on every engine.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest

from tests.contract import COLLECTIONS, expected, same_text
from tests.helpers import links

# Weighings: texts that differ by case and by a trailing blank, numbers that are whole and
# not, NULLs in every filtered column, entries across a month boundary and across midnight.
WEIGHINGS = [
    {"id": 1, "vehno": "B 1234 XYZ", "custcode": "SUP-007", "weigh1": 30000.0,
     "weigh2": 11000.5, "tgl_dt1": "2026-10-31", "jam_dt1": "23:59:59", "productcode": "RM001"},
    {"id": 2, "vehno": "b 1234 xyz", "custcode": "SUP-002", "weigh1": 30000.5,
     "weigh2": None, "tgl_dt1": "2026-11-01", "jam_dt1": "00:00:00", "productcode": "RM001"},
    {"id": 3, "vehno": "B 1234 XYZ", "custcode": None, "weigh1": None, "weigh2": None,
     "tgl_dt1": "2026-11-01", "jam_dt1": None, "productcode": "RM002"},
    {"id": 4, "vehno": "L 9 AB", "custcode": "SUP-007", "weigh1": 12000.25,
     "weigh2": 9000.0, "tgl_dt1": "2026-11-15", "jam_dt1": "07:30:00", "productcode": None},
    {"id": 5, "vehno": None, "custcode": "SUP-007", "weigh1": -1.0, "weigh2": 0.0,
     "tgl_dt1": None, "jam_dt1": "07:30:00", "productcode": "RM003"},
    {"id": 6, "vehno": "B 1234 XYZ ", "custcode": "SUP-003", "weigh1": 45000.0,
     "weigh2": 15000.0, "tgl_dt1": "2026-11-30", "jam_dt1": "12:00:00",
     "productcode": "RM001"},
    {"id": None, "vehno": "N 1 UL", "custcode": "SUP-009", "weigh1": 1.0, "weigh2": 1.0,
     "tgl_dt1": "2026-11-02", "jam_dt1": "08:00:00", "productcode": "RM001"},
]
# Batches: the ERP's flag isproses 0, 1 and NULL.
BATCHES = [
    {"no_produksi": n, "tanggal": f"2026-11-{10 + n:02d}", "jam": "08:00:00",
     "isproses": flag, "recipe": 100 + n % 2, "operator_name": name}
    for n, flag, name in [(1, 1, "Budi"), (2, 0, "Sari"), (3, None, "Budi"), (4, 1, None),
                          (5, None, "Sari"), (6, 0, "Budi")]
]


def _as_text(kind: str, value: str) -> Any:
    """A filter value as the rows above store it (ISO text, floats)."""
    if kind == "number":
        return float(value)
    if kind == "integer":
        return int(value)
    if kind == "time" and len(value) == 5:
        return value + ":00"
    return value


KINDS = {"id": "integer", "vehno": "string", "custcode": "string", "productcode": "string",
         "weigh1": "number", "weigh2": "number", "tgl_dt1": "date", "jam_dt1": "time",
         "no_produksi": "integer", "isproses": "integer", "recipe": "integer",
         "operator_name": "string", "tanggal": "date", "jam": "time"}


def keeps(row: dict[str, Any], argument: str, value: str, engine: str = "sqlite3") -> bool:
    """The table of docs/api.md §6.1, for one filter argument on a row as inserted; strings
    are equal as `engine` compares them."""
    field, _, op = argument.partition("__")
    stored = row.get(field)
    if op == "isnull":
        return (stored is None) == (value == "true")
    if op == "in":
        wanted = [_as_text(KINDS[field], v) for v in value.split(",")]
    else:
        wanted = [_as_text(KINDS[field], value)]
    equal = same_text(engine) if KINDS[field] == "string" else lambda a, b: a == b
    if op == "not":
        return stored is None or not equal(stored, wanted[0])
    if stored is None:
        return False
    if op in ("", "in"):
        return any(equal(stored, w) for w in wanted)
    return {"gt": stored > wanted[0], "gte": stored >= wanted[0], "lt": stored < wanted[0],
            "lte": stored <= wanted[0]}[op]


def matching(rows: list[dict[str, Any]], filters: list[tuple[str, str]],
             order: Callable[[dict[str, Any]], Any], engine: str = "sqlite3"
             ) -> list[dict[str, Any]]:
    return sorted((r for r in rows if all(keeps(r, a, v, engine) for a, v in filters)),
                  key=order)


def by_id(row: dict[str, Any]) -> Any:
    return (row["id"] is not None, row["id"] or 0)  # NULLs first


def query(filters: list[tuple[str, str]]) -> str:
    return "&".join(f"{a}={quote(v, safe=',')}" for a, v in filters)


CASES = [
    [("vehno", "B 1234 XYZ")],
    [("vehno__not", "B 1234 XYZ")],
    [("vehno__in", "B 1234 XYZ,L 9 AB")],
    [("vehno__isnull", "true")],
    [("vehno__isnull", "false")],
    [("custcode__not", "SUP-007")],
    [("custcode", "SUP-007"), ("weigh2__isnull", "false")],
    [("id", "4")],
    [("id__gt", "2")],
    [("id__lte", "2"), ("id__gte", "-5")],
    [("id__in", "1,3,99")],
    [("id__isnull", "true")],
    [("id__not", "3")],
    [("weigh1__gte", "30000")],
    [("weigh1__lte", "1.200025E4")],
    [("weigh1", "30000.5")],
    [("weigh1__lt", "0")],
    [("weigh1__gt", "-1.5"), ("weigh1__lt", "30000.25")],
    [("weigh2__not", "0")],
    [("weigh1__in", "1,12000.25,-1")],
    [("tgl_dt1__gte", "2026-11-01")],
    [("tgl_dt1__lt", "2026-11-01")],
    [("tgl_dt1", "2026-11-01")],
    [("tgl_dt1__not", "2026-11-01")],
    [("jam_dt1__lt", "07:30")],
    [("jam_dt1", "07:30")],
    [("jam_dt1__gte", "12:00:00")],
    [("jam_dt1__in", "00:00,08:00:00")],
    [("productcode", "RM001"), ("vehno__not", "N 1 UL"), ("tgl_dt1__lte", "2026-11-30")],
    [("vehno", "nobody")],
]


# The tests that read WEIGHINGS share a database per engine (the `shared` fixture).
SHARED = {"transactions": WEIGHINGS, "weighing": WEIGHINGS}


@pytest.mark.parametrize("filters", CASES, ids=[query(f) for f in CASES])
def test_each_filter_keeps_exactly_its_records(shared, module_engine, filters) -> None:
    client = shared(SHARED)
    want = matching(WEIGHINGS, filters, by_id, module_engine)
    q = query(filters)
    response = client.get(f"/transactions?{q}")
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == [expected("transactions", r) for r in want]
    # numberrow is null in a filtered answer; pages count the filtered records.
    assert client.get(f"/weighing?{q}").get_json() == [
        expected("weighing", r, None) for r in want]
    paged = client.get(f"/weighing/page/1?page_size=2&{q}")
    assert paged.get_json() == [expected("weighing", r, None) for r in want[:2]]
    total = json.loads(paged.headers["X-Pagination"])
    assert total["total"] == len(want) and total["total_pages"] == (len(want) + 1) // 2


def test_a_filter_inside_a_date_range_pages_and_streams(make_client) -> None:
    rows = [{"id": n, "tgl_dt1": f"2026-11-{1 + n % 5:02d}", "jam_dt1": f"{n % 24:02d}:00:00",
             "vehno": "B 1234 XYZ" if n % 3 == 0 else f"L {n} AB", "weigh2": None if n % 4
             else 9000.0 + n} for n in range(1, 61)]
    client = make_client({"transactions": rows})
    base = "/transactions/date/2026-11-02/06:00/2026-11-04/18:00"
    for filters in ([("vehno", "B 1234 XYZ")], [("weigh2__isnull", "true"), ("id__gt", "20")],
                    [("vehno__not", "B 1234 XYZ"), ("jam_dt1__gte", "12:00")]):
        inside = [r for r in rows
                  if ("2026-11-02", "06:00:00") <= (r["tgl_dt1"], r["jam_dt1"])
                  <= ("2026-11-04", "18:00:00")]
        want = matching(inside, filters, lambda r: (r["tgl_dt1"], r["jam_dt1"], r["id"]))
        assert want and len(want) < len(inside)
        q = query(filters)
        assert client.get(f"{base}?{q}").get_json() == [
            expected("transactions", r) for r in want]
        paged = client.get(f"{base}?page=2&page_size=3&{q}")
        assert paged.get_json() == [expected("transactions", r) for r in want[3:6]]
        pages = (len(want) + 2) // 3
        assert json.loads(paged.headers["X-Pagination"])["total"] == len(want)
        # The links keep the filters.
        last = urlsplit(links(paged)["last"])
        assert (last.path, parse_qsl(last.query)) == (
            base, [("on", "dt1"), ("page", str(pages)), ("page_size", "3"), *filters])


def test_unpulled_batches_include_a_null_flag(make_client) -> None:
    """The ERP's question: every batch whose isproses is not 1, NULL included."""
    client = make_client({"bricon2": BATCHES, "biao1": [{"id": b["no_produksi"], **b}
                                                       for b in BATCHES]})
    want = matching(BATCHES, [("isproses__not", "1")],
                    lambda r: (r["tanggal"], r["jam"], r["no_produksi"]))
    assert [r["no_produksi"] for r in want] == [2, 3, 5, 6]
    assert client.get("/bricon2?isproses__not=1").get_json() == [
        expected("bricon2", r, None) for r in want]
    assert client.get("/biao1?isproses__not=1&fields=id,isproses").get_json() == [
        {"id": r["no_produksi"], "isproses": r["isproses"]} for r in want]
    ranged = client.get("/bricon2/date/2026-11-12/00:00/2026-11-16/23:59:59"
                        "?isproses__not=1&recipe=101&fields=no_produksi")
    assert ranged.get_json() == [{"no_produksi": 3}, {"no_produksi": 5}]
    assert client.get("/bricon2?operator_name__in=Budi,Sari&isproses__isnull=true"
                      "&fields=no_produksi").get_json() == [{"no_produksi": 3},
                                                           {"no_produksi": 5}]


def test_in_given_twice_joins_its_values(shared) -> None:
    client = shared(SHARED)
    joined = client.get("/transactions?vehno__in=L%209%20AB,N%201%20UL&fields=id")
    twice = client.get("/transactions?vehno__in=L%209%20AB&vehno__in=N%201%20UL&fields=id")
    assert joined.get_json() == twice.get_json() == [{"id": None}, {"id": 4}]


def test_a_filtered_csv_and_its_links(shared) -> None:
    client = shared(SHARED)
    response = client.get("/transactions?format=csv&custcode=SUP-007&fields=id,vehno")
    assert list(csv.reader(io.StringIO(response.get_data(as_text=True)))) == [
        ["id", "vehno"], ["1", "B 1234 XYZ"], ["4", "L 9 AB"], ["5", ""]]
    page = client.get("/transactions/page/1?page_size=1&custcode=SUP-007&fields=id&_=17")
    assert page.get_json() == [{"id": 1}]
    assert links(page) == {
        rel: f"http://localhost/transactions/page/{n}?page_size=1&custcode=SUP-007&fields=id"
        for rel, n in (("first", 1), ("last", 3), ("next", 2))}


def test_filtered_pages_carry_their_own_etag(shared) -> None:
    client = shared(SHARED)
    plain = client.get("/transactions/page/1")
    filtered = client.get("/transactions/page/1?custcode=SUP-007")
    assert plain.headers["ETag"] != filtered.headers["ETag"]
    again = client.get("/transactions/page/1?custcode=SUP-007",
                       headers={"If-None-Match": filtered.headers["ETag"]})
    assert again.status_code == 304


BUT_VEHICLES = [c for c in COLLECTIONS if c != "vehicles"]


def first_field(collection: str) -> str:
    return next(f for f in COLLECTIONS[collection][0] if f != "numberrow")


def first_field_rows(collection: str) -> list[dict[str, Any]]:
    first = first_field(collection)
    return [{first: n} | ({"tanggal": "2026-11-01"} if collection == "bricon2" else {})
            for n in (3, 1, 2)]


@pytest.mark.parametrize("collection", BUT_VEHICLES)
def test_every_collection_filters_on_its_first_field(shared, collection) -> None:
    """Each collection's records mapping serves its filters (here on its first stored
    field, an integer in every shape)."""
    first = first_field(collection)
    client = shared({c: first_field_rows(c) for c in BUT_VEHICLES})
    got = client.get(f"/{collection}?{first}__in=1,3&fields={first}").get_json()
    assert got == [{first: 1}, {first: 3}]
    assert client.get(f"/{collection}/page/1?{first}__gte=2&fields={first}").get_json() == [
        {first: 2}, {first: 3}]


def test_vehicles_filter_on_stored_fields_not_computed_ones(make_client) -> None:
    rows = [{"id": 1, "Number": "L 1 A", "tgl_expired": "2027-01-01"},
            {"id": 2, "Number": "L 2 B", "tgl_expired": "2026-01-01"}]
    client = make_client({"vehicles": rows})
    assert client.get("/vehicles?tgl_expired__lt=2026-11-23&fields=id").get_json() == [
        {"id": 2}]
    response = client.get("/vehicles?ExpireDate__lt=2026-11-23")
    assert response.status_code == 400
    assert "ExpireDate" in response.get_json()["message"]
