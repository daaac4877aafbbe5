"""The HTTP face of a read: the runner's rows (app/core/reads.py) as a response in the format the
client asked for (app/formats/registry.py).

A record, a page or a small list is sent whole, a page with its pagination headers and
Link, a record and a page with a strong ETag (304 when the client has it); a large list,
range or summary is streamed, read at the database's pace into a spool (app/http/streaming.py);
HEAD of a list reads nothing. A download has its file name, and every answer says how many
records it sent to the request's outcome (for the access line and the metrics,
app/http/logged.py)).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from flask import Response, request, url_for
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from ..core import feed, leftout
from ..core.filtering import Filter
from ..core.plan import Planner
from ..core.reads import Read, Runner
from ..formats import registry as formats
from ..formats.registry import Format, Writer
from ..model.schemas import ValueMisfit
from ..ops.config import FeedSettings
from .logged import outcome, request_id
from .streaming import SpooledStream

__all__ = ["Answers", "Paging"]

NEGOTIATED = [f for f in formats.FORMATS.values() if f.negotiated]  # what Accept: may ask for
MEDIA_TYPES = [f.media_type for f in NEGOTIATED]
BY_MEDIA_TYPE = {f.media_type: f for f in NEGOTIATED}


@dataclass(frozen=True)
class Paging:
    """How a page of a read is told and linked: its number and size, the argument that
    carries a link's page number, and the arguments its links write first."""

    page: int
    size: int
    page_arg: str = "pagenumber"
    links: Mapping[str, Any] = field(default_factory=dict)


class Answers:
    """Runs reads and answers them over HTTP (one per app)."""

    def __init__(self, runner: Runner):
        self.runner = runner

    def figures(self, format: str | None) -> bool:
        """Whether the request's format is a clerk's figures (a workbook), whose lists and
        ranges leave cancelled records out by default (docs/api.md §6.3)."""
        return _negotiate(format, request.headers.get("Accept")).figures

    def answer(self, read: Read, format: str | None, filename: str,
               paging: Paging | None = None, planner: Planner | None = None) -> Response:
        """The response to a read: one record, a page, or the whole result; with the
        `planner` that planned it, a summary or a workbook also says what it leaves out
        (`X-Left-Out`, and a workbook's sheet of it: docs/api.md §7)."""
        fmt = _negotiate(format, request.headers.get("Accept"))
        if read.streams and request.method == "HEAD":
            # Headers only: no need to read a whole table, but a database that cannot be
            # reached still answers 503 as GET would.
            self.runner.ping()
            return _response(fmt, filename, b"")
        left = (leftout.of_read(self.runner, planner, read)
                if planner is not None and (read.by or fmt.figures) else ())
        notes, said = _left_out(left, planner, read)
        rows = self.runner.run(read)
        if rows.stream is not None:
            return self._streamed(read, fmt, filename, rows.stream, rows.first, notes, said)
        if read.absent:
            body = fmt.one(read.encoder, rows.values, read.fields, read.name)
            return _whole(fmt, filename, body, len(rows.values))
        body = fmt.whole(read.encoder, rows.values, read.fields, read.name, notes)
        if paging is not None:
            assert rows.total is not None
            headers = _page_headers(_pagination(rows.total, paging.page, paging.size), paging)
            return _whole(fmt, filename, body, len(rows.values), headers | said)
        outcome().rows = len(rows.values)
        return _response(fmt, filename, body, said)

    def _streamed(self, read: Read, fmt: Format, filename: str, result: Any,
                  first: int | None, notes: Sequence[tuple[Any, ...]] = (),
                  said: dict[str, str] | None = None) -> Response:
        writer = formats.noted(fmt.writer(read.encoder, read.fields, read.name), notes)
        batches = _Batches(read, writer, result.columns, first, self.runner,
                           request_id())
        body = SpooledStream(result.batches(), batches, writer.head(), writer.tail,
                             result.what, result.abandon, outcome())  # counted as read
        response = _response(fmt, filename, body, said)
        response.call_on_close(body.close)
        return response

    def changes(self, planner: Planner, settings: FeedSettings, on: str, limit: int,
                after: str | None, since: str | None, filters: Sequence[Filter],
                format: str | None, fields: Sequence[str] | None) -> Response:
        """The answer to GET /<c>/changes: the records, and the bookmark in X-Bookmark and
        in the Link to the next call."""
        found = feed.read(self.runner, planner, settings, on, limit, after, since, filters)
        fmt = _negotiate(format, request.headers.get("Accept"))
        name = planner.collection.name
        headers = {"X-Bookmark": found.bookmark, "Link": f'<{_next(found.bookmark)}>; rel="next"',
                   "Cache-Control": "no-store"}
        if found.repeats:
            headers["X-Bookmark-Repeats"] = str(found.repeats)
        body = fmt.whole(planner.encoder, found.values, planner.shown(fields), name)
        outcome().rows = len(found.values)
        return _response(fmt, f"{name}-changes", body, headers)


