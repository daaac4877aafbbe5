"""What a key's `fields` costs a read to plan (app/core/plan.py `Planner.within`, `check_on`,
`asked`; docs/keys.md "A key with fields"): the planning of a date range, a workbook's list
and a feed read by a key whose fields hold the `update` pair but not `cancelled`, beside the
same reads by a key without fields, and the two checks a plan of such a key makes
(`check_on`, `reads("cancelled")`) on their own. Planning is all the safeguard adds: the SQL
a read runs is the one it ran before (a workbook of such a key has one condition fewer,
cancelled=false).
No database is opened; each figure is the median of --rounds rounds of --calls plans, in
microseconds per plan.

    .venv/bin/python bench/key_fields.py [--rounds 7] [--calls 20000]

Run it in another tree (a checkout of the revision before, this file copied there) to
compare; nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.core.plan import Planner  # noqa: E402
from app.model import params  # noqa: E402
from app.model.collections import COLLECTIONS  # noqa: E402
from app.ops.config import ApiKey  # noqa: E402

FIELDS = ("id", "vehno", "tgl_update", "jam_update", "weigh1", "weigh2")
BOUNDS = params.date_range("2026-11-01", "00:00", "2026-11-30", "23:59:59")


def per_plan_us(plan: Callable[[], Any], rounds: int, calls: int) -> float:
    """The median over `rounds` of the time of one of `calls` plans, in microseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            plan()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    planner = Planner(next(c for c in COLLECTIONS if c.name == "transactions"))
    keys = {"no fields": ApiKey("all", b"\0" * 32, ("transactions",)),
            "fields": ApiKey("narrow", b"\1" * 32, ("transactions",), fields=FIELDS)}
    print(f"{'read':<18}{'key':<12}{'us/plan':>9}")
    for name, key in keys.items():
        scoped = planner.within(key)
        reads: dict[str, Callable[[], Any]] = {
            "range on=update": lambda p=scoped: p.range("update", BOUNDS),
            "workbook list": lambda p=scoped: p.all(leave_out=True),
            "feed on=update": lambda p=scoped: p.changes("update", {}),
        }
        if hasattr(scoped, "reads"):  # the checks themselves (absent before them)
            reads["the checks alone"] = lambda p=scoped: (p.check_on("update"),
                                                          p.reads("cancelled"))
        for read, plan in reads.items():
            print(f"{read:<18}{name:<12}{per_plan_us(plan, args.rounds, args.calls):>9.2f}")


if __name__ == "__main__":
    main()
