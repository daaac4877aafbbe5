"""One blueprint factory for the ten collections, plus the index, health and docs routes."""

from __future__ import annotations

import functools
import hashlib
import json
import textwrap
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import flask_smorest
import marshmallow as ma
from flask import Response, g, request, send_from_directory, url_for
from marshmallow import fields, validate
from webargs.fields import DelimitedList
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import NotFound
from werkzeug.routing import BaseConverter

from . import errors, logs, params, summaries
from .arguments import FILTERS_DOC, Accepted, accepted_filters, filter_parameters
from .collections import DATE_PAIRS, Collection
from .config import ApiSettings
from .db import Database, DatabaseUnavailable, QueryFailed, Result
from .encoding import RecordEncoder
from .queries import Where
from .schemas import HealthSchema, IndexSchema, ValueMisfit, example
from .streaming import SpooledStream

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # CONTRACT §4: malformed input is 400, not 422

    def load_querystring(self, req: Any, schema: ma.Schema) -> Any:
        """The query string with CONTRACT §3's rules applied first (app/arguments.py): a
        400 for an argument the route does not take or one given twice, `fields` given
        twice joined, `_` arguments dropped. webargs alone would read the first value."""
        accepted: Accepted | None = getattr(schema, "accepted", None)
        args = req.args if accepted is None else accepted.normalized(req.args)
        return self._makeproxy(args, schema)


def _taking(schema: type[ma.Schema], filters: Mapping[str, str] | None = None,
            paged_by_path: bool = False) -> ma.Schema:
    """An instance of an argument schema that also knows what else its route takes."""
    instance = schema()
    instance.accepted = Accepted(  # type: ignore[attr-defined]
        tuple(instance.fields), filters, paged_by_path)
    return instance


# Every record endpoint also answers CSV (?format=csv, Accept: text/csv), yet the document
# lists only JSON under 200 and leaves `format` out of the parameters (UNDOCUMENTED): a 200
# with two media types makes generated clients type the body `Weighing[] | string`, and a
# client that can ask for format=csv gets a body it cannot parse as the type it was given.
# CSV is for spreadsheets and plain HTTP; each operation's description says how to ask.
CSV_DOC = """
CSV: `?format=csv` or `Accept: text/csv` gives the same answer as text/csv (a header row of
the field names, then one row per record or group, RFC 4180 quoting, values as in JSON, NULL
as an empty cell; `?format=json` wins over Accept). Not among the responses documented here,
so that generated clients keep the JSON type: fetch CSV over plain HTTP."""

# A query argument's metadata key: the route takes it, the OpenAPI document does not list it
# (app/__init__.py's Api leaves such fields out of the parameters).
UNDOCUMENTED = "undocumented"


def _described(*paragraphs: str) -> Decorator:
    """The operation's description gains these paragraphs, indented as the docstring is,
    so that flask-smorest reads them as one description."""
    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        doc = view.__doc__ or ""
        lines = [line for line in doc.splitlines()[1:] if line.strip()]
        indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
        view.__doc__ = doc.rstrip() + "".join(
            "\n" + textwrap.indent(p, " " * indent) for p in paragraphs) + "\n"
        return view
    return decorate


# A list, page, range or summary: the filters and CSV; a record by key: CSV.
_filterable = _described(FILTERS_DOC, CSV_DOC)
_csv_described = _described(CSV_DOC)


