"""The feed under a real writer (docs/api.md §5.11): does /transactions/changes give
every new weighing and every exit weighing once, whatever the weighbridge PCs' clocks and
transactions do within the configured windows?

A writer process plays three weighbridge PCs, each on its own connection: it inserts weighings
(entry weighing, an update stamp) and later updates them (exit weighing, weigh2, a new update
stamp), and now and then cancels a ticket the poller has already copied (open or weighed out:
cancelled = 1 and a new update stamp, as a weighbridge program voids a ticket and keeps its
row; docs/api.md §6.3). PC "behind" stamps up to 90 s behind the database clock, PC "ahead" 30
s ahead, and any PC may hold its transaction open up to 20 s before it commits. Meanwhile a
poller follows the bookmark every half second against gunicorn as deployed, and keeps a copy
of the table (upsert by id). When the writer stops and the windows have passed, the copy
must equal the table, no unchanged record may have come twice, and every exit weighing and
every cancellation must have arrived (the copy's record reversed: cancelled true where it had
been copied false). /metrics' lateness histogram is printed: how far behind the database clock
the records were when first sent.

    make soak-feed                                   # 10 minutes, real windows, a scratch SQLite
    .venv/bin/python bench/feed_soak.py --seconds 60 --scale 0.1 --settle 3 --lookback 60
    .venv/bin/python bench/feed_soak.py --odbc "Driver=...;Database=copy" --dialect mssql \\
        --drop-and-create-transactions

Against a copy of the plant's database (never the live one): the writer DROPs and CREATEs
the table "transactions" there, in Jembatan's shipped layout (app/model/tables.py), and the
service reads it through the shipped sql/transactions.sql. --scale shrinks the clocks and
holds (0.1: 9 s behind, 3 s ahead, 2 s holds) so that small windows can be tried quickly.
Exit status 1 when the copy differs from the table or a record came twice.
tests/test_feed_soak.py runs it scaled down on SQLite and PostgreSQL.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.commands.demo import write_void_mapping  # noqa: E402
from app.model import tables  # noqa: E402
from tests.servers import gunicorn  # noqa: E402  (the same launcher the tests use)

DEPLOYED = ("--workers", "2", "--threads", "4", "--timeout", "120")
BEHIND, AHEAD, HOLD = 90.0, 30.0, 20.0  # seconds, at --scale 1
POLL = 0.5  # seconds between the poller's calls
RETRIES = 3  # 503s with Retry-After in a row that the poller waits out, as an ERP would
# What the copy is compared on: the key, both weighings, the stamps they move and whether
# the ticket was cancelled (a NULL in the table is false, as the API sends it).
COMPARED = ("id", "weigh1", "weigh2", "tgl_dt1", "jam_dt1", "tgl_dt2", "jam_dt2",
            "tgl_update", "jam_update", "cancelled")
CANCELLED = COMPARED.index("cancelled")
CANCELS = 0.08  # the share of a PC's writes that cancel one of its tickets
# Set by SIGTERM: the PCs end their current write and stop, and the writer reports (a caller
# that does not know beforehand how long the writes must go on: tests/fleet.py).
STOPPED = threading.Event()


# -- the database, as the writer and the final comparison reach it ---------------------------

@dataclass(frozen=True)
class Target:
    sqlite: str = ""  # a SQLite file (WAL), or
    odbc: str = ""  # an ODBC connection string that may write
    dialect: str = "sqlite"  # of app/model/tables.py: sqlite, postgresql or mssql
    grant: str = ""  # the service's login, given SELECT on the new table

    def connect(self) -> Any:
        if self.sqlite:
            con = sqlite3.connect(self.sqlite, timeout=120, isolation_level=None)
            return con
        import pyodbc

        return pyodbc.connect(self.odbc, autocommit=True)

    def begin(self, con: Any) -> None:
        if self.sqlite:
            con.execute("BEGIN IMMEDIATE")  # the write lock now, as a PC's program takes it
        else:
            con.autocommit = False

    def commit(self, con: Any) -> None:
        con.commit() if not self.sqlite else con.execute("COMMIT")
        if not self.sqlite:
            con.autocommit = True

    def value(self, text: str | None, kind: str) -> str:
        """A parameter typed by the server where it has types (CAST(? AS date))."""
        return "?" if self.sqlite or text is None else f"CAST(? AS {kind})"

    def clock(self, con: Any) -> dt.datetime:
        """The database server's clock, as the feed reads it (plant local time)."""
        sql = ("SELECT datetime('now', 'localtime')" if self.sqlite
               else "SELECT CURRENT_TIMESTAMP")
        value = con.execute(sql).fetchone()[0]
        if isinstance(value, str):
            value = dt.datetime.fromisoformat(value)
        return value.replace(tzinfo=None)


