"""Filter operators (docs/api.md §6.1): the one table of them, read by the HTTP layer
(app/http/arguments.py: which arguments a list takes, their values, the docs and the 400s) and
by the SQL layer (app/database/templates.py: `Where`, one condition per filter).

An operator is one entry of OPERATORS: its argument suffix (`field__gt`), the field kinds
that take it, how its value is read, its SQL condition and what the docs say of it. Adding
one is adding an entry (and its tests); the docs and error messages are written from here.
A filter's value is read from its text here too (`read_value`), for every face. This module
imports nothing from Flask or the web layer, so that the SQL layer need not.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn

import marshmallow as ma

from ..model import params
from ..model.problems import Invalid
from ..model.schemas import Boolean, Date, Integer, Number, Time

# The kinds a filter value is read as; app/http/arguments.py maps the record's fields to them.
KINDS = ("integer", "number", "date", "time", "string")
# A condition (the weighings' cancelled) takes equality alone: true, false or ALL.
BOOLEAN_KIND = "boolean"
ALL = "all"  # a condition's value that selects both: no condition, and no default either
# Strings compare by the database's collation, which orders text differently on each engine
# (and case-insensitively on most SQL Servers): so no order operator takes them.
ORDERED = ("integer", "number", "date", "time")
ORDERED_DOC = "numbers, dates and times"  # ORDERED, as the docs and errors name it


class Filter(NamedTuple):
    """One filter argument, read: `vehno__in=A,B` is Filter("vehno", "in", ("A", "B"))."""

    field: str
    op: str  # an OPERATORS key: "" for equality
    values: tuple[Any, ...]  # one value (True/False for a boolean), several for a list

    def shape(self) -> tuple[str, str, int]:
        """What its SQL text depends on, to cache that text by: its field, operator and
        number of values (a boolean's value itself, which picks the text)."""
        boolean = OPERATORS[self.op].form.boolean or picks_text(self.values)
        return self.field, self.op, int(self.values[0]) if boolean else len(self.values)


def picks_text(values: Sequence[Any]) -> bool:
    """Whether a filter's values are a condition's true or false, which pick its SQL text
    (Operator.truths) and bind nothing."""
    return len(values) == 1 and type(values[0]) is bool


@dataclass(frozen=True)
class Form:
    """How an operator's argument is read, and how the docs show it."""

    example: str  # after the argument in FILTERS_DOC: `field__in=v1,v2`
    usage: str  # after the argument in the lists of 400s and parameter descriptions
    split: bool = False  # a comma-separated list, its repeats joined (`a__in=1&a__in=2`)
    boolean: bool = False  # true or false (any case), choosing the SQL text: nothing bound


ONE = Form(example="=v", usage="")
LIST = Form(example="=v1,v2", usage=" (comma-separated)", split=True)
BOOLEAN = Form(example="=true|false", usage="=true|false", boolean=True)


@dataclass(frozen=True)
class Operator:
    """One filter operator: the argument `field__<suffix>=...`."""

    suffix: str  # "" for equality: `field=v`
    form: Form
    # The condition: {f} is the quoted field, {v} its bound parameter(s), ", "-joined for a
    # list; a boolean form's is the text for true, `negated` the one for false.
    sql: str
    doc: str  # what FILTERS_DOC says of it; operators in a row with the same doc share it
    kinds: tuple[str, ...] = KINDS  # the field kinds that take it
    negated: str = ""
    # On a condition's field (BOOLEAN_KIND): the texts for true and for false, nothing bound.
    truths: tuple[str, str] = ("", "")

    def condition(self, field: str, parameters: Sequence[str], values: Sequence[Any]) -> str:
        """The SQL condition on the quoted `field`, its values bound to `parameters`."""
        if self.form.boolean:
            return (self.sql if values[0] else self.negated).format(f=field)
        if picks_text(values):
            return self.truths[0 if values[0] else 1].format(f=field)
        return self.sql.format(f=field, v=", ".join(parameters))

    def name(self, field: str) -> str:
        """The argument's name on `field`: `field__gt`; `field` for equality."""
        return f"{field}__{self.suffix}" if self.suffix else field

    def argument(self, field: str) -> str:
        """As the 400 for text lists it: `field__gt`; `field=` for equality."""
        return self.name(field) if self.suffix else f"{field}="


OPERATORS: dict[str, Operator] = {op.suffix: op for op in (
    # A condition is 1 or 0, and a NULL counts as 0 (false), as the record sends it.
    Operator("", ONE, "{f} = {v}", "equals", KINDS + (BOOLEAN_KIND,),
             truths=("{f} = 1", "({f} = 0 OR {f} IS NULL)")),
    # NULL included: a flag that is NULL is not 1 either, and SQL's <> would drop it.
    Operator("not", ONE, "({f} <> {v} OR {f} IS NULL)", "does not equal, NULL included"),
    Operator("gt", ONE, "{f} > {v}", ORDERED_DOC, ORDERED),
    Operator("gte", ONE, "{f} >= {v}", ORDERED_DOC, ORDERED),
    Operator("lt", ONE, "{f} < {v}", ORDERED_DOC, ORDERED),
    Operator("lte", ONE, "{f} <= {v}", ORDERED_DOC, ORDERED),
    Operator("in", LIST, "{f} IN ({v})", "one of"),
    Operator("isnull", BOOLEAN, "{f} IS NULL", "", negated="{f} IS NOT NULL"),
)}

MAX_VALUES = 1000  # bound values of all filters together; SQL Server takes 2,100 a query
# Decimal notation, with an exponent allowed (1e3, 2.5E-4: what JSON and OpenAPI call a number).
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)
_BOOLEANS = {"true": True, "false": False}


