"""`flask --app wsgi draft-mapping TABLE [--collection C]`: a first `records` query for a
site's table, drafted from the table's own columns as the configured connection sees them
(INFORMATION_SCHEMA on SQL Server and PostgreSQL, the table info on SQLite).

A field is matched to a column of the same name; else to one whose name is the same but for
case; else but for case, underscores, spaces and hyphens (`TGL_DT1`, `TglDt1`, `tgl dt1` for
`tgl_dt1`). Each column serves one field at most. A field left unmatched is written as a
NULL of the field's type, `CAST(NULL AS date) AS "tgl_dt2", -- TODO` (plain `NULL` on SQLite),
with the closest columns not used, for a person to finish; and `check-sql` reports the
fields still marked TODO.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import NamedTuple

import click
from flask import current_app
from flask.cli import with_appcontext

from .collections import COLLECTIONS, Collection
from .db import Database, DatabaseUnavailable, QueryFailed
from .queries import quote
from .schemas import Date, Integer, Number, String, Time

# Catalog types that hold a date and a time of day in one value (SQL Server, PostgreSQL,
# SQLite's declared types): a date or time field matched to one is cast to its part.
_DATETIME_TYPES = re.compile(r"(?i)^(datetime|datetime2|smalldatetime|datetimeoffset|"
                             r"timestamp( .*)?)$")
CLOSEST = 3  # columns named after each TODO
# The type of the NULL given for a field the site has no column for, named alike on SQL
# Server 2008 and PostgreSQL. SQL Server types a bare NULL in a SELECT list as int, which it
# refuses to CAST to date or time or compare with one (every date range reads its date and
# time that way) and to which it converts a text filter's value ('SUP-007': conversion
# failed); PostgreSQL's bare NULL is text there.
_NULL_TYPES: dict[type, str] = {Integer: "int", Number: "float", Date: "date", Time: "time"}


class Column(NamedTuple):
    name: str
    type: str


def normalized(name: str) -> str:
    """The name as compared last: lower case, without underscores, spaces or hyphens."""
    return re.sub(r"[\s_\-]+", "", name).lower()


_PART = r'"(?:[^"]|"")+"|\[[^\]]+\]|[^."\[\]]+'
_TABLE = re.compile(f"({_PART})(?:\\.({_PART}))?")


def _unquoted(part: str) -> str:
    if part.startswith('"'):
        return part[1:-1].replace('""', '"')
    return part[1:-1] if part.startswith("[") else part.strip()


def split_table(text: str) -> tuple[str, str]:
    """'dbo.TBL_TIMBANG' -> ('dbo', 'TBL_TIMBANG'); 'TBL' -> ('', 'TBL'). A part may be
    quoted "..." or [...], and then hold dots and spaces."""
    m = _TABLE.fullmatch(text.strip())
    if not m or not all(_unquoted(p) for p in m.groups() if p is not None):
        raise click.BadParameter(f"{text!r}: give the table as TABLE or SCHEMA.TABLE, e.g. "
                                 f"dbo.TBL_TIMBANG", param_hint="TABLE")
    first, second = m.groups()
    return ("", _unquoted(first)) if second is None else (_unquoted(first), _unquoted(second))


def match(fields: Sequence[str], columns: Sequence[Column]) -> dict[str, Column]:
    """{field: column} for the fields a column matches, each column used once: exact names
    first, then names equal but for case, then but for case and separators."""
    found: dict[str, Column] = {}
    used: set[str] = set()
    for key in (lambda n: n, str.lower, normalized):
        for field in fields:
            if field in found:
                continue
            for column in columns:
                if column.name not in used and key(column.name) == key(field):
                    found[field] = column
                    used.add(column.name)
                    break
    return found


def closest(field: str, columns: Sequence[Column], n: int = CLOSEST) -> list[str]:
    """The names of up to n columns nearest to `field`, nearest first."""
    by_normal: dict[str, list[str]] = {}
    for column in columns:
        by_normal.setdefault(normalized(column.name), []).append(column.name)
    near = difflib.get_close_matches(normalized(field), list(by_normal), n=n, cutoff=0.5)
    return [name for key in near for name in by_normal[key]][:n]


def _source(c: Collection, field: str, column: Column, dialect: str | None) -> str:
    """What the SELECT says for `field`: the column, or its date or time part."""
    kind = type(c.schema._declared_fields[field])
    if kind in (Date, Time) and _DATETIME_TYPES.match(column.type.strip()):
        part = "date" if kind is Date else "time"
        if dialect == "sqlite":  # SQLite's CAST(... AS date) would make a number of it
            return f"{part}({quote(column.name)})"
        return f"CAST({quote(column.name)} AS {part})"
    return quote(column.name)


def _null(c: Collection, field: str, dialect: str | None) -> str:
    """What the SELECT says for a field with no column: a NULL of the field's type."""
    declared = c.schema._declared_fields[field]
    if dialect == "sqlite":  # no types to match: a NULL is a NULL
        return "NULL"
    if isinstance(declared, String):
        return f"CAST(NULL AS varchar({declared.length}))"
    sql_type = _NULL_TYPES.get(type(declared))
    return f"CAST(NULL AS {sql_type})" if sql_type else "NULL"


