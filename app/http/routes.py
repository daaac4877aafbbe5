"""The table of routes: every read kind of a collection, and the service's own routes, each
registered from one row with its view (app/http/views.py, app/http/service_views.py), its
arguments and its documentation.

A collection's blueprint is its rows of ROUTES, each registered once with the collection's
`CollectionViews` bound as the view's first argument (a range and a summary only where the
collection has dates and measures). The arguments of each kind are one marshmallow schema
(app/http/argument_schemas.py) that also feeds the OpenAPI document (app/http/openapi.py);
flask-smorest's decorators are applied here, in the order that gives each operation its
documentation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import flask
import marshmallow as ma
from flask import Flask

from ..core import bookmarks, summaries
from ..core.filtering import accepted_filters
from ..core.plan import Planner
from ..core.unmapped import NOT_MAPPED, Unmapped
from ..formats import registry as formats
from ..model import kinds
from ..model.collections import Collection
from ..model.kinds import ReadKind
from ..model.schemas import HealthSchema, IndexSchema, example
from ..ops.config import ApiSettings, FeedSettings, SiteSettings
from ..ops.metrics import Metrics
from . import service_views, views
from .answers import Answers
from .argument_schemas import Blueprint, route_arguments
from .arguments import FILTERS_DOC, filter_parameters
from .openapi import described, document_errors
from .pages import Page, Script
from .service_views import ServiceViews
from .views import CollectionViews

_PAGE_HEADERS = {
    "X-Pagination": {"description": "flask-smorest pagination metadata: total, total_pages "
                                    "and, when there are records, first_page, last_page and "
                                    "for a page in range page, previous_page, next_page",
                     # A JSON text: `content` says so (a `schema` alone would be read as
                     # a header of comma-separated key,value pairs).
                     "content": {"application/json": {
                         "schema": {"$ref": "#/components/schemas/PaginationMetadata"}}}},
    "Link": {"description": "RFC 8288 links first, last, prev and next where they exist",
             "schema": {"type": "string"}},
}



_FEED_HEADERS = {
    "X-Bookmark": {"description": "The bookmark after this answer: store it and send it back "
                                  "as ?after= on the next call (opaque, signed by the service, "
                                  "URL-safe, under 2,000 characters).",
                   "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$",
                              "maxLength": bookmarks.MAX_TOKEN}},
    "Link": {"description": "RFC 8288 link rel=\"next\": this request's URL with "
                            "after=<X-Bookmark>.", "schema": {"type": "string"}},
    "X-Bookmark-Repeats": {"description": "Present when more than 200 records fell inside "
                                          "the lookback window: how many records of this "
                                          "answer an earlier call may have sent already.",
                           "schema": {"type": "integer", "minimum": 1}},
}


_SUMMARY_HEADERS = {
    "X-Left-Out": {"description": (
        "What the figures leave out and why (docs/api.md §7): a JSON array, one object per "
        "reason the collection has (voided, no_main_date, not_weighed_out, not_weighed_in), "
        "each with `records` (how many), `left_out_of`, `add` (the reason's query "
        "arguments) and `list` (the URL that lists them; null when the header would pass "
        "2,000 bytes)."), "schema": {"type": "string"}},
}


def _path(name: str, description: str) -> dict[str, str]:
    return {"in": "path", "name": name, "description": description}


_CLOCK_DOC = "HH:MM or HH:MM:SS, 24-hour, two digits each; HH:MM means HH:MM:00."
_RANGE_PATH = (
    _path("tglawal", "First date of the range, YYYY-MM-DD (inclusive)."),
    _path("jam_awal", f"Time on tglawal where the range starts (inclusive): {_CLOCK_DOC}"),
    _path("tglakhir", "Last date of the range, YYYY-MM-DD (inclusive)."),
    _path("jam_akhir", f"Time on tglakhir where the range ends (inclusive): {_CLOCK_DOC}"),
)
_PAGE_PATH = (_path("pagenumber", "Page number, 1 is the first; a page beyond the last is []."),)


@dataclass(frozen=True)
class Route:
    """One read kind of a collection (app/model/kinds.py) as HTTP serves it: its view and
    how it is documented (its rule, arguments and whether it is paged come from the kind)."""

    kind: ReadKind
    view: Callable[..., Any]  # app/http/views.py; its name is the endpoint's
    operation: str  # operationId <collection>_<operation>
    response: Callable[[Collection], tuple[ma.Schema, Any]]  # its 200 schema and example
    description: str  # of the 200 response; {c} is the collection
    path: tuple[dict[str, str], ...] | None = ()  # its path parameters; None: the key's
    errors: tuple[int, ...] = ()  # beyond 400, 401 with keys, 503 and 500
    summary: tuple[str, str] | None = None  # the operation's summary (numbered, by id), if
    # not the docstring's first line
    headers: Mapping[str, Any] | None = None  # its response headers, beyond a page's
    paged_by_path: bool = False  # its pages are paths of another route (a 400 says so)


def _records(c: Collection) -> tuple[ma.Schema, Any]:
    """Records in canonical order."""
    return c.schema(many=True), [example(c.schema)]


def _record(c: Collection) -> tuple[ma.Schema, Any]:
    """One record."""
    return c.schema, example(c.schema)


def _unnumbered(c: Collection) -> tuple[ma.Schema, Any]:
    """Records out of the canonical order: numberrow null."""
    return c.schema(many=True), [example(c.schema) | ({"numberrow": None} if c.numbered
                                                      else {})]


def _summary(c: Collection) -> tuple[ma.Schema, Any]:
    """A summary's groups."""
    return (summaries.schema_of(c)(many=True),
            [{"day": "2026-11-01", **summaries.example(c)}])


