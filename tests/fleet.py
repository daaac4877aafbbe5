"""A fleet of plants for the warehouse (docs/warehouse.md): each plant a real `jembatan serve`
over its own database (a demo database of its own size on SQLite, or loaded into a database
of its own on the T-SQL server), its own `[site] timezone` and its own weighbridge PCs
(bench/feed_soak.py's writer, whose clocks run behind and ahead); the pipeline
(`jembatan warehouse load`) run as a separate process, as a scheduler runs it, killed when
asked; and the verdict: the warehouse (DuckDB) against the union of the plants' tables read
with plain SQL. tests/test_warehouse_fleet.py runs it; bench/fleet.py runs it larger."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from app.commands.demo import build_demo_database, write_void_mapping
from app.model import tables
from bench.feed_soak import AHEAD, Target, target_args
from tests import mssql
from tests.helpers import NAMES, exactly, name_of, warehouse_key
from tests.postgres import OWNER, Cluster
from tests.servers import JEMBATAN, Running, free_port, rss_kib, running

ROOT = Path(__file__).resolve().parent.parent
WRITER = ROOT / "bench" / "feed_soak.py"
# What each plant serves and the pipeline copies: the three master collections (read whole
# each run) and the four dated ones (read through /<c>/changes).
COLLECTIONS = ("customers", "products", "transporters", "transactions", "vehicles",
               "bricon2", "biao1")
# The dates of the feeds the pipeline reads each dated collection through (docs/api.md §5.11,
# docs/warehouse.md: a weighing by its update stamp and by its creation): a record whose dates
# are all NULL is in no feed, so not in the warehouse either.
STAMP_DATE = {"transactions": ("tgl_update", "tgl_create"), "vehicles": ("tgl_create",),
              "bricon2": ("tanggal",), "biao1": ("tanggal",)}
SETTLE, LOOKBACK = 1, 15  # the plants' feed windows, seconds
FINAL_RUNS = 10  # at most, once the writers have stopped: until one finds nothing new
DATASET = "jembatan"


@dataclass(frozen=True)
class PlantSpec:
    """A plant as the fleet sets it up."""

    name: str
    rows: int  # transactions in its demo database
    zone: str  # its [site] timezone, and its PCs' TZ; "": the database server's own clock
    scale: float  # its PCs' clock errors and holds (bench/feed_soak.py --scale)
    engine: str = "sqlite"  # "mssql": a database of its own on the T-SQL server;
    # "postgresql": a schema of its own in a PostgreSQL cluster


class Plant:
    """One plant: its database, its service (stopped and started again on the same port)
    and its writer."""

    def __init__(self, spec: PlantSpec, work: Path, target: Target, read: dict[str, str],
                 place: str = ""):
        self.spec, self.work, self.target, self.read = spec, work, target, read
        self.place = place  # its database (T-SQL) or schema (PostgreSQL) on its server
        self.port = free_port()
        self.key = f"fleet-key-{spec.name}-0123456789"
        self.first_id = max_id(target)
        self.server: Running | None = None
        self._serving: contextlib.AbstractContextManager[Running] | None = None
        self.writer: subprocess.Popen[str] | None = None
        self.written: dict[str, Any] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> Path:
        """The service's settings: small feed windows, a bookmark secret of its own (kept
        across restarts), the plant's zone, the collections of the fleet."""
        path = self.work / "jembatan.toml"
        zone = f'[site]\ntimezone = "{self.spec.zone}"\n' if self.spec.zone else ""
        # The demo's tables void tickets in a flag column, which the site's mapping reads.
        mapping = write_void_mapping(self.work / "sql")
        database = f"[database]\nsql_dir = {json.dumps(str(mapping))}\n" + (
            "connect_timeout = 2\nprove_on_first_read = false\n"
            if self.spec.engine != "sqlite" else "")
        path.write_text(f"[feed]\nsettle_seconds = {SETTLE}\nlookback_seconds = {LOOKBACK}\n"
                        f'bookmark_secrets = ["fleet-secret-{self.spec.name}-0123456789"]\n'
                        f"{zone}{database}[collections]\nserve = {json.dumps(COLLECTIONS)}\n")
        return path

    def start(self) -> None:
        """`jembatan serve` (gunicorn, one worker) on the plant's port, answering."""
        env = {"JEMBATAN_CONFIG": str(self.config()), "JEMBATAN_API_KEYS": self.key,
               **self.read}
        command = [str(JEMBATAN), "serve", "--bind", f"127.0.0.1:{self.port}",
                   "--workers", "1", "--threads", "2"]
        self._serving = running(self.work, env, command, self.port, cwd=self.work)
        self.server = self._serving.__enter__()

    def stop(self) -> None:
        """Stop the service (SIGTERM); the database and the writer go on."""
        if self._serving is not None:
            self._serving.__exit__(None, None, None)
            self._serving = self.server = None

    def write(self, seed: int) -> None:
        """Start the plant's PCs, in the plant's zone (SQLite's localtime), until stopped."""
        args = ["--seconds", "3600", "--scale", str(self.spec.scale), "--seed", str(seed),
                "--copied", str(SETTLE + AHEAD * self.spec.scale + 2),
                "--first-id", str(self.first_id), *target_args(self.target)]
        env = os.environ | ({"TZ": self.spec.zone} if self.spec.zone else {})
        self.writer = subprocess.Popen([sys.executable, str(WRITER), "write", *args], env=env,
                                       stdout=subprocess.PIPE, text=True, cwd=ROOT)

    def stop_writing(self) -> dict[str, Any]:
        """Stop the PCs (SIGTERM: each ends its write) and wait for them; what they did."""
        assert self.writer is not None
        self.writer.terminate()
        out = self.writer.communicate(timeout=120)[0]
        assert self.writer.returncode == 0, f"{self.spec.name}: the writer failed"
        self.written = json.loads(out)
        return self.written