def boolean(text: str) -> bool | None:
    """A boolean form's value: true or false in any letter case; None for anything else."""
    return _BOOLEANS.get(text.lower())


def _kind(field: ma.fields.Field) -> str:
    for kind, cls in (("integer", Integer), ("number", Number), ("date", Date),
                      ("time", Time), (BOOLEAN_KIND, Boolean)):
        if type(field) is cls:
            return kind
    return "string"


def accepted_filters(schema: type[ma.Schema], fields: Iterable[str]) -> dict[str, str]:
    """{field: kind} of the fields a list of this record shape filters on (its stored
    fields: not numberrow, not computed ones)."""
    declared = schema._declared_fields
    return {name: _kind(declared[name]) for name in fields}


def for_kind(kind: str) -> tuple[Operator, ...]:
    """The operators a field of this kind takes, in the table's order."""
    return tuple(op for op in OPERATORS.values() if kind in op.kinds)


def and_list(items: Sequence[str]) -> str:
    """`a, b and c`."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def usage(field: str, operators: Sequence[Operator]) -> str:
    """The operators after the first as the 400s and parameter descriptions list them:
    `vehno__not, __in (comma-separated), __isnull=true|false`."""
    return ", ".join((field if i == 0 else "") + f"__{op.suffix}{op.form.usage}"
                     for i, op in enumerate(op for op in operators if op.suffix))


def doc_groups() -> list[list[Operator]]:
    """The operators in the table's order, those in a row with the same doc together."""
    groups: list[list[Operator]] = []
    for op in OPERATORS.values():
        if groups and op.doc == groups[-1][0].doc:
            groups[-1].append(op)
        else:
            groups.append([op])
    return groups


def doc_list() -> str:
    """The operators as FILTERS_DOC lists them: `field=v` (equals), ..., the ones in a row
    with the same doc named together before it."""
    parts = []
    for group in doc_groups():
        if len(group) == 1:  # a single one shows its value: `field__in=v1,v2`
            text = f"`{group[0].name('field')}{group[0].form.example}`"
        else:
            text = ", ".join(f"`{'field' if i == 0 else ''}__{op.suffix}`"
                             for i, op in enumerate(group))
        parts.append(text + (f" ({group[0].doc})" if group[0].doc else ""))
    return ", ".join(parts)


# What a value of each kind is written as, as the errors and the docs say it.
KIND_TEXTS = {
    "integer": "an integer in digits, e.g. 42 or -7",
    "number": "a number in decimal notation, e.g. 12500, 12500.5 or 1.25e4",
    "date": "a date YYYY-MM-DD, e.g. 2026-11-01",
    "time": "a time HH:MM or HH:MM:SS, 24-hour, e.g. 07:30",
    "string": "any text, compared as the database compares text",
    BOOLEAN_KIND: (f"true (only the cancelled), false (none of them) or {ALL} (both), in any "
                   f"letter case; without it lists, ranges and the feed send both, summaries "
                   f"and workbooks leave the cancelled out"),
}


def _bad(argument: str, message: str) -> NoReturn:
    raise Invalid(message, argument)


def read_value(kind: str, text: str, argument: str) -> Any:
    """A filter's value of the field's kind, read from its text, or `Invalid` saying what
    the kind accepts."""
    accepted = f"{argument} takes {KIND_TEXTS[kind]}; got {text[:40]!r}"
    if kind == BOOLEAN_KIND:  # ALL is None: app/core/plan.py drops that filter
        if text.lower() == ALL:
            return None
        flag = boolean(text)
        if flag is None:
            _bad(argument, accepted)
        return flag
    if kind == "string":
        if "\x00" in text:  # no database compares it: PostgreSQL refuses it in any text
            _bad(argument, f"{argument}: the text holds a NUL character, which no stored "
                           f"value can match")
        return text
    if kind == "integer":
        if not params.INTEGER.fullmatch(text):
            _bad(argument, accepted)
        # int() of at most 20 digits: past that bounded_int stands in ±2**63 for the rest.
        value = int(text) if len(text.lstrip("-").lstrip("0")) <= 20 else 2**64
        if not -params.INT64_MAX - 1 <= value <= params.INT64_MAX:
            _bad(argument, f"{argument} takes an integer from -{params.INT64_MAX + 1} to "
                           f"{params.INT64_MAX}; got {text[:40]!r}")
        return value
    if kind == "number":
        if not _NUMBER.fullmatch(text):
            _bad(argument, accepted)
        if params.INTEGER.fullmatch(text) and len(text.lstrip("-").lstrip("0")) <= 19:
            value = int(text)
            if -params.INT64_MAX - 1 <= value <= params.INT64_MAX:
                return value
        number = float(text)
        if not math.isfinite(number):
            _bad(argument, f"{argument} takes a finite number, at most about 1.8e308; "
                           f"got {text[:40]!r}")
        return number
    if kind == "date":
        try:
            if params.DATE.fullmatch(text):
                return dt.date.fromisoformat(text)
        except ValueError:
            _bad(argument, f"{argument}: {text!r} is not a date of the calendar; it takes "
                           f"{KIND_TEXTS['date']}")
        _bad(argument, accepted)
    m = params.TIME.fullmatch(text)  # time
    if m:
        hour, minute, second = (int(g or 0) for g in m.groups())
        if hour < 24 and minute < 60 and second < 60:
            return dt.time(hour, minute, second)
    _bad(argument, accepted)
