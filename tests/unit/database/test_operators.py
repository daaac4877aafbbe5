"""The filter operators (app/database/filters.py OPERATORS): each one's condition run on an
in-memory SQLite table, against what the operator means, written here in Python."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from app.database.filters import OPERATORS, Filter, picks_text

VALUES = [None, -2.5, 0, 3, 3, 7.25, 12]
# What each operator keeps, given the column's value and the filter's values.
MEANING: dict[str, Callable[[Any, Sequence[Any]], bool]] = {
    "": lambda v, given: v is not None and v == given[0],
    "not": lambda v, given: v is None or v != given[0],  # NULL included
    "gt": lambda v, given: v is not None and v > given[0],
    "gte": lambda v, given: v is not None and v >= given[0],
    "lt": lambda v, given: v is not None and v < given[0],
    "lte": lambda v, given: v is not None and v <= given[0],
    "in": lambda v, given: v in given and v is not None,
    "isnull": lambda v, given: (v is None) == given[0],
}
ASKED = {"": [(3,), (5,)], "not": [(3,), (-2.5,)], "gt": [(3,), (-100,)], "gte": [(3,)],
         "lt": [(7.25,)], "lte": [(7.25,), (-2.5,)], "in": [(3, 12), (0,), (5, 6, 7)],
         "isnull": [(True,), (False,)]}


def kept(con: sqlite3.Connection, f: Filter) -> list[Any]:
    """The table's values where the filter's condition holds, in insertion order."""
    operator = OPERATORS[f.op]
    bound = () if operator.form.boolean or picks_text(f.values) else f.values  # no binding
    condition = operator.condition('"v"', ["?"] * len(bound), f.values)
    return [r[0] for r in con.execute(f'SELECT "v" FROM "t" WHERE {condition} ORDER BY "n"',
                                      bound)]


@pytest.fixture
def table(memory: sqlite3.Connection) -> sqlite3.Connection:
    memory.execute('CREATE TABLE "t" ("n" INTEGER, "v" REAL)')
    memory.executemany('INSERT INTO "t" VALUES (?, ?)', enumerate(VALUES))
    return memory


def test_every_operator_has_its_meaning_here() -> None:
    assert set(OPERATORS) == set(MEANING) == set(ASKED)


@pytest.mark.parametrize(("op", "given"), [(op, g) for op, gs in ASKED.items() for g in gs])
def test_the_condition_keeps_what_the_operator_means(table: sqlite3.Connection, op: str,
                                                     given: tuple[Any, ...]) -> None:
    assert kept(table, Filter("v", op, given)) == [v for v in VALUES if MEANING[op](v, given)]


@pytest.mark.parametrize(("truth", "expected"), [(True, [1.0]), (False, [0.0, None])])
def test_a_condition_field_equal_to_true_or_false(memory: sqlite3.Connection, truth: bool,
                                                  expected: list[Any]) -> None:
    """A condition's field (1 or 0) asked true or false: a NULL counts as false; 2 is
    neither."""
    memory.execute('CREATE TABLE "t" ("n" INTEGER, "v" REAL)')
    memory.executemany('INSERT INTO "t" VALUES (?, ?)', enumerate([1, 0, None, 2]))
    assert kept(memory, Filter("v", "", (truth,))) == expected


def test_a_filter_shape_is_what_its_text_depends_on() -> None:
    assert Filter("v", "in", (1, 2, 3)).shape() == ("v", "in", 3)
    assert Filter("v", "isnull", (False,)).shape() == ("v", "isnull", 0)
    assert Filter("v", "", (True,)).shape() == ("v", "", 1)
    assert Filter("v", "", (7,)).shape() == ("v", "", 1)
