"""Record shapes (docs/api.md §3) and the wire format of their values (docs/api.md §4).

The schemas dump database rows to JSON and describe them in the OpenAPI document. Values
arrive as the driver returns them: sqlite3 gives ISO text for dates and times, ODBC gives
date/time objects and Decimal; each field writes the same wire value for both.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import marshmallow as ma
from marshmallow import fields


class ValueMisfit(ValueError):
    """A value the site's mapping gives a field that cannot be of the field's type (the year
    2026 for a date, text for a number, 12.5 for an integer): never sent, always an error."""

    def __init__(self, value: Any, expected: str, why: str = ""):
        super().__init__(f"{_shown(value)} is not {expected}" + (f": {why}" if why else ""))
        self.value, self.expected, self.why = value, expected, why
        self.field = ""  # set by whoever knows which field it was (app/formats/encoding.py)


def _shown(value: Any) -> str:
    """A value as a log line and check-sql show it: its repr, cut short, and its type."""
    text = repr(value)
    return f"{text[:60]}{'...' if len(text) > 60 else ''} ({type(value).__name__})"


NUMBER = "a number"
INTEGER = "an integer"
DATE = "a date (YYYY-MM-DD)"
TIME = "a time of day (HH:MM:SS)"
CONDITION = "a condition: 1 (true) or 0 (false)"


class Number(fields.Number):
    """A JSON number: int stays int, REAL stays float, DECIMAL becomes a number too."""

    num_type = float

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, Decimal):
            value = int(value) if value == value.to_integral_value() else float(value)
        elif isinstance(value, str):  # a number stored as text in a legacy column
            try:
                value = float(value)
            except ValueError:
                raise ValueMisfit(value, NUMBER) from None
        elif isinstance(value, bool):  # pyodbc's value of a bit column: 1 or 0
            value = int(value)
        elif not isinstance(value, int | float):
            raise ValueMisfit(value, NUMBER)
        if isinstance(value, float) and not math.isfinite(value):
            return None  # JSON has no NaN or Infinity
        return value


class Integer(fields.Integer):
    """A JSON integer: a whole number of any numeric type (or text) becomes an int; one with
    a fraction is a misfit, never cut to its whole part."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if value is None or type(value) is int:
            return value
        try:
            number = Decimal(value.strip() if isinstance(value, str) else value)
        except (ArithmeticError, TypeError, ValueError):
            raise ValueMisfit(value, INTEGER) from None
        if not number.is_finite() or number % 1:
            raise ValueMisfit(value, INTEGER)
        return int(number)


# A condition's values as the drivers give them (sqlite3 and ODBC an int, SQL Server's bit a
# bool, a NUMERIC a Decimal that equals one of these; the SQLite ODBC driver the text of an
# expression's value, as for any expression: '1' for a CASE's 1) and NULL, which counts as
# false.
TRUTHS: dict[Any, bool] = {1: True, 0: False, "1": True, "0": False, None: False}


class Boolean(fields.Boolean):
    """A JSON true or false from a condition the mapping gives as 1 or 0 (docs/api.md §4);
    NULL is false, so the field is never null; any other value is a misfit."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        try:
            return TRUTHS[value]  # True == 1, False == 0 and Decimal(1) == 1 hash alike
        except (KeyError, TypeError):
            raise ValueMisfit(value, CONDITION) from None


# What a text value is sent without at its end (docs/api.md §4): the blanks a CHAR or NCHAR
# column pads a code with, or a vendor program wrote after it. Only the space: a tab or a
# line break at the end of a remark is the remark's own.
BLANK = " "


def trimmed(value: str) -> str:
    """A text value as sent: without its trailing blanks ('C005      ' is 'C005')."""
    return value.rstrip(BLANK)


class String(fields.String):
    """Text, sent without trailing blanks (`trimmed`); `length` is the column's declared size
    where the tables are created (app/model/tables.py). Not a validation and not in the
    OpenAPI document: Jembatan only reads, and a site's column may be wider."""

    def __init__(self, *, length: int = 255, **kwargs: Any):
        super().__init__(**kwargs)
        self.length = length

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        text = super()._serialize(value, attr, obj, **kwargs)
        return None if text is None else trimmed(text)


