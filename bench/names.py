"""Names from the tickets (names.sql) on a ticket table of millions of rows: what the name
lookup of a summary costs, without and with the index docs/adapting.md asks a DBA for.

    .venv/bin/python bench/names.py [--rows 2000000] [--postgresql]

Builds the ticket table of docs/examples/names (TBL_TIMBANG, every ticket carrying its
material's and party's code and name) in a SQLite file under bench/data (and, with
--postgresql, in a throwaway PostgreSQL cluster of tests/postgres.py, read through its ODBC
driver as the main texts are), with the date-range index (TglMasuk, JamMasuk, NoUrut) a
plant has for its ranges, and serves it with the example's transactions.sql and names.sql.
It times, best of --repeat, a month's summary by day (no names), by productcode and by
productcode,custcode (a name lookup per group), then adds the indexes
(KodeBarang, NamaBarang) and (KodeRelasi, NamaRelasi) and times them again, and prints
SQLite's plan of the lookup.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.core.services import services  # noqa: E402
from tests.postgres import Cluster  # noqa: E402

EXAMPLE = ROOT / "docs" / "examples" / "names"
PRODUCTS, PARTIES, DAYS = 300, 3000, 730
FIRST = date(2024, 11, 1)
MONTH = "/transactions/summary/2026-10-01/00:00/2026-10-31/23:59:59"
COLUMNS = ('"NoUrut" int, "NoTiket" varchar(20), "NoPol" varchar(15), "KodeBarang" '
           'varchar(20), "NamaBarang" varchar(60), "KodeRelasi" varchar(20), "NamaRelasi" '
           'varchar(60), "Sopir" varchar(40), "TglMasuk" date, "JamMasuk" time, "TglKeluar" '
           'date, "JamKeluar" time, "BeratMasuk" float, "BeratKeluar" float')
RANGE_INDEX = 'CREATE INDEX "ix_masuk" ON "TBL_TIMBANG" ("TglMasuk", "JamMasuk", "NoUrut")'
NAME_INDEXES = ('CREATE INDEX "ix_barang" ON "TBL_TIMBANG" ("KodeBarang", "NamaBarang")',
                'CREATE INDEX "ix_relasi" ON "TBL_TIMBANG" ("KodeRelasi", "NamaRelasi")')


def tickets(rows: int) -> Iterator[tuple[Any, ...]]:
    """Tickets spread evenly over DAYS days; 1 % without names, 1 % with another spelling."""
    rng = random.Random(7)
    for n in range(1, rows + 1):
        day = FIRST + timedelta(days=(n - 1) * DAYS // rows)
        second = (n * 7919) % 86400
        product, party = rng.randrange(PRODUCTS), rng.randrange(PARTIES)
        odd = rng.random()
        material = (None if odd < 0.01 else f"Material {product} (lama)" if odd < 0.02
                    else f"Material {product}")
        name = None if odd < 0.01 else f"CV Relasi {party}"
        yield (n, f"TB-{n:08d}", f"L {n % 9999} AB", f"RM{product:04d}", material,
               f"REL-{party:05d}", name, "Slamet", day.isoformat(),
               f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}",
               day.isoformat(), "23:59:00", 30000.0 + n % 1000, 10000.0)


def build_sqlite(path: Path, rows: int) -> None:
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    con.execute(f'CREATE TABLE "TBL_TIMBANG" ({COLUMNS})')
    con.executemany(f'INSERT INTO "TBL_TIMBANG" VALUES ({", ".join("?" * 14)})',
                    tickets(rows))
    con.execute(RANGE_INDEX)
    con.commit()
    con.close()


def build_postgresql(cluster: Cluster, rows: int) -> str:
    """The table in schema jt_names, read as the tests' read-only login; its ODBC string."""
    conn = cluster.connect()
    cursor = conn.cursor()
    cursor.execute('CREATE SCHEMA "jt_names"; SET search_path TO "jt_names"')
    cursor.execute(f'CREATE TABLE "TBL_TIMBANG" ({COLUMNS})')
    batch: list[tuple[Any, ...]] = []
    marks = "(" + ", ".join("?" * 14) + ")"
    for row in tickets(rows):
        batch.append(row)
        if len(batch) == 500:
            cursor.execute('INSERT INTO "TBL_TIMBANG" VALUES ' + ", ".join([marks] * 500),
                           [v for r in batch for v in r])
            batch = []
    if batch:
        cursor.executemany(f'INSERT INTO "TBL_TIMBANG" VALUES {marks}', batch)
    cursor.execute(RANGE_INDEX)
    cursor.execute('GRANT USAGE ON SCHEMA "jt_names" TO "jembatan_ro"; '
                   'GRANT SELECT ON "TBL_TIMBANG" TO "jembatan_ro"; ANALYZE "TBL_TIMBANG"')
    conn.close()
    return cluster.connection_string(schema="jt_names")


