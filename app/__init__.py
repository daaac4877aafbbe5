"""Jembatan: a read-only HTTP API in front of a plant's weighbridge and batching database."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Mapping
from typing import Any

import flask_smorest
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import get_fields
from flask import Flask, Response, json, request
from flask.json.provider import DefaultJSONProvider
from flask_smorest.spec.plugins import FlaskPlugin
from werkzeug.exceptions import Unauthorized
from werkzeug.middleware.proxy_fix import ProxyFix

from .commands.check import check_sql_command
from .commands.mapping import draft_mapping_command
from .core.plan import Planner
from .core.reads import Runner
from .core.unmapped import Proving, Unmapped, from_mapping
from .database.db import Database
from .database.loading import load_queries
from .database.queries import NAMES_FILE
from .http import errors
from .http.answers import Answers
from .http.arguments import reject_all
from .http.routes import (
    CONVERTERS,
    UNDOCUMENTED,
    collection_blueprint,
    register_service_routes,
    service_blueprint,
)
from .http.views import ServiceViews
from .mcp import protocol as mcp
from .mcp.tools import Tools, make_tools
from .model.collections import COLLECTIONS
from .model.schemas import ErrorSchema
from .ops import logs
from .ops.config import SHIPPED_SQL_DIR, Settings, load_settings
from .ops.metrics import Metrics, route_kind

log = logging.getLogger("jembatan")

__all__ = ["create_app"]


class JsonProvider(DefaultJSONProvider):
    sort_keys = False  # keys in the record shape's order (docs/api.md §4)
    ensure_ascii = False  # UTF-8 text as it is, not \\u escapes
    compact = True

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("separators", (",", ":"))
        return super().dumps(obj, **kwargs)


class _Converter(OpenAPIConverter):
    """Leaves out of an operation's parameters the query arguments marked UNDOCUMENTED
    (`format`, `where`: app/http/routes.py), which the route still takes."""

    def schema2parameters(self, schema: Any, *, location: str,
                          **kwargs: Any) -> list[dict[str, Any]]:
        parameters = super().schema2parameters(schema, location=location, **kwargs)
        if location in ("body", "json"):
            return parameters
        hidden = {field.data_key or name for name, field in get_fields(schema).items()
                  if field.metadata.get(UNDOCUMENTED)}
        return [p for p in parameters if p["name"] not in hidden]


class _MarshmallowPlugin(MarshmallowPlugin):
    Converter = _Converter


class _FlaskPlugin(FlaskPlugin):
    """Paths relative to api.url_prefix, which goes into the server entry instead: the
    index is then "/" (not "/api/", a path with a trailing slash) and a client's base URL is
    the API's root, whatever the prefix."""

    def __init__(self, prefix: str):
        super().__init__()
        self.prefix = prefix

    def path_helper(self, rule: Any, operations: Any, parameters: Any,
                    **kwargs: Any) -> str:
        path: str = super().path_helper(rule, operations, parameters, **kwargs)
        return path.removeprefix(self.prefix) or "/"


class Api(flask_smorest.Api):
    ERROR_SCHEMA = ErrorSchema
    # Only the error responses each operation documents: a catch-all "default" would let
    # any status pass as documented.
    DEFAULT_ERROR_RESPONSE_NAME = None

    def __init__(self, app: Flask, prefix: str):
        self.prefix = prefix
        super().__init__(app, spec_kwargs={"marshmallow_plugin": _MarshmallowPlugin(),
                                           "flask_plugin": _FlaskPlugin(prefix)})

    def _openapi_json(self) -> Response:
        """The document with the one server that is right for this request, as a path: the
        root a proxy strips and names in X-Forwarded-Prefix, then api.url_prefix ("/" when
        neither). A fixed entry would be wrong behind such a proxy, and an absolute URL would
        trust the Host header."""
        server = request.script_root + self.prefix or "/"
        spec = self.spec.to_dict() | {"servers": [{"url": server}]}
        return Response(json.dumps(spec, indent=2, sort_keys=False),
                        mimetype="application/json")


