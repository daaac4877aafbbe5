"""The ten tables as the embedded database, the demo and the tests create them, generated from
the record shapes (app/model/schemas.py) and the collection table (app/model/collections.py).

This module only composes DDL, mechanically, for the databases Jembatan makes itself: the
demo SQLite file (app/commands/demo.py), the tests' SQLite files and their PostgreSQL and SQL Server
fixture tables. A site's own database is never created or altered: there the queries of
`sql/` map Jembatan's fields onto whatever tables the site has.

A table is a collection: its columns are the collection's stored fields (`Collection.fields`)
in that order, each typed by its field's kind, but for `cancelled`: the plant's tables, as the
service description lists their fields, have no void marker, so the weighings' `cancelled` is
a condition the site's mapping derives (the shipped `sql/` gives 0). With `voids` the weighing
tables get the column the demo keeps its voided tickets in, `cancelled` (1 voided), which a
mapping reads as `"cancelled" AS "cancelled"` (docs/adapting.md, "Cancelled tickets").

Its indexes (one on the canonical order, one per date range: date, time, then the rest of
the canonical order) let pages walk an index and date ranges seek one instead of scanning the
table (docs/adapting.md, "Indexes to ask your DBA for").
"""

from __future__ import annotations

from typing import NamedTuple

from marshmallow import fields

from .collections import CANCELLED, COLLECTIONS, DATE_PAIRS
from .schemas import Boolean, Date, Integer, Number, String, Time

DIALECTS = ("sqlite", "postgresql", "mssql")

# A field's kind -> its column type per dialect ("str" is formatted with the field's length).
# SQLite stores dates and times as ISO text and keeps whatever the type says as affinity only.
# PostgreSQL: DOUBLE PRECISION, since its REAL is 4 bytes and would round 123456789.125.
# SQL Server (2008 R2 and later): float is 8 bytes; time(6) keeps the microseconds the tests
# send; nvarchar for text. A condition (`bool`, the weighings' `cancelled`) is 1 or 0: bit on
# SQL Server, a small integer elsewhere.
_TYPES: dict[str, dict[str, str]] = {
    "sqlite": {"int": "INTEGER", "num": "REAL", "str": "VARCHAR({})", "date": "DATE",
               "time": "TIME", "bool": "INTEGER"},
    "postgresql": {"int": "INTEGER", "num": "DOUBLE PRECISION", "str": "VARCHAR({})",
                   "date": "DATE", "time": "TIME", "bool": "SMALLINT"},
    "mssql": {"int": "int", "num": "float", "str": "nvarchar({})", "date": "date",
              "time": "time(6)", "bool": "bit"},
}
# The `id` column (every table's but bricon2) is 64 bits on PostgreSQL, as the hand-written
# script of the PostgreSQL test cluster had it; elsewhere it is an int like the others.
_ID_TYPES = {"postgresql": "BIGINT"}

# Matched on the exact class, as app/formats/encoding.py does: a subclass could write other values.
_KINDS: dict[type[fields.Field], str] = {Integer: "int", Number: "num", String: "str",
                                         Date: "date", Time: "time", Boolean: "bool"}


class Index(NamedTuple):
    name: str
    table: str
    columns: tuple[str, ...]


def quote(name: str) -> str:
    """A double-quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _check(dialect: str) -> None:
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}: one of {', '.join(DIALECTS)}")


def _column_type(dialect: str, name: str, field: fields.Field) -> str:
    kind = _KINDS.get(type(field))
    if kind is None:
        raise TypeError(f"{name}: no column type for a {type(field).__name__} field")
    if kind == "int" and name == "id" and dialect in _ID_TYPES:
        return _ID_TYPES[dialect]
    sql_type = _TYPES[dialect][kind]
    return sql_type.format(field.length) if isinstance(field, String) else sql_type


def column_types(dialect: str, voids: bool = False) -> dict[str, dict[str, str]]:
    """{table: {column: SQL type}} in `dialect` ("sqlite", "postgresql" or "mssql"): the
    tables in COLLECTIONS order, the columns in the order of the collection's stored fields,
    `cancelled` only with `voids` (the demo's void column)."""
    _check(dialect)
    out: dict[str, dict[str, str]] = {}
    for c in COLLECTIONS:
        declared = c.schema._declared_fields
        out[c.name] = {f: _column_type(dialect, f, declared[f]) for f in c.fields
                       if voids or f != CANCELLED}
    return out


# The filters a plant runs on whole lists (docs/adapting.md, "Indexes to ask your DBA for"): a
# truck's
# weighings, a supplier's deliveries, a material. Each index ends with the canonical order, so
# that the filtered list needs no sort.
FILTERED = ("vehno", "custcode", "productcode")


def indexes() -> list[Index]:
    """Per table, `<table>_order` on the canonical order, then `<table>_<on>` per `on` value
    on (date, time, the rest of the canonical order): the order a range is read in. A range
    index with the same columns as the order index is left out (bricon2's `tanggal`). The
    weighing tables also get `<table>_<field>` on (field, the canonical order) per FILTERED
    field."""
    out: list[Index] = []
    for c in COLLECTIONS:
        order = Index(f"{c.name}_order", c.name, tuple(c.order))
        out.append(order)
        for on in c.dates:
            pair = DATE_PAIRS[on]
            columns = pair + tuple(f for f in c.order if f not in pair)
            if columns != order.columns:
                out.append(Index(f"{c.name}_{on}", c.name, columns))
        out += [Index(f"{c.name}_{f}", c.name, (f, *c.order)) for f in FILTERED
                if f in c.fields]
    return out


def table_statements(dialect: str, voids: bool = False) -> list[str]:
    """The CREATE TABLE statement of each table, without a final ';' (`voids`: with the
    demo's void column)."""
    return [f"CREATE TABLE {quote(table)} (\n"
            + ",\n".join(f"    {quote(name)} {sql_type}" for name, sql_type in columns.items())
            + "\n)"
            for table, columns in column_types(dialect, voids).items()]


def index_statements(dialect: str) -> list[str]:
    """The CREATE INDEX statement of each index, without a final ';' (the same text in every
    dialect; `dialect` is checked all the same)."""
    _check(dialect)
    return [f"CREATE INDEX {quote(i.name)} ON {quote(i.table)} ("
            + ", ".join(quote(c) for c in i.columns) + ")"
            for i in indexes()]


def statements(dialect: str, indexes: bool = True, voids: bool = False) -> list[str]:
    """Every CREATE TABLE, then (with `indexes`) every CREATE INDEX, without final ';'s."""
    return table_statements(dialect, voids) + (index_statements(dialect) if indexes else [])


def script(dialect: str, indexes: bool = True, voids: bool = False) -> str:
    """The statements as one script, each ended by ';' (what sqlite3's executescript runs)."""
    return ";\n".join(statements(dialect, indexes, voids)) + ";\n"
