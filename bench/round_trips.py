"""`make bench-round-trips`: one round trip per read on the T-SQL server, before and after.

    BENCH_TSQL_ODBC='Driver=FreeTDS;...' BENCH_DB=bench/data/rows-100000/bench.sqlite3 \
        BENCH_BEFORE=<commit> .venv/bin/python bench/round_trips.py

The T-SQL server (../shared/tsql: Babelfish over TDS, not SQL Server) gets BENCH_DB's
`transactions` (bench/tsql.py's load). Then, per driver (FreeTDS, Driver 18), three sides of
each work in rounds, in an order that turns each round (limit, before, after; before, after,
limit; after, limit, before), on one machine:

- before: Jembatan at BENCH_BEFORE (its files taken with `git archive`, run from there),
- after: this checkout,
- the limit: one process on the same core, one connection through the same driver, the same
  SQL text sent as this checkout's runner sends it (app/database/db.py: sp_executesql by an
  ODBC call through FreeTDS, a kept cursor per statement through Driver 18), read whole and
  encoded as bench/limit.py's Limit does: Jembatan's work less HTTP.

Both Jembatans run under gunicorn, one sync worker on core 0 (bench/tsql.py's setting), wrk on
core 1: a record by key, a ~1,000-row date range, a deep 100-row page (its count, then its
rows), a month's summary by day and product (with what it leaves out) and a caught-up feed
poll (bench/run.py's plan). A ratio is the median of the rounds' ratios. Figures go to
bench/data/round-trips-<rows>.json and the section "One round trip per read" of
bench/RESULTS.md (`render` writes it again from the JSON files).

    python bench/round_trips.py limit PLAN.json DRIVER WORK     (one limit run)
    python bench/round_trips.py render
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import harness
from harness import CLIENT_CORE, ROOT, SERVER_CORE, Server
from report import ROUND_TRIPS
from tsql import BIN, DATA, connection, load, splice, versions

sys.path.insert(0, str(ROOT))
from app.database.db import (  # noqa: E402
    FETCH_SIZE,
    FREETDS_TYPED_DATES_FROM,
    LONG_TEXT_SIZE,
    bind,
    executesql_call,
)
from app.database.sqltext import LONG_TEXT, declared, numbered  # noqa: E402
from tests.mssql import DRIVERS, FREETDS  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "3"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
WORKS = (("row", "Record by key"), ("range", "Date range, ~1,000 rows"),
         ("page", "100-row page, deep offset (count + rows)"),
         ("summary", "Summary, a month by day and product"), ("feed", "Feed poll, caught up"))
SLOW = {"page": 2, "summary": 2}  # seconds x this, one wrk connection (bench/tsql.py SLOW_WORK)
SIDES = ("limit", "before", "after")
# bench/limit.py's feed poll reads a name app/core/feed.py no longer has (feed.CLOCK): the
# feed is measured before and after, without a limit.
NO_LIMIT = {"feed"}
TARGET = 0.9
SECTION = ROUND_TRIPS


def say(text: str) -> None:
    print(text, flush=True)


# --- the limit --------------------------------------------------------------------------------

def tds_limit(odbc: str) -> Any:
    """bench/limit.py's Limit on the T-SQL server: the main (SQL Server) texts, each sent in
    one round trip as app/database/db.py sends it through the driver; a page's count run
    every time, as Jembatan runs it on SQL Server (no database version to keep it by)."""
    import pyodbc
    from limit import Limit, Where

    class TdsLimit(Limit):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:  # Limit's own opens SQLite
            from limit import TRANSACTIONS

            from app.database.loading import load_queries
            from app.formats.encoding import RecordEncoder
            from app.model.collections import COLLECTIONS
            from app.ops.config import SHIPPED_SQL_DIR

            self.queries = load_queries(SHIPPED_SQL_DIR, COLLECTIONS)
            self.encoder = RecordEncoder(TRANSACTIONS.schema)
            self.conn = pyodbc.connect(odbc, autocommit=True, readonly=True)
            self.freetds = str(self.conn.getinfo(pyodbc.SQL_DRIVER_NAME)).startswith(
                "libtdsodbc")
            if self.freetds:
                self.conn.maxwrite = 1 << 30
            self.typed = True
            self.counts: dict[Any, Any] = {}
            self.summaries: dict[Any, Any] = {}
            self.kept: dict[str, Any] = {}  # Driver 18: idle cursors by text
            self.texts: dict[int, str] = {}  # Driver 18: a running cursor's text

        def execute(self, name: str, values: dict[str, Any] | None = None,
                    stem: str = "transactions", where: Where | None = None,
                    by: tuple[str, ...] = ()) -> Any:
            query = self.queries.get(stem, name, None, where, by)
            values = {**(values or {}), **(where.values if where else {})}
            sent = bind(values, query.params, True,
                        FREETDS_TYPED_DATES_FROM if self.freetds else dt.date.min)
            if self.freetds:
                cursor = self.conn.cursor()
                sql = query.sql
                if sent:
                    sql = executesql_call(len(sent))
                    sent = (numbered(query.sql), declared(sent), *sent)
                    cursor.setinputsizes([LONG_TEXT_SIZE if isinstance(v, str)
                                          and len(v) > LONG_TEXT else None for v in sent])
                return cursor.execute(sql, sent)
            cursor = self.kept.pop(query.sql, None) or self.conn.cursor()
            self.texts[id(cursor)] = query.sql
            return cursor.execute(query.sql, sent)

        def batches(self, cursor: Any) -> Any:
            while rows := cursor.fetchmany(FETCH_SIZE):
                yield rows
            sql = self.texts.pop(id(cursor), None)
            if sql is None or sql in self.kept:
                cursor.close()
            else:
                self.kept[sql] = cursor

        def count(self, where: Where | None = None) -> int:
            return int([r for b in self.batches(self.execute("count", where=where))
                        for r in b][0][0])

    return TdsLimit()


def limit_main(argv: list[str]) -> None:
    """One limit measurement: PLAN DRIVER WORK; prints a JSON object (ops/s)."""
    from limit import draws

    plan, driver, work = json.loads(Path(argv[0]).read_text()), argv[1], argv[2]
    limit = tds_limit(connection(plan["odbc"], driver))
    draw, fn = draws(plan, random.Random())[work], getattr(limit, work)
    for _ in range(3):
        fn(*draw())
    ops, started = 0, time.perf_counter()
    while time.perf_counter() - started < plan["seconds"] * SLOW.get(work, 1):
        fn(*draw())
        ops += 1
    print(json.dumps({"ops_s": ops / (time.perf_counter() - started), "ops": ops}))


def run_limit(plan_file: Path, driver: str, work: str) -> dict[str, Any]:
    """bench/round_trips.py limit ..., pinned to the server's core, in a process of its own."""
    argv = ["taskset", "-c", SERVER_CORE, sys.executable, "bench/round_trips.py", "limit",
            str(plan_file.relative_to(ROOT)), driver, work]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False, env=_env(ROOT))
    if done.returncode:
        raise RuntimeError(f"limit {driver} {work} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1]) | {"command": shlex.join(
        argv[:3] + [".venv/bin/python", *argv[4:]])}


