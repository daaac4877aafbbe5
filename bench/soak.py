"""Load and soak: gunicorn as deployed (several workers and threads), 32 concurrent clients,
a fixed number of requests over a mix of every endpoint kind, full-table streams included.

    .venv/bin/python bench/soak.py                      # 20,000 requests on the demo data
    .venv/bin/python bench/soak.py --requests 2000 --database instance/demo.sqlite3

Reports requests, errors (must be 0), p50/p99 latency and the workers' RSS at start and end.
Every body is checked: JSON that parses to the expected number of records, CSV complete.
tests/test_soak.py runs a short version of it in `make test`.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import gunicorn  # noqa: E402  (the same launcher the tests use)

DEPLOYED = ("--workers", "2", "--threads", "4", "--timeout", "120")


@dataclass
class Outcome:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    count: int = 0


def worker_rss(master_pid: int) -> int:
    """Sum of the RSS (kB) of the gunicorn master's workers (its child processes but the
    proof at start, app/console/prover.py, which ends once it has proven)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(") ", 1)[1].split()[1])
            if parent == master_pid and b"app.console.prover" not in (
                    stat.parent / "cmdline").read_bytes():
                status = (stat.parent / "status").read_text()
                total += int(next(line.split()[1] for line in status.splitlines()
                                  if line.startswith("VmRSS:")))
        except (OSError, IndexError, ValueError, StopIteration):
            continue
    return total


def plan(database: Path, rng: random.Random) -> list[tuple[str, Callable[[requests.Response],
                                                                          str | None]]]:
    """(path, check) pairs covering every endpoint kind, with what each body must hold."""
    con = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    counts = {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
              for t in ("customers", "products", "vehicles", "transactions", "bricon2",
                        "weighing")}
    ids = [r[0] for r in con.execute('SELECT "id" FROM "transactions" ORDER BY random() '
                                     'LIMIT 200')]
    days = [r[0] for r in con.execute('SELECT DISTINCT "tgl_dt1" FROM "transactions" '
                                      'WHERE "tgl_dt1" IS NOT NULL ORDER BY 1')]
    con.close()

    def records(n: int | None) -> Callable[[requests.Response], str | None]:
        def check(r: requests.Response) -> str | None:
            if r.status_code != 200:
                return f"status {r.status_code}"
            body = r.json()
            if n is not None and len(body) != n:
                return f"{len(body)} records, expected {n}"
            return None
        return check

    def one(r: requests.Response) -> str | None:
        return None if r.status_code == 200 and isinstance(r.json(), dict) else (
            f"status {r.status_code}")

    def csv_rows(n: int) -> Callable[[requests.Response], str | None]:
        def check(r: requests.Response) -> str | None:
            lines = r.content.count(b"\r\n")
            return None if r.status_code == 200 and lines >= n + 1 else f"{lines} CSV lines"
        return check

    mix: list[tuple[str, Callable[[requests.Response], str | None]]] = []
    for _ in range(30):
        mix.append((f"/transactions/{rng.choice(ids)}", one))
        page = rng.randint(1, max(1, counts["transactions"] // 100))
        expected = min(100, counts["transactions"] - (page - 1) * 100)
        mix.append((f"/transactions/page/{page}", records(expected)))
        day = rng.choice(days)
        mix.append((f"/transactions/date/{day}/00:00/{day}/23:59:59", records(None)))
        mix.append((f"/transactions/date/{day}/00:00/{day}/23:59:59?page=1&page_size=50",
                    records(None)))
        mix.append((f"/weighing/{rng.randint(1, counts['weighing'])}", one))
        mix.append((f"/vehicles/page/1?page_size={rng.randint(1, 50)}", records(None)))
        mix.append(("/health", lambda r: None if r.status_code == 200 else "unhealthy"))
    mix.append(("/customers", records(counts["customers"])))
    mix.append(("/products?format=csv", csv_rows(counts["products"])))
    mix.append(("/bricon2", records(counts["bricon2"])))
    mix.append(("/transactions", records(counts["transactions"])))  # a full-table stream
    mix.append(("/vehicles?fields=id,Number,CreatedDate", records(counts["vehicles"])))
    return mix


def run_soak(base: str, database: Path, total: int, clients: int = 32,
             seed: int = 2026) -> Outcome:
    rng = random.Random(seed)
    mix = plan(database, rng)
    jobs = [rng.choice(mix) for _ in range(total)]
    outcome = Outcome()
    lock = threading.Lock()
    position = iter(range(total))

    def client() -> None:
        session = requests.Session()
        while True:
            with lock:
                i = next(position, None)
            if i is None:
                return
            path, check = jobs[i]
            start = time.monotonic()
            try:
                response = session.get(base + path, timeout=120)
                problem = check(response)
            except (requests.RequestException, ValueError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
            took = time.monotonic() - start
            with lock:
                outcome.count += 1
                outcome.latencies.append(took)
                if problem:
                    outcome.errors.append(f"{path}: {problem}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=3600)
    return outcome


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] if ordered else 0.0


def report(outcome: Outcome, rss_start: int, rss_end: int, seconds: float) -> dict[str, object]:
    return {"requests": outcome.count, "errors": len(outcome.errors),
            "first_errors": outcome.errors[:5],
            "p50_ms": round(statistics.median(outcome.latencies) * 1000, 1),
            "p99_ms": round(percentile(outcome.latencies, 0.99) * 1000, 1),
            "requests_per_s": round(outcome.count / seconds, 1),
            "rss_start_kb": rss_start, "rss_end_kb": rss_end,
            "rss_growth_pct": round(100 * (rss_end - rss_start) / max(rss_start, 1), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--database", type=Path, default=ROOT / "instance" / "demo.sqlite3")
    args = parser.parse_args()
    if not args.database.is_file():
        sys.exit(f"{args.database} does not exist: make demo-db (or pass --database)")
    with tempfile.TemporaryDirectory() as work, gunicorn(
            Path(work), {"JEMBATAN_SQLITE": str(args.database.resolve())}, *DEPLOYED) as server:
        # Warm up with the same mix first: every thread's connection and page cache, and
        # the allocator's high-water mark after a full-table stream, are there before the
        # first reading, so that the growth measured is what stays (a leak), not start-up.
        warm = run_soak(server.base, args.database, max(1000, args.requests // 10),
                        args.clients, seed=1)
        if warm.errors:
            sys.exit(f"errors while warming up: {warm.errors[:5]}")
        rss_start = worker_rss(server.process.pid)
        start = time.monotonic()
        # In two halves: growth that is only caches filling (SQLite's page cache, 2 MB a
        # connection) shows in the first half and stops; a leak goes on in the second.
        first = run_soak(server.base, args.database, args.requests // 2, args.clients)
        rss_half = worker_rss(server.process.pid)
        second = run_soak(server.base, args.database, args.requests - args.requests // 2,
                          args.clients, seed=2027)
        seconds = time.monotonic() - start
        rss_end = worker_rss(server.process.pid)
    outcome = Outcome(first.latencies + second.latencies, first.errors + second.errors,
                      first.count + second.count)
    figures = report(outcome, rss_start, rss_end, seconds)
    figures["rss_half_kb"] = rss_half
    figures["rss_growth_second_half_pct"] = round(100 * (rss_end - rss_half) / rss_half, 1)
    print(json.dumps(figures, indent=2))
    sys.exit(1 if outcome.errors else 0)


if __name__ == "__main__":
    main()
