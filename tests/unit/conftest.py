"""The unit tier's fixtures: the shipped queries and an in-memory SQLite database. No server,
no app: the core, the database layer and the model called with plain values (tests/unit/rows.py
writes the rows)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from app.database.loading import load_queries
from app.database.queries import Queries
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR


@pytest.fixture(scope="session")
def queries() -> Queries:
    """Every collection's queries, from the shipped sql/."""
    return load_queries(SHIPPED_SQL_DIR, COLLECTIONS, SHIPPED_SQL_DIR)


@pytest.fixture
def memory() -> Iterator[sqlite3.Connection]:
    """An empty in-memory SQLite database, closed at the end."""
    con = sqlite3.connect(":memory:")
    yield con
    con.close()
