"""Who may reach what, and what every answer carries: the API keys, the routes that take no
query argument, the 503 of a collection not mapped yet (before its arguments are read), and
the headers of every answer (nosniff, CORS for the configured origins)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, Response, g, has_request_context, request
from werkzeug.exceptions import Forbidden, NotFound, TooManyRequests, Unauthorized

from ..model.collections import Collection
from ..ops.config import ApiKey, Settings
from .arguments import reject_all

log = logging.getLogger("jembatan")

# The service's endpoints outside a collection, by how they are reached: `open`, without a
# key even when keys are configured (docs/api.md §10); `bare`, taking no query argument at
# all, so that one is a 400 (docs/api.md §6.2), as on the record routes, whose argument
# schemas say what they take (app/http/argument_schemas.py). Every collection's routes need
# a key and take their own arguments.
@dataclass(frozen=True)
class Reach:
    open: bool
    bare: bool


ENDPOINTS: dict[str, Reach] = {
    "service.index": Reach(open=False, bare=True),
    "service.health": Reach(open=True, bare=True),
    "api-docs.openapi_json": Reach(open=True, bare=True),
    "api-docs.openapi_swagger_ui": Reach(open=True, bare=True),
    "docs_slash": Reach(open=True, bare=True),
    "docs_static": Reach(open=True, bare=False),
    "favicon": Reach(open=True, bare=False),
    "dashboard.dashboard": Reach(open=True, bare=True),
    "report.report_today": Reach(open=True, bare=True),
    "report.report": Reach(open=True, bare=True),
    "report_figures": Reach(open=False, bare=True),  # the report page's data, as the API's
    "script": Reach(open=True, bare=True),
    "metrics": Reach(open=True, bare=True),  # its own key, [api] metrics_key; without
    # one, a key that reads everything (register_auth)
    "mcp": Reach(open=False, bare=True),
    "mcp_refused": Reach(open=True, bare=False),  # a 405 for any method but POST, as
    # elsewhere before a key
}
METRICS = "metrics"
_NO_ARGUMENTS = frozenset(name for name, reach in ENDPOINTS.items() if reach.bare)
_OPEN = frozenset(name for name, reach in ENDPOINTS.items() if reach.open)


def no_arguments() -> None:
    """A query argument on an endpoint that takes none is a 400 that says so."""
    if request.query_string and request.endpoint in _NO_ARGUMENTS:
        reject_all(request.args)


def bound_collection(app: Flask) -> Collection | None:
    """The collection whose route this request reached: the one its view is bound to
    (app/http/routes.py); None on the service's own routes and where no route matched."""
    return getattr(app.view_functions.get(request.endpoint or ""), "collection", None)


def current_key() -> ApiKey | None:
    """The key this request was let in with (docs/api.md §10); None without keys, on an
    open endpoint, and outside a request (the stdio MCP command): everything."""
    return g.get("api_key") if has_request_context() else None


def sent_key() -> str:
    """The key a request sends: X-API-Key, else Authorization: Bearer <key>; "" for none, and
    for an empty or blank one (`X-API-Key: `, `Authorization: Bearer `), which is no key."""
    sent = request.headers.get("X-API-Key", "")
    sent = sent if sent.strip() else ""  # a blank one is none (and a key with blanks at its
    # ends no key at all: app/ops/config.py refuses such a key)
    auth = request.headers.get("Authorization", "")
    if not sent and auth[:7].lower() == "bearer ":
        sent = auth[7:].strip()
    return sent


