"""A question's filters as both faces send them, read once: each filter a field, an
operator and its raw value(s) (the HTTP face's query text, the MCP face's JSON values),
read as the field's type into the `Filter`s a `Planner` takes. The faces check the names
(what a route or a tool takes) in their own words and hand the rest here; a value that
cannot be read is `Invalid`, naming the argument at fault. No web imports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..database.filters import BOOLEAN_KIND, MAX_VALUES, OPERATORS, Filter, boolean, read_value
from ..model.problems import Invalid

__all__ = ["Asked", "Sent", "read_filters"]


class Sent(NamedTuple):
    """One filter as a face received it: `vehno__in=A,B` is Sent("vehno", "in", ("A", "B"),
    "vehno__in"); an MCP filter's values are JSON values (a boolean form's may be a bool)."""

    field: str
    op: str  # an OPERATORS key: "" for equality
    values: Sequence[Any]  # the value, or a list form's items
    argument: str  # what the messages call it: the query argument, or filters[i].value


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
        kind, form = kinds[s.field], OPERATORS[s.op].form
        if form.boolean or (kind == BOOLEAN_KIND and s.values
                            and all(isinstance(v, bool) for v in s.values)):
            found.append(Filter(s.field, s.op, (_flag(s, asked) if form.boolean
                                                 else s.values[0],)))
            continue
        total += len(s.values)
        if total > MAX_VALUES:
            raise Invalid(f"at most {MAX_VALUES} filter values in one {asked.asked}",
                          s.argument)
        found.append(Filter(s.field, s.op, tuple(read_value(kind, _text(v, s.argument),
                                                            s.argument) for v in s.values)))
    return tuple(found)


def _flag(s: Sent, asked: Asked) -> bool:
    """A boolean form's value: a bool, or true or false in any letter case."""
    value = s.values[0] if len(s.values) == 1 else None
    flag = value if isinstance(value, bool) else boolean(str(value))
    if flag is None:
        got = repr(value[:40]) if isinstance(value, str) else repr(value)
        raise Invalid(asked.not_boolean.format(argument=s.argument, op=s.op or "eq", got=got),
                      s.argument)
    return flag


def _text(value: Any, argument: str) -> str:
    """A value as the text a query string carries: JSON strings and numbers."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Invalid(f"{argument}: a string or a number, not {json.dumps(value)[:40]}",
                      argument)
    return json.dumps(value)