# Why a value that reads as a date or a time is still refused: a range compares the value
# as the database holds it, and on SQLite that is text, which '2026-11-24 07:05:00' or
# '07:05' compare wrongly with a range's bounds ('2026-11-24', '07:05:00'): the range would
# miss the record (docs/adapting.md, "When a value does not fit its field").
DATE_WITH_TIME = "a date with a time after it, which a date range misses"
TIME_WITH_DATE = "a time with a date before it, which a date range compares wrongly"
TIME_WITHOUT_SECONDS = "a time without its seconds, which a range from HH:MM:00 misses"
# SQL Server's date of a time of day kept in a datetime column: such a value compares with
# a time as its time of day there; any other date before a time does not.
TIME_DAY = dt.date(1900, 1, 1)


def _wire_time(value: Any) -> str:
    if isinstance(value, dt.datetime):  # a legacy DATETIME holding only a time of day
        if value.date() != TIME_DAY:
            raise ValueMisfit(value, TIME, TIME_WITH_DATE)
        value = value.time()
    if isinstance(value, dt.time):
        return value.isoformat()  # HH:MM:SS, plus .ffffff only when there is a fraction
    if not isinstance(value, str):
        raise ValueMisfit(value, TIME)
    text = value
    whole, _, fraction = text.partition(".")
    try:  # HH:MM:SS
        clock = dt.time.fromisoformat(whole) if len(whole) in (5, 8) else None
    except ValueError:
        clock = None
    digits = fraction.isdigit() if "." in text else True
    if clock is None or clock.tzinfo is not None or whole[2] != ":" or not digits:
        dated = len(text) > 10 and text[10] in " T" and _is_date(text[:10])
        raise ValueMisfit(value, TIME, TIME_WITH_DATE if dated else "")
    if len(whole) == 5:
        raise ValueMisfit(value, TIME, TIME_WITHOUT_SECONDS)
    whole = clock.isoformat()
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction.ljust(6, '0')[:6]}" if fraction else whole


def _is_date(text: str) -> bool:
    """Whether text is exactly YYYY-MM-DD and a day of the calendar."""
    try:
        return (len(text) == 10 and text[4] == text[7] == "-"
                and bool(dt.date.fromisoformat(text)))
    except ValueError:
        return False


def wire_date(value: Any) -> str:
    """A DATE value as the API writes it (YYYY-MM-DD); a DATETIME only at midnight."""
    if isinstance(value, dt.datetime):  # a legacy DATETIME holding a date: at midnight
        if value.time() != dt.time(0):
            raise ValueMisfit(value, DATE, DATE_WITH_TIME)
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and _is_date(value):  # YYYY-MM-DD
        return value
    if isinstance(value, str) and len(value) > 10 and value[10] in " T" and _is_date(value[:10]):
        raise ValueMisfit(value, DATE, DATE_WITH_TIME)  # '2026-11-20 07:05:00'
    raise ValueMisfit(value, DATE)


class Date(fields.Date):
    """"YYYY-MM-DD"."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return None if value is None else wire_date(value)


class Time(fields.Time):
    """"HH:MM:SS", with ".ffffff" only where the value has a fraction."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return None if value is None else _wire_time(value)