ROUTES: tuple[Route, ...] = (
    Route(kinds.LIST, views.get_all, "list", _records,
          "Every {c} record in canonical order (or those the filters keep), streamed as it "
          "is read.", paged_by_path=True),
    Route(kinds.PAGE_READ, views.get_page, "page", _records,
          "The records of the page; [] beyond the last page.", _PAGE_PATH),
    Route(kinds.KEY, views.get_one, "get", _record, "The record.", None,
          errors=(404,), summary=("finds by row number", "finds by ID")),
    Route(kinds.RANGE_READ, views.get_range, "range", _unnumbered,
          "The records in the range, oldest first (numberrow null).", _RANGE_PATH),
    Route(kinds.SUMMARY_READ, views.get_summary, "summary", _summary,
          "One object per group, the groups ascending (NULLs first): the groups by name, "
          "then the measures.", _RANGE_PATH, headers=_SUMMARY_HEADERS),
    Route(kinds.CHANGES_READ, views.get_changes, "changes", _unnumbered,
          "The records new or changed since the bookmark, in stamp then key order "
          "(numberrow null); [] when nothing changed.", headers=_FEED_HEADERS),
)


def route_kinds(collections: Sequence[Collection]) -> dict[str, str]:
    """The metrics' kind of each record route's requests, by its endpoint
    (<collection>.<view>): its read kind's name."""
    return {f"{c.name}.{route.view.__name__}": route.kind.name
            for c in collections for route in ROUTES if route.kind.served_on(c)}


def collection_blueprint(planner: Planner, answers: Answers, api: ApiSettings,
                         keys: bool = False, feed: FeedSettings | None = None,
                         unmapped: Unmapped | None = None) -> Blueprint:
    """The routes of one collection (docs/api.md §5), driven by its row of the table; `keys`:
    API keys are configured, so a request without one can be a 401 (docs/api.md §10); `feed`:
    the windows of /<c>/changes; `unmapped`: the collections not mapped yet, which the
    document lists as they are and says so of."""
    c = planner.collection
    served = CollectionViews(planner, answers, api.page_size, feed)
    note = (f" {NOT_MAPPED.capitalize()} at this site: every operation answers 503 until "
            f"{', '.join(unmapped.fields(c.name))} are mapped."
            if unmapped and c.name in unmapped else "")
    blp = Blueprint(c.name, __name__, url_prefix=f"{api.url_prefix}/{c.name}",
                    description=f"{c.schema.Meta.description} Key: {served.plan.key_name}. "
                                f"Canonical order: {', '.join(c.order)} (ascending, NULLs "
                                f"first).{note}")
    filter_params = filter_parameters(accepted_filters(c.schema, c.fields))
    for route in ROUTES:
        kind = route.kind
        if not kind.served_on(c):
            continue
        view = _bound(route.view, served, paragraphs=(
            ((FILTERS_DOC,) if kind.filtered else ()) + formats.descriptions()))
        view.collection = c  # type: ignore[attr-defined]  # kept by every wrapper (wraps):
        # the request's collection (app/http/access.py, bound_collection)
        view = document_errors(blp, 400, *((401,) if keys else ()), *route.errors, 503,
                               500)(view)
        doc: dict[str, Any] = {"operationId": f"{c.name}_{route.operation}"}
        if route.summary:
            doc = {"summary": route.summary[0 if c.numbered else 1], **doc}
        view = blp.doc(**doc)(view)
        arguments = route_arguments(planner, api, kind, route.paged_by_path)
        view = blp.arguments(arguments, location="query", as_kwargs=True)(view)
        # The response last: each flask-smorest decorator deep-copies what the ones before
        # it wrote, and a record shape's schema is the largest of it (app/http/patches.py).
        schema, response_example = route.response(c)
        view = blp.response(200, schema, example=response_example,
                            headers=route.headers or (_PAGE_HEADERS if kind.paged
                                                      else None),
                            description=route.description.format(c=c.name))(view)
        path = _key_path(served) if route.path is None else route.path
        converter = "pagenumber" if c.numbered else "textkey" if c.text_key else "recordid"
        rule = kind.rule.format(key=f"{converter}:{served.plan.key_name}")
        blp.route(rule, parameters=[*path, *(filter_params if kind.filtered else ())])(view)
    return blp


