"""The placeholder language of the .sql files, parsed in this one module: a text is read once
into a Template (text and Slot nodes; docs/adapting.md, "The placeholders", says what each
placeholder becomes), filled in per collection at load and per request with its filters and
groups; a read is a Statement, its common table expressions and its query held as data and
joined once."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.collections import DATE_PAIRS, Collection, Naming
from .filters import OPERATORS, Filter, picks_text
from .sqltext import QueryFileError, quote

_PLACEHOLDER = re.compile(r"\{([a-z_]+)(:|\})")
# Filled per request with the filters: "WHERE c1 AND c2" / "AND c1 AND c2", or nothing.
FILTER_PLACEHOLDERS = ("where_filters", "and_filters")
# Filled per request with the groups of a summary (?by=day,productcode): {by} with quoted
# names, {groups} with those and the name beside each code of master data (with_groups).
REQUEST_PLACEHOLDERS = (*FILTER_PLACEHOLDERS, "by", "groups")
# In a query of database.sql, a site's table, quoted (Queries.get); in a mapping file that
# serves several collections, each one's table (loading.py).
TABLE = "table"
DEFAULT_BY = ("day",)
WRAP = 96  # a filled-in list of names is wrapped to lines of about this width
# {after}, in a read on a date pair: the condition that a record's {order} (its key in the
# feed) comes after a key, NULLs first, given per field N (1-based) as :after_N_set (1: a
# value, 0: NULL, -1: before every value, NULL included) and :after_N (the value, 0 for
# none); a key has at most AFTER_FIELDS fields (app/core/bookmarks.py reads no wider one).
AFTER_FIELDS = 8
AFTER_PARAMETERS = tuple(p for n in range(1, AFTER_FIELDS + 1)
                         for p in (f"after_{n}_set", f"after_{n}"))
# The range's records, which the range reads and the summaries read as "in_range": the
# common table expression a query reads by that name, and the shape that gives it.
IN_RANGE = "in_range"

Value = tuple[str, ...] | str  # field names, each quoted where filled; or SQL text as is


@dataclass(frozen=True)
class Slot:
    """A placeholder as written: {name}, or {name:pattern}, the pattern cut at each {}."""

    name: str
    pattern: tuple[str, ...] | None
    source: str  # the placeholder as written, which it stays until filled


Node = str | Slot


class _Unclosed(Exception):
    """A {name: whose pattern never closes (its name the argument)."""


@functools.lru_cache(maxsize=4096)
def _nodes(text: str, strict: bool) -> tuple[Node, ...]:
    """The text cut into text and Slot nodes; unclosed patterns raise _Unclosed (`strict`)
    or stay text."""
    nodes: list[Node] = []
    position = start = 0
    while m := _PLACEHOLDER.search(text, position):
        name, end, pattern = m.group(1), m.end(), None
        if m.group(2) == ":":  # the pattern runs to the brace that closes this one
            depth = 1
            while end < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            if depth:
                if strict:
                    raise _Unclosed(name)
                position = m.end()
                continue
            pattern = tuple(text[m.end():end - 1].split("{}"))
        if m.start() > start:
            nodes.append(text[start:m.start()])
        nodes.append(Slot(name, pattern, text[m.start():end]))
        position = start = end
    if start < len(text):
        nodes.append(text[start:])
    return tuple(nodes)


def _line(out: Sequence[Node]) -> str:
    """The last line of `out` so far (a slot left as written counts as its text)."""
    tail: list[str] = []
    for node in reversed(out):
        text = node if isinstance(node, str) else node.source
        if "\n" in text:
            tail.append(text.rsplit("\n", 1)[1])
            break
        tail.append(text)
    return "".join(reversed(tail))


def _indent(line: str) -> str:
    """The blanks a line starts with."""
    return line[:len(line) - len(line.lstrip())]


@dataclass(frozen=True)
class Template:
    """A text parsed once into text and placeholders; filled in, it is a new Template."""

    nodes: tuple[Node, ...]

    @classmethod
    def parse(cls, text: str, where: str | None) -> Template:
        """`text`'s placeholders; `where` (file:line) names it in an error, and None reads
        prose, where a {name: never closed stays text."""
        try:
            return cls(_nodes(text, where is not None))
        except _Unclosed as unclosed:
            raise QueryFileError(f"{where}: {{{unclosed}: is never closed") from None

    @classmethod
    def verbatim(cls, text: str) -> Template:
        """A text read as no placeholders at all (a site's records, a query as sent)."""
        return cls((text,))

    def takes(self, *names: str) -> bool:
        """Whether a placeholder of one of `names` is still to fill."""
        return any(isinstance(n, Slot) and n.name in names for n in self.nodes)

    def reads(self, table: str) -> bool:
        """Whether its text names the common table expression `table` (quoted)."""
        return any(isinstance(n, str) and quote(table) in n for n in self.nodes)

    def names_after(self, name: str, words: str) -> bool:
        """Whether `words` stand in its text after the first placeholder `name`."""
        slots = [i for i, n in enumerate(self.nodes) if isinstance(n, Slot) and n.name == name]
        return bool(slots) and words in self.text(self.nodes[slots[0] + 1:])

    def text(self, nodes: Sequence[Node] | None = None) -> str:
        """The text, placeholders not filled in as written."""
        return "".join(n if isinstance(n, str) else n.source
                       for n in (self.nodes if nodes is None else nodes))

    def fill(self, values: Mapping[str, Value], where: str,
             keep: Container[str] = REQUEST_PLACEHOLDERS) -> Template:
        """Each placeholder of `values` replaced: field names quoted and joined by ", " (each
        through the pattern of {name:pattern}), wrapped; {after} as its condition; text as
        is. Those of `keep` stay to be filled later; any other is a QueryFileError."""
        out: list[Node] = []
        for n, node in enumerate(self.nodes):
            if isinstance(node, str) or node.name not in values and node.name in keep:
                out.append(node)
                continue
            if node.name not in values:
                raise QueryFileError(f"{where}: no placeholder {{{node.name}}} here; this query "
                                     f"may use {', '.join('{' + v + '}' for v in values)}")
            value = values[node.name]
            if isinstance(value, str):
                out.append(value)
            elif node.name == "after" and node.pattern is None:
                out.append(after(value, _indent(_line(out))))
            else:
                items = [_quoted(field).join(node.pattern or ("", "")) for field in value]
                if not items and n and isinstance(self.nodes[n - 1], str):
                    out[-1] = re.sub(r",\s*$", "", self.nodes[n - 1])  # and the ", " before
                line = _line(out)
                out.append(_wrapped(items, len(line), _indent(line) + "    "))
        return Template(_merged(out))

    def finish(self, where: Where | None) -> str:
        """The text as sent: its filter placeholders filled with `where`'s conditions, or
        without filters removed (with their line, where they stand alone on one)."""
        out: list[str] = []
        alone = False  # the last placeholder stood alone on its line: its blanks go too
        for n, node in enumerate(self.nodes):
            if isinstance(node, str):
                out.append(node.lstrip(" \t") if alone else node)
                alone = False
                continue
            if node.name not in FILTER_PLACEHOLDERS:
                raise ValueError(f"{node.source} is never filled in")
            if where is not None:
                keyword = "WHERE" if node.name == "where_filters" else "AND"
                indent = _indent(_line(out)) + ("  " if keyword == "WHERE" else "")
                out.append(f"{keyword} " + f"\n{indent}AND ".join(where.conditions))
                continue
            following = self.nodes[n + 1] if n + 1 < len(self.nodes) else ""
            alone = (isinstance(following, str) and bool(re.match(r"[ \t]*(?:\n|$)", following))
                     and bool(out) and bool(re.search(r"\n[ \t]*$", out[-1])))
            if alone:
                out[-1] = re.sub(r"\n[ \t]*$", "", out[-1])
        return "".join(out)


class Sql(str):
    """An item of a placeholder's names that is SQL text already (a summary's text group as
    it is grouped, `RTRIM("custcode")`), put in as it is where a name would be quoted."""

    __slots__ = ()


def _quoted(item: str) -> str:
    return item if isinstance(item, Sql) else quote(item)


def _merged(nodes: Sequence[Node]) -> tuple[Node, ...]:
    """Adjacent texts joined into one node."""
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, str) and out and isinstance(out[-1], str):
            out[-1] += node
        elif node != "":
            out.append(node)
    return tuple(out)


@dataclass(frozen=True)
class Statement:
    """A query as composed: its common table expressions by name, in order, then the query
    that reads them; sent as WITH "name" AS (...), ... and the query."""

    ctes: tuple[tuple[str, Template], ...]
    body: Template

    @property
    def parts(self) -> tuple[Template, ...]:
        """Its common table expressions' texts, then its query's."""
        return (*(t for _, t in self.ctes), self.body)

    @property
    def grouped(self) -> bool:
        """Whether it is a summary's, filled in per request with its groups."""
        return self.body.takes("by", "groups")

    def takes(self, *names: str) -> bool:
        """Whether some part of it has a placeholder of one of `names` still to fill."""
        return any(part.takes(*names) for part in self.parts)

    def fill(self, values: Mapping[str, Value], where: str) -> Statement:
        """Every part filled in with `values` (Template.fill); request placeholders stay."""
        return Statement(tuple((name, t.fill(values, where)) for name, t in self.ctes),
                         self.body.fill(values, where))

    def sql(self, where: Where | None) -> str:
        """The text as sent, filters filled in (Template.finish)."""
        if not self.ctes:
            return self.body.finish(where)
        ctes = ",\n".join(f"{quote(name)} AS (\n{t.finish(where)}\n)" for name, t in self.ctes)
        return f"WITH {ctes}\n{self.body.finish(where)}"


@dataclass(frozen=True)
class Where:
    """A request's filters as SQL: conditions on the record's quoted field names joined by
    AND, each value a :filter_N parameter (docs/api.md §6.1)."""

    conditions: tuple[str, ...]
    shape: tuple[tuple[str, str, int], ...]  # what the text depends on: field, op, values
    values: dict[str, Any]

    @classmethod
    def of(cls, filters: Sequence[Filter]) -> Where | None:
        """The filters as conditions and bound values; None without any."""
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


def placeholders(c: Collection, on: str | None) -> dict[str, Value]:
    """What each placeholder stands for in a query of `c` (of a range on `on`)."""
    values: dict[str, Value] = {"fields": c.fields, "order": c.order}
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


def fill(template: str, values: Mapping[str, Value], where: str) -> str:
    """The text with each {name} or {name:pattern} of `values` replaced by its quoted names."""
    return Template.parse(template, where).fill(values, where).text()


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


def described(text: str, values: Mapping[str, Value]) -> str:
    """A description with the placeholders it mentions filled in (others left as written)."""
    return "".join(
        node if isinstance(node, str)
        else ", ".join(map(quote, values[node.name]))
        if node.pattern is None and isinstance(values.get(node.name), tuple) else node.source
        for node in Template.parse(text, None).nodes)


def lookup(text: str, where: str) -> Template:
    """A names lookup of shapes.sql (name_of, name_from) as a Template; one still written
    `"grouped".{group}`, from before {group} was the group's value as grouped, is refused."""
    if '"grouped".{group}' in text:
        raise QueryFileError(f'{where}: this lookup writes "grouped".{{group}}, and {{group}} '
                             f"is the group's value as grouped (RTRIM(\"grouped\".\"code\") "
                             f"of a text group): write {{group}} alone (docs/adapting.md, "
                             f'"The placeholders")')
    return Template.parse(text, where)


# A text group's value without its trailing blanks, by dialect: SQL Server and SQLite trim
# a number too (converted to text), PostgreSQL has no rtrim(integer) (a text field mapped to
# a column of numbers).
_TRIMMED = {"postgresql": "RTRIM(CAST({} AS TEXT))"}


def with_groups(statement: Statement, by: Sequence[str], namings: Mapping[str, Naming],
                names_of: Callable[[str], tuple[str, str, Template] | None],
                where: str, texts: Container[str] = (), dialect: str | None = None
                ) -> Statement:
    """A summary's statement with its groups filled in: {by}; {groups}, where each code of
    master data (`namings`, Collection.namings) is followed by its name, the lookup shape
    (name_of or name_from of shapes.sql) filled in for it, {group} being the group's value
    as grouped; and what those names are read from, each one more common table expression.
    `names_of(master)` gives (the expression's name, its SQL, the lookup shape), or None for
    a master this site neither serves nor has in names.sql: its names are NULL. A group of
    `texts` (text fields) is grouped without its trailing blanks, RTRIM() of it, on every
    engine as SQL Server's comparison already has it (docs/api.md §7): 'C005' and
    'C005      ' are one group."""
    groups: list[str] = []
    masters: dict[str, str] = {}  # the CTE's name -> the query of names as sent
    grouping: list[str] = []  # {by}: each group as grouped
    for group in by:
        column, outer = quote(group), f'"grouped".{quote(group)}'  # outer: in a lookup
        if group in texts:
            trimmed = _TRIMMED.get(dialect or "", "RTRIM({})")
            grouping.append(Sql(trimmed.format(column)))
            groups.append(f"{trimmed.format(column)} AS {column}")
            # An aggregate: the engines take no expression of an outer column in a subquery
            # (PostgreSQL: "subquery uses ungrouped column"), but an aggregate of one, which
            # is the outer query's; every row of the group has this one value.
            outer = f"MIN({trimmed.format(outer)})"
        else:
            grouping.append(group)
            groups.append(column)
        naming = namings.get(group)
        if naming is None:
            continue
        source = names_of(naming.master)
        if source is None:
            groups.append(f"NULL AS {quote(naming.name)}")
            continue
        cte, sql, shape = source
        masters[cte] = sql
        lookup = shape.fill({
            "name": (naming.master_name,), "master": (cte,),
            "code": (naming.master_code,),
            "group": outer}, where).text()
        groups.append("(" + lookup.replace("\n", "\n        ") + f") AS {quote(naming.name)}")
    body = (statement.body.fill({"by": tuple(grouping)}, where)
            .fill({"groups": ",\n    ".join(groups)}, where))
    if not statement.grouped:  # no summary: nothing reads the names
        return Statement(statement.ctes, body)
    return Statement((*statement.ctes, *((cte, Template.verbatim(sql))
                                         for cte, sql in masters.items())), body)
