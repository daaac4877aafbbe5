"""Database rows to JSON: what marshmallow's schema dumps, made fast for whole batches.

The marshmallow schemas stay the definition of every record and of the OpenAPI document.
Dumping through them costs about 50 µs a record, which caps a full-table stream near 20,000
records a second. Most batches need none of their conversions: the sqlite3 driver already
gives ints, finite floats, and ISO text of exactly 10 ("YYYY-MM-DD") and 8 ("HH:MM:SS")
characters, which every field dumps unchanged. So each batch is checked column by column
(at C speed: the set of types, the set of text lengths) and, when every value is one that
its field would dump unchanged, the rows go to orjson as they are. In any other batch only
the columns that need it are converted, each value by its own field's `_serialize` (what the
schema's dump calls), or by `date.isoformat`/`time.isoformat` for a column of date or time
objects (what ODBC drivers return, and what those fields call); a shape with computed fields
(vehicles' datetimes) goes through the schema's dump. The output is the same bytes either
way; tests/test_encoding.py checks it on generated rows.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
from collections import deque
from collections.abc import Callable, Sequence
from decimal import Decimal
from itertools import chain
from operator import itemgetter, methodcaller
from typing import Any

import marshmallow as ma
import orjson

from ..model.schemas import (
    BLANK,
    TRUTHS,
    Boolean,
    Date,
    Integer,
    JoinedDateTime,
    Number,
    String,
    Time,
    ValueMisfit,
)
from .headings import Headings

NONE = type(None)
# A text column's check in _UNCHANGED: its field dumps a text unchanged unless it ends with
# a blank, which it sends trimmed (app/model/schemas.py `trimmed`, docs/api.md §4).
UNPADDED = -1
_NUL = "\0"
_PADDED = BLANK + _NUL
# field class -> (the types it dumps unchanged, the one text length it dumps unchanged)
_UNCHANGED: dict[type[ma.fields.Field], tuple[frozenset[type], int | None]] = {
    Integer: (frozenset({int, NONE}), None),
    Number: (frozenset({int, float, NONE}), None),  # orjson writes NaN and Infinity as null
    String: (frozenset({str, NONE}), UNPADDED),  # sent trimmed (schemas.trimmed)
    Date: (frozenset({str, NONE}), 10),
    Time: (frozenset({str, NONE}), 8),
    # A condition's 1, 0 or NULL becomes true or false (RecordEncoder._truths), in any batch.
    Boolean: (frozenset({bool, int, NONE}), None),
}

# field class -> what its values are in a format that types its cells (RecordEncoder.kinds)
_KINDS: dict[type[ma.fields.Field], str] = {
    Integer: "integer", Number: "number", Date: "date", Time: "time",
    JoinedDateTime: "datetime", String: "text", Boolean: "boolean"}


# Date and time text the sqlite3 driver gives must also be a real date or time to go out
# unchanged: field class -> (the index of a separator in it, the separator, a parser that
# raises ValueError). The separator rules out the other ISO forms of the same length that
# the parser takes (2026-W47-1, 07:05+07). Anything else is converted, or is a misfit.
_TEXT_FORM: dict[type[ma.fields.Field], tuple[int, str, Callable[[str], Any]]] = {
    Date: (7, "-", dt.date.fromisoformat),
    Time: (5, ":", dt.time.fromisoformat),
}
_SPELT = {True: "true", False: "false"}  # a condition's value in CSV, as JSON writes it
_drain = deque(maxlen=0).extend  # runs an iterator to its end at C speed, keeping nothing
_contains = frozenset.__contains__  # (types, type): `type in types`, mapped at C speed


# (field class, the column's value types but None) -> the field's conversion, at C speed.
# `type(v) is date` excludes datetime (a subclass), which the field cuts to its date part.
_FAST: dict[tuple[type[ma.fields.Field], frozenset[type]], Callable[[Any], str]] = {
    (Date, frozenset({dt.date})): dt.date.isoformat,
    (Time, frozenset({dt.time})): dt.time.isoformat,
    (String, frozenset({str})): methodcaller("rstrip", BLANK),  # schemas.trimmed
}


class PlainValues(list):  # type: ignore[type-arg]
    """Records' values (RecordEncoder.values) of which every one is a value its field dumps
    unchanged: int, float, str or None, a float only in a Number field's column, a bool only
    in a condition's (which `csv` spells itself). `csv` then need not look at every value's
    type again."""

    __slots__ = ()


def dumps(value: Any) -> bytes:
    """The one JSON encoder of records: compact UTF-8, keys in the order given; a Decimal
    (a summary's weights) as the number it is, digit for digit (decimal_text)."""
    return orjson.dumps(value, default=_exact)


def decimal_text(value: Decimal) -> str:
    """A Decimal as JSON, CSV and a workbook write it: its digits, never an exponent, no
    trailing zeros but one after the point, as a float is written (63804.775, 48630.0,
    0.0); NaN and infinities (no figure is one) as null."""
    if not value.is_finite():
        return "null"
    text = format(value.normalize() if value else _ZERO, "f")
    return text if "." in text else f"{text}.0"


_ZERO = Decimal(0)


def _exact(value: Any) -> Any:
    """orjson's default: a Decimal written as decimal_text, anything else refused."""
    if type(value) is Decimal:
        return orjson.Fragment(decimal_text(value))
    raise TypeError(f"{type(value).__name__} is not JSON")


class RecordEncoder:
    """Encodes batches of rows of one collection, built once from its schema."""

    def __init__(self, schema: type[ma.Schema], headings: Headings | None = None):
        self.schema = schema(many=True)
        self.headings = headings or Headings()  # a workbook's (app/formats/headings.py)
        declared = schema._declared_fields
        self.numbered = "numberrow" in declared
        self.fields = [name for name, f in declared.items()
                       if name != "numberrow" and not f.dump_only]
        self.names = (["numberrow"] if self.numbered else []) + self.fields
        self.output = list(declared)  # every field as sent, in order (computed ones too)
        self._checks = [_UNCHANGED.get(type(declared[name])) for name in self.fields]
        self._declared = [declared[name] for name in self.names]
        self._fields = tuple(self.fields)
        self._numbers = {name for name, f in declared.items() if isinstance(f, Number)}
        self._booleans = {name for name, f in declared.items() if type(f) is Boolean}
        # Where the conditions are in a record's values (numberrow first where there is one).
        self._conditions = [i for i, name in enumerate(self.names) if name in self._booleans]
        # Per column: the types its field dumps unchanged and the text length, if any.
        self._types = [check[0] if check else frozenset() for check in self._checks]
        self._forms = [_TEXT_FORM.get(type(declared[name])) for name in self.fields]
        self._texts = [(i, (check[1], *form)) for i, (check, form)
                       in enumerate(zip(self._checks, self._forms, strict=True))
                       if check and form]
        self._strings = [i for i, check in enumerate(self._checks)
                         if check and check[1] == UNPADDED]
        # Computed fields (vehicles' datetimes) or an unknown field type: always the schema.
        self._known = all(check is not None for check in self._checks)
        self._always_schema = len(self.names) != len(declared) or not self._known

    def columns_missing(self, columns: Sequence[str]) -> list[str]:
        if tuple(columns) == self._fields:  # the shipped SQL names them in order
            return []
        return [name for name in self.fields if name not in columns]

    def batch(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
              first: int | None) -> tuple[list[tuple[Any, ...]], bool]:
        """The rows' values in field order (numberrow first, counting from `first`), and
        whether every value is one its field dumps unchanged."""
        if list(columns) != self.fields:
            pick = itemgetter(*[columns.index(name) for name in self.fields])
            values = [pick(row) for row in rows] if len(self.fields) > 1 else [
                (pick(row),) for row in rows]
        else:
            values = [tuple(row) for row in rows]
        plain = not self._always_schema and self._plain(values)
        if self.numbered:
            if first is None:
                values = [(None, *v) for v in values]
            else:
                values = [(n, *v) for n, v in enumerate(values, first)]
        return values, plain

    def _plain(self, values: list[tuple[Any, ...]]) -> bool:
        if not values:
            return True
        if len(values) <= 4:  # a record or a few: value by value beats column by column
            types, texts, strings = self._types, self._texts, self._strings
            return all(
                (all(map(_contains, types, map(type, row))) if len(row) == len(types)
                 else all(type(v) in t for v, t in zip(row, types, strict=True)))
                and all(row[i] is None or _text_fits(row[i], *form) for i, form in texts)
                and not any(row[i] and row[i][-1] == BLANK for i in strings)
                for row in values)
        return all(_unchanged(check, column, form) for check, column, form in
                   zip(self._checks, zip(*values, strict=True), self._forms, strict=True))

    def _convert(self, values: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The values as the schema dumps them, converting only the columns that need it."""
        columns: list[Sequence[Any]] = []
        plain = True  # whether only conditions' 1, 0 and NULL were converted
        for name, field, column in zip(self.names, self._declared, zip(*values, strict=True),
                                       strict=True):
            kind = type(field)
            if kind is Boolean and _conditions(column):  # 1, 0 and NULL: at C speed
                columns.append(list(map(TRUTHS.__getitem__, column)))
                continue
            if kind is not Boolean and _unchanged(_UNCHANGED[kind], column,
                                                  _TEXT_FORM.get(kind)):
                columns.append(column)
                continue
            plain = False
            fast = _FAST.get((kind, frozenset(map(type, column)) - {NONE}))
            try:
                if fast is not None:
                    columns.append([None if v is None else fast(v) for v in column])
                else:
                    serialize = field._serialize
                    columns.append([serialize(v, None, None) for v in column])
            except ValueMisfit as exc:
                exc.field = name
                raise
        converted = list(zip(*columns, strict=True))
        return PlainValues(converted) if plain else converted

    def _truths(self, values: list[tuple[Any, ...]]) -> tuple[bool, list[tuple[Any, ...]]]:
        """The values with each condition's 1, 0 or NULL as true or false, record by record
        at C speed (no transposing of the batch); (False, the values as given) where a
        condition holds anything else, for _convert to refuse."""
        out = values
        try:
            for i in self._conditions:
                out = _looked_up(out, i, TRUTHS)
        except (KeyError, TypeError):
            return False, values
        return True, out

    def misfits(self, columns: Sequence[str], rows: Sequence[Sequence[Any]]
                ) -> dict[str, ValueMisfit]:
        """{field: its first value in these rows that cannot be of its type}, value by
        value (for check-sql's sample: slow, and thorough)."""
        found: dict[str, ValueMisfit] = {}
        declared = self.schema.fields
        for name in self.fields:
            if name not in columns:
                continue
            index, serialize = columns.index(name), declared[name]._serialize
            for row in rows:
                try:
                    serialize(row[index], None, None)
                except ValueMisfit as exc:
                    exc.field = name
                    found[name] = exc
                    break
        return found

    def records(self, values: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        """Raw records (before the schema's conversions)."""
        names = self.names
        return [dict(zip(names, v, strict=False)) for v in values]

    def values(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               first: int | None) -> list[tuple[Any, ...]]:
        """Each record's values as sent, in the order of `self.output`."""
        values, plain = self.batch(columns, rows, first)
        if plain and self._conditions:
            plain, values = self._truths(values)
        if plain:
            return PlainValues(values)
        if not values:
            return values
        if self._known:  # every stored field converted (or refused) here, by its name
            values = self._convert(values)
        if not self._always_schema:
            return values
        output = self.output
        return [tuple(d[n] for n in output) for d in self.schema.dump(self.records(values))]

    def pick(self, fields: Sequence[str] | None) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
        """The values of `fields` (all when None), in that order, from a record's values."""
        if not fields or list(fields) == self.output:
            return _same
        getter = itemgetter(*[self.output.index(f) for f in fields])
        if len(fields) == 1:
            return lambda v: (getter(v),)
        return getter  # type: ignore[return-value]

    def json(self, values: list[tuple[Any, ...]], fields: Sequence[str] | None = None) -> bytes:
        """The JSON array of these records: `[{...},{...}]`."""
        names, pick = list(fields or self.output), self.pick(fields)
        return dumps([dict(zip(names, pick(v), strict=False)) for v in values])

    def encode(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               first: int | None, fields: Sequence[str] | None = None) -> bytes:
        return self.json(self.values(columns, rows, first), fields)

    def csv(self, values: list[tuple[Any, ...]], fields: Sequence[str] | None = None) -> str:
        """CSV lines (RFC 4180: CRLF, quotes where needed) of these records."""
        pick = self.pick(fields)
        rows = values if pick is _same else [pick(v) for v in values]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        names = fields or self.output
        flags = [i for i, name in enumerate(names) if name in self._booleans]
        for i in flags:  # true and false as JSON writes them, where csv would write True
            rows = _looked_up(rows, i, _SPELT)
        if (self._csv_floats_as_json(rows, names) if type(values) is PlainValues
                else self._csv_writes_as_json(rows, names)):
            writer.writerows(rows)  # None, str, int, plain floats: the csv module's own way
        else:
            writer.writerows([[csv_cell(x) for x in row] for row in rows])
        return out.getvalue()

    def _csv_writes_as_json(self, rows: Sequence[tuple[Any, ...]],
                            names: Sequence[str]) -> bool:
        """Whether the csv module alone writes every value as docs/api.md §5.8 wants: it writes
        None empty and str, int as they are, but a float in exponent form as 1e-06 where JSON
        has 1e-6 (or 0.000015), and NaN as nan; so floats must lie where str() writes no
        exponent. Floats are only in Number fields' columns (every other field dumps str or
        int), so only those are looked at, each at C speed (filter, min, max, map)."""
        kinds = set(map(type, chain.from_iterable(rows)))
        if not kinds <= {str, int, float, NONE}:
            return False
        if float not in kinds:
            return True
        return self._csv_floats_as_json(rows, names)

    def _csv_floats_as_json(self, rows: Sequence[tuple[Any, ...]],
                            names: Sequence[str]) -> bool:
        """The second half of _csv_writes_as_json, for values of those types: whether every
        float lies where str() writes no exponent. Each Number column's distinct values are
        looked at (a batch repeats most of them)."""
        for i, name in enumerate(names):
            if name not in self._numbers:
                continue
            given = set(map(itemgetter(i), rows))
            given.discard(None)
            given.discard(0)  # None, 0, 0.0 need none
            if given and not (1e-4 <= min(map(abs, given)) and max(map(abs, given)) < 1e16
                              and not any(map(math.isnan, given))):
                return False
        return True

    def csv_header(self, fields: Sequence[str] | None = None) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerow(fields or self.output)
        return out.getvalue()

    def kinds(self, fields: Sequence[str] | None = None) -> list[str]:
        """What each of `fields` (all when None) is, for a format that types its cells
        (app/formats/xlsx.py): integer, number, date, time, datetime or text."""
        declared = self.schema.fields
        return [_KINDS.get(type(declared[name]), "text") for name in fields or self.output]


def _unchanged(check: tuple[frozenset[type], int | None], column: Sequence[Any],
               form: tuple[int, str, Callable[[str], Any]] | None = None) -> bool:
    """Whether the field dumps every value of this column unchanged (see _UNCHANGED and
    _TEXT_FORM), each test at C speed."""
    types, length = check
    if not set(map(type, column)) <= types:
        return False
    if length is None:
        return True
    if length == UNPADDED:
        # Each text followed by a NUL, joined: a text ending in a blank leaves " \0" (so may
        # a NUL inside one, which only sends the batch the slow way). Four times as fast as
        # str.endswith value by value (bench/trimmed_text.py); filter(None) skips NULL.
        return _PADDED not in _NUL.join(filter(None, column)) + _NUL
    # Each distinct text once: a batch of dates holds a day or two.
    texts = set(column)
    texts.discard(None)
    if "" in texts or set(map(len, texts)) - {length}:
        return False  # a text of another length, or '' (never a date or a time)
    if form is None or not texts:
        return True
    at, separator, parse = form
    if set(map(itemgetter(at), texts)) != {separator}:
        return False
    try:
        _drain(map(parse, texts))
    except ValueError:
        return False
    return True


def _conditions(column: Sequence[Any]) -> bool:
    """Whether a condition's column holds only what TRUTHS maps (1, 0, NULL; the drivers'
    int, bool or a Decimal equal to one of them): anything else is a misfit, found value by
    value by the field."""
    try:
        return set(column) <= TRUTHS.keys()
    except TypeError:  # an unhashable value: certainly not a condition's
        return False


def _text_fits(text: str, length: int, at: int, separator: str,
               parse: Callable[[str], Any]) -> bool:
    """_unchanged for one value of a date or time column."""
    if len(text) != length or text[at] != separator:
        return False
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _looked_up(rows: Sequence[tuple[Any, ...]], i: int, table: dict[Any, Any]
               ) -> list[tuple[Any, ...]]:
    """The rows with the value at `i` replaced by table[value], row by row at C speed (no
    transposing of the batch); a KeyError for a value the table lacks."""
    if not rows:
        return []
    looked = zip(map(table.__getitem__, map(itemgetter(i), rows)))  # 1-tuples
    heads = map(tuple.__add__, map(itemgetter(slice(0, i)), rows), looked)
    if i == len(rows[0]) - 1:  # the last value (the weighings' cancelled): nothing after it
        return list(heads)
    return list(map(tuple.__add__, heads, map(itemgetter(slice(i + 1, None)), rows)))


def _same(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return values


def csv_cell(value: Any) -> str:
    """A CSV cell: the value exactly as in JSON, a string without its quotes, NULL empty."""
    if value is None:
        return ""
    kind = type(value)
    if kind is str:
        return value
    if kind is float:
        if value != value or value in (math.inf, -math.inf):
            return ""  # JSON has null there
    elif kind is Decimal:
        return decimal_text(value) if value.is_finite() else ""
    return dumps(value).decode()  # int, bool, float: as JSON writes them (1e-6, 0.000015)