def max_id(target: Target) -> int:
    """The largest ticket id the plant's transactions hold."""
    with contextlib.closing(target.connect()) as con:
        return int(con.execute('SELECT MAX("id") FROM "transactions"').fetchone()[0] or 0)


def sqlite_plant(spec: PlantSpec, work: Path) -> Plant:
    """A plant on a demo database of its own size (SQLite, WAL: the writers never block the
    service)."""
    path = work / f"{spec.name}.sqlite3"
    build_demo_database(path, rows=spec.rows, seed=spec.rows)
    with contextlib.closing(sqlite3.connect(path)) as con:
        con.execute("PRAGMA journal_mode=WAL")
    return Plant(spec, work, Target(sqlite=str(path)), {"JEMBATAN_SQLITE": str(path)})


def demo_rows(spec: PlantSpec, work: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows of the fleet's collections in a demo database of the plant's size."""
    scratch = work / "demo.sqlite3"
    build_demo_database(scratch, rows=spec.rows, seed=spec.rows)
    with contextlib.closing(sqlite3.connect(scratch)) as con:
        con.row_factory = sqlite3.Row
        rows = {t: [dict(r) for r in con.execute(f'SELECT * FROM "{t}"')] for t in COLLECTIONS}
    scratch.unlink()
    return rows


def mssql_plant(spec: PlantSpec, work: Path, odbc: str) -> Plant:
    """A plant on a database of its own on the T-SQL server, holding a demo database's
    rows."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    database = mssql.create_database(odbc, f"fleet_{spec.name}_{mssql.driver()}_{worker}")
    server = mssql.Server(database)
    server.load(demo_rows(spec, work))
    server.close()
    return Plant(spec, work, Target(odbc=database, dialect="mssql"),
                 {"JEMBATAN_ODBC": database}, mssql.parts(database)["database"])


def postgres_plant(spec: PlantSpec, work: Path, cluster: Cluster) -> Plant:
    """A plant on a schema of its own in the PostgreSQL cluster (through its ODBC driver),
    holding a demo database's rows; the service logs in read-only."""
    schema = cluster.create_schema(demo_rows(spec, work))
    return Plant(spec, work, Target(odbc=cluster.connection_string(schema=schema, user=OWNER),
                                    dialect="postgresql"),
                 {"JEMBATAN_ODBC": cluster.connection_string(schema=schema)}, schema)


def plants_file(plants: Sequence[Plant], path: Path, page_size: int) -> Path:
    """The pipeline's plants file (TOML) naming every plant, its URL and key."""
    lines = [f"page_size = {page_size}", "pause_seconds = 0", "timeout = 30",
             f"collections = {json.dumps(COLLECTIONS)}"]
    for plant in plants:
        lines += [f"[plants.{plant.spec.name}]", f'url = "{plant.url}"',
                  f'key = "{plant.key}"']
    path.write_text("\n".join(lines) + "\n")
    return path


# -- the pipeline, run as a scheduler runs it -------------------------------------------------


@dataclass
class Run:
    """One run of `jembatan warehouse load`."""

    code: int  # its exit status; -9 when killed
    seconds: float
    # Its peak resident memory (VmHWM, read every 20 ms while it runs; not wait4's
    # ru_maxrss, which counts the memory of the process it was forked from).
    peak_kib: int
    out: str
    killed: bool
    phase: str = ""  # what the scenario was doing: first, plant down, writing, final

    def requests(self) -> int:
        """The requests its lines count (a line per plant: "<plant>: <collection> <records>,
        …; <n> requests")."""
        return sum(int(n) for n in re.findall(r"(\d+) requests\b", self.out))

    def records(self, collections: Sequence[str]) -> int:
        """The records its lines count for these collections."""
        names = "|".join(collections)
        return sum(int(n.replace(",", "")) for n in
                   re.findall(rf"[:,] (?:{names}) ([\d,]*\d)\b", self.out))


@dataclass
class Pipeline:
    """`jembatan warehouse load` into one DuckDB file, with its own pipelines directory."""

    plants: Path
    work: Path
    runs: list[Run] = field(default_factory=list)

    @property
    def duckdb(self) -> Path:
        return self.work / "warehouse.duckdb"

    @property
    def pipelines_dir(self) -> Path:
        return self.work / "pipelines"

    def argv(self) -> list[str]:
        return [str(JEMBATAN), "warehouse", "load", "--plants",
                str(self.plants), "--destination", "duckdb", "--duckdb-file", str(self.duckdb),
                "--dataset", DATASET, "--pipelines-dir", str(self.pipelines_dir)]

    def run(self, kill: Callable[[Path, float], bool] = lambda d, s: False,
            timeout: float = 300) -> Run:
        """One run; SIGKILLed as soon as `kill(pipelines_dir, seconds since start)` holds."""
        log = self.work / f"run-{len(self.runs)}.log"
        started = time.monotonic()
        with open(log, "w") as out:
            process = subprocess.Popen(self.argv(), stdout=out, stderr=subprocess.STDOUT,
                                       cwd=self.work, env=os.environ | {"PYTHONUNBUFFERED": "1"})
        killed, peak = False, 0
        while True:
            pid, status, _ = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, peak_kib(process.pid))
            elapsed = time.monotonic() - started
            if not killed and (kill(self.pipelines_dir, elapsed) or elapsed > timeout):
                os.kill(process.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.02)
        process.returncode = os.waitstatus_to_exitcode(status)
        done = Run(process.returncode, time.monotonic() - started, peak,
                   log.read_text(errors="replace"), killed)
        self.runs.append(done)
        return done


