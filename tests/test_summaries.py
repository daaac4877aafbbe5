"""Summaries (docs/api.md §7): GET /<c>/summary/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir}
with ?on=, ?by= and the filters. Every expected figure is computed here, in Python, from the
rows the test inserts (the range's records, grouped, summed, divided and rounded as the
contract says), and compared whole, groups in order, on every engine.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from tests.conftest import arguments_client
from tests.contract import MATERIALS, PAIRS
from tests.helpers import error, grouped, in_range, weighing

# Weighings over a year boundary, on both sides of midnight, with NULL weights (one or both),
# NULL times (hour 0), a NULL date (in no range) and NULL texts (a group of their own, first).
WEIGHINGS = [
    {"id": 1, "tgl_dt1": "2025-12-31", "jam_dt1": "23:59:59", "weigh1": 30000.5,
     "weigh2": 11000.0, "productcode": "RM001", "custcode": "SUP-1", "tgl_dt2": "2026-01-01",
     "jam_dt2": "00:20:00"},
    {"id": 2, "tgl_dt1": "2026-01-01", "jam_dt1": None, "weigh1": 25000.0, "weigh2": 9000.25,
     "productcode": "RM001", "custcode": "SUP-2", "tgl_dt2": "2026-01-01", "jam_dt2": "01:00:00"},
    {"id": 3, "tgl_dt1": "2026-01-01", "jam_dt1": "07:30:00", "weigh1": 12000.0,
     "weigh2": None, "productcode": "RM002", "custcode": "SUP-1"},
    {"id": 4, "tgl_dt1": "2026-01-01", "jam_dt1": "07:45:00", "weigh1": None, "weigh2": None,
     "productcode": None, "custcode": None},
    {"id": 5, "tgl_dt1": "2026-01-02", "jam_dt1": "07:10:00", "weigh1": 8000.0,
     "weigh2": 31000.75, "productcode": "FG001", "custcode": "CUS-9", "tgl_dt2": "2026-01-02",
     "jam_dt2": "09:00:00"},
    {"id": 6, "tgl_dt1": "2026-02-15", "jam_dt1": "00:00:00", "weigh1": 40000.0,
     "weigh2": 15000.0, "productcode": "RM001", "custcode": "SUP-1", "tgl_dt2": "2026-02-15",
     "jam_dt2": "00:30:00"},
    {"id": 7, "tgl_dt1": None, "jam_dt1": "08:00:00", "weigh1": 1.0, "weigh2": 2.0,
     "productcode": "RM001", "custcode": "SUP-1"},
    {"id": 8, "tgl_dt1": "2026-01-02", "jam_dt1": "23:00:00", "weigh1": 1000.0,
     "weigh2": 1000.0, "productcode": "RM002", "custcode": "SUP-2", "tgl_dt2": "2026-01-03",
     "jam_dt2": "00:00:00"},
]


def _batch(n: int, day: str | None, clock: str | None, recipe: int | None,
           sv: dict[str, int | None], pv: dict[str, int | None],
           temps: tuple[int | None, int | None]) -> dict[str, Any]:
    row: dict[str, Any] = {"no_produksi": n, "tanggal": day, "jam": clock, "recipe": recipe,
                           "operator_name": "Budi" if n % 2 else "Sari", "isproses": n % 2,
                           "temperature_sv": temps[0], "temperature_pv": temps[1]}
    for g in MATERIALS:
        row[f"{g}_sv"], row[f"{g}_pv"] = sv.get(g), pv.get(g)
    return row


# 800 -> 801 is +0.125 %: rounded half away from zero, 0.13 (banker's rounding gives 0.12);
# 800 -> 799, -0.13. A material whose sv sums to 0 has no deviation; one with only NULLs no
# sums at all; a batch with pv but no sv counts in neither sum.
BATCHES = [
    _batch(1, "2026-11-20", "06:00:00", 3, {"adonan": 800, "air": 0, "kapur": 100},
           {"adonan": 801, "air": 5, "kapur": None}, (45, 44)),
    _batch(2, "2026-11-20", None, 3, {"adonan": 1200, "air": 0, "silo_1": None},
           {"adonan": 1199, "air": 3, "silo_1": 250}, (45, None)),
    _batch(3, "2026-11-20", "23:30:00", 4, {"adonan": 800, "afalan": 250},
           {"adonan": 799, "afalan": 249}, (None, None)),
    _batch(4, "2026-11-21", "00:15:00", 4, {"adonan": 1000, "aluminium": 540},
           {"adonan": 1003, "aluminium": 541}, (46, 47)),
    _batch(5, "2026-11-21", "08:00:00", None, {"adonan": 333}, {"adonan": 334}, (50, 49)),
    _batch(6, None, "09:00:00", 3, {"adonan": 9}, {"adonan": 9}, (1, 1)),
]


def two(value: Decimal) -> float:
    return float(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def production(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"batches": len(rows)}
    for g in MATERIALS:
        both = [r for r in rows if r.get(f"{g}_sv") is not None
                and r.get(f"{g}_pv") is not None]
        sv = sum(r[f"{g}_sv"] for r in both) if both else None
        pv = sum(r[f"{g}_pv"] for r in both) if both else None
        out[f"{g}_sv"], out[f"{g}_pv"] = sv, pv
        out[f"{g}_deviation"] = (None if not sv else
                                 two(Decimal(pv - sv) / Decimal(sv) * 100))
    for t in ("temperature_sv", "temperature_pv"):
        given = [r[t] for r in rows if r.get(t) is not None]
        out[f"{t}_avg"] = two(Decimal(sum(given)) / len(given)) if given else None
    return out


# The tests that read WEIGHINGS share a database per engine (the `shared` fixture); those of
# arguments answered 400 (and a path 404) before any query is built share one on SQLite.
WEIGHING_TABLES = {c: WEIGHINGS for c in ("transactions", "weighing", "timbangan1",
                                           "timbangan2")}


@pytest.fixture(scope="module")
def rejects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return arguments_client(tmp_path_factory, {"transactions": WEIGHINGS, "bricon2": BATCHES,
                                               "customers": [{"id": 1}]})


def test_weighing_by_day_the_default(shared) -> None:
    client = shared(WEIGHING_TABLES)
    got = client.get("/transactions/summary/2025-12-31/00:00/2026-01-02/23:59:59")
    assert got.status_code == 200, got.get_json()
    want = grouped(in_range(WEIGHINGS, PAIRS["dt1"], "2025-12-31T00:00:00",
                            "2026-01-02T23:59:59"), ["day"], PAIRS["dt1"], weighing)
    assert [g["day"] for g in want] == ["2025-12-31", "2026-01-01", "2026-01-02"]
    assert got.get_json() == want
    assert list(got.get_json()[0]) == ["day", "records", "weighed", "net", "net_min",
                                       "net_max", "deduction", "net_after_deduction"]


@pytest.mark.parametrize(("by", "on", "start", "end", "filters"), [
    ("month", "dt1", "2025-12-01T00:00:00", "2026-02-28T23:59:59", []),
    ("hour", "dt1", "2025-12-31T00:00:00", "2026-02-15T23:59:59", []),
    ("day,productcode", "dt2", "2026-01-01T00:00:00", "2026-01-31T23:59:59", []),
    ("productcode,custcode", "dt1", "2025-12-31T23:59:59", "2026-01-02T07:10:00", []),
    ("custcode", "dt1", "2025-01-01T00:00:00", "2026-12-31T23:59:59",
     [("productcode", "RM001", lambda r: r.get("productcode") == "RM001")]),
    ("month,productcode,hour,custcode", "dt1", "2025-01-01T00:00:00", "2026-12-31T23:59:59",
     [("weigh2__isnull", "false", lambda r: r.get("weigh2") is not None),
      ("custcode__not", "CUS-9", lambda r: r.get("custcode") != "CUS-9")]),
    ("day", "dt1", "2026-03-01T00:00:00", "2026-03-31T23:59:59", []),
    # direction: NULL (equal weights, a weight missing) first, then "in", then "out"
    ("direction", "dt1", "2025-01-01T00:00:00", "2026-12-31T23:59:59", []),
    ("direction,productcode,day", "dt1", "2025-01-01T00:00:00", "2026-12-31T23:59:59", []),
    ("day,direction", "dt1", "2025-12-31T00:00:00", "2026-01-02T23:59:59",
     [("productcode__in", "RM001,RM002", lambda r: r.get("productcode") in ("RM001", "RM002"))]),
    ("productcode,hour,direction,custcode", "dt2", "2025-01-01T00:00:00",
     "2026-12-31T23:59:59", []),
])
def test_weighing_groups_ranges_and_filters(shared, by, on, start, end, filters) -> None:
    client = shared(WEIGHING_TABLES)
    rows = [r for r in in_range(WEIGHINGS, PAIRS[on], start, end)
            if all(keep(r) for _, _, keep in filters)]
    want = grouped(rows, by.split(","), PAIRS[on], weighing)
    query = "&".join([f"by={by}", f"on={on}", *(f"{a}={v}" for a, v, _ in filters)])
    url = (f"/weighing/summary/{start[:10]}/{start[11:]}/{end[:10]}/{end[11:]}?{query}")
    got = client.get(url)
    assert got.status_code == 200, got.get_json()
    assert got.get_json() == want
    assert [list(g) for g in got.get_json()] == [list(g) for g in want]  # the keys' order
    if by == "direction":  # every kind of record is there: the test covers each case
        assert [g["direction"] for g in want] == [None, "in", "out"]


@pytest.mark.parametrize("collection", ["transactions", "weighing", "timbangan1", "timbangan2"])
def test_every_weighing_collection_groups_by_direction(shared, collection) -> None:
    client = shared(WEIGHING_TABLES)
    got = client.get(f"/{collection}/summary/2025-01-01/00:00/2026-12-31/23:59:59"
                     "?by=direction")
    assert got.get_json() == grouped(in_range(WEIGHINGS, PAIRS["dt1"], "2025-01-01T00:00:00",
                                              "2026-12-31T23:59:59"), ["direction"],
                                     PAIRS["dt1"], weighing)


def test_direction_is_the_weighing_shapes_alone(rejects) -> None:
    """bricon2 and vehicles have no weights: by=direction is a 400 that says what they take,
    and only the weighing collections list it, in the message and in /openapi.json."""
    client = rejects
    for collection in ("bricon2", "biao1", "vehicles"):
        message = error(client.get(f"/{collection}/summary/2026-01-01/00:00/2026-01-31/23:59"
                                   "?by=direction"))["message"]
        assert "cannot group by 'direction'" in message
        assert "in order: day, month, hour, or a text or integer field" in message, message
    message = error(client.get("/weighing/summary/2026-01-01/00:00/2026-01-31/23:59"
                               "?by=week"))["message"]
    assert "in order: day, month, hour, direction, or a text" in message, message
    paths = client.get("/openapi.json").get_json()["paths"]
    for path, item in paths.items():
        if "/summary/" not in path:
            continue
        [by] = [p for p in item["get"]["parameters"] if p["name"] == "by"]
        weighs = path.split("/")[1] in ("transactions", "weighing", "timbangan1", "timbangan2")
        assert ("direction" in by["schema"]["items"]["enum"]) == weighs, path
        assert ('direction ("in" when weigh1 > weigh2' in by["description"]) == weighs, path


def test_each_measure_is_described_where_its_summary_is_documented(rejects) -> None:
    """Each summary schema of /openapi.json says what every measure it holds is: its name
    is in the schema's description (a raw material's as g_sv, g_pv, g_deviation)."""
    schemas = rejects.get("/openapi.json").get_json()["components"]["schemas"]
    summaries = {name: s for name, s in schemas.items() if name.endswith("Summary")}
    assert sorted(summaries) == ["ProductionSummary", "VehicleSummary", "WeighingSummary"]
    material = re.compile(rf"^({'|'.join(map(re.escape, MATERIALS))})_")
    for name, schema in summaries.items():
        measures = [f for f, p in schema["properties"].items()
                    if f not in ("day", "month", "hour", "direction")
                    and "by=" not in p.get("description", "")
                    and not p.get("description", "").startswith("Sent right after")]
        assert measures, name
        for measure in measures:
            written = material.sub("g_", measure)
            assert re.search(rf"\b{re.escape(written)}\b", schema["description"]), (name, measure)


def test_production_sums_deviations_and_averages(make_client) -> None:
    client = make_client({"bricon2": BATCHES, "biao1": [
        {"id": b["no_produksi"], **b} for b in BATCHES]})
    for collection in ("bricon2", "biao1"):
        for by in ("day", "recipe", "hour", "day,operator_name"):
            url = (f"/{collection}/summary/2026-11-20/00:00/2026-11-21/23:59:59?by={by}")
            want = grouped(in_range(BATCHES, PAIRS["tanggal"], "2026-11-20T00:00:00",
                                    "2026-11-21T23:59:59"), by.split(","), PAIRS["tanggal"],
                           production)
            got = client.get(url)
            assert got.status_code == 200, got.get_json()
            assert got.get_json() == want, url
    day = client.get("/bricon2/summary/2026-11-20/00:00/2026-11-20/23:59:59").get_json()
    assert len(day) == 1
    assert (day[0]["adonan_sv"], day[0]["adonan_pv"]) == (2800, 2799)
    assert day[0]["air_deviation"] is None and day[0]["air_sv"] == 0  # sv sums to 0
    assert day[0]["silo_2_sv"] is None and day[0]["silo_2_deviation"] is None
    assert day[0]["silo_1_sv"] is None  # pv without sv: in neither sum
    first = client.get("/bricon2/summary/2026-11-20/06:00/2026-11-20/06:00").get_json()
    assert first[0]["adonan_deviation"] == 0.13  # +0.125 %, half away from zero
    third = client.get("/bricon2/summary/2026-11-20/23:30/2026-11-20/23:30").get_json()
    assert third[0]["adonan_deviation"] == -0.13
    filtered = client.get("/bricon2/summary/2026-11-20/00:00/2026-11-21/23:59:59"
                          "?by=recipe&isproses__not=1").get_json()
    assert filtered == grouped([b for b in in_range(
        BATCHES, PAIRS["tanggal"], "2026-11-20T00:00:00", "2026-11-21T23:59:59")
        if b["isproses"] != 1], ["recipe"], PAIRS["tanggal"], production)


def test_vehicles_count_by_month_of_expiry(make_client) -> None:
    rows = [{"id": n, "Number": f"L {n} A", "TransCode": "TR01" if n % 3 else None,
             "tgl_expired": f"2026-{1 + n % 4:02d}-1{n % 9}", "jam_expired": None}
            for n in range(1, 21)]
    client = make_client({"vehicles": rows})
    got = client.get("/vehicles/summary/2026-01-01/00:00/2026-12-31/23:59:59"
                     "?on=expired&by=month,TransCode")
    want = grouped(in_range(rows, PAIRS["expired"], "2026-01-01T00:00:00",
                            "2026-12-31T23:59:59"), ["month", "TransCode"], PAIRS["expired"],
                   lambda rs: {"records": len(rs)})
    assert got.get_json() == want
    assert want[0] == {"month": "2026-01", "TransCode": None, "TransName": None, "records": 1}


def test_a_summary_as_csv(shared) -> None:
    client = shared(WEIGHING_TABLES)
    got = client.get("/transactions/summary/2025-12-31/00:00/2026-01-02/23:59:59"
                     "?by=day,productcode&format=csv")
    assert got.mimetype == "text/csv"
    assert got.headers["Content-Disposition"] == (
        'attachment; filename="transactions-summary-2025-12-31_2026-01-02.csv"')
    want = grouped(in_range(WEIGHINGS, PAIRS["dt1"], "2025-12-31T00:00:00",
                            "2026-01-02T23:59:59"), ["day", "productcode"], PAIRS["dt1"],
                   weighing)
    names = ["day", "productcode", "productname", "records", "weighed", "net", "net_min",
             "net_max", "deduction", "net_after_deduction"]
    assert list(csv.reader(io.StringIO(got.get_data(as_text=True)))) == [names] + [
        ["" if g[n] is None else str(g[n]) for n in names] for g in want]


def test_a_large_summary_streams_whole(make_client) -> None:
    """More groups than are sent whole (2,000): streamed, every group there, in order."""
    rows = [{"id": n, "tgl_dt1": "2026-01-01", "jam_dt1": "08:00:00", "vehno": f"L {n:04d} X",
             "weigh1": 2.0 * n, "weigh2": 1.0 * n} for n in range(1, 2501)]
    client = make_client({"transactions": rows})
    got = client.get("/transactions/summary/2026-01-01/00:00/2026-01-01/23:59:59?by=vehno")
    assert got.status_code == 200 and "Content-Length" not in got.headers
    assert got.get_json() == grouped(rows, ["vehno"], PAIRS["dt1"], weighing)


@pytest.mark.parametrize(("query", "words"), [
    ("by=week", ["cannot group by 'week'", "day, month, hour", "productcode"]),
    ("by=", ["name at least one group"]),
    ("by=day,", ["cannot group by ''"]),
    ("by=day,day", ["a group is named twice"]),
    ("by=day,month,hour,vehno,custcode", ["at most 4 groups, not 5"]),
    ("by=weigh1", ["cannot group by 'weigh1'"]),
    ("by=tgl_dt1", ["cannot group by 'tgl_dt1'"]),
    ("on=expired", ["on"]),
    ("fields=day", ["unknown argument 'fields'"]),
    ("page=1", ["unknown argument 'page'"]),
    ("on=dt1&on=dt2", ["on is given 2 times"]),
    ("vehno__gt=A", ["vehno is text"]),
    ("productcodee=RM001", ["did you mean productcode?"]),
])
def test_what_a_summary_refuses(rejects, query, words) -> None:
    got = rejects.get(f"/transactions/summary/2026-01-01/00:00/2026-01-31/23:59?{query}")
    assert got.status_code == 400
    message = error(got)["message"]
    for word in words:
        assert word in message, message


def test_by_given_twice_joins_in_order(shared) -> None:
    """What generated clients send for an array (by=productcode&by=day): the groups joined
    in order, as `fields` are (docs/api.md §6.2)."""
    client = shared(WEIGHING_TABLES)
    url = "/transactions/summary/2025-12-31/00:00/2026-01-02/23:59:59"
    twice = client.get(f"{url}?by=productcode&by=day")
    once = client.get(f"{url}?by=productcode,day")
    assert twice.status_code == 200 and twice.data == once.data
    assert list(twice.get_json()[0])[:3] == ["productcode", "productname", "day"]
    assert "a group is named twice" in error(client.get(f"{url}?by=day&by=day"))["message"]


def test_production_refuses_a_measure_as_a_group(rejects) -> None:
    got = rejects.get(
        "/bricon2/summary/2026-11-20/00:00/2026-11-20/23:59?by=adonan_sv")
    assert "cannot group by 'adonan_sv'" in error(got)["message"]


def test_a_range_that_ends_before_it_starts(rejects) -> None:
    got = rejects.get("/transactions/summary/2026-01-02/00:00/2026-01-01/23:59")
    assert "starts after it ends" in error(got)["message"]


def test_only_collections_with_dates_have_summaries(rejects) -> None:
    assert rejects.get("/customers/summary/2026-01-01/00:00/2026-01-31/23:59").status_code == 404
