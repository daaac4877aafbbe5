"""The table of routes: every read kind of a collection, and the service's own routes, each
registered from one row with its view (app/http/views.py), its arguments and its documentation.

A collection's blueprint is its rows of ROUTES, each registered once with the collection's
`CollectionViews` bound as the view's first argument (a range and a summary only where the
collection has dates and measures). The arguments of each kind are one marshmallow schema
that also feeds the OpenAPI document; flask-smorest's decorators are applied here, in the
order that gives each operation its documentation.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import flask
import flask_smorest
import marshmallow as ma
from flask import Flask
from marshmallow import fields, validate
from webargs.fields import DelimitedList
from webargs.flaskparser import FlaskParser
from werkzeug.routing import BaseConverter

from ..core import feed, summaries
from ..core.plan import Planner
from ..core.unmapped import NOT_MAPPED, Unmapped
from ..database.filters import accepted_filters
from ..formats import registry as formats
from ..model import params
from ..model.collections import DATE_PAIRS, Collection
from ..model.schemas import HealthSchema, IndexSchema, example
from ..ops.config import ApiSettings, FeedSettings, SiteSettings
from ..ops.metrics import Metrics
from . import views
from .answers import Answers
from .arguments import FILTERS_DOC, WHERE, Accepted, filter_parameters
from .pages import Page, Script
from .views import CollectionViews, ServiceViews

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

# A query argument's metadata key: the route takes it, the OpenAPI document does not list it
# (app/__init__.py's Api leaves such fields out of the parameters): `format` (the formats'
# own paragraphs say how to ask, app/formats/registry.py) and a list's filters (`__where`).
UNDOCUMENTED = "undocumented"


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # docs/api.md §9: malformed input is 400, not 422

    def parse(self, argmap: Any, req: Any = None, *, location: str | None = None,
              **kwargs: Any) -> Any:
        """A request without a query string takes its route's defaults, loaded once per
        route (kept by its Arguments): the arguments cost a tenth of a record by key
        otherwise."""
        if (location != "query" or req is None or req.query_string
                or not isinstance(argmap, Arguments)):
            return super().parse(argmap, req, location=location, **kwargs)
        if argmap.defaults is None:
            argmap.defaults = super().parse(argmap, req, location=location, **kwargs)
        return dict(argmap.defaults)

    def load_querystring(self, req: Any, schema: ma.Schema) -> Any:
        """The query string with the rules of docs/api.md §6.2 applied first
        (app/http/arguments.py): a 400 for an argument the route does not take or one given twice,
        `fields` given twice joined, `_` arguments dropped, a list's filters read. webargs alone
        would read the first value."""
        accepted = schema.accepted if isinstance(schema, Arguments) else None
        args = req.args if accepted is None else accepted.parse(req.args)
        return self._makeproxy(args, schema)


class Arguments(ma.Schema):
    """A route's query-argument schema that also knows what else its route takes (its
    filters, app/http/arguments.py) and keeps what a request without a query string loads."""

    def __init__(self, accepted: Accepted | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.accepted = accepted  # None: the query string as it came
        self.defaults: dict[str, Any] | None = None


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = _Parser()


class QueryInteger(fields.Integer):
    """An integer query argument in ASCII digits (int() would take '١٢٣' and '１２３')."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not params.INTEGER.fullmatch(value):
            raise ma.ValidationError("Not a valid integer: write it in digits, e.g. 50.")
        return params.bounded_int(value)


# Path segments are taken as text and parsed by the view, so that a malformed one is a 400
# that says what is accepted, not the 404 of a converter that does not match. Each converter
# only tells the OpenAPI document what the segment holds.
class _Segment(BaseConverter):
    openapi: dict[str, Any] = {"type": "string"}


class PageNumber(_Segment):
    openapi = {"type": "integer", "minimum": 1}


class RecordId(_Segment):
    openapi = {"type": "integer"}


class IsoDate(_Segment):
    openapi = {"type": "string", "format": "date", "example": "2026-11-01"}


class Clock(_Segment):
    openapi = {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$",
               "example": "07:30"}


CONVERTERS: dict[str, type[_Segment]] = {"pagenumber": PageNumber, "recordid": RecordId,
                                         "isodate": IsoDate, "clock": Clock}

