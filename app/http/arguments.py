"""Query arguments (docs/api.md §6.2 and §6.1): which a route takes, what a
repeated one means, and the filters, read as their fields' types.

A route takes its own arguments (`format`, `fields`, `page`, `page_size`, `on`, `by`, as
the views declare them) and, where it returns a list, a filter per stored field of the
record: `field=v`, `field__not=v`, `field__gt=v` (`__gte`, `__lt`, `__lte`),
`field__in=v1,v2`, `field__isnull=true|false` (one table of them: app/database/filters.py). Anything
else is a 400 that lists what is accepted, so that a misspelt filter never returns the
unfiltered list; names starting with `_` are ignored (cache busters). `fields`, `by` and a
filter's `__in` given twice join their values; any other argument given twice is a 400,
never read from its first value alone.
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import request
from werkzeug.datastructures import MultiDict

from ..core.filtering import (
    BOOLEAN_KIND,
    KIND_TEXTS,
    OPERATORS,
    ORDERED_DOC,
    Filter,
    Operator,
    and_list,
    doc_list,
    for_kind,
    usage,
)
from ..core.question import Asked, query_filters, read_filters
from ..model.problems import Invalid

__all__ = ["ASKED", "FILTERS_DOC", "Accepted",
           "filter_parameters", "reject_all"]

# The arguments whose repeats join their values, as `__in` does: the lists, which generated
# clients send as by=day&by=productcode (openapi-python-client ignores `explode: false`).
JOINED = ("fields", "by")
# How this face words what a filter's value lacks (app/core/question.py).
ASKED = Asked("request", "{argument} takes true or false; got {got}")



def _bad(argument: str, message: str) -> None:
    raise Invalid(message, argument)


@dataclass(frozen=True)
class Accepted:
    """What one route takes: its own arguments and, for a list, the collection's filters."""

    own: tuple[str, ...]  # format, fields, page_size, ... as the route's schema declares
    filters: Mapping[str, str] | None = None  # filterable field -> kind; None: no filters
    paged_by_path: bool = False  # a whole list, whose pages are /<c>/page/N, not ?page=N

    def describe(self) -> str:
        out = ", ".join(self.own) or "no arguments"
        if self.filters:
            every = usage("field", tuple(OPERATORS.values()))
            out += f" and filters on the record's fields: field=value, {every}"
        return out

    def _unknown(self, name: str) -> None:
        what = f"unknown argument {name!r}"
        field = name.split("__", 1)[0]
        if self.filters is not None and "__" in name and field in self.filters:
            op = name.split("__", 1)[1]
            _bad(name, f"unknown operator {op!r}; a filter on {field} takes "
                       + ", ".join(o.name(field) for o in self.operators(field)))
        near = difflib.get_close_matches(field, [*self.own, *(self.filters or ())], n=1)
        hint = f"; did you mean {near[0]}?" if near else "."
        if name == "page" and self.paged_by_path:
            hint = (f"; a list's pages are paths: {request.path}/page/N (with ?page_size=M "
                    f"and the same filters).")
        fields = (f" The fields that filter: {', '.join(self.filters)}." if self.filters
                  else "")
        _bad(name, f"{what}{hint} This endpoint takes {self.describe()}.{fields} "
                   f"Arguments that start with _ are ignored.")

    def operators(self, field: str) -> tuple[Operator, ...]:
        assert self.filters is not None
        return for_kind(self.filters[field])

    def split(self, name: str) -> tuple[str, str] | None:
        """(field, operator) of a filter argument; None for the route's own arguments;
        a 400 for anything else."""
        if name in self.own:
            return None
        field, _, op = name.partition("__")
        if self.filters is None or field not in self.filters or op not in OPERATORS:
            self._unknown(name)
        taken = self.operators(field)
        if OPERATORS[op] not in taken:  # text refuses the order operators, a condition all
            takes = and_list([o.argument(field) for o in taken])
            if self.filters[field] == BOOLEAN_KIND:
                _bad(name, f"{field} is a condition: it takes {field}= alone, with "
                           f"{KIND_TEXTS[BOOLEAN_KIND]}")
            others = and_list([f"__{o.suffix}" for o in OPERATORS.values() if o not in taken])
            _bad(name, f"{field} is text: it takes {takes}; the order operators {others} apply "
                       f"to {ORDERED_DOC}")
        return field, op

    def parse(self, args: MultiDict[str, str]) -> MultiDict[str, str]:
        """The route's own arguments as its schema reads them, in one pass: `_` ones
        dropped, repeated `fields` and `by` joined; a 400 for an argument not accepted or
        another one given twice (every name is checked before any filter value is read).
        The filters are left in the query string, where the view finds them."""
        out: MultiDict[str, Any] = MultiDict()
        for name, values in args.lists():
            if name.startswith("_"):
                continue
            split = self.split(name)
            listed = split is not None and OPERATORS[split[1]].form.split
            if len(values) > 1 and name not in JOINED and not listed:
                _bad(name, f"{name} is given {len(values)} times; give it once"
                           + ("" if split is None else
                              f" (to keep several values, {split[0]}__in=v1,v2)"))
            if split is None:
                out[name] = ",".join(values) if name in JOINED else values[0]
        return out


    def read_filters(self, args: MultiDict[str, str]) -> tuple[Filter, ...]:
        """The filters of a query string whose names `parse` checked, read as their
        fields' types (app/core/question.py): a 400 for a value that cannot be read."""
        if self.filters is None:
            return ()
        return read_filters(self.filters, query_filters(self.own, args.lists()), ASKED)


def reject_all(args: MultiDict[str, str]) -> None:
    """For a route that takes no arguments: a 400 for any but `_` ones."""
    Accepted(()).parse(args)


_SCHEMAS = {"integer": {"type": "integer", "format": "int64", "minimum": -2**63,
                        "maximum": 2**63 - 1},
            "number": {"type": "number"},
            "date": {"type": "string", "format": "date"},
            "time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"},
            # No NUL: PostgreSQL refuses it in any text, so Jembatan does everywhere (a 400).
            "string": {"type": "string", "pattern": "^[^\\u0000]*$"},
            BOOLEAN_KIND: {"type": "string", "enum": ["true", "false", "all"]}}


def filter_parameters(filters: Mapping[str, str]) -> list[dict[str, Any]]:
    """The OpenAPI query parameter of each field's equality filter; the operators are in
    the operation's description (FILTERS_DOC)."""
    return [{"in": "query", "name": field, "required": False, "schema": dict(_SCHEMAS[kind]),
             "description": f"Only records whose {field} equals this ({KIND_TEXTS[kind]})."
                            + (f" Also {also}." if (also := usage(field, for_kind(kind)))
                               else "")}
            for field, kind in filters.items()]


# Wrapped at 95 as it was written by hand before the operators became a table: the same
# /openapi.json, byte for byte.
FILTERS_DOC = "\n" + textwrap.fill(
    f"Filters: {doc_list()}; on any stored field of the record, each value read as the "
    "field's type, all ANDed (also with the date range). In a filtered answer numberrow is "
    "null, and X-Pagination counts the filtered records. An argument this operation does not "
    "take is a 400; arguments that start with `_` are ignored.", 95)
