"""Before and after one change: the app at two git revisions, measured and profiled in one run.

    .venv/bin/python bench/before_after.py REV WORK [WORK...]      (before = REV^, after = REV)
    .venv/bin/python bench/before_after.py --before A --after B WORK [WORK...]

WORK: row, page, range (wrk, as bench/run.py) or stream (one GET /transactions). Environment:
BENCH_DB, BENCH_SECONDS (as bench/run.py). Each revision is checked out in a worktree of its
own (/tmp/jembatan-rev-<sha>) and served by this checkout's gunicorn from there; both servers
run at once on the server's core. Each work runs before, after, before, after: the first
round plain (the figures), the second under py-spy (the top costs). Prints a markdown block,
appends it to bench/data/before-after.md (with --record: to bench/before-after.md, the record
of changes that make bench copies into RESULTS.md) and writes the figures to
bench/data/before-after-<sha>.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import harness
import limit
import run
from harness import ROOT, SERVER_CORE, Server

OUT = ROOT / "bench" / "data"
RECORD = ROOT / "bench" / "before-after.md"  # the changes' record, part of RESULTS.md
VENV = ROOT / ".venv" / "bin"
WORKS = ("row", "page", "range", "stream")
TOP = 8
profiling = run._load_profiling()


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def worktree(sha: str) -> Path:
    """A detached worktree at `sha`, reused if one is there already."""
    path = Path(f"/tmp/jembatan-rev-{sha[:7]}")
    if path.exists():
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        if head != sha:
            sys.exit(f"{path} exists but is not a worktree at {sha}: remove it first")
    else:
        git("worktree", "add", "--detach", str(path), sha)
    return path


def gunicorn(tree: Path) -> list[str]:
    """gunicorn serving the worktree. It puts the directory it starts in first on sys.path
    (--chdir does not move a directory already there), and the venv's editable install maps
    `app` to this checkout: so it starts in the worktree, which PYTHONPATH names too."""
    return ["env", "-C", str(tree), str(VENV / "gunicorn"), "--chdir", str(tree)]


def side_env(tree: Path, sha: str, odbc: bool) -> dict[str, str]:
    """The server's environment (a config of its own), once gunicorn is seen to load the
    worktree's wsgi.py and app/ with it (python -v names every module's file)."""
    config = git("show", f"{sha}:app/config.py")
    if "JEMBATAN_CONFIG" not in config or '"sqlite"' not in config:
        sys.exit(f"{sha[:7]}: app/config.py reads no JEMBATAN_CONFIG or [database] sqlite")
    path = tree / "before-after.toml"  # goes with the worktree
    source = (f'odbc = "{limit.odbc_string(run.DB)}"' if odbc else f'sqlite = "{run.DB}"')
    path.write_text(f'# Written by bench/before_after.py\n[database]\n{source}\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    env.update(JEMBATAN_CONFIG=str(path), PYTHONPATH=str(tree))
    done = subprocess.run([*gunicorn(tree), "--check-config", "wsgi:app"], cwd=ROOT,
                          env={**env, "PYTHONVERBOSE": "1"}, capture_output=True, text=True)
    if (done.returncode or f"{ROOT}/app/" in done.stderr or f"{ROOT}/wsgi.py" in done.stderr
            or f"{tree}/app/__init__.py" not in done.stderr):
        seen = [line for line in done.stderr.splitlines() if "app/__init__.py" in line]
        sys.exit(f"{sha[:7]}: gunicorn does not load {tree}/app alone (exit "
                 f"{done.returncode}): {seen or done.stderr[-2000:]}")
    return env


def profiled_here(found: dict[str, Any], speedscope: Path, tree: Path) -> dict[str, Any]:
    """The top costs, after checking that the worker ran the worktree's code."""
    files = {f.get("file", "") for f in json.loads(speedscope.read_text())["shared"]["frames"]}
    if any(f.startswith(f"{ROOT}/app/") for f in files):
        raise RuntimeError(f"the server of {tree} ran {ROOT}/app: the worktree is not isolated")
    if not any(f.startswith(f"{tree}/app/") for f in files):
        raise RuntimeError(f"no frame of {tree}/app in {speedscope}")
    for r in found["top"]:
        r["file"] = r["file"].removeprefix(f"{tree}/")
    found["top"] = found["top"][:TOP]
    return found


def measure(work: str, server: Server, tree: Path, plan: dict[str, Any],
            profile: bool) -> dict[str, Any]:
    run.warm_page_cache()
    rec = None
    if profile:
        (worker,) = server.pids()
        name = tree.name.removeprefix("jembatan-rev-")
        rec = profiling.Recording(worker, OUT / f"before-after-{name}-{work}.speedscope.json")
    try:
        if work == "stream":
            result = harness.stream(server.port, "/transactions", server.pids(), plan["rows"],
                                    "json")
        else:
            result = harness.wrk(server.port, f"{work}.lua",
                                 run.wrk_args(work, run.JEMBATAN_PATHS[work], plan),
                                 run.SECONDS, 0 if profile else run.WARMUP)
    finally:
        found = rec.stop() if rec else None
    if rec and found:
        result["profile"] = profiled_here(found, rec.out, tree)
    return result