_ERRORS = {400: "BAD_REQUEST", 401: "UNAUTHORIZED", 404: "NOT_FOUND",
           503: "SERVICE_UNAVAILABLE", 500: "INTERNAL_SERVER_ERROR"}
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


_SINCE_PATTERN = ("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
                  "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$")
# /<c>/changes' headers (docs/api.md §5.11), documented so that generated clients read them.
_FEED_HEADERS = {
    "X-Bookmark": {"description": "The bookmark after this answer: store it and send it back "
                                  "as ?after= on the next call (opaque, URL-safe, under 2 KB).",
                   "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$",
                              "maxLength": feed.MAX_TOKEN}},
    "Link": {"description": "RFC 8288 link rel=\"next\": this request's URL with "
                            "after=<X-Bookmark>.", "schema": {"type": "string"}},
    "X-Bookmark-Repeats": {"description": "Present when more than 200 records fell inside "
                                          "the lookback window: how many records of this "
                                          "answer an earlier call may have sent already.",
                           "schema": {"type": "integer", "minimum": 1}},
}


def _path(name: str, description: str) -> dict[str, str]:
    return {"in": "path", "name": name, "description": description}


_CLOCK_DOC = "HH:MM or HH:MM:SS, 24-hour, two digits each; HH:MM means HH:MM:00."
_RANGE = "<isodate:tglawal>/<clock:jam_awal>/<isodate:tglakhir>/<clock:jam_akhir>"
_RANGE_PATH = (
    _path("tglawal", "First date of the range, YYYY-MM-DD (inclusive)."),
    _path("jam_awal", f"Time on tglawal where the range starts (inclusive): {_CLOCK_DOC}"),
    _path("tglakhir", "Last date of the range, YYYY-MM-DD (inclusive)."),
    _path("jam_akhir", f"Time on tglakhir where the range ends (inclusive): {_CLOCK_DOC}"),
)
_PAGE_PATH = (_path("pagenumber", "Page number, 1 is the first; a page beyond the last is []."),)


@dataclass(frozen=True)
class Route:
    """One read kind of a collection: its view and how it is documented."""

    view: Callable[..., Any]  # app/http/views.py; its name is the endpoint's
    rule: str  # under /<collection>; {key} is the key's converter and name
    operation: str  # operationId <collection>_<operation>
    args: str  # its argument schema, by kind (_arguments)
    response: str  # its 200 schema and example, by kind (_responses)
    description: str  # of the 200 response; {c} is the collection
    path: tuple[dict[str, str], ...] | None = ()  # its path parameters; None: the key's
    filtered: bool = True  # takes the filters (documented as parameters and in its text)
    paged: bool = False  # answers the pagination headers
    errors: tuple[int, ...] = ()  # beyond 400, 401 with keys, 503 and 500
    needs: str = ""  # "dates" or "summary": only a collection that has them has the route
    summary: tuple[str, str] | None = None  # the operation's summary (numbered, by id), if
    # not the docstring's first line
    headers: Mapping[str, Any] | None = None  # its response headers, beyond a page's


ROUTES: tuple[Route, ...] = (
    Route(views.get_all, "", "list", "list", "records",
          "Every {c} record in canonical order (or those the filters keep), streamed as it "
          "is read."),
    Route(views.get_page, "/page/<pagenumber:pagenumber>", "page", "page", "records",
          "The records of the page; [] beyond the last page.", _PAGE_PATH, paged=True),
    Route(views.get_one, "/<{key}>", "get", "key", "record", "The record.", None,
          filtered=False, errors=(404,), summary=("finds by row number", "finds by ID")),
    Route(views.get_range, f"/date/{_RANGE}", "range", "range", "range",
          "The records in the range, oldest first (numberrow null).", _RANGE_PATH,
          paged=True, needs="dates"),
    Route(views.get_summary, f"/summary/{_RANGE}", "summary", "summary", "summary",
          "One object per group, the groups ascending (NULLs first): the groups by name, "
          "then the measures.", _RANGE_PATH, needs="summary"),
    Route(views.get_changes, "/changes", "changes", "changes", "range",
          "The records new or changed since the bookmark, in stamp then key order "
          "(numberrow null); [] when nothing changed.", needs="dates",
          headers=_FEED_HEADERS),
)


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
    arguments = _arguments(served, api)
    responses = _responses(c)
    filter_params = filter_parameters(accepted_filters(c.schema, c.fields))
    for route in ROUTES:
        if route.needs and not getattr(c, route.needs):
            continue
        view = _bound(route.view, served, paragraphs=(
            ((FILTERS_DOC,) if route.filtered else ()) + formats.descriptions()))
        _errors(blp, 400, *((401,) if keys else ()), *route.errors, 503, 500)(view)
        schema, response_example = responses[route.response]
        view = blp.response(200, schema, example=response_example,
                            headers=route.headers or (_PAGE_HEADERS if route.paged
                                                      else None),
                            description=route.description.format(c=c.name))(view)
        doc: dict[str, Any] = {"operationId": f"{c.name}_{route.operation}"}
        if route.summary:
            doc = {"summary": route.summary[0 if c.numbered else 1], **doc}
        view = blp.doc(**doc)(view)
        view = blp.arguments(arguments[route.args], location="query", as_kwargs=True)(view)
        path = _key_path(served) if route.path is None else route.path
        rule = route.rule.format(key=f"{'pagenumber' if c.numbered else 'recordid'}:"
                                     f"{served.plan.key_name}")
        blp.route(rule, parameters=[*path, *(filter_params if route.filtered else ())])(view)
    return blp


