"""The fault soak (bench/faults.py) end to end: Jembatan as `make run` serves it
(gunicorn, 2 workers x 4 threads) over each driver plants install (FreeTDS at TDS 7.4,
Microsoft's ODBC Driver 18) from a T-SQL server of ../shared/tsql on free ports, 16 clients
reading lists (some streamed), pages, records by key and ranges while the server is stopped
and started three times. Every answer a 200 with a complete body or a 503 JSON error with
Retry-After, none a 500; a 200 again within RECOVERY[driver] of each start; the same worker
processes at the end."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model.tables import column_types
from tests.mssql import DRIVERS, FREETDS, MSODBC18, TSQL_DIR, odbc_string, require_driver
from tests.servers import ROOT, free_port

TSQL = TSQL_DIR
CONNECT_TIMEOUT = 3  # 8 cold logins at once after a restart
# How soon after each start a 200 must come back, by driver (bench/faults.py --recovery; it is
# also the load's window before each stop and after the last start). FreeTDS refuses at once
# while the server is down, so its connects after the start succeed: connect_timeout + 1 s.
# A Driver 18 connect begun while the server was down tries again until the server is back
# and then may take seconds more, past its login timeout (here 2.5 s after the server's
# return, 5.2 s after it began with a login timeout of 3 s; the soak's first 200 came 5.1 s
# after a start): twice connect_timeout + 1 s.
RECOVERY = {FREETDS: CONNECT_TIMEOUT + 1, MSODBC18: 2 * CONNECT_TIMEOUT + 1}
# Rows per table: three lists long enough to be streamed (2,000 records or more), the rest
# sent whole. Every date column spreads its rows over 7 days.
ROWS = {"transactions": 5000, "weighing": 3000, "timbangan1": 2500, "timbangan2": 300,
        "customers": 40, "products": 12, "transporters": 6, "vehicles": 25, "bricon2": 200,
        "biao1": 150}
NUMBERED = ("id", "no_produksi", "no_produksi_")


def run(script: str, env: dict[str, str]) -> str:
    done = subprocess.run([str(TSQL / script)], env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, f"tsql/{script}: {done.stderr[-3000:]}"
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def create_site(odbc: str) -> None:
    """Every collection's table (app/model/tables.py's SQL Server types) with ROWS rows, made by
    the server from a table of digits: n in the key columns, dates over a week, 07:00."""
    import pyodbc

    with pyodbc.connect(odbc, autocommit=True) as conn:
        cursor = conn.cursor()
        cursor.execute("CREATE TABLE #digits (d int)")
        cursor.execute("INSERT INTO #digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), "
                       "(8), (9)")
        digits = " CROSS JOIN ".join(f"#digits AS d{n}" for n in range(4))
        number = "1 + " + " + ".join(f"{10 ** n} * d{n}.d" for n in range(4))
        for table, columns in column_types("mssql").items():
            cursor.execute(f'CREATE TABLE "{table}" ('
                           + ", ".join(f'"{c}" {t}' for c, t in columns.items()) + ")")
            values = {c: "n" for c in columns if c in NUMBERED}
            values |= {c: "DATEADD(day, n % 7, CAST('2026-11-01' AS date))"
                       for c, t in columns.items() if t == "date"}
            values |= {c: f"CAST('07:00:00' AS {t})" for c, t in columns.items()
                       if t.startswith("time")}
            cursor.execute(f'INSERT INTO "{table}" (' + ", ".join(f'"{c}"' for c in values)
                           + ") SELECT " + ", ".join(values.values())
                           + f" FROM (SELECT {number} AS n FROM {digits}) AS numbers "
                           f"WHERE n <= {ROWS[table]}")


@pytest.fixture(scope="module")
def tsql() -> Iterator[tuple[dict[str, str], str]]:
    """A T-SQL server on free ports with the site's tables: (its scripts' env, ODBC string)."""
    if not (TSQL / "start").is_file():
        pytest.skip(f"no T-SQL server here: {TSQL / 'start'} does not exist")
    if os.geteuid() != 0:
        pytest.skip("../shared/tsql/start needs root")
    port, pg_port = free_port(), free_port()
    while pg_port == port:
        pg_port = free_port()
    env = os.environ | {"TSQL_PORT": str(port), "TSQL_PG_PORT": str(pg_port)}
    try:
        odbc = run("start", env)
        create_site(odbc)
        yield env, odbc
    finally:
        subprocess.run([str(TSQL / "stop"), "--immediate"], env=env, capture_output=True,
                       timeout=120)
        shutil.rmtree(f"/tmp/jembatan-tsql-{port}", ignore_errors=True)


@pytest.mark.parametrize("driver", DRIVERS)
def test_stopped_and_started_three_times_under_load(tsql: tuple[dict[str, str], str],
                                                    driver: str, tmp_path: Path) -> None:
    """bench/faults.py's verdict PASS, and its counts and recoveries as the docstring says."""
    require_driver(driver)
    env, printed = tsql
    odbc = odbc_string(printed, driver)
    limit = RECOVERY[driver]
    config = tmp_path / "jembatan.toml"
    config.write_text(f"[database]\nconnect_timeout = {CONNECT_TIMEOUT}\n")
    env = {k: v for k, v in env.items() if not k.startswith("JEMBATAN_")}
    env |= {"JEMBATAN_CONFIG": str(config), "PYTHONFAULTHANDLER": "1"}
    # The default stop and start commands: ../shared/tsql's stop and resume on TSQL_PORT.
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "faults.py"), "--odbc", odbc, "--cycles", "3",
         "--up", str(limit), "--down", "2", "--after", str(limit), "--recovery", str(limit),
         "--log", str(tmp_path / "gunicorn.log")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "result: PASS" in done.stdout
    counts = re.search(r"^counts: 200=(\d+) 503=(\d+) 500=(\d+) other=(\d+) no_answer=(\d+) "
                       r"broken=(\d+) short=(\d+) wrong=(\d+)$", done.stdout, re.M)
    assert counts, done.stdout
    _, unavailable, failed, other, no_answer, _, short, wrong = map(int, counts.groups())
    assert failed == other == no_answer == short == wrong == 0
    # The server was really down, and back: 503s, and each kind of read answered while it
    # was up. How many 200s is the machine's speed, not the service's behaviour: on one idle
    # machine: 81 in a whole .ci/run here, then 170 and 95 alone (more than 100 was asserted).
    assert unavailable > 0
    kinds = dict(re.findall(r"^  (key|list|page|range): ok=(\d+) ", done.stdout, re.M))
    assert sorted(kinds) == ["key", "list", "page", "range"], done.stdout
    assert all(int(n) > 0 for n in kinds.values()), kinds
    recoveries = re.findall(r"^cycle \d: first 200 after the start returned: ([\d.]+) s; "
                            r"503s to requests made [\d.]+ s or more after it: 0$",
                            done.stdout, re.M)
    assert len(recoveries) == 3, done.stdout
    assert all(float(s) <= limit for s in recoveries)
    assert re.search(r"^workers: before \[\d+, \d+\], after \[\d+, \d+\]$", done.stdout, re.M)
