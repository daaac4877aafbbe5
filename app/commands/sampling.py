"""What draft-mapping reads from a sample of a site's table: the kind of value each column
holds (a date-time written as text, a registration, a code, a name), and whether a text
key's digits can serve as the integer `id`.

The sample is the first SAMPLE_ROWS rows the database gives for the table, in no
particular order (database.sql `sample`): what it says holds for those rows only, and the
draft says so where it relies on it.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

SAMPLE_ROWS = 50
# Text written as the ISO forms SQLite's date() and time(), SQL Server's and PostgreSQL's
# CAST read alike.
_DATETIME_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?")
_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME_TEXT = re.compile(r"\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?")
# Dates written as text in the forms plants use, day first (never a month first: no plant
# here writes one), by the name draft-mapping converts them under (app/commands/dates.py).
TEXT_DATE_FORMS = {
    "dd/mm/yyyy": re.compile(r"(\d{2})/(\d{2})/\d{4}"),
    "dd-mm-yyyy": re.compile(r"(\d{2})-(\d{2})-\d{4}"),
    "dd/mm/yy": re.compile(r"(\d{2})/(\d{2})/\d{2}"),
    "dd-mm-yy": re.compile(r"(\d{2})-(\d{2})-\d{2}"),
    "yyyymmdd": re.compile(r"(?:19|20)\d{2}(\d{2})(\d{2})"),
}
_NUMBER_TEXT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
# An Indonesian registration (TNKB): area letters, up to four digits, up to three letters.
_PLATE = re.compile(r"[A-Z]{1,2} ?\d{1,4} ?[A-Z]{0,3}")
_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/\-]{0,19}")
_GUID = re.compile(r"\{?[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}\}?")
# Seconds since 1970 of a moment from 2000 to 2099: a date kept as a number (Unix time).
EPOCH_FROM, EPOCH_TO = 946684800, 4102444800
# The day a legacy datetime column puts a time of day on when it holds no date.
ZERO_DAYS = (dt.date(1900, 1, 1), dt.date(1899, 12, 30), dt.date(1, 1, 1), dt.date(1970, 1, 1))
MOSTLY = 0.8  # the share of a sample's values a registration, code or name must make up


class Profile(NamedTuple):
    """What a column's sampled values are: kind '' when nothing is known (no value)."""
    kind: str  # datetime, date, time, number, guid, plate, code, name, text, or ''
    examples: tuple[str, ...] = ()  # up to three distinct values, as text
    values: tuple[Any, ...] = ()  # the non-null values sampled

    @property
    def example(self) -> str:
        return self.examples[0] if self.examples else ""

    @property
    def epoch(self) -> bool:
        """Whole numbers that are seconds since 1970 of moments from 2000 to 2099."""
        return self.kind == "number" and all(
            float(v) == int(float(v)) and EPOCH_FROM <= float(v) < EPOCH_TO
            for v in self.values)

    @property
    def date_form(self) -> str:
        """The plant's form of a date written as text (TEXT_DATE_FORMS), alone or before a
        time ('24/11/2026 07:05'); '' for ISO."""
        if self.kind not in ("date", "datetime"):
            return ""
        return _plant_form([str(v).strip() for v in self.values])

    @property
    def real_days(self) -> bool:
        """Date-times on days of their own, not a time of day put on a legacy zero day."""
        days = {_day(v) for v in self.values}
        return self.kind == "datetime" and bool(days) and not days <= set(ZERO_DAYS)


def _all(values: Sequence[Any], test: Any) -> bool:
    return bool(values) and all(test(v) for v in values)


def _mostly(values: Sequence[str], pattern: re.Pattern[str]) -> bool:
    return bool(values) and sum(bool(pattern.fullmatch(v)) for v in values) >= \
        MOSTLY * len(values)


def _is_day(pattern: re.Pattern[str], text: str) -> bool:
    """Whether a text is a date of this form: its day and month in range (yyyymmdd: its
    month and day)."""
    m = pattern.fullmatch(text)
    if not m:
        return False
    first, second = int(m.group(1)), int(m.group(2))
    day, month = (second, first) if pattern is TEXT_DATE_FORMS["yyyymmdd"] else (first, second)
    return 1 <= day <= 31 and 1 <= month <= 12


def _plant_form(texts: Sequence[str]) -> str:
    """The one form of TEXT_DATE_FORMS every text's date is in, alone or before a time of
    day after a space; '' for none."""
    days = [t.split(" ", 1)[0] for t in texts]
    clocks = [t.split(" ", 1)[1] for t in texts if " " in t]
    if clocks and (len(clocks) < len(texts) or not _all(clocks, _TIME_TEXT.fullmatch)):
        return ""
    return next((name for name, pattern in TEXT_DATE_FORMS.items()
                 if _all(days, lambda t, p=pattern: _is_day(p, t))), "")


