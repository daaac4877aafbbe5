"""The plant's database load per poll of the warehouse pipeline: the
`/transactions/changes?on=<on>&limit=<page_size>&after=...` calls `jembatan warehouse load`
makes (docs/api.md §5.11; it reads transactions through two feeds, `on=update` and
`on=create`), on a large demo database, with and without the (date, time, id) index of each
feed's date pair that the feed seeks (the indexes the docs advise).

    .venv/bin/python bench/warehouse_poll.py [bench/data/bench.sqlite3] [--polls 5] \
        2>/dev/null

Per poll: the records sent and the bytes answered; the database's time, from the app's own
/metrics (the delta of `jembatan_query_duration_seconds` over the feed's queries, `changes*`)
and how many queries ran; the rows the query returned and the virtual-machine steps SQLite
took to run it (the same SQL text with the same parameters, run again in this process with a
progress handler: a count of the work a scan or a seek costs, in thousands of steps); and
SQLite's plan of it (a SEARCH of an index, or a SCAN of the table). Three kinds of poll per
feed: catching up from the oldest record (the first `--polls` calls of a new pipeline) at
limit 1,000 and 10,000, and the steady state: a pipeline that has read everything asks again
and nothing is new (its bookmark at the database clock less the settle delay).

The file given is read as it is for the indexed run; the run without the indexes works on a
copy (the file's size again on the disk of its directory, removed at the end) from which
they are dropped. The app runs in this process (Flask's test client, the shipped mapping),
every query logged with its parameters. No target is asserted: the figures are printed.

On the T-SQL server instead, whose `transactions` holds the file's rows (loaded as
bench/tsql.py `load` loads them, with its indexes), the work is the rows the server read
(PostgreSQL's statistics of the table on Babelfish's PostgreSQL side: rows read by table
scans and fetched through indexes, before and after each poll) and the scans it made; the
two indexes are dropped for the second run and made again after it:

    .venv/bin/python bench/warehouse_poll.py bench/data/bench.sqlite3 --tsql "$ODBC" \
        --tsql-stats "Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=15433;$DB;UID=postgres"

(DB=Database=babelfish_db, the PostgreSQL database that holds the T-SQL ones.)
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import logging
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from app import create_app
from app.database.loading import load_queries
from app.model import tables
from app.model.collections import COLLECTIONS, DATE_PAIRS
from app.ops.config import SHIPPED_SQL_DIR

ROOT = Path(__file__).resolve().parent.parent
# The feeds the pipeline reads transactions through (app/warehouse/source.py feeds_of), and
# the index each one seeks: (tgl_<on>, jam_<on>, id) (app/model/tables.py).
FEEDS = ("update", "create")
INDEXES = tuple(f"transactions_{on}" for on in FEEDS)
INDEXED = "(tgl_<on>, jam_<on>, id)"
STEPS = 1000  # SQLite VM instructions per progress-handler call; rows read per figure
FEED = {"settle_seconds": 30, "lookback_seconds": 600}  # the defaults (docs/api.md §12)


class Asked(logging.Handler):
    """The name and parameters of every feed query logged since the last take()."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, dict[str, str]]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("slow query") and ".changes" in record.args[0]:
            self.asked.append((record.args[0], dict(record.args[2])))

    def take(self) -> list[tuple[str, dict[str, str]]]:
        out, self.asked = self.asked, []
        return out


@dataclass
class Poll:
    """One call of the feed, as the plant's database saw it."""

    kind: str
    limit: int
    records: int
    size: int
    seconds: float
    db_seconds: float
    queries: int


def feed_time(client: Any) -> tuple[float, int]:
    """The sum and count of `jembatan_query_duration_seconds` over the feed's queries."""
    total, count = 0.0, 0
    text = client.get("/metrics").get_data(as_text=True)
    for family in text_string_to_metric_families(text):
        if family.name != "jembatan_query_duration_seconds":
            continue
        for sample in family.samples:
            if not sample.labels.get("query", "").startswith("changes"):
                continue
            if sample.name.endswith("_sum"):
                total += sample.value
            elif sample.name.endswith("_count"):
                count += int(sample.value)
    return total, count


