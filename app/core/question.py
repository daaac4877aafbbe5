"""A question as both faces send it, turned into a `Read` once (`ask`): the read kind
(app/model/kinds.py), the filters, each a field, an operator and its raw value(s) (the HTTP
face's query text, the MCP face's JSON values) read as the field's type into the `Filter`s a
`Planner` takes, the fields, the range's bounds and date pair, `by` and the window. The
faces check the names (what a route or a tool takes) in their own words and hand the rest
here; a value that cannot be read is `Invalid`, naming the argument at fault. No web
imports.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..database.filters import BOOLEAN_KIND, MAX_VALUES, OPERATORS, Filter, boolean, read_value
from ..model import params
from ..model.problems import Invalid
from .plan import Planner
from .reads import Read

__all__ = ["NAMED_TWICE", "Asked", "Question", "Sent", "ask", "query_filters",
           "read_filters"]

# What both faces say of `fields` that names a field twice.
NAMED_TWICE = "a field is named twice"


# One filter as a face received it: (field, operator (an OPERATORS key: "" for equality),
# its value or a list form's items, the argument the messages name). `vehno__in=A,B` is
# ("vehno", "in", ["A", "B"], "vehno__in"); an MCP filter's values are JSON values (a
# boolean form's may be a bool), its argument filters[i].value. A plain tuple: one a filter.
Sent = tuple[str, str, Sequence[Any], str]


@dataclass(frozen=True)
class Asked:
    """How a face words what its filters' values lack: the thing asked (a request, a call)
    and its sentence for a true-or-false that is neither, given `argument`, `op` (as the
    face names it) and `got` (the value, cut short)."""

    asked: str
    not_boolean: str


def read_filters(kinds: Mapping[str, str], sent: Iterable[Sent], asked: Asked
                 ) -> tuple[Filter, ...]:
    """Each filter's value(s) read as its field's type (`kinds`: field -> kind), in the order
    sent, at most MAX_VALUES values in all."""
    found: list[Filter] = []
    total = 0
    for s in sent:
        field, op, values, argument = s
        kind, form = kinds[field], OPERATORS[op].form
        if form.boolean:
            found.append(Filter(field, op, (_flag(values, argument, op, asked),)))
            continue
        if kind == BOOLEAN_KIND and len(values) == 1 and isinstance(values[0], bool):
            found.append(Filter(field, op, (values[0],)))  # an MCP condition: true or false
            continue
        total += len(values)
        if total > MAX_VALUES:
            raise Invalid(f"at most {MAX_VALUES} filter values in one {asked.asked}", argument)
        found.append(Filter(field, op, tuple([
            read_value(kind, v if type(v) is str else _text(v, argument), argument)
            for v in values])))
    return tuple(found)


@dataclass(frozen=True)
class Question:
    """One read of a collection as a face asked it: its kind (a READ_KINDS name: list,
    page, range, summary), the filters as sent and the values the faces cannot check in
    their own words (read by `ask`, the filters first), and the rest already checked."""

    kind: str
    filters: Iterable[Sent] = ()
    fields: Sequence[str] | None = None
    on: str | None = None  # the date pair of a range or a summary
    dates: tuple[str, str, str, str] | None = None  # a range's start date, time, end date, time
    by: Sequence[str] | None = None  # a summary's groups
    window: tuple[int, int] | None = None  # (skip, size): a page, or a part of a range
    page: str | None = None  # or the window's page number, 1 the first, as the path has it
    leave_out: bool = False  # the cancelled records left out unless a filter names them

    def part(self) -> tuple[int, int] | None:
        """The window: (skip, size), from `page` where it is given."""
        if self.page is None or self.window is None:
            return self.window
        size = self.window[1]
        return (params.integer(self.page, "pagenumber", minimum=1) - 1) * size, size

    def bounds(self) -> dict[str, Any]:
        """A range's bounds (both inclusive)."""
        return params.date_range(*(self.dates or ("", "", "", "")))


def ask(planner: Planner, kinds: Mapping[str, str], question: Question, asked: Asked
        ) -> Read:
    """The read a question asks of the planner's collection (`kinds`: its filterable
    field -> kind): its filters read first, then its page number and dates."""
    filters = read_filters(kinds, question.filters, asked)
    return _PLANS[question.kind](planner, question, filters)


# How each read kind that both faces ask is planned (app/core/plan.py).
_PLANS: dict[str, Callable[[Planner, Question, tuple[Filter, ...]], Read]] = {
    "list": lambda p, q, f: p.all(f, q.fields, q.leave_out),
    "page": lambda p, q, f: p.part(*(q.part() or (0, 0)), f, q.fields, q.leave_out),
    "range": lambda p, q, f: p.range(q.on or "", q.bounds(), f, q.fields, q.part(),
                                     q.leave_out),
    "summary": lambda p, q, f: p.summary(q.on or "", q.bounds(), q.by, f),
}


def query_filters(own: Container[str], args: Iterable[tuple[str, list[str]]]) -> list[Sent]:
    """The filters of a query string (name -> its values, in order), as `ask` takes them:
    every argument that is not one of the route's `own` or `_`-ignored, whose names the
    face has checked; `__in` given twice joins its values."""
    sent: list[Sent] = []
    for name, values in args:
        if name.startswith("_") or name in own:
            continue
        field, _, op = name.partition("__")
        if OPERATORS[op].form.split:
            sent.append((field, op, ",".join(values).split(","), name))
        else:
            sent.append((field, op, (values[0],), name))
    return sent


def _flag(values: Sequence[Any], argument: str, op: str, asked: Asked) -> bool:
    """A boolean form's value: a bool, or true or false in any letter case."""
    value = values[0] if len(values) == 1 else None
    flag = value if isinstance(value, bool) else boolean(str(value))
    if flag is None:
        got = repr(value[:40]) if isinstance(value, str) else repr(value)
        raise Invalid(asked.not_boolean.format(argument=argument, op=op or "eq", got=got),
                      argument)
    return flag


def _text(value: Any, argument: str) -> str:
    """A value as the text a query string carries: JSON strings and numbers."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Invalid(f"{argument}: a string or a number, not {json.dumps(value)[:40]}",
                      argument)
    return json.dumps(value)
