"""The issue's performance levers, each measured against its alternatives in one process.

    taskset -c 0 .venv/bin/python bench/levers.py [DB] [--seconds S] [--rounds R] [--only 1,5]

DB: bench/data/bench.sqlite3 by default. The alternatives of a lever take turns, round after
round (the order rotated), each for the same slice of the lever's seconds (--seconds, else
BENCH_SECONDS, else 30), after an untimed warm-up; the median of the rounds is reported. The
work is Jembatan's own code: shipped SQL, bind, FETCH_SIZE, Database's connections,
RecordEncoder, params, create_app. Lever 5 drops an index from a copy of DB in bench/data/,
deleted after. One markdown table per lever; every figure in bench/data/levers.json.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import itertools
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
from flask import Flask, Response
from werkzeug.test import create_environ

from app import create_app, params
from app.collections import COLLECTIONS
from app.config import SHIPPED_SQL_DIR, load_settings
from app.db import FETCH_SIZE, Database, bind
from app.encoding import _UNCHANGED, RecordEncoder
from app.queries import load_queries
from app.schemas import Integer

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "data" / "levers.json"
RECORD = BENCH / "levers.md"  # --record: the tables, which make bench copies into RESULTS.md
ENCODE_ROWS, STREAM_ROWS, RANGE_ROWS = 200_000, 300_000, 1_000
BATCH_SIZES = sorted({50, 100, 500, 2000, 10_000, FETCH_SIZE})
SCHEMAS = {c.name: c.schema for c in COLLECTIONS}
QUERIES = load_queries(SHIPPED_SQL_DIR, COLLECTIONS)
ENCODER = RecordEncoder(SCHEMAS["transactions"])
NUMBERED = RecordEncoder(SCHEMAS["weighing"])  # numberrow, then the fields of transactions
Statement = tuple[str, Sequence[Any]]
Encode = Callable[[Sequence[str], list[Any], int], bytes]
Alternative = Callable[[float, int], float]  # (seconds, round) -> rate

# Benchmark only, not app SQL: the `all` query of transactions with numberrow computed by
# the database (a window function) instead of counted by Jembatan while it streams.
WINDOW_SQL = ('SELECT ROW_NUMBER() OVER (ORDER BY "id") AS "numberrow", '
              + ", ".join(f'"{name}"' for name in ENCODER.fields)
              + ' FROM "transactions" ORDER BY "id"')


class ColumnNumbered(RecordEncoder):
    """Benchmark only: weighing's encoder taking numberrow from a column (an Integer)."""

    def __init__(self) -> None:
        super().__init__(SCHEMAS["weighing"])
        self.numbered, self.fields = False, self.names
        self._checks = [_UNCHANGED[Integer], *self._checks]


def sql(name: str, values: dict[str, Any] | None = None) -> Statement:
    query = QUERIES.get("transactions", name, "sqlite")
    return query.sql, bind(values or {}, query.params, False)


def database(path: Path) -> Database:
    settings = load_settings({"database": {"sqlite": str(path), "odbc": ""}})
    return Database(settings.database, QUERIES)


def columns(cursor: sqlite3.Cursor) -> tuple[str, ...]:
    return tuple(d[0] for d in cursor.description)


def timed(seconds: float, step: Callable[[], int]) -> float:
    """Calls step, which returns how many units it did, until the slice is over: units/s."""
    done, started = 0, time.perf_counter()
    while time.perf_counter() < started + seconds:
        done += step()
    return done / (time.perf_counter() - started)


def drain(conn: sqlite3.Connection, statement: Statement, size: int, encode: Encode,
          cap: float = float("inf"), deadline: float = float("inf")) -> int:
    """Reads a result by fetchmany(size), encoding each batch as views.stream does, up to
    `cap` rows or the deadline; closes the cursor, returns the rows read."""
    cursor = conn.cursor()
    cursor.execute(*statement)
    names, done = columns(cursor), 0
    while done < cap and time.perf_counter() < deadline and (rows := cursor.fetchmany(size)):
        encode(names, rows, done + 1)
        done += len(rows)
    cursor.close()
    return done


