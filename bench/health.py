"""What one `GET /health` costs the T-SQL server, and its time, before and after a change.

    export BENCH_TSQL_ODBC="$(TSQL_PORT=1505 TSQL_PG_PORT=15505 ../shared/tsql/start)"
    BENCH_TSQL_DATA=/tmp/jembatan-tsql-1505 BENCH_BEFORE=/tmp/health-old \\
        .venv/bin/python bench/health.py

BENCH_BEFORE is a tree of the code before (`git archive <commit> | tar -x -C <dir>`); this
tree is after. The ten collections are served over their empty tables (the mapping's
check reads no row). Each variant runs in a process of its own, importing `app` from its tree:
`before`; `after` with the defaults (the ping kept 1 s); `after, ping_keep 0` (a ping per
call). For each:

- statements per call: the server's own count (Babelfish logs every TDS request,
  `log_min_duration_statement = 0` and `babelfishpg_tds.tds_debug_log_level = 1`, which this
  script sets in BENCH_TSQL_DATA's cluster through an included file and takes back after),
  over CALLS calls one after the other once a first call has opened the session and its
  mapping check (if any) is done;
- under polling: THREADS threads calling /health for POLL_SECONDS at once (a monitor or a
  stranger from several addresses), the statements the server received per second;
- the time per call (statement log off): the median of ROUNDS rounds of CALLS calls through
  Flask's test client in this process, the variants' rounds interleaved (paired).

The figures are printed as JSON and as the lines of bench/RESULTS.md's section.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CALLS = int(os.environ.get("BENCH_CALLS", "200"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
THREADS = int(os.environ.get("BENCH_THREADS", "8"))
POLL_SECONDS = float(os.environ.get("BENCH_POLL_SECONDS", "3"))
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {  # name: (tree, [database] settings)
    "before": ("BEFORE", {}),
    "after": ("AFTER", {}),
    "after, ping_keep 0": ("AFTER", {"ping_keep": 0}),
}
QUERY = re.compile(rb"LOG:  Query: ")  # one line per TDS request the server ran
INCLUDED = "bench-health.conf"


class StatementLog:
    """The cluster's log of every statement, on or off, and how many it holds."""

    def __init__(self, cluster: Path):
        self.data, self.log = cluster / "data", cluster / "server.log"
        conf = self.data / "postgresql.conf"
        line = f"include_if_exists '{INCLUDED}'"
        if line not in conf.read_text():
            with conf.open("a") as f:
                f.write(f"\n{line}\n")

    def turn(self, on: bool) -> None:
        (self.data / INCLUDED).write_text(
            "log_min_duration_statement = 0\nbabelfishpg_tds.tds_debug_log_level = 1\n"
            if on else "")
        pid = int((self.data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGHUP)
        time.sleep(1)  # the postmaster and the sessions read it again

    def count(self) -> int:
        """The statements logged so far, once the log has stopped growing for half a
        second (the server writes its lines a little after it answers)."""
        seen = -1
        while (now := len(QUERY.findall(self.log.read_bytes()))) != seen:
            seen = now
            time.sleep(0.5)
        return seen


def child(tree: str, settings: str, task: str) -> None:
    """In a process of its own: the app of `tree`, and `task` (count, poll or time) printed."""
    sys.path.insert(0, tree)
    from app import create_app
    from app.core.services import services

    app = create_app({"database": {"odbc": os.environ["BENCH_TSQL_ODBC"],
                                   **json.loads(settings)}})
    client = app.test_client()
    kept = services(app)

    def settled() -> None:
        thread = getattr(getattr(kept, "checks", None), "thread", None)
        if thread is not None:
            thread.join()
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}
    settled()
    if task == "time":
        began = time.perf_counter()
        for _ in range(CALLS):
            client.get("/health")
        print(json.dumps((time.perf_counter() - began) / CALLS * 1000))
    elif task == "count":
        print("ready", flush=True)
        sys.stdin.readline()  # the parent has read the log's count
        for _ in range(CALLS):
            client.get("/health")
        settled()
        print(json.dumps(CALLS), flush=True)
    else:  # poll: each thread's session opened first, as a long-running worker's are
        calls = [0] * THREADS
        start = threading.Barrier(THREADS + 1)
        until = [0.0]

        def poll(i: int) -> None:
            mine = app.test_client()
            kept.db.ping()
            start.wait()
            while time.monotonic() < until[0]:
                assert mine.get("/health").status_code == 200
                calls[i] += 1
        threads = [threading.Thread(target=poll, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        print("ready", flush=True)
        sys.stdin.readline()
        until[0] = time.monotonic() + POLL_SECONDS
        start.wait()
        for t in threads:
            t.join()
        settled()
        print(json.dumps(sum(calls)), flush=True)
    kept.db.release()


def run(tree: str, settings: dict[str, Any], task: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, __file__, "child", tree, json.dumps(settings),
                             task], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=tree)


def counted(log: StatementLog, tree: str, settings: dict[str, Any], task: str
            ) -> tuple[int, int]:
    """(statements, calls) the server received while the child did `task`."""
    proc = run(tree, settings, task)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "ready"
    before = log.count()
    proc.stdin.write("\n")
    proc.stdin.flush()
    calls = json.loads(proc.stdout.readline())
    statements = log.count() - before
    proc.communicate(timeout=60)
    return statements, calls


def timed(tree: str, settings: dict[str, Any]) -> float:
    out, _ = run(tree, settings, "time").communicate(timeout=600)
    return float(json.loads(out))


def main() -> None:
    trees = {"BEFORE": os.environ["BENCH_BEFORE"], "AFTER": str(ROOT)}
    log = StatementLog(Path(os.environ["BENCH_TSQL_DATA"]))
    sys.path.insert(0, str(ROOT))
    from tests.mssql import Server

    server = Server(os.environ["BENCH_TSQL_ODBC"])
    server.load({})  # the ten tables, empty
    server.close()
    figures: dict[str, dict[str, float]] = {name: {} for name in VARIANTS}
    log.turn(True)
    try:
        for name, (tree, settings) in VARIANTS.items():
            statements, calls = counted(log, trees[tree], settings, "count")
            figures[name]["statements_per_call"] = statements / calls
            statements, calls = counted(log, trees[tree], settings, "poll")
            figures[name]["poll_calls_per_s"] = calls / POLL_SECONDS
            figures[name]["poll_statements_per_s"] = statements / POLL_SECONDS
    finally:
        log.turn(False)
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(ROUNDS):
        for name, (tree, settings) in VARIANTS.items():
            times[name].append(timed(trees[tree], settings))
    for name in VARIANTS:
        figures[name]["ms_per_call"] = statistics.median(times[name])
    print(json.dumps(figures, indent=2))
    print(f"| variant | statements per call ({CALLS} calls) | statements/s, {THREADS} threads "
          f"polling {POLL_SECONDS:g} s (calls/s) | ms per call (median of {ROUNDS}) |")
    print("|---|---|---|---|")
    for name, f in figures.items():
        print(f"| {name} | {f['statements_per_call']:.2f} | {f['poll_statements_per_s']:.1f} "
              f"({f['poll_calls_per_s']:.0f}) | {f['ms_per_call']:.2f} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(*sys.argv[2:5])
    else:
        main()
