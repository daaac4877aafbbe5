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


The jobs are in modules of their own: reading SQL text (app/database/sqltext.py), the files
(sqlfiles.py), the placeholders (templates.py, the one module that reads them: each text
parsed once into a tree, docs/adapting.md "The placeholders") and loading them all
(loading.py). This one holds the queries as the runner sends them, the names and parameters
each read may use, and the filled texts kept per shape of filters and groups.
Python composes SQL only mechanically (templates.py, asked from here and from loading.py): it
fills a shape's placeholders with quoted field names from the collection table
(app/model/collections.py), puts `WITH "records" AS (<records>)` in front (a Statement: its
common table expressions by name, then the read), and turns `:params` into DB-API `?`. A
summary grouped by a code of master data (productcode) also gets that master collection's
own `records` as one more common table expression ("master_products") and, right after the
code in its select list, the shape `name_of` filled in for it; where the site's names.sql
has a query for that master, that query ("names_products") and the shape `name_from`
instead (Queries.grouped). A request's filters fill `{where_filters}` or `{and_filters}`:
one condition per filter on a quoted field name, its SQL text from the operator's entry in
app/database/filters.py, each value a bound parameter, never SQL text.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..model.collections import Naming, QueryName
from ..model.kinds import QUERY_KINDS, RANGE
from .sqlfiles import Served, is_name_line
from .sqltext import QueryFileError, convert, qualified
from .templates import (
    AFTER_PARAMETERS,
    DEFAULT_BY,
    FILTER_PLACEHOLDERS,
    TABLE,
    Statement,
    Template,
    Where,
    with_groups,
)

SHAPES_FILE = "shapes"
DATABASE_FILE = "database"
DATABASE_QUERIES = ("ping", "version", "clock", "columns")
# Not required of a site's own copy of database.sql (one copied before it existed): without
# it draft-mapping drafts from the catalog alone.
DATABASE_OPTIONAL = ("sample", "mapped")
# The query of database.sql that reads a collection's "records" and no row: each collection
# gets it with its mapping in front (app/database/loading.py), from the shipped file when
# the site's own copy of database.sql has none.
MAPPED = "mapped"
# A query of database.sql that reads a site's table names it {table} (templates.TABLE):
# filled with the table's quoted name (Queries.get), never with text of the user's.
NAMES_FILE = "names"

SUMMARY_SHAPES = ("summary_weighing", "summary_production", "summary_vehicle")
# range_rows is no read of its own: the range reads and the summaries read it as "in_range"
# (_fill_collection), so that a range's condition is written once.
RANGE_ROWS = "range_rows"
# name_of is no read either: a summary grouped by a code of master data reads it once per
# such group, for the name beside the code (Queries.get); name_from likewise, where the
# site's names.sql says where that master's names are. name_from is required of a site's
# own shapes.sql only where the site has a names.sql (a copy made before it still starts).
NAME_OF = "name_of"
NAME_FROM = "name_from"
# The shapes of sql/shapes.sql: every query of the read kinds (app/model/kinds.py), and
# the parts they are made of.
SHAPES = (*(shape for q in QUERY_KINDS
            for shape in (SUMMARY_SHAPES if q.per_summary else (q.name,))),
          RANGE_ROWS, NAME_OF, NAME_FROM)
# What the runner passes to each kind of query; a query may use any subset of these.
PARAMETERS: dict[str, tuple[str, ...]] = {
    "records": (),
    **{q.name: q.params + (AFTER_PARAMETERS if q.keyed else ()) for q in QUERY_KINDS},
    RANGE_ROWS: RANGE,
    **{shape: RANGE for shape in SUMMARY_SHAPES},
    NAME_OF: (),
    NAME_FROM: (),
    "ping": (),
    "version": (),
    "clock": (),
    "columns": ("table_name", "table_schema"),
    "sample": ("row_count",),
    MAPPED: (),
}

FILTERED_KEPT = 512  # filtered texts kept, by the filters' shape (fields, operators, counts)


