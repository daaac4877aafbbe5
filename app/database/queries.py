"""The named queries of sql/*.sql: loaded, checked and filled in once, at start.

A file holds blocks in aiosql's style::

    -- name: page
    -- One line saying what the query is for.
    SELECT {fields} FROM "records" ... WHERE "position" BETWEEN :first_row AND :last_row;

    -- name: page
    -- dialect: sqlite
    -- Why SQLite needs another text.
    SELECT {fields} FROM "records" ORDER BY {order} LIMIT :row_count OFFSET :skip;

The first text under a name is the production one (SQL Server); a `-- dialect:` block
replaces it on that engine. The kinds of file:

- `<collection>.sql`, the site's mapping: its first query, `records`, says where each field
  of the record comes from; it may also override any shape for that collection by name.
- `shapes.sql`, every read, written once for all collections, reading from "records";
- `database.sql`, queries about the database itself (health, versions, the catalog);
- `names.sql`, optional, the site's: where the names beside a summary's codes are read
  where no master collection holds them (one query per master: products, customers,
  transporters, each giving the master record's code and name fields from any table).

This module is the one place where Python composes SQL, and only mechanically: it fills a
shape's placeholders with quoted field names from the collection table (app/model/collections.py),
puts `WITH "records" AS (<records>)` in front, and turns `:params` into DB-API `?`. A
summary grouped by a code of master data (productcode) also gets that master collection's
own `records` as one more common table expression ("master_products") and, right after the
code in its select list, the shape `name_of` filled in for it; where the site's names.sql
has a query for that master, that query ("names_products") and the shape `name_from`
instead (Queries.grouped). A request's filters fill `{where_filters}` or `{and_filters}`:
one condition per filter on a quoted field name, its SQL text from the operator's entry in
app/database/filters.py, each value a bound parameter, never SQL text.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..model.collections import DATE_PAIRS, NAMINGS, Collection, Naming, QueryName
from .filters import OPERATORS, Filter

DIALECTS = ("sqlite", "postgresql")
SHAPES_FILE = "shapes"
DATABASE_FILE = "database"
DATABASE_QUERIES = ("ping", "version", "clock", "columns")
# Not required of a site's own copy of database.sql (one copied before it existed): without
# it draft-mapping drafts from the catalog alone.
DATABASE_OPTIONAL = ("sample",)
# A query of database.sql that reads a site's table names it {table}: filled with the
# table's quoted name (Queries.get), never with text of the user's.
TABLE_PLACEHOLDER = "{table}"
NAMES_FILE = "names"

# What the runner passes to each kind of query; a query may use any subset of these.
_PAGE = ("first_row", "last_row", "row_count", "skip")
_RANGE = ("start_date", "start_time", "end_date", "end_time", "midnight")
SUMMARY_SHAPES = ("summary_weighing", "summary_production", "summary_vehicle")
# range_rows is no read of its own: the range reads and the summaries read it as "in_range"
# (_fill_collection), so that a range's condition is written once.
RANGE_ROWS = "range_rows"
PARAMETERS: dict[str, tuple[str, ...]] = {
    "records": (),
    "all": (),
    "count": (),
    "page": _PAGE,
    "by_key": ("key",),
    "range": _RANGE,
    "range_count": _RANGE,
    "range_page": _RANGE + _PAGE,
    "summary": _RANGE,
    RANGE_ROWS: _RANGE,
    "changes": ("from_date", "from_time", "midnight", "row_count"),
    **{shape: _RANGE for shape in SUMMARY_SHAPES},
    "name_of": (),
    "name_from": (),
    "ping": (),
    "version": (),
    "clock": (),
    "columns": ("table_name", "table_schema"),
    "sample": ("row_count",),
}
# name_of is no read either: a summary grouped by a code of master data reads it once per
# such group, for the name beside the code (Queries.get); name_from likewise, where the
# site's names.sql says where that master's names are. name_from is required of a site's
# own shapes.sql only where the site has a names.sql (a copy made before it still starts).
NAME_OF = "name_of"
NAME_FROM = "name_from"
SHAPES = ("all", "count", "page", "by_key", "range", "range_count", "range_page",
          RANGE_ROWS, *SUMMARY_SHAPES, NAME_OF, NAME_FROM, "changes")

# Words that change data or run code; none may appear outside strings and quoted names.
_FORBIDDEN = {"insert", "update", "delete", "merge", "drop", "alter", "create", "truncate",
              "exec", "execute", "grant", "revoke", "deny", "into", "attach", "detach",
              "pragma", "vacuum", "reindex", "declare", "set", "begin", "commit",
              "rollback", "savepoint", "openrowset", "opendatasource", "openquery", "bulk",
              "backup", "restore", "shutdown", "kill", "dbcc", "waitfor", "use"}

_NAME_LINE = re.compile(r"^--\s*name:\s*(.*?)\s*$")
_DIALECT_LINE = re.compile(r"^--\s*dialect:\s*(.*?)\s*$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# {name} or {name:pattern}; an ODBC escape such as {fn NOW()} has a space and is left alone.
_PLACEHOLDER = re.compile(r"\{([a-z_]+)(:|\})")
# Filled per request with the filters: "WHERE c1 AND c2" / "AND c1 AND c2", or nothing.
FILTER_PLACEHOLDERS = ("where_filters", "and_filters")
# Filled per request with the groups of a summary (?by=day,productcode): {by} with quoted
# names, {groups} with those and the name beside each code of master data, and {masters},
# which the composer puts after the common table expressions of a summary, with the master
# collections' records those names are read from.
REQUEST_PLACEHOLDERS = (*FILTER_PLACEHOLDERS, "by", "groups", "masters")
_GROUPED = re.compile(r"\{(?:by|groups)[:}]")
DEFAULT_BY = ("day",)
FILTERED_KEPT = 512  # filtered texts kept, by the filters' shape (fields, operators, counts)
WRAP = 96  # a filled-in list of names is wrapped to lines of about this width


class QueryFileError(Exception):
    """A .sql file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Block:
    """One `-- name:` block of a file, as written."""

    name: str
    dialect: str | None
    text: str  # the SQL as written, comments inside it kept, without the final ';'
    source: str  # file:line of its `-- name:` line
    description: str  # the comment lines under the name


