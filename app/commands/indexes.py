"""Which reads no index can serve: check-sql's note for a date the mapping converts from text.

A range, its count and page, the feed and the summaries on a date pair compare the `records`
query's date field. Where that field is a column (or a CAST of a date-and-time column, which
SQL Server sees through), an index on it serves them; where it is made from a text column
(`CONVERT(date, "cTglKeluar", 103)`, `date("Waktu")`), no index on that column can, and each
such read reads the whole table. For those, check-sql prints what a DBA can add on SQL
Server: a PERSISTED computed column of the conversion per field and an index on the pair,
and the mapping's lines that then read them (docs/adapting.md, "Dates no index serves").
It is a note: the exit status stays the queries'.
"""

from __future__ import annotations

import re

from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.sqltext import written_as
from ..model.collections import DATE_PAIRS, Collection

# Declared types of text: SQL Server's, PostgreSQL's, SQLite's (TEXT, or none at all).
TEXT_TYPES = ("char", "varchar", "nchar", "nvarchar", "text", "ntext", "character",
              "character varying", "")
_NAME = r'(?:"[^"]+"|\[[^\]]+\]|[A-Za-z_][\w$#@]*)'
_COLUMN = re.compile(rf"^(?:{_NAME}\.)*({_NAME})$")
_QUALIFIER = re.compile(rf"{_NAME}\.(?={_NAME})")
_FROM = re.compile(rf"\bFROM\s+((?:{_NAME}\.)*{_NAME})", re.I)


def _bare(name: str) -> str:
    return name[1:-1] if name[:1] in '"[' else name


def _table(db: Database, c: Collection, dialect: str | None) -> tuple[str, str] | None:
    """(schema, table) of the first table the records query reads FROM, or None."""
    m = _FROM.search(db.queries.get(c.name, "records", dialect).sql)
    if m is None:
        return None
    parts = [_bare(p) for p in re.findall(_NAME, m.group(1))]
    return ("" if len(parts) < 2 else parts[-2]), parts[-1]


def _types(db: Database, table: tuple[str, str]) -> dict[str, str]:
    """The table's columns and their declared types (lower case), from the catalog."""
    rows = db.execute("database", "columns", {"table_schema": table[0],
                                              "table_name": table[1]}).all()
    return {str(r[1]).lower(): str(r[2] or "").lower() for r in rows}


def _from_text(expression: str, types: dict[str, str]) -> bool:
    """Whether `expression` converts a text column (so no index on it serves the field)."""
    if expression.upper() == "NULL" or _COLUMN.match(expression.strip()):
        return False
    columns = [_bare(n).lower() for n in re.findall(_NAME, expression)]
    return any(types.get(n, "-").split("(")[0] in TEXT_TYPES for n in columns if n in types)


def notes(db: Database, c: Collection, dialect: str | None) -> list[str]:
    """check-sql's lines for each date pair of `c` that no index can serve, with what would
    serve it (SQL Server: persisted computed columns and their index; SQLite: an index on
    the same expressions); none when every pair can use an index."""
    table = _table(db, c, dialect)
    if not c.dates or table is None:
        return []
    try:
        types = _types(db, table)
    except (QueryFailed, DatabaseUnavailable):
        return []
    out: list[str] = []
    for on in c.dates:
        day, clock = DATE_PAIRS[on]
        given = {f: written_as(db.queries.field_line(c.name, f, dialect), f)
                 for f in (day, clock)}
        if given[day] and _from_text(given[day], types):
            out.append(f"the reads on={on} (the ranges, their counts and pages, the feed and "
                       f"the summaries) compare {day} as {given[day]}, a conversion of text "
                       f"that no index of the column can serve: without one of the kind "
                       f"below, each reads the whole table.")
            pair = {f: _QUALIFIER.sub("", e) for f, e in given.items()
                    if e and e.upper() != "NULL"}
            out += _serving(c, on, table, pair, dialect, db.queries.files[c.name].name)
    return out


def _serving(c: Collection, on: str, table: tuple[str, str], pair: dict[str, str],
             dialect: str | None, file: str) -> list[str]:
    """What a DBA can add so that an index serves the pair (field -> its expression), and
    what to map then in `file`, the collection's mapping file."""
    name = ".".join(f'"{p}"' for p in table if p)
    index = f'CREATE INDEX "jembatan_{c.name}_{on}" ON {name}'
    if dialect == "sqlite":
        return ["  On SQLite an index on the same expressions serves them, with no change "
                "to the mapping:", f"    {index} ({', '.join(pair.values())});"]
    made = [f for f, e in pair.items() if not _COLUMN.match(e.strip())]
    return ["  On SQL Server a DBA can add a PERSISTED computed column per converted field "
            "and an index on them (SQL Server persists a conversion of text only with an "
            "explicit style, such as CONVERT(date, column, 103) for dd/mm/yyyy):",
            *(f'    ALTER TABLE {name} ADD "jembatan_{f}" AS {pair[f]} PERSISTED;'
              for f in made),
            f"    {index} ("
            + ", ".join(f'"jembatan_{f}"' if f in made else e for f, e in pair.items()) + ");",
            "  then map " + " and ".join(f'"jembatan_{f}" AS "{f}"' for f in made)
            + f" in {file}"]
