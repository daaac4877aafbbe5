"""The framework floor of `make bench`: a bare Flask app, one route, a fixed 1 KB JSON body.

    .venv/bin/gunicorn --workers 1 --threads 1 --timeout 300 bench.floor:app   (as bench/run.py)

What one request costs through gunicorn's sync worker and Flask with nothing of Jembatan's in
it: no database, no arguments, no access line, no metrics. A work's limit (bench/limit.py)
plus this is the most one worker could answer of that work: its ceiling (bench/report.py).
"""

from __future__ import annotations

import json

from flask import Flask, Response

PATH = "/floor"
SIZE = 1024


def _body(size: int) -> bytes:
    """A JSON object of exactly `size` bytes, about a record's size (a row by id of the
    benchmark's transactions is some 1 KB)."""
    skeleton = json.dumps({"id": 1, "padding": ""}, separators=(",", ":")).encode()
    return json.dumps({"id": 1, "padding": "x" * (size - len(skeleton))},
                      separators=(",", ":")).encode()


# Built once: encoding the body is the application's work, not the framework's, so the floor
# leaves it out (Jembatan's own encoding is in its limit).
BODY = _body(SIZE)
assert len(BODY) == SIZE

app = Flask(__name__)


@app.get(PATH)
def floor() -> Response:
    return Response(BODY, mimetype="application/json")
