"""bench/RESULTS.md and the terminal's tables from the results of bench/run.py, and the
performance targets; an MCP call beside the same summary over HTTP."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

WORKS = (("row", "Row by id"), ("page", "100-row page, deep offset"),
         ("range", "Date range, ~1,000 rows"),
         ("frange", "Filtered range: one truck (vehno=) in the ~1,000-row range"),
         ("fpage", "Filtered deep page: one customer (custcode=), upper half of its pages"),
         ("summary", "Summary: a month of tonnage by day and material"),
         ("feed", "Feed poll: /changes?after=, 30 records in the lookback window"))
# One MCP call against the same summary over HTTP, measured on one server (the
# contender "mcp") in the same rounds; no target, the figures and their paired ratio.
MCP_WORKS = (("summary_http", "HTTP: GET /transactions/summary/...?by=productcode"),
             ("summary_mcp", "MCP: POST /mcp, tools/call summarize, by [productcode]"))
MCP_TITLE = "MCP: a month of tonnage by material, over HTTP and over MCP"
STREAM_KEYS = ("jembatan", "deploy", "odbc")
# The reference run on a quiet 2-core host: Datasette 0.65 and the limit.
REFERENCE = {("datasette", "row"): 1066, ("datasette", "page"): 27, ("datasette", "range"): 39,
             ("datasette", "csv"): 35000, ("sqlite3", "page"): 31, ("sqlite3", "range"): 114,
             ("sqlite3", "all"): 117000, ("sqlite3", "csv"): 103000}


def _get(results: dict[str, Any], *path: str) -> Any:
    node: Any = results
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _paired(a: dict[str, Any] | None, b: dict[str, Any] | None) -> float | None:
    """How a request work's figure on `a` compares with `b` (a contender, or the limit):
    the median, over the rounds, of a's figure over b's in the same round. Both were
    measured within seconds of each other, so a slow spell of the machine falls on both
    sides of a round's ratio; the best rounds of each (the figures shown) may come from
    different spells. An older results.json without matching rounds: best over best."""
    if not a or not b:
        return None
    ra, rb = a.get("rounds") or [], b.get("rounds") or []
    if ra and len(ra) == len(rb) and all(rb):
        return statistics.median(x / y for x, y in zip(ra, rb, strict=True))
    return _ratio(a.get("req_s", a.get("ops_s")), b.get("req_s", b.get("ops_s")))


def _at_least(out: list[dict[str, Any]], name: str, value: float | None, bound: float,
              unit: str = "x") -> None:
    if value is None:
        out.append({"target": name, "value": None, "met": None, "margin": "not measured"})
        return
    shown = f"{value:.2f}x" if unit == "x" else f"{100 * value:.0f} %"
    out.append({"target": name, "value": shown, "met": value >= bound,
                "margin": f"{100 * (value / bound - 1):+.0f} %"})


def _below(out: list[dict[str, Any]], name: str, value: float | None, bound: float,
           unit: str) -> None:
    if value is None:
        out.append({"target": name, "value": None, "met": None, "margin": "not measured"})
        return
    out.append({"target": name, "value": f"{value:.1f} {unit}", "met": value < bound,
                "margin": f"{bound - value:+.1f} {unit} of room" if value < bound
                else f"{value - bound:.1f} {unit} over"})


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each performance target: the figure, the bound, met or not, the margin."""
    def req(key: str, work: str) -> dict[str, Any] | None:
        return _get(results, "contenders", key, "works", work)

    def limit(driver: str, work: str) -> dict[str, Any] | None:
        return _get(results, "limit", driver, work)

    def lim(driver: str, work: str) -> float | None:
        field = "rows_s" if work in ("all", "csv") else "ops_s"
        return _get(results, "limit", driver, work, field)

    def rows_s(key: str, kind: str) -> float | None:
        return _get(results, "contenders", key, "works", kind, "rows_s")

    out: list[dict[str, Any]] = []

    def at_least(name: str, value: float | None, bound: float, unit: str = "x") -> None:
        _at_least(out, name, value, bound, unit)

    at_least("Row by id >= 2x Datasette", _paired(req("jembatan", "row"),
                                                   req("datasette", "row")), 2)
    at_least("Deep page >= 1x Datasette", _paired(req("jembatan", "page"),
                                                   req("datasette", "page")), 1)
    at_least("Deep page >= 90 % of the limit", _paired(req("jembatan", "page"),
                                                        limit("sqlite3", "page")), 0.9, "%")
    at_least("Range >= 2x Datasette", _paired(req("jembatan", "range"),
                                               req("datasette", "range")), 2)
    at_least("Full table JSON >= 2.5x Datasette's CSV rows/s",
             _ratio(rows_s("jembatan", "json"), rows_s("datasette", "csv")), 2.5)
    at_least("Full table JSON >= 75 % of the limit",
             _ratio(rows_s("jembatan", "json"), lim("sqlite3", "all")), 0.75, "%")
    at_least("Full table CSV >= 2.5x Datasette's CSV rows/s",
             _ratio(rows_s("jembatan", "csv"), rows_s("datasette", "csv")), 2.5)
    at_least("Full table CSV >= 75 % of the limit (CSV)",
             _ratio(rows_s("jembatan", "csv"), lim("sqlite3", "csv")), 0.75, "%")
    # An Excel export costs more per row than CSV (typed XML cells, deflate).
    at_least("Full table Excel >= 1/3 of CSV's rows/s",
             _ratio(rows_s("jembatan", "xlsx"), rows_s("jembatan", "csv")), 1 / 3)
    # The filtered works.
    for work, label in (("frange", "Filtered range"), ("fpage", "Filtered deep page")):
        at_least(f"{label} >= 1x Datasette", _paired(req("jembatan", work),
                                                      req("datasette", work)), 1)
        at_least(f"{label} >= 90 % of the limit", _paired(req("jembatan", work),
                                                           limit("sqlite3", work)), 0.9, "%")
    # A month by day and material.
    at_least("Summary >= 90 % of the limit", _paired(req("jembatan", "summary"),
                                                      limit("sqlite3", "summary")), 0.9, "%")
    for work, label in (("page", "deep page"), ("range", "range")):
        at_least(f"ODBC path >= 90 % of its own limit: {label}",
                 _paired(req("odbc", work), limit("pyodbc", work)), 0.9, "%")
    at_least("ODBC path >= 90 % of its own limit: full table JSON",
             _ratio(rows_s("odbc", "json"), lim("pyodbc", "all")), 0.9, "%")
    # Every work's share of its ceiling; below 90 %, the note profiles the work.
    for work, share in ceiling_shares(results).items():
        at_least(f"{LABELS[work]} >= 90 % of its ceiling (else profiled)", share, 0.9, "%")
    return out + _stream_targets(results)


