"""Jembatan: a read-only HTTP API in front of a plant's weighbridge and batching database."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask

from .commands.check import check_sql_command
from .commands.mapping import draft_mapping_command
from .core.absent import absent_fields
from .core.mapped import Checks, Refusals
from .core.plan import Planner
from .core.reads import Pulse, Runner
from .core.services import KEY, Services
from .core.unmapped import Proving, from_mapping, read_guard
from .core.verdicts import Keeper
from .database.db import Database
from .database.loading import load_queries
from .database.queries import NAMES_FILE, Queries
from .formats.headings import Headings
from .http import errors, logged
from .http.access import no_arguments, register_auth, register_headers, register_unmapped
from .http.answers import Answers
from .http.application import Application, JsonProvider
from .http.hosts import Doors, register_hosts
from .http.openapi import build_api
from .http.routes import (
    collection_blueprint,
    register_report_figures,
    register_service_routes,
    route_kinds,
    service_blueprint,
)
from .http.service_views import ReportFigures, ServiceViews
from .mcp import protocol as mcp_face  # not `mcp`: app.mcp is the package
from .mcp.tools import Tools, make_tools
from .model.collections import COLLECTIONS, Collection
from .ops import logs
from .ops.config import (
    SHIPPED_SQL_DIR,
    ApiKey,
    ConfigError,
    Settings,
    load_settings,
    with_secrets,
)
from .ops.metrics import Metrics, route_kind

log = logging.getLogger("jembatan")

__all__ = ["create_app"]


def refuse_unscoped(queries: Queries, served: tuple[Collection, ...],
                    keys: tuple[ApiKey, ...]) -> None:
    """A key's row condition is added to every read as filters (app/core/plan.py): a site's
    own query of a collection it reads that takes none would be run without it."""
    for key in keys:
        for c in served:
            reads = [n for n in c.query_names() if n != "by_key"]  # by key: `all`, filtered
            if key.where and key.reads(c.name) and (bare := queries.unfiltered(c.name, reads)):
                raise ConfigError(
                    f"auth.keys.{key.name}.where: {c.name}'s own {bare[0]} in "
                    f"{queries.files[c.name]} takes no filters ({{where_filters}} or "
                    f"{{and_filters}}, as sql/shapes.sql's), so it cannot hold the key to "
                    f"its rows: add them, or leave {c.name} out of the key's collections")


def mcp_server(planners: Mapping[str, Planner], runner: Runner, settings: Settings,
               guard: Callable[[str], None], metrics: Metrics) -> mcp_face.Server:
    """The MCP face's server with its tools: the app's table and, for a key with a scope,
    a table of its own collections, each read within its row condition."""
    return mcp_face.Server(
        make_tools(Tools(planners, runner, settings, guard)), metrics, settings.mcp,
        {key.name: make_tools(Tools({name: p.within(key) for name, p in planners.items()
                                     if key.reads(name)}, runner, settings, guard))
         for key in settings.auth.keys
         if key.collections is not None or key.where or key.fields is not None})


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the service from settings (docs/api.md §12); `overrides` has the TOML's shape."""
    settings = with_secrets(load_settings(overrides))  # the bookmarks' too, read once
    # Only the collections this site serves (collections.serve): the others need no mapping
    # file, have no routes, and their paths answer a 404 that says so (app/http/errors.py).
    # A master keyed by a text code (collections.text_keys) sends and takes its id as text.
    served = tuple(c.keyed_by_text() if c.name in settings.collections.text_keys else c
                   for c in COLLECTIONS if c.name in settings.collections.serve)
    queries = load_queries(settings.database.sql_dir, served, SHIPPED_SQL_DIR)
    unmapped = from_mapping(queries.files, served)  # unfinished: 503s (app/core/unmapped.py)
    refuse_unscoped(queries, served, settings.auth.keys)
    logs.configure(settings.log)
    # No key in any log line, wherever a client put it (docs/deploy.md, "Logs").
    metrics_key = [settings.api.metrics_key] if settings.api.metrics_key else []
    logs.hide_keys([k.digest for k in settings.auth.keys]
                   + [hashlib.sha256(k.encode()).digest() for k in metrics_key],
                   [k.text for k in settings.auth.keys if k.text] + metrics_key)
    metrics = Metrics()
    db = Database(settings.database, queries, settings.log.slow_query, metrics)

    app = Application(__name__, static_folder=None)  # app/http/static is served by its routes only
    # "//" or an encoded "/" in a path is no route (a JSON 404), not an HTML redirect.
    app.url_map.merge_slashes = False
    app.json = JsonProvider(app)
    # One planner per collection, shared by the faces: the HTTP routes and the MCP tools; its
    # workbooks head their columns with the site's labels, less the fields it maps to NULL.
    absent = absent_fields(queries.files, served)  # mapped to NULL: no such column here
    planners = {c.name: Planner(c, Headings(settings.site.fields, frozenset(absent[c.name])))
                for c in served}
    prefix = settings.api.url_prefix
    api = build_api(app, settings)
    keyed = bool(settings.auth.keys)
    runner = Runner(db, Refusals(db, unmapped))
    answers = Answers(runner)
    for planner in planners.values():
        api.register_blueprint(collection_blueprint(planner, answers, settings.api, keyed,
                                                      settings.feed, unmapped))
    checks = Checks(db, served, unmapped, settings.database.mapping_check)
    views = ServiceViews(served, runner, Pulse(runner, settings.database.ping_keep), checks,
                         settings.site.name, unmapped, settings.feed.zone,
                         dict(settings.site.fields))
    api.register_blueprint(service_blueprint(views, settings.api, keyed))
    register_service_routes(app, prefix, metrics, settings.api.metrics_key, settings.site,
                            absent)
    # The proof in the background, its verdicts kept for every process (app/core/verdicts.py).
    proving = (Proving(db, served, queries.files, unmapped,
                       Keeper(settings.database.proof_dir, db.describe),
                       settings.database.proof_wait)
               if settings.database.prove_on_first_read else None)
    guard = read_guard(unmapped, proving, checks.due)
    server = mcp_server(planners, runner, settings, guard, metrics)
    register_report_figures(app, prefix, ReportFigures(planners, runner, guard,
                                                       settings.site.name))
    app.extensions[KEY] = Services(settings, db, runner, metrics, served, unmapped, proving,
                                   server, checks)
    mcp_face.register(app, prefix, server)  # POST /mcp (app/mcp/protocol.py)
    errors.register(app)
    kinds = route_kinds(served) | {mcp_face.ENDPOINT: "mcp"}  # the metrics' kinds of requests
    logged.install(app, done=lambda endpoint, status, seconds, rows, broken, key: metrics.request(
        route_kind(endpoint, kinds), status, seconds, rows if isinstance(rows, int) else None,
        broken, key))
    register_hosts(app, settings.api)  # before the key: a host not allowed is a 400 anyway
    register_auth(app, settings)
    register_unmapped(app, guard)  # after the key: a stranger learns nothing
    app.before_request(no_arguments)
    register_headers(app, settings)
    # X-Forwarded-* from the trusted proxies only; the public URL (app/http/hosts.py).
    app.wsgi_app = Doors(app.wsgi_app, settings.api)  # type: ignore[method-assign]
    # The `flask --app wsgi ...` forms of the commands (`jembatan ...`: app/console/cli.py).
    app.cli.add_command(check_sql_command)
    app.cli.add_command(draft_mapping_command)
    app.cli.add_command(mcp_face.mcp_command)  # flask --app wsgi mcp: MCP on stdio
    # `flask --app wsgi demo-db` comes from setup.cfg's flask.commands entry point, which
    # Flask loads without building the app: the database it creates need not exist yet.
    log.info("Jembatan serves %s (settings: %s)", db.describe, settings.source)
    if settings.database.proof_dir is not None:  # resolved: the working directory's, or not
        log.info("database.proof_dir, where the proof's findings (and, without [feed] "
                 "bookmark_secrets, the bookmark secret) are kept: %s",
                 settings.database.proof_dir)
    if len(served) < len(COLLECTIONS):
        log.info("collections served: %s", ", ".join(c.name for c in served))
    if named := queries.names(NAMES_FILE):
        log.info("names beside codes of %s: from %s", ", ".join(named),
                 queries.files[NAMES_FILE])
    unmapped.warn()
    if proving is not None:
        proving.refuse_kept()  # a mapping proven wrong before: refused now, without a read
    return app

