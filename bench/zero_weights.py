"""What check-sql's warning of the weights of 0 costs a plant's database (app/commands/nulls.py
`zeros`; docs/adapting.md "A weighing not made, written as 0"): per weight of the weighing
shape, a count of the records whose weight is 0 or less and a page of the first of them,
beside what the NULL weights' warning already ran (the same two queries with `__isnull`);
and the printed net's comparison (app/commands/printed.py: the table's first 1,000 rows).
check-sql runs them when a person runs it; the service never does.

    .venv/bin/python bench/zero_weights.py bench/data/bench.sqlite3 [--rounds 5] 2>/dev/null

The file given is never changed: the run works on a copy (its size again beside it, or in
--work, removed at the end) in which `ZEROS` tickets, spread over the table, get a weigh2
of 0. No index holds a weight, so each count reads the whole table. On SQLite a count is kept per
connection while the database's data_version stays the same (app/database/db.py `count`):
each round first commits a change from another connection, as the weighbridge program does,
so that every count runs. Medians of `--rounds` rounds; nothing is asserted.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.commands import nulls, printed  # noqa: E402
from app.core.services import services  # noqa: E402
from app.model.collections import COLLECTIONS  # noqa: E402
from bench.left_out import median_ms  # noqa: E402  (the same timing as its sibling bench)

ZEROS = 25  # tickets given a weigh2 of 0, spread over the table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", type=Path, default=None,
                        help="where the copy is made (default: beside the file)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory(dir=args.work or args.database.parent) as work:
        copy = Path(work) / "zero.sqlite3"
        shutil.copyfile(args.database, copy)
        con = sqlite3.connect(copy)
        rows = con.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
        step = max(rows // ZEROS, 1)
        con.execute(f"UPDATE transactions SET weigh2 = 0 WHERE id IN (SELECT id FROM "
                    f"(SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM transactions) "
                    f"WHERE n % {step} = 0 LIMIT {ZEROS})")
        con.commit()

        def write() -> None:  # a commit from another connection: the kept counts go
            con.execute("UPDATE transactions SET remark = remark WHERE id = "
                        "(SELECT MIN(id) FROM transactions)")
            con.commit()

        app = create_app({"database": {"sqlite": str(copy), "prove_on_first_read": False},
                          "collections": {"serve": ["transactions"]}})
        db = services(app).db
        c = next(c for c in COLLECTIONS if c.name == "transactions")
        print(f"{rows:,} transactions, {ZEROS} with weigh2 0, SQLite, medians of "
              f"{args.rounds} rounds")
        for label, measure in (
                ("NULL dates and weights (before)", lambda: nulls.warnings(db, c, [])),
                ("weights of 0 (added)", lambda: nulls.zeros(db, c, [])),
                ("printed net (added)", lambda: printed.warnings(db, c, "sqlite"))):
            ms, lines = median_ms(measure, args.rounds, write)
            print(f"  {label:<34} {ms:9.1f} ms  ({len(lines)} line{'s' * (len(lines) != 1)})")
        started = time.perf_counter()
        result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
        print(f"  {'check-sql transactions, whole':<34} "
              f"{(time.perf_counter() - started) * 1000:9.1f} ms  (exit {result.exit_code})")
        con.close()


if __name__ == "__main__":
    main()
