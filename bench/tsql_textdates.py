"""check-sql and the service's proof on a table whose dates are text, on the T-SQL server:
how long they take, what check-sql says of the reads no index serves, and the
difference the DBA's persisted computed columns and index make.

    BENCH_TSQL_ODBC="$(TSQL_PORT=2100 TSQL_PG_PORT=16500 ../shared/tsql/start)" \\
        .venv/bin/python bench/tsql_textdates.py 100000 300000 1000000

For each size: a vendor's table `dbo.TBL_TIMBANG` (an INT key, the weigh-in date as
`dd/mm/yyyy` text and its time as `hh:mm` text, as the mill's program keeps them) filled
with that many tickets over ten years; a mapping that converts them (the date rebuilt as
yyyymmdd and CONVERTed with style 112, which SQL Server and Babelfish read alike; the time with
`CONVERT(time, "cJamMasuk", 108)`) for tgl_dt1/jam_dt1 and for the update pair; then,
timed, `jembatan check-sql transactions` (its 20 records) and the service's proof
(3 records, app/core/proof.py `confirmed`, as the proof at start runs it). Then the DDL
check-sql prints is run (the persisted computed columns and their index), the mapping is
given the computed columns, and both are timed again. The T-SQL server is Babelfish over
PostgreSQL, not SQL Server: its plans are PostgreSQL's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import ROOT

sys.path.insert(0, str(ROOT))
import pyodbc  # noqa: E402

from app import create_app  # noqa: E402
from app.core import proof  # noqa: E402
from app.core.services import services
from app.model.collections import COLLECTIONS  # noqa: E402
from app.ops.config import SHIPPED_SQL_DIR  # noqa: E402

TABLE = "dbo.TBL_TIMBANG"
TRANSACTIONS = next(c for c in COLLECTIONS if c.name == "transactions")
MINUTES = 10 * 365 * 24 * 60  # ten years of tickets
# dd/mm/yyyy read as yyyymmdd (style 112): Babelfish does not read style 103 as SQL Server
# does ('13/01/2016' is out of range there); this form is right on both.
DAY = ('CONVERT(date, SUBSTRING("cTglMasuk", 7, 4) + SUBSTRING("cTglMasuk", 4, 2) + '
       'SUBSTRING("cTglMasuk", 1, 2), 112)')
CONVERTED = {"tgl_dt1": DAY, "jam_dt1": 'CONVERT(time, "cJamMasuk", 108)',
             "tgl_update": DAY, "jam_update": 'CONVERT(time, "cJamMasuk", 108)'}
COMPUTED = {f: f'"jembatan_{f}"' for f in CONVERTED}
TYPES = {"Integer": "int", "Number": "float", "String": "varchar(255)", "Date": "date",
         "Time": "time"}


def load(odbc: str, rows: int) -> float:
    """The vendor's table with `rows` tickets, made by the server itself; seconds taken."""
    began = time.perf_counter()
    with pyodbc.connect(odbc, autocommit=True) as con:
        con.execute(f"IF OBJECT_ID('{TABLE}') IS NOT NULL DROP TABLE {TABLE}")
        con.execute(f'CREATE TABLE {TABLE} ("NoUrut" int NOT NULL PRIMARY KEY, '
                    f'"cNoPol" varchar(12), "cTglMasuk" char(10), "cJamMasuk" char(5), '
                    f'"nBruto" float)')
        digits = "(VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) AS d{0}(n)"
        numbers = " CROSS JOIN ".join(digits.format(i) for i in range(7))
        n = " + ".join(f"d{i}.n * {10 ** i}" for i in range(7))
        step = MINUTES // rows
        con.execute(
            f'INSERT INTO {TABLE} SELECT TOP ({rows}) x.n + 1, \'B \' + CAST(x.n % 9000 AS '
            f"varchar(4)) + ' XY', CONVERT(char(10), DATEADD(minute, x.n * {step}, "
            f"'20160101'), 103), CONVERT(char(5), DATEADD(minute, x.n * {step}, '20160101'), "
            f"108), 20000 + x.n % 10000 FROM (SELECT {n} AS n FROM {numbers}) AS x "
            f"ORDER BY x.n")
    return time.perf_counter() - began


def mapping(site: Path, given: dict[str, str]) -> None:
    """sql/ with transactions over the vendor's table: `given` fields, the others NULL."""
    if not site.exists():
        shutil.copytree(SHIPPED_SQL_DIR, site)
    fields = {"id": '"NoUrut"', "vehno": '"cNoPol"', "weigh1": '"nBruto"'} | given
    lines = [f'{fields.get(f, f"CAST(NULL AS {TYPES[type(k).__name__]})")} AS "{f}"'
             for f, k in TRANSACTIONS.schema._declared_fields.items()
             if not k.dump_only and f != "numberrow"]
    (site / "transactions.sql").write_text(
        "-- name: records\n-- The mill's tickets.\nSELECT\n    " + ",\n    ".join(lines)
        + '\nFROM "dbo"."TBL_TIMBANG";\n')


