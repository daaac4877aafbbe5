"""The fast record encoder writes exactly the bytes the marshmallow schema's dump would give
(app/formats/encoding.py), whatever the driver hands it: generated rows of every collection."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.encoding import RecordEncoder
from app.model.collections import COLLECTIONS
from app.model.schemas import Boolean, Date, Integer, Number, String, Time, ValueMisfit

BY_NAME = {c.name: c for c in COLLECTIONS}

# What drivers return: sqlite3 gives ISO text, int, float; ODBC gives date/time objects,
# Decimal; legacy tables hold surprises (a time with a fraction, a datetime in a time column).
texts = st.text(max_size=12)
iso_dates = st.dates().map(dt.date.isoformat)
iso_times = st.times().map(lambda t: t.isoformat())  # with and without a fraction
floats = st.floats(allow_nan=True, allow_infinity=True)
decimals = st.decimals(allow_nan=False, allow_infinity=False, places=3,
                       min_value=-10**9, max_value=10**9)
VALUES: dict[type, st.SearchStrategy[Any]] = {
    Integer: st.one_of(st.none(), st.integers(-2**63, 2**63 - 1), decimals.map(int)),
    Number: st.one_of(st.none(), st.integers(-2**53, 2**53), floats, decimals),
    String: st.one_of(st.none(), texts),
    # A legacy datetime holding a date (at midnight) or a time of day (on 1900-01-01, SQL
    # Server's day of times); any other is refused (FITS below).
    Date: st.one_of(st.none(), iso_dates, st.dates(),
                    st.dates().map(lambda d: dt.datetime.combine(d, dt.time()))),
    Time: st.one_of(st.none(), iso_times, st.times(),
                    st.times().map(lambda t: dt.datetime.combine(dt.date(1900, 1, 1), t))),
    # A condition: sqlite3's and ODBC's int, SQL Server's bit, a NUMERIC's Decimal, NULL.
    Boolean: st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, Decimal(0),
                                                                  Decimal(1)])),
}
# The common case, which takes the fast path.
COMMON: dict[type, st.SearchStrategy[Any]] = {
    Integer: st.one_of(st.none(), st.integers(-10**6, 10**6)),
    Number: st.one_of(st.none(), st.integers(-10**6, 10**6),
                      st.floats(allow_nan=False, allow_infinity=False)),
    String: st.one_of(st.none(), texts),
    Date: st.one_of(st.none(), iso_dates),
    Time: st.one_of(st.none(), st.times().map(lambda t: t.replace(microsecond=0).isoformat())),
    Boolean: st.sampled_from([0, 1, None]),
}


def expected(schema: Any, names: list[str], values: list[tuple[Any, ...]]) -> bytes:
    """What marshmallow dumps, through the same JSON encoder."""
    return orjson.dumps(schema(many=True).dump([dict(zip(names, v, strict=True)) for v in values]))


@st.composite
def batches(draw: st.DrawFn, collection: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    fields = [(n, f) for n, f in BY_NAME[collection].schema._declared_fields.items()
              if n != "numberrow" and not f.dump_only]
    rows = draw(st.lists(st.tuples(*[COMMON[type(f)] for _, f in fields]), max_size=6))
    # Then a few odd values among the common ones: each alone decides the batch's path.
    for _ in range(draw(st.integers(0, 3)) if rows else 0):
        r = draw(st.integers(0, len(rows) - 1))
        i = draw(st.integers(0, len(fields) - 1))
        odd = draw(VALUES[type(fields[i][1])])
        rows[r] = rows[r][:i] + (odd,) + rows[r][i + 1:]
    return [n for n, _ in fields], rows


@pytest.mark.parametrize("collection", sorted(BY_NAME))
def test_encoder_writes_what_marshmallow_dumps(collection: str) -> None:
    c = BY_NAME[collection]
    encoder = RecordEncoder(c.schema)

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(batch=batches(collection), first=st.one_of(st.none(), st.integers(1, 10**9)))
    def check(batch: tuple[list[str], list[tuple[Any, ...]]], first: int | None) -> None:
        columns, rows = batch
        names = (["numberrow"] if c.numbered else []) + columns
        values = [((n,) if c.numbered else ()) + row
                  for n, row in zip(range(first or 0, 10**10) if first else
                                    [None] * len(rows), rows, strict=False)]
        assert encoder.encode(columns, rows, first) == expected(c.schema, names, values)

    check()


def test_columns_in_another_order_are_put_in_the_shapes_order() -> None:
    encoder = RecordEncoder(BY_NAME["customers"].schema)
    columns = ["Remark", "Contact", "Phone", "City", "Address", "CustName", "CustCode", "id"]
    row = ("r", "c", "p", "ct", "a", "n", "C1", 7)
    assert orjson.loads(encoder.encode(columns, [row], None)) == [{
        "id": 7, "CustCode": "C1", "CustName": "n", "Address": "a", "City": "ct",
        "Phone": "p", "Contact": "c", "Remark": "r"}]


def test_the_schema_path_is_taken_for_values_that_need_converting() -> None:
    c = BY_NAME["weighing"]
    encoder = RecordEncoder(c.schema)
    columns = encoder.fields
    plain = tuple("07:05:30" if n.startswith("jam") else "2026-11-01" if n.startswith("tgl")
                  else 1.5 if n.startswith(("weigh", "adjust", "detct"))
                  else False if n == "cancelled" else None for n in columns)
    assert encoder.batch(columns, [plain], 1)[1] is True
    for special in (dt.time(7, 5, 30, 500000), "07:05:30.5", Decimal("12.50"), math.nan):
        column = "jam_dt1" if not isinstance(special, Decimal | float) else "weigh1"
        row = tuple(special if n == column else v for n, v in zip(columns, plain, strict=True))
        _, fast = encoder.batch(columns, [row], 1)
        if isinstance(special, float):
            assert fast  # orjson writes NaN as null, as the schema does
        else:
            assert not fast
        names = ["numberrow", *columns]
        assert encoder.encode(columns, [row], 1) == expected(c.schema, names, [(1, *row)])


# Every value a driver may hand a field that the field does not dump unchanged, or does.
ODD: dict[type, list[Any]] = {
    Integer: [None, 0, -7, 2**63 - 1, 12.0, Decimal("42"), True, "17"],
    Number: [None, 0, 1.5, -0.0, 1e-06, 1.5e-05, -2.5e-05, 9.99e-05, 1e20, math.nan, math.inf,
             -math.inf, Decimal("12.50"), Decimal("7"), Decimal("-0.001"), True, "3.25"],
    String: [None, "", "Café – Sidoarjo ✓", "a\nb\t\"c\"\\", "日本", 5, 2.5],
    Date: [None, "2026-11-01", dt.date(2026, 11, 1), dt.datetime(2026, 11, 1)],
    Time: [None, "07:05:30", "07:05:30.5", "07:05:30.500000", "07:05:30.123456789",
           dt.time(7, 5, 30), dt.time(7, 5, 30, 250000),
           dt.datetime(1900, 1, 1, 7, 5, 30)],
    Boolean: [None, 0, 1, True, False, Decimal("1"), Decimal("0"), 1.0],
}


def plain_value(field: Any) -> Any:
    return {Integer: 1, Number: 2.5, String: "x", Date: "2026-11-01", Time: "07:05:30",
            Boolean: False}[type(field)]


def odd_rows(collection: str) -> Iterator[tuple[list[str], str, Any, list[tuple[Any, ...]]]]:
    """(columns, field, odd value, rows): a plain row, the same with one odd value, another
    plain row; for every field of the collection and every odd value of its kind."""
    fields = [(n, f) for n, f in BY_NAME[collection].schema._declared_fields.items()
              if n != "numberrow" and not f.dump_only]
    columns = [n for n, _ in fields]
    plain = tuple(plain_value(f) for _, f in fields)
    for i, (name, field) in enumerate(fields):
        for odd in ODD[type(field)]:
            yield columns, name, odd, [plain, plain[:i] + (odd,) + plain[i + 1:], plain]


@pytest.mark.parametrize("collection", sorted(BY_NAME))
def test_each_odd_value_alone_in_a_plain_batch(collection: str) -> None:
    c = BY_NAME[collection]
    encoder = RecordEncoder(c.schema)
    for columns, name, odd, rows in odd_rows(collection):
        names = (["numberrow"] if c.numbered else []) + columns
        values = [((n,) if c.numbered else ()) + r for n, r in enumerate(rows, 5)]
        got = encoder.encode(columns, rows, 5)
        assert got == expected(c.schema, names, values), (name, odd)


def csv_from_json(array: bytes, names: list[str]) -> str:
    """The CSV docs/api.md §5.8 asks for, derived from the JSON text: each value as written in
    JSON (a string without its quotes), NULL empty."""
    records = json.loads(array, parse_float=str, parse_int=str,
                         parse_constant=str)  # numbers exactly as the JSON wrote them
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for record in records:
        writer.writerow(["" if record[n] is None else
                         ("true" if record[n] is True else "false" if record[n] is False
                          else record[n]) for n in names])
    return out.getvalue()


@pytest.mark.parametrize("collection", sorted(BY_NAME))
def test_csv_cells_are_the_json_values(collection: str) -> None:
    encoder = RecordEncoder(BY_NAME[collection].schema)
    for columns, name, odd, rows in odd_rows(collection):
        values = encoder.values(columns, rows, 1)
        assert encoder.csv(values) == csv_from_json(encoder.json(values), encoder.output), (
            name, odd)


# What fits a field and goes out as its type (docs/adapting.md "When a value does not fit its
# field"), and what is refused: field -> [(value as a driver hands it, as sent or None)].
FITS: dict[str, list[tuple[Any, Any]]] = {
    "weigh1": [(True, 1), (False, 0), ("30120.5", 30120.5), (Decimal("12.00"), 12),
               ("29.950,5", None), ("", None), (b"1", None)],
    # A date with a time after it is refused, text or value: a range compares it with the
    # day's bounds and misses it. A legacy datetime at midnight is a date.
    "tgl_dt1": [("2026-11-20", "2026-11-20"), (dt.datetime(2026, 11, 20), "2026-11-20"),
                ("2026-11-20 07:05:00", None), ("2026-11-20T07:05:00", None),
                ("2026-11-20 00:00:00", None), (dt.datetime(2026, 11, 20, 7), None),
                (2026, None), ("20-11-2026", None), ("2026-02-30", None), ("2026-W47-1", None),
                ("", None)],
    # A time after a date, or without its seconds, is refused: as text a range compares it
    # wrongly; a datetime on SQL Server's day of times (1900-01-01) is a time of day.
    "jam_dt1": [("07:05:30", "07:05:30"), ("07:05:30.1200", "07:05:30.120000"),
                (dt.datetime(1900, 1, 1, 7, 5, 30), "07:05:30"), ("07:05", None),
                ("2026-11-20 07:05:30", None), (dt.datetime(2026, 11, 20, 7, 5, 30), None),
                ("25:00:00", None), ("07:05+07", None), (2026, None)],
    # A condition is 1 or 0 (NULL false), also as the text the SQLite ODBC driver gives an
    # expression's value in; a status code itself is not one (docs/adapting.md).
    "cancelled": [(1, True), (0, False), (None, False), (True, True), (Decimal("1"), True),
                  ("1", True), ("0", False), ("X", None), (2, None), ("2", None), (" 1", None),
                  ("true", None), (0.5, None)],
}


def test_a_value_is_sent_as_its_fields_type_or_refused() -> None:
    encoder = RecordEncoder(BY_NAME["transactions"].schema)
    plain = {n: plain_value(encoder.schema.fields[n]) for n in encoder.fields}
    for field, cases in FITS.items():
        for handed, sent in cases:
            row = tuple(handed if n == field else v for n, v in plain.items())
            if sent is None:
                with pytest.raises(ValueMisfit) as caught:
                    encoder.encode(encoder.fields, [row], None)
                assert caught.value.field == field, (field, handed)
            else:
                got = orjson.loads(encoder.encode(encoder.fields, [row], None))[0][field]
                assert (got, type(got)) == (sent, type(sent)), (field, handed)
    integer = RecordEncoder(BY_NAME["biao1"].schema)
    row = tuple(12.5 if n == "recipe" else plain_value(integer.schema.fields[n])
                for n in integer.fields)
    with pytest.raises(ValueMisfit, match=r"^12\.5 \(float\) is not an integer$"):
        integer.encode(integer.fields, [row], None)
