"""Before and after: the app at two git revisions, served side by side and measured in
paired rounds (row by id, the deep page and CSV: does a change keep them where they were?).

    .venv/bin/python bench/before_after.py --before REV|DIR --after REV|DIR WORK [WORK...]

WORK: a request work of bench/run.py measured with wrk (row, page, range, frange, fpage,
summary, feed), or a full-table GET (json, csv, xlsx). A revision is checked out in a
detached worktree of its own (/tmp/jembatan-rev-<sha>, reused when it is there, removed at
the end when this run made it); a directory is served as it is (a worktree whose app/ is
clean at its HEAD). Environment: BENCH_DB, BENCH_SECONDS (as bench/run.py).

Both revisions are served at once by one sync worker each on the server's core, wrk (or the
full-table reader) on the other, from this checkout's venv, each with the app of its own
tree (checked at start: python -v must show the tree's app/ loaded, and no other). Each
work is measured in --rounds rounds (bench/run.py's WORK_ROUNDS by default), both sides in
each round, the before side first in odd rounds and last in even ones; a full table is read
three times a side in a round, the sides interleaved, and the round's figure is each side's
median read. The figure shown is each side's best round, the ratio after / before the
median of the rounds' ratios, with the lowest and highest of them: measured seconds apart,
a round's two sides share the machine's spell, which on this shared machine the rounds do
not. This script revives the approach of the one-off study in git history (`git show
29dc48d:bench/before_after.py`), which ran one plain round and one under py-spy.

Prints a markdown block, appends it to bench/data/before-after.md and writes every figure to
bench/data/before-after.json.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import harness
import report
import run
from harness import ROOT, SERVER_CORE, Server

OUT = ROOT / "bench" / "data"
VENV = ROOT / ".venv" / "bin"
STREAMS = ("json", "csv", "xlsx")
REQUESTS = tuple(w for w, _ in report.WORKS)
READS = 3  # full-table reads per side in a round


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def tree_of(where: str, made: list[Path]) -> tuple[Path, str]:
    """The tree that serves `where` (a directory as it is, or a revision's worktree) and its
    commit."""
    if Path(where).is_dir():
        tree = Path(where).resolve()
        sha = git("rev-parse", "HEAD", cwd=tree)
        dirty = git("status", "--porcelain", "--", "app", "wsgi.py", "gunicorn.conf.py", "sql",
                    cwd=tree)
        if dirty:
            sys.exit(f"{tree}: app/ differs from its HEAD {sha[:7]}:\n{dirty}")
        return tree, sha
    sha = git("rev-parse", "--verify", f"{where}^{{commit}}")
    tree = Path(f"/tmp/jembatan-rev-{sha[:7]}")
    if tree.exists():
        if git("rev-parse", "HEAD", cwd=tree) != sha:
            sys.exit(f"{tree} exists but is not a worktree at {sha}: remove it first")
    else:
        git("worktree", "add", "--detach", str(tree), sha)
        made.append(tree)
    return tree, sha


def gunicorn(tree: Path) -> list[str]:
    """gunicorn serving the tree. It puts the directory it starts in first on sys.path, and
    the venv's editable install maps `app` to another checkout: so it starts in the tree,
    which PYTHONPATH names too."""
    return ["env", "-C", str(tree), str(VENV / "gunicorn"), "--chdir", str(tree)]


def side_env(tree: Path, config: Path) -> dict[str, str]:
    """The server's environment, once gunicorn is seen to load the tree's wsgi.py and app/
    and no other (python -v names every module's file)."""
    env = run.server_env(config) | {"PYTHONPATH": str(tree)}
    done = subprocess.run([*gunicorn(tree), "--check-config", "wsgi:app"], cwd=ROOT,
                          env={**env, "PYTHONVERBOSE": "1"}, capture_output=True, text=True,
                          timeout=120)
    found = re.findall(r"(/[^\s']*/(?:app/__init__|wsgi)\.py)\b", done.stderr)
    loaded = {f for f in found if "/site-packages/" not in f and "/lib/python" not in f}
    if done.returncode or loaded != {f"{tree}/app/__init__.py", f"{tree}/wsgi.py"}:
        sys.exit(f"{tree}: gunicorn does not load {tree}/app and wsgi.py alone (exit "
                 f"{done.returncode}): {sorted(loaded) or done.stderr[-2000:]}")
    return env


def measure(work: str, server: Server, plan: dict[str, Any]) -> dict[str, Any]:
    run.warm_page_cache()
    if work in STREAMS:
        path = run.JEMBATAN_PATHS[work]
        return harness.stream(server.port, path, server.pids(), plan["rows"], work)
    return harness.wrk(server.port, run.SCRIPTS[work],
                       run.wrk_args(work, run.JEMBATAN_PATHS[work], plan), run.SECONDS,
                       run.WARMUP)


def one_round(work: str, sides: list[tuple[str, Server]], plan: dict[str, Any]
              ) -> dict[str, dict[str, Any]]:
    """Each side's figure in one round (a full table: the median of READS reads a side)."""
    if work not in STREAMS:
        return {side: measure(work, server, plan) for side, server in sides}
    reads: dict[str, list[dict[str, Any]]] = {side: [] for side, _ in sides}
    for _ in range(READS):
        for side, server in sides:
            reads[side].append(measure(work, server, plan))
    out = {}
    for side, runs in reads.items():
        r = run.median_run(runs, "rows_s")
        broken = [x for x in runs if not x["complete"]]
        out[side] = r | {"complete": not broken,
                         "check": (broken[0] if broken else r)["check"]}
    return out


def table(results: dict[str, Any]) -> list[str]:
    b, a = (results["sides"][s]["sha"][:7] for s in ("before", "after"))
    L = [f"| Work | Before ({b}) | After ({a}) | After / before (median of the rounds) | "
         f"Lowest-highest | Every round's after / before |", "|---|---:|---:|---:|---|---|"]
    for work, w in results["works"].items():
        unit = "rows/s" if work in STREAMS else "req/s"
        each = report.paired_rounds(w["after"], w["before"])
        cells = [f"{w[s]['best']:,.{0 if work in STREAMS else 1}f} {unit}"
                 for s in ("before", "after")]
        L.append(f"| {LABELS[work]} | {cells[0]} | {cells[1]} | {statistics.median(each):.2f} | "
                 f"{min(each):.2f}-{max(each):.2f} | {', '.join(f'{x:.2f}' for x in each)} |")
    return L


LABELS = report.LABELS | {"xlsx": "Full table, Excel"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="a revision, or a tree to serve")
    parser.add_argument("--after", required=True, help="a revision, or a tree to serve")
    parser.add_argument("--rounds", type=int, default=run.WORK_ROUNDS)
    parser.add_argument("works", nargs="+", metavar="WORK",
                        choices=(*REQUESTS, *STREAMS))
    opts = parser.parse_args()
    began, load = time.time(), os.getloadavg()
    env_set = [f"{k}={shlex.quote(os.environ[k])}" for k in ("BENCH_DB", "BENCH_SECONDS")
               if k in os.environ]
    command = " ".join([*env_set, ".venv/bin/python bench/before_after.py",
                        shlex.join(sys.argv[1:])])
    plan = run.make_plan()
    config = run.jembatan_config("before-after", False)  # after make_plan: its [feed]
    results: dict[str, Any] = {
        "command": command, "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "db": run.DB_ARG, "rows": plan["rows"], "seconds": run.SECONDS, "warmup": run.WARMUP,
        "rounds": opts.rounds, "load_average_start": load, "sides": {}, "works": {}}
    made: list[Path] = []
    try:
        with contextlib.ExitStack() as stack:
            servers: dict[str, Server] = {}
            for side, where in (("before", opts.before), ("after", opts.after)):
                tree, sha = tree_of(where, made)
                port = harness.free_port()
                log = OUT / "logs" / f"before-after-{side}.log"
                log.unlink(missing_ok=True)
                argv = [*gunicorn(tree), "--bind", f"127.0.0.1:{port}", "--workers", "1",
                        "--threads", "1", "--timeout", "300", "wsgi:app"]
                servers[side] = stack.enter_context(Server(
                    f"Jembatan {side} ({sha[:7]})", argv, port, "/health",
                    side_env(tree, config), SERVER_CORE, worker_processes=True,
                    log=log))
                results["sides"][side] = {"sha": sha, "tree": str(tree),
                                          "subject": git("log", "-1", "--format=%s", sha),
                                          "command": servers[side].command}
                print(f"{side}: {sha[:7]} served from {tree} on port {port}", flush=True)
            for work in opts.works:
                print(f"\n== {LABELS[work]}", flush=True)
                w: dict[str, Any] = {"before": {"rounds": [], "errors": 0},
                                     "after": {"rounds": [], "errors": 0}}
                key = "rows_s" if work in STREAMS else "req_s"
                for n in range(opts.rounds):
                    order = ["before", "after"] if n % 2 == 0 else ["after", "before"]
                    got = one_round(work, [(s, servers[s]) for s in order], plan)
                    for side in order:
                        r, into = got[side], w[side]
                        into["rounds"].append(r[key])
                        into["errors"] += r.get("errors", 0) + (r.get("complete") is False)
                        into.setdefault("commands", set()).add(r.get("command", ""))
                    print(f"   round {n + 1}: " + ", ".join(
                        f"{s} {got[s][key]:,.1f}" for s in ("before", "after"))
                        + f"   after / before {got['after'][key] / got['before'][key]:.2f}",
                        flush=True)
                for side in ("before", "after"):
                    w[side]["best"] = max(w[side]["rounds"])
                    w[side]["commands"] = sorted(filter(None, w[side]["commands"]))
                each = report.paired_rounds(w["after"], w["before"])
                w["after_over_before"] = {"median": statistics.median(each), "low": min(each),
                                          "high": max(each), "rounds": each}
                results["works"][work] = w
    finally:
        for tree in made:
            with contextlib.suppress(subprocess.CalledProcessError):
                git("worktree", "remove", "--force", str(tree))
    results["load_average_end"] = os.getloadavg()
    results["wall_seconds"] = time.time() - began
    errors = {f"{work} {side}": w[side]["errors"] for work, w in results["works"].items()
              for side in ("before", "after") if w[side]["errors"]}
    la0, la1 = results["load_average_start"], results["load_average_end"]
    block = "\n".join([
        f"`{command}` ({run.DB_ARG}, {plan['rows']:,} rows; {run.SECONDS:g} s wrk runs after "
        f"{run.WARMUP} s, 4 connections; {opts.rounds} rounds; load average "
        f"{la0[0]:.2f} at start, {la1[0]:.2f} at end; {results['wall_seconds']:.0f} s)\n",
        *table(results),
        *([f"\n**Errors (failed requests, incomplete bodies): {errors}**"] if errors else [])])
    print("\n" + block)
    with open(OUT / "before-after.md", "a") as f:
        f.write("\n" + block + "\n")
    (OUT / "before-after.json").write_text(json.dumps(results, indent=2) + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
