"""The runner (app/core/reads.py): a planned read run on a real SQLite file of the rows each
test writes; the answer's values, and the count of a window, computed from those rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.plan import Planner
from app.core.reads import WHOLE_ROWS, Runner
from app.database.db import Database
from app.database.filters import Filter
from app.database.queries import Queries
from app.model.problems import Absent
from app.ops.config import load_settings
from tests.unit.rows import Rows, collection, database_file

FIELDS = ("id", "CustCode", "CustName", "Address", "City", "Phone", "Contact", "Remark")
# Stored out of order, an ID repeated and one missing: the canonical order is the ID's,
# a record without one first.
CUSTOMERS = [{"id": i, "CustCode": f"C{i:03d}", "CustName": f"Customer {i}",
              "City": ("Lumajang", "Malang", None)[i % 3]} for i in (5, 2, 9, 2, 7, 1, 3)]
CUSTOMERS.append({"id": None, "CustCode": "C---", "City": "Malang"})


def as_sent(record: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(record.get(f) for f in FIELDS)


def in_order(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The records in the canonical order: no ID first, then by ID (ties as stored)."""
    return [as_sent(r) for r in sorted(records, key=lambda r: (r["id"] is not None,
                                                               r["id"] or 0))]


def runner(tmp_path: Path, queries: Queries, rows: Rows) -> Runner:
    settings = load_settings({"database": {"sqlite": str(database_file(
        tmp_path / "db.sqlite3", rows))}}).database
    return Runner(Database(settings, queries))


def test_all_of_them_in_the_canonical_order(tmp_path: Path, queries: Queries) -> None:
    rows = runner(tmp_path, queries, {"customers": CUSTOMERS}).run(
        Planner(collection("customers")).all())
    assert (rows.values, rows.total, rows.stream) == (in_order(CUSTOMERS), None, None)


@pytest.mark.parametrize(("skip", "size"), [(0, 3), (2, 4), (6, 10), (8, 1), (100, 5)])
def test_a_part_of_the_filtered_ones_and_their_count(tmp_path: Path, queries: Queries,
                                                     skip: int, size: int) -> None:
    chosen = [r for r in CUSTOMERS if r.get("City") == "Malang"]
    rows = runner(tmp_path, queries, {"customers": CUSTOMERS}).run(
        Planner(collection("customers")).part(skip, size, [Filter("City", "", ("Malang",))]))
    assert (rows.values, rows.total) == (in_order(chosen)[skip:skip + size], len(chosen))


def test_one_by_key_is_the_first_stored_of_that_id(tmp_path: Path, queries: Queries
                                                   ) -> None:
    twice = [{"id": 4, "CustCode": "FIRST"}, {"id": 4, "CustCode": "SECOND"}]
    rows = runner(tmp_path, queries, {"customers": twice}).run(
        Planner(collection("customers")).one("4"))
    assert rows.values == [as_sent(twice[0])]


def test_one_that_is_not_there_is_absent(tmp_path: Path, queries: Queries) -> None:
    run = runner(tmp_path, queries, {"customers": CUSTOMERS})
    with pytest.raises(Absent, match="no customers record with ID 4"):
        run.run(Planner(collection("customers")).one("4"))


def test_a_large_list_is_left_open_to_stream(tmp_path: Path, queries: Queries) -> None:
    many = [{"id": i, "CustCode": f"C{i}"} for i in range(WHOLE_ROWS + 1, 0, -1)]
    rows = runner(tmp_path, queries, {"customers": many}).run(
        Planner(collection("customers")).all())
    assert rows.values == [] and rows.stream is not None and rows.first == 1
    streamed = [row for batch in rows.stream.batches() for row in batch]
    assert [r[:2] for r in streamed] == [(r["id"], r["CustCode"]) for r in reversed(many)]
