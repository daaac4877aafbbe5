"""The one translation of a question into a read (app/core/question.py): the filters of a
query string as `ask` takes them, and the order in which `ask` reads what it was sent."""

from __future__ import annotations

import pytest

from app.core.filtering import Filter, accepted_filters
from app.core.plan import Planner
from app.core.question import Asked, Question, ask, query_filters
from app.model.collections import COLLECTIONS
from app.model.problems import Invalid

WORDS = Asked("request", "{argument} takes true or false; got {got}")
WEIGHING = next(c for c in COLLECTIONS if c.name == "weighing")


def test_the_filters_of_a_query_string_leave_out_the_routes_own_and_join_in() -> None:
    args = [("page_size", ["20"]), ("_", ["1"]), ("vehno__in", ["A,B", "C"]),
            ("id__gt", ["3"]), ("vehno", ["B 1"])]
    assert query_filters(("page_size", "fields"), args) == [
        ("vehno", "in", ["A", "B", "C"], "vehno__in"), ("id", "gt", ("3",), "id__gt"),
        ("vehno", "", ("B 1",), "vehno")]


@pytest.mark.parametrize(("question", "argument"), [
    (Question("page", [("id", "gt", ("abc",), "id__gt")], window=(0, 20), page="x"),
     "id__gt"),
    (Question("page", [("id", "gt", ("3",), "id__gt")], window=(0, 20), page="x"),
     "pagenumber"),
    (Question("range", [("id", "", ("abc",), "id")], on=WEIGHING.dates[0],
              dates=("2026-13-01", "00:00", "2026-11-02", "00:00")), "id"),
    (Question("range", [], on=WEIGHING.dates[0],
              dates=("2026-13-01", "00:00", "2026-11-02", "00:00")), "tglawal"),
])
def test_ask_reads_the_filters_first(question: Question, argument: str) -> None:
    planner = Planner(WEIGHING)
    with pytest.raises(Invalid) as caught:
        ask(planner, accepted_filters(WEIGHING.schema, WEIGHING.fields), question, WORDS)
    assert str(caught.value).startswith(f"{argument} "), caught.value  # it names the argument


def test_a_page_number_asks_its_window_with_the_filters_read() -> None:
    planner = Planner(WEIGHING)
    kinds = accepted_filters(WEIGHING.schema, WEIGHING.fields)
    read = ask(planner, kinds, Question("page", [("id", "gt", ("3",), "id__gt")],
                                        window=(0, 20), page="3"), WORDS)
    assert read == planner.part(40, 20, (Filter("id", "gt", (3,)),))
