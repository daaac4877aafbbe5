"""The path converters: which segment of a rule holds what, for the OpenAPI document.

Path segments are taken as text and parsed by the view, so that a malformed one is a 400
that says what is accepted, not the 404 of a converter that does not match. Each converter
only tells the OpenAPI document what the segment holds.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import BaseConverter


class Segment(BaseConverter):
    openapi: dict[str, Any] = {"type": "string"}


class PageNumber(Segment):
    openapi = {"type": "integer", "minimum": 1}


class RecordId(Segment):
    openapi = {"type": "integer"}


class TextKey(Segment):
    """A master's text code (collections.text_keys): any text, a '/' included (a code such
    as 'A/B' sent as A%2FB reaches the WSGI server decoded), so the rest of the path is the
    code; the routes with words after the collection's name (page/, changes, summary/...)
    are matched first, as any rule whose parts are fixed text is."""

    regex = "[^/].*?"
    part_isolating = False
    openapi = {"type": "string", "example": "C005"}


class IsoDate(Segment):
    openapi = {"type": "string", "format": "date", "example": "2026-11-01"}


class Clock(Segment):
    openapi = {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$",
               "example": "07:30"}


CONVERTERS: dict[str, type[Segment]] = {"pagenumber": PageNumber, "recordid": RecordId,
                                         "textkey": TextKey, "isodate": IsoDate,
                                         "clock": Clock}
