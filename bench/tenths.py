"""Where a request's time goes, in tenths of a millisecond: a py-spy raw profile of the
gunicorn worker (`py-spy record --format raw`), cut into the parts of a request.

    .venv/bin/python bench/tenths.py PROFILE.txt REQ_S

REQ_S: the requests a second the worker answered while it was profiled (wrk's figure), so
that a share of the busy samples becomes µs a request. Each sample goes to the first part
in PARTS whose marker is a frame of its stack: a metrics call inside the access line's
function counts as metrics, a database call inside the view as SQLite. For the
performance targets: where Jembatan is below 90 % of a work's ceiling, name where each
remaining tenth of a millisecond goes.
"""

from __future__ import annotations

import sys
from collections import Counter

# (part, frames that mark it), in order: a sample is the first part with a marker in it.
PARTS = (
    ("metrics (prometheus_client, app/ops/metrics.py)", ("Metrics.request", "Metrics.query")),
    ("access line (logging, app/ops/logs.py _write_access)", ("_write_access", "Logger.info")),
    ("request id, access line's fields (app/ops/logs.py start, finish)",
     ("install.<locals>.start", "install.<locals>.finish", "request_id")),
    ("SQLite: execute and fetch (app/database/db.py)", ("Database.execute", "Result._fetch",
                                               "Database.count", "Database.scalar")),
    ("encoding records (app/formats/encoding.py)", ("RecordEncoder.", "SummaryEncoder.")),
    ("streaming: spool and its thread (app/http/streaming.py)", ("Spool.", "SpooledStream.")),
    ("ETag, headers, Response (app/core/reads.py)",
     ("_whole (", "_response (", "_page_headers (", "_link (")),
    ("views and the runner (app/http/views.py, app/core/reads.py, other)",
     ("app/http/views.py", "app/core/reads.py")),
    ("arguments: webargs / flask-smorest parsing", ("Parser.parse", "load_querystring")),
    ("flask-smorest wrappers", ("flask_smorest",)),
    ("before/after hooks (app/http/access.py)", ("no_arguments", "register_headers",
                                                 "require_key")),
    ("Flask/werkzeug: request context, routing, response", ("Flask.", "werkzeug")),
    ("gunicorn: accept, parse, send, close", ("gunicorn",)),
)
WAITING = ("SyncWorker.wait", "select (", "Condition.wait", "Event.wait", "Thread.join")


def parts(path: str) -> tuple[Counter[str], int]:
    found: Counter[str] = Counter()
    busy = 0
    for line in open(path):
        stack, _, n = line.rstrip().rpartition(" ")
        frames = stack.split(";")
        if any(w in frames[-1] for w in WAITING):
            continue
        busy += int(n)
        part = next((p for p, marks in PARTS
                     if any(m in frame for frame in frames for m in marks)), "other")
        found[part] += int(n)
    return found, busy


def main(argv: list[str]) -> None:
    found, busy = parts(argv[0])
    per_request_us = 1e6 / float(argv[1])
    print(f"{busy} busy samples; {per_request_us:.0f} µs a request at {argv[1]} req/s")
    print("| Part | Share of busy samples | µs a request |")
    print("|---|---|---|")
    for part, n in found.most_common():
        print(f"| {part} | {100 * n / busy:.1f} % | {per_request_us * n / busy:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