class _Batches:
    """Encodes a stream's batches in its reading thread, numbering on from batch to batch."""

    def __init__(self, read: Read, writer: Writer, columns: Sequence[str], first: int | None,
                 runner: Runner, request_id: str):
        self.read, self.writer, self.columns, self.position = read, writer, columns, first
        self.runner, self.request_id = runner, request_id  # the reading thread has no request

    def __call__(self, rows: list[Any], first_batch: bool) -> bytes:
        read = self.read
        try:
            values = read.encoder.values(self.columns, rows, self.position)
        except ValueMisfit as exc:  # the stream breaks off before the value (streaming.py)
            self.runner.report_misfit(read.collection, exc, self.request_id)
            raise
        if self.position is not None:
            self.position += len(rows)
        return self.writer.part(values, first_batch)


# X-Left-Out at most (bytes) with its URLs: a proxy refuses an answer whose headers pass its
# buffer (nginx's proxy_buffer_size, 4 KB on most systems: a 502); past it `list` is null and
# `add` says what to add to the request's own filters.
LEFT_OUT_BYTES = 2000
# The query arguments of a read that are not filters: left out of the URL that lists what a
# summary or a workbook leaves out.
_NOT_FILTERS = frozenset(("by", "format", "fields", "page", "page_size", "on"))


def _left_out(left: Sequence[leftout.LeftOut], planner: Planner | None, read: Read
              ) -> tuple[list[tuple[Any, ...]], dict[str, str]]:
    """What a read leaves out as the header X-Left-Out, a JSON array, an object per reason
    (none left out too) with its `records`, what it is `left_out_of`, the arguments to
    `add` to the read's filters and the URL that `list`s them (the read's filters as sent,
    and the reason's; null past LEFT_OUT_BYTES); and as a workbook's rows
    (xlsx.NOTE_HEADINGS), one per reason that leaves some record out."""
    if not left or planner is None:
        return [], {}
    asked = [(k, v) for k, vs in request.args.lists() for v in vs
             if k not in _NOT_FILTERS and not k.startswith("_")]
    root, on = request.url_root, read.query.on or ""
    found = [(item, None if path is None else root + path) for item in left
             for path in (item.path(planner.collection.name, read.values, on, asked),)]
    notes = [(i.reason.name, i.records, i.reason.left_out_of, i.reason.why, url)
             for i, url in found if i.records]
    said = [{**i.said(), "add": urlencode(i.args), "list": url} for i, url in found]
    header = json.dumps(said, separators=(",", ":"))
    if len(header) > LEFT_OUT_BYTES:  # many filter values: the URLs alone would pass it
        header = json.dumps([s | {"list": None} for s in said], separators=(",", ":"))
    return notes, {"X-Left-Out": header}


def _negotiate(name: str | None, accept: str | None) -> Format:
    """?format= wins; else the best of the Accept header; JSON by default (also for none, or
    */*, which need no parsing)."""
    if name is not None:
        return formats.FORMATS[name]
    if not accept or accept == "*/*":
        return formats.DEFAULT
    best = parse_accept_header(accept, MIMEAccept).best_match(MEDIA_TYPES)
    return BY_MEDIA_TYPE.get(best or "", formats.DEFAULT)


def _response(fmt: Format, filename: str, body: Any,
              headers: dict[str, str] | None = None) -> Response:
    """A read's response in its format: media type, a download's file name, Vary."""
    response = Response(body, mimetype=fmt.media_type, headers=headers)
    if fmt.extension:
        response.headers["Content-Disposition"] = (
            f'attachment; filename="{fmt.filename(filename)}"')
    response.headers.add("Vary", "Accept")
    return response


def _whole(fmt: Format, filename: str, body: bytes, rows: int,
           headers: dict[str, str] | None = None) -> Response:
    """A response read whole: a strong ETag of its bytes, 304 when the client has it."""
    response = _response(fmt, filename, body, headers)
    outcome().rows = rows
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


def _page_headers(meta: dict[str, int], paging: Paging) -> dict[str, str]:
    rels = [("first", meta.get("first_page")), ("last", meta.get("last_page")),
            ("prev", meta.get("previous_page")), ("next", meta.get("next_page"))]
    links = ", ".join(f'<{_link(paging, p)}>; rel="{rel}"' for rel, p in rels if p is not None)
    headers = {"X-Pagination": json.dumps(meta, separators=(",", ":"))}
    if links:
        headers["Link"] = links
    return headers


def _link(paging: Paging, page: int) -> str:
    """This request's URL for another page: its path, the paging's link arguments, then
    the other arguments as sent (a repeated one as a list), less the ignored `_` ones."""
    args: dict[str, Any] = dict(request.view_args or {})
    args.update(paging.links)
    args[paging.page_arg] = page
    args.update((k, v[0] if len(v) == 1 else v) for k, v in request.args.lists()
                if k not in args and not k.startswith("_"))
    return url_for(request.endpoint or "", _external=True, **args)


def _next(token: str) -> str:
    """This request's URL with after=<token> (and no since): the next call."""
    args: dict[str, Any] = dict(request.view_args or {})
    args.update((k, v[0] if len(v) == 1 else v) for k, v in request.args.lists()
                if k not in ("after", "since") and not k.startswith("_"))
    args["after"] = token
    return url_for(request.endpoint or "", _external=True, **args)
