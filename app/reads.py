"""The runner: what a view asks to read (a `Read`), run on the database and sent.

A view (app/views.py) says what to read: the collection, the query, its bound values, the
filter, the fields, the page window and the format. `Runner.run` does the rest, the same way
for every collection: a page is counted and read whole (with its pagination headers), a
record by key is read whole, and a list, a range or a summary is read whole when small and
streamed when not. A site's `records` query that lacks a field fails here, before a row is
sent; a value that does not fit its field stops the response (app/errors.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flask import Response, g, request, url_for

from . import errors, logs, params
from .db import Database, QueryFailed, Result
from .formats import Encoder, Format, Writer
from .problems import Absent
from .queries import Where
from .schemas import ValueMisfit
from .streaming import SpooledStream

__all__ = ["WHOLE_ROWS", "Read", "RowEncoder", "Runner", "Window", "read_response"]

# A list or range that ends within its first WHOLE_ROWS records is read whole before it is
# sent: a thread and a spool (app/streaming.py) only pay for themselves on larger results.
WHOLE_ROWS = 2000


class RowEncoder(Encoder, Protocol):
    """An encoder that also turns a query's rows into the values sent."""

    def columns_missing(self, columns: Sequence[str]) -> list[str]: ...
    def values(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               first: int | None = None) -> list[tuple[Any, ...]]: ...


@dataclass(frozen=True)
class Window:
    """A page of a read, and the arguments of its page links (in the order they are written;
    the one named `page_arg` carries each link's page number)."""

    page: int
    size: int
    count: str | None  # the query that counts what is paged; None: not counted, no links
    page_arg: str = "pagenumber"
    links: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Read:
    """What one request reads and how it is sent."""

    collection: str  # whose queries (sql/<collection>.sql)
    query: str  # the query's name (app/collections.py Collection.reads)
    encoder: RowEncoder  # the collection's records, or a summary's groups
    format: Format
    filename: str  # a download's name, less the format's extension
    values: Mapping[str, Any] = field(default_factory=dict)  # bound values (a range's bounds)
    where: Where | None = None  # the request's filters
    fields: Sequence[str] | None = None  # only these fields, in this order
    numbered: bool = False  # numberrow counts from the first row read (unfiltered lists)
    window: Window | None = None  # a page of the read; None: all of it
    by: tuple[str, ...] = ()  # a summary's groups
    absent: str = ""  # a read of one record: the 404 message when there is none

    @property
    def name(self) -> str:
        """What its records are called in a format that names them (an Excel sheet)."""
        return "summary" if self.by else self.collection


class Runner:
    """Runs reads on the app's database (one per app, shared by every collection)."""

    def __init__(self, db: Database):
        self.db = db

    def run(self, read: Read) -> Response:
        """The response to a read: one record, a page, or the whole result."""
        if read.absent:
            return self._one(read)
        if read.window is not None:
            return self._page(read)
        return self._all(read)

    def _one(self, read: Read) -> Response:
        found = self._window(read, params.INT64_MAX) if read.window else self._rows(read, 1)
        if not found:
            raise Absent(read.absent)
        return _whole(read, read.format.one(read.encoder, found, read.fields, read.name))

    def _page(self, read: Read) -> Response:
        window = read.window
        assert window is not None and window.count is not None
        total = self.db.count(read.collection, window.count, read.values, read.where)
        records = self._window(read, total)
        meta = _pagination(total, window.page, window.size)
        return _whole(read, read.format.whole(read.encoder, records, read.fields, read.name),
                      _page_headers(meta, window))

    def _window(self, read: Read, total: int) -> list[tuple[Any, ...]]:
        """The records of the read's page of `total` rows; no query beyond the last."""
        assert read.window is not None
        window = params.window(read.window.page, read.window.size)
        if window["skip"] >= total or window["last_row"] > params.INT64_MAX:
            g.rows = 0
            return []
        first = window["first_row"] if read.numbered else None
        return self._rows(read, None, read.values | window, first)

    def _rows(self, read: Read, limit: int | None, values: Mapping[str, Any] | None = None,
              first: int | None = None) -> list[tuple[Any, ...]]:
        """The records of a whole result (or its first `limit`), read before anything is
        sent."""
        result = self._checked(read, self.db.execute(
            read.collection, read.query, read.values if values is None else values, read.where))
        rows = result.all()[:limit]
        g.rows = len(rows)  # for the access log
        return read.encoder.values(result.columns, rows, first)

    def _checked(self, read: Read, result: Result) -> Result:
        """A site's SQL that lacks a field fails as an error response before any row is
        read, instead of sending records without it."""
        missing = read.encoder.columns_missing(result.columns)
        if missing:
            result.close()
            raise QueryFailed(f"{result.what} returns no column {', '.join(missing)}")
        return result

    def _all(self, read: Read) -> Response:
        """A list, a range or a summary: read whole when small, else streamed."""
        if request.method == "HEAD":
            # Headers only: no need to read a whole table, but a database that cannot be
            # reached still answers 503 as GET would.
            self.db.ping()
            return read_response(read, b"")
        result = self._checked(read, self.db.execute(
            read.collection, read.query, read.values, read.where, read.by))
        first = 1 if read.numbered else None
        if result.read_ahead(WHOLE_ROWS):
            # Small: sent whole with a Content-Length, its cursor already closed, no thread.
            rows = result.all()
            g.rows = len(rows)
            values = read.encoder.values(result.columns, rows, first)
            return read_response(read, read.format.whole(read.encoder, values, read.fields,
                                                         read.name))
        writer = read.format.writer(read.encoder, read.fields, read.name)
        batches = _Batches(read, writer, result.columns, first, self.db, logs.request_id())
        body = SpooledStream(result.batches(), batches, writer.head(), writer.tail,
                             result.what, result.abandon)
        g.rows = lambda: body.rows  # counted as they are read, for the access log
        g.stream = body  # whether it broke off, for the metrics
        response = read_response(read, body)
        response.call_on_close(body.close)
        return response


