"""What saying what a summary leaves out costs (docs/api.md §7, "What a summary leaves out";
app/core/leftout.py): beside each summary, up to four count queries (the cancelled tickets
of the range, the records with no main date, and those of the range missing a weight), on a
large demo database, with and without the (date, time, id) indexes of the date pairs.

    .venv/bin/python bench/left_out.py [bench/data/bench.sqlite3] [--rounds 5] 2>/dev/null
    .venv/bin/python bench/left_out.py bench/data/bench.sqlite3 --tsql "$ODBC" 2>/dev/null

Per range (a day, a month, the demo's whole span) of `transactions` on dt1, by=day: the
database time of the summary's own query (read whole) and of the counting (`of_read`),
medians of `--rounds` rounds. On SQLite the counts are kept per connection for as long as
the database's data_version stays the same (app/database/db.py `count`): each round first
commits a change from another connection, as a plant's weighbridge program does, so that
every count runs ("after a write"), then counts again with nothing new ("nothing new").

The file given is never changed: the run works on a copy (its size again beside it, removed
at the end) in which `NULLS` tickets get a NULL tgl_dt1, then on the same copy with the
date indexes dropped. With `--tsql`, `transactions` on that T-SQL server is loaded from the
file as bench/tsql.py `load` loads it (with its indexes), the same tickets made NULL, then
the date indexes are dropped for the second run and made again after it. Nothing is
asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.core.leftout import of_read  # noqa: E402
from app.core.plan import Planner  # noqa: E402
from app.core.services import services  # noqa: E402
from app.model import params, tables  # noqa: E402
from app.model.collections import COLLECTIONS  # noqa: E402

NULLS = 25  # tickets given a NULL tgl_dt1, spread over the table
DATE_INDEXES = tuple(i.name for i in tables.indexes()
                     if i.table == "transactions" and i.name.split("_", 1)[1] in
                     ("dt1", "dt2", "create", "update"))


def median_ms(measure: Callable[[], Any], rounds: int, before: Callable[[], None]
              ) -> tuple[float, Any]:
    """The median time of `measure` in ms over `rounds`, `before` run (untimed) each time;
    and its last answer."""
    times, answer = [], None
    for _ in range(rounds):
        before()
        start = time.perf_counter()
        answer = measure()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), answer


def ranges(first: dt.date, last: dt.date) -> list[tuple[str, dict[str, Any]]]:
    """A day, a month and the whole span of the data, as the API's bounds."""
    day = last.isoformat()
    month = last.replace(day=1).isoformat()
    return [(f"a day ({day})", params.date_range(day, "00:00", day, "23:59:59")),
            (f"a month ({month[:7]})", params.date_range(month, "00:00", day, "23:59:59")),
            (f"all ({first} to {last})",
             params.date_range(first.isoformat(), "00:00", day, "23:59:59"))]


def run(database: dict[str, Any], span: tuple[dt.date, dt.date], rounds: int,
        write: Callable[[], None], label: str) -> None:
    app = create_app({"database": database | {"prove_on_first_read": False}})
    runner = services(app).runner
    planner = Planner(next(c for c in COLLECTIONS if c.name == "transactions"))
    print(f"\n{label}")
    print(f"  {'range':<34} {'summary':>10} {'counting':>10} {'nothing new':>12}  left out")
    for name, bounds in ranges(*span):
        read = planner.summary("dt1", bounds, ["day"])
        summary, _ = median_ms(lambda read=read: runner.run(read).values, rounds, write)
        counting, found = median_ms(lambda read=read: of_read(runner, planner, read),
                                    rounds, write)
        again, _ = median_ms(lambda read=read: of_read(runner, planner, read), rounds,
                             lambda: None)
        said = ", ".join(f"{i.reason.name} {i.records}" for i in found)
        print(f"  {name:<34} {summary:>8.1f}ms {counting:>8.1f}ms {again:>10.1f}ms  {said}")


def sqlite_runs(source: Path, rounds: int) -> None:
    copy = source.with_name(f".left-out-{source.name}")
    shutil.copyfile(source, copy)
    try:
        con = sqlite3.connect(copy, isolation_level=None)
        total = con.execute('SELECT COUNT(*) FROM "transactions"').fetchone()[0]
        step = total // NULLS
        con.execute(f'UPDATE "transactions" SET "tgl_dt1" = NULL WHERE "id" % {step} = 0')
        first, last = (dt.date.fromisoformat(v) for v in con.execute(
            'SELECT MIN("tgl_dt1"), MAX("tgl_dt1") FROM "transactions"').fetchone())

        def write() -> None:  # a change committed by another connection: new data_version
            # (a value written as it was changes no page, and so not the version either)
            con.execute('UPDATE "transactions" SET "remark" = CASE WHEN "remark" = \'a\' '
                        'THEN \'b\' ELSE \'a\' END WHERE "id" = 1')

        print(f"SQLite (sqlite3), {total:,} transactions, {NULLS} of them with a NULL tgl_dt1; "
              f"medians of {rounds}")
        run({"sqlite": str(copy)}, (first, last), rounds, write,
            "with the date indexes (transactions_dt1: tgl_dt1, jam_dt1, id; ...)")
        for index in DATE_INDEXES:
            con.execute(f'DROP INDEX "{index}"')
        run({"sqlite": str(copy)}, (first, last), rounds, write,
            f"without them ({', '.join(DATE_INDEXES)} dropped)")
        con.close()
    finally:
        copy.unlink(missing_ok=True)


def tsql_runs(source: Path, odbc: str, rounds: int) -> None:
    import pyodbc

    from bench.tsql import load

    total = load(odbc, source)
    conn = pyodbc.connect(odbc, autocommit=True)
    step = total // NULLS
    conn.execute(f'UPDATE "transactions" SET "tgl_dt1" = NULL WHERE "id" % {step} = 0')
    first, last = conn.execute('SELECT MIN("tgl_dt1"), MAX("tgl_dt1") FROM "transactions"'
                               ).fetchone()
    first, last = (v if isinstance(v, dt.date) else dt.date.fromisoformat(str(v)[:10])
                   for v in (first, last))
    print(f"\nThe T-SQL server (Babelfish, FreeTDS), {total:,} transactions, {NULLS} with a "
          f"NULL tgl_dt1; medians of {rounds} (counts are not kept there: every one runs)")
    run({"odbc": odbc}, (first, last), rounds, lambda: None, "with the date indexes")
    for index in DATE_INDEXES:
        conn.execute(f'DROP INDEX "{index}" ON "transactions"')
    try:
        run({"odbc": odbc}, (first, last), rounds, lambda: None, "without them")
    finally:
        for statement in tables.index_statements("mssql"):
            if any(f'"{index}"' in statement for index in DATE_INDEXES):
                conn.execute(statement)
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", nargs="?", type=Path,
                        default=ROOT / "bench" / "data" / "bench.sqlite3")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tsql", help="an ODBC string of a T-SQL server to load and run on")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    if args.tsql:
        tsql_runs(args.database, args.tsql, args.rounds)
    else:
        sqlite_runs(args.database, args.rounds)


if __name__ == "__main__":
    main()