def stream(conn: sqlite3.Connection, statement: Statement, size: int,
           encode: Encode) -> Alternative:
    """Rows/s over the first STREAM_ROWS rows of a result (fewer if the slice ends first)."""
    def alternative(seconds: float, _round: int) -> float:
        started = time.perf_counter()
        done = drain(conn, statement, size, encode, STREAM_ROWS, started + seconds)
        return done / (time.perf_counter() - started)
    return alternative


def record(conn: sqlite3.Connection, key: int) -> bytes:
    """A record by id as views.get_one reads and encodes it (bench/limit.py's row)."""
    cursor = conn.cursor()
    cursor.execute(*sql("by_key", {"key": key}))
    rows = cursor.fetchmany(FETCH_SIZE)
    cursor.close()
    return ENCODER.encode(columns(cursor), rows[:1], None)[1:-1]


def wsgi(app: Flask, key: int) -> bytes:
    """GET /transactions/<key> as a WSGI server makes it: the call, the body read, closed."""
    status: list[str] = []
    body = app(create_environ(f"/transactions/{key}"), lambda s, h, e=None: status.append(s))
    data = b"".join(body)
    body.close()  # type: ignore[attr-defined]
    assert status[0].startswith("200"), status
    return data


def difference(a: bytes, b: bytes) -> str:
    if a == b:
        return "identical"
    i = next(i for i in itertools.count(0, 4096) if a[i:i + 4096] != b[i:i + 4096])
    i = next(j for j in range(i, i + 4097) if a[j:j + 1] != b[j:j + 1])
    a, b = (x[max(i - 50, 0):i + 30].decode(errors="replace") for x in (a, b))
    return f"differs at byte {i}: {a!r} vs {b!r}"


