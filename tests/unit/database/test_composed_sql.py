"""SQL composition (app/database/loading.py, queries.py, templates.py): each shipped query's
text, its placeholders filled and a request's filters put in, run on an in-memory SQLite
database of rows written here; its answer against the one computed from those rows. The main
text (SQL Server's) and SQLite's own both run on SQLite."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from typing import Any

import pytest

from app.database.filters import Filter
from app.database.queries import Queries
from app.database.templates import Where
from app.model.collections import COLLECTIONS
from app.model.params import rows as window
from tests.unit.rows import fill

FIELDS = ("id", "ProductCode", "ProductName", "Unit", "Remark")
PRODUCTS = [{"id": i, "ProductCode": code, "ProductName": f"Product {i}", "Unit": unit}
            for i, code, unit in [(4, "TBS", "kg"), (1, "CPO", "kg"), (None, "PKO", None),
                                  (3, "KER", "ton"), (2, "SHL", "kg"), (6, "EFB", None)]]
DIALECTS = (None, "sqlite")


def ordered(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Canonical order: no ID first, then by ID."""
    return [tuple(r.get(f) for f in FIELDS)
            for r in sorted(records, key=lambda r: (r["id"] is not None, r["id"] or 0))]


def run(con: sqlite3.Connection, queries: Queries, name: str, dialect: str | None,
        filters: list[Filter], values: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """The products query `name` composed with these filters, its parameters bound by name."""
    where = Where.of(filters)
    query = queries.get("products", name, dialect, where)
    bound = dict(values or {}) | (where.values if where else {})
    assert query.sql.count("?") == len(query.params)
    return con.execute(query.sql, [bound[p] for p in query.params]).fetchall()


@pytest.fixture
def products(memory: sqlite3.Connection) -> sqlite3.Connection:
    return fill(memory, {"products": PRODUCTS})


KG = Filter("Unit", "", ("kg",))
FILTERS = [[], [KG], [KG, Filter("id", "gt", (1,))], [Filter("Unit", "isnull", (True,))],
           [Filter("ProductCode", "in", ("CPO", "KER", "XXX")), Filter("Unit", "not", ("kg",))]]
MEANS = [lambda r: True, lambda r: r["Unit"] == "kg",
         lambda r: r["Unit"] == "kg" and r["id"] is not None and r["id"] > 1,
         lambda r: r["Unit"] is None,
         lambda r: r["ProductCode"] in ("CPO", "KER") and r["Unit"] != "kg"]
CASES = list(zip(range(len(FILTERS)), FILTERS, MEANS, strict=True))


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("case", "filters", "means"), CASES)
def test_all_and_count(products: sqlite3.Connection, queries: Queries, dialect: str | None,
                       case: int, filters: list[Filter], means: Any) -> None:
    chosen = [r for r in PRODUCTS if means(r)]
    assert run(products, queries, "all", dialect, filters) == ordered(chosen)
    assert run(products, queries, "count", dialect, filters) == [(len(chosen),)]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("skip", "size"), [(0, 2), (1, 3), (5, 5), (9, 1)])
def test_a_page(products: sqlite3.Connection, queries: Queries, dialect: str | None,
                skip: int, size: int) -> None:
    got = run(products, queries, "page", dialect, [], window(skip, size))
    assert got == ordered(PRODUCTS)[skip:skip + size]


def test_the_filters_are_bound_never_written_in_the_text(queries: Queries) -> None:
    where = Where.of([Filter("ProductCode", "in", ("A'; DROP TABLE x; --", "B")), KG])
    assert where is not None
    query = queries.get("products", "all", None, where)
    assert "DROP" not in query.sql and "kg" not in query.sql
    assert [where.values[p] for p in query.params] == ["A'; DROP TABLE x; --", "B", "kg"]


@pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.name)
def test_every_main_text_is_filled_in(queries: Queries, c: Any) -> None:
    """No placeholder is left in a query as sent, nor any of the words SQL Server 2008 R2
    lacks, in the main texts (SQL Server's)."""
    for name in c.query_names():
        text = queries.get(c.name, name, None).sql
        assert not re.search(r"\{[a-z_]+[}:]", text), (c.name, name)
        assert not re.search(r"\b(LIMIT|OFFSET|FETCH|CONCAT|FORMAT)\b", text, re.I), (c.name, name)
