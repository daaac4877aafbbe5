"""Summaries (docs/api.md §7): which groups a request may ask for, and the rows of a summary
query (sql/shapes.sql, summary_<shape>) turned into what is sent.

The database groups and sums (GROUP BY over `records`); this module only reads `?by=`, and
per group divides what the contract asks as a ratio out of the sums the query returns (a
material's deviation, a temperature's average), exactly and the same on every engine. The
weights are exact decimals of three places (docs/api.md §7, "Exact figures"): the query's
sums are read as Decimals and the net after deduction subtracted as such, never as floats.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

import marshmallow as ma

from ..database.templates import DEFAULT_BY
from ..formats.encoding import csv_cell, dumps
from ..formats.headings import Headings
from ..model.collections import Collection
from ..model.problems import Invalid
from ..model.schemas import (
    GROUPS,
    Integer,
    String,
    ValueMisfit,
    summary_schema,
    trimmed,
    wire_date,
)

TIME_GROUPS = ("day", "month", "hour")
# Groups a record shape has of its own, worked out in its summary_<shape> (sql/shapes.sql).
SHAPE_GROUPS: dict[str, tuple[str, ...]] = {"weighing": ("direction",)}
MAX_GROUPS = 4
_INTEGER = Integer()  # an integer group's value as a record's integer field sends it
MATERIALS = GROUPS  # the production shape's raw-material groups


def _two_decimals(value: Fraction) -> float:
    """Rounded half away from zero to two decimals, as SQL's ROUND would."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _deviation(sv: Any, pv: Any) -> float | None:
    """(pv - sv) / sv in percent, two decimals; None without a requested amount."""
    sv, pv = _int(sv), _int(pv)
    return None if not sv or pv is None else _two_decimals(Fraction(pv - sv, sv) * 100)


def _weight(value: Any) -> Decimal | None:
    """A weight figure as the summary query gives it (sql/shapes.sql: a decimal of three
    places; text of one on SQLite), exactly: a Decimal, never a binary float (docs/api.md §7,
    "Exact figures")."""
    if value is None or type(value) is Decimal:
        return value
    return Decimal(value if type(value) in (int, str) else str(value))


def _less(net: Any, deduction: Any) -> Decimal | None:
    """The net after deduction: the two sums' difference, exact, so that net - deduction is
    exactly what is sent; None with nothing weighed."""
    net = _weight(net)
    return None if net is None else net - (_weight(deduction) or 0)


def _average(total: Any, count: Any) -> float | None:
    total, count = _int(total), _int(count)
    return _two_decimals(Fraction(total, count)) if count else None


@dataclass(frozen=True)
class Measure:
    """One figure of a summary: what it is called, the summary query's columns it is made
    from (sql/shapes.sql summary_<shape>), how, and what it is."""

    name: str
    columns: tuple[str, ...]
    make: Callable[..., Any]  # the columns' values -> the figure sent
    kind: str  # "count" (an integer, never null), "integer" or "number" (app/model/schemas.py)
    example: Any  # for the OpenAPI document


def _count(name: str, example: int) -> Measure:
    return Measure(name, (name,), _int, "count", example)


def _kilograms(name: str, example: float) -> Measure:
    return Measure(name, (name,), _weight, "number", example)


def _material(g: str) -> tuple[Measure, ...]:
    """A raw material's requested and actual amounts and their deviation."""
    sv, pv = f"{g}_sv", f"{g}_pv"
    return (Measure(sv, (sv,), _int, "integer", 115200),
            Measure(pv, (pv,), _int, "integer", 115431),
            Measure(f"{g}_deviation", (sv, pv), _deviation, "number", 0.2))


def _temperature(t: str, example: float) -> Measure:
    return Measure(f"{t}_avg", (f"{t}_sum", f"{t}_count"), _average, "number", example)


