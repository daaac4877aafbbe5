"""A collection's query names (app/model/collections.py QueryName) and the window's bound
values (app/model/params.py rows), as plain values."""

from __future__ import annotations

import pytest

from app.model.collections import COLLECTIONS, DATE_PAIRS, QueryName
from app.model.params import rows

NAMES = [(QueryName("all"), "all"), (QueryName("by_key"), "by_key"),
         (QueryName("range", "dt1"), "range_dt1"),
         (QueryName("range_page", "dt1"), "range_dt1_page"),
         (QueryName("range_count", "tanggal"), "range_tanggal_count"),
         (QueryName("changes_within", "update"), "changes_update_within"),
         (QueryName("changes_walked", "create"), "changes_create_walked")]


@pytest.mark.parametrize(("name", "text"), NAMES)
def test_a_name_as_written_and_read_back(name: QueryName, text: str) -> None:
    assert (str(name), QueryName.parse(text)) == (text, name)


def test_every_read_of_every_collection_reads_back_as_itself() -> None:
    for c in COLLECTIONS:
        for name, _ in c.reads():
            assert QueryName.parse(str(name)) == name
            assert name.on is None or name.on in c.dates and name.on in DATE_PAIRS


def test_a_name_of_no_pair_is_its_own_kind() -> None:
    assert QueryName.parse("range_nowhere_page") == QueryName("range_nowhere_page")


@pytest.mark.parametrize(("skip", "size"), [(0, 1), (40, 20), (999, 1000)])
def test_a_window_as_row_numbers_and_as_limit_offset(skip: int, size: int) -> None:
    assert rows(skip, size) == {"first_row": skip + 1, "last_row": skip + size,
                                "row_count": size, "skip": skip}