def _text_kind(texts: Sequence[str]) -> str:
    if _all(texts, _DATETIME_TEXT.fullmatch) or (
            _plant_form(texts) and all(" " in t for t in texts)):
        return "datetime"
    if _all(texts, _DATE_TEXT.fullmatch) or _plant_form(texts):
        return "date"
    if _all(texts, _TIME_TEXT.fullmatch):
        return "time"
    if _all(texts, _NUMBER_TEXT.fullmatch):
        return "number"
    if _all(texts, _GUID.fullmatch):
        return "guid"
    if _mostly(texts, _PLATE):
        return "plate"
    coded = [t for t in texts if _CODE.fullmatch(t) and (t.upper() == t
                                                          or any(c.isdigit() for c in t))]
    if len(coded) >= MOSTLY * len(texts):
        return "code"
    named = [t for t in texts if any(c.isalpha() for c in t) and (" " in t or t != t.upper())]
    return "name" if len(named) >= MOSTLY * len(texts) else "text"


def any_plate(values: Sequence[Any]) -> bool:
    """Whether any sampled value is a registration."""
    return any(isinstance(v, str) and _PLATE.fullmatch(v.strip()) for v in values)


def _typed_kind(values: Sequence[Any]) -> str:
    if _all(values, lambda v: isinstance(v, dt.datetime)):
        return "datetime"
    if _all(values, lambda v: isinstance(v, dt.date)):
        return "date"
    if _all(values, lambda v: isinstance(v, dt.time)):
        return "time"
    if _all(values, lambda v: isinstance(v, int | float | decimal.Decimal)
            and not isinstance(v, bool)):
        return "number"
    return ""


def profile(values: Sequence[Any]) -> Profile:
    """The kind of a column's sampled values (NULLs left out)."""
    present = [v for v in values if v is not None]
    kind = _typed_kind(present)
    if not kind and _all(present, lambda v: isinstance(v, str)):
        texts = [v.strip() for v in present if v.strip()]
        kind = _text_kind(texts) if texts else ""
    elif not kind and present:
        kind = "text"
    examples = tuple(dict.fromkeys(str(v).strip() for v in present))[:3]
    return Profile(kind, examples, tuple(present))


def _day(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    try:
        return dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        return None


def profiles(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> dict[str, Profile]:
    """Each column's profile from the sampled rows (a row: the columns in `names` order)."""
    return {name: profile([row[n] for row in rows]) for n, name in enumerate(names)}


# -- a text key's digits --------------------------------------------------------------

class TextKey(NamedTuple):
    """An integer made of a text key's digits: (position, length) of each run of digits,
    1-based, as the values are laid out; `tail` when the last run runs to the end."""
    runs: tuple[tuple[int, int], ...]
    tail: bool
    example: str
    number: int  # the example's digits as a number
    letters: tuple[str, ...]  # the distinct non-digit texts of the sample (TB-, TK-)


_DIGITS = re.compile(r"\d+")
MAX_DIGITS = 18  # a bigint holds every number of 18 digits


def _layout(text: str) -> str:
    return re.sub(r"[^0-9]", "x", re.sub(r"[0-9]", "9", text))


def text_key(values: Sequence[Any]) -> tuple[TextKey | None, str]:
    """The integer a text key's digits make, when every sampled value is laid out alike
    (the same places for its digits: TB-2611-0001, or a fixed prefix then digits: T-1,
    T-10) and those integers are unique in the sample; else None and why not."""
    texts = [str(v).rstrip() for v in values if v is not None]
    if not texts:
        return None, "the sample holds no value of it"
    if len(set(texts)) < len(texts):
        return None, "its values repeat: it is no key"
    layouts = {_layout(t) for t in texts}
    runs = [(m.start() + 1, len(m.group())) for m in _DIGITS.finditer(texts[0])]
    if len(layouts) == 1 and runs:
        tail = False
    else:
        found = [re.fullmatch(r"(\D*)(\d+)", t) for t in texts]
        starts = {len(m.group(1)) for m in found if m}
        if not all(found) or len(starts) != 1:
            return None, "its values are not laid out alike: their digits move"
        runs, tail = [(starts.pop() + 1, MAX_DIGITS)], True
    numbers = [int("".join(_DIGITS.findall(t))) for t in texts]
    if max(len(str(n)) for n in numbers) > MAX_DIGITS or (
            not tail and sum(n for _, n in runs) > MAX_DIGITS):
        return None, f"it has more than {MAX_DIGITS} digits, too many for an integer"
    if len(set(numbers)) < len(numbers):
        return None, "its digits alone repeat: the letters tell the values apart"
    letters = tuple(sorted({re.sub(r"\d", "", t) for t in texts}))
    return TextKey(tuple(runs), tail, texts[0], numbers[0], letters), ""


def key_expression(key: TextKey, column: str, dialect: str | None) -> str:
    """The SQL of the integer of a text key's digits: each run of digits cut out and cast,
    shifted by the digits after it (TB-2611-0001: 2611 * 10000 + 1); SUBSTRING on SQL
    Server and PostgreSQL, substr on SQLite."""
    cut = "substr" if dialect == "sqlite" else "SUBSTRING"
    terms = []
    after = 0
    for start, length in reversed(key.runs):
        part = f"CAST({cut}({column}, {start}, {length}) AS bigint)"
        terms.append(part if after == 0 else f"{part} * {10 ** after}")
        after += length
    return " + ".join(reversed(terms))
