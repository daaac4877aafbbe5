"""A query's template filled in: its placeholders with quoted names from the collection
table, a request's filters with conditions whose values are bound parameters, and a
summary's groups with the names beside codes of master data."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.collections import DATE_PAIRS, Collection, Naming
from .filters import OPERATORS, Filter, picks_text
from .sqltext import QueryFileError, quote

_PLACEHOLDER = re.compile(r"\{([a-z_]+)(:|\})")
# Filled per request with the filters: "WHERE c1 AND c2" / "AND c1 AND c2", or nothing.
FILTER_PLACEHOLDERS = ("where_filters", "and_filters")
# Filled per request with the groups of a summary (?by=day,productcode): {by} with quoted
# names, {groups} with those and the name beside each code of master data, and {masters},
# which the composer puts after the common table expressions of a summary, with the master
# collections' records those names are read from.
REQUEST_PLACEHOLDERS = (*FILTER_PLACEHOLDERS, "by", "groups", "masters")
GROUPED = re.compile(r"\{(?:by|groups)[:}]")
DEFAULT_BY = ("day",)
WRAP = 96  # a filled-in list of names is wrapped to lines of about this width
# {after}, in a read on a date pair: the condition that a record's {order} (its key in the
# feed) comes after a key, NULLs first, given per field N (1-based) as :after_N_set (1: a
# value, 0: NULL, -1: before every value, NULL included) and :after_N (the value, 0 for
# none); a key has at most AFTER_FIELDS fields (app/core/bookmarks.py reads no wider one).
AFTER_FIELDS = 8
AFTER_PARAMETERS = tuple(p for n in range(1, AFTER_FIELDS + 1)
                         for p in (f"after_{n}_set", f"after_{n}"))


@dataclass(frozen=True)
class Where:
    """A request's filters as SQL: conditions on the record's quoted field names joined by
    AND, each value a :filter_N parameter (docs/api.md §6.1)."""

    conditions: tuple[str, ...]
    shape: tuple[tuple[str, str, int], ...]  # what the text depends on: field, op, values
    values: dict[str, Any]

    @classmethod
    def of(cls, filters: Sequence[Filter]) -> Where | None:
        if not filters:
            return None
        conditions, values = [], {}
        for f in filters:
            operator = OPERATORS[f.op]
            names = [f"filter_{len(values) + i}" for i in range(len(f.values))]
            conditions.append(operator.condition(quote(f.field), [":" + n for n in names],
                                                 f.values))
            if not operator.form.boolean and not picks_text(f.values):  # nothing to bind
                values.update(zip(names, f.values, strict=True))
        return cls(tuple(conditions), tuple(f.shape() for f in filters), values)


def with_filters(template: str, where: Where | None) -> str:
    """The template's filter placeholders filled with `where`, or without filters removed
    (with their line, where they stand alone on one)."""
    for name, keyword in (("where_filters", "WHERE"), ("and_filters", "AND")):
        placeholder = "{" + name + "}"
        if where is not None:
            def conditions(m: re.Match[str], keyword: str = keyword) -> str:
                indent = m.group(1) + ("  " if keyword == "WHERE" else "")
                return (m.group(1) + m.group(2) + f"{keyword} "
                        + f"\n{indent}AND ".join(where.conditions))
            template = re.sub(r"(?m)^([ \t]*)(.*?)" + re.escape(placeholder), conditions,
                              template)
        else:
            template = re.sub(r"\n[ \t]*" + re.escape(placeholder) + r"[ \t]*(?=\n|$)", "",
                              template).replace(placeholder, "")
    return template



def placeholders(c: Collection, on: str | None) -> dict[str, tuple[str, ...]]:
    """What each placeholder stands for in a query of `c` (of a range on `on`)."""
    values: dict[str, tuple[str, ...]] = {"fields": c.fields, "order": c.order}
    if not c.numbered:
        values["key"] = (c.key,)
    if on is not None:
        values |= {"date": (DATE_PAIRS[on][0],), "time": (DATE_PAIRS[on][1],),
                   "order": c.range_order(on), "after": c.range_order(on)}
    return values


def after(fields: Sequence[str], indent: str) -> str:
    """{after}: the fields, quoted, compare after the :after_N parameters, field by field
    (a NULL before every value); nested, so that each field is compared only where those
    before it are equal. Plain comparisons of integers and CASE: valid on every engine."""
    if len(fields) > AFTER_FIELDS:
        raise QueryFileError(f"{{after}} compares a key of {AFTER_FIELDS} fields at most")
    condition = ""
    for n in range(len(fields), 0, -1):
        field, inner = quote(fields[n - 1]), indent + "    " * (n - 1)
        has, value = f"CASE WHEN {field} IS NULL THEN 0 ELSE 1 END", f"COALESCE({field}, 0)"
        deeper = f"\n{inner}    OR {value} = :after_{n} AND {condition}" if condition else ""
        condition = (f"({has} > :after_{n}_set\n{inner} OR {has} = :after_{n}_set"
                     f" AND ({value} > :after_{n}{deeper}))")
    return condition


def fill(template: str, values: dict[str, tuple[str, ...]], where: str) -> str:
    """The template with each {name} or {name:pattern} replaced by its quoted names."""
    out: list[str] = []
    position = 0
    while m := _PLACEHOLDER.search(template, position):
        name, end = m.group(1), m.end()
        pattern = "{}"
        if m.group(2) == ":":  # the pattern runs to the brace that closes this one
            depth = 1
            while end < len(template) and depth:
                depth += {"{": 1, "}": -1}.get(template[end], 0)
                end += 1
            if depth:
                raise QueryFileError(f"{where}: {{{name}: is never closed")
            pattern = template[m.end():end - 1]
        if name in REQUEST_PLACEHOLDERS and name not in values:
            out.append(template[position:end])  # filled per request (Queries.get)
            position = end
            continue
        if name == "after" and name in values and m.group(2) == "}":
            out.append(template[position:m.start()])
            line = "".join(out).rsplit("\n", 1)[-1]
            out.append(after(values[name], re.match(r"\s*", line).group()))
            position = end
            continue
        if name not in values:
            raise QueryFileError(f"{where}: no placeholder {{{name}}} here; this query may "
                                 f"use {', '.join('{' + v + '}' for v in values)}")
        before = template[position:m.start()]
        items = [pattern.replace("{}", quote(field)) for field in values[name]]
        if not items:  # nothing to list: drop the ", " that led to it
            before = re.sub(r",\s*$", "", before)
        out.append(before)
        line = "".join(out).rsplit("\n", 1)[-1]
        out.append(_wrapped(items, len(line), re.match(r"\s*", line).group() + "    "))
        position = end
    out.append(template[position:])
    return "".join(out)


def _wrapped(items: list[str], column: int, indent: str) -> str:
    """Items joined by ", ", broken into lines (between items) where they would run past
    WRAP."""
    lines = [""]
    width = column
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else "")
        if lines[-1] and width + 1 + len(piece) > WRAP:
            lines.append(indent)
            width = len(indent)
        elif lines[-1]:
            lines[-1] += " "
            width += 1
        lines[-1] += piece
        width += len(piece)
    return "\n".join(lines)


def described(text: str, values: dict[str, tuple[str, ...]]) -> str:
    """A description with the placeholders it mentions filled in (others left as written)."""
    for name, fields in values.items():
        text = text.replace("{" + name + "}", ", ".join(map(quote, fields)))
    return text


def with_groups(template: str, by: Sequence[str], namings: Mapping[str, Naming],
                names_of: Callable[[str], tuple[str, str, str] | None], where: str) -> str:
    """A summary's template with its groups filled in: {by}; {groups}, where each code of
    master data (`namings`, Collection.namings) is followed by its name, the lookup shape
    (name_of or name_from of shapes.sql) filled in for it; and {masters}, what those names
    are read from, each one more common table expression. `names_of(master)` gives (the
    expression's name, its SQL, the lookup shape as written), or None for a master this
    site neither serves nor has in names.sql: its names are NULL."""
    groups: list[str] = []
    masters: dict[str, str] = {}  # the CTE's name -> the query of names as sent
    for group in by:
        groups.append(quote(group))
        naming = namings.get(group)
        if naming is None:
            continue
        source = names_of(naming.master)
        if source is None:
            groups.append(f"NULL AS {quote(naming.name)}")
            continue
        cte, sql, shape = source
        masters[cte] = sql
        lookup = fill(shape, {
            "name": (naming.master_name,), "master": (cte,),
            "code": (naming.master_code,), "group": (group,)}, where)
        groups.append("(" + lookup.replace("\n", "\n        ") + f") AS {quote(naming.name)}")
    text = fill(template, {"by": tuple(by)}, where)
    return (text.replace("{groups}", ",\n    ".join(groups))
            .replace("{masters}", "".join(f",\n{quote(cte)} AS (\n{sql}\n)"
                                          for cte, sql in masters.items())))
