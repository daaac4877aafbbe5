"""Jembatan with a contract feature taken out, for `make bench` to price it.

    BENCH_WITHOUT=metrics .venv/bin/gunicorn --workers 1 --timeout 300 bench.variant:app
    BENCH_WITHOUT=log     ...                  (or metrics,log: both)

The app of wsgi.py, built the same way, then changed here, in the benchmark only: Jembatan
itself has no setting that turns either off (the metrics are part of the API, docs/api.md §11;
the access log, docs/deploy.md "Logs").

- metrics: no figure is recorded (a request's counters and latency, each query's latency):
  the Metrics object's recording methods do nothing. /metrics still answers, with zeros.
- log: no access line is written: the `jembatan.access` logger's level is WARNING, so its
  INFO line is refused at once, neither made into a record nor formatted nor written. The
  request id, its X-Request-ID header and the work at the end of the response that feeds
  the metrics stay.

bench/run.py serves each beside Jembatan in the same rounds: the difference of their times
(1 / req/s) is what the feature costs a request.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from app.core.services import services
from wsgi import app

WITHOUT = set(filter(None, os.environ.get("BENCH_WITHOUT", "").split(",")))
if not WITHOUT <= {"metrics", "log"}:
    raise SystemExit(f"BENCH_WITHOUT: metrics, log or both, not {sorted(WITHOUT)}")


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


if "metrics" in WITHOUT:
    metrics = services(app).metrics
    for name in ("request", "query", "database_error", "mapping_error"):
        setattr(metrics, name, _nothing)  # the instance's own: looked up on every call
if "log" in WITHOUT:
    logging.getLogger("jembatan.access").setLevel(logging.WARNING)