class _Flask(Flask):
    """Flask, remembering which functions are sync: it asks inspect about every handler and
    view on every request (a dozen calls, the cost of a whole SQLite lookup); its responses
    say how many records they sent (app/ops/logs.py)."""

    response_class = logs.Counted

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync[func]
        except KeyError:
            sync = super().ensure_sync(func)
            if len(self._sync) < 1024:  # bounded: a per-request closure is not kept
                self._sync[func] = sync
            return sync
        except TypeError:  # an unhashable callable: as Flask does it
            return super().ensure_sync(func)


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the service from settings (docs/api.md §12); `overrides` has the TOML's shape."""
    settings = load_settings(overrides)
    # Only the collections this site serves (collections.serve): the others need no mapping
    # file, have no routes, and their paths answer a 404 that says so (app/http/errors.py).
    served = tuple(c for c in COLLECTIONS if c.name in settings.collections.serve)
    queries = load_queries(settings.database.sql_dir, served, SHIPPED_SQL_DIR)
    unmapped = from_mapping(queries.files, served)  # unfinished: 503s (app/core/unmapped.py)
    logs.configure(settings.log)
    metrics = Metrics()
    db = Database(settings.database, queries, settings.log.slow_query, metrics)

    app = _Flask(__name__, static_folder=None)  # app/http/static is served by its routes only
    # "//" or an encoded "/" in a path is no route (a JSON 404), not an HTML redirect.
    app.url_map.merge_slashes = False
    app.json = JsonProvider(app)
    app.extensions["jembatan"] = {"settings": settings, "db": db, "metrics": metrics,
                                  "collections": served, "unmapped": unmapped}
    # One planner per collection, shared by the faces: the HTTP routes and the MCP tools.
    planners = {c.name: Planner(c) for c in served}
    prefix = settings.api.url_prefix
    api = _api(app, settings)
    keyed = bool(settings.auth.api_keys)
    runner = Runner(db)
    answers = Answers(runner)
    for planner in planners.values():
        api.register_blueprint(collection_blueprint(planner, answers, settings.api, keyed,
                                                      settings.feed, unmapped))
    api.register_blueprint(service_blueprint(ServiceViews(served, db, settings.site.name, unmapped),
                                          settings.api, keyed))
    register_service_routes(app, prefix, metrics, settings.api.metrics_key, settings.site)
    mcp.register(app, prefix, settings.mcp, metrics)  # POST /mcp (app/mcp/protocol.py)
    errors.register(app)
    logs.install(app, done=lambda endpoint, status, seconds, rows, broken: metrics.request(
        route_kind(endpoint), status, seconds, rows if isinstance(rows, int) else None,
        broken))
    _register_auth(app, settings)
    proving = (Proving(db, served, queries.files, unmapped)
               if settings.database.prove_on_first_read else None)
    guard = _guard(unmapped, proving)
    _register_unmapped(app, guard)  # after the key: a stranger learns nothing
    app.extensions["jembatan"]["tools"] = make_tools(Tools(planners, runner, settings, guard))
    app.before_request(_no_arguments)
    _register_headers(app, settings)
    app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1, x_port=1,
                            x_prefix=1)  # type: ignore[method-assign]
    app.cli.add_command(check_sql_command)
    app.cli.add_command(draft_mapping_command)
    app.cli.add_command(mcp.mcp_command)  # flask --app wsgi mcp: MCP on stdio
    # `flask --app wsgi demo-db` comes from setup.cfg's flask.commands entry point, which
    # Flask loads without building the app: the database it creates need not exist yet.
    log.info("Jembatan serves %s (settings: %s)", db.describe, settings.source)
    if len(served) < len(COLLECTIONS):
        log.info("collections served: %s", ", ".join(c.name for c in served))
    if named := queries.names(NAMES_FILE):
        log.info("names beside codes of %s: from %s", ", ".join(named),
                 queries.files[NAMES_FILE])
    unmapped.warn()
    return app


def _api(app: Flask, settings: Settings) -> Api:
    """flask-smorest's Api of this app: the OpenAPI document's settings, the path
    converters, and the key schemes when keys are configured."""
    prefix = settings.api.url_prefix
    app.config.update(
        API_TITLE="Jembatan",
        API_VERSION="1.0",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX=prefix or "/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        # Relative, so that the page finds its files under any prefix a proxy adds.
        OPENAPI_SWAGGER_UI_URL="docs/static/",
        API_SPEC_OPTIONS={
            "info": {"description": _API_DESCRIPTION,
                     "license": {"name": "MIT", "url": "https://spdx.org/licenses/MIT.html"}},
            # With keys configured every operation but /health needs one (docs/api.md §10);
            # without, none does, and the document says so (an empty requirement) rather
            # than declaring schemes nobody checks. 401 is documented only with keys.
            "security": ([{"ApiKey": []}, {"Bearer": []}] if settings.auth.api_keys
                         else []),
        },
    )
    for name, converter in CONVERTERS.items():
        app.url_map.converters[name] = converter
    api = Api(app, prefix)
    if settings.auth.api_keys:
        # Both ways of sending a key, so that Swagger UI's "Authorize" button offers them.
        api.spec.components.security_scheme(
            "ApiKey", {"type": "apiKey", "in": "header", "name": "X-API-Key"})
        api.spec.components.security_scheme("Bearer", {"type": "http", "scheme": "bearer"})
    for converter in CONVERTERS.values():
        api.register_converter(converter, lambda conv: dict(conv.openapi))
    return api