class JoinedDateTime(fields.DateTime):
    """"YYYY-MM-DDTHH:MM:SS" from a date column and a time column of the same record.

    Null when the date is null; a null time counts as 00:00:00 (docs/api.md §3, vehicle).
    """

    def __init__(self, date_field: str, time_field: str, **kwargs: Any):
        # Plant local time with no offset, which OpenAPI's date-time format would require.
        kwargs.setdefault("metadata", {}).update({
            "format": "local-date-time",
            "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?$",
            "description": f"{date_field} + {time_field} (a null time counts as 00:00:00)"})
        super().__init__(dump_only=True, allow_none=True, **kwargs)
        self.date_field, self.time_field = date_field, time_field

    def serialize(self, attr: str, obj: Any, accessor: Any = None, **kwargs: Any) -> Any:
        day = obj.get(self.date_field)
        if day is None:
            return None
        clock = obj.get(self.time_field)
        return f"{wire_date(day)}T{'00:00:00' if clock is None else _wire_time(clock)}"


def _fields(spec: str) -> dict[str, fields.Field]:
    """'id:int name:str note:str50 ...' -> marshmallow fields, in that order, all nullable
    but `bool` (a Boolean: NULL is sent as false) (`str50`: a String of length 50)."""
    kinds = {"int": Integer, "num": Number, "str": String, "date": Date, "time": Time}
    out: dict[str, fields.Field] = {}
    for item in spec.split():
        name, kind = item.split(":")
        text = re.fullmatch(r"str(\d+)", kind)
        out[name] = (String(allow_none=True, length=int(text.group(1))) if text
                     else Boolean() if kind == "bool" else kinds[kind](allow_none=True))
    return out


def _schema(name: str, declared: dict[str, fields.Field], description: str) -> type[ma.Schema]:
    meta = type("Meta", (), {"register": False, "description": description})
    return type(name, (ma.Schema,), {**declared, "Meta": meta})


def shape(name: str, spec: str, description: str, **extra: fields.Field) -> type[ma.Schema]:
    """A record shape from a compact 'field:kind ...' spec, plus computed fields at the end."""
    return _schema(name, {**_fields(spec), **extra}, description)


GROUPS = ("adonan", "afalan", "air", "aluminium", "kapur", "silo_1", "silo_2")
# The batching tables' text columns are varchar(50), not 255: so the plant's seed declares them.
_PRODUCTION = (
    "no_produksi:int no_produksi_:int tanggal:date jam:time operator_name:str50 "
    "mode_operator:str50 recipe:int level_change:int isproses:int temperature_sv:int "
    "temperature_pv:int temperature_corr:int temperature_note:str50 "
    + " ".join(f"{g}_before_add:int {g}_corr:int {g}_note:str50 {g}_pv:int {g}_sv:int"
               for g in GROUPS))

Weighing = shape("Weighing", (
    "id:int accessedbyanother:str beingaccessedbyuser:str adjustunit:num adjustweigh:num "
    "custcode:str detctid:num dono:str drivername:str editedby:str ffa:str jam_create:time "
    "jam_dt1:time jam_dt2:time jam_update:time location:str lot:str mai:str noct:str "
    "operator1:str operator2:str opt1:str opt2:str pending:str pl3no:str productcode:str "
    "recno:str remark:str sealno:str tgl_create:date tgl_dt1:date tgl_dt2:date "
    "tgl_update:date transcode:str vehno:str wbname1:str wbname2:str weigh1:num weigh2:num "
    "weighsource1:num weighsource2:num weighunit1:num weighunit2:num cancelled:bool"),
    "A weighbridge transaction: entry (dt1) and exit (dt2) weighing; `cancelled` when the "
    "weighbridge program voided the ticket (summaries and workbooks leave those out).")
Vehicle = shape("Vehicle", (
    "id:int Number:str BeingWeighed:str Capacity:num CapacityUnit:num Tare:num TareUnit:num "
    "TransCode:str UseTare:str Opt1:str Opt2:str tgl_create:date jam_create:time "
    "tgl_expired:date jam_expired:time"),
    "A truck known to the weighbridge.",
    CreatedDate=JoinedDateTime("tgl_create", "jam_create"),
    ExpireDate=JoinedDateTime("tgl_expired", "jam_expired"))
Production = shape("Production", _PRODUCTION,
                   "A batching record: per raw material the requested (sv) and actual (pv) "
                   "amount.")
