"""What the metrics and the access log cost a request, measured in one process, no HTTP.

    .venv/bin/python bench/features.py [SQLITE_FILE] [ROUNDS]

Builds Jembatan's app as wsgi.py does, with PROMETHEUS_MULTIPROC_DIR set (a temporary
directory: the files every gunicorn worker writes), the access log to a file, and asks it
for random records by id through Flask's test client: in each round, in turn, with both,
without the metrics (bench/variant.py's way) and without the access line. Prints each
variant's µs a request in each round (the quickest batch of 25 in 1.5 s) and the paired
median of the differences. A check of
`make bench`'s contenders nometrics and nolog, free of gunicorn and of the socket: on a
noisy machine its differences are steadier than two servers' req/s.
"""

from __future__ import annotations

import logging
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="jembatan-features-")
db = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "bench/data/bench.sqlite3").resolve()
config = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]) / "bench.toml"
config.write_text(f'[database]\nsqlite = "{db}"\n')
os.environ["JEMBATAN_CONFIG"] = str(config)
sys.path.insert(0, str(ROOT))
log_file = open(Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]) / "access.log", "w")  # noqa: SIM115
sys.stderr = log_file  # where the access lines go (app/ops/logs.py writes to sys.stderr)

from app import create_app  # noqa: E402
from app.core.services import services  # noqa: E402

ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
SECONDS = 1.5
BATCH = 25


def main() -> None:
    app = create_app()
    client = app.test_client()
    metrics = services(app).metrics
    access = logging.getLogger("jembatan.access")
    rng = random.Random(1)
    count = int(client.get("/transactions/page/1?page_size=1").headers["X-Pagination"]
                .split('"total":')[1].split(",")[0])

    def run() -> float:
        """µs a request: the quickest of the batches of BATCH requests run in SECONDS (a
        batch that other work on the machine interrupted is slower, never quicker)."""
        best, started = float("inf"), time.perf_counter()
        while time.perf_counter() - started < SECONDS:
            ids = [rng.randint(1, count) for _ in range(BATCH)]
            began = time.perf_counter()
            for key in ids:
                client.get(f"/transactions/{key}").close()
            best = min(best, (time.perf_counter() - began) / BATCH)
        return 1e6 * best

    def without_metrics() -> float:
        kept = {name: getattr(metrics, name) for name in ("request", "query")}
        for name in kept:
            setattr(metrics, name, lambda *a, **k: None)
        try:
            return run()
        finally:
            for name in kept:
                delattr(metrics, name)

    def without_log() -> float:
        access.setLevel(logging.WARNING)
        try:
            return run()
        finally:
            access.setLevel(logging.NOTSET)

    run()  # warm
    rounds = []
    for n in range(ROUNDS):
        both, no_metrics, no_log = run(), without_metrics(), without_log()
        rounds.append((both, no_metrics, no_log))
        print(f"round {n + 1}: Jembatan {both:.1f} µs, without metrics {no_metrics:.1f} µs, "
              f"without the access log {no_log:.1f} µs", file=sys.__stdout__, flush=True)
    print(f"metrics: {statistics.median(b - m for b, m, _ in rounds):.1f} µs a request; "
          f"access log: {statistics.median(b - g for b, _, g in rounds):.1f} µs a request "
          f"(paired medians of {ROUNDS} rounds)", file=sys.__stdout__)


if __name__ == "__main__":
    main()
