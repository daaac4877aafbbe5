"""The output formats (CONTRACT §2, §3 "CSV"): one registry, an entry each.

An entry says what a client asks for (`?format=` and the media type of `Accept:`), the file
extension of a download, and how records and summaries are written: whole, or as the head,
the parts and the tail of a stream. Records (app/encoding.py RecordEncoder) and summaries
(app/summaries.py SummaryEncoder) offer the same encoder methods, so one entry writes both.
Adding a format is one entry here, its encoder methods, its tests and its docs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

__all__ = ["DEFAULT", "FORMATS", "Encoder", "Format", "descriptions", "negotiate"]

Values = list[tuple[Any, ...]]
Fields = Sequence[str] | None


class Encoder(Protocol):
    """What RecordEncoder and SummaryEncoder both offer."""

    def json(self, values: Values, fields: Fields = None) -> bytes: ...
    def csv(self, values: Values, fields: Fields = None) -> str: ...
    def csv_header(self, fields: Fields = None) -> str: ...


@dataclass(frozen=True)
class Format:
    name: str  # the ?format= value
    media_type: str  # Content-Type, and what Accept: names to ask for it
    extension: str | None  # a download's file name ends .<extension>; None: shown inline
    doc: str  # what each operation's description says of it ("" for the default)
    whole: Callable[[Encoder, Values, Fields], bytes]  # a whole body of records
    one: Callable[[Encoder, Values, Fields], bytes]  # the body of one record by key
    head: Callable[[Encoder, Fields], bytes]  # a stream: what comes before the records
    part: Callable[[Encoder, Values, Fields, bool], bytes]  # a batch (True: the first)
    tail: bytes  # a stream: what ends it, written only when every batch was read

    def filename(self, stem: str) -> str:
        return f"{stem}.{self.extension}"


def _json_part(encoder: Encoder, values: Values, fields: Fields, first: bool) -> bytes:
    items = encoder.json(values, fields)[1:-1]
    return items if first else b"," + items


def _csv_whole(encoder: Encoder, values: Values, fields: Fields) -> bytes:
    return (encoder.csv_header(fields) + encoder.csv(values, fields)).encode()


JSON = Format(
    name="json", media_type="application/json", extension=None, doc="",
    whole=lambda encoder, values, fields: encoder.json(values, fields),
    one=lambda encoder, values, fields: encoder.json(values, fields)[1:-1],  # the object
    head=lambda encoder, fields: b"[", part=_json_part, tail=b"]")

# Every record endpoint also answers CSV, yet the document lists only JSON under 200 and
# leaves `format` out of the parameters (app/routes.py UNDOCUMENTED): a 200 with two media
# types makes generated clients type the body `Weighing[] | string`, and a client that can
# ask for format=csv gets a body it cannot parse as the type it was given. CSV is for
# spreadsheets and plain HTTP; each operation's description says how to ask.
CSV = Format(
    name="csv", media_type="text/csv", extension="csv",
    doc="""
CSV: `?format=csv` or `Accept: text/csv` gives the same answer as text/csv (a header row of
the field names, then one row per record or group, RFC 4180 quoting, values as in JSON, NULL
as an empty cell; `?format=json` wins over Accept). Not among the responses documented here,
so that generated clients keep the JSON type: fetch CSV over plain HTTP.""",
    whole=_csv_whole, one=_csv_whole,
    head=lambda encoder, fields: encoder.csv_header(fields).encode(),
    part=lambda encoder, values, fields, first: encoder.csv(values, fields).encode(),
    tail=b"")

FORMATS: dict[str, Format] = {f.name: f for f in (JSON, CSV)}
DEFAULT = JSON
_MEDIA_TYPES = [f.media_type for f in FORMATS.values()]
_BY_MEDIA_TYPE = {f.media_type: f for f in FORMATS.values()}


def negotiate(name: str | None, accept: str | None) -> Format:
    """?format= wins; else the best of the Accept header; JSON by default (also for none, or
    */*, which need no parsing)."""
    if name is not None:
        return FORMATS[name]
    if not accept or accept == "*/*":
        return DEFAULT
    best = parse_accept_header(accept, MIMEAccept).best_match(_MEDIA_TYPES)
    return _BY_MEDIA_TYPE.get(best or "", DEFAULT)


def descriptions() -> tuple[str, ...]:
    """What the operations' descriptions say of the formats beside the default."""
    return tuple(f.doc for f in FORMATS.values() if f.doc)
