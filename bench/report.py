"""bench/RESULTS.md from the results of bench/run.py, and the targets of issue 4."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

WORKS = (("row", "Row by id"), ("page", "100-row page, deep offset"),
         ("range", "Date range, ~1,000 rows"),
         ("frange", "Filtered range: one truck (vehno=) in the ~1,000-row range"),
         ("fpage", "Filtered deep page: one customer (custcode=), upper half of its pages"),
         ("summary", "Summary: a month of tonnage by day and material"))
STREAM_KEYS = ("jembatan", "deploy", "odbc")
# Issue 4's reference run on a quiet machine of this kind: Datasette 0.65 and the limit.
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


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of issue 4: the figure, the bound, met or not, and the margin."""
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
        if value is None:
            out.append({"target": name, "value": None, "met": None, "margin": "not measured"})
            return
        shown = f"{value:.2f}x" if unit == "x" else f"{100 * value:.0f} %"
        out.append({"target": name, "value": shown, "met": value >= bound,
                    "margin": f"{100 * (value / bound - 1):+.0f} %"})

    def below(name: str, value: float | None, bound: float, unit: str) -> None:
        if value is None:
            out.append({"target": name, "value": None, "met": None, "margin": "not measured"})
            return
        out.append({"target": name, "value": f"{value:.1f} {unit}", "met": value < bound,
                    "margin": f"{bound - value:+.1f} {unit} of room" if value < bound
                    else f"{value - bound:.1f} {unit} over"})

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
    # Issue 11: the filtered works.
    for work, label in (("frange", "Filtered range"), ("fpage", "Filtered deep page")):
        at_least(f"{label} >= 1x Datasette", _paired(req("jembatan", work),
                                                      req("datasette", work)), 1)
        at_least(f"{label} >= 90 % of the limit", _paired(req("jembatan", work),
                                                           limit("sqlite3", work)), 0.9, "%")
    # Issue 12: a month by day and material.
    at_least("Summary >= 90 % of the limit", _paired(req("jembatan", "summary"),
                                                      limit("sqlite3", "summary")), 0.9, "%")
    for work, label in (("page", "deep page"), ("range", "range")):
        at_least(f"ODBC path >= 90 % of its own limit: {label}",
                 _paired(req("odbc", work), limit("pyodbc", work)), 0.9, "%")
    at_least("ODBC path >= 90 % of its own limit: full table JSON",
             _ratio(rows_s("odbc", "json"), lim("pyodbc", "all")), 0.9, "%")
    for key in STREAM_KEYS:
        label = {"jembatan": "1 worker", "deploy": "deployment", "odbc": "ODBC"}[key]
        below(f"First byte < 100 ms ({label})",
              _get(results, "contenders", key, "works", "json", "first_byte_ms"), 100, "ms")
    for key in STREAM_KEYS:
        label = {"jembatan": "1 worker", "deploy": "deployment, per worker",
                 "odbc": "ODBC"}[key]
        below(f"Server RSS < 100 MB through the stream ({label})",
              _get(results, "contenders", key, "works", "json", "rss_peak_worker_mb"), 100,
              "MB")
    streams = [(key, kind, s) for key, c in results.get("contenders", {}).items()
               for kind, s in c["works"].items() if kind in ("json", "csv") and "complete" in s]
    if streams:
        short = [f"{k} {kind}" for k, kind, s in streams if not s["complete"]]
        out.append({"target": "Never a truncated body",
                    "value": f"{len(streams) - len(short)} of {len(streams)} complete",
                    "met": not short,
                    "margin": "every body complete" if not short
                    else "incomplete: " + ", ".join(short)})
    return out


