"""A crowded second walked by key (docs/api.md §5.11): every transaction of a demo database
stamped in one second, as `UPDATE t SET updated = GETDATE()` stamps a table, then the feed
followed from that second to its end. Per call: the records sent, the rows each query asked
for (the feed's row_count, as the database received it) and the time; then the totals.

    .venv/bin/jembatan demo-db --path bench/data/rows-200000/bench.sqlite3 --rows 200000
    .venv/bin/python bench/crowded_second.py bench/data/rows-200000/bench.sqlite3 [LIMIT] \
        2>/dev/null

The file is copied and the copy updated; the app runs in this process (Flask's test client,
SQLite), every query logged. Given an ODBC connection string instead of a file (a test
server's: its transactions are UPDATEd in place), the same against that database:

    .venv/bin/python bench/crowded_second.py "Driver=FreeTDS;Server=127.0.0.1;..." [LIMIT]

No target is asserted: the figures are printed.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from app import create_app

SECOND = ("2026-01-05", "10:00:00")  # before every settle delay


class Asked(logging.Handler):
    """The row_count of every feed query logged since the last take()."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, int]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("slow query") and ".changes" in record.args[0]:
            self.asked.append((record.args[0], int(record.args[2]["row_count"])))

    def take(self) -> list[tuple[str, int]]:
        out, self.asked = self.asked, []
        return out


STAMP_ALL = 'UPDATE "transactions" SET "tgl_update" = ?, "jam_update" = ?'


def crowded(source: str, tmp: Path) -> tuple[dict[str, str], int]:
    """The database settings of a copy of the file `source` (or of the ODBC database
    `source` itself) with every transaction stamped in SECOND, and how many there are."""
    if source.startswith("Driver="):
        import pyodbc

        con = pyodbc.connect(source, autocommit=True)
        count = con.execute(STAMP_ALL, *SECOND).rowcount
        con.close()
        return {"odbc": source}, count
    path = tmp / "crowded.sqlite3"
    shutil.copy(source, path)
    con = sqlite3.connect(path)
    with con:
        count = con.execute(STAMP_ALL, SECOND).rowcount
    con.close()
    return {"sqlite": str(path)}, count


def main(source: str, limit: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        database, count = crowded(source, Path(tmp))
        app = create_app({"database": database | {"prove_on_first_read": False},
                          "feed": {"settle_seconds": 30, "lookback_seconds": 600},
                          "log": {"slow_query": 1e-9}}).test_client()
        asked = Asked()
        logging.getLogger("jembatan").addHandler(asked)
        logging.getLogger("jembatan").setLevel(logging.WARNING)
        since = f"since={SECOND[0]}T{SECOND[1]}"
        query, sent, calls, largest, took = f"limit={limit}&fields=id&{since}", set(), 0, 0, []
        print(f"{count:,} transactions stamped {SECOND[0]} {SECOND[1]}, limit={limit}")
        while True:
            start = time.perf_counter()
            response = app.get(f"/transactions/changes?{query}")
            took.append(time.perf_counter() - start)
            assert response.status_code == 200, response.get_data(as_text=True)
            body, reads = response.get_json(), asked.take()
            calls += 1
            largest = max([largest, *(n for _, n in reads)])
            queries = ", ".join(f"{name.split('.')[1]} {n:,}" for name, n in reads)
            print(f"call {calls:3}: {len(body):6,} sent, queries {queries}; "
                  f"{took[-1]:.2f} s")
            if not body:
                break
            sent.update(r["id"] for r in body)
            query = f"limit={limit}&fields=id&after={response.headers['X-Bookmark']}"
        print(f"{len(sent):,} distinct records of {count:,} in {calls} calls; the most rows "
              f"a query asked for: {largest:,}; slowest call {max(took):.2f} s, all "
              f"{sum(took):.1f} s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/data/rows-200000/bench.sqlite3",
         int(sys.argv[2]) if len(sys.argv) > 2 else 10_000)