def peak_kib(pid: int) -> int:
    """The peak resident memory of a running process so far, in KiB; 0 once it has ended."""
    with contextlib.suppress(OSError, AssertionError):
        return rss_kib(pid, "VmHWM")
    return 0


def loading(pipelines_dir: Path, elapsed: float) -> bool:
    """Whether a load package is being loaded: normalized, some of its jobs started or
    done, not yet loaded whole."""
    package = "*/load/normalized/*"
    return any(pipelines_dir.glob(f"{package}/started_jobs/*")) or any(
        pipelines_dir.glob(f"{package}/completed_jobs/*"))


# -- the verdict ------------------------------------------------------------------------------


def normal(value: Any, sql_type: str, name: str) -> Any:
    """A value as the comparison holds it, read from a plant's table or from the warehouse:
    dates and times as ISO text, integers as int (unless they have a fraction) and other
    numbers as floats, `cancelled` as a boolean (a NULL is false, as the API sends it)."""
    kind = sql_type.split("(")[0].upper()
    if name == "cancelled":
        return bool(value)
    if value is None:
        return None
    if kind == "DATE":
        return (value.date() if isinstance(value, dt.datetime) else
                dt.date.fromisoformat(str(value)[:10]) if isinstance(value, str)
                else value).isoformat()
    if kind == "TIME":
        return (dt.time.fromisoformat(value) if isinstance(value, str) else value).isoformat()
    if kind == "INTEGER" and not (isinstance(value, float) and not value.is_integer()):
        return int(value)
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return float(value)
    return value