Customer = shape("Customer", "id:int CustCode:str CustName:str Address:str City:str "
                 "Phone:str Contact:str Remark:str", "A customer or supplier.")
Product = shape("Product", "id:int ProductCode:str ProductName:str Unit:str Remark:str",
                "A material.")
Transporter = shape("Transporter", "id:int TransCode:str TransName:str Address:str "
                    "Phone:str Contact:str Remark:str", "A haulage company.")


_EXAMPLES: dict[type, Any] = {Integer: 1, Number: 12500.5, String: "text", Boolean: False,
                              Date: "2026-11-01", Time: "07:30:00",
                              JoinedDateTime: "2026-11-01T07:30:00"}


def example(schema: type[ma.Schema]) -> dict[str, Any]:
    """A record of this shape with a plausible value in every field, for the OpenAPI doc."""
    return {name: _EXAMPLES.get(type(field)) for name, field in schema._declared_fields.items()}


def with_first(schema: type[ma.Schema], name: str, **first: fields.Field) -> type[ma.Schema]:
    """The same shape with `first` fields put in front (numberrow; biao1's id)."""
    return _schema(name, {**first, **schema._declared_fields}, schema.Meta.description)


TEXT_KEY_DESCRIPTION = ("The record's key: the master's code as the site's mapping gives it "
                        "(collections.text_keys), sent without trailing blanks; "
                        "GET /<collection>/{ID} takes it, URL-encoded.")


def with_text_id(schema: type[ma.Schema]) -> type[ma.Schema]:
    """The same shape with its `id` as text: a master keyed by a code (docs/adapting.md,
    "A master keyed by a code")."""
    declared = {**schema._declared_fields, "id": String(
        allow_none=True, length=10, metadata={"description": TEXT_KEY_DESCRIPTION})}
    return _schema(f"{schema.__name__}ByCode", declared, schema.Meta.description)


NUMBERROW_DESCRIPTION = ("1-based position of the record in the collection's canonical order; "
                         "null in date-range results.")


def numbered(schema: type[ma.Schema]) -> type[ma.Schema]:
    return with_first(schema, f"Numbered{schema.__name__}", numberrow=Integer(
        allow_none=True, metadata={"description": NUMBERROW_DESCRIPTION}))


DIRECTION = String(allow_none=True, metadata={
    "enum": ["in", "out", None],
    "description": "With by=direction: \"in\" when weigh1 > weigh2 (came in loaded, left "
                   "empty: a delivery), \"out\" when weigh2 > weigh1 (a dispatch), null when "
                   "they are equal or one is missing."})


def _code_and_name(code: str, name: str, master: str, field: str) -> dict[str, fields.Field]:
    """A code of master data a summary may group by, and the name sent right after it."""
    return {code: String(allow_none=True, metadata={"description": f"With by={code}."}),
            name: String(allow_none=True, metadata={"description": (
                f"Sent right after {code} when grouped by it: the {field} of the {master} "
                f"record whose code equals it as the database compares strings (the smallest "
                f"id of several); null when none has it or {code} is null.")})}


