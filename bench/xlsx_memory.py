"""An Excel export of a whole table from a real gunicorn: the server's peak RSS, rows/s, and
whether every record is in the workbook (the target: memory flat, < 150 MB, whatever the size).

    .venv/bin/jembatan demo-db --path bench/data/rows-1100000/bench.sqlite3 --rows 1100000
    .venv/bin/python bench/xlsx_memory.py [bench/data/rows-1100000/bench.sqlite3]

Jembatan serves the file with gunicorn.conf.py's worker class, one worker; the body goes to a
temporary file as it comes, and is then read back sheet by sheet (harness.count_xlsx). With
more than 1,048,575 transactions this is also the check of the real sheet limit that
tests/test_xlsx.py lowers: sheet 1 holds 1,048,576 rows (the header's included) and the rest
go on in sheet 2, each with its header. Exits 1 if a target is missed.
"""

from __future__ import annotations

import http.client
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import harness
from harness import ROOT, RssSampler, Server

RSS_TARGET_MB = 150
SHEET_ROWS = 1_048_576  # Excel's rows in a sheet, the header's included


def main(db: Path) -> int:
    if not db.exists():
        print(f"no {db}: build it with the first command of bench/xlsx_memory.py's docstring")
        return 2
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        records = con.execute("SELECT count(*) FROM transactions").fetchone()[0]
    config = Path(tempfile.mkdtemp(prefix="jembatan-xlsx-")) / "config.toml"
    config.write_text(f'[database]\nsqlite = "{db.resolve()}"\n')
    port = harness.free_port()
    argv = [".venv/bin/gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
            "--timeout", "600", "wsgi:app"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    with Server("jembatan", argv, port, "/health", env | {"JEMBATAN_CONFIG": str(config)},
                cores=harness.SERVER_CORE, worker_processes=True) as server, \
            tempfile.TemporaryFile() as body:
        with RssSampler(server.pids()) as rss:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            started = time.perf_counter()
            conn.request("GET", "/transactions?format=xlsx")
            response = conn.getresponse()
            first = None
            while data := response.read1(1 << 20):
                first = first or time.perf_counter()
                body.write(data)
            seconds = time.perf_counter() - started
            conn.close()
        size = body.tell()
        body.seek(0)
        check = harness.count_xlsx(body)  # type: ignore[arg-type]
    peak = rss.peak_each_kib / 1024
    sheets = check.get("sheets", [])
    want = [min(SHEET_ROWS, records - n * (SHEET_ROWS - 1) + 1)
            for n in range(-(-records // (SHEET_ROWS - 1)))]
    print(f"GET /transactions?format=xlsx, {records:,} records: status {response.status}, "
          f"{size / 1e6:.1f} MB in {seconds:.1f} s = {records / seconds:,.0f} rows/s, first "
          f"byte {1000 * ((first or time.perf_counter()) - started):.0f} ms")
    print(f"server worker peak RSS {peak:.1f} MB (before the request "
          f"{rss.baseline_kib / 1024:.1f} MB; target < {RSS_TARGET_MB} MB)")
    print(f"workbook: {check['detail']}; expected sheets of {want} rows")
    ok = (response.status == 200 and check["valid"] and check["rows"] == records
          and sheets == want and peak < RSS_TARGET_MB)
    print("OK" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1
                       else ROOT / "bench/data/rows-1100000/bench.sqlite3")))