class Levers:
    def __init__(self, db: Path, seconds: float, rounds: int):
        self.db, self.seconds, self.rounds = db, seconds, rounds
        self.database = database(db)
        self.raw: sqlite3.Connection = self.database._connect().raw  # kept, as a thread's
        self.rows, self.max_id = self.raw.execute(
            'SELECT COUNT(*), MAX("id") FROM "transactions"').fetchone()
        self.out: dict[str, Any] = {}

    def compare(self, key: str, title: str, unit: str, jembatan: str,
                alternatives: dict[str, Alternative], note: str = "") -> dict[str, float]:
        names = list(alternatives)
        share = self.seconds / (self.rounds * len(names))
        for name in names:  # warm-up: the pages, the code paths
            alternatives[name](min(share, 0.5), -1)
        figures: dict[str, list[float]] = {name: [] for name in names}
        for r in range(self.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                figures[name].append(alternatives[name](share, r))
        median = {name: statistics.median(v) for name, v in figures.items()}
        print(f"\n### {title}\n\n| alternative | {unit}, median | rounds, min to max "
              f"| ratio to Jembatan's |\n|---|--:|--:|--:|")
        for name, v in figures.items():
            print(f"| {name}{' (Jembatan)' if name == jembatan else ''} | {median[name]:,.0f} "
                  f"| {min(v):,.0f} to {max(v):,.0f} | {median[name] / median[jembatan]:.2f} |")
        print(f"\nJembatan uses: {jembatan}.{' ' + note if note else ''}", flush=True)
        self.out[key] = {"title": title, "unit": unit, "jembatan": jembatan, "median": median,
                         "rounds": figures, "note": note}
        return median

    def encoding(self) -> None:
        cursor = self.raw.cursor()
        cursor.execute(*sql("all"))
        names, batches = columns(cursor), []
        while len(batches) * FETCH_SIZE < ENCODE_ROWS and (rows := cursor.fetchmany(FETCH_SIZE)):
            batches.append(rows)
        cursor.close()
        schema = SCHEMAS["transactions"](many=True)

        def dump(rows: list[Any]) -> list[dict[str, Any]]:
            return schema.dump([dict(zip(names, row, strict=True)) for row in rows])

        def stdlib(dumped: list[dict[str, Any]]) -> bytes:
            return json.dumps(dumped, separators=(",", ":"), ensure_ascii=False).encode()

        every = [row for rows in batches for row in rows]
        dumped, mine = dump(every), ENCODER.encode(names, every, None)
        same = {"json.dumps": difference(stdlib(dumped), mine),
                "orjson": difference(orjson.dumps(dumped), mine)}
        del dumped, mine

        def run(way: Callable[[list[Any]], bytes]) -> Alternative:
            def alternative(seconds: float, _round: int) -> float:
                cycle = itertools.cycle(batches)
                return timed(seconds, lambda: len(way(rows := next(cycle))) and len(rows))
            return alternative
        self.compare(
            "encoding", f"1. Encoding the first {len(every):,} rows (in memory, batches of "
            f"{FETCH_SIZE})", "records/s", "RecordEncoder.encode",
            {"marshmallow dump + json.dumps": run(lambda rows: stdlib(dump(rows))),
             "marshmallow dump + orjson": run(lambda rows: orjson.dumps(dump(rows))),
             "RecordEncoder.encode": run(lambda rows: ENCODER.encode(names, rows, None))},
            f"All {len(every):,} records at once, compared with RecordEncoder's bytes: "
            f"marshmallow + json.dumps (compact, ensure_ascii=False) {same['json.dumps']}; "
            f"marshmallow + orjson {same['orjson']}.")
        self.out["encoding"]["bytes"] = same

    def fetchmany(self) -> None:
        self.compare("fetchmany", "2. fetchmany batch size: the whole table, read and encoded",
                     "rows/s", f"fetchmany({FETCH_SIZE})",
                     {f"fetchmany({n})": stream(self.raw, sql("all"), n, ENCODER.encode)
                      for n in BATCH_SIZES},
                     f"Each run reads at most the first {STREAM_ROWS:,} rows of `all` (fewer "
                     "if its slice ends first), then closes the cursor.")

    def lookups(self, lookup: Callable[[int], Any]) -> Alternative:
        """Records by random ids, the same ids in the same order for each alternative."""
        def alternative(seconds: float, r: int) -> float:
            rng = random.Random(r)

            def one() -> int:
                lookup(rng.randint(1, self.max_id))
                return 1
            return timed(seconds, one)
        return alternative

    def connections(self) -> None:
        def fresh(key: int) -> bytes:
            conn = self.database._connect()
            try:
                return record(conn.raw, key)
            finally:
                conn.close()
        self.compare("connections", "3. Connection per worker thread vs per request: a record "
                     "by id", "lookups/s", "one connection per thread, reused",
                     {"one connection per thread, reused": self.lookups(
                         lambda key: record(self.raw, key)),
                      "a new connection per lookup": self.lookups(fresh)},
                     "A lookup: by_key executed, fetched and encoded; a connection opened as "
                     "app.db.Database._connect opens it.")

    def numberrow(self) -> None:
        by_sql = ColumnNumbered()
        windowed = self.raw.execute(WINDOW_SQL)
        same = difference(
            by_sql.encode(columns(windowed), windowed.fetchmany(FETCH_SIZE), None),
            NUMBERED.encode(ENCODER.fields, self.raw.execute(*sql("all")).fetchmany(FETCH_SIZE),
                            1))
        windowed.close()
        self.compare(
            "numberrow", "4. numberrow: counted while streaming vs ROW_NUMBER() in SQL",
            "rows/s", "counted in Python while streaming",
            {"counted in Python while streaming": stream(
                self.raw, sql("all"), FETCH_SIZE, NUMBERED.encode),
             "ROW_NUMBER() OVER (ORDER BY id) in SQL": stream(
                self.raw, (WINDOW_SQL, ()), FETCH_SIZE,
                lambda names, rows, _first: by_sql.encode(names, rows, None))},
            f"Transactions' rows encoded as weighing's numbered records, at most the first "
            f"{STREAM_ROWS:,} a run. The first {FETCH_SIZE} records, both ways: {same}.")

    def range_window(self) -> tuple[dt.date, int, int, str]:
        """As bench/run.py's plan: whole days, then the last day up to the hour that brings
        a range to about RANGE_ROWS rows. (first day, start days, days a range, end time)"""
        first, last, opens, closes = self.raw.execute(
            'SELECT MIN("tgl_dt1"), MAX("tgl_dt1"), MIN("jam_dt1"), MAX("jam_dt1") '
            'FROM "transactions"').fetchone()
        span = (dt.date.fromisoformat(last) - dt.date.fromisoformat(first)).days + 1
        whole, part = divmod(RANGE_ROWS / (self.rows / span), 1)
        open_s, close_s = (sum(int(x) * m for x, m in zip(t.split(":"), (3600, 60, 1),
                                                           strict=True)) for t in (opens, closes))
        end = int(open_s + part * (close_s - open_s))
        return (dt.date.fromisoformat(first), span - int(whole), int(whole) + 1,
                f"{end // 3600:02d}:{end // 60 % 60:02d}:{end % 60:02d}")

    def indexes(self) -> None:
        size = self.db.stat().st_size
        if shutil.disk_usage(self.db.parent).free < 1.2 * size:
            print(f"\n### 5. skipped: no room in {self.db.parent} for a copy of {size:,} bytes")
            return
        copy = BENCH / "data" / f"levers-noindex-{os.getpid()}.sqlite3"
        try:
            shutil.copyfile(self.db, copy)
            with contextlib.closing(sqlite3.connect(copy)) as rw:
                rw.execute('DROP INDEX "transactions_dt1"')
            bare = database(copy)._connect()
            self.ranges(bare.raw)
            bare.close()
        finally:
            copy.unlink(missing_ok=True)
            Path(f"{copy}-journal").unlink(missing_ok=True)

    def ranges(self, bare: sqlite3.Connection) -> None:
        first, days, window, end_time = self.range_window()
        held: list[int] = []

        def values(start: dt.date) -> dict[str, Any]:
            end = start + dt.timedelta(days=window - 1)
            return params.date_range(start.isoformat(), "00:00", end.isoformat(), end_time)

        def run(conn: sqlite3.Connection) -> Alternative:
            def alternative(seconds: float, r: int) -> float:
                rng = random.Random(r)  # the same ranges in the same order for both

                def one() -> int:
                    start = first + dt.timedelta(days=rng.randrange(days))
                    held.append(drain(conn, sql("range_dt1", values(start)), FETCH_SIZE,
                                      ENCODER.encode))
                    return 1
                return timed(seconds, one)
            return alternative
        self.compare("indexes", f"5. Index on (tgl_dt1, jam_dt1, id): {window}-day ranges "
                     f"ending {end_time}", "ranges/s", "the index transactions_dt1",
                     {"the index transactions_dt1": run(self.raw),
                      "no index on the pair (a copy, index dropped)": run(bare)},
                     "A range: range_dt1 executed, read and encoded batch by batch.")
        statement = sql("range_dt1", values(first))
        print(f"\nRows a range held: {statistics.mean(held):,.0f} on average, {min(held):,} "
              f"to {max(held):,}. EXPLAIN QUERY PLAN:")
        for name, conn in (("with", self.raw), ("without", bare)):
            plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement[0],
                                                   statement[1])]
            print(f"- {name} the index: {'; '.join(plan)}")
            self.out["indexes"][f"plan {name}"] = plan
        self.out["indexes"]["rows_per_range"] = statistics.mean(held)

    def framework(self) -> None:
        bare = Flask("bare")
        bare.add_url_rule("/transactions/<int:key>", "by_id", lambda key: Response(
            record(self.raw, key), mimetype="application/json"))
        with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
            jembatan = create_app({"database": {"sqlite": str(self.db), "odbc": ""}})
            key = self.max_id // 2
            same = wsgi(jembatan, key) == wsgi(bare, key) == record(self.raw, key)
            median = self.compare(  # the access log's lines go to /dev/null
                "framework", "6. Per-request overhead: a record by id", "requests/s",
                "create_app()",
                {"create_app()": self.lookups(lambda key: wsgi(jembatan, key)),
                 "bare Flask, one plain route doing the direct work": self.lookups(
                     lambda key: wsgi(bare, key)),
                 "the direct work, no Flask": self.lookups(lambda key: record(self.raw, key))},
                "Both apps called as a WSGI server calls them (environ from werkzeug's "
                "create_environ, body read and closed; no socket). The direct work: by_key "
                f"executed, fetched, encoded. The same body all three ways: {same}.")
        us = [1e6 / rate for rate in median.values()]
        print(f"\nPer request: Jembatan's app {us[0] - us[1]:.0f} µs over bare Flask, bare "
              f"Flask {us[1] - us[2]:.0f} µs over the direct work, which takes {us[2]:.0f} µs.")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("db", nargs="?", type=Path, default=BENCH / "data" / "bench.sqlite3")
    parser.add_argument("--seconds", type=float, help="timed seconds a lever (default 30)",
                        default=float(os.environ.get("BENCH_SECONDS", 30)))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="1,2,3,4,5,6", help="the levers to run, e.g. 1,5")
    parser.add_argument("--record", action="store_true",
                        help=f"also write the tables to {RECORD.relative_to(BENCH.parent)} "
                             "(part of RESULTS.md)")
    args = parser.parse_args()
    if args.record:
        tee = Tee(sys.stdout)
        with contextlib.redirect_stdout(tee):
            run(args)
        RECORD.write_text("# The levers, measured\n\n`taskset -c 0 .venv/bin/python "
                          "bench/levers.py --record`\n\n" + tee.text.replace("## Levers: ",
                                                                             "Levers: "))
    else:
        run(args)


