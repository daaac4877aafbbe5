"""The limit: what Jembatan does for each work, minus HTTP, in one process.

The same named queries (sql/transactions.sql as app.database.queries loads it, in its sqlite
dialect, which is also what Jembatan runs over the SQLite ODBC driver), the same parameters
(app.model.params), binding (app.database.db.bind) and fetch size (app.database.db.FETCH_SIZE), and
the same RecordEncoder, used the way app/core/reads.py uses them: a page asks for the table's count
first (kept while SQLite's data_version holds, as app.database.db.Database.count keeps it); a range
and the full table are read in batches and each batch is encoded and joined into one array
(or, for the work `csv`, written as CSV lines after a header).
No Flask, no gunicorn, no socket.

    taskset -c 0 .venv/bin/python bench/limit.py PLAN.json sqlite3|pyodbc WORK...

(bench/run.py writes the plan, bench/data/plan.json: the database, the seconds per work and
the ranges the works draw from.)

prints one JSON object: per work, operations (or rows) per second and latency.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from app.core import bookmarks, feed
from app.core.summaries import SummaryEncoder
from app.database.db import FETCH_SIZE, bind
from app.database.filters import Filter
from app.database.loading import load_queries
from app.database.templates import Where
from app.formats.encoding import RecordEncoder
from app.model import params
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR, FeedSettings

TRANSACTIONS = next(c for c in COLLECTIONS if c.name == "transactions")
# The bookmark secret of the benchmark's servers ([feed] bookmark_secrets of bench/run.py's
# configs), with which the feed poll's token is signed.
BOOKMARK_SECRET = "the benchmark's own bookmark secret"
SECRETS = (BOOKMARK_SECRET.encode(),)


def odbc_string(path: Path | str) -> str:
    return f"Driver=SQLite3;Database={Path(path).resolve()};StepAPI=1"


class Limit:
    """Jembatan's work for the `transactions` collection on one connection."""

    def __init__(self, db_path: str, driver: str):
        self.queries = load_queries(SHIPPED_SQL_DIR, COLLECTIONS)
        self.encoder = RecordEncoder(TRANSACTIONS.schema)
        if driver == "sqlite3":  # as app.database.db.Database._connect opens it
            uri = Path(db_path).resolve().as_uri() + "?mode=ro"
            self.conn = sqlite3.connect(uri, uri=True, isolation_level=None)
            self.typed = False
        else:
            import pyodbc

            self.conn = pyodbc.connect(odbc_string(db_path), autocommit=True, readonly=True)
            self.typed = True
        self.counts: dict[Any, tuple[Any, int]] = {}
        self.summaries: dict[tuple[str, ...], SummaryEncoder] = {}

    def execute(self, name: str, values: dict[str, Any] | None = None,
                stem: str = "transactions", where: Where | None = None,
                by: tuple[str, ...] = ()) -> Any:
        query = self.queries.get(stem, name, "sqlite", where, by)
        values = {**(values or {}), **(where.values if where else {})}
        cursor = self.conn.cursor()
        cursor.execute(query.sql, bind(values, query.params, self.typed))
        return cursor

    def batches(self, cursor: Any) -> Iterator[list[Any]]:
        try:
            while rows := cursor.fetchmany(FETCH_SIZE):
                yield rows
        finally:
            cursor.close()

    def columns(self, cursor: Any) -> tuple[str, ...]:
        return tuple(d[0] for d in cursor.description)

    def read(self, name: str, values: dict[str, Any], limit: int | None = None,
             where: Where | None = None) -> bytes:
        """A page or one record: read whole, then encoded (reads.Runner._rows)."""
        cursor = self.execute(name, values, where=where)
        columns = self.columns(cursor)
        rows = [row for batch in self.batches(cursor) for row in batch]
        return self.encoder.encode(columns, rows[:limit], None)

    def stream(self, name: str, values: dict[str, Any] | None = None,
               where: Where | None = None) -> tuple[int, int]:
        """A streamed result (reads.Runner._all): each batch encoded, joined into one array.
        Returns (records, bytes); the bytes are counted, not kept."""
        cursor = self.execute(name, values, where=where)
        columns = self.columns(cursor)
        records, size = 0, 2  # "[" and "]"
        for rows in self.batches(cursor):
            array = self.encoder.encode(columns, rows, None if where else records + 1)
            size += len(array[1:-1] if records == 0 else b"," + array[1:-1])
            records += len(rows)
        return records, size

    def stream_csv(self, name: str, values: dict[str, Any] | None = None) -> tuple[int, int]:
        """A streamed result as CSV (reads.Runner._all, formats.CSV): the header, then each
        batch's lines. Returns (records, bytes)."""
        cursor = self.execute(name, values)
        columns = self.columns(cursor)
        records, size = 0, len(self.encoder.csv_header().encode())
        for rows in self.batches(cursor):
            size += len(self.encoder.csv(self.encoder.values(columns, rows, records + 1))
                        .encode())
            records += len(rows)
        return records, size

    # -- the works ---------------------------------------------------------------------

    def row(self, key: int) -> int:
        return len(self.read("by_key", {"key": key}, limit=1)[1:-1])

    def count(self, where: Where | None = None) -> int:
        version = self.execute("version", stem="database").fetchone()[0]
        key = "count" if where is None else (where.shape, tuple(where.values.items()))
        kept = self.counts.get(key)
        if kept is not None and kept[0] == version:
            return kept[1]
        total = int(self.execute("count", where=where).fetchone()[0])
        self.counts[key] = (version, total)
        return total

    def page(self, page: int, page_size: int = 100, where: Where | None = None) -> int:
        total = self.count(where)
        window = params.window(page, page_size)
        if window["skip"] >= total:
            return 2
        return len(self.read("page", window, where=where))

    def range(self, start: str, end: str, end_time: str, where: Where | None = None) -> int:
        return self.stream("range_dt1", params.date_range(start, "00:00", end, end_time),
                           where)[1]

    # A month by day and material, read whole and encoded (a summary of a few
    # hundred groups is sent whole, as reads.Runner._all sends it).
    def summary(self, start: str, end: str, end_time: str) -> int:
        by = ("day", "productcode")
        cursor = self.execute("summary_dt1", params.date_range(start, "00:00", end, end_time),
                              by=by)
        columns = self.columns(cursor)
        rows = [row for batch in self.batches(cursor) for row in batch]
        encoder = self.summaries.setdefault(by, SummaryEncoder(TRANSACTIONS, by))
        return len(encoder.json(encoder.values(columns, rows)))

    # The filtered works: a truck inside the range, a customer's deep page.
    def frange(self, start: str, end: str, end_time: str, vehno: str) -> int:
        return self.range(start, end, end_time, Where.of([Filter("vehno", "", (vehno,))]))

    def fpage(self, page: int, page_size: int, custcode: str) -> int:
        return self.page(page, page_size, Where.of([Filter("custcode", "", (custcode,))]))


    def feed(self, token: str, settings: FeedSettings) -> int:
        """A feed poll (app/core/feed.py changes): the bookmark read, its window read from the
        index, the records it remembers skipped, the next bookmark written."""
        b = bookmarks.decode(token, "transactions", "update", bookmarks.filters_digest(None),
                             settings.secrets)
        start = b.lower_bound(dt.timedelta(seconds=settings.lookback_seconds))
        row_count = feed.DEFAULT_LIMIT + len(b.seen) + min(b.forgotten_count, feed.REPEATS)
        cursor = self.execute("changes_update", {
            "from_date": start.date(), "from_time": start.time(), "midnight": params.MIDNIGHT,
            "row_count": row_count})
        columns = self.columns(cursor)
        rows = [row for batch in self.batches(cursor) for row in batch]
        now = feed.server_clock(rows[0][columns.index(feed.CLOCK)]) if rows else None
        values = self.encoder.values(columns, rows, None)
        step = feed.advance(b, list(feed.keyed(TRANSACTIONS, "update", self.encoder.output,
                                                values)),
                            now, len(rows) < row_count, feed.DEFAULT_LIMIT, settings)
        body = self.encoder.json(step.sent)
        return len(bookmarks.fitted(step.bookmark, settings.secrets)) + len(body)