class Steps:
    """A progress handler of SQLite that counts its calls and never interrupts."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        return 0


class SqliteWork:
    """What the logged queries cost SQLite: each run again on a connection of its own."""

    def __init__(self, path: Path):
        self.con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.queries = load_queries(SHIPPED_SQL_DIR, COLLECTIONS)

    def before(self) -> None:
        """Nothing to read before a poll."""

    def after(self, asked: list[tuple[str, dict[str, str]]]) -> tuple[int | None, int, str]:
        """Rows the queries return, thousands of VM steps they take, and their plans."""
        rows = steps = 0
        plans = []
        for what, values in asked:
            stem, name = what.split(".", 1)
            query = self.queries.get(stem, name, "sqlite")
            params = [int(values[p]) if values[p].lstrip("-").isdigit() else values[p]
                      for p in query.params]
            plans.append(" / ".join(r[3] for r in self.con.execute(
                "EXPLAIN QUERY PLAN " + query.sql, params)))
            counter = Steps()
            self.con.set_progress_handler(counter, STEPS)
            rows += len(self.con.execute(query.sql, params).fetchall())
            self.con.set_progress_handler(None, STEPS)
            steps += counter.calls
        return rows, steps, "; ".join(dict.fromkeys(plans))


class TsqlWork:
    """What the queries cost the T-SQL server (Babelfish): the PostgreSQL statistics of its
    `transactions` table, read on its PostgreSQL side before and after a poll."""

    STATS = ("SELECT seq_scan, COALESCE(seq_tup_read, 0), COALESCE(idx_scan, 0), "
             "COALESCE(idx_tup_fetch, 0) FROM pg_stat_user_tables "
             "WHERE relname = 'transactions'")

    def __init__(self, odbc: str):
        import pyodbc

        self.con = pyodbc.connect(odbc, autocommit=True)
        self.mark: tuple[int, ...] = ()

    def read(self) -> tuple[int, ...]:
        # An idle backend reports its counts within 10 s (PostgreSQL's PGSTAT_IDLE_INTERVAL):
        # wait them out, so that each read holds all that came before it.
        time.sleep(11)
        self.con.execute("SELECT pg_stat_clear_snapshot()").fetchall()
        return tuple(self.con.execute(self.STATS).fetchone())

    def before(self) -> None:
        """The statistics before the polls."""
        self.mark = self.read()

    def after(self, asked: list[tuple[str, dict[str, str]]]) -> tuple[int | None, int, str]:
        """Rows read (by table scans and through indexes) and the scans made."""
        del asked  # the statistics say it all
        seq, seq_rows, idx, idx_rows = (a - b for a, b in zip(self.read(), self.mark,
                                                              strict=True))
        return None, seq_rows + idx_rows, f"{seq} table scans, {idx} index scans"


class Plant:
    """The app over one database, every query logged with its parameters."""

    def __init__(self, database: dict[str, str], source: Path):
        self.client = create_app({"database": database | {"prove_on_first_read": False},
                                  "feed": FEED, "log": {"slow_query": 1e-9}}).test_client()
        self.source = source  # the demo file whose rows the database holds

    def poll(self, kind: str, on: str, limit: int, **arguments: str) -> tuple[Poll, str]:
        """One call of /transactions/changes?on=`on`; the Poll and the answer's bookmark."""
        before, queried = feed_time(self.client)
        started = time.perf_counter()
        response = self.client.get("/transactions/changes",
                                   query_string={"on": on, "limit": limit, **arguments})
        seconds = time.perf_counter() - started
        assert response.status_code == 200, response.get_data(as_text=True)[:300]
        after, queried_after = feed_time(self.client)
        return Poll(kind, limit, len(response.get_json()), len(response.data), seconds,
                    after - before, queried_after - queried), response.headers["X-Bookmark"]


def catching_up(plant: Plant, on: str, limit: int, polls: int) -> Iterator[Poll]:
    """The first `polls` calls of a new pipeline's feed, from the oldest record on."""
    arguments: dict[str, str] = {}
    for _ in range(polls):
        poll, bookmark = plant.poll(f"on={on} catch-up {limit:,}", on, limit, **arguments)
        arguments = {"after": bookmark}
        yield poll


def caught_up(plant: Plant, on: str, limit: int) -> str:
    """The bookmark of a pipeline's feed that has read everything."""
    # From an hour before the newest stamp: the call reads to the end, and the bookmark it
    # answers is the caught-up one (the database clock less the settle delay).
    con = sqlite3.connect(f"file:{plant.source}?mode=ro", uri=True)
    day, clock = DATE_PAIRS[on]
    newest = con.execute(
        f"SELECT max(\"{day}\" || 'T' || COALESCE(\"{clock}\", '00:00:00')) "
        'FROM "transactions"').fetchone()[0]
    con.close()
    since = dt.datetime.fromisoformat(newest) - dt.timedelta(hours=1)
    return plant.poll("start", on, limit, since=since.isoformat())[1]


def steady(plant: Plant, on: str, limit: int, polls: int, bookmark: str) -> Iterator[Poll]:
    """Calls of a pipeline's feed that has read everything: nothing is new."""
    for _ in range(polls):
        poll, bookmark = plant.poll(f"on={on} steady", on, limit, after=bookmark)
        yield poll