@dataclass(frozen=True)
class Query:
    """A query as the runner sends it."""

    name: str
    dialect: str | None
    sql: str  # with `?` placeholders
    params: tuple[str, ...]  # the parameter name behind each `?`, in order
    source: str  # where its text comes from (file:line), for messages and check-sql
    description: str
    template: str | None = None  # with :params and filter placeholders, where it takes filters

    @property
    def filtered(self) -> bool:
        return self.template is not None


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
            if not operator.form.boolean:  # a boolean picks the text: nothing to bind
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


# Strings, quoted names ("x", [x]) and comments: nothing inside them is code.
_SKIPPED = re.compile(r"""'(?:[^']|'')*'?|"(?:[^"]|"")*"?|\[[^\]]*\]?|--[^\n]*|/\*.*?(?:\*/|\Z)""",
                      re.S)
# In code: a PostgreSQL cast, a :parameter, or a word.
_CODE_TOKEN = re.compile(r"::|:([A-Za-z_][A-Za-z0-9_]*)|\b([A-Za-z_][A-Za-z0-9_]*)")


def _scan(sql: str) -> Iterator[tuple[str, str]]:
    """Split SQL into ("code" | "skip", text) pieces; strings, quoted names and comments skip."""
    position = 0
    for m in _SKIPPED.finditer(sql):
        if m.start() > position:
            yield "code", sql[position:m.start()]
        yield "skip", m.group()
        position = m.end()
    if position < len(sql):
        yield "code", sql[position:]


