"""The daily report's figures, computed once for whoever shows them (the MCP `daily_report`
tool, and the report page through /report/{date}.json, which only lays them out): per
weighbridge its totals (weighings, open ones, and apart for in and out the net and the net
after deduction, kg; in and out are never added) and per direction its weighings, materials
and parties by net; the day's totals over every weighbridge; per batching plant its batches
and per material sv, pv, pv - sv and the deviation. Every figure is a summary the database
computes (app/core/summaries.py); here they are only added up (the weights exactly, as
decimals) and ordered. No web imports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

import orjson

from ..formats.registry import FORMATS
from ..model import params
from ..model.problems import Invalid
from .leftout import of_read
from .plan import Planner
from .reads import WHOLE_ROWS, Read, Rows, Runner
from .summaries import MATERIALS
from .unmapped import NotMapped

__all__ = ["MAX_GROUPS", "batching", "daily", "left_out", "summary_rows", "weighbridge"]

MAX_GROUPS = WHOLE_ROWS  # groups a summary answers at most (past it: narrow the range)
_JSON = FORMATS["json"]
# A weighbridge's totals, and the day's over every weighbridge: weighings, those with both
# weights, open ones, and per direction the net and the net after deduction (kg).
_TOTALS = ("records", "weighed", "open", "in", "in_after_deduction", "out",
           "out_after_deduction")


def summary_rows(runner: Runner, read: Read) -> Rows:
    """A summary's groups read whole; Invalid where there are more than MAX_GROUPS."""
    rows = runner.run(read)
    if rows.stream is not None:  # more than the runner reads whole
        rows.stream.close()
        raise Invalid(f"more than {MAX_GROUPS} groups: narrow the range or group by fewer "
                      f"fields")
    return rows


def _groups(runner: Runner, read: Read) -> list[dict[str, Any]]:
    """A summary's groups as the JSON format writes them."""
    rows = summary_rows(runner, read)
    return orjson.loads(_JSON.whole(read.encoder, rows.values, read.fields, read.name))


def left_out(runner: Runner, planner: Planner, read: Read) -> list[dict[str, Any]]:
    """What a day's summary leaves out (app/core/leftout.py), each reason with the read that
    lists them as a path under the API's root (`transactions?tgl_dt1__isnull=true...`)."""
    on = read.query.on or ""
    return [{**item.said(), "list": item.path(planner.collection.name, read.values, on)}
            for item in of_read(runner, planner, read)]


def daily(planners: Mapping[str, Planner], runner: Runner, guard: Callable[[str], None],
          day: dt.date, site: str | None) -> dict[str, Any]:
    """The figures of one day's report: every weighbridge and batching plant served, the
    weighbridges' totals added up, and the collections of either kind not mapped yet."""
    out: dict[str, Any] = {"date": day.isoformat(), "site": site, "weighbridges": [],
                           "batching": [], "unmapped": []}
    whole = params.date_range(day.isoformat(), "00:00:00", day.isoformat(), "23:59:59")
    for name, planner in planners.items():
        c = planner.collection
        if c.summary not in ("weighing", "production") or not c.dates:
            continue
        try:
            guard(name)
        except NotMapped:
            out["unmapped"].append(name)
            continue
        on = c.dates[0]
        if c.summary == "weighing":
            out["weighbridges"].append(weighbridge(planner, runner, on, whole))
        else:
            out["batching"].append(batching(planner, runner, on, whole))
    out["totals"] = {k: (_added if k.startswith(("in", "out")) else sum)(
        w["totals"][k] for w in out["weighbridges"]) for k in _TOTALS}
    return out


def _added(kilograms: Iterable[float | None]) -> float:
    """Weights as the JSON format sent them (a summary's figures: decimals of three places,
    read back as floats), added up exactly: each float's shortest text is the decimal sent,
    so the sum is that of the decimals, with none of a binary float's noise (docs/api.md §7,
    "Exact figures"); a None counts as 0."""
    return float(sum((Decimal(repr(kg)) for kg in kilograms if kg is not None), Decimal(0)))


def batching(planner: Planner, runner: Runner, on: str, bounds: Mapping[str, Any]
             ) -> dict[str, Any]:
    """One batching plant's day: its batches and the day's summary, and per raw material
    its sv, pv, pv - sv and deviation (None where the day has none)."""
    read = planner.summary(on, bounds)
    groups = _groups(runner, read)
    day = groups[0] if groups else {"batches": 0}
    materials = []
    for m in MATERIALS:
        sv, pv = day.get(f"{m}_sv"), day.get(f"{m}_pv")
        materials.append({"material": m, "sv": sv, "pv": pv,
                          "difference": None if sv is None or pv is None else pv - sv,
                          "deviation": day.get(f"{m}_deviation")})
    return {"collection": planner.collection.name, "on": on, **day, "materials": materials,
            "left_out": left_out(runner, planner, read)}


def weighbridge(planner: Planner, runner: Runner, on: str, bounds: Mapping[str, Any]
                ) -> dict[str, Any]:
    """One weighbridge's day: totals, then per direction its materials and parties; the
    net and the net after deduction per direction, never in and out added together."""
    c = planner.collection
    groups = {by: _groups(runner, planner.summary(on, bounds, ["direction", by]))
              for by in ("productcode", "custcode")}
    totals: dict[str, Any] = {k: 0.0 if k.startswith(("in", "out")) else 0 for k in _TOTALS}
    for g in groups["productcode"]:
        totals["records"] += g["records"]
        totals["weighed"] += g["weighed"]
        if g["direction"] in ("in", "out"):
            after = f"{g['direction']}_after_deduction"
            totals[g["direction"]] = _added((totals[g["direction"]], g["net"]))
            totals[after] = _added((totals[after], g["net_after_deduction"]))
    totals["open"] = totals["records"] - totals["weighed"]
    out: dict[str, Any] = {"collection": c.name, "on": on, "totals": totals,
                           "left_out": left_out(runner, planner, planner.summary(on, bounds))}
    for direction in ("in", "out"):
        out[direction] = {
            what: sorted(({"code": g[code], "name": g.get(c.namings[code].name),
                           "records": g["records"], "net": g["net"],
                           "net_after_deduction": g["net_after_deduction"]}
                          for g in groups[code] if g["direction"] == direction),
                         key=lambda r: (-(r["net"] or 0), r["code"] or ""))
            for what, code in (("materials", "productcode"), ("parties", "custcode"))}
        out[direction]["records"] = sum(r["records"] for r in out[direction]["materials"])
    return out
