"""What exact figures cost (docs/api.md §7, "Exact figures"): a weighing summary over a large
range with each weight CAST to decimal(18, 3) before it is summed (this tree's
sql/shapes.sql; whole grams on SQLite) against the same summary summed as float (the
shapes.sql of --before, main by default), in paired rounds in one process.

    .venv/bin/python bench/exact_sums.py [--rows 1000000] [--days 365] [--rounds 7]
                                         [--before main] [--tsql ODBC] [--tsql-rows 200000]

Builds a demo database of --rows transactions under bench/data (reused when there), its
exit weights and deductions given grams (0.05 and 0.1 kg steps, as
tests/test_warehouse_figures.py does: their float sums are noisy), and makes two apps over
it in this process, this tree's code in both: "before" with an sql_dir that holds the
shipped collection files and the shapes.sql of --before, "after" with this tree's. Each
round asks both for the summary of the table's last --days days (GET
/transactions/summary/<first>/00:00/<last>/23:59:59) by day and by productcode,direction
(the whole request through the test client: the query, the groups as Decimals or floats,
the JSON), the side asked
first alternating; it prints per side the best and median seconds, and the median of the
rounds' after/before ratios with their lowest and highest. With --tsql (the string
../shared/tsql/start printed), the same on that T-SQL server, the first --tsql-rows rows
loaded with bench/tsql.py's load (Driver 18) and read through FreeTDS.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from app import create_app  # noqa: E402
from app.commands.demo import build_demo_database  # noqa: E402
from app.ops.config import SHIPPED_SQL_DIR  # noqa: E402

DATA = ROOT / "bench" / "data"
BYS = ("day", "productcode,direction")


def database(rows: int) -> Path:
    """The demo database of `rows` transactions, with grams in its weights and deductions."""
    path = DATA / f"exact-{rows}.sqlite3"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        build_demo_database(path, rows=rows)
        con = sqlite3.connect(path)
        with con:
            con.execute('UPDATE "transactions" SET "weigh2" = '
                        'ROUND("weigh2" + 0.05 * ("id" % 7), 3)')
            con.execute('UPDATE "transactions" SET "adjustweigh" = '
                        'ROUND("adjustweigh" + 0.1 * ("id" % 10), 3)')
        con.close()
    return path


def before_sql(revision: str, into: Path) -> Path:
    """An sql_dir of the shipped collection files and the shapes.sql of `revision`."""
    shutil.copytree(SHIPPED_SQL_DIR, into)
    text = subprocess.run(["git", "show", f"{revision}:sql/shapes.sql"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    (into / "shapes.sql").write_text(text)
    return into


def span(path: Path, days: int, rows: int | None = None) -> tuple[str, str]:
    """The last `days` days of the table's entry weighings (of its first `rows` rows)."""
    con = sqlite3.connect(path)
    last, = con.execute('SELECT MAX("tgl_dt1") FROM "transactions" WHERE "id" <= ?',
                        (rows or 1 << 62,)).fetchone()
    con.close()
    first = dt.date.fromisoformat(last) - dt.timedelta(days=days - 1)
    return first.isoformat(), last


def measure(clients: dict[str, Any], url: str, rounds: int) -> dict[str, Any]:
    """Paired rounds of one summary on both sides: seconds per side, after/before ratios."""
    times: dict[str, list[float]] = {side: [] for side in clients}
    sizes = {}
    for side, client in clients.items():  # a warm-up, and the answer's size
        answer = client.get(url)
        assert answer.status_code == 200, answer.data[:300]
        sizes[side] = (len(answer.get_json()), len(answer.data))
    for n in range(rounds):
        order = list(clients) if n % 2 == 0 else list(reversed(clients))
        for side in order:
            start = time.perf_counter()
            answer = clients[side].get(url)
            times[side].append(time.perf_counter() - start)
            assert answer.status_code == 200
    ratios = [a / b for a, b in zip(times["after"], times["before"], strict=True)]
    return {"sizes": sizes, "best": {s: min(t) for s, t in times.items()},
            "median": {s: statistics.median(t) for s, t in times.items()},
            "ratio": (statistics.median(ratios), min(ratios), max(ratios))}


def run_engine(name: str, settings: dict[str, Any], first: str, last: str, sql_before: Path,
               rounds: int) -> list[str]:
    clients = {"before": create_app({"database": settings | {"sql_dir": str(sql_before),
                                                             "prove_on_first_read": False}}
                                    ).test_client(),
               "after": create_app({"database": settings | {"prove_on_first_read": False}}
                                   ).test_client()}
    lines = []
    for by in BYS:
        url = f"/transactions/summary/{first}/00:00/{last}/23:59:59?by={by}"
        found = measure(clients, url, rounds)
        groups, size = found["sizes"]["after"]
        ratio, low, high = found["ratio"]
        lines.append(f"| {name} | {by} | {groups} | {size:,} | "
                     f"{found['best']['before']:.3f} / {found['median']['before']:.3f} | "
                     f"{found['best']['after']:.3f} / {found['median']['after']:.3f} | "
                     f"{ratio:.3f} ({low:.3f}-{high:.3f}) |")
        print(lines[-1], flush=True)
    return lines


def tsql_settings(base: str, path: Path, rows: int) -> dict[str, Any]:
    """The first `rows` rows of `path` loaded into the T-SQL server of `base` (the string
    ../shared/tsql/start prints; its ten tables made again); its settings through FreeTDS."""
    import tsql

    part = DATA / f"exact-{rows}-part.sqlite3"
    if not part.exists():
        shutil.copy(path, part)
        con = sqlite3.connect(part)
        with con:
            con.execute(f'DELETE FROM "transactions" WHERE "id" > {rows}')
        con.close()
    tsql.load(base, part)
    return {"odbc": tsql.connection(base, "freetds")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", default="main")
    parser.add_argument("--tsql", metavar="ODBC", help="a T-SQL server's string, as "
                        "../shared/tsql/start prints it (its ten tables are made again)")
    parser.add_argument("--tsql-rows", type=int, default=200_000)
    parser.add_argument("--days", type=int, default=365, help="the range: the table's last "
                        "days (of entry weighing)")
    args = parser.parse_args()
    path = database(args.rows)
    first, last = span(path, args.days)
    print(f"{args.rows:,} transactions, the summary of {first} to {last}; before: "
          f"{args.before}'s "
          f"shapes.sql, after: this tree's; {args.rounds} paired rounds\n")
    print("| engine | by | groups | bytes | before s (best / median) | after s (best / median)"
          " | after / before (median, range) |\n|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as work:
        sql_before = before_sql(args.before, Path(work) / "sql")
        run_engine("sqlite3", {"sqlite": str(path)}, first, last, sql_before, args.rounds)
        if args.tsql:
            settings = tsql_settings(args.tsql, path, args.tsql_rows)
            t_first, t_last = span(path, args.days, args.tsql_rows)
            run_engine(f"T-SQL ({args.tsql_rows:,} rows)", settings, t_first, t_last,
                       sql_before, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
