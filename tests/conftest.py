"""Fixtures: a real SQLite file built from rows written in each test, served through
Python's sqlite3 and through pyodbc with the SQLite ODBC driver (Debian libsqliteodbc)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from app import create_app

SCHEMA = Path(__file__).resolve().parent.parent / "app" / "schema.sql"
ENGINES = ("sqlite3", "odbc")


def build_database(path: Path, tables: Mapping[str, list[dict[str, Any]]]) -> Path:
    """A SQLite file with the embedded schema and exactly these rows."""
    con = sqlite3.connect(path)
    con.executescript(SCHEMA.read_text())
    for table, rows in tables.items():
        for row in rows:
            names = ", ".join(f'"{n}"' for n in row)
            marks = ", ".join("?" for _ in row)
            con.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', list(row.values()))
    con.commit()
    con.close()
    return path


def odbc_string(path: Path) -> str:
    # StepAPI=1 streams rows instead of loading the whole result at execute().
    return f"Driver=SQLite3;Database=file:{path}?mode=ro;StepAPI=1"


def database_settings(engine: str, path: Path) -> dict[str, Any]:
    return {"sqlite": str(path)} if engine == "sqlite3" else {"odbc": odbc_string(path)}


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


MakeClient = Callable[..., FlaskClient]


@pytest.fixture
def make_client(tmp_path: Path, engine: str) -> MakeClient:
    """make_client({"weighing": [row, ...]}, api={"page_size": 2}) -> a Flask test client."""
    counter = itertools.count()

    def make(tables: Mapping[str, list[dict[str, Any]]], **settings: Any) -> FlaskClient:
        path = build_database(tmp_path / f"db{next(counter)}.sqlite3", tables)
        database = database_settings(engine, path) | settings.pop("database", {})
        app = create_app({"database": database, **settings})
        return app.test_client()

    return make