@dataclass(frozen=True)
class Query:
    """A query as the runner sends it."""

    name: str
    dialect: str | None
    sql: str  # with `?` placeholders
    params: tuple[str, ...]  # the parameter name behind each `?`, in order
    source: str  # where its text comes from (file:line), for messages and check-sql
    description: str
    # As composed, with :params and the placeholders filled per request, where it has any.
    template: Statement | None = None

    @property
    def filtered(self) -> bool:
        return self.template is not None



def on_table(query: Query, table: Sequence[str]) -> Query:
    """A query of database.sql that reads a site's table, with {table} filled in."""
    if query.template is None or not query.template.takes(TABLE):
        raise ValueError(f"{query.source}: {query.name} reads no table of the site")
    filled = query.template.fill({TABLE: qualified(table)}, query.source)
    sql, params, _ = convert(filled.sql(None))
    return replace(query, sql=sql, params=params)



def query_name(name: QueryName | str) -> QueryName:
    """A query's name as a value (a name as written is parsed: range_dt1_page)."""
    return name if isinstance(name, QueryName) else QueryName.parse(name)


class Queries:
    """Every query the runner sends, by (file stem, query name, dialect)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, QueryName, str | None], Query] = {}
        self._filtered: OrderedDict[tuple[Any, ...], Query] = OrderedDict()
        self.files: dict[str, Path] = {}  # stem -> the file it was read from
        self.namings: dict[str, dict[str, Naming]] = {}  # stem -> its summary's named codes
        self.texts: dict[str, frozenset[str]] = {}  # stem -> its text fields (grouped trimmed)
        self.name_of: dict[str | None, Template] = {}  # dialect -> name_of of shapes.sql
        self.name_from: dict[str | None, Template] = {}  # likewise name_from, where names.sql is
        self.tables: dict[str, Served] = {}  # stem -> its table, where a file serves several

    def fresh(self) -> Queries:
        """These queries in a Queries of their own, with no filled text kept yet (the
        loaded ones are shared, never changed after loading)."""
        other = copy(self)
        other._filtered = OrderedDict()
        return other

    def add(self, stem: str, query: Query) -> None:
        self._by_key[(stem, QueryName.parse(query.name), query.dialect)] = query

    def get(self, stem: str, name: QueryName | str, dialect: str | None,
            where: Where | None = None, by: tuple[str, ...] = (),
            table: tuple[str, ...] = ()) -> Query:
        """The query as sent; with `where`, its text with those filters in it, and with `by`
        a summary's groups (composed once per shape of filters and groups, and kept); with
        `table` (schema, name), a query of a site's table with its quoted name in it."""
        name = query_name(name)
        query = self._by_key.get((stem, name, dialect)) or self._by_key[(stem, name, None)]
        if table:
            return on_table(query, table)
        if where is None and not by:
            return query
        if query.template is None:
            raise ValueError(f"{stem}.{name} takes no filters")
        if not by and query.template.grouped:
            by = DEFAULT_BY  # a summary asked without groups, as its base text
        key = (stem, name, dialect, where and where.shape, by)
        found = self._filtered.get(key)
        if found is None:
            statement = query.template
            if by:
                statement = self.grouped(stem, statement, by, dialect, query.source)
            sql, params, _ = convert(statement.sql(where))
            found = replace(query, sql=sql, params=params)
            self._filtered[key] = found
            if len(self._filtered) > FILTERED_KEPT:
                self._filtered.popitem(last=False)
        return found

    def names_of(self, master: str, dialect: str | None) -> tuple[str, Query, Template] | None:
        """Where the names of a master's codes are read, as (the common table expression's
        name, its query, the lookup shape as written): the site's names.sql query of that
        master ("names_products", name_from), else the master collection's records
        ("master_products", name_of), else nowhere (None: the site has neither)."""
        for stem, name, prefix, shape in ((NAMES_FILE, master, "names", self.name_from),
                                          (master, "records", "master", self.name_of)):
            query = (self._by_key.get((stem, QueryName(name), dialect))
                     or self._by_key.get((stem, QueryName(name), None)))
            if query is not None:
                return f"{prefix}_{master}", query, shape.get(dialect) or shape[None]
        return None

    def grouped(self, stem: str, statement: Statement, by: Sequence[str],
                dialect: str | None, where: str) -> Statement:
        """A summary's statement with its groups filled in (templates.with_groups), each
        code's names read where names_of says."""
        def names(master: str) -> tuple[str, str, Template] | None:
            found = self.names_of(master, dialect)
            return found and (found[0], found[1].sql, found[2])
        return with_groups(statement, by, self.namings.get(stem, {}), names, where,
                           self.texts.get(stem, frozenset()), dialect)

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
            if n > int(number) and is_name_line(lines[n - 1]):
                break  # the next query: the field is not named in this one
            if pattern.search(lines[n - 1]):
                return f"{path}:{n}: {lines[n - 1].strip()}"
        return query.source

    def place(self, stem: str, name: str, dialect: str | None, query: str = "records",
              once: bool = False) -> tuple[str, int, int | None, str | None]:
        """Where `stem`'s records query, else the text of its read `query` (a site's own, or
        its shape), names `name` (a column, a table, the text a syntax error is near),
        outside comments: (file, line, column, the field that line gives), the first place
        it does (`once`: the only one, as the text a syntax error is near must be to tell
        where); else, where a file serves several collections, its `-- serves:` line of
        `stem` when `name` is its table; else the records query's own `-- name:` line."""
        records = self.get(stem, "records", dialect).source
        sources = [records]
        if query != "records" and (stem, query_name(query), None) in self._by_key:
            sources.append(self.get(stem, query, dialect).source.split(" with ")[0])
        for source in sources if name.rpartition(".")[2].strip('"[]`') else ():
            path, _, number = source.rpartition(":")
            found = _found(Path(path), int(number), name.rpartition(".")[2].strip('"[]`'),
                           once)
            if found is not None:
                return (path, *found)
        table = self.tables.get(stem)
        if table is not None and table.line and name.rpartition(".")[2].strip('"[]`') in (
                table.name, table.table):
            return str(table.path), table.line, table.column, None  # its `-- serves:` line
        path, _, number = records.rpartition(":")
        return path, int(number), None, None

    def unfiltered(self, stem: str, names: Sequence[str]) -> list[str]:
        """Those of `names` (queries of sql/<stem>.sql) whose text, main or of a dialect,
        takes no filters: a site's own query without {where_filters} or {and_filters}."""
        def takes(query: Query) -> bool:
            return query.template is not None and query.template.takes(*FILTER_PLACEHOLDERS)
        return list(dict.fromkeys(str(name) for (s, name, _), query in self._by_key.items()
                                  if s == stem and str(name) in names and not takes(query)))

    def names(self, stem: str) -> list[str]:
        """The names of a file's queries, in the order they were added."""
        return list(dict.fromkeys(str(n) for s, n, _ in self._by_key if s == stem))