Records = dict[tuple[Any, ...], dict[str, Any]]  # (plant, *key) -> {field: value}


def plant_records(plant: Plant, collection: str) -> Records:
    """What the warehouse must hold of `collection` from this plant, read with plain SQL."""
    columns = tables.column_types("sqlite", voids=True)[collection]
    dated = " OR ".join(f'"{d}" IS NOT NULL' for d in STAMP_DATE.get(collection, ()))
    # A record without a key is left out (docs/warehouse.md, "What the load does not see").
    keyed = " AND ".join(f'"{k}" IS NOT NULL' for k in warehouse_key(collection))
    where = f" WHERE {keyed}" + (f" AND ({dated})" if dated else "")
    quoted = ", ".join(f'"{c}"' for c in columns)
    with contextlib.closing(plant.target.connect()) as con:
        rows = con.execute(f'SELECT {quoted} FROM "{collection}"{where}').fetchall()
    out: Records = {}
    for row in rows:
        record = {c: normal(v, t, c) for (c, t), v in zip(columns.items(), row, strict=True)}
        out[(plant.spec.name, *(record[k] for k in warehouse_key(collection)))] = record
    return out


def with_names(records: Records, masters: dict[str, Records]) -> None:
    """Put the names beside the codes, as the plant's own master records name them
    (tests/helpers.py name_of: the summaries' rule, docs/api.md §7)."""
    rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for master in {m for _, m, _, _ in NAMES.values()}:
        for key, row in masters[master].items():
            rows.setdefault((key[0], master), []).append(row)
    named: dict[tuple[Any, ...], Any] = {}
    for (plant, *_), record in records.items():
        for code in [c for c in NAMES if c in record]:
            name, master, master_code, master_name = NAMES[code]
            memo = (plant, code, record[code])
            if memo not in named:
                named[memo] = name_of(record[code], rows.get((plant, master), []),
                                      master_code, master_name, exactly)
            record[name] = named[memo]


def truth(plants: Sequence[Plant]) -> dict[str, Records]:
    """The union of the plants' tables: every collection's records by (plant, *key)."""
    out: dict[str, Records] = {c: {} for c in COLLECTIONS}
    for plant in plants:
        for collection in COLLECTIONS:
            out[collection].update(plant_records(plant, collection))
    for collection in COLLECTIONS:
        with_names(out[collection], out)
    return out


def warehouse_columns(con: Any) -> dict[str, dict[str, str]]:
    """The warehouse's `fields` table: collection -> {API field: warehouse column}."""
    rows = con.execute(f'SELECT DISTINCT "collection", "field", "column" '
                       f'FROM "{DATASET}"."fields"').fetchall()
    out: dict[str, dict[str, str]] = {}
    for collection, name, column in rows:
        out.setdefault(collection, {})[name] = column
    return out


