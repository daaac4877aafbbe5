"""The opt-in `mssql` engine: a real SQL Server named by JEMBATAN_TEST_MSSQL (an ODBC
connection string; see the top of tests/sql/mssql.sql). Without it the engine is not
collected. SQL Server has no per-session search_path, so tests are isolated by dropping and
creating the ten tables again before each test's rows go in: a database for the tests alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.postgres import insert_rows, parse_ddl

ENV = "JEMBATAN_TEST_MSSQL"
SCHEMA_SQL = Path(__file__).resolve().parent / "sql" / "mssql.sql"


def connection_string() -> str | None:
    return os.environ.get(ENV, "").strip() or None


def script_statements(text: str) -> list[str]:
    """The statements of a script: comment lines dropped, split at the ';' ending a line."""
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in re.split(r";\s*$", code, flags=re.M) if s.strip()]


class Server:
    """The SQL Server of JEMBATAN_TEST_MSSQL, holding one test's rows at a time."""

    def __init__(self, odbc: str):
        self.odbc = odbc
        text = SCHEMA_SQL.read_text(encoding="utf-8")
        self.tables = parse_ddl(text)
        self.create = script_statements(text)
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