def prepare(target: Target) -> None:
    """An empty "transactions" table in the demo's layout (the service description's fields
    and a void flag, `cancelled`), with its indexes."""
    columns = tables.column_types(target.dialect, voids=True)["transactions"]
    create = next(s for s in tables.table_statements(target.dialect, voids=True)
                  if s.startswith('CREATE TABLE "transactions"'))
    con = target.connect()
    if target.sqlite:
        con.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
    con.execute('DROP TABLE IF EXISTS "transactions"' if target.dialect != "mssql" else
                "IF OBJECT_ID(N'transactions', N'U') IS NOT NULL DROP TABLE transactions")
    con.execute(create)
    for statement in tables.index_statements(target.dialect):
        if 'ON "transactions"' in statement:
            con.execute(statement)
    if target.grant:
        con.execute(f'GRANT SELECT ON "transactions" TO "{target.grant}"')
    con.close()
    assert "tgl_update" in columns


def table_rows(target: Target) -> dict[int, tuple[Any, ...]]:
    """The table as the copy should hold it: every row with an update stamp, by id."""
    con = target.connect()
    quoted = ", ".join(f'"{c}"' for c in COMPARED)
    rows = con.execute(f'SELECT {quoted} FROM "transactions" '
                       f'WHERE "tgl_update" IS NOT NULL').fetchall()
    con.close()
    return {int(row[0]): _normal(row[:CANCELLED]) + (row[CANCELLED] == 1,) for row in rows}


def _normal(row: Any) -> tuple[Any, ...]:
    """Values as the API writes them (ISO text, numbers as floats)."""
    out = []
    for v in row:
        if isinstance(v, dt.date | dt.time):
            v = v.isoformat()
        elif isinstance(v, int | float) and not isinstance(v, bool):
            v = float(v)
        out.append(v)
    return tuple(out)


# -- the writer: three weighbridge PCs, in a process of its own ------------------------------

@dataclass
class Pc:
    """One weighbridge PC: its clock's error and its own open weighings."""

    name: str
    offset: Callable[[random.Random], float]  # seconds its stamp is off the server clock
    ids: range
    open: dict[int, dt.datetime] = field(default_factory=dict)  # id -> its last stamp
    # id -> (its last stamp, when it committed) of its tickets not cancelled
    written: dict[int, tuple[dt.datetime, float]] = field(default_factory=dict)
    inserted: int = 0
    exited: int = 0
    cancelled: int = 0
    latest_commit: float = 0.0  # the largest lateness at commit: clock at commit - stamp