def _key_path(served: CollectionViews) -> tuple[dict[str, str], ...]:
    c = served.collection
    return (_path(served.plan.key_name, "1-based position of the record in the canonical order, "
                                   f"as numbered in GET /{c.name}." if c.numbered
                  else "The record's id: its code, URL-encoded (trailing blanks never "
                  "count on SQL Server)." if c.text_key else "The record's id, an integer."),)


def _bound(view: Callable[..., Any], *context: Any, paragraphs: tuple[str, ...] = ()
            ) -> Callable[..., Any]:
    """The view with its collection (or the service) as first argument, named as the view
    (the endpoint's name) and documented by its docstring and these paragraphs (the filters,
    the formats): one callable per registration, so that each keeps its own documentation,
    and no wrapper to pass through on every request."""
    bound = functools.partial(view, *context)
    bound.__name__ = view.__name__  # type: ignore[attr-defined]
    bound.__doc__ = described(view.__doc__ or "", paragraphs)
    return bound



def service_blueprint(service: ServiceViews, api: ApiSettings, keys: bool = False) -> Blueprint:
    """`/` and `/health`; `keys` as for collection_blueprint. Both take no query argument:
    one is a 400 (app/http/access.py, no_arguments)."""
    blp = Blueprint("service", __name__, url_prefix=api.url_prefix or None,
                    description="The index of collections and the service's health.")
    index = _bound(service_views.index, service)
    index = document_errors(blp, 400, *((401,) if keys else ()))(index)
    index = blp.response(200, IndexSchema)(index)
    blp.route("/")(blp.doc(operationId="index")(index))
    health = _bound(service_views.health, service)
    health = document_errors(blp, 400, described={503: {
        "description": "The database cannot be reached (with Retry-After).",
        "content": {"application/json": {"schema": HealthSchema}}}})(health)
    health = blp.response(200, HealthSchema)(health)
    health = blp.doc(security=[])(health)  # open even when API keys are configured
    blp.route("/health")(blp.doc(operationId="health")(health))
    return blp


# The service's routes outside the API document: Swagger UI's files and the way to it (the
# pages and the metrics take arguments, so register_service_routes binds them).
SERVICE_ROUTES = (("/docs/static/<path:filename>", service_views.docs_static),
                  ("/favicon.ico", service_views.favicon), ("/docs/", service_views.docs_slash))


def register_report_figures(app: Flask, prefix: str, figures: service_views.ReportFigures
                            ) -> None:
    """The daily report's figures as JSON (endpoint report_figures), outside the API
    document: the data of the report page, read with the key given to the page."""
    app.add_url_rule(f"{prefix}/report/<day>.json", "report_figures",
                     _bound(service_views.report_figures, figures))


def register_service_routes(app: Flask, prefix: str, metrics: Metrics, metrics_key: str,
                            site: SiteSettings,
                            absent: Mapping[str, Sequence[str]] | None = None) -> None:
    """The routes outside the API document (endpoints docs_static, favicon, docs_slash,
    dashboard.dashboard, report.report_today, report.report, script, metrics); the pages
    learn the fields each collection maps to NULL (`absent`)."""
    for rule, view in SERVICE_ROUTES:
        app.add_url_rule(f"{prefix}{rule}", view.__name__, view)
    dashboard = flask.Blueprint("dashboard", __name__)
    dashboard.add_url_rule(f"{prefix}/dashboard", "dashboard", _bound(
        service_views.dashboard, Page.read("dashboard.html", site, absent)))
    app.register_blueprint(dashboard)
    report = flask.Blueprint("report", __name__)
    report.add_url_rule(f"{prefix}/report", "report_today",
                        _bound(service_views.report_today, site.timezone))
    report.add_url_rule(f"{prefix}/report/<day>", "report",
                        _bound(service_views.report, Page.read("report.html", site, absent)))
    app.register_blueprint(report)
    # Beside the index, as favicon.ico: each page loads it by a relative URL.
    app.add_url_rule(f"{prefix}/jembatan.js", "script", _bound(service_views.script,
                                                               Script.read("jembatan.js")))
    app.add_url_rule(f"{prefix}/metrics", "metrics",
                     _bound(service_views.metrics, metrics, metrics_key.encode()))
