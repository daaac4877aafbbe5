"""GET /<c>/page/{pagenumber}: one page in canonical order, with flask-smorest's
X-Pagination header and an RFC 8288 Link header (docs/api.md §5.3, §9)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import create_app
from tests.conftest import (
    FILE_ENGINES,
    arguments_client,
    build_database,
    database_settings,
    insert_rows,
)
from tests.contract import COLLECTIONS
from tests.helpers import error, links, records, sample_row

SMALL = {"api": {"page_size": 2, "max_page_size": 3}}
HUGE = "99999999999999999999999"


def page(client: Any, url: str) -> dict[str, Any]:
    """Everything a client relies on in a page answer."""
    response = client.get(url)
    pagination = response.headers.get("X-Pagination")
    return {
        "status": response.status_code,
        "type": response.mimetype,
        "body": response.get_json(),
        "X-Pagination": None if pagination is None else json.loads(pagination),
        "Link": links(response),
    }


def page_url(collection: str, n: int, page_size: int | None = None) -> str:
    query = "" if page_size is None else f"?page_size={page_size}"
    return f"http://localhost/{collection}/page/{n}{query}"


def answer(body: list[dict[str, Any]], pagination: dict[str, int],
           rels: dict[str, str]) -> dict[str, Any]:
    return {"status": 200, "type": "application/json", "body": body,
            "X-Pagination": pagination, "Link": rels}


# The tests of one collection share a database per engine (the `shared` fixture) holding the
# rows of that test for every collection: each test reads its own collection's alone. The
# page arguments answered 400 before any query is built share one client on SQLite.


@pytest.fixture(scope="module")
def rejects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return arguments_client(tmp_path_factory, {c: [sample_row(c, 1)] for c in COLLECTIONS},
                            **SMALL)


def five(collection: str) -> list[dict[str, Any]]:
    return [sample_row(collection, n) for n in (1, 2, 3, 4, 5)]


FIVE_ROWS = {"total": 5, "total_pages": 3, "first_page": 1, "last_page": 3}


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_pages_first_middle_last_and_beyond(shared, collection):
    client = shared({c: five(c)[::-1] for c in COLLECTIONS}, **SMALL)
    rows = five(collection)
    first, last = page_url(collection, 1), page_url(collection, 3)

    assert page(client, f"/{collection}/page/1") == answer(
        records(collection, rows[0:2], first=1),
        FIVE_ROWS | {"page": 1, "next_page": 2},
        {"first": first, "last": last, "next": page_url(collection, 2)})
    assert page(client, f"/{collection}/page/2") == answer(
        records(collection, rows[2:4], first=3),
        FIVE_ROWS | {"page": 2, "previous_page": 1, "next_page": 3},
        {"first": first, "last": last, "prev": page_url(collection, 1),
         "next": page_url(collection, 3)})
    assert page(client, f"/{collection}/page/3") == answer(
        records(collection, rows[4:5], first=5),
        FIVE_ROWS | {"page": 3, "previous_page": 2},
        {"first": first, "last": last, "prev": page_url(collection, 2)})
    assert page(client, f"/{collection}/page/4") == answer(
        [], FIVE_ROWS, {"first": first, "last": last})


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_single_page_has_no_prev_or_next(shared, collection):
    client = shared({c: [sample_row(c, n) for n in (1, 2)] for c in COLLECTIONS}, **SMALL)
    rows = [sample_row(collection, n) for n in (1, 2)]
    only = page_url(collection, 1)
    assert page(client, f"/{collection}/page/1") == answer(
        records(collection, rows),
        {"total": 2, "total_pages": 1, "first_page": 1, "last_page": 1, "page": 1},
        {"first": only, "last": only})


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_empty_collection_pages_are_empty_with_zero_totals(shared, collection):
    client = shared({}, **SMALL)
    for n in (1, 2):
        assert page(client, f"/{collection}/page/{n}") == answer(
            [], {"total": 0, "total_pages": 0}, {})


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_page_size_query_changes_the_page_and_is_kept_in_links(shared, collection):
    client = shared({c: five(c) for c in COLLECTIONS}, **SMALL)
    rows = five(collection)

    assert page(client, f"/{collection}/page/2?page_size=3") == answer(
        records(collection, rows[3:5], first=4),
        {"total": 5, "total_pages": 2, "first_page": 1, "last_page": 2, "page": 2,
         "previous_page": 1},
        {"first": page_url(collection, 1, 3), "last": page_url(collection, 2, 3),
         "prev": page_url(collection, 1, 3)})
    assert page(client, f"/{collection}/page/3?page_size=1") == answer(
        records(collection, rows[2:3], first=3),
        {"total": 5, "total_pages": 5, "first_page": 1, "last_page": 5, "page": 3,
         "previous_page": 2, "next_page": 4},
        {"first": page_url(collection, 1, 1), "last": page_url(collection, 5, 1),
         "prev": page_url(collection, 2, 1), "next": page_url(collection, 4, 1)})
    # The configured default, sent explicitly, is echoed in the links too.
    assert page(client, f"/{collection}/page/1?page_size=2")["Link"] == {
        "first": page_url(collection, 1, 2), "last": page_url(collection, 3, 2),
        "next": page_url(collection, 2, 2)}


def test_default_page_size_is_100(make_client):
    rows = [sample_row("weighing", n) for n in range(1, 151)]
    client = make_client({"weighing": rows})
    first, last = page_url("weighing", 1), page_url("weighing", 2)
    totals = {"total": 150, "total_pages": 2, "first_page": 1, "last_page": 2}

    one = page(client, "/weighing/page/1")
    assert [r["numberrow"] for r in one["body"]] == list(range(1, 101))
    assert one == answer(records("weighing", rows[:100], first=1),
                         totals | {"page": 1, "next_page": 2},
                         {"first": first, "last": last, "next": last})
    two = page(client, "/weighing/page/2")
    assert [r["numberrow"] for r in two["body"]] == list(range(101, 151))
    assert two == answer(records("weighing", rows[100:], first=101),
                         totals | {"page": 2, "previous_page": 1},
                         {"first": first, "last": last, "prev": first})


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_huge_pagenumber_is_an_empty_page(shared, collection):
    client = shared({c: five(c) for c in COLLECTIONS}, **SMALL)
    assert page(client, f"/{collection}/page/{HUGE}") == answer(
        [], FIVE_ROWS, {"first": page_url(collection, 1), "last": page_url(collection, 3)})


BAD_PAGE_SIZES = ["0", "4", "-1", "abc", "１", "١", "1.5", "", "+2", "1000"]


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_page_size_outside_1_to_max_or_not_an_integer_is_400(rejects, collection):
    answers = {}
    for size in BAD_PAGE_SIZES:
        response = rejects.get(f"/{collection}/page/1", query_string={"page_size": size})
        body = error(response)
        answers[size] = (response.status_code, body["status"], "page_size" in body["message"])
    assert answers == dict.fromkeys(BAD_PAGE_SIZES, (400, "Bad Request", True))


def test_page_size_up_to_the_configured_max_is_accepted(make_client):
    rows = [sample_row("customers", n) for n in (1, 2, 3, 4)]
    client = make_client({"customers": rows}, api={"page_size": 2, "max_page_size": 3})
    assert page(client, "/customers/page/1?page_size=3")["body"] == records("customers",
                                                                            rows[:3])
    assert client.get("/customers/page/1?page_size=4").status_code == 400


BAD_PAGE_NUMBERS = ["0", "-1", "x", "١", "１", "1.5", "+1", "1e2", "%201", "-" + HUGE]


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_pagenumber_below_one_or_not_an_integer_is_400(rejects, collection):
    answers = {}
    for number in BAD_PAGE_NUMBERS:
        response = rejects.get(f"/{collection}/page/{number}")
        answers[number] = (response.status_code, error(response)["status"])
    assert answers == dict.fromkeys(BAD_PAGE_NUMBERS, (400, "Bad Request"))


@contextlib.contextmanager
def weighbridge(path: Path) -> Iterator[sqlite3.Connection]:
    """Another program (the weighbridge) committing to the file while the service runs."""
    con = sqlite3.connect(path)
    try:
        with con:  # commits on leaving
            yield con
    finally:
        con.close()


# Jembatan keeps a count while SQLite's data_version says the file is unchanged; rows are
# committed here through the file, so this runs on the engines that read one.
@pytest.mark.parametrize("engine", FILE_ENGINES)
@pytest.mark.parametrize("collection", COLLECTIONS)
def test_totals_follow_rows_another_program_commits(engine, tmp_path, collection):
    rows = [sample_row(collection, n) for n in range(1, 8)]
    path = build_database(tmp_path / "plant.sqlite3", {collection: rows[:3]})
    app = create_app({"database": database_settings(engine, path), **SMALL})
    client = app.test_client()
    first = page_url(collection, 1)

    def totals(n: int, pages: int) -> dict[str, int]:
        return {"total": n, "total_pages": pages, "first_page": 1, "last_page": pages}

    assert page(client, f"/{collection}/page/2") == answer(
        records(collection, rows[2:3], first=3), totals(3, 2) | {"page": 2, "previous_page": 1},
        {"first": first, "last": page_url(collection, 2), "prev": first})

    with weighbridge(path) as con:
        insert_rows(con, {collection: rows[3:7]})
    assert page(client, f"/{collection}/page/2") == answer(
        records(collection, rows[2:4], first=3),
        totals(7, 4) | {"page": 2, "previous_page": 1, "next_page": 3},
        {"first": first, "last": page_url(collection, 4), "prev": first,
         "next": page_url(collection, 3)})
    assert page(client, f"/{collection}/page/4")["body"] == records(collection, rows[6:7], 7)

    key = "no_produksi" if collection == "bricon2" else "id"
    with weighbridge(path) as con:
        con.execute(f'DELETE FROM "{collection}" WHERE "{key}" <> ?', (rows[6][key],))
    assert page(client, f"/{collection}/page/2") == answer([], totals(1, 1), {
        "first": first, "last": first})
    assert page(client, f"/{collection}/page/1")["body"] == records(collection, rows[6:7])


@pytest.mark.parametrize("engine", FILE_ENGINES)
def test_range_totals_follow_rows_another_program_commits(engine, tmp_path):
    rows = [sample_row("transactions", n) for n in range(1, 6)]
    path = build_database(tmp_path / "plant.sqlite3", {"transactions": rows[:2]})
    client = create_app({"database": database_settings(engine, path)}).test_client()
    everything = "/transactions/date/1900-01-01/00:00/2999-12-31/23:59:59?page=1&page_size=2"

    def total() -> int:
        response = client.get(everything)
        assert response.status_code == 200, response.get_data(as_text=True)
        return json.loads(response.headers["X-Pagination"])["total"]

    assert total() == 2
    with weighbridge(path) as con:
        insert_rows(con, {"transactions": rows[2:5]})
    assert total() == 5
    with weighbridge(path) as con:
        con.execute('DELETE FROM "transactions" WHERE "id" = ?', (1,))
    assert total() == 4