@dataclass(frozen=True)
class Measures:
    """What a summary of one record shape sends after its groups, in order."""

    shape: str  # weighing, production, vehicle
    entries: tuple[Measure, ...]
    doc: str  # what they are, each named: the OpenAPI document and the MCP tools say it

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.entries)

    @property
    def columns(self) -> tuple[str, ...]:
        """What the summary query returns after its groups (sql/shapes.sql)."""
        return tuple(dict.fromkeys(c for m in self.entries for c in m.columns))

    def finish(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(m.make(*(row[c] for c in m.columns)) for m in self.entries)


# Adding a measure: its column(s) in summary_<shape> of sql/shapes.sql, and an entry here.
MEASURES = {
    "weighing": Measures("weighing", (
        _count("records", 42), _count("weighed", 40), _kilograms("net", 612430.0),
        _kilograms("net_min", 4210.0), _kilograms("net_max", 29870.0),
        _kilograms("deduction", 19598.0),
        Measure("net_after_deduction", ("net", "deduction"), _less, "number", 592832.0)),
        "records (how many), weighed (how many have both weigh1 and weigh2), net (the sum "
        "over those of |weigh1 - weigh2| in kg, null when none), net_min and net_max; "
        "deduction (the sum over the same records of adjustweigh, the kg deducted, a "
        "missing one as 0) and net_after_deduction (net - deduction, null when none: what "
        "is paid on); every weight an exact decimal of three places, each record's to the "
        "gram, with no binary float noise"),
    "production": Measures("production", (
        _count("batches", 96), *(m for g in MATERIALS for m in _material(g)),
        _temperature("temperature_sv", 45.0), _temperature("temperature_pv", 44.62)),
        f"batches (how many) and per raw material g ({', '.join(MATERIALS)}): g_sv and g_pv, "
        f"the sums over the batches that have both (null when none), and g_deviation = "
        f"(g_pv - g_sv) / g_sv * 100 rounded to two decimals (null when g_sv is 0 or null); "
        f"then the average temperatures temperature_sv_avg and temperature_pv_avg, rounded "
        f"to two decimals"),
    "vehicle": Measures("vehicle", (_count("records", 3),), "records (how many)"),
}


def groupable(c: Collection) -> list[str]:
    """The fields a summary of `c` may group by: its stored text and integer fields, but
    those whose name a measure of the summary has (production's adonan_sv...)."""
    assert c.summary is not None
    declared = c.schema._declared_fields
    taken = set(MEASURES[c.summary].names)
    return [f for f in c.fields if type(declared[f]) in (Integer, String) and f not in taken]


def named_groups(c: Collection) -> tuple[str, ...]:
    """The groups a summary of `c` may name besides its fields: the time groups, then its
    shape's own (the weighing shape's direction)."""
    assert c.summary is not None
    return (*TIME_GROUPS, *SHAPE_GROUPS.get(c.summary, ()))


def output_of(c: Collection, by: Sequence[str]) -> list[str]:
    """The group keys of a summary grouped `by`, in order: each group, and right after a
    code of master data the name of it (docs/api.md §7 "Names beside codes")."""
    namings = c.namings
    return [k for g in by for k in ((g, namings[g].name) if g in namings else (g,))]


def sample_field(c: Collection) -> str:
    """A field to group by in examples: the material, the recipe, the haulier."""
    fields = groupable(c)
    return next((f for f in ("productcode", "recipe", "TransCode") if f in fields), fields[0])


def read_by(c: Collection, names: Sequence[str] | None,
            fields: Sequence[str]) -> tuple[str, ...]:
    """The groups of ?by= (day by default), or a 400 that says what is accepted; `fields`
    is groupable(c), worked out once by the caller."""
    if names is None:
        return DEFAULT_BY
    names = tuple(names)
    accepted = (*named_groups(c), *fields)
    unknown = [n for n in names if n not in accepted]
    problem = None
    if not names:
        problem = "name at least one group"
    elif unknown:
        problem = (f"cannot group by {', '.join(repr(n) for n in unknown)}")
    elif len(names) > MAX_GROUPS:
        problem = f"at most {MAX_GROUPS} groups, not {len(names)}"
    elif len(set(names)) < len(names):
        problem = "a group is named twice"
    if problem:
        raise Invalid(
            f"{problem}. by takes up to {MAX_GROUPS} comma-separated groups, in order: "
            f"{', '.join(named_groups(c))}, or a text or integer field of {c.name}: "
            f"{', '.join(fields)}; e.g. by=day,{sample_field(c)}", "by")
    return names


class SummaryEncoder:
    """The rows of one summary query as JSON or CSV; the interface of a record encoder that
    app/formats/registry.py and app/core/reads.py use, so summaries stream like lists. It holds
    nothing of a request: app/http/views.py keeps one per `by`."""

    def __init__(self, c: Collection, by: Sequence[str], headings: Headings | None = None):
        assert c.summary is not None
        self.headings = headings or Headings()  # a workbook's (app/formats/headings.py)
        self.measures = MEASURES[c.summary]
        declared = c.schema._declared_fields
        self.by = tuple(by)
        self.output = [*output_of(c, self.by), *self.measures.names]
        # Each key as sent, how its value is written: a name and a shape's group are text.
        self._groups = [(n, "day" if n == "day" else "hour" if n == "hour" else
                         "int" if type(declared.get(n)) is Integer else "text")
                        for n in output_of(c, self.by)]

    def columns_missing(self, columns: Sequence[str]) -> list[str]:
        """None: a summary's columns are Jembatan's own (sql/shapes.sql), not a site's."""
        return []

    def values(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               first: int | None = None) -> list[tuple[Any, ...]]:
        """Each group as sent: its group values, then its measures."""
        out = []
        for row in rows:
            named = dict(zip(columns, row, strict=True))
            groups = []
            for name, kind in self._groups:
                value = named[name]
                if value is not None:
                    try:
                        value = (wire_date(value) if kind == "day" else trimmed(str(value))
                                 if kind == "text" else _INTEGER._serialize(value, None, None))
                    except ValueMisfit as exc:
                        exc.field = name
                        raise
                groups.append(value)
            out.append((*groups, *self.measures.finish(named)))
        return out

    def json(self, values: list[tuple[Any, ...]], fields: Sequence[str] | None = None) -> bytes:
        names = self.output
        return dumps([dict(zip(names, v, strict=True)) for v in values])

    def csv(self, values: list[tuple[Any, ...]], fields: Sequence[str] | None = None) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerows(
            [[csv_cell(x) for x in row] for row in values])
        return out.getvalue()

    def csv_header(self, fields: Sequence[str] | None = None) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerow(self.output)
        return out.getvalue()

    def kinds(self, fields: Sequence[str] | None = None) -> list[str]:
        """What each column of `self.output` is (app/formats/xlsx.py): a group's kind, a measure's
        (a count is an integer), and text for any other."""
        known = {name: {"day": "date", "hour": "integer", "int": "integer"}.get(kind, "text")
                 for name, kind in self._groups}
        known |= {m.name: m.kind for m in self.measures.entries}
        return [known.get(name, "text") for name in self.output]


def example(c: Collection) -> dict[str, Any]:
    """Plausible measures of one group, for the OpenAPI document."""
    assert c.summary is not None
    return {m.name: m.example for m in MEASURES[c.summary].entries}


def schema_of(c: Collection) -> type[ma.Schema]:
    """The OpenAPI shape of one group of a summary of `c`."""
    assert c.summary is not None
    measures = MEASURES[c.summary]
    return summary_schema(c.summary, tuple((m.name, m.kind) for m in measures.entries),
                          measures.doc, tuple((n.code, n.name, n.master, n.master_name)
                                for n in c.namings.values()))
