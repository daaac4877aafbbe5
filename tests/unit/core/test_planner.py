"""The planner (app/core/plan.py): what a client asks, as plain values, in; the planned `Read`
out, read back as plain values (its query's name, filters, window, numbering)."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.plan import Planner
from app.database.filters import Filter
from app.model.problems import Absent, Invalid
from tests.unit.rows import collection


def planned(read: Any) -> dict[str, Any]:
    """A read as plain values: what the runner is told to do."""
    window = read.window and (read.window.skip, read.window.size,
                              read.window.count and str(read.window.count))
    return {"collection": read.collection, "query": str(read.query), "values": dict(read.values),
            "filters": read.filters, "numbered": read.numbered, "window": window,
            "absent": read.absent, "whole": read.whole}


def expected(collection: str, query: str, **given: Any) -> dict[str, Any]:
    return {"collection": collection, "query": query, "values": {}, "filters": (),
            "numbered": False, "window": None, "absent": "", "whole": False} | given


CITY = Filter("City", "", ("Lumajang",))


@pytest.mark.parametrize(("filters", "numbered"), [((), True), ((CITY,), False)])
def test_all_is_numbered_only_without_filters(filters: tuple[Filter, ...], numbered: bool
                                              ) -> None:
    read = Planner(collection("customers")).all(filters)
    assert planned(read) == expected("customers", "all", filters=filters, numbered=numbered)


@pytest.mark.parametrize(("skip", "size"), [(0, 1), (40, 20), (2**40, 1000)])
def test_a_part_is_a_counted_window(skip: int, size: int) -> None:
    read = Planner(collection("products")).part(skip, size, [CITY])
    assert planned(read) == expected("products", "page", filters=(CITY,),
                                     window=(skip, size, "count"))


def test_one_by_key_reads_the_first_record_of_that_id() -> None:
    read = Planner(collection("customers")).one("17")
    assert planned(read) == expected("customers", "by_key", values={"key": 17},
                                     absent="no customers record with ID 17")


def test_one_of_a_numbered_collection_is_the_nth_record_of_the_order() -> None:
    read = Planner(collection("weighing")).one("5")
    assert planned(read) == expected("weighing", "page", numbered=True, window=(4, 1, None),
                                     absent="no weighing record with numberrow 5")


@pytest.mark.parametrize(("name", "key"), [("customers", "abc"), ("customers", "1.5"),
                                           ("weighing", "0"), ("weighing", "-3")])
def test_a_key_that_is_no_integer_or_position_is_invalid(name: str, key: str) -> None:
    with pytest.raises(Invalid):
        Planner(collection(name)).one(key)


def test_an_id_beyond_64_bits_is_absent_without_a_query() -> None:
    with pytest.raises(Absent, match="no customers record with ID"):
        Planner(collection("customers")).one(str(2**63))


def test_a_range_and_its_part() -> None:
    bounds = {"start_date": "2026-11-01", "end_date": "2026-11-02"}
    planner = Planner(collection("transactions"))
    assert planned(planner.range("dt1", bounds)) == expected(
        "transactions", "range_dt1", values=bounds)
    assert planned(planner.range("dt2", bounds, part=(10, 5))) == expected(
        "transactions", "range_dt2_page", values=bounds, window=(10, 5, "range_dt2_count"))


@pytest.mark.parametrize(("name", "on"), [("transactions", "tanggal"), ("customers", "dt1"),
                                          ("bricon2", "dt1")])
def test_a_range_on_a_pair_the_collection_lacks_is_invalid(name: str, on: str) -> None:
    with pytest.raises(Invalid, match=f"has no date pair '{on}'"):
        Planner(collection(name)).range(on, {})


CANCELLED_ALL = Filter("cancelled", "", (None,))
NOT_CANCELLED = Filter("cancelled", "", (False,))
ONLY_CANCELLED = Filter("cancelled", "", (True,))


@pytest.mark.parametrize(("given", "leave_out", "run"), [
    ((), False, ()),
    ((), True, (NOT_CANCELLED,)),
    ((CANCELLED_ALL,), True, ()),  # cancelled=all: no filter, and no default either
    ((CANCELLED_ALL,), False, ()),
    ((ONLY_CANCELLED,), True, (ONLY_CANCELLED,)),
    ((CITY,), True, (CITY, NOT_CANCELLED)),
])
def test_the_cancelled_records_as_run(given: tuple[Filter, ...], leave_out: bool,
                                      run: tuple[Filter, ...]) -> None:
    assert Planner(collection("transactions")).asked(given, leave_out) == run


def test_a_collection_without_cancelled_runs_the_filters_as_given() -> None:
    assert Planner(collection("customers")).asked([CITY], leave_out=True) == (CITY,)


def test_the_feed_reads_whole_with_the_clock_beside() -> None:
    values = {"start_date": "2026-11-01"}
    read = Planner(collection("transactions")).changes("update", values, [CITY, CITY])
    assert planned(read) == expected("transactions", "changes_update", values=values,
                                     filters=(CITY,), whole=True)
    assert read.also == ("feed_now",)
