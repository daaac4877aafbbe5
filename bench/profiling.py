"""Where the time goes: py-spy against Jembatan's one-worker gunicorn.

    BENCH_ONLY=profile .venv/bin/python bench/run.py     (BENCH_DB names the SQLite file)

Part of `make bench` (bench/run.py's part "profile"). Starts gunicorn (one sync worker,
pinned to core 0, sqlite3) on the benchmark database and records its worker with
`py-spy record --format speedscope` twice: while wrk drives row by id, and while one
full-table stream (GET /transactions) runs. Prints the top 15 functions by own time of each;
the speedscope files are left in bench/data/ (open them in speedscope). The lists go into
RESULTS.md ("Where the time goes"). Not named profile.py: `import profile` would be the
standard library's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import harness
from harness import CLIENT_CORE, ROOT, SERVER_CORE, Server

PY_SPY = Path(".venv/bin/py-spy")
OUT = ROOT / "bench" / "data"
TOP = 15


# Functions that only wait (for a lock, the next connection, a thread). py-spy leaves idle
# threads out, but not always a thread blocked in one of these: they are counted apart.
WAITING = {"Condition.wait", "Event.wait", "Thread.join", "SyncWorker.wait", "wait"}


def own_time(speedscope: Path, top: int = TOP) -> dict[str, Any]:
    """Functions by own time (the innermost frame of each sample), every thread together,
    as a share of the samples that were not waiting."""
    data = json.loads(speedscope.read_text())
    frames = data["shared"]["frames"]
    own: Counter[tuple[str, str]] = Counter()
    busy = waiting = 0.0
    for prof in data["profiles"]:
        for stack, weight in zip(prof["samples"], prof["weights"], strict=True):
            if not stack:
                continue
            frame = frames[stack[-1]]
            if frame["name"] in WAITING:
                waiting += weight
                continue
            own[(frame["name"], _short(frame.get("file", "")))] += weight
            busy += weight
    return {"busy_seconds": busy, "waiting_seconds": waiting,
            "top": [{"function": name, "file": file, "own_percent": 100 * w / busy}
                    for (name, file), w in own.most_common(top)]}


def _short(path: str) -> str:
    """app/database/db.py, flask/app.py, <built-in>: enough to tell where a frame is."""
    for marker in ("site-packages/", "/lib/python3."):
        if marker in path:
            rest = path.split(marker, 1)[1]
            return rest.split("/", 1)[1] if marker.startswith("/lib") else rest
    root = str(ROOT) + "/"
    return path[len(root):] if path.startswith(root) else path


def py_spy_argv(pid: int | str, out: Path | str) -> list[str]:
    return [str(PY_SPY), "record", "--pid", str(pid), "--rate", "200", "--format", "speedscope",
            "--output", str(out)]


class Recording:
    """py-spy record of one process until stopped (SIGINT makes py-spy write its file)."""

    def __init__(self, pid: int, out: Path):
        self.out = out
        out.unlink(missing_ok=True)
        self.argv = py_spy_argv(pid, out)
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True)
        time.sleep(1.0)  # py-spy attaches

    def stop(self) -> dict[str, Any]:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        if not self.out.is_file():
            raise RuntimeError(f"py-spy wrote no profile: {err.decode(errors='replace')}")
        return own_time(self.out)


def show(title: str, found: dict[str, Any]) -> None:
    print(f"   {title}: top {len(found['top'])} functions by own time "
          f"({found['busy_seconds']:.1f} s of samples busy, {found['waiting_seconds']:.1f} s "
          f"waiting, left out)", flush=True)
    for r in found["top"]:
        print(f"   {r['own_percent']:5.1f} %  {r['function']}  ({r['file']})", flush=True)


def profile(plan: dict[str, Any], seconds: float) -> dict[str, Any]:
    db = (ROOT / plan["db"]).resolve()  # the config resolves paths against its own folder
    config = OUT / "jembatan-profile.toml"
    config.write_text(f'# Written by bench/profiling.py\n[database]\nsqlite = "{db}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    env["JEMBATAN_CONFIG"] = str(config)
    port = harness.free_port()
    argv = [".venv/bin/gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
            "--threads", "1", "--timeout", "300", "wsgi:app"]  # one sync worker
    out: dict[str, Any] = {}
    with Server("Jembatan (profiled)", argv, port, "/health", env, SERVER_CORE,
                worker_processes=True, log=OUT / "logs" / "profile.log") as server:
        (worker,) = server.pids()
        out["command"] = server.command
        out["py_spy"] = " ".join(py_spy_argv("<worker pid>", "bench/data/profile-*.json"))

        rec = Recording(worker, OUT / "profile-row.speedscope.json")
        try:
            harness.wrk(port, "row.lua", ["/transactions/{id}", plan["max_id"]], seconds, 0,
                        cores=CLIENT_CORE)
        finally:
            out["row"] = rec.stop()
        show("row by id (wrk, 4 connections)", out["row"])

        rec = Recording(worker, OUT / "profile-stream.speedscope.json")
        try:
            harness.stream(port, "/transactions", [worker], plan["rows"], "json")
        finally:
            out["stream"] = rec.stop()
        show("full-table stream (GET /transactions)", out["stream"])
    return out