# convert() and without_comments() are pure functions of a query's text, and each app (every
# test's, every worker's) reads the same texts again: remembered per process (a third of
# create_app's time went to them).
@functools.lru_cache(maxsize=16384)
def convert(sql: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Turn `:name` into `?`; return the SQL, the names in order and the bare words seen."""
    out: list[str] = []
    names: list[str] = []
    words: list[str] = []

    def token(m: re.Match[str]) -> str:
        if m.group(1):
            names.append(m.group(1))
            return "?"
        if m.group(2):
            words.append(m.group(2).lower())
        return m.group()

    for kind, text in _scan(sql):
        out.append(text if kind == "skip" else _CODE_TOKEN.sub(token, text))
    return "".join(out), tuple(names), tuple(words)


@functools.lru_cache(maxsize=16384)
def without_comments(sql: str) -> str:
    """The SQL less its comments and the blank lines and trailing blanks they leave.

    Not sent to the server: some drivers (SQLite's ODBC one) trip over a ';' in a comment."""
    pieces: list[list[str]] = []  # [kind, text], adjacent code merged
    for kind, text in _scan(sql):
        if kind == "skip" and text.startswith(("--", "/*")):
            continue
        if kind == "code" and pieces and pieces[-1][0] == "code":
            pieces[-1][1] += text
        else:
            pieces.append([kind, text])
    out = []
    for kind, text in pieces:
        if kind == "code":
            text = re.sub(r"[ \t]+(?=\n)", "", text)
            text = re.sub(r"\n(?:[ \t]*\n)+", "\n", text)
        out.append(text)
    return "".join(out).strip()


def _code(sql: str) -> str:
    return "".join(t for k, t in _scan(sql) if k == "code")


_TODO_COMMENT = re.compile(r"--\s*TODO\b", re.I)
_TODO_MARK = "\0"  # stands for a `-- TODO` comment in the text todo_fields reads
_NAMED_FIELD = re.compile(r'(?i)\bAS\s*"((?:[^"]|"")*)"')


def todo_fields(sql: str) -> list[str]:
    """The fields a query names (`... AS "field"`) on a line that ends in a comment starting
    `-- TODO`, as draft-mapping marks a field left to map, in order. A TODO in a comment line
    of its own, or inside a `/* */` block, marks nothing: only a select-list line counts."""
    masked = []  # the text with comments and strings emptied, each TODO comment marked
    for kind, text in _scan(sql):
        if kind == "code" or text.startswith('"'):
            masked.append(text)
        elif text.startswith("--"):
            masked.append(_TODO_MARK if _TODO_COMMENT.match(text) else "")
        else:  # a /* */ comment, a string, a [name]: only its line breaks are kept
            masked.append("''" + "\n" * text.count("\n"))
    fields = [name.replace('""', '"') for line in "".join(masked).split("\n")
              if _TODO_MARK in line for name in _NAMED_FIELD.findall(line)]
    return list(dict.fromkeys(fields))


def check_statement(sql: str, where: str, first: tuple[str, ...] = ("select", "with")) -> None:
    """One read-only statement, starting with one of `first`; else a QueryFileError."""
    body = _code(sql).strip().rstrip(";").strip()
    if not body:
        raise QueryFileError(f"{where}: the query has no SQL text")
    if ";" in body:
        raise QueryFileError(f"{where}: one statement per name (found ';' inside the query)")
    _, _, words = convert(sql)
    if not words or words[0] not in first:
        found = words[0].upper() if words else body[:20]
        raise QueryFileError(f"{where}: this query must start with "
                             f"{' or '.join(w.upper() for w in first)} (Jembatan is "
                             f"read-only), found {found}")
    bad = sorted(set(words) & _FORBIDDEN)
    if bad:
        raise QueryFileError(f"{where}: a read-only query may not contain {', '.join(bad)}")


def parse_file(path: Path) -> list[Block]:
    """Every block of one file, checked for shape; names are checked by load_queries."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, int, list[str]]] = []
    for number, line in enumerate(lines, 1):
        m = _NAME_LINE.match(line)
        if m:
            if not _IDENT.fullmatch(m.group(1)):
                raise QueryFileError(f"{path}:{number}: bad query name {m.group(1)!r}")
            found.append((m.group(1), number, []))
        elif found:
            found[-1][2].append(line)
        elif line.strip() and not line.lstrip().startswith("--"):
            raise QueryFileError(f"{path}:{number}: SQL before the first '-- name:' line")
    blocks = []
    for name, number, body in found:
        where = f"{path}:{number}"
        dialect = None
        if body and (m := _DIALECT_LINE.match(body[0])):
            dialect = m.group(1)
            if dialect not in DIALECTS:
                raise QueryFileError(f"{where}: unknown dialect {dialect!r} for {name!r}; "
                                     f"known: {', '.join(DIALECTS)}")
            body = body[1:]
        notes = []  # the leading comment lines describe the query
        while body and (not body[0].strip() or body[0].lstrip().startswith("--")):
            notes.append(body.pop(0).strip().removeprefix("--").strip())
        # Comment lines after the statement introduce what follows in the file, not this query.
        while body and (not body[-1].strip() or body[-1].lstrip().startswith("--")):
            body.pop()
        text = "\n".join(body).strip()
        check_statement(text, where)
        text = text.rstrip().rstrip(";").rstrip()
        blocks.append(Block(name, dialect, text, where, " ".join(filter(None, notes))))
    if not blocks:
        raise QueryFileError(f"{path}: no '-- name:' query in the file")
    return blocks


class _File:
    """The blocks of one file by (name, dialect), refusing a name given twice."""

    def __init__(self, path: Path, allowed: Sequence[str]):
        self.path = path
        self.blocks = parse_file(path)
        self.by_key: dict[tuple[str, str | None], Block] = {}
        for b in self.blocks:
            if b.name not in allowed:
                raise QueryFileError(f"{b.source}: unknown query name {b.name!r}; "
                                     f"{path.name} may hold: {', '.join(allowed)}")
            if (b.name, b.dialect) in self.by_key:
                variant = f" (dialect {b.dialect})" if b.dialect else ""
                raise QueryFileError(f"{b.source}: duplicate query {b.name!r}{variant}, "
                                     f"first at {self.by_key[(b.name, b.dialect)].source}")
            self.by_key[(b.name, b.dialect)] = b
        for b in self.blocks:
            if b.dialect and not self.has(b.name):
                raise QueryFileError(f"{b.source}: a '-- dialect: {b.dialect}' text of "
                                     f"{b.name!r} needs a main text of the same name, which "
                                     f"every other engine runs")

    def dialects(self) -> set[str]:
        """The engines some block of the file has a text of its own for."""
        return {d for _, d in self.by_key if d is not None}

    def has(self, name: str) -> bool:
        return (name, None) in self.by_key

    def get(self, name: str, dialect: str | None) -> Block:
        return self.by_key.get((name, dialect)) or self.by_key[(name, None)]

    def require(self, names: Sequence[str]) -> None:
        missing = [n for n in names if not self.has(n)]
        if missing:
            raise QueryFileError(
                f"{self.path}: missing quer{'y' if len(missing) == 1 else 'ies'} "
                f"{', '.join(missing)} (each needs a main text without '-- dialect:')")


def quote(name: str) -> str:
    """A field name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def qualified(table: Sequence[str]) -> str:
    """A table's name as SQL: its quoted parts joined by dots, an empty schema left out
    ("dbo"."TBL_TIMBANG"; "TBL_TIMBANG" on SQLite)."""
    return ".".join(quote(part) for part in table if part)


def on_table(query: Query, table: Sequence[str]) -> Query:
    """A query of database.sql that reads a site's table, with {table} filled in."""
    if query.template is None or TABLE_PLACEHOLDER not in query.template:
        raise ValueError(f"{query.source}: {query.name} reads no table of the site")
    sql, params, _ = convert(query.template.replace(TABLE_PLACEHOLDER, qualified(table)))
    return replace(query, sql=sql, params=params)


def _placeholders(c: Collection, on: str | None) -> dict[str, tuple[str, ...]]:
    """What each placeholder stands for in a query of `c` (of a range on `on`)."""
    values: dict[str, tuple[str, ...]] = {"fields": c.fields, "order": c.order}
    if not c.numbered:
        values["key"] = (c.key,)
    if on is not None:
        values |= {"date": (DATE_PAIRS[on][0],), "time": (DATE_PAIRS[on][1],),
                   "order": c.range_order(on)}
    return values


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


def _described(text: str, values: dict[str, tuple[str, ...]]) -> str:
    """A description with the placeholders it mentions filled in (others left as written)."""
    for name, fields in values.items():
        text = text.replace("{" + name + "}", ", ".join(map(quote, fields)))
    return text


def _check_records(block: Block, c: Collection) -> None:
    """A records query: one SELECT with no parameters that names every stored field."""
    check_statement(block.text, block.source, first=("select",))
    _, params, _ = convert(block.text)
    if params:
        raise QueryFileError(f"{block.source}: records takes no parameters (found "
                             f":{params[0]}); the shapes in sql/shapes.sql bind them")
    missing = [f for f in c.fields if f not in _named(block.text)]
    if missing:
        raise QueryFileError(
            f"{block.source}: records gives no {', '.join(missing)}: write each field as "
            f'"column" AS "field" or an expression AS "field" (NULL AS "{missing[0]}" where '
            f"the site has none; on SQL Server a NULL of the field's type, CAST(NULL AS "
            f"date), time, int, float or varchar(n))")
    _refuse_order(block, "each read orders it")


def _named(sql: str) -> set[str]:
    """The names a query gives its columns (`... AS "name"`)."""
    return set(re.findall(r'(?i)\bAS\s*"((?:[^"]|"")*)"', sql))


def _refuse_order(block: Block, why: str) -> None:
    """A query put in front of others as a common table expression is not ordered."""
    depth = 0
    for piece in re.split(r"([()])", _code(block.text)):
        depth += {"(": 1, ")": -1}.get(piece, 0)
        if depth == 0 and re.search(r"(?i)\bORDER\s+BY\b", piece):
            raise QueryFileError(f"{block.source}: {block.name} may not be ordered (ORDER "
                                 f"BY): {why}, and SQL Server refuses ORDER BY in a common "
                                 f"table expression")


def _check_names(block: Block, naming: Naming) -> None:
    """A query of names.sql: one SELECT with no parameters that gives the master record's
    code and name fields."""
    check_statement(block.text, block.source, first=("select",))
    _, params, _ = convert(block.text)
    if params:
        raise QueryFileError(f"{block.source}: {block.name} takes no parameters (found "
                             f":{params[0]}); the summaries look each code up themselves")
    wanted = (naming.master_code, naming.master_name)
    missing = [f for f in wanted if f not in _named(block.text)]
    if missing:
        raise QueryFileError(
            f'{block.source}: {block.name} gives no "{missing[0]}": write the code column '
            f'as ... AS "{wanted[0]}" and the name column as ... AS "{wanted[1]}", e.g. '
            f'SELECT "KODE" AS "{wanted[0]}", "NAMA" AS "{wanted[1]}" FROM "TABLE"')
    _refuse_order(block, "the summaries pick one name per code themselves")


class Queries:
    """Every query the runner sends, by (file stem, name, dialect)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str, str | None], Query] = {}
        self._filtered: OrderedDict[tuple[Any, ...], Query] = OrderedDict()
        self.files: dict[str, Path] = {}  # stem -> the file it was read from
        self.namings: dict[str, dict[str, Naming]] = {}  # stem -> its summary's named codes
        self.name_of: dict[str | None, str] = {}  # dialect -> name_of of shapes.sql, as written
        self.name_from: dict[str | None, str] = {}  # likewise name_from, where names.sql is

    def add(self, stem: str, query: Query) -> None:
        self._by_key[(stem, query.name, query.dialect)] = query

    def get(self, stem: str, name: str, dialect: str | None,
            where: Where | None = None, by: tuple[str, ...] = (),
            table: tuple[str, ...] = ()) -> Query:
        """The query as sent; with `where`, its text with those filters in it, and with `by`
        a summary's groups (composed once per shape of filters and groups, and kept); with
        `table` (schema, name), a query of a site's table with its quoted name in it."""
        query = self._by_key.get((stem, name, dialect)) or self._by_key[(stem, name, None)]
        if table:
            return on_table(query, table)
        if where is None and not by:
            return query
        if query.template is None:
            raise ValueError(f"{stem}.{name} takes no filters")
        if not by and _GROUPED.search(query.template):
            by = DEFAULT_BY  # a summary asked without groups, as its base text
        key = (stem, name, dialect, where and where.shape, by)
        found = self._filtered.get(key)
        if found is None:
            text = query.template
            if by:
                text = self.grouped(stem, text, by, dialect, query.source)
            sql, params, _ = convert(with_filters(text, where))
            found = replace(query, sql=sql, params=params)
            self._filtered[key] = found
            if len(self._filtered) > FILTERED_KEPT:
                self._filtered.popitem(last=False)
        return found

    def names_of(self, master: str, dialect: str | None) -> tuple[str, Query, str] | None:
        """Where the names of a master's codes are read, as (the common table expression's
        name, its query, the lookup shape as written): the site's names.sql query of that
        master ("names_products", name_from), else the master collection's records
        ("master_products", name_of), else nowhere (None: the site has neither)."""
        for stem, name, prefix, shape in ((NAMES_FILE, master, "names", self.name_from),
                                          (master, "records", "master", self.name_of)):
            query = (self._by_key.get((stem, name, dialect))
                     or self._by_key.get((stem, name, None)))
            if query is not None:
                return f"{prefix}_{master}", query, shape.get(dialect) or shape[None]
        return None

    def grouped(self, stem: str, template: str, by: Sequence[str], dialect: str | None,
                where: str) -> str:
        """A summary's template with its groups filled in: {by}; {groups}, where each code
        of master data (Collection.namings) is followed by its name, name_of (or name_from)
        of shapes.sql filled in for it; and {masters}, what those names are read from, each
        one more common table expression (names_of). A master this site neither serves nor
        has in names.sql names nothing: its names are NULL."""
        namings = self.namings.get(stem, {})
        groups: list[str] = []
        masters: dict[str, str] = {}  # the CTE's name -> the query of names as sent
        for group in by:
            groups.append(quote(group))
            naming = namings.get(group)
            if naming is None:
                continue
            source = self.names_of(naming.master, dialect)
            if source is None:
                groups.append(f"NULL AS {quote(naming.name)}")
                continue
            cte, query, shape = source
            masters[cte] = query.sql
            lookup = fill(shape, {
                "name": (naming.master_name,), "master": (cte,),
                "code": (naming.master_code,), "group": (group,)}, where)
            groups.append("(" + lookup.replace("\n", "\n        ") + f") AS {quote(naming.name)}")
        text = fill(template, {"by": tuple(by)}, where)
        return (text.replace("{groups}", ",\n    ".join(groups))
                .replace("{masters}", "".join(f",\n{quote(cte)} AS (\n{sql}\n)"
                                              for cte, sql in masters.items())))

    def field_line(self, stem: str, field: str, dialect: str | None) -> str:
        """Where `stem`'s records query gives `field`: 'file:line: the line', for an
        operator who must correct it (else the query's own file:line)."""
        query = self.get(stem, "records", dialect)
        path, _, number = query.source.rpartition(":")
        pattern = re.compile(rf'(?i)\bAS\s+(?:"{re.escape(field)}"|{re.escape(field)}\b)')
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError:
            return query.source
        for n in range(int(number), len(lines) + 1):
            if n > int(number) and _NAME_LINE.match(lines[n - 1]):
                break  # the next query: the field is not named in this one
            if pattern.search(lines[n - 1]):
                return f"{path}:{n}: {lines[n - 1].strip()}"
        return query.source

    def names(self, stem: str) -> list[str]:
        """The names of a file's queries, in the order they were added."""
        return list(dict.fromkeys(n for s, n, _ in self._by_key if s == stem))


def _check_params(name: str, params: tuple[str, ...], where: str) -> None:
    allowed = PARAMETERS[kind_of(name)]
    unknown = [p for p in params if p not in allowed]
    if unknown:
        raise QueryFileError(f"{where}: unknown parameter :{unknown[0]} in {name!r}; "
                             f"it may use {', '.join(allowed) or 'none'}")


def kind_of(name: str) -> str:
    """range_dt1_page -> range_page; summary_dt1 -> summary; all -> all; a shape's or
    another query's name is its own kind."""
    return QueryName.parse(name).kind


def _own_or_shipped(sql_dir: Path, shipped_dir: Path, stem: str) -> Path:
    """Jembatan's own files: the site's copy if it has one, else the shipped file, so that a
    site that copied only its ten mapping files gets the shapes of the version it runs."""
    own = sql_dir / f"{stem}.sql"
    return own if own.is_file() else shipped_dir / f"{stem}.sql"


def load_queries(sql_dir: Path, collections: Sequence[Collection],
                 shipped_dir: Path | None = None) -> Queries:
    """Read and check every file, and fill in every read of every collection.

    The collections' files come from `sql_dir`; shapes.sql and database.sql from there too
    when present, else from `shipped_dir` (Jembatan's own sql/). Anything malformed, missing
    or unknown is a QueryFileError naming the file and line."""
    shipped_dir = shipped_dir or sql_dir
    queries = Queries()
    database = _File(_own_or_shipped(sql_dir, shipped_dir, DATABASE_FILE),
                     DATABASE_QUERIES + DATABASE_OPTIONAL)
    database.require(DATABASE_QUERIES)
    queries.files[DATABASE_FILE] = database.path
    for block in database.blocks:
        text = without_comments(block.text)
        sql, params, _ = convert(text)
        _check_params(block.name, params, block.source)
        check_statement(text, block.source)
        queries.add(DATABASE_FILE, Query(block.name, block.dialect, sql, params, block.source,
                                         block.description,
                                         text if TABLE_PLACEHOLDER in text else None))
    shapes = _File(_own_or_shipped(sql_dir, shipped_dir, SHAPES_FILE), SHAPES)
    shapes.require([s for s in SHAPES if s != NAME_FROM])
    queries.files[SHAPES_FILE] = shapes.path
    _lookup(queries.name_of, shapes, NAME_OF)
    if collections:  # draft-mapping loads Jembatan's own files alone
        _load_names(queries, sql_dir / f"{NAMES_FILE}.sql", shapes)
    for c in collections:
        path = sql_dir / f"{c.name}.sql"
        if not path.is_file():
            raise QueryFileError(f"{path}: missing (database.sql_dir is {sql_dir}); a site "
                                 f"without {c.name} leaves it out of collections.serve")
        queries.files[c.name] = path
        queries.namings[c.name] = c.namings
        names = [n for name, shape in c.reads() for n in (str(name), shape)]
        own = _File(path, ["records", *dict.fromkeys(names)])
        first = own.blocks[0]
        if first.name != "records" or first.dialect is not None:
            raise QueryFileError(f"{first.source}: {path.name} must start with '-- name: "
                                 f"records', the query that says where each field of a "
                                 f"{c.name} record comes from")
        # An engine none of whose texts differ reads the main ones (Queries.get).
        for dialect in (None, *sorted(own.dialects() | shapes.dialects())):
            _fill_collection(queries, c, own, shapes, dialect)
    return queries


def _lookup(into: dict[str | None, str], shapes: _File, name: str) -> None:
    """A name lookup of shapes.sql (name_of, name_from), as written, for every engine."""
    for dialect in (None, *DIALECTS):
        block = shapes.get(name, dialect)
        check_statement(block.text, block.source, first=("select",))
        into[dialect] = without_comments(block.text)


def _load_names(queries: Queries, path: Path, shapes: _File) -> None:
    """The site's names.sql, where it has one: its queries, checked, as the names of the
    masters they are named after, and the shape name_from that reads them."""
    if not path.is_file():
        return
    masters = {n.master: n for shape in NAMINGS.values() for n in shape}
    own = _File(path, list(masters))
    if not shapes.has(NAME_FROM):
        raise QueryFileError(f"{shapes.path}: missing query {NAME_FROM}, which {path.name} "
                             f"needs (copy it from Jembatan's sql/shapes.sql)")
    _lookup(queries.name_from, shapes, NAME_FROM)
    queries.files[NAMES_FILE] = path
    for block in own.blocks:
        _check_names(block, masters[block.name])
        queries.add(NAMES_FILE, Query(block.name, block.dialect,
                                      convert(without_comments(block.text))[0], (),
                                      block.source, block.description))


def _fill_collection(queries: Queries, c: Collection, own: _File, shapes: _File,
                     dialect: str | None) -> None:
    """Every read of `c` on `dialect`: its own text of a read where its file has one, else
    the shape, with the placeholders filled in and its records in front."""
    records = own.get("records", dialect)
    _check_records(records, c)
    mapping = without_comments(records.text)
    queries.add(c.name, Query("records", records.dialect, convert(mapping)[0], (),
                              records.source, records.description))
    for query_name, shape in c.reads():
        name, on = str(query_name), query_name.on
        source = own if own.has(name) or own.has(shape) else shapes
        written = name if source.has(name) else shape
        block, main = source.get(written, dialect), source.get(written, None)
        values = _placeholders(c, on)
        where = f"{block.source} ({c.name}.{name})"
        check_statement(block.text, where, first=("select",))  # "records" comes first
        text = fill(without_comments(block.text), values, where)
        ctes = f'WITH "records" AS (\n{mapping}\n)'
        variant = block.dialect or records.dialect  # the dialect whose own text this is
        if '"in_range"' in text:  # the range's records, written once for every range read
            rows = shapes.get(RANGE_ROWS, dialect)
            check_statement(rows.text, rows.source, first=("select",))
            ctes += (f',\n"in_range" AS (\n'
                     f'{fill(without_comments(rows.text), values, rows.source)}\n)')
            variant = variant or rows.dialect
        grouped = bool(_GROUPED.search(text))
        if kind_of(name) == "summary" and not re.search(r'\{groups\}[\s\S]*AS "grouped"', text):
            raise QueryFileError(
                f'{where}: a summary selects {{groups}} (its groups, each code of master data '
                f'with its name) and reads its rows as "grouped" (FROM "in_range" AS '
                f'"grouped"), which the names look their codes up in; see summary_vehicle in '
                f"sql/shapes.sql")
        if grouped:  # the master collections' records, for names beside codes
            ctes += "{masters}"
        template = f"{ctes}\n{text}"
        takes_filters = any("{" + p + "}" in template for p in FILTER_PLACEHOLDERS)
        # A summary's base text (what check-sql runs and shows) groups by the day.
        base = (queries.grouped(c.name, template, DEFAULT_BY, dialect, where) if grouped
                else template)
        sql, params, _ = convert(with_filters(base, None))
        _check_params(name, params, where)
        note = (f" ({block.dialect}: {block.description})"
                if block is not main and block.description else "")
        queries.add(c.name, Query(name, variant, sql, params,
                                  f"{block.source} with records at {records.source}",
                                  _described(main.description, values) + note,
                                  template if takes_filters or grouped else None))