def _stream_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """First byte, memory and completeness of the full-table streams."""
    out: list[dict[str, Any]] = []
    for key in STREAM_KEYS:
        label = {"jembatan": "1 worker", "deploy": "deployment", "odbc": "ODBC"}[key]
        _below(out, f"First byte < 100 ms ({label})",
               _get(results, "contenders", key, "works", "json", "first_byte_ms"), 100, "ms")
    for key in STREAM_KEYS:
        label = {"jembatan": "1 worker", "deploy": "deployment, per worker",
                 "odbc": "ODBC"}[key]
        _below(out, f"Server RSS < 100 MB through the stream ({label})",
               _get(results, "contenders", key, "works", "json", "rss_peak_worker_mb"), 100,
               "MB")
    streams = [(key, kind, s) for key, c in results.get("contenders", {}).items()
               for kind, s in c["works"].items() if kind in ("json", "csv", "xlsx")
               and "complete" in s]
    if streams:
        short = [f"{k} {kind}" for k, kind, s in streams if not s["complete"]]
        out.append({"target": "Never a truncated body",
                    "value": f"{len(streams) - len(short)} of {len(streams)} complete",
                    "met": not short,
                    "margin": "every body complete" if not short
                    else "incomplete: " + ", ".join(short)})
    return out


def _ceiling_share(got: dict[str, Any] | None, limit: dict[str, Any] | None,
                   floor: dict[str, Any] | None) -> float | None:
    """Jembatan's share of a request work's ceiling, paired as _paired pairs: in each round,
    its req/s times the limit's time plus the floor's (one over the ceiling); the median over
    the rounds. Without matching rounds: best figures."""
    if not got or not limit or not floor:
        return None
    rg, rl, rf = (x.get("rounds") or [] for x in (got, limit, floor))
    if rg and len(rg) == len(rl) == len(rf) and all(rl) and all(rf):
        return statistics.median(g * (1 / lim + 1 / f)
                                 for g, lim, f in zip(rg, rl, rf, strict=True))
    return got["req_s"] * (1 / limit["ops_s"] + 1 / floor["req_s"])