def _at_midnight(drawn: tuple[str, str, str]) -> tuple[str, str, str, str]:
    """A drawn (start, end, end_time) as params.date_range's arguments, from midnight."""
    return drawn[0], "00:00", drawn[1], drawn[2]


def calls_main(argv: list[str]) -> None:
    """The queries alone, no HTTP: PLAN DRIVER [ROUNDS] [N]; each query of the works sent N
    times the old way (a new cursor, prepared, closed: sp_prepexec + sp_unprepare) and the
    new (as the runner sends it now), in alternating order, ROUNDS rounds; prints JSON
    {query: {"old": [ms per query per round], "new": [...]}}."""
    from limit import draws

    from app.model import params

    plan, driver = json.loads(Path(argv[0]).read_text()), argv[1]
    rounds_, n = (int(argv[2]) if len(argv) > 2 else 5), (int(argv[3]) if len(argv) > 3 else 20)
    new = tds_limit(connection(plan["odbc"], driver))
    draw = draws(plan, random.Random(1))
    month = draw["summary"]()
    works = {"by_key": lambda: {"key": draw["row"]()[0]},
             "range_dt1": lambda: params.date_range(*_at_midnight(draw["range"]())),
             "count": dict, "page": lambda: params.window(*draw["page"]()),
             "summary_dt1": lambda: params.date_range(*_at_midnight(month))}
    out: dict[str, dict[str, list[float]]] = {}
    for name, values in works.items():
        by = ("day", "productcode") if name.startswith("summary") else ()
        query = new.queries.get("transactions", name, None, None, by)

        def old(v: dict[str, Any], q: Any = query) -> None:
            cursor = new.conn.cursor()
            cursor.execute(q.sql, bind(v, q.params, True, FREETDS_TYPED_DATES_FROM
                                       if new.freetds else dt.date.min))
            cursor.fetchall()
            cursor.close()

        def now(v: dict[str, Any], name: str = name, by: tuple[str, ...] = by) -> None:
            for _ in new.batches(new.execute(name, v, by=by)):
                pass

        times: dict[str, list[float]] = {"old": [], "new": []}
        for r in range(rounds_):
            for side, fn in (("old", old), ("new", now))[::1 if r % 2 == 0 else -1]:
                fn(values())  # warm: the first of a side may prepare or plan
                started = time.perf_counter()
                for _ in range(n):
                    fn(values())
                times[side].append((time.perf_counter() - started) / n * 1000)
        out[name] = times
    print(json.dumps(out))