def _query(exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """The request's arguments as url_for takes them (a repeated one as a list), less
    `exclude` and the ignored `_` ones: what a page link keeps."""
    return {k: v[0] if len(v) == 1 else v for k, v in request.args.lists()
            if k not in exclude and not k.startswith("_")}


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = _Parser()


class QueryInteger(fields.Integer):
    """An integer query argument in ASCII digits (int() would take '١٢٣' and '１２３')."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not params._INTEGER.fullmatch(value):
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

# A list or range that ends within its first WHOLE_ROWS records is read whole before it is
# sent: a thread and a spool (app/streaming.py) only pay for themselves on larger results.
WHOLE_ROWS = 2000

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


def _path(name: str, description: str) -> dict[str, str]:
    return {"in": "path", "name": name, "description": description}


_CLOCK_DOC = "HH:MM or HH:MM:SS, 24-hour, two digits each; HH:MM means HH:MM:00."
_RANGE_PATH = [
    _path("tglawal", "First date of the range, YYYY-MM-DD (inclusive)."),
    _path("jam_awal", f"Time on tglawal where the range starts (inclusive): {_CLOCK_DOC}"),
    _path("tglakhir", "Last date of the range, YYYY-MM-DD (inclusive)."),
    _path("jam_akhir", f"Time on tglakhir where the range ends (inclusive): {_CLOCK_DOC}"),
]


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


def _errors(blp: Blueprint, *codes: int) -> Decorator:
    """Document the error responses a view can give (the shape of CONTRACT §4)."""
    return _doc_only(*(blp.alt_response(code, response=_ERRORS[code]) for code in codes))


def _pagination(total: int, page: int, page_size: int) -> dict[str, int]:
    """flask-smorest's X-Pagination metadata, computed the way it does."""
    meta = {"total": total, "total_pages": (total + page_size - 1) // page_size}
    if total:
        last = meta["total_pages"]
        meta |= {"first_page": 1, "last_page": last}
        if page <= last:
            meta["page"] = page
            if page > 1:
                meta["previous_page"] = page - 1
            if page < last:
                meta["next_page"] = page + 1
    return meta


def _page_headers(meta: dict[str, int], url: Callable[[int], str]) -> dict[str, str]:
    rels = [("first", meta.get("first_page")), ("last", meta.get("last_page")),
            ("prev", meta.get("previous_page")), ("next", meta.get("next_page"))]
    links = ", ".join(f'<{url(p)}>; rel="{rel}"' for rel, p in rels if p is not None)
    headers = {"X-Pagination": json.dumps(meta, separators=(",", ":"))}
    if links:
        headers["Link"] = links
    return headers


class Representation:
    """How the client asked for records: JSON or CSV (CONTRACT §3), and which fields."""

    def __init__(self, encoder: RecordEncoder | summaries.SummaryEncoder, format: str | None,
                 fields: list[str] | None):
        if format is None:  # ?format= wins; else the Accept header; JSON by default
            best = request.accept_mimetypes.best_match(["application/json", "text/csv"])
            format = "csv" if best == "text/csv" else "json"
        self.encoder, self.csv, self.fields = encoder, format == "csv", fields
        self.mimetype = "text/csv" if self.csv else "application/json"

    def body(self, values: list[tuple[Any, ...]], single: bool = False) -> bytes:
        if self.csv:
            return (self.encoder.csv_header(self.fields)
                    + self.encoder.csv(values, self.fields)).encode()
        array = self.encoder.json(values, self.fields)
        return array[1:-1] if single else array

    def response(self, body: Any, filename: str,
                 headers: dict[str, str] | None = None) -> Response:
        response = Response(body, mimetype=self.mimetype, headers=headers)
        if self.csv:
            response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
        response.headers.add("Vary", "Accept")
        return response

    def whole(self, body: bytes, filename: str,
              headers: dict[str, str] | None = None) -> Response:
        """A response read whole: a strong ETag of its bytes, 304 when the client has it."""
        response = self.response(body, filename, headers)
        response.headers["Cache-Control"] = "no-cache"  # proxies revalidate every time
        response.set_etag(hashlib.blake2b(body, digest_size=16).hexdigest())
        if "If-None-Match" in request.headers or "If-Modified-Since" in request.headers:
            return response.make_conditional(request)  # 304 when the client has it
        return response

    def stream(self, batches: Iterator[list[Any]],
               encode: Callable[[list[Any]], list[tuple[Any, ...]]], what: str,
               on_abandon: Callable[[], None]) -> SpooledStream:
        """The body of a streamed response: a JSON array or CSV lines, batch by batch."""
        if self.csv:
            return SpooledStream(
                batches, lambda rows, first: self.encoder.csv(encode(rows), self.fields).encode(),
                self.encoder.csv_header(self.fields).encode(), b"", what, on_abandon)

        def json_part(rows: list[Any], first: bool) -> bytes:
            array = self.encoder.json(encode(rows), self.fields)
            return array[1:-1] if first else b"," + array[1:-1]
        return SpooledStream(batches, json_part, b"[", b"]", what, on_abandon)


def collection_blueprint(c: Collection, db: Database, api: ApiSettings,
                         keys: bool = False) -> Blueprint:
    """The routes of one collection (CONTRACT §3), driven by its row of the table; `keys`:
    API keys are configured, so a request without one can be a 401 (CONTRACT §5)."""
    unauthorized = (401,) if keys else ()  # never answered, so not documented, without keys
    key_name = "numberrow" if c.numbered else "ID"
    blp = Blueprint(c.name, __name__, url_prefix=f"{api.url_prefix}/{c.name}",
                    description=f"{c.schema.Meta.description} Key: {key_name}. Canonical "
                                f"order: {', '.join(c.order)} (ascending, NULLs first).")
    many = c.schema(many=True)
    encoder = RecordEncoder(c.schema)
    record_example = example(c.schema)
    range_example = record_example | ({"numberrow": None} if c.numbered else {})

    def check_fields(value: list[str]) -> None:
        if not value or "" in value:
            raise ma.ValidationError(f"name the fields, comma-separated, e.g. "
                                     f"fields={','.join(encoder.output[:2])}")
        unknown = [f for f in value if f not in encoder.output]
        if unknown:
            raise ma.ValidationError(
                f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                f"the fields of {c.name} are: {', '.join(encoder.output)}")
        if len(set(value)) != len(value):
            raise ma.ValidationError("a field is named twice")

    # Every record endpoint takes these (CONTRACT §3 "CSV", "Field selection").
    representation_args = {
        # Not a documented parameter: CSV_DOC in each operation's description says it all.
        "format": fields.String(validate=validate.OneOf(["json", "csv"]),
                                metadata={UNDOCUMENTED: True}),
        "fields": DelimitedList(fields.String(metadata={"enum": encoder.output}),
                                validate=check_fields, metadata={
            "description": "Only these fields, in this order, comma-separated (or the "
                           "argument repeated: fields=id&fields=vehno).",
            "minItems": 1, "uniqueItems": True}),
    }
    page_size_field = QueryInteger(
        load_default=api.page_size, validate=validate.Range(1, api.max_page_size),
        metadata={"description": f"Records per page, 1 to {api.max_page_size} "
                                 f"(default {api.page_size})."})
    RecordArgs = ma.Schema.from_dict(representation_args, name=f"{c.name}RecordArgs")
    PageArgs = ma.Schema.from_dict({"page_size": page_size_field, **representation_args},
                                   name=f"{c.name}PageArgs")
    # Every list takes filters on the stored fields (CONTRACT §3 "Filters"); a record by key
    # takes none.
    filters = accepted_filters(c.schema, c.fields)
    filter_params = filter_parameters(filters)
    list_args = _taking(RecordArgs, filters, paged_by_path=True)
    page_args = _taking(PageArgs, filters)
    key_args = _taking(RecordArgs)

    def where(args: ma.Schema) -> Where | None:
        return Where.of(args.accepted.read(request.args))

    def check(result: Result) -> Result:
        """A site's SQL that lacks a field fails as an error response before any row is
        read, instead of sending records without it."""
        missing = encoder.columns_missing(result.columns)
        if missing:
            result.close()
            raise QueryFailed(f"{result.what} returns no column {', '.join(missing)}")
        return result

    def read(query: str, values: dict[str, Any], first: int | None,
             limit: int | None = None, where: Where | None = None) -> list[tuple[Any, ...]]:
        """The records of a whole result (or its first `limit`), read before anything is
        sent."""
        result = check(db.execute(c.name, query, values, where))
        rows = result.all()[:limit]
        g.rows = len(rows)  # for the access log
        return encoder.values(result.columns, rows, first)

    def page_of(query: str, values: dict[str, Any], page: int, page_size: int,
                count: int, numbered: bool, where: Where | None = None
                ) -> list[tuple[Any, ...]]:
        window = params.window(page, page_size)
        if window["skip"] >= count or window["last_row"] > params.INT64_MAX:
            g.rows = 0
            return []  # beyond the last page: no query needed
        return read(query, values | window, window["first_row"] if numbered else None,
                    where=where)

    def stream(query: str, values: dict[str, Any], first: int | None, out: Representation,
               filename: str, where: Where | None = None, by: tuple[str, ...] = ()
               ) -> Response:
        """A list, a range or (with `by`) a summary: read whole when small, else streamed."""
        if request.method == "HEAD":
            # Headers only: no need to read a whole table, but a database that cannot be
            # reached still answers 503 as GET would.
            db.ping()
            return out.response(b"", filename)
        result = db.execute(c.name, query, values, where, by)
        rows_of = out.encoder.values
        if not by:
            check(result)
        if result.read_ahead(WHOLE_ROWS):
            # Small: sent whole with a Content-Length, its cursor already closed, no thread.
            rows = result.all()
            g.rows = len(rows)
            return out.response(out.body(rows_of(result.columns, rows, first)), filename)
        position = first
        request_id = logs.request_id()  # the reading thread has no request to ask

        def encode(rows: list[Any]) -> list[tuple[Any, ...]]:
            nonlocal position
            try:
                converted = rows_of(result.columns, rows, position)
            except ValueMisfit as exc:  # the stream breaks off before the value (streaming.py)
                errors.report_misfit(db, db.metrics, c.name, exc, request_id)
                raise
            if position is not None:
                position += len(rows)
            return converted

        body = out.stream(result.batches(), encode, result.what, result.abandon)
        g.rows = lambda: body.rows  # counted as they are read, for the access log
        g.stream = body  # whether it broke off, for the metrics
        response = out.response(body, filename)
        response.call_on_close(body.close)
        return response

    @blp.route("", parameters=filter_params)
    @blp.arguments(list_args, location="query", as_kwargs=True)
    @blp.doc(operationId=f"{c.name}_list")
    @blp.response(200, many, example=[record_example],
                  description=f"Every {c.name} record in canonical order (or those the "
                              f"filters keep), streamed as it is read.")
    @_errors(blp, 400, *unauthorized, 503, 500)
    @_filterable
    def get_all(format: str | None = None, fields: list[str] | None = None) -> Response:
        """gets all

        Every record of the collection in canonical order, sent as the database returns it
        (a chunked JSON array or CSV; the table may hold millions of rows). A collection of
        fewer than 2,000 records is read whole and sent with a Content-Length.
        """
        out = Representation(encoder, format, fields)
        found = where(list_args)
        return stream("all", {}, None if found else 1, out, f"{c.name}.csv", found)

    @blp.route("/page/<pagenumber:pagenumber>", parameters=[_path(
        "pagenumber", "Page number, 1 is the first; a page beyond the last is []."),
        *filter_params])
    @blp.arguments(page_args, location="query", as_kwargs=True)
    @blp.doc(operationId=f"{c.name}_page")
    @blp.response(200, many, headers=_PAGE_HEADERS, example=[record_example],
                  description="The records of the page; [] beyond the last page.")
    @_errors(blp, 400, *unauthorized, 503, 500)
    @_filterable
    def get_page(pagenumber: str, page_size: int, format: str | None = None,
                 fields: list[str] | None = None) -> Any:
        """gets by page

        Page `pagenumber` (1 is the first) of the collection in canonical order.
        A page beyond the last is an empty array.
        """
        out = Representation(encoder, format, fields)
        page = params.integer(pagenumber, "pagenumber", minimum=1)
        found = where(page_args)
        total = db.count(c.name, "count", where=found)
        records = page_of("page", {}, page, page_size, total, c.numbered and not found, found)

        def url(p: int) -> str:
            return url_for(request.endpoint or "", pagenumber=p, _external=True, **_query())
        return out.whole(out.body(records), f"{c.name}-page-{page}.csv",
                         _page_headers(_pagination(total, page, page_size), url))

    converter = "pagenumber" if c.numbered else "recordid"
    key_doc = ("1-based position of the record in the canonical order, as numbered in "
               f"GET /{c.name}." if c.numbered else "The record's id, an integer.")

    @blp.route(f"/<{converter}:{key_name}>", parameters=[_path(key_name, key_doc)])
    @blp.arguments(key_args, location="query", as_kwargs=True)
    @blp.doc(summary="finds by row number" if c.numbered else "finds by ID",
             operationId=f"{c.name}_get")
    @blp.response(200, c.schema, description="The record.", example=record_example)
    @_errors(blp, 400, *unauthorized, 404, 503, 500)
    @_csv_described
    def get_one(format: str | None = None, fields: list[str] | None = None,
                **path: str) -> Any:
        """finds by key

        One record: by its integer ID, or in the collections without a usable key by its
        1-based position (numberrow) in the canonical order.
        """
        out = Representation(encoder, format, fields)
        key = path[key_name]
        if c.numbered:
            n = params.integer(key, "numberrow", minimum=1)
            found = page_of("page", {}, n, 1, params.INT64_MAX, True)
        else:
            k = params.integer(key, "ID")
            # A legacy table may repeat an ID: the first record is the answer.
            found = [] if abs(k) > params.INT64_MAX else read("by_key", {"key": k}, None,
                                                               limit=1)
        if not found:
            raise NotFound(f"no {c.name} record with {key_name} {key}")
        return out.whole(out.body(found, single=True), f"{c.name}-{key}.csv")

    if c.dates:
        pairs = "; ".join(f"{on} = {DATE_PAIRS[on][0]} + {DATE_PAIRS[on][1]}"
                          for on in c.dates)
        def on_field() -> fields.String:
            return fields.String(
                load_default=c.dates[0], validate=validate.OneOf(c.dates),
                metadata={"description": f"Which date/time pair the range applies to: "
                                         f"{pairs}. Default {c.dates[0]}."})

        RangeArgs = ma.Schema.from_dict({
            "on": on_field(),
            "page": QueryInteger(validate=validate.Range(min=1), metadata={
                "description": "Return only this page (1 is the first) of the range, with "
                               "the pagination headers; without page and page_size the "
                               "whole range is streamed."}),
            "page_size": QueryInteger(
                validate=validate.Range(1, api.max_page_size),
                metadata={"description": f"Records per page, 1 to {api.max_page_size} "
                                         f"(default {api.page_size}); given alone, it asks "
                                         f"for page 1."}),
            **representation_args,
        }, name=f"{c.name}RangeArgs")

        range_args = _taking(RangeArgs, filters)

        @blp.route("/date/<isodate:tglawal>/<clock:jam_awal>/<isodate:tglakhir>/"
                   "<clock:jam_akhir>", parameters=[*_RANGE_PATH, *filter_params])
        @blp.arguments(range_args, location="query", as_kwargs=True)
        @blp.doc(operationId=f"{c.name}_range")
        @blp.response(200, many, headers=_PAGE_HEADERS, example=[range_example],
                      description="The records in the range, oldest first (numberrow null).")
        @_errors(blp, 400, *unauthorized, 503, 500)
        @_filterable
        def get_range(tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str, on: str,
                      page: int | None = None, page_size: int | None = None,
                      format: str | None = None, fields: list[str] | None = None) -> Any:
            """gets by date

            The records whose date and time lie between tglawal jam_awal and tglakhir
            jam_akhir, both bounds inclusive, ordered by that date, time, then the canonical
            order. Dates are YYYY-MM-DD; times HH:MM or HH:MM:SS (24-hour, HH:MM means
            HH:MM:00). A record with a NULL date is never in a range; a NULL time counts as
            00:00:00. numberrow is null here. Unpaged, the range is streamed (one of fewer
            than 2,000 records is read whole and sent with a Content-Length).
            """
            out = Representation(encoder, format, fields)
            values = params.date_range(tglawal, jam_awal, tglakhir, jam_akhir)
            found = where(range_args)
            query = f"range_{on}"
            filename = f"{c.name}-{tglawal}_{tglakhir}.csv"
            if page is None and page_size is None:
                return stream(query, values, None, out, filename, found)
            page, page_size = page or 1, page_size or api.page_size
            total = db.count(c.name, f"{query}_count", values, found)
            records = page_of(f"{query}_page", values, page, page_size, total, False, found)

            def url(p: int) -> str:
                return url_for(request.endpoint or "", _external=True,
                               **(request.view_args or {}), on=on, page=p,
                               page_size=page_size, **_query(("on", "page", "page_size")))
            return out.whole(out.body(records), filename,
                             _page_headers(_pagination(total, page, page_size), url))

    if c.summary:
        groupable = summaries.groupable(c)
        SummaryArgs = ma.Schema.from_dict({
            "on": on_field(),
            "by": DelimitedList(
                fields.String(metadata={"enum": [*summaries.TIME_GROUPS, *groupable]}),
                metadata={
                    "description": f"The groups, comma-separated, in order, at most "
                                   f"{summaries.MAX_GROUPS}: day (the `on` date), month "
                                   f"(YYYY-MM), hour (0-23 of the `on` time, a NULL time "
                                   f"counting as 0), or a text or integer field: "
                                   f"{', '.join(groupable)}. Default day.",
                    "minItems": 1, "maxItems": summaries.MAX_GROUPS, "uniqueItems": True,
                    "example": ["day", summaries.sample_field(c)]}),
            "format": representation_args["format"],
        }, name=f"{c.name}SummaryArgs")
        summary_args = _taking(SummaryArgs, filters)
        # Made once per `by` asked (a handful in practice), not at every request.
        summary_encoder = functools.lru_cache(maxsize=64)(
            functools.partial(summaries.SummaryEncoder, c))
        summary_many = summaries.schema_of(c)(many=True)
        summary_example = {"day": "2026-11-01", **summaries.example(c)}

        @blp.route("/summary/<isodate:tglawal>/<clock:jam_awal>/<isodate:tglakhir>/"
                   "<clock:jam_akhir>", parameters=[*_RANGE_PATH, *filter_params])
        @blp.arguments(summary_args, location="query", as_kwargs=True)
        @blp.doc(operationId=f"{c.name}_summary")
        @blp.response(200, summary_many, example=[summary_example],
                      description="One object per group, the groups ascending (NULLs "
                                  "first): the groups by name, then the measures.")
        @_errors(blp, 400, *unauthorized, 503, 500)
        @_filterable
        def get_summary(tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str, on: str,
                        by: list[str] | None = None, format: str | None = None) -> Any:
            """sums by date

            Plant figures over the records the same date range (and filters) would return,
            computed by the database: per group of ?by= (day, month, hour or fields), what
            the record shape measures (weighing: records, weighed, net, net_min, net_max;
            production: batches, sv and pv per material with their deviation, average
            temperatures; vehicle: records). Sent whole when small, streamed when not.
            """
            values = params.date_range(tglawal, jam_awal, tglakhir, jam_akhir)
            groups = summaries.read_by(c, by, groupable)
            out = Representation(summary_encoder(groups), format, None)
            filename = f"{c.name}-summary-{tglawal}_{tglakhir}.csv"
            return stream(f"summary_{on}", values, None, out, filename, where(summary_args),
                          groups)

    return blp


def meta_blueprint(collections: tuple[Collection, ...], db: Database,
                   api: ApiSettings, keys: bool = False) -> Blueprint:
    """`/` and `/health`; `keys` as for collection_blueprint. Both take no query argument:
    one is a 400 (app/__init__.py, _no_arguments)."""
    blp = Blueprint("service", __name__, url_prefix=api.url_prefix or None,
                    description="The index of collections and the service's health.")

    @blp.route("/")
    @blp.doc(operationId="index")
    @blp.response(200, IndexSchema)
    @_errors(blp, 400, *((401,) if keys else ()))
    def index() -> Any:
        """lists the collections

        Each collection with its URL, record shape, key, canonical order and date-range `on`
        values, and the links to the documentation.
        """
        return {
            "name": "Jembatan",
            "collections": [{
                "name": c.name,
                "url": url_for(f"{c.name}.get_all", _external=True),
                "record": c.schema.__name__,  # its schema in /openapi.json
                "key": c.key,
                "order": list(c.order),
                "date_range": list(c.dates),
            } for c in collections],
            "docs": url_for("api-docs.openapi_swagger_ui", _external=True),
            "openapi": url_for("api-docs.openapi_json", _external=True),
            "dashboard": url_for("dashboard.dashboard", _external=True),
        }

    @blp.route("/health")
    @blp.doc(operationId="health")
    @blp.doc(security=[])  # open even when API keys are configured
    @blp.response(200, HealthSchema)
    @_errors(blp, 400)
    @_doc_only(blp.alt_response(503, schema=HealthSchema,
                                description="The database cannot be reached (with "
                                            "Retry-After)."))
    def health() -> Any:
        """checks the database

        {"status": "ok", "database": "ok"} when a query reaches the database; otherwise 503
        with a short reason and Retry-After. "degraded" (still 200: the database answers)
        with a `mapping` list when a site's mapping has given a field a value that cannot be
        of its type since the service started: those reads answer 500 until the mapping is
        corrected and the service restarted.
        """
        try:
            db.ping()
        except (DatabaseUnavailable, QueryFailed) as exc:
            reason = exc.reason if isinstance(exc, DatabaseUnavailable) else "query failed"
            return ({"status": "unavailable", "database": reason}, 503,
                    {"Retry-After": str(DatabaseUnavailable.retry_after)})
        misfits = db.metrics.mapping_errors() if db.metrics is not None else {}
        if misfits:  # the database answers, but a mapping gives values that are never sent
            return {"status": "degraded", "database": "ok", "mapping": [
                f"{c}.{f}: a value that is not {expected}, {n} time{'s' if n > 1 else ''} "
                f"since start (the log has each one; run check-sql {c})"
                for (c, f, expected), n in sorted(misfits.items())]}
        return {"status": "ok", "database": "ok"}

    return blp


def swagger_files(directory: str) -> Callable[[str], Response]:
    def docs_static(filename: str) -> Response:
        return send_from_directory(directory, filename, max_age=3600)
    return docs_static
