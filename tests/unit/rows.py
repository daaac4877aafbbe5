"""Rows for the unit tier: the embedded tables (app/model/tables.py) holding exactly the rows a
test writes, in memory or in a SQLite file; the collections by name."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from app.model import tables
from app.model.collections import COLLECTIONS, Collection

Rows = Mapping[str, Sequence[Mapping[str, Any]]]


def collection(name: str) -> Collection:
    """The collection of that name (app/model/collections.py)."""
    return next(c for c in COLLECTIONS if c.name == name)


def fill(con: sqlite3.Connection, rows: Rows) -> sqlite3.Connection:
    """The embedded tables (app/model/tables.py) created on `con`, holding exactly `rows`."""
    con.executescript(tables.script("sqlite"))
    for table, records in rows.items():
        for record in records:
            names = ", ".join(f'"{n}"' for n in record)
            marks = ", ".join("?" for _ in record)
            con.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', list(record.values()))
    con.commit()
    return con


def database_file(path: Path, rows: Rows) -> Path:
    """A SQLite file at `path` with the embedded tables holding exactly `rows`."""
    fill(sqlite3.connect(path), rows).close()
    return path