@dataclass
class Verdict:
    """The warehouse against the plants' tables, collection by collection."""

    records: int = 0  # in the plants' tables
    missing: list[str] = field(default_factory=list)  # (collection, plant, key) not there
    extra: list[str] = field(default_factory=list)  # there, but in no plant's table
    twice: list[str] = field(default_factory=list)  # (plant, key) more than once
    differ: list[str] = field(default_factory=list)  # a field's value not the last one
    cancelled: int = 0  # cancelled tickets in the plants' tables, each found cancelled

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.twice or self.differ)

    def text(self) -> str:
        def some(items: list[str]) -> str:
            return "".join(f"\n  {i}" for i in items[:20]) + (
                f"\n  … {len(items) - 20} more" if len(items) > 20 else "")

        return (f"{self.records} records ({self.cancelled} cancelled tickets): "
                f"missing {len(self.missing)}{some(self.missing)}\n"
                f"extra {len(self.extra)}{some(self.extra)}\n"
                f"twice {len(self.twice)}{some(self.twice)}\n"
                f"differ {len(self.differ)}{some(self.differ)}")


def compare(plants: Sequence[Plant], duckdb_file: Path) -> Verdict:
    """Every record of every plant in the warehouse once, under its plant's name, with
    every field's last value, the names beside its codes among them."""
    import duckdb

    expected = truth(plants)
    verdict = Verdict()
    with contextlib.closing(duckdb.connect(str(duckdb_file), read_only=True)) as con:
        columns = warehouse_columns(con)
        for collection, records in expected.items():
            verdict.records += len(records)
            compare_collection(con, collection, records, columns.get(collection, {}), verdict)
    verdict.cancelled = sum(1 for r in expected["transactions"].values() if r["cancelled"])
    return verdict


def compare_collection(con: Any, collection: str, expected: Records, columns: dict[str, str],
                       verdict: Verdict) -> None:
    """One collection's table in the warehouse against the plants' records of it."""
    fields = list(next(iter(expected.values()), {}))
    unmapped = [f for f in fields if f not in columns]
    if unmapped:
        verdict.differ.append(f"{collection}: the fields table has no column for {unmapped}")
        return
    types = tables.column_types("sqlite", voids=True)[collection]
    selected = ", ".join(f'"{c}"' for c in ["plant", *(columns[f] for f in fields)])
    rows = con.execute(f'SELECT {selected} FROM "{DATASET}"."{collection}"').fetchall()
    found: Records = {}
    for row in rows:
        record = {f: normal(v, types.get(f, ""), f) for f, v in zip(fields, row[1:], strict=True)}
        ident = (row[0], *(record[k] for k in warehouse_key(collection)))
        if ident in found:
            verdict.twice.append(f"{collection} {ident}")
        found[ident] = record
    for ident in expected.keys() - found.keys():
        verdict.missing.append(f"{collection} {ident}")
    for ident in found.keys() - expected.keys():
        verdict.extra.append(f"{collection} {ident}")
    for ident in expected.keys() & found.keys():
        for name, value in expected[ident].items():
            if found[ident][name] != value:
                verdict.differ.append(f"{collection} {ident} {name}: the plant has {value!r}, "
                                      f"the warehouse {found[ident][name]!r}")


@dataclass
class Servers:
    """The database servers some plants live on: a T-SQL server's ODBC string, a PostgreSQL
    cluster."""

    mssql: str | None = None
    postgres: Cluster | None = None

    def plant(self, spec: PlantSpec, work: Path) -> Plant:
        """The plant built on its engine."""
        work.mkdir()
        if spec.engine == "mssql" and self.mssql:
            return mssql_plant(spec, work, self.mssql)
        if spec.engine == "postgresql" and self.postgres:
            return postgres_plant(spec, work, self.postgres)
        assert spec.engine == "sqlite", f"{spec.name}: no {spec.engine} server given"
        return sqlite_plant(spec, work)

    def drop(self, plant: Plant) -> None:
        """Drop the plant's database or schema on its server."""
        if plant.spec.engine == "mssql" and self.mssql:
            mssql.drop_database(self.mssql, plant.place)
        elif plant.spec.engine == "postgresql" and self.postgres:
            self.postgres.drop_schema(plant.place)