def _own_cost_ms(results: dict[str, Any]) -> float | None:
    """What Jembatan's own path adds to a request beyond the framework and the database:
    row by id's time less its limit's and the floor's, per round, the median (ms)."""
    row = _get(results, "contenders", "jembatan", "works", "row")
    limit = _get(results, "limit", "sqlite3", "row")
    floor = _get(results, "contenders", "floor", "works", "row")
    if not row or not limit or not floor:
        return None
    rounds = zip(row.get("rounds") or [], limit.get("rounds") or [],
                 floor.get("rounds") or [], strict=False)
    costs = [1000 * (1 / r - 1 / lim - 1 / f) for r, lim, f in rounds if r and lim and f]
    return statistics.median(costs) if costs else None


def ceilings(results: dict[str, Any]) -> dict[str, Any] | None:
    """What one sync worker could reach at best on each work: its limit's time plus the
    framework floor's (a bare Flask route answering 1 KB under the same gunicorn worker,
    measured in the same rounds). A work whose limit is cheap beside the floor cannot come
    near its limit however lean Jembatan's own path; its share of the ceiling says how much
    of the gap is Jembatan's."""
    floors = _get(results, "contenders", "floor", "works") or {}
    if not floors:
        return None
    works: dict[str, Any] = {}
    for work, _label in WORKS:
        limit, floor = _get(results, "limit", "sqlite3", work), floors.get(work)
        if not limit or not floor:
            continue
        got = _get(results, "contenders", "jembatan", "works", work)
        ceiling = 1 / (1 / limit["ops_s"] + 1 / floor["req_s"])
        works[work] = {"limit_ms": 1000 / limit["ops_s"], "floor_ms": 1000 / floor["req_s"],
                       "ceiling": ceiling, "ceiling_of_limit": ceiling / limit["ops_s"],
                       "got": got["req_s"] if got else None, "unit": "req/s",
                       "of_ceiling": _ceiling_share(got, limit, floor)}
    # A full table is one request: the floor's best round (its least disturbed) is added
    # once to the limit's time; it is a rounding error there, shown for completeness.
    floor_ms = 1000 / max(w["req_s"] for w in floors.values())
    for kind, work in (("json", "all"), ("csv", "csv")):
        limit = _get(results, "limit", "sqlite3", work)
        got = _get(results, "contenders", "jembatan", "works", kind, "rows_s")
        if limit and limit.get("rows"):
            seconds = limit["rows"] / limit["rows_s"] + floor_ms / 1000
            ceiling = limit["rows"] / seconds
            works[kind] = {"limit_ms": 1000 * limit["rows"] / limit["rows_s"],
                           "floor_ms": floor_ms, "ceiling": ceiling,
                           "ceiling_of_limit": ceiling / limit["rows_s"], "got": got,
                           "unit": "rows/s", "of_ceiling": _ratio(got, ceiling)}
    return {"floor_ms": floor_ms, "own_row_ms": _own_cost_ms(results), "works": works}


FEATURES = (("nometrics", "the metrics"), ("nolog", "the access log"))


