"""Each request's id and its outcome, and its access line (app/ops/logs.py) written when its
response is done: for a stream, when its last byte has gone. A view, a streamer or an error
handler reports what it sent to `outcome()`, an object made for the request."""

from __future__ import annotations

import time
from collections.abc import Callable

from flask import Flask, Response, g, request

from ..ops.logs import REQUEST_ID, Outcome, new_id, redacted, write_access

__all__ = ["install", "outcome", "request_id"]

# done(endpoint, status, seconds, rows, broken, key): the metrics' view of a request
Done = Callable[[str | None, int, float, int | None, bool, str | None], None]


def request_id() -> str:
    """This request's id: the client's X-Request-ID when it is sane, else a new one."""
    kept = g._get_current_object()  # one look-up of the context, not one per use
    rid = kept.get("request_id")
    if rid is None:
        # request.headers.get("X-Request-ID", ""), without the header object's key
        # translation and its KeyError when the header is absent
        sent = request.environ.get("HTTP_X_REQUEST_ID", "")
        rid = kept.request_id = sent if sent and REQUEST_ID.fullmatch(sent) else new_id()
    return str(rid)


def outcome() -> Outcome:
    """This request's outcome, which its face fills in (made at its start)."""
    kept = g._get_current_object()
    found = kept.get("outcome")
    if found is None:
        found = kept.outcome = Outcome()
    return found  # type: ignore[no-any-return]


def install(app: Flask, done: Done | None = None) -> None:
    """Request ids, and the access line written when the response is done (for a stream,
    when its last byte has gone); then `done(endpoint, status, seconds, rows, broken, key)`,
    for the metrics (`key`: the name of the API key the request came in with, else None)."""

    @app.before_request
    def start() -> None:
        kept = g._get_current_object()
        kept.started, kept.outcome = time.monotonic(), Outcome()
        request_id()

    @app.after_request
    def finish(response: Response) -> Response:
        rid = request_id()
        response.headers["X-Request-ID"] = rid
        req, kept = request._get_current_object(), g._get_current_object()
        started = kept.get("started")
        if started is None:
            started = time.monotonic()
        method, status = req.method, response.status_code
        path = redacted(req.full_path.rstrip("?"))
        client = req.remote_addr or "-"
        told = outcome()
        endpoint = req.endpoint
        api_key = kept.get("api_key")  # its name, never the key (app/http/access.py)
        key = api_key.name if api_key is not None else None

        def line() -> None:
            took = time.monotonic() - started
            if done is not None:
                done(endpoint, status, took, told.rows, told.broken, key)
            write_access(client, rid, method, path, status, took, told, key)

        response.call_on_close(line)
        return response