@contextlib.contextmanager
def serving(specs: Sequence[PlantSpec], work: Path, servers: Servers
            ) -> Iterator[list[Plant]]:
    """The plants built and served; at the end every writer ended, every service stopped,
    the databases and schemas on servers dropped."""
    plants: list[Plant] = []
    try:
        for spec in specs:
            plants.append(servers.plant(spec, work / spec.name))
            plants[-1].start()
        yield plants
    finally:
        for plant in plants:
            if plant.writer is not None and plant.writer.poll() is None:
                plant.writer.kill()
                plant.writer.wait()
            plant.stop()
            servers.drop(plant)


@dataclass
class Figures:
    """What a fleet run did and cost."""

    plants: int
    records: int
    seconds: float
    runs: list[Run]
    written: dict[str, dict[str, Any]]

    @property
    def peak_kib(self) -> int:
        return max(r.peak_kib for r in self.runs)

    def text(self) -> str:
        runs = ", ".join(f"{r.phase}: {'killed' if r.killed else r.code} {r.seconds:.1f} s "
                         f"{r.peak_kib / 1024:.0f} MiB" for r in self.runs)
        return (f"{self.plants} plants, {self.records} records in the warehouse, "
                f"{self.seconds:.0f} s wall time, {len(self.runs)} pipeline runs "
                f"({sum(r.requests() for r in self.runs)} requests), pipeline peak RSS "
                f"{self.peak_kib / 1024:.0f} MiB\nruns: {runs}\nwriters: "
                + json.dumps(self.written))


def scenario(plants: Sequence[Plant], pipeline: Pipeline, down: Plant, seconds: float,
             seed: int = 43) -> None:
    """The writers write while the pipeline runs in a loop: its first run SIGKILLed once a
    load package is being loaded (again until one was), a run that finishes it, a run with
    `down` stopped, and runs with every plant up (the second of them SIGKILLed in its load
    as well) until the writers have written `seconds` and three runs have followed the
    plant's return; then the writers stop and, past the
    windows, runs until one finds nothing new."""
    started = time.monotonic()
    for i, plant in enumerate(plants):
        plant.write(seed + i)
    phase(pipeline, "first", kill=loading)
    while not pipeline.runs[-1].killed and len(pipeline.runs) < 3:
        phase(pipeline, "first", kill=loading)
    phase(pipeline, "after the kill")
    down.stop()
    phase(pipeline, "down")
    down.start()
    phase(pipeline, "back")
    phase(pipeline, "back", kill=loading)  # a small load killed too, while the PCs write
    phase(pipeline, "back")
    while time.monotonic() < started + seconds:
        phase(pipeline, "writing")
    for plant in plants:
        plant.stop_writing()
    time.sleep(SETTLE + AHEAD * max(p.spec.scale for p in plants) + 1)
    for _ in range(FINAL_RUNS):
        run = phase(pipeline, "final")
        if run.code == 0 and not run.records(STAMP_DATE):
            break


def phase(pipeline: Pipeline, name: str,
          kill: Callable[[Path, float], bool] = lambda d, s: False) -> Run:
    """One run of the pipeline, named by the scenario's phase."""
    run = pipeline.run(kill=kill)
    run.phase = name
    return run


def run(plants: Sequence[Plant], work: Path, seconds: float, down: Plant,
        page_size: int = 1000) -> tuple[Pipeline, Figures, Verdict]:
    """The scenario over these plants, then the verdict and the figures."""
    started = time.monotonic()
    pipeline = Pipeline(plants_file(plants, work / "plants.toml", page_size), work)
    scenario(plants, pipeline, down, seconds)
    verdict = compare(plants, pipeline.duckdb)
    figures = Figures(len(plants), verdict.records, time.monotonic() - started, pipeline.runs,
                      {p.spec.name: p.written for p in plants})
    return pipeline, figures, verdict