def write(target: Target, seconds: float, scale: float, seed: int,
          copied: float, first_id: int = 0) -> dict[str, Any]:
    """Run the three PCs for `seconds` (or until SIGTERM); what they did. A ticket is
    cancelled only `copied` seconds after its last commit, when the poller has copied it.
    The ids the PCs give their tickets start after `first_id` (a table that holds tickets
    already)."""
    con = target.connect()
    skew = target.clock(con) - dt.datetime.now()  # the server's clock = ours + skew
    con.close()
    rng = random.Random(seed)
    pcs = [Pc("normal", lambda r: 0.0, range(first_id + 1, 10**9, 3)),
           Pc("behind", lambda r: -r.uniform(0, BEHIND * scale), range(first_id + 2, 10**9, 3)),
           Pc("ahead", lambda r: AHEAD * scale, range(first_id + 3, 10**9, 3))]
    deadline = time.monotonic() + seconds
    signal.signal(signal.SIGTERM, lambda number, frame: STOPPED.set())
    threads = [threading.Thread(target=_run_pc, args=(target, pc, skew, scale, deadline,
                                                       random.Random(rng.random()), copied))
               for pc in pcs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {pc.name: {"inserted": pc.inserted, "exited": pc.exited,
                      "cancelled": pc.cancelled,
                      "latest_commit_s": round(pc.latest_commit, 1)} for pc in pcs}


def _run_pc(target: Target, pc: Pc, skew: dt.timedelta, scale: float, deadline: float,
            rng: random.Random, copied: float) -> None:
    con = target.connect()
    ids = iter(pc.ids)
    while time.monotonic() < deadline and not STOPPED.is_set():
        now = dt.datetime.now() + skew
        stamp = (now + dt.timedelta(seconds=pc.offset(rng))).replace(microsecond=0)
        ready = [i for i, s in pc.open.items() if s < now - dt.timedelta(seconds=2 * scale)]
        old = [i for i, (_, at) in pc.written.items() if at < time.monotonic() - copied]
        target.begin(con)
        draw = rng.random()
        # A ticket the poller has copied, voided: the first a PC may void, then now and then.
        voided = bool(old) and (draw < CANCELS or pc.cancelled == 0)
        if voided:
            key = rng.choice(old)
            stamp = max(stamp, pc.written[key][0] + dt.timedelta(seconds=1))
            _cancel(target, con, key, stamp)
            pc.open.pop(key, None)
            pc.cancelled += 1
        elif ready and draw < 0.5 + CANCELS:  # the exit weighing of an open one
            key = rng.choice(ready)
            # The same PC's clock: its next stamp is later (a second at least) than its last.
            stamp = max(stamp, pc.open.pop(key) + dt.timedelta(seconds=1))
            _exit(target, con, key, stamp, rng)
            pc.exited += 1
        else:
            key = next(ids)
            _entry(target, con, key, stamp, rng)
            pc.open[key] = stamp
            pc.inserted += 1
        if rng.random() < 0.15:  # a transaction held open before it commits
            time.sleep(rng.uniform(0, HOLD * scale))
        target.commit(con)
        if voided:  # never cancelled twice, nor weighed out after
            pc.written.pop(key)
        else:
            pc.written[key] = (stamp, time.monotonic())
        committed = dt.datetime.now() + skew
        pc.latest_commit = max(pc.latest_commit, (committed - stamp).total_seconds())
        time.sleep(rng.uniform(0.02, 0.2))
    con.close()


def _entry(target: Target, con: Any, key: int, stamp: dt.datetime, rng: random.Random) -> None:
    day, clock = stamp.date().isoformat(), stamp.time().isoformat()
    v = target.value
    con.execute(
        'INSERT INTO "transactions" ("id", "vehno", "weigh1", "tgl_dt1", "jam_dt1", '
        '"tgl_create", "jam_create", "tgl_update", "jam_update") VALUES '
        f'(?, ?, ?, {v(day, "date")}, {v(clock, "time")}, {v(day, "date")}, '
        f'{v(clock, "time")}, {v(day, "date")}, {v(clock, "time")})',
        (key, f"B {key % 9000} XY", float(rng.randint(8000, 40000)), day, clock, day, clock,
         day, clock))


def _exit(target: Target, con: Any, key: int, stamp: dt.datetime, rng: random.Random) -> None:
    day, clock = stamp.date().isoformat(), stamp.time().isoformat()
    v = target.value
    con.execute(
        f'UPDATE "transactions" SET "weigh2" = ?, "tgl_dt2" = {v(day, "date")}, '
        f'"jam_dt2" = {v(clock, "time")}, "tgl_update" = {v(day, "date")}, '
        f'"jam_update" = {v(clock, "time")} WHERE "id" = ?',
        (float(rng.randint(5000, 15000)), day, clock, day, clock, key))


def _cancel(target: Target, con: Any, key: int, stamp: dt.datetime) -> None:
    day, clock = stamp.date().isoformat(), stamp.time().isoformat()
    v = target.value
    con.execute(
        f'UPDATE "transactions" SET "cancelled" = 1, "tgl_update" = {v(day, "date")}, '
        f'"jam_update" = {v(clock, "time")} WHERE "id" = ?', (day, clock, key))


# -- the poller and the verdict ------------------------------------------------------------

class PollFailed(Exception):
    """The feed did not answer 200: its status and body, then the server's log."""


@dataclass
class Copy:
    """What the poller received: the latest version of each record, and what came twice."""

    records: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    versions: set[tuple[Any, ...]] = field(default_factory=set)
    twice: list[tuple[Any, ...]] = field(default_factory=list)
    repeats: int = 0  # what X-Bookmark-Repeats announced
    reversed: int = 0  # records received cancelled after a copy of them not cancelled
    polls: int = 0
    token: str | None = None
    unavailable: list[str] = field(default_factory=list)  # each 503's message, retried

    def poll(self, base: str) -> int:
        """One call of the feed, repeated as an ERP does (docs/api.md: a 503 with Retry-After
        means the database is busy or slow; wait those seconds and repeat the same request);
        how many records it sent. A database still unavailable after RETRIES waits fails."""
        for _ in range(RETRIES):
            response = requests.get(f"{base}/transactions/changes", timeout=60,
                                    params={"limit": 1000} | ({"after": self.token}
                                                              if self.token else {}))
            wait = response.headers.get("Retry-After")
            if response.status_code != 503 or wait is None:
                return self._received(response)
            self.unavailable.append(response.json()["message"])
            time.sleep(float(wait))
        return self._received(response)

    def _received(self, response: requests.Response) -> int:
        """Take in one answer of the feed; how many records it sent."""
        if response.status_code != 200:  # what the service said, for the verdict's reader
            raise PollFailed(f"GET /transactions/changes answered {response.status_code}: "
                             f"{response.text[:500]}")
        self.token = response.headers["X-Bookmark"]
        self.repeats += int(response.headers.get("X-Bookmark-Repeats", 0))
        self.polls += 1
        body = response.json()
        for record in body:
            values = _normal([record[c] for c in COMPARED])
            version = (record["id"], record["tgl_update"], record["jam_update"])
            if version in self.versions:
                self.twice.append(version)
            self.versions.add(version)
            before = self.records.get(record["id"])
            if before is not None and not before[CANCELLED] and values[CANCELLED]:
                self.reversed += 1  # the ERP reverses its copy of a voided ticket
            self.records[record["id"]] = values
        return len(body)


@dataclass
class Report:
    table: int
    exits: int
    cancelled: int  # the table's cancelled tickets
    reversed: int  # cancellations the poller received for a record it held not cancelled
    missed: list[int]
    twice: int
    repeats: int
    polls: int
    unavailable: list[str]  # the 503s waited out, each the service's message
    lateness: dict[str, float]  # cumulative histogram: bucket bound -> records
    writer: dict[str, Any]
    windows: tuple[float, float]  # settle, lookback

    @property
    def ok(self) -> bool:
        return not self.missed and not self.twice

    @property
    def beyond_window(self) -> float:
        """Records first sent later than settle + lookback behind the clock: the sign that
        the window is too small (the next ones that late are missed)."""
        edge = sum(self.windows)
        within = max((n for b, n in self.lateness.items() if float(b) <= edge), default=0.0)
        return self.lateness.get("+Inf", 0.0) - within

    def text(self) -> str:
        settle, lookback = self.windows
        lines = [f"table {self.table} weighings ({self.exits} with their exit weighing, "
                 f"{self.cancelled} cancelled; {self.reversed} cancellations of a copied "
                 f"record received); "
                 f"{self.polls} polls; missed {len(self.missed)}; sent twice {self.twice}; "
                 f"announced repeats {self.repeats}",
                 f"503s waited out, as Retry-After says: {len(self.unavailable)}"
                 + "".join(f"\n  {m}" for m in self.unavailable),
                 f"writer: {json.dumps(self.writer)}",
                 f"lateness when first sent (settle {settle:g} s + lookback {lookback:g} s = "
                 f"{settle + lookback:g} s; {self.beyond_window:.0f} records later than "
                 f"that):"]
        previous = 0.0
        for bound, count in self.lateness.items():
            if count > previous:
                lines.append(f"  <= {bound:>6} s: {count - previous:6.0f}")
            previous = count
        return "\n".join(lines)


def lateness(base: str) -> dict[str, float]:
    """/metrics' jembatan_feed_lateness_seconds of transactions, bucket bound -> count."""
    text = requests.get(f"{base}/metrics", timeout=30).text
    out = {}
    for line in text.splitlines():
        if line.startswith('jembatan_feed_lateness_seconds_bucket{collection="transactions"'):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            out[bound] = float(line.rsplit(" ", 1)[1])
    return out


def run(target: Target, read: dict[str, str], work: Path, seconds: float, scale: float,
        settle: float, lookback: float, seed: int = 23) -> Report:
    """The whole soak; `read`: the service's JEMBATAN_SQLITE or JEMBATAN_ODBC."""
    prepare(target)
    config = work / "feed-soak.toml"
    # The soak's database holds transactions alone: the service serves it alone (a start
    # refuses a served collection whose table the database lacks).
    # Its mapping reads the void flag the writer sets (docs/adapting.md, "Cancelled tickets").
    mapping = write_void_mapping(work / "sql")
    config.write_text(f"[feed]\nsettle_seconds = {settle}\nlookback_seconds = {lookback}\n"
                      f"[database]\nsql_dir = {json.dumps(str(mapping))}\n"
                      '[collections]\nserve = ["transactions"]\n')
    copy = Copy()
    # A ticket is cancelled once the poller has copied it: past the settle delay of a PC
    # whose clock runs ahead, and two polls.
    copied = settle + AHEAD * scale + 2 * POLL
    writer_args = ["--seconds", str(seconds), "--scale", str(scale), "--seed", str(seed),
                   "--copied", str(copied), *target_args(target)]
    with gunicorn(work, {"JEMBATAN_CONFIG": str(config), **read}, *DEPLOYED) as server:
        try:
            written = _follow(server.base, copy, writer_args)
            # Until the records stamped ahead have settled, then until nothing more comes.
            tail = time.monotonic() + settle + AHEAD * scale + 2 * POLL
            while time.monotonic() < tail or copy.poll(server.base):
                time.sleep(POLL)
        except PollFailed as exc:
            raise PollFailed(f"{exc}\nthe server's log ends:\n{server.log()[-4000:]}"
                             ) from None
        histogram = lateness(server.base)
    table = table_rows(target)
    missed = sorted(k for k, v in table.items() if copy.records.get(k) != v)
    exits = sum(1 for v in table.values() if v[COMPARED.index("weigh2")] is not None)
    cancelled = sum(1 for v in table.values() if v[CANCELLED])
    return Report(len(table), exits, cancelled, copy.reversed, missed, len(copy.twice),
                  copy.repeats, copy.polls, copy.unavailable, histogram, written,
                  (settle, lookback))


def _follow(base: str, copy: Copy, writer_args: list[str]) -> dict[str, Any]:
    """Poll the feed while the writer writes; what the writer reports."""
    writer = subprocess.Popen([sys.executable, __file__, "write", *writer_args],
                              stdout=subprocess.PIPE, text=True)
    with writer:  # a poll that fails stops the writer and closes its pipe on the way out
        try:
            while writer.poll() is None:
                started = time.monotonic()
                copy.poll(base)
                time.sleep(max(0.0, POLL - (time.monotonic() - started)))
        except BaseException:
            writer.kill()
            raise
        written = json.loads(writer.communicate()[0] or "{}")  # and closes the pipe
    if writer.returncode:
        raise RuntimeError(f"the writer failed ({writer.returncode})")
    return written


def target_args(target: Target) -> list[str]:
    """The writer's arguments that name `target`."""
    if target.sqlite:
        return ["--sqlite", target.sqlite]
    return ["--odbc", target.odbc, "--dialect", target.dialect]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", nargs="?", default="soak", choices=("soak", "write"))
    p.add_argument("--sqlite", help="a scratch SQLite file (default: a new one)")
    p.add_argument("--odbc", help="a copy of the plant's database that the soak may write")
    p.add_argument("--read-odbc", help="what the service reads with (default: --odbc)")
    p.add_argument("--dialect", default="mssql", choices=("mssql", "postgresql"))
    p.add_argument("--grant", default="", help="the service's login, given SELECT on the "
                                               "table the soak creates")
    p.add_argument("--drop-and-create-transactions", action="store_true",
                   help="confirm that --odbc is a copy whose transactions table may go")
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--settle", type=float, default=30)
    p.add_argument("--lookback", type=float, default=600)
    p.add_argument("--seed", type=int, default=23)
    p.add_argument("--copied", type=float, default=60,
                   help="(the writer) seconds after its last commit a ticket may be cancelled")
    p.add_argument("--first-id", type=int, default=0,
                   help="(the writer) its tickets' ids start after this one")
    args = p.parse_args(argv)
    if args.odbc:
        target = Target(odbc=args.odbc, dialect=args.dialect, grant=args.grant)
        read = {"JEMBATAN_ODBC": args.read_odbc or args.odbc}
    else:
        path = args.sqlite or str(Path(tempfile.mkdtemp()) / "feed-soak.sqlite3")
        target, read = Target(sqlite=path), {"JEMBATAN_SQLITE": path}
    if args.mode == "write":
        print(json.dumps(write(target, args.seconds, args.scale, args.seed, args.copied,
                               args.first_id)))
        return 0
    if args.odbc and not args.drop_and_create_transactions:
        p.error("--odbc needs --drop-and-create-transactions: the soak replaces that table")
    with tempfile.TemporaryDirectory() as work:
        report = run(target, read, Path(work), args.seconds, args.scale, args.settle,
                     args.lookback, args.seed)
    print(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