def _key_path(served: CollectionViews) -> tuple[dict[str, str], ...]:
    c = served.collection
    return (_path(served.plan.key_name, "1-based position of the record in the canonical order, "
                                   f"as numbered in GET /{c.name}." if c.numbered
                  else "The record's id, an integer."),)


def _bound(view: Callable[..., Any], *context: Any, paragraphs: tuple[str, ...] = ()
            ) -> Callable[..., Any]:
    """The view with its collection (or the service) as first argument, named as the view
    (the endpoint's name) and documented by its docstring and these paragraphs (the filters,
    the formats): one callable per registration, so that each keeps its own documentation,
    and no wrapper to pass through on every request."""
    bound = functools.partial(view, *context)
    bound.__name__ = view.__name__  # type: ignore[attr-defined]
    bound.__doc__ = _described(view.__doc__ or "", paragraphs)
    return bound


def _described(doc: str, paragraphs: tuple[str, ...]) -> str:
    """The docstring with these paragraphs after it, indented as it is, so that
    flask-smorest reads them as one description."""
    if not paragraphs:
        return doc
    lines = [line for line in doc.splitlines()[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return doc.rstrip() + "".join("\n" + textwrap.indent(p, " " * indent)
                                  for p in paragraphs) + "\n"


def _errors(blp: Blueprint, *codes: int) -> Decorator:
    """Document the error responses a view can give (the shape of docs/api.md §9)."""
    return _doc_only(*(blp.alt_response(code, response=_ERRORS[code]) for code in codes))


def _doc_only(*decorators: Decorator) -> Decorator:
    """flask-smorest's alt_response only documents, yet wraps the view in one more function
    that calls it through current_app.ensure_sync on every request: keep the documentation
    it builds (`_apidoc`) and not the wrappers."""
    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        documented = view
        for decorator in decorators:
            documented = decorator(documented)
        view._apidoc = documented._apidoc  # type: ignore[attr-defined]
        return view
    return decorate


def _arguments(served: CollectionViews, api: ApiSettings) -> dict[str, ma.Schema]:
    """The argument schema of each route kind, each knowing what else its route takes (its
    filters: app/http/arguments.py)."""
    c, output = served.collection, served.plan.encoder.output
    representation = {"format": _format_field(), "fields": _fields_field(c.name, output)}
    page_size = QueryInteger(
        load_default=api.page_size, validate=validate.Range(1, api.max_page_size),
        metadata={"description": f"Records per page, 1 to {api.max_page_size} "
                                 f"(default {api.page_size})."})
    kinds: dict[str, dict[str, fields.Field]] = {
        "list": representation,
        "page": {"page_size": page_size, **representation},
        "key": representation,
    }
    if c.dates:
        kinds["range"] = {"on": _on_field(c), **_range_pages(api), **representation}
        kinds["changes"] = {"on": _on_field(c, c.feed_on), "limit": _limit_field(),
                            "after": fields.String(metadata={
                                "description": "The X-Bookmark of the last answer; without "
                                               "it the feed starts at the oldest stamp.",
                                "pattern": "^[A-Za-z0-9_-]+$"}),
                            "since": fields.String(metadata={
                                "description": "Start at this time instead, "
                                               "YYYY-MM-DDTHH:MM:SS (plant local time); "
                                               "not with after.",
                                "pattern": _SINCE_PATTERN, "example": "2026-11-01T07:00:00"}),
                            **representation}
    if c.summary:
        kinds["summary"] = {"on": _on_field(c), "by": _by_field(c, served.plan.groupable),
                            "format": representation["format"]}
    filters = accepted_filters(c.schema, c.fields)
    return {kind: _taking(f"{c.name}{kind.title()}Args", declared,
                          None if kind == "key" else filters, paged_by_path=kind == "list")
            for kind, declared in kinds.items()}


def _taking(name: str, declared: dict[str, fields.Field], filters: Mapping[str, str] | None,
            paged_by_path: bool = False) -> ma.Schema:
    """An argument schema, which also knows what else its route takes; a route with filters
    gets them as one more argument, `filters` (app/http/arguments.py WHERE)."""
    own = tuple(declared)
    if filters is not None:
        declared = {**declared, "filters": fields.Raw(data_key=WHERE, load_default=None,
                                                    metadata={UNDOCUMENTED: True})}
    return Arguments.from_dict(declared, name=name)(Accepted(own, filters, paged_by_path))


def _format_field() -> fields.String:
    # Not a documented parameter: each format's paragraph in the descriptions says it all.
    return fields.String(validate=validate.OneOf(list(formats.FORMATS)),
                         metadata={UNDOCUMENTED: True})


class _KnownFields(ma.validate.Validator):
    """`fields` names fields of the record, at least one, each once."""

    def __init__(self, name: str, output: list[str]):
        self.name, self.output = name, output

    def __call__(self, value: list[str]) -> list[str]:
        output = self.output
        if not value or "" in value:
            raise ma.ValidationError(f"name the fields, comma-separated, e.g. "
                                     f"fields={','.join(output[:2])}")
        unknown = [f for f in value if f not in output]
        if unknown:
            raise ma.ValidationError(
                f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                f"the fields of {self.name} are: {', '.join(output)}")
        if len(set(value)) != len(value):
            raise ma.ValidationError("a field is named twice")
        return value


def _fields_field(name: str, output: list[str]) -> DelimitedList:
    return DelimitedList(fields.String(metadata={"enum": output}),
                         validate=_KnownFields(name, output),
                         metadata={"description": "Only these fields, in this order, "
                                                  "comma-separated (or the argument repeated: "
                                                  "fields=id&fields=vehno).",
                                   "minItems": 1, "uniqueItems": True})


def _on_field(c: Collection, default: str | None = None) -> fields.String:
    default = default or c.dates[0]
    pairs = "; ".join(f"{on} = {DATE_PAIRS[on][0]} + {DATE_PAIRS[on][1]}" for on in c.dates)
    return fields.String(load_default=default, validate=validate.OneOf(c.dates),
                         metadata={"description": f"Which date/time pair the range applies "
                                                  f"to: {pairs}. Default {default}."})


def _limit_field() -> QueryInteger:
    return QueryInteger(load_default=feed.DEFAULT_LIMIT, validate=validate.Range(
        1, feed.MAX_LIMIT), metadata={"description": f"At most this many records, 1 to "
                                                     f"{feed.MAX_LIMIT} (default "
                                                     f"{feed.DEFAULT_LIMIT})."})


def _range_pages(api: ApiSettings) -> dict[str, fields.Field]:
    return {
        "page": QueryInteger(validate=validate.Range(min=1), metadata={
            "description": "Return only this page (1 is the first) of the range, with the "
                           "pagination headers; without page and page_size the whole range "
                           "is streamed."}),
        "page_size": QueryInteger(
            validate=validate.Range(1, api.max_page_size),
            metadata={"description": f"Records per page, 1 to {api.max_page_size} (default "
                                     f"{api.page_size}); given alone, it asks for page 1."}),
    }


_DIRECTION = ('direction ("in" when weigh1 > weigh2, a delivery; "out" when weigh2 > '
              'weigh1, a dispatch; null otherwise), ')


def _names_note(c: Collection) -> str:
    """What the description of `by` says of the names beside codes, where it has them."""
    if not c.namings:
        return ""
    pairs = ", ".join(f"{n.code} by {n.name}" for n in c.namings.values())
    return (f" A code of master data is followed by its name: {pairs} (the master record "
            f"whose code equals it as the database compares strings, the smallest id of "
            f"several; null when none).")


def _by_field(c: Collection, groupable: tuple[str, ...]) -> DelimitedList:
    return DelimitedList(
        fields.String(metadata={"enum": [*summaries.named_groups(c), *groupable]}),
        metadata={
            "description": f"The groups, comma-separated, in order, at most "
                           f"{summaries.MAX_GROUPS}: day (the `on` date), month (YYYY-MM), "
                           f"hour (0-23 of the `on` time, a NULL time counting as 0), "
                           f"{_DIRECTION if c.summary == 'weighing' else ''}or a "
                           f"text or integer field: {', '.join(groupable)}. Default day."
                           f"{_names_note(c)}",
            "minItems": 1, "maxItems": summaries.MAX_GROUPS, "uniqueItems": True,
            "example": ["day", summaries.sample_field(c)]})


def _responses(c: Collection) -> dict[str, tuple[ma.Schema, Any]]:
    """The 200 schema and example of each response kind."""
    many = c.schema(many=True)
    record = example(c.schema)
    out: dict[str, tuple[ma.Schema, Any]] = {
        "records": (many, [record]),
        "record": (c.schema, record),
        "range": (many, [record | ({"numberrow": None} if c.numbered else {})]),
    }
    if c.summary:
        out["summary"] = (summaries.schema_of(c)(many=True),
                          [{"day": "2026-11-01", **summaries.example(c)}])
    return out


def service_blueprint(service: ServiceViews, api: ApiSettings, keys: bool = False) -> Blueprint:
    """`/` and `/health`; `keys` as for collection_blueprint. Both take no query argument:
    one is a 400 (app/__init__.py, _no_arguments)."""
    blp = Blueprint("service", __name__, url_prefix=api.url_prefix or None,
                    description="The index of collections and the service's health.")
    index = _bound(views.index, service)
    _errors(blp, 400, *((401,) if keys else ()))(index)
    index = blp.response(200, IndexSchema)(index)
    blp.route("/")(blp.doc(operationId="index")(index))
    health = _bound(views.health, service)
    _doc_only(blp.alt_response(503, schema=HealthSchema, description="The database cannot "
                               "be reached (with Retry-After)."))(health)
    _errors(blp, 400)(health)
    health = blp.response(200, HealthSchema)(health)
    health = blp.doc(security=[])(health)  # open even when API keys are configured
    blp.route("/health")(blp.doc(operationId="health")(health))
    return blp


# The service's routes outside the API document: Swagger UI's files and the way to it (the
# pages and the metrics take arguments, so register_service_routes binds them).
SERVICE_ROUTES = (("/docs/static/<path:filename>", views.docs_static),
                  ("/favicon.ico", views.favicon), ("/docs/", views.docs_slash))


def register_service_routes(app: Flask, prefix: str, metrics: Metrics, metrics_key: str,
                            site: SiteSettings) -> None:
    """The routes outside the API document (endpoints docs_static, favicon, docs_slash,
    dashboard.dashboard, report.report_today, report.report, script, metrics)."""
    for rule, view in SERVICE_ROUTES:
        app.add_url_rule(f"{prefix}{rule}", view.__name__, view)
    dashboard = flask.Blueprint("dashboard", __name__)
    dashboard.add_url_rule(f"{prefix}/dashboard", "dashboard",
                           _bound(views.dashboard, Page.read("dashboard.html", site)))
    app.register_blueprint(dashboard)
    report = flask.Blueprint("report", __name__)
    report.add_url_rule(f"{prefix}/report", "report_today",
                        _bound(views.report_today, site.timezone))
    report.add_url_rule(f"{prefix}/report/<day>", "report",
                        _bound(views.report, Page.read("report.html", site)))
    app.register_blueprint(report)
    # Beside the index, as favicon.ico: each page loads it by a relative URL.
    app.add_url_rule(f"{prefix}/jembatan.js", "script", _bound(views.script,
                                                               Script.read("jembatan.js")))
    app.add_url_rule(f"{prefix}/metrics", "metrics",
                     _bound(views.metrics, metrics, metrics_key.encode()))
