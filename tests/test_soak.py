"""A short soak (bench/soak.py): gunicorn as deployed, 32 concurrent clients, a few thousand
requests over every endpoint kind including full-table streams: zero errors and every body
complete. The full run (and its p99 and RSS figures) is `python bench/soak.py`."""

from __future__ import annotations

import time
from pathlib import Path

from app.commands.demo import build_demo_database
from bench.soak import DEPLOYED, report, run_soak, worker_rss
from tests.servers import gunicorn


def test_short_soak_has_no_errors_and_complete_bodies(tmp_path: Path) -> None:
    database = tmp_path / "demo.sqlite3"
    build_demo_database(database)
    with gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database)}, *DEPLOYED) as server:
        rss_start = worker_rss(server.process.pid)
        start = time.monotonic()
        outcome = run_soak(server.base, database, total=2000, clients=32)
        figures = report(outcome, rss_start, worker_rss(server.process.pid),
                         time.monotonic() - start)
    print(f"short soak: {figures}")
    assert outcome.count == 2000
    assert outcome.errors == []