def runs(plant: Plant, on: str, polls: int) -> Iterator[Iterator[Poll]]:
    """The calls of each kind of poll of one feed, to be made as each is taken."""
    yield catching_up(plant, on, 1000, polls)
    yield catching_up(plant, on, 10000, polls)
    yield steady(plant, on, 1000, polls, caught_up(plant, on, 1000))


@contextlib.contextmanager
def without_index(path: Path) -> Iterator[Path]:
    """A copy of `path` without the feed's index, in a directory beside it, removed after."""
    with tempfile.TemporaryDirectory(dir=path.resolve().parent) as tmp:
        copy = Path(tmp) / "no-index.sqlite3"
        shutil.copyfile(path, copy)
        con = sqlite3.connect(copy)
        for index in INDEXES:
            con.execute(f'DROP INDEX "{index}"')
        con.commit()
        con.close()
        yield copy


def report(variant: str, polls: list[Poll], rows: int | None, work: int, plan: str
           ) -> None:
    """One line for the calls of one kind: the medians of each call's figures, and the
    database's work (`rows`, `work`: the totals of the calls) per call."""
    m = {a: statistics.median(getattr(p, a) for p in polls)
         for a in ("records", "size", "seconds", "db_seconds", "queries")}
    returned = "-" if rows is None else f"{rows / len(polls):,.0f}"
    print(f"| {variant} | {polls[0].kind} | {len(polls)} | {m['records']:,.0f} | "
          f"{m['size'] / 1024:,.0f} | {m['seconds'] * 1000:,.1f} | "
          f"{m['db_seconds'] * 1000:,.2f} | {m['queries']:.0f} | {returned} | "
          f"{work / len(polls):,.0f} | {plan} |")


def measure(variant: str, database: dict[str, str], work: SqliteWork | TsqlWork,
            source: Path, polls: int) -> None:
    """Every kind of poll of each feed on `database`, reported."""
    asked = Asked()
    logger = logging.getLogger("jembatan")
    logger.addHandler(asked)
    logger.setLevel(logging.WARNING)
    try:
        plant = Plant(database, source)
        for on in FEEDS:
            for calls in runs(plant, on, polls):
                work.before()
                asked.take()
                done = list(calls)
                report(variant, done, *work.after(asked.take()))
    finally:
        logger.removeHandler(asked)
        work.con.close()


def on_sqlite(path: Path, polls: int) -> None:
    """Both variants on the SQLite file `path` (the one without the index on a copy)."""
    measure(INDEXED, {"sqlite": str(path)}, SqliteWork(path), path, polls)
    with without_index(path) as copy:
        measure("none", {"sqlite": str(copy)}, SqliteWork(copy), path, polls)


def on_tsql(odbc: str, stats: str, source: Path, polls: int) -> None:
    """Both variants on the T-SQL server's `transactions` (`source`'s rows, loaded there
    with the index, as bench/tsql.py loads them): the index dropped for the second and made
    again after it."""
    import pyodbc

    measure(INDEXED, {"odbc": odbc}, TsqlWork(stats), source, polls)
    create = [s for s in tables.index_statements("mssql")
              if any(f'"{index}"' in s for index in INDEXES)]
    con = pyodbc.connect(odbc, autocommit=True)
    try:
        for index in INDEXES:
            con.execute(f'DROP INDEX "{index}" ON "transactions"')
        measure("none", {"odbc": odbc}, TsqlWork(stats), source, polls)
    finally:
        for statement in create:
            con.execute(statement)
        con.close()


def main() -> None:
    """Measure both variants on the database given and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", nargs="?", type=Path,
                        default=ROOT / "bench" / "data" / "bench.sqlite3")
    parser.add_argument("--polls", type=int, default=5, help="calls of each kind")
    parser.add_argument("--tsql", metavar="ODBC",
                        help="measure on this T-SQL server, whose transactions hold the rows "
                             "of DATABASE, instead of on the file")
    parser.add_argument("--tsql-stats", metavar="ODBC",
                        help="with --tsql: the ODBC string of its PostgreSQL side")
    args = parser.parse_args()
    con = sqlite3.connect(f"file:{args.database}?mode=ro", uri=True)
    count = con.execute('SELECT count(*) FROM "transactions"').fetchone()[0]
    con.close()
    where = "the T-SQL server" if args.tsql else args.database
    print(f"{where}: {count:,} transactions (of {args.database}); medians over {args.polls} "
          f"calls of each kind; feed {FEED}")
    work = "rows read" if args.tsql else "SQLite steps (k)"
    print("| index | poll | calls | records | KiB answered | request ms | database ms | "
          f"queries | rows returned | {work} | plan |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    if args.tsql:
        on_tsql(args.tsql, args.tsql_stats, args.database, args.polls)
    else:
        on_sqlite(args.database, args.polls)


if __name__ == "__main__":
    main()