@functools.cache
def summary_schema(shape: str, measures: Sequence[tuple[str, str]], measured: str,
                   names: Sequence[tuple[str, str, str, str]] = ()) -> type[ma.Schema]:
    """One group of a summary of `shape`: the time groups it may carry (and the weighing
    shape's direction), each code of master data with its name (`names`: code, name, master,
    the master's field), then its measures (`measured` says what they are; a field group
    carries its field's name and type, beyond those listed)."""
    groups: dict[str, fields.Field] = {
        "day": fields.String(metadata={"format": "date", "description": "The `on` date, "
                                       "YYYY-MM-DD (with by=day)."}, allow_none=True),
        "month": fields.String(metadata={"pattern": r"^\d{4}-\d{2}$", "description":
                                         "YYYY-MM of the `on` date (with by=month)."},
                               allow_none=True),
        "hour": fields.Integer(metadata={"minimum": 0, "maximum": 23, "description":
                                         "0-23 of the `on` time, a NULL time counting as 0 "
                                         "(with by=hour)."}),
    }
    if shape == "weighing":
        groups["direction"] = DIRECTION
    for code, name, master, field in names:
        groups |= _code_and_name(code, name, master, field)
    for name, kind in measures:  # app/core/summaries.py Measure.kind
        groups[name] = (fields.Integer() if kind == "count" else
                        Number(allow_none=True) if kind == "number"
                        else Integer(allow_none=True))
    beside = "; ".join(f"right after {code} its {master} record's {field} as {name}"
                       for code, name, master, field in names)
    meta = type("Meta", (), {"description": f"One group of a {shape} summary: the groups "
                                            f"asked for, by name, in the order of ?by="
                                            f"{f' ({beside})' if beside else ''}, then "
                                            f"{measured}."})
    return type(f"{shape.capitalize()}Summary", (ma.Schema,), {**groups, "Meta": meta})


class ErrorSchema(ma.Schema):
    """The body of every error (docs/api.md §9)."""

    code = fields.Integer(required=True, metadata={"description": "HTTP status code"})
    status = fields.String(required=True, metadata={"description": "HTTP reason phrase"})
    message = fields.String(required=True,
                            metadata={"description": "What was wrong and how to fix it"})
    errors = fields.Dict(metadata={"description": "Per-parameter validation messages"})
    request_id = fields.String(metadata={"description": "Present on a 500: quote it to the "
                                         "operator, who finds the traceback in the log"})


class HealthSchema(ma.Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "degraded", "unavailable"]})
    database = fields.String(required=True,
                             metadata={"description": "\"ok\" or a short reason"})
    mapping = fields.List(fields.String(), metadata={
        "description": "Only when degraded: each field whose mapping gave a value that "
                       "cannot be of its type, and how often"})
    unmapped = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                           metadata={"description": "Only when a collection is not mapped "
                                                    "yet, or the database refuses its "
                                                    "mapping: each such collection with the "
                                                    "fields left to map or refused; its "
                                                    "routes answer 503 until they are"})
    clock = fields.List(fields.String(), metadata={
        "description": "Only when degraded by it: each collection whose feed (/<c>/changes) "
                       "holds back records because their stamps lie ahead of the database "
                       "clock by more than the settle delay (a time zone not set), how far, "
                       "and what to do"})


class IndexCollectionSchema(ma.Schema):
    name = fields.String(required=True)
    url = fields.String(required=True)
    record = fields.String(required=True, metadata={"description": "Record shape"})
    key = fields.String(required=True, metadata={"enum": ["id", "numberrow"]})
    order = fields.List(fields.String(), required=True,
                        metadata={"description": "Canonical order"})
    date_range = fields.List(fields.String(), required=True,
                             metadata={"description": "`on` values, the default first"})
    unmapped = fields.List(fields.String(), metadata={
        "description": "Only when this site has not finished mapping the collection yet: "
                       "the fields left to map; its routes answer 503 until they are"})


class IndexSchema(ma.Schema):
    name = fields.String(required=True)
    collections = fields.List(fields.Nested(IndexCollectionSchema), required=True)
    docs = fields.String(required=True)
    openapi = fields.String(required=True)
    dashboard = fields.String(required=True, metadata={"description": "The dashboard page"})
    report = fields.String(required=True, metadata={
        "description": "The daily report: today's; /report/YYYY-MM-DD for another day"})
    site = fields.String(required=True, allow_none=True, metadata={
        "description": "The site's name (site.name), null when none is configured"})
    labels = fields.Dict(keys=fields.String(), values=fields.String(), required=True, metadata={
        "description": "The site's label of each field and summary key that has one (its "
                       "[site.fields] over the defaults): what a workbook heads its column "
                       "with, and what a warehouse may call the field"})
