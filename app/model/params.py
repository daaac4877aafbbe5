"""Path parameters: parsed strictly, `Invalid` saying what is accepted (a 400, docs/api.md
§5.3-§5.5). Nothing here knows HTTP: the MCP tools read their dates and times with the same
functions."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from .problems import Invalid

# ASCII digits only: str.isdigit() and int() also accept '١٢٣' and full-width digits.
INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
TIME = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?", re.ASCII)
# The largest value an INTEGER/BIGINT column holds; past it no row can match.
INT64_MAX = 2**63 - 1
MIDNIGHT = dt.time(0, 0, 0)


def bounded_int(text: str) -> int:
    """int() of ASCII digits, but past 64 bits only ±(INT64_MAX + 1): no row can hold such
    a value, and int() refuses strings of more than 4,300 digits."""
    digits = text.lstrip("-").lstrip("0")
    if len(digits) > 19:
        return -(INT64_MAX + 1) if text.startswith("-") else INT64_MAX + 1
    return int(text)


def integer(text: str, what: str, minimum: int | None = None) -> int:
    if not INTEGER.fullmatch(text) or (minimum is not None and bounded_int(text) < minimum):
        kind = "an integer" if minimum is None else f"an integer of at least {minimum}"
        raise Invalid(f"{what} must be {kind} written in digits, e.g. "
                         f"{max(minimum or 1, 1)}; got {text[:40]!r}")
    return bounded_int(text)


# The longest text code a key may be: wider than any master's code column (varchar(10) to
# varchar(50) in the vendors' schemas); no row holds a longer one, and a bound parameter
# past 4,000 characters is an nvarchar(max) on SQL Server.
TEXT_KEY_MAX = 255


def text_key(text: str, what: str) -> str:
    """A master's text code as given (a path segment, URL-decoded): compared as the database
    compares text (on SQL Server trailing blanks never count), so taken as it is."""
    if not text or len(text) > TEXT_KEY_MAX or not text.isprintable():
        raise Invalid(f"{what} must be the record's code, 1 to {TEXT_KEY_MAX} printable "
                      f"characters (URL-encoded in a path), e.g. C005; got {text[:40]!r}")
    return text


def date(text: str, what: str) -> dt.date:
    try:
        if DATE.fullmatch(text):
            return dt.date.fromisoformat(text)
    except ValueError:
        raise Invalid(f"{what} {text!r} is not a date of the calendar; "
                         f"expected YYYY-MM-DD, e.g. 2026-11-01") from None
    raise Invalid(f"{what} must be a date written YYYY-MM-DD, e.g. 2026-11-01; "
                     f"got {text[:40]!r}")


def time(text: str, what: str) -> dt.time:
    m = TIME.fullmatch(text)
    if m:
        hour, minute, second = (int(g or 0) for g in m.groups())
        if hour < 24 and minute < 60 and second < 60:
            return dt.time(hour, minute, second)
    raise Invalid(f"{what} must be a 24-hour time HH:MM or HH:MM:SS with two digits each "
                     f"(00:00 to 23:59:59; HH:MM means HH:MM:00), e.g. 07:30; "
                     f"got {text[:40]!r}")


def date_range(tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str) -> dict[str, Any]:
    """The parameters of a range query: both bounds inclusive."""
    start = (date(tglawal, "tglawal"), time(jam_awal, "jam_awal"))
    end = (date(tglakhir, "tglakhir"), time(jam_akhir, "jam_akhir"))
    if start > end:
        raise Invalid(f"the range starts after it ends: {tglawal} {jam_awal} is later than "
                         f"{tglakhir} {jam_akhir}; give the earlier date and time first")
    return {"start_date": start[0], "start_time": start[1], "end_date": end[0],
            "end_time": end[1], "midnight": MIDNIGHT}


def window(page: int, page_size: int) -> dict[str, int]:
    """Rows of page `page` (1-based) as both ROW_NUMBER bounds and LIMIT/OFFSET."""
    return rows((page - 1) * page_size, page_size)


def rows(skip: int, size: int) -> dict[str, int]:
    """`size` rows after the first `skip` as both ROW_NUMBER bounds and LIMIT/OFFSET."""
    return {"first_row": skip + 1, "last_row": skip + size, "row_count": size, "skip": skip}
