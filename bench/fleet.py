"""The warehouse over a fleet of plants, larger than the test (tests/test_warehouse_fleet.py
runs twelve plants of 300 to 20,000 transactions): `--plants` plants on SQLite, each a real
`jembatan serve` over a demo database, their sizes spread from `--smallest` to `--largest`
transactions, their zones taken in turn from ZONES, and with `--mssql` every fourth plant on
that T-SQL server (a database of its own, created and dropped). Writers insert, weigh out and
cancel tickets on every plant for `--seconds` while `jembatan warehouse load` runs in a loop
(the first run SIGKILLed mid-load, one run with a plant stopped); then the warehouse is
compared with the plants' tables (tests/fleet.py). Prints the plants, records, wall time,
pipeline runs, polls and the pipeline's peak memory, then the verdict; exit status 1 when
the warehouse differs.

    .venv/bin/python bench/fleet.py --plants 20 --largest 100000 --seconds 120
    .venv/bin/python bench/fleet.py --mssql "$JEMBATAN_TEST_MSSQL"
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import fleet  # noqa: E402  (the test's own harness)

ZONES = ("Asia/Jakarta", "Asia/Makassar", "Asia/Jayapura", "Asia/Kolkata", "Europe/Berlin",
         "America/Sao_Paulo", "Australia/Adelaide", "Pacific/Auckland", "America/New_York", "")
SCALES = (0.1, 0.05, 0.08, 0.03, 0.07)  # the PCs' clocks: 0.1 = 9 s behind, 3 s ahead


def specs(count: int, smallest: int, largest: int, mssql: bool) -> list[fleet.PlantSpec]:
    """`count` plants, sizes spread geometrically from `smallest` to `largest`."""
    out = []
    for i in range(count):
        rows = round(smallest * (largest / smallest) ** (i / max(1, count - 1)))
        on_tsql = mssql and i % 4 == 1
        out.append(fleet.PlantSpec(f"plant_{i:02d}", rows, "" if on_tsql else ZONES[i % 10],
                                   SCALES[i % len(SCALES)], "mssql" if on_tsql else "sqlite"))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the fleet; print the figures and the verdict."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--plants", type=int, default=20)
    p.add_argument("--smallest", type=int, default=500)
    p.add_argument("--largest", type=int, default=100_000)
    p.add_argument("--seconds", type=float, default=120, help="how long the writers write")
    p.add_argument("--page-size", type=int, default=1000)
    p.add_argument("--mssql", help="a T-SQL server's ODBC string: every fourth plant there "
                                   "(the login creates and drops a database per plant)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as work, \
            fleet.serving(specs(args.plants, args.smallest, args.largest, bool(args.mssql)),
                          Path(work), fleet.Servers(args.mssql)) as plants:
        _, figures, verdict = fleet.run(plants, Path(work), args.seconds, plants[len(plants) // 2],
                                        args.page_size)
        print(figures.text())
        print(verdict.text())
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