def table(work: str, shas: list[str], res: dict[str, dict[str, Any]]) -> list[str]:
    b, a = res["before"]["plain"], res["after"]["plain"]
    keys = ([("rows/s", "rows_s", ",.0f"), ("first byte ms", "first_byte_ms", ",.1f")]
            if work == "stream" else [("req/s", "req_s", ",.1f"), ("p99 ms", "p99_ms", ",.1f")])
    lines = [f"#### {work}\n", f"| | before ({shas[0][:7]}) | after ({shas[1][:7]}) | after / "
             "before |", "|---|---:|---:|---:|"]
    for label, key, form in keys:
        lines.append(f"| {label} | {b[key]:{form}} | {a[key]:{form}} | {a[key] / b[key]:.2f}x |")
    for side, r in (("before", b), ("after", a)):
        if r.get("errors") or r.get("complete") is False:
            lines.append(f"\n**{side}: {r.get('errors', 0)} errors, {r.get('check', '')}**")
    lines += ["\nTop costs, own time (py-spy, one more run of each):\n",
              "| before: function | file | own % | after: function | file | own % |",
              "|---|---|---:|---|---|---:|"]
    tops = [res[s]["profiled"]["profile"]["top"] for s in ("before", "after")]
    for i in range(max(map(len, tops))):
        cells = []
        for top in tops:
            f = top[i] if i < len(top) else None
            cells += ([f"`{f['function']}`", f["file"], f"{f['own_percent']:.1f}"] if f
                      else ["", "", ""])
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the revision before (default REV^)")
    parser.add_argument("--after", help="the revision after (then no REV)")
    parser.add_argument("--odbc", action="store_true",
                        help="serve through pyodbc and the SQLite ODBC driver (StepAPI=1)")
    parser.add_argument("--record", action="store_true",
                        help="append the block to bench/before-after.md (part of RESULTS.md)")
    parser.add_argument("args", nargs="+", metavar="[REV] WORK")
    opts = parser.parse_args()
    args = opts.args if opts.after else opts.args[1:]
    after = opts.after or opts.args[0]
    before = opts.before or f"{after}^"
    if not args or set(args) - set(WORKS):
        parser.error(f"WORK is one or more of {', '.join(WORKS)}; got {args}")
    shas = [git("rev-parse", "--verify", f"{r}^{{commit}}") for r in (before, after)]
    subject = git("log", "-1", "--format=%s", shas[1])
    env_set = [f"{k}={shlex.quote(os.environ[k])}" for k in ("BENCH_DB", "BENCH_SECONDS")
               if k in os.environ]
    command = " ".join([*env_set, ".venv/bin/python bench/before_after.py",
                        shlex.join(sys.argv[1:])])
    plan = run.make_plan()
    results: dict[str, Any] = {"command": command, "subject": subject, "db": run.DB_ARG,
                               "rows": plan["rows"], "seconds": run.SECONDS, "sides": {},
                               "works": {}}
    trees: dict[str, Path] = {}
    try:
        for sha in shas:
            trees[sha] = worktree(sha)
        with contextlib.ExitStack() as stack:
            servers = {}
            for side, sha in zip(("before", "after"), shas, strict=True):
                tree, port = trees[sha], harness.free_port()
                argv = [*gunicorn(tree), "--bind", f"127.0.0.1:{port}", "--workers", "1",
                        "--timeout", "300", "wsgi:app"]
                server = stack.enter_context(Server(
                    f"Jembatan {side} ({sha[:7]})", argv, port, "/health",
                    side_env(tree, sha, opts.odbc),
                    SERVER_CORE, worker_processes=True,
                    log=OUT / "logs" / f"before-after-{side}.log"))
                servers[side] = (server, tree)
                results["sides"][side] = {"sha": sha, "worktree": str(tree),
                                          "command": server.command}
                print(f"{side}: {sha[:7]} served from {tree} on port {port}", flush=True)
            for work in args:
                res: dict[str, dict[str, Any]] = {"before": {}, "after": {}}
                for kind in ("plain", "profiled"):
                    for side in ("before", "after"):
                        server, tree = servers[side]
                        r = res[side][kind] = measure(work, server, tree, plan,
                                                      kind == "profiled")
                        figure = (f"{r['rows_s']:,.0f} rows/s" if work == "stream"
                                  else f"{r['req_s']:,.1f} req/s")
                        print(f"   {work:<6} {side:<6} {kind:<8} {figure}", flush=True)
                results["works"][work] = res
    finally:
        for tree in trees.values():
            with contextlib.suppress(subprocess.CalledProcessError):
                git("worktree", "remove", "--force", str(tree))
    via = ", served through pyodbc and the SQLite ODBC driver" if opts.odbc else ""
    block = "\n".join([f"### {subject} ({shas[1][:7]})\n", f"`{command}` ({run.DB_ARG}{via}, "
                       f"{plan['rows']:,} rows, {run.SECONDS:g} s per wrk run)\n"]
                      + [line for work in args
                         for line in table(work, shas, results["works"][work])])
    print("\n" + block)
    with open(RECORD if opts.record else OUT / "before-after.md", "a") as f:
        f.write("\n" + block + "\n")
    (OUT / f"before-after-{shas[1][:7]}.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