def ceilings(results: dict[str, Any]) -> dict[str, Any] | None:
    """What one sync worker could reach at best on each request work: the limit's time plus
    the fixed cost of one HTTP request, read off row by id (the request with the least
    database work: its time under gunicorn less its limit's). A work whose limit is cheap
    beside that floor cannot come near its limit however lean the rest of the path."""
    row, row_limit = (_get(results, "contenders", "jembatan", "works", "row", "req_s"),
                      _get(results, "limit", "sqlite3", "row", "ops_s"))
    if not row or not row_limit:
        return None
    floor = 1 / row - 1 / row_limit
    works = {}
    for work, _label in WORKS[1:]:
        limit = _get(results, "limit", "sqlite3", work, "ops_s")
        got = _get(results, "contenders", "jembatan", "works", work, "req_s")
        if limit and got:
            ceiling = 1 / (1 / limit + floor)
            works[work] = {"limit_ms": 1000 / limit, "ceiling_req_s": ceiling,
                           "ceiling_of_limit": ceiling / limit, "of_ceiling": got / ceiling}
    return {"floor_ms": 1000 * floor, "works": works}


def _met(t: dict[str, Any]) -> str:
    return {True: "met", False: "NOT met", None: "not measured"}[t["met"]]


def summary(results: dict[str, Any]) -> str:
    lines = ["Targets:"]
    for t in results["targets"]:
        lines.append(f"  {_met(t):<13} {t['target']}: {t['value']} ({t['margin']})")
    return "\n".join(lines)


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def render(results: dict[str, Any]) -> str:
    m, plan, d = results["machine"], results["plan"], results["plan"]["distribution"]
    c, lim = results["contenders"], results["limit"]
    L = []
    add = L.append
    add("# Benchmark results\n")
    add("Written by `make bench` (bench/run.py); the figures of every run are also in "
        "`bench/results.json`. What is measured and how: README.md, section Benchmark.\n")
    add(f"- Date: {results['date']}; the run took {results['wall_seconds']:.0f} s.")
    add(f"- Machine: {m['nproc']} cores, {m['cpu']}, {m['memory_gib']} GiB of memory, "
        f"Linux {m['kernel']}.")
    add(f"- Software: Python {m['python']}, SQLite {m['sqlite']}, {m['gunicorn']}, "
        f"{m['datasette']}, {m['wrk']}, {m['py_spy']}.")
    la0, la1 = results["load_average_start"], results["load_average_end"]
    add(f"- Load average (1/5/15 min) at start {la0[0]:.2f}/{la0[1]:.2f}/{la0[2]:.2f}, at end "
        f"{la1[0]:.2f}/{la1[1]:.2f}/{la1[2]:.2f}: other work on the machine during the run "
        f"makes the figures noisy; compare runs made under the same load.")
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
        add("- This run against issue 4's reference run (a quiet machine of the same kind), as "
            "a gauge of how loaded the machine was: " + ", ".join(gauge) + " (1.00 = as fast).")
    add(f"- Database: `{results['settings']['db']}`, {plan['rows']:,} rows in `transactions`; "
        f"{results['settings']['seconds']:g} s per measured wrk run after a "
        f"{results['settings']['warmup']:g} s warm-up, 4 connections.")
    add(f"- Data: entry dates {d['first_day']} to {d['last_day']} ({d['span_days']:,} days), "
        f"{d['rows_per_day_min']}-{d['rows_per_day_max']} rows a day, hours {d['hours']} "
        f"({d['rows_per_hour_min']:,}-{d['rows_per_hour_max']:,} rows per hour of the day). "
        f"A range is {plan['range']['window_days']} days from 00:00 to "
        f"{plan['range']['end_time']} on the last: {d['range_rows_min']:,}-"
        f"{d['range_rows_max']:,} rows (mean {d['range_rows_mean']:,.0f}) in 40 sampled "
        f"windows. Pages {plan['page']['first']:,}-{plan['page']['last']:,} "
        f"(the upper half) of {plan['page']['size']} rows. Filtered: the truck "
        f"{plan['frange']['vehno']} in the same ranges; customer {plan['fpage']['custcode']}'s "
        f"{plan['fpage']['rows']:,} weighings, pages {plan['fpage']['first']:,}-"
        f"{plan['fpage']['last']:,}.\n")

    add("## Requests\n")
    add("req/s, and p99 latency in ms in brackets; the limit is the same work with no HTTP, "
        "one call after the other in one process on the server's core. Every server is "
        "started before the first measurement and idles while the others are measured; each "
        "work runs on every contender back to back, so that a change in the machine's load "
        "during the run falls on all of them alike. Each work is measured in "
        f"{results['settings'].get('rounds', 2)} such rounds, the limit first in odd rounds "
        "and last in even ones. The figure shown is each one's best round: interference "
        "from outside only ever slows a round down. A ratio (the last three columns and the "
        "targets) is the median, over the rounds, of the two figures' ratio within a round: "
        "measured seconds apart, both sides of it share the machine's spells of slowness, "
        "which swing its speed by up to 20 % from one 10 s to the next. Every round's figure "
        "is in results.json (`rounds`), and errors are those of all rounds.\n")
    cols = [("jembatan", "Jembatan 1 worker"), ("deploy", "Jembatan deployment"),
            ("odbc", "Jembatan ODBC"), ("datasette", "Datasette")]
    add("| Work | " + " | ".join(label for _, label in cols) + " | Limit sqlite3 | Limit "
        "pyodbc | Jembatan / Datasette | Jembatan / limit | ODBC / its limit |")
    add("|---" * (len(cols) + 6) + "|")
    for work, label in WORKS:
        cells = []
        for key, _ in cols:
            w = _get(c, key, "works", work)
            cells.append(f"{_num(w['req_s'])} ({_num(w['p99_ms'])})" if w else "–")
        for driver in ("sqlite3", "pyodbc"):
            w = _get(lim, driver, work)
            cells.append(f"{_num(w['ops_s'])} ({_num(w['p99_ms'])})" if w else "–")
        j, ds = _get(c, "jembatan", "works", work), _get(c, "datasette", "works", work)
        o = _get(c, "odbc", "works", work)
        cells += [_num(_paired(j, ds), 2) + "x",
                  _num(_paired(j, _get(lim, "sqlite3", work)), 2),
                  _num(_paired(o, _get(lim, "pyodbc", work)), 2)]
        add(f"| {label} | " + " | ".join(cells) + " |")
    probes = {key: v["probe"] for key, v in c.items() if "probe" in v}
    if probes:
        add("\nRecords per request, from one probe of each work before timing (the same "
            "page and range for every contender): "
            + "; ".join(f"{key} {p}" for key, p in probes.items()) + ".")

    add("\n## Full table\n")
    add("A GET of the whole table, read by a client on the other core (both cores in the "
        "deployment configuration), three times for each contender (and the limit three "
        "times, each in a new process): rows/s and MB/s are the median run's, the other "
        "figures the worst of the three. First byte: from sending the request to the first "
        "byte of the body. Peak RSS: VmRSS of the serving process(es), sampled every 50 ms "
        "(gunicorn: its workers, summed; before the stream in brackets). Complete: status "
        "200, every record there (and the JSON parses), in every run.\n")
    add("| Contender | Format | rows/s | MB/s | First byte ms | Peak RSS MB | Complete |")
    add("|---|---|---|---|---|---|---|")
    for key, label in cols:
        for kind in ("json", "csv"):
            s = _get(c, key, "works", kind)
            if s is None:
                continue
            if s.get("not_implemented"):
                add(f"| {label} | {kind.upper()} | not implemented | | | | |")
                continue
            add(f"| {label} | {kind.upper()} | {_num(s['rows_s'], 0)} | {_num(s['mb_s'])} | "
                f"{_num(s['first_byte_ms'])} | {_num(s['rss_peak_mb'])} "
                f"({_num(s['rss_baseline_mb'])}) | "
                f"{'yes' if s['complete'] else 'NO'}: {s['check']} |")
    for driver in ("sqlite3", "pyodbc"):
        for work, kind in (("all", "JSON"), ("csv", "CSV")):
            a = _get(lim, driver, work)
            if a:
                add(f"| Limit {driver} | {kind} | {_num(a['rows_s'], 0)} | "
                    f"{_num(a['bytes'] / a['seconds'] / 1e6)} | | | {a['rows']:,} records |")
    j, ds = _get(c, "jembatan", "works", "json", "rows_s"), _get(c, "datasette", "works",
                                                                  "csv", "rows_s")
    if j and ds:
        add(f"\nJembatan JSON / Datasette CSV: {_ratio(j, ds):.2f}x. Jembatan JSON / limit: "
            f"{_num(_ratio(j, _get(lim, 'sqlite3', 'all', 'rows_s')), 2)}.")
    jc = _get(c, "jembatan", "works", "csv", "rows_s")
    if jc and ds:
        add(f"Jembatan CSV / Datasette CSV: {_ratio(jc, ds):.2f}x. Jembatan CSV / limit "
            f"(CSV): {_num(_ratio(jc, _get(lim, 'sqlite3', 'csv', 'rows_s')), 2)}.")

    add("\n## Targets (issues 4, 11 and 12)\n")
    add("| Target | Measured | Met | Margin |")
    add("|---|---|---|---|")
    for t in results["targets"]:
        add(f"| {t['target']} | {t['value'] or '–'} | {_met(t)} | {t['margin']} |")
    ceiling = ceilings(results)
    if ceiling:
        add(f"\n### The fixed cost of a request\n\nRow by id under one sync worker takes "
            f"{ceiling['floor_ms']:.3f} ms more than its limit: the cost of one HTTP request "
            f"through gunicorn, Flask and flask-smorest (parse, route, arguments, access log, "
            f"metrics, send). No work can do better than its limit's time plus that: the "
            f"ceiling below. A target of 90 % of the limit needs the limit's time to be at "
            f"least nine times that cost. That cost is measured warm: after a heavy work (a "
            f"month's summary copies some 2 MB of table pages through the CPU's caches) the "
            f"same request work runs two to three times slower (README, Benchmark), so a "
            f"heavy work's real ceiling is lower than the table's.\n")
        add("| Work | Limit ms | Ceiling req/s | Ceiling / limit | Jembatan / ceiling |")
        add("|---|---|---|---|---|")
        labels = dict(WORKS)
        for work, w in ceiling["works"].items():
            add(f"| {labels[work]} | {w['limit_ms']:.2f} | {w['ceiling_req_s']:,.1f} | "
                f"{100 * w['ceiling_of_limit']:.0f} % | {100 * w['of_ceiling']:.0f} % |")
    add("\nThe ODBC target is read as: each work that the limit measures (page, range, full "
        "table) at 90 % or more of the pyodbc limit. RSS is per worker (the deployment has "
        "two; their sum is in the table above).")

    add("\n## Commands\n")
    add("```sh")
    add("make bench    # all of the below; BENCH_SECONDS=3 BENCH_ROWS=100000 for a quick run")
    for v in c.values():
        add(f"# {v['label']}")
        add(v["command"])
        for work in (*(w for w, _ in WORKS), "json", "csv"):
            if "command" in v["works"].get(work, {}):
                add(v["works"][work]["command"])
    for driver, v in lim.items():
        add(f"# the limit, {driver} (each work in a process of its own)")
        for work in (*(w for w, _ in WORKS), "all", "csv"):
            if work in v:
                add(v[work]["command"])
    add("```")

    prof = results.get("profile")
    if prof:
        add("\n## Where the time goes\n")
        add(f"py-spy (sampling at 200 Hz, every thread, idle time left out) on the one sync "
            f"worker of `{prof['command']}`: `{prof['py_spy']}`. Top functions by own time; "
            f"the speedscope files are bench/data/profile-row.speedscope.json and "
            f"profile-stream.speedscope.json.\n")
        for key, title in (("row", "Row by id, wrk with 4 connections"),
                           ("stream", "Full-table stream, GET /transactions")):
            found = prof[key]
            add(f"### {title}\n")
            add(f"{found['busy_seconds']:.1f} s of busy samples (own % is of these); "
                f"{found['waiting_seconds']:.1f} s of samples waiting in a lock, a join or "
                f"for the next connection, left out.\n")
            add("| Own % | Function | File |")
            add("|---|---|---|")
            for r in found["top"]:
                add(f"| {r['own_percent']:.1f} | `{r['function']}` | {r['file']} |")
            add("")
    # Written by bench/before_after.py --record (one block per change) and levers.py --record.
    for name, title in (("before-after.md", "Before and after each change"),
                        ("levers.md", "The levers, measured")):
        record = Path(__file__).parent / name
        if record.is_file():
            add(("" if L[-1] == "" else "\n") + f"## {title}\n")
            add(record.read_text().split("\n", 1)[1].strip() + "\n")
    return "\n".join(L).rstrip() + "\n"