class _Batches:
    """Encodes a stream's batches in its reading thread, numbering on from batch to batch."""

    def __init__(self, read: Read, writer: Writer, columns: Sequence[str], first: int | None,
                 db: Database, request_id: str):
        self.read, self.writer, self.columns, self.position = read, writer, columns, first
        self.db, self.request_id = db, request_id  # the reading thread has no request

    def __call__(self, rows: list[Any], first_batch: bool) -> bytes:
        read = self.read
        try:
            values = read.encoder.values(self.columns, rows, self.position)
        except ValueMisfit as exc:  # the stream breaks off before the value (streaming.py)
            errors.report_misfit(self.db, self.db.metrics, read.collection, exc,
                                 self.request_id)
            raise
        if self.position is not None:
            self.position += len(rows)
        return self.writer.part(values, first_batch)


def read_response(read: Read, body: Any, headers: dict[str, str] | None = None) -> Response:
    """The response of a read in its format: media type, a download's file name, Vary
    (also the feed's, app/feed.py)."""
    response = Response(body, mimetype=read.format.media_type, headers=headers)
    if read.format.extension:
        response.headers["Content-Disposition"] = (
            f'attachment; filename="{read.format.filename(read.filename)}"')
    response.headers.add("Vary", "Accept")
    return response


def _whole(read: Read, body: bytes, headers: dict[str, str] | None = None) -> Response:
    """A response read whole: a strong ETag of its bytes, 304 when the client has it."""
    response = read_response(read, body, headers)
    response.headers["Cache-Control"] = "no-cache"  # proxies revalidate every time
    response.set_etag(hashlib.blake2b(body, digest_size=16).hexdigest())
    if "If-None-Match" in request.headers or "If-Modified-Since" in request.headers:
        return response.make_conditional(request)  # 304 when the client has it
    return response


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


def _page_headers(meta: dict[str, int], window: Window) -> dict[str, str]:
    rels = [("first", meta.get("first_page")), ("last", meta.get("last_page")),
            ("prev", meta.get("previous_page")), ("next", meta.get("next_page"))]
    links = ", ".join(f'<{_link(window, p)}>; rel="{rel}"' for rel, p in rels if p is not None)
    headers = {"X-Pagination": json.dumps(meta, separators=(",", ":"))}
    if links:
        headers["Link"] = links
    return headers


def _link(window: Window, page: int) -> str:
    """This request's URL for another page: its path, the window's link arguments, then the
    other arguments as sent (a repeated one as a list), less the ignored `_` ones."""
    args: dict[str, Any] = dict(request.view_args or {})
    args.update(window.links)
    args[window.page_arg] = page
    args.update((k, v[0] if len(v) == 1 else v) for k, v in request.args.lists()
                if k not in args and not k.startswith("_"))
    return url_for(request.endpoint or "", _external=True, **args)
