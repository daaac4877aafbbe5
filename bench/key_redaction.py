"""What keeping the configured keys out of the access log costs (docs/deploy.md, "Logs").

    .venv/bin/python bench/key_redaction.py [--rounds N] [--requests N] [--calls N]

Two measures, each in paired rounds (the order swapped every round):

- the check alone: `redacted` of app/ops/logs.py on the paths of typical requests (a record,
  a list with filters, a date range, a page of a feed with its bookmark, and a path of
  sixteen segments, the most it joins across slashes), three ways: three keys given as
  text (api_keys, key = "..."), the same three known by their digest alone (key_sha256),
  and none (the access line as it was: the name rule alone), in microseconds a call;
- inside the service: GET requests through the Flask app (its test client, in one process,
  on a SQLite file of 1,000 transactions) of a record by id and of a date range, each
  sent with an API key, the same three ways, in requests/s.

Prints the medians and, for the service, each way's ratio to none per round: the median,
the lowest and the highest.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.ops import logs  # noqa: E402
from tests.conftest import build_database  # noqa: E402

KEYS = ["3a7f0c9e1b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d", "q3+Zx/9kT2mW8vYb1/LpR0sN==",
        "a-transporters-key-000001"]
BOOKMARK = "eyJvbiI6InVwZGF0ZSIsImQiOiIyMDI2LTExLTAxIiwidCI6IjA5OjQyOjAwIiwiaWQiOjQyfQ.x9Qe"
PATHS = {
    "record": "/transactions/42",
    "filtered list": "/transactions?vehno=B%201234%20XY&custcode=C017&fields=id,weigh1",
    "date range": "/transactions/date/2026-11-01/00:00/2026-11-30/23:59?on=update&page=2",
    "feed page": f"/transactions/changes?on=update&limit=1000&after={BOOKMARK}",
    "16 segments": "/" + "/".join(f"segment-{n:02d}" for n in range(16)),
}
REQUESTS = {"record": "/transactions/42",  # and ten records of a date range:
            "date range": "/transactions/date/2026-11-01/09:00:00/2026-11-01/09:00:09"}


WAYS = ("none", "texts", "digests")  # no key; the keys given as text; by key_sha256 alone


def keep(way: str) -> None:
    """The keys the log hides, as `way` has them."""
    for kept in (logs._HIDDEN, logs._TEXTS, logs._DIGESTS_ALONE):
        kept.clear()
    digests = [hashlib.sha256(k.encode()).digest() for k in KEYS]
    if way != "none":
        logs.hide_keys(digests, KEYS if way == "texts" else ())


def paired(rounds: int, run: dict[str, object]) -> dict[str, list[float]]:
    """Each way's figures over `rounds`, the ways' order turned each round."""
    figures: dict[str, list[float]] = {w: [] for w in WAYS}
    for n in range(rounds):
        for way in WAYS[n % 3:] + WAYS[:n % 3]:
            keep(way)
            figures[way].append(run[way]())  # type: ignore[operator]
    return figures


def check_alone(rounds: int, calls: int) -> None:
    print(f"redacted(path), {calls:,} calls a round, {rounds} rounds (median µs a call; "
          f"3 keys given as text, 3 by key_sha256, none):")
    for name, path in PATHS.items():
        def timed(path: str = path) -> float:
            started = time.perf_counter()
            for _ in range(calls):
                logs.redacted(path)
            return (time.perf_counter() - started) / calls * 1e6

        figures = paired(rounds, dict.fromkeys(WAYS, timed))
        medians = {w: statistics.median(f) for w, f in figures.items()}
        print(f"  {name:<14} texts {medians['texts']:6.2f}  digests {medians['digests']:6.2f}"
              f"  none {medians['none']:6.2f}")


def in_service(rounds: int, requests: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="key-redaction-"))
    rows = [{"id": n, "tgl_dt1": "2026-11-01", "jam_dt1": f"09:{n // 60:02d}:{n % 60:02d}",
             "tgl_update": "2026-11-15", "jam_update": "09:00:00", "vehno": f"B {n} XY",
             "weigh1": 1000.0 + n} for n in range(1, 1001)]
    database = build_database(work / "plant.sqlite3", {"transactions": rows})
    app = create_app({"database": {"sqlite": str(database), "prove_on_first_read": False},
                      "auth": {"api_keys": KEYS}})
    logging.getLogger("jembatan.access").setLevel(logging.INFO)
    logging.getLogger("jembatan").handlers[:] = [logging.NullHandler()]  # lines made, not shown
    client = app.test_client()
    headers = {"X-API-Key": KEYS[0]}
    print(f"through the app, {requests:,} requests a round, {rounds} rounds (median "
          f"requests/s; the ratio to none per round, median, lowest and highest):")
    for name, path in REQUESTS.items():
        def rate(path: str = path) -> float:
            started = time.perf_counter()
            for _ in range(requests):
                with client.get(path, headers=headers) as response:
                    assert response.status_code == 200
            return requests / (time.perf_counter() - started)

        figures = paired(rounds, dict.fromkeys(WAYS, rate))
        line = f"  {name:<11} none {statistics.median(figures['none']):6.0f}"
        for way in ("texts", "digests"):
            ratios = [k / w for k, w in zip(figures[way], figures["none"], strict=True)]
            line += (f"  {way} {statistics.median(figures[way]):6.0f} "
                     f"({statistics.median(ratios):.3f}, {min(ratios):.3f}-{max(ratios):.3f})")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    check_alone(args.rounds, args.calls)
    in_service(args.rounds, args.requests)


if __name__ == "__main__":
    main()