def check_sql(odbc: str, site: Path, work: Path) -> tuple[float, int, str]:
    """`jembatan check-sql transactions`: seconds, exit status, output."""
    config = work / "config.toml"
    config.write_text(f'[database]\nodbc = "{odbc}"\nsql_dir = "{site}"\nquery_timeout = '
                      f'3600\nprove_on_first_read = false\n[collections]\n'
                      f'serve = ["transactions"]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")} | {
        "JEMBATAN_CONFIG": str(config)}
    began = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "jembatan"), "check-sql",
                           "transactions"], env=env, capture_output=True, text=True,
                          timeout=7200, check=False)
    return time.perf_counter() - began, done.returncode, done.stdout


def service_proof(odbc: str, site: Path) -> tuple[float, int]:
    """The service's proof (3 records): seconds, findings."""
    app = create_app({"database": {"odbc": odbc, "sql_dir": str(site), "query_timeout": 3600,
                                   "prove_on_first_read": False},
                      "collections": {"serve": ["transactions"]}})
    db = services(app).db
    began = time.perf_counter()
    found = proof.confirmed(db, TRANSACTIONS, records=3)
    return time.perf_counter() - began, len(found)


def ddl(output: str) -> list[str]:
    """The statements check-sql prints for the DBA."""
    return [line.strip().rstrip(";") for line in output.splitlines()
            if re.match(r"\s+(ALTER TABLE|CREATE INDEX) ", line)]


def run_ddl(con: pyodbc.Connection, statement: str) -> None:
    """One statement check-sql printed. Babelfish refuses a persisted computed column of a
    conversion (PostgreSQL's generated columns take only immutable expressions, and its
    text-to-date cast depends on DateStyle): there, what SQL Server would store stands in,
    a column of the same type filled once with the same expression."""
    try:
        con.execute(statement)
    except pyodbc.Error as exc:
        m = re.match(r'ALTER TABLE (\S+) ADD (\S+) AS (.*) PERSISTED$', statement)
        if m is None or "immutable" not in str(exc):
            raise
        table, column, expression = m.groups()
        kind = "date" if column.startswith('"jembatan_tgl') else "time"
        print(f"  Babelfish refuses {column} PERSISTED (not immutable in PostgreSQL): a "
              f"{kind} column filled once with the same expression stands in")
        con.execute(f"ALTER TABLE {table} ADD {column} {kind}")
        con.execute(f"UPDATE {table} SET {column} = {expression}")


def measure(odbc: str, rows: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="jembatan-textdates-"))
    site = work / "sql"
    print(f"\n== {rows:,} tickets: loaded in {load(odbc, rows):.1f} s", flush=True)
    mapping(site, CONVERTED)
    seconds, code, output = check_sql(odbc, site, work)
    notes = [line for line in output.splitlines() if line.startswith("      ")
             and ("indexes" in line or "ALTER" in line or "CREATE" in line or "reads on=" in
                  line or "then map" in line)]
    print(f"text dates converted: check-sql {seconds:.1f} s (exit {code}); its note:")
    print("\n".join(notes) or output)
    took, found = service_proof(odbc, site)
    print(f"text dates converted: the service's proof (3 records) {took:.1f} s, "
          f"{found} findings", flush=True)
    with pyodbc.connect(odbc, autocommit=True) as con:
        began = time.perf_counter()
        for statement in dict.fromkeys(ddl(output)):
            run_ddl(con, statement)
    print(f"the DBA's {len(set(ddl(output)))} statements ran in "
          f"{time.perf_counter() - began:.1f} s")
    mapping(site, COMPUTED)
    seconds, code, output = check_sql(odbc, site, work)
    print(f"computed columns, indexed: check-sql {seconds:.1f} s (exit {code}); note "
          f"{'still printed' if 'indexes   ' in output else 'gone'}")
    took, found = service_proof(odbc, site)
    print(f"computed columns, indexed: the service's proof (3 records) {took:.1f} s, "
          f"{found} findings", flush=True)


def main() -> None:
    odbc = os.environ["BENCH_TSQL_ODBC"]
    for rows in [int(a) for a in sys.argv[1:]] or [100_000]:
        measure(odbc, rows)


if __name__ == "__main__":
    main()
