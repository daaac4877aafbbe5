"""Net after deduction (docs/api.md §7): the weighing summaries' `deduction` (the
sum of adjustweigh, kg deducted, over the records weighed in and out) and
`net_after_deduction` (|weigh1 - weigh2| minus it), beside `net`. Every figure is computed
here from the rows the test inserts, and the answers compared whole on every engine; the
site's mapping decides what adjustweigh is (kg as stored, stored negative, a percent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.ops.config import SHIPPED_SQL_DIR
from tests.contract import PAIRS
from tests.helpers import direction, grouped, in_range, weighing

RANGE = "2026-11-20/00:00/2026-11-21/23:59:59"
START, END = "2026-11-20T00:00:00", "2026-11-21T23:59:59"


def _ticket(n: int, day: str, w1: float | None, w2: float | None, cut: float | None,
            product: str, pct: float | None = None) -> dict[str, Any]:
    return {"id": n, "tgl_dt1": day, "jam_dt1": f"{6 + n:02d}:00:00", "weigh1": w1,
            "weigh2": w2, "adjustweigh": cut, "adjustunit": pct, "productcode": product}


# TBS delivered with sortasi (kg, positive), without (NULL and 0), a deduction on a ticket
# still waiting for its exit weighing (counted nowhere), CPO dispatched, equal weights.
# Halves and quarters only, so that every sum is exact in binary floating point.
TICKETS = [
    _ticket(1, "2026-11-20", 24500.0, 9500.0, 450.5, "TBS", 3.0),
    _ticket(2, "2026-11-20", 22000.0, 8000.0, None, "TBS", None),
    _ticket(3, "2026-11-20", 21000.0, None, 600.0, "TBS", 2.5),
    _ticket(4, "2026-11-20", 11000.0, 36500.25, 0.0, "CPO", 0.0),
    _ticket(5, "2026-11-21", 30000.0, 10000.0, 1000.25, "TBS", 5.0),
    _ticket(6, "2026-11-21", 15000.0, 15000.0, 20.0, "TBS", 1.0),
    _ticket(7, "2026-11-21", None, None, 75.0, "TBS", None),
    _ticket(8, "2026-11-21", 9500.0, 35000.0, 12.75, "CPO", 0.5),
]
TABLES = {"transactions": TICKETS}


def _summary(client: Any, by: str) -> Any:
    got = client.get(f"/transactions/summary/{RANGE}?by={by}")
    assert got.status_code == 200, got.get_json()
    return got.get_json()


def test_the_measures_by_day_and_direction(shared) -> None:
    client = shared(TABLES)
    rows = in_range(TICKETS, PAIRS["dt1"], START, END)
    for by in ("day", "direction", "day,productcode", "productcode,direction"):
        assert _summary(client, by) == grouped(rows, by.split(","), PAIRS["dt1"], weighing)


def test_the_figures_of_one_day_written_out(shared) -> None:
    """The model's figures for 2026-11-20, from the rows by hand: tickets 1, 2 and 4 are
    weighed (3 has no exit weighing, so its 600 kg count nowhere)."""
    nets = [24500.0 - 9500.0, 22000.0 - 8000.0, 36500.25 - 11000.0]
    [day] = [g for g in _summary(shared(TABLES), "day") if g["day"] == "2026-11-20"]
    assert day == {"day": "2026-11-20", "records": 4, "weighed": 3, "net": sum(nets),
                   "net_min": min(nets), "net_max": max(nets), "deduction": 450.5,
                   "net_after_deduction": sum(nets) - 450.5}
    assert day["net"] - day["deduction"] == day["net_after_deduction"]


def test_nothing_weighed_has_no_deduction(shared) -> None:
    client = shared(TABLES)
    got = client.get(f"/transactions/summary/{RANGE}?by=day&weigh2__isnull=true")
    rows = [r for r in in_range(TICKETS, PAIRS["dt1"], START, END) if r["weigh2"] is None]
    want = grouped(rows, ["day"], PAIRS["dt1"], weighing)
    assert got.get_json() == want
    assert [(g["deduction"], g["net_after_deduction"]) for g in want] == [(None, None)] * 2


def test_csv_sends_both_nets(shared) -> None:
    got = shared(TABLES).get(f"/transactions/summary/{RANGE}?by=direction&format=csv")
    want = grouped(in_range(TICKETS, PAIRS["dt1"], START, END), ["direction"], PAIRS["dt1"],
                   weighing)
    lines = got.get_data(as_text=True).splitlines()
    assert lines[0] == ("direction,records,weighed,net,net_min,net_max,deduction,"
                        "net_after_deduction")
    assert lines[1:] == [",".join("" if v is None else str(v) for v in g.values())
                         for g in want]


def _site(tmp_path: Path, line: str) -> Path:
    """The shipped sql/ with transactions' adjustweigh line written as `line`."""
    site = tmp_path / "site-sql"
    site.mkdir()
    text = (SHIPPED_SQL_DIR / "transactions.sql").read_text()
    shipped = '    "adjustweigh" AS "adjustweigh",\n'
    assert shipped in text
    (site / "transactions.sql").write_text(text.replace(shipped, f"    {line},\n"))
    return site


def test_a_deduction_stored_as_a_percent(make_client, tmp_path: Path) -> None:
    """docs/adapting.md "Net after deduction": the percent (kept here in adjustunit) times
    the ticket's net is the kilograms deducted."""
    site = _site(tmp_path, 'ABS("weigh1" - "weigh2") * "adjustunit" / 100.0 AS "adjustweigh"')
    client = make_client(TABLES, database={"sql_dir": str(site)},
                         collections={"serve": ["transactions"]})
    as_kg = [r | {"adjustweigh": None if r["weigh1"] is None or r["weigh2"] is None
                  or r["adjustunit"] is None
                  else abs(r["weigh1"] - r["weigh2"]) * r["adjustunit"] / 100}
             for r in TICKETS]
    want = grouped(in_range(as_kg, PAIRS["dt1"], START, END), ["day"], PAIRS["dt1"], weighing)
    assert _summary(client, "day") == want
    assert [g["deduction"] for g in want] == [15000.0 * 3 / 100 + 0.0,
                                              20000.0 * 5 / 100 + 0.0 + 25500.0 * 0.5 / 100]
    # The record says the same kilograms.
    assert client.get("/transactions/1").get_json()["adjustweigh"] == 450.0


def test_a_deduction_stored_negative_mapped_positive(make_client, tmp_path: Path) -> None:
    site = _site(tmp_path, '-"adjustweigh" AS "adjustweigh"')
    stored = [r | {"adjustweigh": None if r["adjustweigh"] is None else -r["adjustweigh"]}
              for r in TICKETS]
    client = make_client({"transactions": stored}, database={"sql_dir": str(site)},
                         collections={"serve": ["transactions"]})
    assert _summary(client, "direction") == grouped(
        in_range(TICKETS, PAIRS["dt1"], START, END), ["direction"], PAIRS["dt1"], weighing)


def test_a_site_without_deductions(make_client, tmp_path: Path) -> None:
    site = _site(tmp_path, 'CAST(NULL AS float) AS "adjustweigh"')
    client = make_client(TABLES, database={"sql_dir": str(site)},
                         collections={"serve": ["transactions"]})
    got = _summary(client, "direction")
    assert [(g["direction"], g["deduction"], g["net_after_deduction"]) for g in got] == [
        (d, 0.0, sum(abs(r["weigh1"] - r["weigh2"]) for r in TICKETS
                     if r["weigh1"] is not None and r["weigh2"] is not None
                     and direction(r) == d))
        for d in (None, "in", "out")]
