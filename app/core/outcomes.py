"""What a read answers instead of records, for both faces: one table of the exceptions a
read may raise, each with its HTTP status, its MCP outcome and the public sentence both
faces say of it (app/http/errors.py and app/mcp/protocol.py read it). A sentence never
holds an internal detail: the database's own words stay in the log. No web imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..database.db import DatabaseUnavailable, QueryFailed, ValueRefused
from ..model.problems import Absent, Invalid
from .unmapped import NotMapped

__all__ = ["OUTCOMES", "Answer", "answer_of", "said"]


@dataclass(frozen=True)
class Said:
    """What a face knows of the request a sentence is said in."""

    request_id: str = ""
    wait: str = "a few seconds"  # when to try again: the HTTP face's Retry-After in words


@dataclass(frozen=True)
class Answer:
    """How one exception is answered: its HTTP status (None: the HTTP face answers it as an
    unexpected error, a 500 with a request id), its MCP outcome and its public sentence."""

    status: int | None
    mcp: str
    sentence: Callable[[BaseException, Said], str]


def _own(exc: BaseException, _: Said) -> str:
    """The exception's own message, written for the client where it was raised."""
    return str(getattr(exc, "message", exc))


REFUSED_VALUE = ("A filter value does not fit its field's column in this database (a number "
                 "out of the column's range, say); no record can match it. Check the filter "
                 "values.")

# The exceptions a read may raise, by class (a subclass is answered as its class).
OUTCOMES: dict[type[BaseException], Answer] = {
    Invalid: Answer(400, "refused", _own),
    Absent: Answer(404, "refused", _own),
    ValueRefused: Answer(400, "refused", lambda exc, s: REFUSED_VALUE),
    NotMapped: Answer(503, "unmapped", _own),
    DatabaseUnavailable: Answer(
        503, "unavailable",
        lambda exc, s: f"The database is unavailable ({getattr(exc, 'reason', '')}); try "
                       f"again in {s.wait}."),
    QueryFailed: Answer(
        None, "failed",
        lambda exc, s: f"The database refused the query; the operator can find it in the "
                       f"log under request id {s.request_id}."),
}


def answer_of(exc: BaseException) -> Answer | None:
    """The table's row of an exception (or of its nearest class in the table), else None."""
    for cls in type(exc).__mro__:
        found = OUTCOMES.get(cls)
        if found is not None:
            return found
    return None


def said(exc: BaseException, request_id: str = "", wait: str = "a few seconds") -> str:
    """The public sentence of an exception of the table."""
    found = answer_of(exc)
    assert found is not None, type(exc)
    return found.sentence(exc, Said(request_id, wait))