def register_auth(app: Flask, settings: Settings) -> None:
    """API keys (docs/api.md §10): X-API-Key or Authorization: Bearer, its SHA-256 compared
    in constant time with every key's; the key found kept for the request (`current_key`),
    a collection outside its scope a 404 (app/http/errors.py), and its reads at once held
    to its max_concurrent (a 429 past it)."""
    keys = settings.auth.keys
    if not keys:
        log.warning("no API key configured: every endpoint is open to anyone who can reach it")
        return
    gates = {k.name: threading.BoundedSemaphore(k.max_concurrent)
             for k in keys if k.max_concurrent}
    origins = set(settings.api.cors_origins)
    # /metrics names every key and counts its requests: without a metrics key of its own,
    # it needs a key that reads everything (docs/api.md §11).
    open_doors = _OPEN if settings.api.metrics_key else _OPEN - {METRICS}

    @app.before_request
    def require_key() -> None:
        if request.endpoint in open_doors or request.endpoint is None or preflight(origins):
            return
        sent = sent_key()
        given = hashlib.sha256(sent.encode()).digest()
        # Compare with every key, so the time taken does not tell which one nearly matched;
        # no key sent matches none, whatever digest the settings hold.
        found = [k for k in keys if hmac.compare_digest(given, k.digest) and sent]
        if not found:
            raise Unauthorized("an API key is required: send it as X-API-Key: <key> or "
                               "Authorization: Bearer <key>")
        key = g.api_key = found[0]
        if request.endpoint == METRICS and not key.reads_everything:
            raise Forbidden(f"/metrics counts every key's requests: it needs a key that reads "
                            f"everything, and the key {key.name} has a scope; or set "
                            f"api.metrics_key and send Authorization: Bearer <metrics_key>")
        if (c := bound_collection(app)) is not None and not key.reads(c.name):
            raise NotFound()  # as a collection this site does not serve (errors.py)
        gate = gates.get(key.name)
        if gate is not None:
            if not gate.acquire(blocking=False):
                raise TooManyRequests(
                    f"the key {key.name} has {key.max_concurrent} "
                    f"request{'s' if key.max_concurrent > 1 else ''} running in this process, "
                    f"as many as it may (auth.keys.{key.name}.max_concurrent): retry when one "
                    f"has finished", retry_after=1)
            g.held = gate

    @app.after_request
    def release_on_close(response: Response) -> Response:
        gate = g.pop("held", None)
        if gate is not None:  # held until the last byte of a stream has gone
            response.call_on_close(gate.release)
        return response

    @app.teardown_request
    def release(_: BaseException | None) -> None:
        gate = g.pop("held", None)  # no response made (after_request not run)
        if gate is not None:
            gate.release()


def preflight(origins: set[str]) -> bool:
    """Whether this request is a browser's CORS preflight from an allowed origin: it carries
    no key (browsers never send one on a preflight) and reads nothing, so it is answered
    without one (docs/api.md §10)."""
    origin = request.headers.get("Origin")
    return (request.method == "OPTIONS" and origin is not None
            and "Access-Control-Request-Method" in request.headers
            and ("*" in origins or origin in origins))


def register_unmapped(app: Flask, guard: Callable[[str], None]) -> None:
    """Every route of a collection not mapped yet answers 503 (app/http/errors.py), before its
    arguments are read, and its first read proves it first (`guard`); a CORS preflight
    (OPTIONS) reads nothing and passes."""

    @app.before_request
    def refuse_unmapped() -> None:
        if request.method != "OPTIONS":
            c = bound_collection(app)
            guard("" if c is None else c.name)


# What a browser page may read of an answer: the paging, the feed's and the summaries'
# headers among them.
_EXPOSED = ("X-Pagination, Link, X-Request-ID, Retry-After, X-Bookmark, X-Bookmark-Repeats, "
            "X-Left-Out")


def register_headers(app: Flask, settings: Settings) -> None:
    """nosniff on everything; CORS only for the configured origins (off by default)."""
    origins = set(settings.api.cors_origins)

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers["X-Content-Type-Options"] = "nosniff"
        origin = request.headers.get("Origin") if origins else None
        if origin and ("*" in origins or origin in origins):
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = _EXPOSED
            response.headers.add("Vary", "Origin")
            if request.method == "OPTIONS":  # a browser's preflight
                response.headers["Access-Control-Allow-Methods"] = "GET, HEAD"
                response.headers["Access-Control-Allow-Headers"] = (
                    "X-API-Key, Authorization, X-Request-ID")
                response.headers["Access-Control-Max-Age"] = "600"
        return response