def feature_costs(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What each contract feature costs a request of row by id: Jembatan's time less the
    time of Jembatan without it (bench/variant.py), per round, the median (µs). Both are
    measured seconds apart in every round, as the floor is."""
    j = _get(results, "contenders", "jembatan", "works", "row")
    found: dict[str, dict[str, Any]] = {}
    for key, what in FEATURES:
        v = _get(results, "contenders", key, "works", "row")
        if not j or not v:
            continue
        costs = [1e6 * (1 / a - 1 / b) for a, b in
                 zip(j.get("rounds") or [], v.get("rounds") or [], strict=False) if a and b]
        if costs:
            found[key] = {"what": what, "us": statistics.median(costs),
                          "rounds_us": costs, "req_s": v["req_s"]}
    return found


def feature_lines(results: dict[str, Any]) -> list[str]:
    found = feature_costs(results)
    return [f"{f['what'][0].upper()}{f['what'][1:]} cost row by id {f['us']:.0f} µs a request "
            f"(the median of the rounds' {', '.join(f'{x:.0f}' for x in f['rounds_us'])})."
            for f in found.values()]


def ceiling_shares(results: dict[str, Any]) -> dict[str, float | None]:
    found = ceilings(results)
    return {w: v["of_ceiling"] for w, v in found["works"].items()} if found else {}


def _met(t: dict[str, Any]) -> str:
    return {True: "met", False: "NOT met", None: "not measured"}[t["met"]]


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


COLUMNS = (("jembatan", "Jembatan 1 worker"), ("floor", "Floor (bare Flask)"),
           ("deploy", "Jembatan deployment"), ("odbc", "Jembatan ODBC"),
           ("datasette", "Datasette"))
LABELS = dict(WORKS) | {"json": "Full table, JSON", "csv": "Full table, CSV"}


def requests_table(results: dict[str, Any]) -> list[str]:
    """The request works: every contender, the limits, the ceiling, and the paired ratios."""
    c, lim = results["contenders"], results["limit"]
    shares = ceiling_shares(results)
    found = ceilings(results) or {"works": {}}
    L = ["| Work | " + " | ".join(label for _, label in COLUMNS) + " | Limit sqlite3 | Limit "
         "pyodbc | Ceiling | Jembatan / Datasette | Jembatan / limit | Jembatan / ceiling "
         "| ODBC / its limit |",
         "|---" * (len(COLUMNS) + 8) + "|"]
    for work, label in WORKS:
        cells = []
        for key, _ in COLUMNS:
            w = _get(c, key, "works", work)
            cells.append(f"{_num(w['req_s'])} ({_num(w['p99_ms'])})" if w else "–")
        for driver in ("sqlite3", "pyodbc"):
            w = _get(lim, driver, work)
            cells.append(f"{_num(w['ops_s'])} ({_num(w['p99_ms'])})" if w else "–")
        j, ds = _get(c, "jembatan", "works", work), _get(c, "datasette", "works", work)
        o = _get(c, "odbc", "works", work)
        cells += [_num(_get(found, "works", work, "ceiling")),
                  _num(_paired(j, ds), 2) + "x",
                  _num(_paired(j, _get(lim, "sqlite3", work)), 2),
                  _num(shares.get(work), 2),
                  _num(_paired(o, _get(lim, "pyodbc", work)), 2)]
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    return L


def paired_rounds(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[float]:
    """Each round's ratio of a's figure over b's (the rounds _paired takes the median of)."""
    ra, rb = (a or {}).get("rounds") or [], (b or {}).get("rounds") or []
    if len(ra) != len(rb) or not all(rb):
        return []
    return [x / y for x, y in zip(ra, rb, strict=True)]


def mcp_table(results: dict[str, Any]) -> list[str]:
    """The MCP work: req/s (p99 ms) of each side, the bytes of an answer, every round's
    req/s; then MCP / HTTP paired by round, with the rounds' lowest and highest ratio."""
    works = _get(results, "contenders", "mcp", "works") or {}
    if not all(works.get(w) for w, _ in MCP_WORKS):
        return []
    L = ["| Work | req/s (p99 ms) | Bytes per answer, headers included | Every round's req/s |",
         "|---|---|---|---|"]
    for work, label in MCP_WORKS:
        w = works[work]
        L.append(f"| {label} | {_num(w['req_s'])} ({_num(w['p99_ms'])}) | "
                 f"{_num(w['bytes_per_request'], 0)} | "
                 f"{', '.join(_num(x) for x in w['rounds'])} |")
    mcp, http = works["summary_mcp"], works["summary_http"]
    each = paired_rounds(mcp, http)
    L.append(f"\nMCP / HTTP: {_num(_paired(mcp, http), 2)} (the median of the rounds' ratios; "
             f"{_num(min(each), 2)} to {_num(max(each), 2)} over the {len(each)} rounds: "
             f"{', '.join(_num(x, 2) for x in each)}).")
    return L


def ceiling_table(results: dict[str, Any]) -> list[str]:
    found = ceilings(results)
    if not found:
        return []
    L = ["| Work | Limit ms | Floor ms | Ceiling | Ceiling / limit | Jembatan | "
         "Jembatan / ceiling |", "|---|---|---|---|---|---|---|"]
    for work, w in found["works"].items():
        L.append(f"| {LABELS[work]} | {w['limit_ms']:,.3f} | {w['floor_ms']:.3f} | "
                 f"{_num(w['ceiling'], 1 if w['unit'] == 'req/s' else 0)} {w['unit']} | "
                 f"{_pct(w['ceiling_of_limit'])} | "
                 f"{_num(w['got'], 1 if w['unit'] == 'req/s' else 0)} | "
                 f"{_pct(w['of_ceiling'])} |")
    return L


def summary(results: dict[str, Any]) -> str:
    """What the terminal shows at the end: the requests' and the ceilings' tables, then the
    targets."""
    lines = ["Requests: req/s (p99 ms); ratios paired by round", *requests_table(results)]
    table = ceiling_table(results)
    if table:
        found = ceilings(results) or {}
        lines += ["", f"Each work's ceiling: its limit plus the framework floor, "
                      f"{found['floor_ms']:.3f} ms a request at best", *table]
    lines += ["", *feature_lines(results)] if feature_costs(results) else []
    table = mcp_table(results)
    lines += ["", MCP_TITLE + ":", *table] if table else []
    lines += ["", "Targets:"]
    for t in results["targets"]:
        lines.append(f"  {_met(t):<13} {t['target']}: {t['value']} ({t['margin']})")
    return "\n".join(lines)


def _header(results: dict[str, Any]) -> list[str]:
    m, plan, d = results["machine"], results["plan"], results["plan"]["distribution"]
    L = ["# Benchmark results\n",
         "Written by `make bench` (bench/run.py); the figures of the run, every round's too, "
         "are in `bench/data/results.json`. What is measured and how: CONTRIBUTING.md, "
         "section Benchmark.\n",
         f"- Date: {results['date']}; the run took {results['wall_seconds']:.0f} s.",
         f"- Machine: {m['nproc']} cores, {m['cpu']}, {m['memory_gib']} GiB of memory, "
         f"Linux {m['kernel']}.",
         f"- Software: Python {m['python']}, SQLite {m['sqlite']}, {m['gunicorn']}, "
         f"{m['datasette']}, {m['wrk']}, {m['py_spy']}."]
    la0, la1 = results["load_average_start"], results["load_average_end"]
    L.append(f"- Load average (1/5/15 min) at start {la0[0]:.2f}/{la0[1]:.2f}/{la0[2]:.2f}, at "
             f"end {la1[0]:.2f}/{la1[1]:.2f}/{la1[2]:.2f}: other work on the machine during "
             f"the run makes the figures noisy; compare runs made under the same load.")
    gauge = []
    for (who, work), ref in REFERENCE.items():
        if who == "datasette":
            value = _get(results, "contenders", who, "works", work,
                         "rows_s" if work == "csv" else "req_s")
        else:
            value = _get(results, "limit", who, work,
                         "rows_s" if work in ("all", "csv") else "ops_s")
        if value:
            gauge.append(f"{who} {work} {value / ref:.2f}")
    if gauge:
        L.append("- This run against the first reference run (a quiet machine of the same "
                 "kind), as a gauge of how loaded the machine was: " + ", ".join(gauge)
                 + " (1.00 = as fast).")
    L.append(f"- Database: `{results['settings']['db']}`, {plan['rows']:,} rows in "
             f"`transactions`; {results['settings']['seconds']:g} s per measured wrk run after "
             f"a {results['settings']['warmup']:g} s warm-up, 4 connections.")
    L.append(f"- Data: entry dates {d['first_day']} to {d['last_day']} ({d['span_days']:,} "
             f"days), {d['rows_per_day_min']}-{d['rows_per_day_max']} rows a day, hours "
             f"{d['hours']} ({d['rows_per_hour_min']:,}-{d['rows_per_hour_max']:,} rows per "
             f"hour of the day). A range is {plan['range']['window_days']} days from 00:00 to "
             f"{plan['range']['end_time']} on the last: {d['range_rows_min']:,}-"
             f"{d['range_rows_max']:,} rows (mean {d['range_rows_mean']:,.0f}) in 40 sampled "
             f"windows. Pages {plan['page']['first']:,}-{plan['page']['last']:,} "
             f"(the upper half) of {plan['page']['size']} rows. Filtered: the truck "
             f"{plan['frange']['vehno']} in the same ranges; customer "
             f"{plan['fpage']['custcode']}'s {plan['fpage']['rows']:,} weighings, pages "
             f"{plan['fpage']['first']:,}-{plan['fpage']['last']:,}.")
    feed = plan.get("feed")
    if feed:  # the cost of a caught-up ERP's poll on the plant's server
        L.append(f"- Feed poll: a bookmark whose {feed['lookback_seconds']:,} s lookback "
                 f"window holds the {feed['window']} newest records, all sent already; "
                 f"SQLite's plan of its query: `{feed['query_plan']}`.")
    L[-1] += "\n"
    return L


def _requests(results: dict[str, Any]) -> list[str]:
    L = ["## Requests\n",
         "req/s, and p99 latency in ms in brackets; the limit is the same work with no HTTP, "
         "one call after the other in one process on the server's core; the floor is a bare "
         "Flask route answering a fixed 1 KB JSON body (bench/floor.py) under the same "
         "gunicorn command and worker as Jembatan's, driven by the same wrk, and the ceiling "
         "is the limit's time plus the floor's, as a rate. Every server is started before "
         "the first measurement and idles while the others are measured; each work runs on "
         "every contender back to back, so that a change in the machine's load during the "
         "run falls on all of them alike. Each work is measured in "
         f"{results['settings'].get('rounds', 2)} such rounds, the limit first in odd rounds "
         "and last in even ones. The figure shown is each one's best round: interference "
         "from outside only ever slows a round down. A ratio (the last four columns and the "
         "targets) is the median, over the rounds, of the two figures' ratio within a round "
         "(Jembatan / ceiling: its req/s times the limit's and the floor's time of the same "
         "round): measured seconds apart, both sides of it share the machine's spells of "
         "slowness, which swing its speed by up to 20 % from one 10 s to the next. Every "
         "round's figure is in results.json (`rounds`), and errors are those of all "
         "rounds.\n",
         *requests_table(results)]
    probes = {key: v["probe"] for key, v in results["contenders"].items() if "probe" in v}
    if probes:
        L.append("\nRecords per request, from one probe of each work before timing (the same "
                 "page and range for every contender): "
                 + "; ".join(f"{key} {p}" for key, p in probes.items()) + ".")
    return L


def _streams(results: dict[str, Any]) -> list[str]:
    c, lim = results["contenders"], results["limit"]
    L = ["\n## Full table\n",
         "A GET of the whole table, read by a client on the other core (both cores in the "
         "deployment configuration), three times for each contender (and the limit three "
         "times, each in a new process): rows/s and MB/s are the median run's, the other "
         "figures the worst of the three. First byte: from sending the request to the first "
         "byte of the body. Peak RSS: VmRSS of the serving process(es), sampled every 50 ms "
         "(gunicorn: its workers, summed; before the stream in brackets). Complete: status "
         "200, every record there (and the JSON parses), in every run.\n",
         "| Contender | Format | rows/s | MB/s | First byte ms | Peak RSS MB | Complete |",
         "|---|---|---|---|---|---|---|"]
    for key, label in COLUMNS:
        for kind in ("json", "csv", "xlsx"):
            s = _get(c, key, "works", kind)
            if s is None:
                continue
            if s.get("not_implemented"):
                L.append(f"| {label} | {kind.upper()} | not implemented | | | | |")
                continue
            L.append(f"| {label} | {kind.upper()} | {_num(s['rows_s'], 0)} | "
                     f"{_num(s['mb_s'])} | {_num(s['first_byte_ms'])} | "
                     f"{_num(s['rss_peak_mb'])} ({_num(s['rss_baseline_mb'])}) | "
                     f"{'yes' if s['complete'] else 'NO'}: {s['check']} |")
    for driver in ("sqlite3", "pyodbc"):
        for work, kind in (("all", "JSON"), ("csv", "CSV")):
            a = _get(lim, driver, work)
            if a:
                L.append(f"| Limit {driver} | {kind} | {_num(a['rows_s'], 0)} | "
                         f"{_num(a['bytes'] / a['seconds'] / 1e6)} | | | {a['rows']:,} "
                         f"records |")
    j, ds = (_get(c, "jembatan", "works", "json", "rows_s"),
             _get(c, "datasette", "works", "csv", "rows_s"))
    if j and ds:
        L.append(f"\nJembatan JSON / Datasette CSV: {_ratio(j, ds):.2f}x. Jembatan JSON / "
                 f"limit: {_num(_ratio(j, _get(lim, 'sqlite3', 'all', 'rows_s')), 2)}.")
    jc = _get(c, "jembatan", "works", "csv", "rows_s")
    if jc and ds:
        L.append(f"Jembatan CSV / Datasette CSV: {_ratio(jc, ds):.2f}x. Jembatan CSV / limit "
                 f"(CSV): {_num(_ratio(jc, _get(lim, 'sqlite3', 'csv', 'rows_s')), 2)}.")
    jx = _get(c, "jembatan", "works", "xlsx", "rows_s")
    if jx and jc:
        L.append(f"Jembatan Excel / Jembatan CSV: {_ratio(jx, jc):.2f}x (target: 1/3 or more).")
    return L


def _mcp(results: dict[str, Any]) -> list[str]:
    table = mcp_table(results)
    if not table:
        return []
    probe = _get(results, "contenders", "mcp", "probe") or {}
    return [f"\n## {MCP_TITLE}\n",
            "A month of transactions by material, drawn as the summary work draws its month, "
            "asked of one Jembatan server (one sync worker, pinned, as the first contender) "
            "over HTTP (`GET /transactions/summary/{start}/00:00/{end}/23:59:59?by=productcode`) "
            "and over MCP (a JSON-RPC `tools/call` of the tool `summarize`, "
            "`{\"collection\": \"transactions\", \"from\": start, \"to\": end 23:59:59, "
            "\"by\": [\"productcode\"]}`, POSTed to `/mcp` with `Content-Type` and `Accept` "
            "`application/json` and `MCP-Protocol-Version: 2025-11-25`; bench/wrk/post.lua), "
            "the two one after the other in each of "
            f"{results['settings'].get('rounds', 2)} rounds, HTTP first in odd rounds and "
            "last in even ones. The figures are each side's best round; the ratio is the "
            "median of the rounds' ratios, as in the tables above. A probe before timing "
            "checked that the tool's groups are the HTTP answer's, value for value "
            f"({probe.get('summary_http', '?')} groups; an answer's body of "
            f"{probe.get('summary_http_bytes', 0):,} bytes over HTTP, "
            f"{probe.get('summary_mcp_bytes', 0):,} over MCP, which carries the groups twice: "
            "as structuredContent and as their JSON text).\n",
            *table]


def _targets(results: dict[str, Any]) -> list[str]:
    L = ["\n## Targets (issues 4, 11, 12 and 21)\n", "| Target | Measured | Met | Margin |",
         "|---|---|---|---|"]
    for t in results["targets"]:
        L.append(f"| {t['target']} | {t['value'] or '–'} | {_met(t)} | {t['margin']} |")
    found = ceilings(results)
    if found:
        own = found["own_row_ms"]
        L.append(
            f"\n### The framework floor and each work's ceiling\n\n"
            f"A bare Flask route answering a fixed 1 KB JSON body under the same gunicorn "
            f"worker takes {found['floor_ms']:.3f} ms a request at best (bench/floor.py): the "
            f"cost of gunicorn and Flask alone (parse, route, response, send). No work can do "
            f"better than its limit's time plus that: its ceiling. Row by id under Jembatan "
            f"takes {_num(own, 3)} ms more than its limit and the floor together (the median "
            f"over the rounds): what Jembatan's own path adds to a request (flask-smorest, "
            f"arguments, request id, access line, metrics, headers). That cost is measured "
            f"warm: after a heavy work (a month's summary copies some 2 MB of table pages "
            f"through the CPU's caches) the same request work runs two to three times slower "
            f"(CONTRIBUTING.md, Benchmark), so a heavy work's real ceiling is lower than the "
            f"table's. "
            f"Where Jembatan is below 90 % of a work's ceiling, the targets ask for a profile "
            f"naming where each remaining tenth of a millisecond goes.\n")
        L += ceiling_table(results)
    costs = feature_lines(results)
    if costs:
        L.append("\n### What the metrics and the access log cost\n\nJembatan without its "
                 "metrics, and without its access line (bench/variant.py: the benchmark's "
                 "own switch, BENCH_WITHOUT; app/ has none), served as Jembatan is and "
                 "measured on row by id right after it in every round: Jembatan's time per "
                 "request less the variant's.\n")
        L += costs
    else:
        L.append("\nWhat the metrics and the access log cost per request is not measured in "
                 "this run (the contenders nometrics and nolog, bench/variant.py, give it).")
    L.append("\nThe ODBC target is read as: each work that the limit measures (page, range, "
             "full table) at 90 % or more of the pyodbc limit. RSS is per worker (the "
             "deployment has two; their sum is in the table above).")
    return L


def _commands(results: dict[str, Any]) -> list[str]:
    L = ["\n## Commands\n", "```sh",
         "make bench    # all of the below; BENCH_SECONDS=3 BENCH_ROWS=100000 for a quick run"]
    for v in results["contenders"].values():
        L += [f"# {v['label']}", v["command"]]
        for work in (*(w for w, _ in (*WORKS, *MCP_WORKS)), "json", "csv", "xlsx"):
            if "command" in v["works"].get(work, {}):
                L.append(v["works"][work]["command"])
    for driver, v in results["limit"].items():
        L.append(f"# the limit, {driver} (each work in a process of its own)")
        for work in (*(w for w, _ in WORKS), "all", "csv"):
            if work in v:
                L.append(v[work]["command"])
    L.append("```")
    return L


def _profile(results: dict[str, Any]) -> list[str]:
    prof = results.get("profile")
    if not prof:
        return []
    L = ["\n## Where the time goes\n",
         f"py-spy (sampling at 200 Hz, every thread, idle time left out) on the one sync "
         f"worker of `{prof['command']}`: `{prof['py_spy']}`. Top functions by own time; "
         f"the speedscope files are bench/data/profile-row.speedscope.json and "
         f"profile-stream.speedscope.json.\n"]
    for key, title in (("row", "Row by id, wrk with 4 connections"),
                       ("stream", "Full-table stream, GET /transactions")):
        found = prof[key]
        L += [f"### {title}\n",
              f"{found['busy_seconds']:.1f} s of busy samples (own % is of these); "
              f"{found['waiting_seconds']:.1f} s of samples waiting in a lock, a join or "
              f"for the next connection, left out.\n",
              "| Own % | Function | File |", "|---|---|---|"]
        L += [f"| {r['own_percent']:.1f} | `{r['function']}` | {r['file']} |"
              for r in found["top"]]
        L.append("")
    return L


EARLIER = "## Earlier studies"
COST = "## Cost of a request"
TSQL = "## The TDS path (T-SQL server, both drivers)"  # written by `make bench-tsql` alone
ROUND_TRIPS = "## One round trip per read (T-SQL server, before and after)"  # bench/round_trips.py
READ_CORE = "## MCP and the read core"  # by hand: bench/before_after.py's figures
RECYCLING = "## Records by key under recycling"  # by hand: bench/recycling.py's
FLEET = "## The warehouse over a fleet of plants"  # by hand: bench/fleet.py's
EXACT = "## Exact figures (weighing summaries summed as decimals)"  # bench/exact_sums.py's
LEFT_OUT = "## What leaving out costs"  # by hand: bench/left_out.py's
CAUGHT_UP = "## A caught-up warehouse run"  # by hand: bench/caught_up.py's
KEY_FIELDS = "## What a key's fields cost a plan"  # by hand: bench/key_fields.py's
KEY_LOG = "## Keys kept out of the log"  # by hand: bench/key_redaction.py's
HEALTH = "## What /health costs (T-SQL server)"  # by hand: bench/health.py's
# `make bench` keeps these sections
KEPT = (COST, TSQL, ROUND_TRIPS, READ_CORE, RECYCLING, FLEET, EXACT, LEFT_OUT,
        KEY_FIELDS, KEY_LOG, CAUGHT_UP, HEALTH, EARLIER)


def earlier_studies(published: Path) -> list[str]:
    """The hand-written sections of the published RESULTS.md (KEPT), carried into the one
    being written: "Cost of a request" (the profiles and the changes they led to),
    "MCP and the read core" (the runs of bench/before_after.py), "Records by key
    under recycling" (the runs of bench/recycling.py), "The warehouse over a fleet of
    plants" (bench/fleet.py's), "Exact figures" (bench/exact_sums.py's), "What leaving out
    costs" (bench/left_out.py's), "Keys kept out of the log" (bench/key_redaction.py's) and
    "Earlier studies"
    (the findings of studies whose code has left bench/), which no run can measure again."""
    if not published.is_file():
        return []
    text = published.read_text()
    kept = []
    for title in KEPT:
        start = text.find("\n" + title + "\n")
        if start < 0:
            continue
        section = text[start + 1:]
        end = section.find("\n## ", len(title))
        kept += ["", (section if end < 0 else section[:end]).strip()]
    return kept


def render(results: dict[str, Any], published: Path) -> str:
    """RESULTS.md; `published` is the RESULTS.md in the repository, whose earlier studies
    the new one keeps."""
    L = [*_header(results), *_requests(results), *_streams(results), *_mcp(results),
         *_targets(results), *_commands(results), *_profile(results),
         *earlier_studies(published)]
    return "\n".join(L).rstrip() + "\n"
