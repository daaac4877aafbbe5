"""`make bench`: Jembatan against Datasette and against the no-HTTP limit, on one SQLite file.

    .venv/bin/python bench/run.py     (make bench builds the database and installs first)

Environment: BENCH_DB (the SQLite file, default bench/data/bench.sqlite3), BENCH_SECONDS
(seconds per measured wrk run and per limit in each round, default 4), BENCH_ONLY (a
comma-separated subset of limit,jembatan,floor,deploy,odbc,datasette,mcp,profile,shape; mcp
is one MCP call against the same summary over HTTP; shape is bench/shape.py, the
gunicorn shapes at 1 to 64 clients, `make bench-shape`). Figures are
printed as they come, and the tables at the end. Every run writes its figures to
bench/data/results.json; a whole run on the default database writes bench/RESULTS.md, any
other run (another BENCH_DB, a BENCH_ONLY) bench/data/RESULTS.md, except that a run of
shape alone on the default database replaces only the section "Production shape" of
bench/RESULTS.md; every RESULTS.md written keeps the published one's "Production shape"
when the run did not measure it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import platform
import random
import shlex
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import harness
import profiling
import report
import shape
from floor import PATH as FLOOR_PATH
from harness import ALL_CORES, CLIENT_CORE, ROOT, SERVER_CORE, Server

BENCH = ROOT / "bench"
DEFAULT_DB = BENCH / "data" / "bench.sqlite3"
DB = Path(os.environ.get("BENCH_DB", DEFAULT_DB)).resolve()
DB_ARG = str(DB.relative_to(ROOT)) if DB.is_relative_to(ROOT) else str(DB)  # as commands say
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
WARMUP = min(2, max(1, round(SECONDS / 5)))  # whole seconds: wrk takes no fractions
ONLY = set(filter(None, os.environ.get("BENCH_ONLY", "").split(",")))
DATASETTE = "bench/.venv-datasette/bin/datasette"
LOGS = BENCH / "data" / "logs"
PAGE_SIZE = 100
RANGE_ROWS = 1000  # rows a date range should hold
STREAM_RUNS = 3  # full-table reads per contender and per limit; the median run is reported
# Rounds of each request work, every contender and the limit measured in each. The best
# round is each one's figure (interference from outside only ever slows a round down); a
# ratio between two of them is the median of their ratios within a round (report._paired):
# this machine's speed swings by up to 20 % from one 10 s spell to the next, which two long
# rounds, best against best, could not see through.
WORK_ROUNDS = 6

# Datasette's equivalents of Jembatan's page and range queries (sql/shapes.sql, sqlite), and
# of the same with a filter: a truck inside the range, a customer's deep page.
PAGE_SQL = "select * from transactions order by id limit 100 offset :offset"
RANGE_WHERE = ("where tgl_dt1 between :start and :end"
               " and (tgl_dt1 > :start or coalesce(jam_dt1, '00:00:00') >= '00:00:00')"
               " and (tgl_dt1 < :end or coalesce(jam_dt1, '00:00:00') <= :end_time)")
RANGE_SQL = f"select * from transactions {RANGE_WHERE} order by tgl_dt1, jam_dt1, id"
FRANGE_SQL = (f"select * from transactions {RANGE_WHERE} and vehno = :vehno"
              " order by tgl_dt1, jam_dt1, id")
FPAGE_SQL = ("select * from transactions where custcode = :custcode order by id"
             " limit 100 offset :offset")
FEED_WINDOW = 30  # records inside the lookback window of the feed poll
# The most [feed] lookback_seconds may be (app/ops/config.py refuses more): on a small database
# (100,000 rows, about 27 a day) the FEED_WINDOW newest records span more than that, and the
# window then holds those of them within it.
MAX_LOOKBACK = 86400
# The [feed] windows the Jembatan contenders run with: make_plan sets the lookback so that
# the window of the poll's bookmark holds FEED_WINDOW records (fewer past MAX_LOOKBACK).
FEED_SETTINGS = {"settle_seconds": 30, "lookback_seconds": 600}


def wanted(part: str) -> bool:
    return not ONLY or part in ONLY


def say(text: str) -> None:
    print(text, flush=True)


# --- the plan: what the works ask for, derived from the data ------------------------------

def make_plan() -> dict[str, Any]:
    conn = sqlite3.connect(DB.as_uri() + "?mode=ro", uri=True)
    rows, max_id = conn.execute('SELECT COUNT(*), MAX("id") FROM "transactions"').fetchone()
    first, last, opens, closes = conn.execute(
        'SELECT MIN("tgl_dt1"), MAX("tgl_dt1"), MIN("jam_dt1"), MAX("jam_dt1") '
        'FROM "transactions"').fetchone()
    span = (dt.date.fromisoformat(last) - dt.date.fromisoformat(first)).days + 1
    per_day = rows / span
    # Entry weighings spread evenly over the office hours (checked below): so many whole
    # days, then the last day up to the hour that brings the range to about RANGE_ROWS.
    whole, part = divmod(RANGE_ROWS / per_day, 1)
    open_s, close_s = (sum(int(x) * m for x, m in zip(t.split(":"), (3600, 60, 1),
                                                       strict=True)) for t in (opens, closes))
    end_s = int(open_s + part * (close_s - open_s))
    # The filtered works: the truck weighed most often, inside the range; the customer with
    # the most weighings, the upper half of its pages.
    vehno, _ = conn.execute('SELECT "vehno", COUNT(*) FROM "transactions" GROUP BY "vehno" '
                            'ORDER BY 2 DESC, 1 LIMIT 1').fetchone()
    custcode, customer_rows = conn.execute(
        'SELECT "custcode", COUNT(*) FROM "transactions" GROUP BY "custcode" '
        'ORDER BY 2 DESC, 1 LIMIT 1').fetchone()
    plan = {
        "db": DB_ARG, "seconds": SECONDS, "rows": rows, "max_id": max_id,
        "page": {"size": PAGE_SIZE, "first": math.ceil(rows / PAGE_SIZE) // 2 + 1,
                 "last": math.ceil(rows / PAGE_SIZE)},
        "range": {"first_day": first, "days": span - int(whole), "window_days": int(whole) + 1,
                  "end_time": f"{end_s // 3600:02d}:{end_s // 60 % 60:02d}:{end_s % 60:02d}"},
        "frange": {"vehno": vehno},
        # A month's tonnage by day and material, a month anywhere in the data.
        "summary": {"window_days": 30, "days": span - 29, "by": "day,productcode"},
        "fpage": {"custcode": custcode, "rows": customer_rows, "size": PAGE_SIZE,
                  "first": math.ceil(customer_rows / PAGE_SIZE) // 2 + 1,
                  "last": math.ceil(customer_rows / PAGE_SIZE)},
    }
    # The distribution: rows per day and per hour, and what sampled windows really hold.
    days = [n for (n,) in conn.execute(
        'SELECT COUNT(*) FROM "transactions" GROUP BY "tgl_dt1"')]
    hours = [n for (n,) in conn.execute(
        'SELECT COUNT(*) FROM "transactions" GROUP BY substr("jam_dt1", 1, 2)')]
    rng, r = random.Random(4), plan["range"]
    held = []
    for _ in range(40):
        start = dt.date.fromisoformat(first) + dt.timedelta(days=rng.randrange(r["days"]))
        end = start + dt.timedelta(days=r["window_days"] - 1)
        held.append(conn.execute(
            'SELECT COUNT(*) FROM "transactions" WHERE "tgl_dt1" BETWEEN :s AND :e AND '
            '("tgl_dt1" < :e OR COALESCE("jam_dt1", \'00:00:00\') <= :t)',
            {"s": start.isoformat(), "e": end.isoformat(), "t": r["end_time"]}).fetchone()[0])
    plan["feed"] = feed_plan(conn)
    conn.close()
    plan["distribution"] = {
        "first_day": first, "last_day": last, "span_days": span, "rows_per_day": per_day,
        "rows_per_day_min": min(days), "rows_per_day_max": max(days),
        "hours": f"{opens}-{closes}", "rows_per_hour_min": min(hours),
        "rows_per_hour_max": max(hours), "range_rows_mean": sum(held) / len(held),
        "range_rows_min": min(held), "range_rows_max": max(held)}
    return plan


def feed_plan(conn: sqlite3.Connection) -> dict[str, Any]:
    """The feed poll: the bookmark of an ERP that has read everything, whose
    lookback window holds the FEED_WINDOW newest records (all of them already sent), and
    the plan SQLite makes of the query it runs: one search of the (update date, time, id)
    index."""
    from app.core.bookmarks import Bookmark, encode, filters_digest
    from app.database.loading import load_queries
    from app.model.collections import COLLECTIONS
    from app.ops.config import SHIPPED_SQL_DIR

    newest = conn.execute(
        'SELECT "id", "tgl_update", COALESCE("jam_update", \'00:00:00\') FROM "transactions" '
        'WHERE "tgl_update" IS NOT NULL ORDER BY "tgl_update" DESC, "jam_update" DESC, '
        '"id" DESC LIMIT ?', (FEED_WINDOW,)).fetchall()
    stamps = [((key,), dt.datetime.fromisoformat(f"{day}T{clock}"))
              for key, day, clock in newest]
    mark = max(stamp for _, stamp in stamps)
    seen = frozenset((key, stamp) for key, stamp in stamps
                     if (mark - stamp).total_seconds() <= MAX_LOOKBACK)
    lookback = math.ceil((mark - min(stamp for _, stamp in seen)).total_seconds())
    FEED_SETTINGS["lookback_seconds"] = lookback
    from limit import SECRETS

    token = encode(Bookmark("transactions", "update", filters_digest(None), mark=mark,
                            seen=seen), SECRETS)
    start = (mark - dt.timedelta(seconds=lookback)).replace(microsecond=0)
    query = load_queries(SHIPPED_SQL_DIR, COLLECTIONS).get("transactions", "changes_update",
                                                           "sqlite")
    values = {"from_date": start.date().isoformat(), "from_time": start.time().isoformat(),
              "midnight": "00:00:00", "row_count": 1000 + len(seen)}
    explained = conn.execute("EXPLAIN QUERY PLAN " + query.sql,
                             [values[p] for p in query.params]).fetchall()
    return {"token": token, "window": len(seen), "lookback_seconds": lookback,
            "settle_seconds": FEED_SETTINGS["settle_seconds"], "mark": mark.isoformat(),
            "query_plan": " / ".join(row[3] for row in explained)}


def warm_page_cache() -> None:
    """Read the whole file, so that the measurement after it reads the database from memory.

    Called before every measurement, not once: this machine's kernel runs DAMON with a
    `pageout` scheme that evicts file pages left idle for about 30 s, so a contender measured
    after the others had idled would otherwise read its pages from disk (a deep page then
    took 56 ms instead of 24 ms). Reading 1.2 GB from memory takes about 0.15 s.
    """
    with open(DB, "rb") as f:
        while f.read(16 << 20):
            pass


# --- the limit --------------------------------------------------------------------------------

def run_limit(plan: dict[str, Any], driver: str, work: str) -> dict[str, Any]:
    """One work of bench/limit.py, in a process of its own on the server's core; a full
    table (all, csv) is read STREAM_RUNS times, each in a new process, and the run with the
    median rows/s is reported."""
    plan_file = BENCH / "data" / "plan.json"
    plan_file.write_text(json.dumps(plan, indent=2) + "\n")
    argv = ["taskset", "-c", SERVER_CORE, ".venv/bin/python", "bench/limit.py",
            str(plan_file.relative_to(ROOT)), driver, work]
    runs = []
    for _ in range(STREAM_RUNS if work in ("all", "csv") else 1):
        warm_page_cache()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False,
                              timeout=SECONDS + 1800)
        if done.returncode:
            raise RuntimeError(f"bench/limit.py {driver} {work} failed:\n{done.stderr}")
        runs.append(json.loads(done.stdout.splitlines()[-1])[work])
    result = median_run(runs, "rows_s") if len(runs) > 1 else runs[0]
    result["command"] = shlex.join(argv)
    return result


def median_run(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The run with the median `key`, and every run's figure beside it."""
    ordered = sorted(runs, key=lambda r: r[key])
    return ordered[len(ordered) // 2] | {"runs": [r[key] for r in runs]}


# --- the contenders ---------------------------------------------------------------------------

def jembatan_config(name: str, odbc: bool) -> Path:
    """A config file of its own, so that a developer's config.toml or JEMBATAN_* variables
    do not change what is measured."""
    path = BENCH / "data" / f"{name}.toml"
    source = (f'odbc = "{_odbc_string()}"' if odbc else f'sqlite = "{DB}"')
    from limit import BOOKMARK_SECRET

    feed = "".join(f"{k} = {v}\n" for k, v in FEED_SETTINGS.items())
    feed += f'bookmark_secrets = ["{BOOKMARK_SECRET}"]\n'  # the feed poll's token is signed
    path.write_text(f"# Written by bench/run.py\n[database]\n{source}\n[feed]\n{feed}")
    return path


def _odbc_string() -> str:
    from limit import odbc_string

    return odbc_string(DB)


def server_env(config: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    if config:
        env["JEMBATAN_CONFIG"] = str(config)
    return env


JEMBATAN_PATHS = {"row": "/transactions/{id}", "page": "/transactions/page/{page}",
                  "range": "/transactions/date/{start}/00:00/{end}/{end_time}",
                  "frange": "/transactions/date/{start}/00:00/{end}/{end_time}?vehno={vehno}",
                  "fpage": "/transactions/page/{page}?custcode={custcode}",
                  "summary": "/transactions/summary/{start}/00:00/{end}/{end_time}"
                             "?by=day,productcode",
                  "feed": "/transactions/changes?after={token}",
                  "json": "/transactions", "csv": "/transactions?format=csv",
                  "xlsx": "/transactions?format=xlsx"}
# One MCP call, a month of transactions by material through the tool `summarize`
# (a JSON-RPC tools/call POSTed to /mcp, answered as one application/json body), against the
# same summary over HTTP, both on one server in the same rounds (report.MCP_WORKS). The
# legacy era's request (app/mcp/protocol.py): no handshake is needed, as no session is held; `to` is
# the month's last day at 23:59:59, as the HTTP path's end.
MCP_PROTOCOL = "2025-11-25"
MCP_HEADERS = ("Content-Type: application/json", "Accept: application/json",
               f"MCP-Protocol-Version: {MCP_PROTOCOL}")
MCP_BY = "productcode"
MCP_BODY = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize",'
            '"arguments":{"collection":"transactions","from":"{start}","to":"{end}T{end_time}",'
            f'"by":["{MCP_BY}"]}}}}}}')
MCP_PATHS = {"summary_http": "/transactions/summary/{start}/00:00/{end}/{end_time}"
                             f"?by={MCP_BY}",
             "summary_mcp": "/mcp"}
# The wrk script of each work (a filtered work draws its arguments as its plain one does).
SCRIPTS = {"row": "row.lua", "page": "page.lua", "range": "range.lua", "frange": "range.lua",
           "fpage": "page.lua", "summary": "range.lua", "feed": "row.lua",
           "summary_http": "range.lua", "summary_mcp": "post.lua"}
# Jembatan had no CSV when this benchmark was written: CSV is measured once this page comes
# back as text/csv, and reported "not implemented" until then.
JEMBATAN_CSV_PROBE = "/transactions/page/1?page_size=1&format=csv"
# The floor answers every request work with its one route (its figure is paired with each
# work's rounds), driven by row.lua with a template that draws nothing.
FLOOR_PATHS = {work: FLOOR_PATH for work, _ in report.WORKS}
NAME = urllib.parse.quote(DB.stem)  # Datasette names a database after its file
DATASETTE_PATHS = {
    "row": f"/{NAME}/transactions/{{id}}.json",
    "page": f"/{NAME}.json?sql=" + urllib.parse.quote(PAGE_SQL)
            + "&offset={offset}&_shape=array",
    "range": f"/{NAME}.json?sql=" + urllib.parse.quote(RANGE_SQL)
             + "&start={start}&end={end}&end_time={end_time}&_shape=array",
    "frange": f"/{NAME}.json?sql=" + urllib.parse.quote(FRANGE_SQL)
              + "&start={start}&end={end}&end_time={end_time}&vehno={vehno}&_shape=array",
    "fpage": f"/{NAME}.json?sql=" + urllib.parse.quote(FPAGE_SQL)
             + "&custcode={custcode}&offset={offset}&_shape=array",
    "csv": f"/{NAME}/transactions.csv?_stream=on&_size=max",
}


def contenders() -> list[dict[str, Any]]:
    gunicorn = ".venv/bin/gunicorn"
    # --threads 1: one sync worker (gunicorn.conf.py's default is 2 workers x 4 threads)
    one = ["--workers", "1", "--threads", "1", "--timeout", "300"]
    deploy = ["--workers", "2", "--threads", "4", "--timeout", "120"]
    return [
        {"key": "jembatan", "label": "Jembatan, sqlite3, 1 sync worker (pinned)",
         "argv": [gunicorn, *one], "config": ("jembatan-sqlite", False), "paths": JEMBATAN_PATHS,
         "streams": ("json", "csv", "xlsx"), "server_cores": SERVER_CORE,
         "client_cores": CLIENT_CORE, "wrk_threads": 1},
        # The framework floor: the same gunicorn command and worker, the same wrk,
        # a bare Flask route; right after Jembatan, so that both see the same spell of the
        # machine in each round.
        {"key": "floor", "label": "Framework floor: bare Flask, fixed 1 KB JSON, 1 sync "
                                  "worker (pinned)",
         "argv": [gunicorn, *one], "app": "bench.floor:app", "ready": FLOOR_PATH,
         "paths": FLOOR_PATHS, "streams": (), "server_cores": SERVER_CORE,
         "client_cores": CLIENT_CORE, "wrk_threads": 1},
        # What the metrics and the access log cost a request: Jembatan without
        # one of them (bench/variant.py, the benchmark's own switch), row by id only (the
        # work where a request's fixed cost weighs most), right after Jembatan and the floor.
        *({"key": f"no{off}", "label": f"Jembatan without {what} (bench/variant.py), 1 sync "
                                       f"worker (pinned)",
           "argv": [gunicorn, *one], "app": "bench.variant:app", "without": off,
           "config": ("jembatan-sqlite", False), "paths": JEMBATAN_PATHS, "works": ("row",),
           "streams": (), "server_cores": SERVER_CORE, "client_cores": CLIENT_CORE,
           "wrk_threads": 1}
          for off, what in (("metrics", "metrics"), ("log", "the access log"))),
        {"key": "deploy", "label": "Jembatan, sqlite3, docs/deploy.md deployment (2 workers x 4 "
                                   "threads, both cores)",
         "argv": [gunicorn, *deploy], "config": ("jembatan-sqlite", False),
         "paths": JEMBATAN_PATHS, "streams": ("json",), "server_cores": ALL_CORES,
         "client_cores": ALL_CORES, "wrk_threads": 2},
        {"key": "odbc", "label": "Jembatan, pyodbc + SQLite ODBC driver, 1 sync worker (pinned)",
         "argv": [gunicorn, *one], "config": ("jembatan-odbc", True), "paths": JEMBATAN_PATHS,
         "streams": ("json",), "server_cores": SERVER_CORE, "client_cores": CLIENT_CORE,
         "wrk_threads": 1},
        {"key": "datasette", "label": "Datasette (--immutable, pinned)", "argv": None,
         "paths": DATASETTE_PATHS, "streams": ("csv",), "server_cores": SERVER_CORE,
         "client_cores": CLIENT_CORE, "wrk_threads": 1},
        # Jembatan as the first contender, a server of its own that measures no
        # work of report.WORKS, only report.MCP_WORKS: the same summary over HTTP and over
        # MCP, one after the other in each round (measure_mcp).
        {"key": "mcp", "label": "Jembatan, sqlite3, 1 sync worker (pinned): a month by "
                                "material over HTTP and over MCP",
         "argv": [gunicorn, *one], "config": ("jembatan-sqlite", False), "paths": MCP_PATHS,
         "works": (), "streams": (), "server_cores": SERVER_CORE, "client_cores": CLIENT_CORE,
         "wrk_threads": 1},
    ]


def start(c: dict[str, Any]) -> Server:
    port = harness.free_port()
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{c['key']}.log"
    log.unlink(missing_ok=True)
    if c["key"] == "datasette":
        argv = [DATASETTE, "serve", "--immutable", DB_ARG, "-h", "127.0.0.1",
                "-p", str(port), "--setting", "max_returned_rows", "2000",
                "--setting", "sql_time_limit_ms", "60000", "--setting", "max_csv_mb", "0"]
        return Server(c["label"], argv, port, "/-/versions.json", server_env(),
                      c["server_cores"], log=log)
    # Both Jembatan and the floor start from the checkout, so gunicorn reads the same
    # gunicorn.conf.py for both: the floor's worker is set up as Jembatan's is.
    argv = [*c["argv"][:1], "--bind", f"127.0.0.1:{port}", *c["argv"][1:],
            c.get("app", "wsgi:app")]
    config = jembatan_config(*c["config"]) if "config" in c else None
    env = server_env(config) | ({"BENCH_WITHOUT": c["without"]} if "without" in c else {})
    return Server(c["label"], argv, port, c.get("ready", "/health"), env,
                  c["server_cores"], worker_processes=True, log=log)


def fill(template: str, **values: object) -> str:
    for name, value in values.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def probe(port: int, c: dict[str, Any], plan: dict[str, Any]) -> dict[str, int]:
    """One request of each work before timing: status 200 and how many records came back."""
    if c["key"] == "floor":
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{FLOOR_PATH}", timeout=60) as resp:
            return {"floor_bytes": len(resp.read())}
    if c["key"] == "mcp":
        return probe_mcp(port, plan)
    r = plan["range"]
    end = dt.date.fromisoformat(r["first_day"]) + dt.timedelta(days=r["window_days"] - 1)
    page, fpage = plan["page"]["first"], plan["fpage"]["first"]
    paths = {
        "row": fill(c["paths"]["row"], id=plan["max_id"] // 2),
        "page": fill(c["paths"]["page"], page=page, offset=(page - 1) * PAGE_SIZE),
        "range": fill(c["paths"]["range"], start=r["first_day"], end=end.isoformat(),
                      end_time=r["end_time"]),
        "frange": fill(filtered(c["paths"]["frange"], plan), start=r["first_day"],
                       end=end.isoformat(), end_time=r["end_time"]),
        "fpage": fill(filtered(c["paths"]["fpage"], plan), page=fpage,
                      offset=(fpage - 1) * PAGE_SIZE),
    }
    if "summary" in c["paths"]:  # Jembatan's own: Datasette has no such endpoint
        month_end = (dt.date.fromisoformat(r["first_day"])
                     + dt.timedelta(days=plan["summary"]["window_days"] - 1))
        paths["summary"] = fill(c["paths"]["summary"], start=r["first_day"],
                                end=month_end.isoformat(), end_time="23:59:59")
    if "feed" in c["paths"]:  # Jembatan's own too
        paths["feed"] = fill(c["paths"]["feed"], token=plan["feed"]["token"])
    counts = {}
    for work, path in paths.items():
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=120) as resp:
            body = json.loads(resp.read())
        if isinstance(body, dict):  # Jembatan's record, or Datasette's row page
            body = body.get("rows", [body])
        counts[work] = len(body)
    return counts


def probe_mcp(port: int, plan: dict[str, Any]) -> dict[str, int]:
    """The first month of the MCP work over HTTP and over MCP: both answer 200, the tool
    call is no error and not cut short, and its groups are the HTTP answer's, value for
    value; how many groups and bytes each answer holds."""
    month = plan["summary"]
    start = dt.date.fromisoformat(plan["range"]["first_day"])
    values = {"start": start.isoformat(),
              "end": (start + dt.timedelta(days=month["window_days"] - 1)).isoformat(),
              "end_time": "23:59:59"}
    url = f"http://127.0.0.1:{port}"
    with urllib.request.urlopen(url + fill(MCP_PATHS["summary_http"], **values),
                                timeout=120) as resp:
        http_body = resp.read()
    headers = dict(h.split(": ", 1) for h in MCP_HEADERS)
    call = urllib.request.Request(url + MCP_PATHS["summary_mcp"], method="POST",
                                  data=fill(MCP_BODY, **values).encode(), headers=headers)
    with urllib.request.urlopen(call, timeout=120) as resp:
        mcp_body = resp.read()
    answer = json.loads(mcp_body)
    result = answer.get("result") or {}
    found = result.get("structuredContent") or {}
    groups = json.loads(http_body)
    if result.get("isError") or found.get("truncated") or found.get("groups") != groups:
        raise RuntimeError(f"the MCP summary is not the HTTP summary: {mcp_body[:500]!r}")
    return {"summary_http": len(groups), "summary_mcp": len(found["groups"]),
            "summary_http_bytes": len(http_body), "summary_mcp_bytes": len(mcp_body)}


def serves_csv(port: int, c: dict[str, Any]) -> bool:
    if c["key"] == "datasette":
        return True
    url = f"http://127.0.0.1:{port}{JEMBATAN_CSV_PROBE}"
    with urllib.request.urlopen(url, timeout=60) as resp:
        return resp.headers.get_content_type() == "text/csv"


def filtered(template: str, plan: dict[str, Any]) -> str:
    """A filtered work's path with its filter value in it (URL-encoded: wrk sends it as is)."""
    return fill(template, vehno=urllib.parse.quote(plan["frange"]["vehno"]),
                custcode=urllib.parse.quote(plan["fpage"]["custcode"]))


def wrk_args(work: str, template: str, plan: dict[str, Any]) -> list[object]:
    template = filtered(template, plan)
    if work == "feed":  # the same bookmark every time: the steady poll of a caught-up ERP
        return [fill(template, token=plan["feed"]["token"]), 1]
    if work == "row":
        return [template, plan["max_id"]]
    if work in ("page", "fpage"):
        p = plan[work]
        return [template, p["first"], p["last"], p["size"]]
    r = plan["range"]
    first_day = int(dt.datetime.fromisoformat(r["first_day"]).replace(
        tzinfo=dt.UTC).timestamp())
    if work in ("summary", "summary_http", "summary_mcp"):  # a month, as the summary's
        s = plan["summary"]
        month = [first_day, s["days"], s["window_days"], "23:59:59"]
        return [template, MCP_BODY, *month] if work == "summary_mcp" else [template, *month]
    return [template, first_day, r["days"], r["window_days"], r["end_time"]]


def measure_work(key: str, c: dict[str, Any], server: Server, work: str,
                 plan: dict[str, Any]) -> dict[str, Any]:
    warm_page_cache()  # the floor's too: every measurement follows the same read
    script, args = (("row.lua", [FLOOR_PATH, 1]) if key == "floor"
                    else (SCRIPTS[work], wrk_args(work, c["paths"][work], plan)))
    result = harness.wrk(server.port, script, args, SECONDS, WARMUP, threads=c["wrk_threads"],
                         cores=c["client_cores"],
                         headers=MCP_HEADERS if work == "summary_mcp" else ())
    say(f"   {key:<10} {result['req_s']:9.1f} req/s   p99 {result['p99_ms']:8.1f} ms"
        f"   errors {result['errors']}")
    return result


def measure_mcp(c: dict[str, Any], server: Server, plan: dict[str, Any],
                results: dict[str, Any]) -> None:
    """The same month by material over HTTP and over MCP, on one server, one after
    the other in each of WORK_ROUNDS rounds, HTTP first in odd rounds and last in even ones;
    their ratio is paired by round as the others are (report._paired)."""
    for n in range(WORK_ROUNDS):
        say(f"   round {n + 1} of {WORK_ROUNDS}")
        for work, _label in report.MCP_WORKS if n % 2 == 0 else report.MCP_WORKS[::-1]:
            result = measure_work(work, c, server, work, plan)
            keep_best(results["contenders"][c["key"]]["works"], work, result, "req_s")


def measure_stream(key: str, c: dict[str, Any], server: Server, kind: str,
                   plan: dict[str, Any]) -> dict[str, Any]:
    if kind == "csv" and not serves_csv(server.port, c):
        say(f"   {key:<10} not implemented")
        return {"not_implemented": True}
    runs = []
    for _ in range(STREAM_RUNS):
        warm_page_cache()
        runs.append(harness.stream(server.port, c["paths"][kind], server.pids(), plan["rows"],
                                   kind, cores=c["client_cores"]))
    # rows/s of the median run; the worst of the runs for first byte, memory and completeness
    s = median_run(runs, "rows_s")
    for figure in ("first_byte_ms", "rss_peak_mb", "rss_peak_worker_mb"):
        s[figure] = max(r[figure] for r in runs)
    broken = [r for r in runs if not r["complete"]]
    if broken:
        s["complete"], s["check"] = False, broken[0]["check"]
    url = f"http://127.0.0.1:{server.port}{c['paths'][kind]}"
    s["command"] = (f"curl -so /dev/null {shlex.quote(url)}  # read by bench/harness.py "
                    f"stream() on cores {c['client_cores']}")
    say(f"   {key:<10} {s['rows_s']:9.0f} rows/s  first byte {s['first_byte_ms']:.1f} ms   "
        f"peak RSS {s['rss_peak_mb']:.1f} MB (from {s['rss_baseline_mb']:.1f})   "
        f"{'complete' if s['complete'] else 'INCOMPLETE'}: {s['check']}")
    return s


def run_all(plan: dict[str, Any], results: dict[str, Any]) -> None:
    """Every server is started first and then idles while another is measured; each work is
    measured on every contender back to back, so that a change in the machine's load over
    the run falls on all of them alike rather than on whoever ran last."""
    chosen = [c for c in contenders() if wanted(c["key"])]
    drivers = ("sqlite3", "pyodbc") if wanted("limit") else ()
    if not chosen and not drivers:
        return
    with contextlib.ExitStack() as stack:
        servers: dict[str, Server] = {}
        for c in chosen:
            say(f"starting {c['label']}")
            server = servers[c["key"]] = stack.enter_context(start(c))
            out = results["contenders"][c["key"]] = {"label": c["label"],
                                                     "command": server.command, "works": {}}
            out["probe"] = probe(server.port, c, plan)
            say(f"   records per request (probe): {out['probe']}")
        for work, label in report.WORKS:
            say(f"\n== {label}")
            for n in range(WORK_ROUNDS):
                say(f"   round {n + 1} of {WORK_ROUNDS}")
                # The limit first in odd rounds and last in even ones: a load that grows or
                # fades during a round falls on both sides of its ratios alike.
                steps = [*((None, d) for d in drivers), *((c, None) for c in chosen)]
                for c, driver in steps if n % 2 == 0 else steps[::-1]:
                    if c is None:
                        lim = run_limit(plan, driver, work)
                        keep_best(results["limit"].setdefault(driver, {}), work, lim, "ops_s")
                        say(f"   {'limit ' + driver:<10} {lim['ops_s']:9.1f} ops/s   p99 "
                            f"{lim['p99_ms']:8.1f} ms")
                    elif work in c.get("works", c["paths"]):  # Datasette has no summary
                        keep_best(results["contenders"][c["key"]]["works"], work,
                                  measure_work(c["key"], c, servers[c["key"]], work, plan),
                                  "req_s")
        for c in chosen:
            if c["key"] == "mcp":
                say(f"\n== {report.MCP_TITLE}")
                measure_mcp(c, servers[c["key"]], plan, results)
        for kind in ("json", "csv", "xlsx"):
            say(f"\n== the full table, {kind.upper()}")
            # The limit of a CSV export is measured through sqlite3, as the reference run's was; an
            # Excel export has no limit of its own: its target is a share of CSV's rows/s.
            for driver in {"json": drivers, "csv": drivers[:1]}.get(kind, ()):
                work = "all" if kind == "json" else "csv"
                lim = results["limit"][driver][work] = run_limit(plan, driver, work)
                say(f"   {'limit ' + driver:<10} {lim['rows_s']:9.0f} rows/s")
            for c in chosen:
                if kind in c["streams"]:
                    results["contenders"][c["key"]]["works"][kind] = measure_stream(
                        c["key"], c, servers[c["key"]], kind, plan)


def keep_best(into: dict[str, Any], work: str, result: dict[str, Any], key: str) -> None:
    """The better round of a work so far, every round's figure beside it, and the errors of
    all rounds (a failed request in any round is reported)."""
    before = into.get(work)
    best = result if before is None or result[key] > before[key] else before
    into[work] = best | {
        "rounds": (before["rounds"] if before else []) + [result[key]],
        "errors": (before.get("errors", 0) if before else 0) + result.get("errors", 0)}


# --- the machine ------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    mem = next(int(line.split()[1]) for line in open("/proc/meminfo")
               if line.startswith("MemTotal"))

    def version(argv: list[str]) -> str:
        try:
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
            return (done.stdout or done.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "not found"
    return {
        "nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem / 1024 / 1024, 1),
        "kernel": platform.release(), "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "gunicorn": version([".venv/bin/gunicorn", "--version"]),
        "datasette": version([DATASETTE, "--version"]),
        "wrk": version(["wrk", "-v"]),
        "py_spy": version([".venv/bin/py-spy", "--version"]),
    }


def run_shape(plan: dict[str, Any]) -> dict[str, Any]:
    """bench/shape.py: every gunicorn shape on both engines, 1 to 64 clients."""
    say("\n== the production shape (bench/shape.py)")
    began, load = time.time(), os.getloadavg()

    def check(port: int, c: dict[str, Any]) -> None:
        counts = probe(port, {**c, "paths": JEMBATAN_PATHS}, plan)
        say(f"   records per request (probe): {counts}")

    out = shape.measure(plan, start=start, probe=check,
                        wrk_args=lambda work: wrk_args(work, JEMBATAN_PATHS[work], plan),
                        warm=warm_page_cache, seconds=SECONDS, warmup=WARMUP, say=say)
    out |= {"load_average_start": load, "load_average_end": os.getloadavg(),
            "wall_seconds": time.time() - began}
    return out


def main() -> int:
    began = time.time()
    results: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine(), "load_average_start": os.getloadavg(),
        "settings": {"seconds": SECONDS, "warmup": WARMUP, "rounds": WORK_ROUNDS, "db": DB_ARG},
        "limit": {}, "contenders": {},
    }
    say(f"machine: {results['machine']}")
    say(f"load average at start: {results['load_average_start']}")
    plan = make_plan()
    results["plan"] = plan
    say(f"plan: {json.dumps({k: v for k, v in plan.items() if k != 'distribution'})}")
    say(f"data: {json.dumps(plan['distribution'])}")
    say(f"feed poll: {plan['feed']['window']} records in a {plan['feed']['lookback_seconds']} s "
        f"lookback window; SQLite's plan: {plan['feed']['query_plan']}")
    warm_page_cache()

    run_all(plan, results)
    if wanted("profile"):
        say("\n== where the time goes (py-spy, one sync worker)")
        results["profile"] = profiling.profile(plan, SECONDS)
    if wanted("shape"):
        results["shape"] = run_shape(plan)

    results["load_average_end"] = os.getloadavg()
    results["wall_seconds"] = time.time() - began
    results["targets"] = report.targets(results)
    # Only a whole run on the default database replaces the published results (a run of
    # shape alone, its own section of them); the figures of every run stay out of the
    # repository (RESULTS.md shows them).
    shape_only = ONLY == {"shape"}
    where = BENCH if (not ONLY or shape_only) and DB == DEFAULT_DB else BENCH / "data"
    published = BENCH / "RESULTS.md"
    (BENCH / "data" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    if shape_only:
        text = ((where / "RESULTS.md").read_text() if (where / "RESULTS.md").is_file()
                else "# Benchmark results\n")
    else:
        text = report.render(results, published)
        kept = shape.kept(published.read_text()) if published.is_file() else []
        if kept and "shape" not in results:
            text = shape.splice(text, kept)
    if "shape" in results:
        text = shape.splice(text, shape.render(results["shape"], results))
    (where / "RESULTS.md").write_text(text)
    if not shape_only:
        say("\n" + report.summary(results))
    if "shape" in results:
        for work, title in (*shape.WORKS, shape.EXPORT):
            say(f"\n== production shape: {title}, req/s (p99 ms)\n"
                + shape.table_rows(results["shape"], work))
    say(f"wrote bench/data/results.json and {(where / 'RESULTS.md').relative_to(ROOT)}; the "
        f"run took {results['wall_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