def build_tsql(odbc: str, rows: int) -> None:
    """The table in the T-SQL server's database (dropped first), as a plant's SQL Server."""
    import pyodbc

    conn = pyodbc.connect(odbc, autocommit=True)
    cursor = conn.cursor()
    cursor.execute("IF OBJECT_ID(N'[TBL_TIMBANG]', N'U') IS NOT NULL DROP TABLE [TBL_TIMBANG]")
    cursor.execute(f'CREATE TABLE "TBL_TIMBANG" ({COLUMNS.replace(" time,", " time(0),")})')
    per = 2000 // 14  # SQL Server takes at most 2,100 parameters a statement
    marks = "(" + ", ".join("?" * 14) + ")"
    batch: list[tuple[Any, ...]] = []
    for row in tickets(rows):
        batch.append(row)
        if len(batch) == per:
            cursor.execute('INSERT INTO "TBL_TIMBANG" VALUES ' + ", ".join([marks] * per),
                           [v for r in batch for v in r])
            batch = []
    if batch:
        cursor.executemany(f'INSERT INTO "TBL_TIMBANG" VALUES {marks}', batch)
    cursor.execute(RANGE_INDEX)
    conn.close()


def timed(client: Any, url: str, repeat: int) -> tuple[float, int] | None:
    """The best time of `repeat` requests and the groups answered; None on a timeout."""
    best, groups = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        answer = client.get(url)
        best = min(best, time.perf_counter() - started)
        if answer.status_code == 503:
            return None
        assert answer.status_code == 200, answer.get_json()
        groups = len(answer.get_json())
    return best, groups


def measure(label: str, database: dict[str, Any], repeat: int, timeout: float) -> None:
    client = create_app({"database": database | {"sql_dir": str(EXAMPLE),
                                                 "query_timeout": timeout},
                         "collections": {"serve": ["transactions"]}}).test_client()
    for by in ("day", "productcode", "productcode,custcode"):
        got = timed(client, f"{MONTH}?by={by}", repeat)
        print(f"{label:<48} by={by:<22} " + (f"{got[1]:>6} groups {got[0] * 1000:>9.1f} ms"
                                             if got else f"timed out after {timeout:.0f} s"),
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120, help="query_timeout, s")
    parser.add_argument("--postgresql", action="store_true")
    parser.add_argument("--tsql", metavar="ODBC",
                        help="also a T-SQL server (a database for tests: its TBL_TIMBANG is "
                             "dropped and made again)")
    args = parser.parse_args()
    path = ROOT / "bench" / "data" / "names.sqlite3"
    path.parent.mkdir(exist_ok=True)
    started = time.perf_counter()
    build_sqlite(path, args.rows)
    print(f"SQLite: {args.rows} tickets in {time.perf_counter() - started:.0f} s")
    sqlite = {"sqlite": str(path)}
    measure("SQLite, range index only", sqlite, 1, args.timeout)  # slow: once
    con = sqlite3.connect(path)
    for statement in NAME_INDEXES:
        con.execute(statement)
    con.execute("ANALYZE")
    con.commit()
    measure("SQLite, + (code, name) indexes", sqlite, args.repeat, args.timeout)
    app = create_app({"database": sqlite | {"sql_dir": str(EXAMPLE)},
                      "collections": {"serve": ["transactions"]}})
    queries = services(app).db.queries
    query = queries.get("transactions", "summary_dt1", "sqlite", by=("productcode",))
    values = {"start_date": "2026-10-01", "start_time": "00:00:00", "end_date": "2026-10-31",
              "end_time": "23:59:59", "midnight": "00:00:00"}
    plan = con.execute("EXPLAIN QUERY PLAN " + query.sql, [values[p] for p in query.params])
    print("SQLite's plan of by=productcode:", " / ".join(r[3] for r in plan))
    con.close()
    if args.postgresql:
        cluster = Cluster()
        try:
            cluster.start()
            odbc = build_postgresql(cluster, args.rows)
            measure("PostgreSQL (main texts), range index only", {"odbc": odbc}, 1,
                    args.timeout)
            conn = cluster.connect()
            for statement in NAME_INDEXES:
                conn.cursor().execute('SET search_path TO "jt_names"; ' + statement)
            conn.cursor().execute('ANALYZE "jt_names"."TBL_TIMBANG"')
            conn.close()
            measure("PostgreSQL (main texts), + (code, name) indexes", {"odbc": odbc},
                    args.repeat, args.timeout)
        finally:
            cluster.remove()
    if args.tsql:
        build_tsql(args.tsql, args.rows)
        measure("T-SQL server, range index only", {"odbc": args.tsql}, 1, args.timeout)
        import pyodbc

        conn = pyodbc.connect(args.tsql, autocommit=True)
        for statement in NAME_INDEXES:
            conn.cursor().execute(statement)
        conn.close()
        measure("T-SQL server, + (code, name) indexes", {"odbc": args.tsql}, args.repeat,
                args.timeout)


if __name__ == "__main__":
    main()