class Tee:
    """Writes to a stream and keeps a copy."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    @property
    def text(self) -> str:
        return "".join(self.parts)


def run(args: argparse.Namespace) -> None:
    levers = Levers(args.db.resolve(), args.seconds, args.rounds)
    started = time.time()
    print(f"## Levers: {args.db}, {levers.rows:,} rows in transactions; {args.rounds} rounds, "
          f"{args.seconds:g} s a lever; CPUs {sorted(os.sched_getaffinity(0))}; load average "
          f"{os.getloadavg()[0]:.2f}; SQLite {sqlite3.sqlite_version}", flush=True)
    steps = [levers.encoding, levers.fetchmany, levers.connections, levers.numberrow,
             levers.indexes, levers.framework]
    for n in args.only.split(","):
        steps[int(n) - 1]()
    took = time.time() - started
    print(f"\nLoad average at the end {os.getloadavg()[0]:.2f}; {took:.0f} s in all.")
    OUT.write_text(json.dumps({
        "db": str(args.db), "rows": levers.rows, "seconds": args.seconds,
        "rounds": args.rounds, "fetch_size": FETCH_SIZE, "sqlite": sqlite3.sqlite_version,
        "python": sys.version.split()[0], "cpus": sorted(os.sched_getaffinity(0)),
        "started": dt.datetime.fromtimestamp(started).isoformat(timespec="seconds"),
        "took_s": took, "load_average_end": os.getloadavg(), "levers": levers.out},
        indent=2) + "\n")
    print(f"Figures in {OUT.relative_to(BENCH.parent)}")


if __name__ == "__main__":
    main()