def _found(path: Path, start: int, word: str, once: bool = False
           ) -> tuple[int, int, str | None] | None:
    """The first line after line `start` of `path`, within its query, whose code (before
    any `--`) names `word`: (line, column, the field it gives as AS "field"); with `once`,
    None where the query names it more than once."""
    pattern = re.compile(rf'(?i)"{re.escape(word)}"|\[{re.escape(word)}\]|'
                         rf'(?<![\w"]){re.escape(word)}(?![\w"])')
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    found: list[tuple[int, int, str | None]] = []
    for n in range(start + 1, len(lines) + 1):
        if is_name_line(lines[n - 1]):
            break  # the next query
        text = lines[n - 1].split("--", 1)[0]
        given = re.search(r'(?i)\bAS\s*"([^"]+)"', text)
        found += [(n, m.start() + 1, given.group(1) if given else None)
                  for m in pattern.finditer(text)]
    return found[0] if found and (len(found) == 1 or not once) else None


def check_params(name: str, params: tuple[str, ...], where: str) -> None:
    allowed = PARAMETERS[kind_of(name)]
    unknown = [p for p in params if p not in allowed]
    if unknown:
        raise QueryFileError(f"{where}: unknown parameter :{unknown[0]} in {name!r}; "
                             f"it may use {', '.join(allowed) or 'none'}")


def kind_of(name: str) -> str:
    """range_dt1_page -> range_page; summary_dt1 -> summary; all -> all; a shape's or
    another query's name is its own kind."""
    return QueryName.parse(name).kind