def draws(plan: dict[str, Any], rng: random.Random) -> dict[str, Callable[[], tuple]]:
    """Random arguments for each work, drawn as the wrk scripts draw them."""
    page, rng_ = plan["page"], plan["range"]
    first_day = dt.date.fromisoformat(rng_["first_day"])

    def a_range() -> tuple[str, str, str]:
        start = first_day + dt.timedelta(days=rng.randrange(rng_["days"]))
        end = start + dt.timedelta(days=rng_["window_days"] - 1)
        return start.isoformat(), end.isoformat(), rng_["end_time"]

    fpage, month = plan["fpage"], plan["summary"]

    def a_month() -> tuple[str, str, str]:
        start = first_day + dt.timedelta(days=rng.randrange(month["days"]))
        end = start + dt.timedelta(days=month["window_days"] - 1)
        return start.isoformat(), end.isoformat(), "23:59:59"

    return {
        "row": lambda: (rng.randint(1, plan["max_id"]),),
        "page": lambda: (rng.randint(page["first"], page["last"]), page["size"]),
        "range": a_range,
        "frange": lambda: (*a_range(), plan["frange"]["vehno"]),
        "fpage": lambda: (rng.randint(fpage["first"], fpage["last"]), fpage["size"],
                          fpage["custcode"]),
        "summary": a_month,
        "feed": lambda: (plan["feed"]["token"], FeedSettings(
            plan["feed"]["settle_seconds"], plan["feed"]["lookback_seconds"],
            secrets=SECRETS)),
    }


def measure(plan: dict[str, Any], driver: str, works: list[str]) -> dict[str, Any]:
    limit = Limit(plan["db"], driver)
    rng = random.Random()
    draw = draws(plan, rng)
    out: dict[str, Any] = {}
    for work in works:
        if work in ("all", "csv"):  # the full table, as JSON or as CSV
            started = time.perf_counter()
            records, size = (limit.stream if work == "all" else limit.stream_csv)("all")
            seconds = time.perf_counter() - started
            out[work] = {"rows": records, "bytes": size, "seconds": seconds,
                         "rows_s": records / seconds}
            continue
        fn = getattr(limit, work)
        for _ in range(3):  # warm-up
            fn(*draw[work]())
        latencies: list[float] = []
        started = time.perf_counter()
        deadline = started + plan["seconds"]
        while time.perf_counter() < deadline and len(latencies) < 10_000_000:
            args = draw[work]()
            t = time.perf_counter()
            fn(*args)
            latencies.append(time.perf_counter() - t)
        seconds = time.perf_counter() - started
        latencies.sort()
        out[work] = {"ops_s": len(latencies) / seconds, "ops": len(latencies),
                     "p99_ms": latencies[int(0.99 * (len(latencies) - 1))] * 1000,
                     "mean_ms": sum(latencies) / len(latencies) * 1000}
    return out


def main(argv: list[str]) -> None:
    plan, driver, works = json.loads(Path(argv[0]).read_text()), argv[1], argv[2:]
    print(json.dumps(measure(plan, driver, works)))


if __name__ == "__main__":
    main(sys.argv[1:])