# The routes that take no query argument at all: one is a 400 (docs/api.md §6.2), as
# on the record routes, whose argument schemas say what they take (app/http/routes.py).
_NO_ARGUMENTS = {"service.index", "service.health", "api-docs.openapi_json",
                 "api-docs.openapi_swagger_ui", "docs_slash", "dashboard.dashboard",
                 "report.report_today", "report.report", "script", "metrics", "mcp"}


def _no_arguments() -> None:
    if request.query_string and request.endpoint in _NO_ARGUMENTS:
        reject_all(request.args)


_OPEN_ENDPOINTS = {"api-docs.openapi_json", "api-docs.openapi_swagger_ui", "docs_static",
                   "docs_slash", "favicon", "service.health", "dashboard.dashboard", "metrics",
                   "report.report_today", "report.report", "script",
                   "mcp_refused"}  # a 405 for any method but POST, as elsewhere before a key


def _register_auth(app: Flask, settings: Settings) -> None:
    """API keys (docs/api.md §10): X-API-Key or Authorization: Bearer, compared in constant time."""
    keys = [k.encode() for k in settings.auth.api_keys]
    if not keys:
        log.warning("no API key configured: every endpoint is open to anyone who can reach it")
        return

    @app.before_request
    def require_key() -> None:
        if request.endpoint in _OPEN_ENDPOINTS or request.endpoint is None:
            return
        sent = request.headers.get("X-API-Key", "")
        auth = request.headers.get("Authorization", "")
        if not sent and auth[:7].lower() == "bearer ":
            sent = auth[7:].strip()
        given = sent.encode()
        # Compare with every key, so the time taken does not tell which one nearly matched.
        if not any([hmac.compare_digest(given, key) for key in keys]):
            exc = Unauthorized("an API key is required: send it as X-API-Key: <key> or "
                               "Authorization: Bearer <key>")
            raise exc


def _guard(unmapped: Unmapped, proving: Proving | None) -> Callable[[str], None]:
    """What a read of a collection passes first, whatever face asks: its proof on the first
    read, and NotMapped for one not mapped yet."""
    def guard(collection: str) -> None:
        if proving is not None:
            proving.ensure(collection)
        if unmapped:
            unmapped.check(collection)
    return guard


def _register_unmapped(app: Flask, guard: Callable[[str], None]) -> None:
    """Every route of a collection not mapped yet answers 503 (app/http/errors.py), before its
    arguments are read, and its first read proves it first (`guard`); a CORS preflight
    (OPTIONS) reads nothing and passes."""

    @app.before_request
    def refuse_unmapped() -> None:
        if request.method != "OPTIONS":
            guard(request.blueprint or "")


# What a browser page may read of an answer: the paging and the feed's headers among them.
_EXPOSED = "X-Pagination, Link, X-Request-ID, Retry-After, X-Bookmark, X-Bookmark-Repeats"


def _register_headers(app: Flask, settings: Settings) -> None:
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


_API_DESCRIPTION = """\
Read-only access to the plant's weighbridge transactions, vehicles, master data and batching
records. Every collection offers: all records (streamed), a page (`/page/{n}`,
`?page_size=`), one record by key, and where it has dates a date range
(`/date/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir}`, both bounds inclusive, `?on=` picks the
date/time pair, `?page=&page_size=` pages it). Each also answers CSV (`?format=csv` or
`Accept: text/csv`), told in each operation's description rather than listed as a response,
so that clients generated from this document keep the JSON types.

Values: dates `YYYY-MM-DD`, times `HH:MM:SS` (with `.ffffff` only where the value has a
fraction), datetimes `YYYY-MM-DDTHH:MM:SS` in plant local time; DECIMAL columns are JSON
numbers; a NULL is `null` and every field is always present. Errors are JSON
`{"code", "status", "message"}`; 400 for malformed input, 404 for no such record, 503 with
`Retry-After` when the database cannot be reached, and 503 without it, with an `unmapped`
list of fields, on every route of a collection this site has not finished mapping yet.
"""
