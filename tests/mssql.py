"""The opt-in `mssql` engine: a real SQL Server (2008 R2 and later) named by
JEMBATAN_TEST_MSSQL, so that every HTTP test also runs the main text of each query there, as
production does. Without the variable the engine is not collected at all.

How to run it: an empty database that a login may create and drop tables in, then::

    JEMBATAN_TEST_MSSQL='Driver={ODBC Driver 18 for SQL Server};Server=...;\
    Database=jembatan_test;UID=...;PWD=...;TrustServerCertificate=yes' make test

(FreeTDS works too: Driver=FreeTDS;TDS_Version=7.3;...). SQL Server has no per-session
search_path, so tests are isolated by dropping the ten tables and creating them again
(app/tables.py's SQL Server DDL: date, time(6), float, int, nvarchar; no indexes, a test holds
a handful of rows) before each test's rows go in: the database must be one for the tests
alone, and two test runs must not share it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from app import tables
from tests.postgres import insert_rows

ENV = "JEMBATAN_TEST_MSSQL"


def connection_string() -> str | None:
    return os.environ.get(ENV, "").strip() or None


class Server:
    """The SQL Server of JEMBATAN_TEST_MSSQL, holding one test's rows at a time."""

    def __init__(self, odbc: str):
        self.odbc = odbc
        self.tables = tables.column_types("mssql")
        self.create = tables.table_statements("mssql")
        self._conn: Any = None
        self.loaded: Any = None  # the rows last loaded, so that ensure() can skip a reload

    def open(self) -> None:
        if self._conn is None:
            import pyodbc

            self._conn = pyodbc.connect(self.odbc, autocommit=True)

    def _cursor(self) -> Any:
        self.open()
        return self._conn.cursor()

    def load(self, tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        """Drop the ten tables, create them empty and insert these rows."""
        cursor = self._cursor()
        for table in self.tables:
            # 2008 R2 has no DROP TABLE IF EXISTS.
            cursor.execute(f"IF OBJECT_ID(N'{table}', N'U') IS NOT NULL DROP TABLE \"{table}\"")
        for statement in self.create:
            cursor.execute(statement)
        for table, rows in tables.items():
            insert_rows(cursor, f'"{table}"', self.tables[table], rows, time_as_text=True,
                        cast=lambda sql_type: sql_type)
        cursor.close()
        self.loaded = _frozen(tables)

    def ensure(self, tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        """Load these rows unless they are what the tables hold already."""
        if self.loaded != _frozen(tables):
            self.load(tables)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _frozen(tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> Any:
    return repr(sorted((t, [sorted(r.items()) for r in rows]) for t, rows in tables.items()))
