"""The service's own views: the index of collections and the health check (in the OpenAPI
document), the two pages for people and their shared script, the metrics, and Swagger UI's
files. app/http/routes.py registers them; a documented view's docstring is its operation's
summary and description.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from flask import Response, redirect, request, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path
from werkzeug.exceptions import Unauthorized

from ..core import report as daily_report
from ..core.clock import ahead_said, plant_today
from ..core.mapped import Checks
from ..core.plan import Planner
from ..core.reads import DatabaseUnavailable, Pulse, Runner
from ..core.unmapped import Unmapped
from ..model import params
from ..model.collections import Collection
from ..ops.metrics import Metrics
from .access import current_key
from .pages import Page, Script


@dataclass(frozen=True)
class ServiceViews:
    """What the index and health views need: the collections served and the runner."""

    collections: tuple[Collection, ...]
    runner: Runner
    pulse: Pulse  # /health's ping, kept database.ping_keep seconds
    checks: Checks | None = None  # the mapping's check, at database.mapping_check's pace
    site: str = ""  # site.name: the plant's name on the report; "" when none is configured
    unmapped: Unmapped = field(default_factory=Unmapped)  # the collections not mapped yet
    zone: ZoneInfo | None = None  # [site] timezone: what /health advises of stamps ahead
    labels: dict[str, str] = field(default_factory=dict)  # [site.fields] over the defaults


def index(service: ServiceViews) -> Any:
    """lists the collections

    Each collection with its URL, record shape, key, canonical order and date-range `on`
    values (and, for one not mapped yet, the fields left to map), and the links to the
    documentation.
    """
    unmapped = service.unmapped
    key = current_key()  # a key's own collections only (docs/api.md §10)
    return {
        "name": "Jembatan",
        "collections": [{
            "name": c.name,
            "url": url_for(f"{c.name}.get_all", _external=True),
            "record": c.schema.__name__,  # its schema in /openapi.json
            "key": c.key,
            "order": list(c.order),
            "date_range": list(c.dates),
            **({"unmapped": unmapped.fields(c.name)} if c.name in unmapped else {}),
        } for c in service.collections if key is None or key.reads(c.name)],
        "docs": url_for("api-docs.openapi_swagger_ui", _external=True),
        "openapi": url_for("api-docs.openapi_json", _external=True),
        "dashboard": url_for("dashboard.dashboard", _external=True),
        "report": url_for("report.report_today", _external=True),
        "site": service.site or None,
        "labels": service.labels,
    }


def health(service: ServiceViews) -> Any:
    """checks the database

    {"status": "ok", "database": "ok"} when a query reaches the database; otherwise 503
    with a short reason and Retry-After. "degraded" (still 200: the database answers)
    with a `mapping` list when a site's mapping has given a field a value that cannot be
    of its type since the service started: those reads answer 500 until the mapping is
    corrected and the service restarted; and with an `unmapped` object, each collection
    not mapped yet with the fields left to map: its routes answer 503 until they are
    mapped and the service restarted. One the database refuses (a column or table it
    lacks, a syntax error) is listed there too, and answers 503 until the database runs
    its records again. With a `clock` list when the feed holds back records whose stamps
    lie ahead of the database clock (a time zone not set). One light query at most (a
    ping, its answer kept `database.ping_keep` seconds); each collection's mapping is
    tried again in the background, at most every `database.mapping_check` seconds.
    """
    metrics = service.runner.metrics

    def listed() -> dict[str, Any]:
        return {"unmapped": service.unmapped.by_collection()} if service.unmapped else {}
    if (reason := service.pulse.reached()) is not None:
        return ({"status": "unavailable", "database": reason, **listed()}, 503,
                {"Retry-After": str(DatabaseUnavailable.retry_after)})
    unmapped = listed()  # what the last check found; the next begins after the answer
    misfits = metrics.mapping_errors() if metrics is not None else {}
    mapping = {"mapping": [
        f"{c}.{f}: a value that is not {expected}, {n} time{'s' if n > 1 else ''} "
        f"since start (the log has each one; run check-sql {c})"
        for (c, f, expected), n in sorted(misfits.items())]} if misfits else {}
    ahead = metrics.feeds_ahead() if metrics is not None else {}
    clock = {"clock": [ahead_said(c, on, seconds, service.zone)
                       for (c, on), seconds in sorted(ahead.items())]} if ahead else {}
    # The database answers, but a mapping is unfinished or gives values never sent, or the
    # feed holds records back whose stamps lie ahead of the database clock.
    status = "degraded" if mapping or unmapped or clock else "ok"
    if service.checks is not None:
        service.checks.due()  # a database changed under the service: found in the background
    return {"status": status, "database": "ok", **mapping, **unmapped, **clock}


def dashboard(page: Page) -> Response:
    """The dashboard (docs/api.md §8): one page, as read at start."""
    return page.response(request)


def report(page: Page, day: str) -> Response:
    """The daily report of `day` (docs/api.md §8, "The daily report"): the same page for every
    day, which reads its day from its own URL; a day that is not one of the calendar is a 400
    here, as in the API's ranges, before any page is sent."""
    params.date(day, "the report's date")
    return page.response(request)


@dataclass(frozen=True)
class ReportFigures:
    """What the daily report's figures need: the planners, the runner, the read guard and
    the plant's name ("" when none is configured)."""

    planners: Mapping[str, Planner]
    runner: Runner
    guard: Callable[[str], None]
    site: str = ""


def report_figures(figures: ReportFigures, day: str) -> Any:
    """`/report/{date}.json`: the figures the daily report page lays out, computed by the
    core (app/core/report.py) as for the MCP `daily_report` tool, within the request's key
    (its collections, its rows; a key with `fields` gets none: a 400)."""
    key = current_key()
    planners = {name: p.within(key) for name, p in figures.planners.items()
                if key is None or key.reads(name)}
    return daily_report.daily(planners, figures.runner, figures.guard,
                              params.date(day, "the report's date"), figures.site or None)


def script(shared: Script) -> Response:
    """`/jembatan.js`: the script the dashboard and the daily report share (app/http/pages.py),
    open like them."""
    return shared.response(request)


def report_today(zone: ZoneInfo | None) -> Response:
    """`/report` without a date: today's report, the date in the plant's zone ([site]
    timezone), or, without one, the date of the host's clock."""
    today = plant_today(zone).isoformat()
    response = redirect(url_for("report.report", day=today))
    response.headers["Cache-Control"] = "no-store"  # tomorrow it points elsewhere
    return response  # type: ignore[return-value]


def metrics(figures: Metrics, key: bytes) -> Response:
    """GET /metrics (docs/api.md §11): behind api.metrics_key alone when it is set (a
    Prometheus server holds the metrics key, not a client's); else app/http/access.py lets
    in a key that reads everything, or anyone where no key is configured."""
    if key:
        auth = request.headers.get("Authorization", "")
        sent = auth[7:].strip().encode() if auth[:7].lower() == "bearer " else b""
        if not hmac.compare_digest(sent, key):
            raise Unauthorized("/metrics needs the metrics key: send Authorization: "
                               "Bearer <api.metrics_key>")
    body, content_type = figures.render()
    return Response(body, content_type=content_type, headers={"Cache-Control": "no-store"})


def docs_static(filename: str) -> Response:
    """Swagger UI's files, as the swagger-ui-bundle package holds them."""
    return send_from_directory(swagger_ui_path, filename, max_age=3600)


def favicon() -> Response:
    return docs_static("favicon-32x32.png")


def docs_slash() -> Response:
    return redirect(url_for("api-docs.openapi_swagger_ui"))  # type: ignore[return-value]