def draft(c: Collection, schema: str, table: str, columns: Sequence[Column],
          dialect: str | None = None) -> str:
    """The text of sql/<c>.sql: its records query, drafted from the table's columns, for
    the engine whose `-- dialect:` is `dialect` (None: SQL Server and PostgreSQL)."""
    found = match(c.fields, columns)
    unused = [col for col in columns if col not in found.values()]
    target = f"{quote(schema)}.{quote(table)}" if schema else quote(table)
    todo = [f for f in c.fields if f not in found]
    lines = [
        "-- name: records",
        f"-- Where each field of a {c.name} record comes from at this site: drafted by",
        f"-- `flask --app wsgi draft-mapping` from the columns of {target}.",
    ]
    if todo:
        plural = "s" if len(todo) > 1 else ""
        lines += [f"-- {len(todo)} field{plural} to finish: each `... AS ... -- TODO` line "
                  f"names the nearest",
                  "-- columns not used. Write the column or an expression, or keep NULL and drop "
                  "the TODO",
                  f"-- where the site has none; then run `flask --app wsgi check-sql {c.name}`."]
    lines.append("SELECT")
    for n, field in enumerate(c.fields):
        comma = "," if n < len(c.fields) - 1 else ""
        if field in found:
            source = _source(c, field, found[field], dialect)
            lines.append(f"    {source} AS {quote(field)}{comma}")
            continue
        near = closest(field, unused)
        hint = f" nearest: {', '.join(map(quote, near))}" if near else " no column near it"
        lines.append(f"    {_null(c, field, dialect)} AS {quote(field)}{comma} -- TODO{hint}")
    lines.append(f"FROM {target};")
    return "\n".join(lines) + "\n"


def table_columns(db: Database, schema: str, table: str) -> list[Column]:
    """The table's columns in order, from the catalog of the configured database; a table
    found in more than one schema is refused (the user names the schema)."""
    rows = db.execute("database", "columns", {"table_name": table, "table_schema": schema}).all()
    schemas = list(dict.fromkeys(str(r[0]) for r in rows))
    if len(schemas) > 1:
        raise click.UsageError(f"{table!r} is in more than one schema ({', '.join(schemas)}): "
                               f"name one, e.g. {schemas[0]}.{table}")
    return [Column(str(r[1]), str(r[2] or "")) for r in rows]


@click.command("draft-mapping")
@click.argument("table")
@click.option("--collection", "name", metavar="COLLECTION",
              help="The collection the table holds; by default the one named like TABLE.")
@with_appcontext
def draft_mapping_command(table: str, name: str | None) -> None:
    """Print a draft of a collection's `records` query for the site's TABLE.

    TABLE is read through the configured database (SCHEMA.TABLE or TABLE). Redirect the
    output into your sql_dir as <collection>.sql, finish its TODO lines, then run check-sql.
    """
    db: Database = current_app.extensions["jembatan"]["db"]
    schema, bare = split_table(table)
    by_name = {c.name: c for c in COLLECTIONS}
    chosen = name or next((c.name for c in COLLECTIONS if c.name == bare.lower()), None)
    if chosen not in by_name:
        what = f"no collection {chosen!r}" if chosen else f"{bare!r} is no collection's name"
        raise click.BadParameter(f"{what}; give --collection, one of: {', '.join(by_name)}",
                                 param_hint="--collection")
    try:
        columns = table_columns(db, schema, bare)
    except (DatabaseUnavailable, QueryFailed) as exc:
        raise click.ClickException(f"cannot read the columns of {table} from {db.describe}: "
                                   f"{getattr(exc, 'detail', None) or exc}") from None
    if not columns:
        raise click.ClickException(f"{db.describe} shows no table or view {table} to this "
                                   f"login (names are compared as the database compares them)")
    click.echo(draft(by_name[chosen], schema, bare, columns, db.dialect()), nl=False)