def calls_all(argv: list[str]) -> None:
    """PLAN [ROUNDS] [N]: `calls` through each driver, pinned to the server's core; the
    figures to bench/data/round-trips-calls-<rows>.json."""
    plan = json.loads(Path(argv[0]).read_text())
    out: dict[str, Any] = {"date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                           "load_average_start": os.getloadavg(), "argv": argv}
    for driver in DRIVERS:
        done = subprocess.run(["taskset", "-c", SERVER_CORE, sys.executable,
                               "bench/round_trips.py", "calls", argv[0], driver, *argv[1:]],
                              cwd=ROOT, capture_output=True, text=True, check=True,
                              env=_env(ROOT))
        out[driver] = json.loads(done.stdout.splitlines()[-1])
        say(f"{driver}: " + ", ".join(
            f"{q} {statistics.median(t['old']):.2f} -> {statistics.median(t['new']):.2f} ms"
            for q, t in out[driver].items()))
    out["load_average_end"] = os.getloadavg()
    rows = plan["max_id"]  # the demo's keys run 1..rows
    (DATA / f"round-trips-calls-{rows}.json").write_text(json.dumps(out, indent=2) + "\n")


def render_calls() -> list[str]:
    """The section's table of the queries alone (bench/data/round-trips-calls-*.json)."""
    lines: list[str] = []
    for path in sorted(DATA.glob("round-trips-calls-*.json")):
        r = json.loads(path.read_text())
        lines += [f"#### The queries alone, {path.stem.rsplit('-', 1)[1]} rows ({r['date']})",
                  "", "ms per query, the median of the rounds (each round "
                  f"{r['argv'][2] if len(r['argv']) > 2 else 20} runs of the query, old and new "
                  "in alternating order, one process on core 0, no HTTP); old: a new cursor, "
                  "prepared, closed (sp_prepexec, sp_unprepare); new: as the runner sends it. "
                  "Load average "
                  f"{'/'.join(f'{x:.2f}' for x in r['load_average_start'])} at start, "
                  f"{'/'.join(f'{x:.2f}' for x in r['load_average_end'])} at end.", "",
                  "| Query | FreeTDS old | FreeTDS new | new / old | Driver 18 old | "
                  "Driver 18 new | new / old |", "|---|---|---|---|---|---|---|"]
        for query in r[FREETDS]:
            cells = []
            for driver in DRIVERS:
                t = r[driver][query]
                old, new = statistics.median(t["old"]), statistics.median(t["new"])
                cells += [f"{old:.2f}", f"{new:.2f}", f"{new / old:.2f}"]
            lines.append(f"| {query} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


# --- the two Jembatans ------------------------------------------------------------------------

def _env(root: Path, config: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    env["PYTHONPATH"] = str(root)
    if config:
        env["JEMBATAN_CONFIG"] = str(config)
    return env


def before_tree(commit: str) -> Path:
    """The files of `commit` (git archive), unpacked once under bench/data."""
    tree = DATA / f"before-{commit[:12]}"
    if not (tree / "wsgi.py").is_file():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def jembatan(root: Path, odbc: str, name: str) -> Server:
    """Jembatan of `root` under gunicorn, one sync worker on the server's core."""
    import run
    from limit import BOOKMARK_SECRET

    config = DATA / f"round-trips-{name}.toml"
    feed = "".join(f"{k} = {v}\n" for k, v in run.FEED_SETTINGS.items())
    config.write_text("# Written by bench/round_trips.py\n[database]\n"
                      f"odbc = {json.dumps(odbc)}\nprove_on_first_read = false\n[feed]\n"
                      f"{feed}bookmark_secrets = [\"{BOOKMARK_SECRET}\"]\n")
    argv = [str(BIN / "gunicorn"), "--chdir", str(root), "--bind",
            f"127.0.0.1:{harness.free_port()}", "--workers", "1", "--threads", "1",
            "--timeout", "300", "wsgi:app"]
    port = int(argv[4].rsplit(":", 1)[1])
    return Server(f"Jembatan ({name})", argv, port, "/health", _env(root, config), SERVER_CORE,
                  worker_processes=True, log=DATA / "logs" / f"round-trips-{name}.log")


def request_work(server: Server, work: str, plan: dict[str, Any]) -> dict[str, Any]:
    """wrk on the client core against one work: req/s."""
    from run import JEMBATAN_PATHS, SCRIPTS, wrk_args

    slow = SLOW.get(work)
    return harness.wrk(server.port, SCRIPTS[work], wrk_args(work, JEMBATAN_PATHS[work], plan),
                       SECONDS * (slow or 1), 1, cores=CLIENT_CORE,
                       connections=1 if slow else 4)


def rounds(measure: dict[str, Callable[[], float]]) -> dict[str, Any]:
    """ROUNDS rounds of the sides, each round's order turned by one: every round's figures
    and the medians of the rounds' ratios."""
    figures: dict[str, list[float]] = {side: [] for side in SIDES}
    for n in range(ROUNDS):
        order = SIDES[n % 3:] + SIDES[:n % 3]
        for side in order:
            if side in measure:
                figures[side].append(measure[side]())
        say("      round {}: {}".format(n + 1, "   ".join(
            f"{side} {figures[side][-1]:8.1f}" for side in SIDES if figures[side])))
    def ratio(a: str, b: str) -> float | None:
        return statistics.median(x / y if y else 0.0 for x, y in zip(
            figures[a], figures[b], strict=True)) if figures[b] else None

    return {"figures": figures, "ratio": {side: ratio(side, "limit")
                                          for side in ("before", "after")},
            "after_over_before": ratio("after", "before")}


def per_driver(plan: dict[str, Any], plan_file: Path, driver: str, before: Path
               ) -> dict[str, Any]:
    """Every work through `driver`: the limit, Jembatan before and after."""
    odbc = connection(plan["odbc"], driver)
    out: dict[str, Any] = {}
    with jembatan(before, odbc, f"{driver}-before") as old, \
            jembatan(ROOT, odbc, f"{driver}-after") as new:
        out["commands"] = {"before": old.command, "after": new.command}
        for work, label in WORKS:
            say(f"   {driver}: {label}")
            measure = {"limit": lambda w=work: run_limit(plan_file, driver, w)["ops_s"],
                       "before": lambda w=work: request_work(old, w, plan)["req_s"],
                       "after": lambda w=work: request_work(new, w, plan)["req_s"]}
            if work in NO_LIMIT:
                del measure["limit"]
            out[work] = rounds(measure)
    return out


def main() -> int:
    base = os.environ["BENCH_TSQL_ODBC"]
    commit = subprocess.run(["git", "rev-parse", os.environ.get("BENCH_BEFORE", "HEAD~1")],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    import run

    began, load_start = time.time(), os.getloadavg()
    say(f"loading {run.DB_ARG}'s transactions into the T-SQL server")
    started = time.perf_counter()
    rows = load(base, run.DB)
    plan = run.make_plan() | {"odbc": base, "seconds": SECONDS}
    results: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": run.machine() | {"load_average_start": load_start},
        "versions": versions(base), "rows": rows, "before": commit,
        "after": subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip(),
        "load_seconds": time.perf_counter() - started,
        "settings": {"seconds": SECONDS, "rounds": ROUNDS, "source": run.DB_ARG},
        "drivers": {}}
    plan_file = DATA / "round-trips-plan.json"
    plan_file.write_text(json.dumps(plan, indent=2, default=str) + "\n")
    before = before_tree(commit)
    for driver in DRIVERS:
        say(f"\n== {driver}")
        results["drivers"][driver] = per_driver(plan, plan_file, driver, before)
        (DATA / f"round-trips-{rows}.partial.json").write_text(json.dumps(results, indent=2))
    results["load_average_end"] = os.getloadavg()
    results["wall_seconds"] = time.time() - began
    (DATA / f"round-trips-{rows}.json").write_text(json.dumps(results, indent=2) + "\n")
    published = ROOT / "bench" / "RESULTS.md"
    published.write_text(splice_section(published.read_text(), render()))
    say(f"\n{render()}\nthe run took {results['wall_seconds']:.0f} s")
    return 0


NAMES = {FREETDS: "FreeTDS", "msodbc18": "Driver 18"}


def render() -> str:
    """The section of bench/RESULTS.md, from every bench/data/round-trips-<rows>.json."""
    lines = [SECTION, "", "Written by `bench/round_trips.py` (see its docstring; the command "
             "below). Each query of a read goes to SQL Server in one message (tests/"
             "test_round_trips.py counts them): through FreeTDS as sp_executesql by an ODBC "
             "call, through Driver 18 as sp_prepexec on a cursor kept per statement, where "
             "before it went as sp_prepexec and then sp_unprepare when its cursor closed. "
             "Figures in requests (the limit: operations) per second; the ratio is the median "
             "of the rounds' Jembatan / limit; the limit sends its queries as the runner "
             "now does. **Babelfish over PostgreSQL, not SQL Server**, on this machine.", ""]
    for path in sorted((p for p in DATA.glob("round-trips-[0-9]*.json")
                        if p.stem.rsplit("-", 1)[1].isdigit()),
                       key=lambda p: int(p.stem.rsplit("-", 1)[1])):
        r = json.loads(path.read_text())
        m = r["machine"]
        lines += [f"### {r['rows']:,} rows ({r['date']}, {r['wall_seconds']:.0f} s)", "",
                  f"Before {r['before'][:12]}, after {r['after'][:12]}; {ROUNDS_TEXT(r)}; "
                  f"{m['nproc']} cores shared with other work, load average "
                  f"{'/'.join(f'{x:.2f}' for x in m['load_average_start'])} at start, "
                  f"{'/'.join(f'{x:.2f}' for x in r['load_average_end'])} at end. Drivers: "
                  f"FreeTDS `{r['versions'][FREETDS]}`, `{r['versions']['msodbc18']}`.", "",
                  "| Work | Driver | limit | before | after | before / limit | after / limit "
                  "| after / before |", "|---|---|---|---|---|---|---|---|"]
        for work, label in WORKS:
            for driver in DRIVERS:
                w = r["drivers"][driver][work]
                best = {s: f"{max(w['figures'][s]):.1f}" if w["figures"][s] else "-"
                        for s in SIDES}
                shown = {s: "-" if w["ratio"][s] is None else f"{w['ratio'][s]:.2f}" + (
                    " (under 0.9)" if w["ratio"][s] < TARGET else "") for s in w["ratio"]}
                lines.append(
                    f"| {label} | {NAMES[driver]} | {best['limit']} | {best['before']} "
                    f"| {best['after']} | {shown['before']} | {shown['after']} | "
                    f"{w['after_over_before']:.2f} |")
        lines.append("")
    lines += render_calls()
    lines += ["```sh", "TSQL_PORT=1506 TSQL_PG_PORT=15506 ../shared/tsql/start   # prints the "
              "string", "BENCH_TSQL_ODBC='Driver=FreeTDS;Server=127.0.0.1;Port=1506;"
              "TDS_Version=7.4;UID=jembatan;PWD=***;Database=jembatan_test' \\",
              "  BENCH_DB=bench/data/rows-100000/bench.sqlite3 BENCH_BEFORE=<commit> "
              ".venv/bin/python bench/round_trips.py",
              "taskset -c 1 .venv/bin/python bench/round_trips.py calls-all "
              "bench/data/round-trips-plan.json 5 20   # the queries alone", "```", ""]
    return "\n".join(lines)


def ROUNDS_TEXT(r: dict[str, Any]) -> str:  # noqa: N802
    s = r["settings"]
    return (f"{s['rounds']} rounds of {s['seconds']:g} s a side (the page and the summary twice "
            f"as long, one connection), the sides' order turned each round, figures the best "
            f"round")


def splice_section(text: str, section: str) -> str:
    """`text` with this script's section (SECTION) replaced by `section`, or put in."""
    return splice(text, section, SECTION)


if __name__ == "__main__":
    if sys.argv[1:2] == ["limit"]:
        limit_main(sys.argv[2:])
    elif sys.argv[1:2] == ["calls"]:
        calls_main(sys.argv[2:])
    elif sys.argv[1:2] == ["calls-all"]:
        calls_all(sys.argv[2:])
    elif sys.argv[1:2] == ["render"]:
        published = ROOT / "bench" / "RESULTS.md"
        published.write_text(splice_section(published.read_text(), render()))
    else:
        sys.exit(main())
