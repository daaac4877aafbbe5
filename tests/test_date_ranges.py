"""GET /<c>/date/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir} (docs/api.md §5.5).

Every expected answer is written out here from the rows each test inserts and the contract:
which records lie in the range (both bounds inclusive, HH:MM = HH:MM:00, NULL date never,
NULL time = 00:00:00), their order (date, time, then the canonical order) and the JSON of each
record (tests/contract.py), with numberrow null.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from contract import COLLECTIONS, PAIRS, expected

from tests.conftest import arguments_client
from tests.helpers import assert_error, make_row

# (collection, on) for every collection with a date range and every `on` value it accepts.
RANGES = [(c, on) for c, (_, _, ons) in COLLECTIONS.items() for on in ons]
DEFAULT_ON = {c: ons[0] for c, (_, _, ons) in COLLECTIONS.items() if ons}
NO_RANGE = [c for c, (_, _, ons) in COLLECTIONS.items() if not ons]
# The same, grouped by `on`: the tests of one `on` share a database (the `shared` fixture)
# holding that test's rows for every collection that has the pair; each reads its own alone.
ONS = list(dict.fromkeys(on for _, on in RANGES))
BY_ON = sorted(RANGES, key=lambda r: ONS.index(r[1]))
BY_ON_IDS = [f"{c}-{on}" for c, on in BY_ON]


def for_every_collection(on: str, rows: Callable[[str, str], list[dict[str, Any]]]
                         ) -> dict[str, list[dict[str, Any]]]:
    """The tables of a database shared by the tests of one `on`: rows(c, on) in each
    collection c that has the pair; on=None: each collection with its default pair."""
    return {c: rows(c, on or DEFAULT_ON[c]) for c in DEFAULT_ON
            if on is None or on in COLLECTIONS[c][2]}

def range_row(collection: str, on: str, key: int | None, day: str | None,
              clock: str | None) -> dict[str, Any]:
    """A row of `collection` whose `on` pair holds day/clock, identified by `key`.

    Every other date/time pair of the row holds a moment inside every range these tests ask
    for, so that a range read from the wrong pair returns other records.
    """
    inside = {o: ("2026-11-02", "10:00:00") for o in COLLECTIONS[collection][2] if o != on}
    return make_row(collection, key, inside | {on: (day, clock)})


def key_of(collection: str, record: dict[str, Any]) -> Any:
    return record["no_produksi"] if collection == "bricon2" else record["id"]


def url(collection: str, start: str, start_time: str, end: str, end_time: str,
        query: str = "") -> str:
    path = f"/{collection}/date/{start}/{start_time}/{end}/{end_time}"
    return f"{path}?{query}" if query else path


def on_query(collection: str, on: str) -> str:
    """`on=...`, left out for the default pair so that the default is exercised too."""
    return "" if DEFAULT_ON[collection] == on else f"on={on}"


def join(*parts: str) -> str:
    return "&".join(p for p in parts if p)


# The main data set: (key, date, time). The range asked is 2026-11-01 07:00 to 2026-11-03
# 17:30:00. Rows are inserted out of key order on purpose.
MAIN_ROWS = [
    (10, "2026-11-02", "12:00:00"),  # in, same moment as 4: after it
    (1, "2026-10-31", "23:59:59"),  # out: the day before
    (15, "2026-10-31", "08:00:00"),  # out: a time inside the window, on a day before it
    (2, "2026-11-01", "06:59:59"),  # out: one second before the start
    (3, "2026-11-01", "07:00:00"),  # in: exactly the start
    (13, "2026-11-01", "20:00:00"),  # in: first day, after the end's time of day
    (4, "2026-11-02", "12:00:00"),  # in
    (11, "2026-11-02", "03:00:00"),  # in: middle day, before the start's time of day
    (12, "2026-11-02", "20:00:00"),  # in: middle day, after the end's time of day
    (9, "2026-11-02", None),  # in: NULL time = 00:00:00 of a day inside the range
    (14, "2026-11-03", "03:00:00"),  # in: last day, before the start's time of day
    (5, "2026-11-03", "17:30:00"),  # in: exactly the end
    (6, "2026-11-03", "17:30:01"),  # out: one second after the end
    (7, None, "08:00:00"),  # out: NULL date
    (8, "2026-11-04", "00:00:00"),  # out: the day after
    (16, "2026-11-04", "08:00:00"),  # out
]
MAIN_IN_ORDER = [3, 13, 9, 11, 4, 10, 12, 14, 5]
MAIN_RANGE = ("2026-11-01", "07:00", "2026-11-03", "17:30:00")


def main_rows(collection: str, on: str) -> list[dict[str, Any]]:
    return [range_row(collection, on, k, d, t) for k, d, t in MAIN_ROWS]


def main_by_key(collection: str, on: str) -> dict[int, dict[str, Any]]:
    rows = main_rows(collection, on)
    return {k: row for (k, _, _), row in zip(MAIN_ROWS, rows, strict=True)}


@pytest.mark.parametrize(("collection", "on"), BY_ON, ids=BY_ON_IDS)
def test_range_returns_exactly_the_records_in_order(shared, collection, on):
    client = shared(for_every_collection(on, main_rows))
    by_key = main_by_key(collection, on)
    response = client.get(url(collection, *MAIN_RANGE, on_query(collection, on)))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert [key_of(collection, r) for r in body] == MAIN_IN_ORDER
    # The whole record as the contract shapes it; numberrow (where there is one) is null.
    assert body == [expected(collection, by_key[k], None) for k in MAIN_IN_ORDER]
    for record in body:
        assert list(record) == COLLECTIONS[collection][0]  # keys in record-shape order


@pytest.mark.parametrize("collection", list(DEFAULT_ON))
def test_explicit_default_on_is_the_default(shared, collection):
    on = DEFAULT_ON[collection]
    client = shared(for_every_collection(None, main_rows))
    implicit = client.get(url(collection, *MAIN_RANGE))
    explicit = client.get(url(collection, *MAIN_RANGE, f"on={on}"))
    assert implicit.status_code == explicit.status_code == 200
    assert [key_of(collection, r) for r in explicit.get_json()] == MAIN_IN_ORDER
    assert implicit.get_json() == explicit.get_json()


def bound_rows(collection: str, on: str) -> list[dict[str, Any]]:
    return [
        range_row(collection, on, 1, "2026-11-01", "07:00:00"),
        range_row(collection, on, 2, "2026-11-01", "23:59:30"),
        range_row(collection, on, 3, "2026-11-02", None),
        range_row(collection, on, 4, "2026-11-03", "12:00:00.500000"),
        range_row(collection, on, 5, None, None),
    ]


@pytest.mark.parametrize(("collection", "on"), BY_ON, ids=BY_ON_IDS)
def test_bounds_are_inclusive_to_the_second(shared, collection, on):
    # What the ranges answer is the subject here, not whether they are served: the proof at
    # the first read (tests/test_read_proof.py), off in `shared`'s clients, refuses record 4's
    # collection where the SQLite ODBC driver shows its 12:00:00.5 as 12:00:00, which no
    # range can find.
    client = shared(for_every_collection(on, bound_rows))
    cases = [
        # a record exactly on a bound is inside it, whichever way the time is written
        (("2026-11-01", "07:00", "2026-11-01", "07:00"), [1]),
        (("2026-11-01", "07:00:00", "2026-11-01", "07:00:00"), [1]),
        (("2026-11-01", "06:00", "2026-11-01", "07:00:00"), [1]),
        (("2026-11-01", "07:00", "2026-11-01", "08:00"), [1]),
        (("2026-11-01", "06:00", "2026-11-01", "06:59:59"), []),
        (("2026-11-01", "07:00:01", "2026-11-01", "08:00"), []),
        # HH:MM means HH:MM:00: ending 23:59 leaves out 23:59:30, 23:59:59 takes it
        (("2026-11-01", "07:00:01", "2026-11-01", "23:59"), []),
        (("2026-11-01", "07:00:01", "2026-11-01", "23:59:59"), [2]),
        (("2026-11-01", "23:59:30", "2026-11-01", "23:59:30"), [2]),
        (("2026-11-01", "23:59:31", "2026-11-01", "23:59:59"), []),
        # a NULL time counts as 00:00:00
        (("2026-11-02", "00:00", "2026-11-02", "00:00"), [3]),
        (("2026-11-02", "00:00:00", "2026-11-02", "23:59:59"), [3]),
        (("2026-11-02", "00:01", "2026-11-02", "23:59:59"), []),
        (("2026-11-02", "00:00:01", "2026-11-02", "23:59:59"), []),
        (("2026-11-01", "23:59:30", "2026-11-02", "00:00:00"), [2, 3]),
        (("2026-11-01", "00:00", "2026-11-01", "23:59:59"), [1, 2]),
        # a time with a fraction lies between the whole seconds around it
        (("2026-11-03", "12:00", "2026-11-03", "12:00:00"), []),
        (("2026-11-03", "12:00:01", "2026-11-03", "23:59:59"), []),
        (("2026-11-03", "12:00", "2026-11-03", "12:00:01"), [4]),
        # several days; the NULL date is never in any range
        (("2026-11-01", "00:00", "2026-11-03", "23:59:59"), [1, 2, 3, 4]),
        (("0001-01-01", "00:00", "9999-12-31", "23:59:59"), [1, 2, 3, 4]),
        (("2026-11-04", "00:00", "2026-11-30", "00:00"), []),
    ]
    for bounds, keys in cases:
        response = client.get(url(collection, *bounds, on_query(collection, on)))
        assert response.status_code == 200, (bounds, response.get_data(as_text=True))
        assert [key_of(collection, r) for r in response.get_json()] == keys, bounds


def same_moment_rows(collection: str, on: str) -> list[dict[str, Any]]:
    moment = ("2026-11-05", "09:15:00")
    keys = [3, 1, None, 2]  # inserted in this order; NULLs come first in ascending order
    rows = [range_row(collection, on, k, *moment) for k in keys]
    rows.insert(1, range_row(collection, on, 0, "2026-11-05", "09:15:01"))  # a second later
    rows.insert(0, range_row(collection, on, 9, "2026-11-05", "09:14:59"))  # a second earlier
    return rows


@pytest.mark.parametrize(("collection", "on"), BY_ON, ids=BY_ON_IDS)
def test_same_moment_comes_in_canonical_order(shared, collection, on):
    client = shared(for_every_collection(on, same_moment_rows))
    response = client.get(url(collection, "2026-11-05", "00:00", "2026-11-05", "23:59",
                              on_query(collection, on)))
    assert response.status_code == 200
    assert [key_of(collection, r) for r in response.get_json()] == [9, None, 1, 2, 3, 0]


def test_bricon2_same_moment_orders_by_no_produksi_then_no_produksi_(make_client):
    moment = {"tanggal": "2026-11-05", "jam": "09:15:00"}
    pairs = [(2, 1), (1, 5), (1, 2), (None, 9), (1, None), (0, 7)]
    rows = [{"no_produksi": a, "no_produksi_": b, **moment} for a, b in pairs]
    rows.append({"no_produksi": -5, "no_produksi_": 0, "tanggal": "2026-11-05",
                 "jam": "09:15:01"})
    client = make_client({"bricon2": rows})
    response = client.get(url("bricon2", "2026-11-05", "09:15", "2026-11-05", "09:15:01"))
    assert response.status_code == 200
    got = [(r["no_produksi"], r["no_produksi_"]) for r in response.get_json()]
    assert got == [(None, 9), (0, 7), (1, None), (1, 2), (1, 5), (2, 1), (-5, 0)]
    assert all(r["numberrow"] is None for r in response.get_json())


@pytest.mark.parametrize("collection", [c for c in DEFAULT_ON
                                        if COLLECTIONS[c][0][0] == "numberrow"])
def test_numberrow_is_null_in_a_range(shared, collection):
    client = shared(for_every_collection(None, lambda c, on: [
        range_row(c, on, k, "2026-11-01", f"0{k}:00:00") for k in (1, 2, 3)]))
    # the same records carry their positions in /<c>, and null in a range, paged or not
    everything = client.get(f"/{collection}").get_json()
    assert [r["numberrow"] for r in everything] == [1, 2, 3]
    for query in ("", "page=1&page_size=2", "page=2&page_size=2"):
        response = client.get(url(collection, "2026-11-01", "00:00", "2026-11-01", "23:59",
                                  query))
        assert response.status_code == 200
        body = response.get_json()
        assert body and all("numberrow" in r and r["numberrow"] is None for r in body)


# -- pages of a range ----------------------------------------------------------------------


def links(response: Any) -> dict[str, str]:
    header = response.headers.get("Link", "")
    found = re.findall(r'<([^>]*)>\s*;\s*rel="?([a-z]+)"?', header)
    rels = [rel for _, rel in found]
    assert len(rels) == len(set(rels)), header
    return {rel: target for target, rel in found}


def assert_link(target: str, path: str, on: str, page: int, page_size: int) -> None:
    parts = urlsplit(target)
    assert parts.scheme in ("http", "https") and parts.netloc, target  # absolute
    assert unquote(parts.path) == path, target
    assert parse_qs(parts.query) == {"on": [on], "page": [str(page)],
                                     "page_size": [str(page_size)]}, target


@pytest.mark.parametrize(("collection", "on"), BY_ON, ids=BY_ON_IDS)
def test_pages_of_a_range(shared, collection, on):
    client = shared(for_every_collection(on, main_rows))
    by_key = main_by_key(collection, on)
    path = url(collection, *MAIN_RANGE)
    pages = {1: [3, 13, 9, 11], 2: [4, 10, 12, 14], 3: [5]}
    for page, keys in pages.items():
        response = client.get(f"{path}?{join(on_query(collection, on), f'page={page}')}"
                              "&page_size=4")
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.get_json() == [expected(collection, by_key[k], None) for k in keys]
        meta = {"total": 9, "total_pages": 3, "first_page": 1, "last_page": 3, "page": page}
        if page > 1:
            meta["previous_page"] = page - 1
        if page < 3:
            meta["next_page"] = page + 1
        assert json.loads(response.headers["X-Pagination"]) == meta
        rel = links(response)
        wanted = {"first": 1, "last": 3}
        if page > 1:
            wanted["prev"] = page - 1
        if page < 3:
            wanted["next"] = page + 1
        assert set(rel) == set(wanted), response.headers.get("Link")
        for name, target_page in wanted.items():
            assert_link(rel[name], path, on, target_page, 4)

    beyond = client.get(f"{path}?{join(on_query(collection, on), 'page=4&page_size=4')}")
    assert beyond.status_code == 200
    assert beyond.get_json() == []
    meta = json.loads(beyond.headers["X-Pagination"])
    assert meta == {"total": 9, "total_pages": 3, "first_page": 1, "last_page": 3}
    rel = links(beyond)
    assert {"first", "last"} <= set(rel) and "next" not in rel
    assert_link(rel["first"], path, on, 1, 4)
    assert_link(rel["last"], path, on, 3, 4)

    far = client.get(f"{path}?{join(on_query(collection, on), 'page=1000000&page_size=4')}")
    assert far.status_code == 200 and far.get_json() == []


@pytest.mark.parametrize("collection", list(DEFAULT_ON))
def test_page_size_alone_is_page_one_and_page_alone_uses_the_default_size(
        shared, collection):
    on = DEFAULT_ON[collection]
    client = shared(for_every_collection(None, main_rows), api={"page_size": 2})
    path = url(collection, *MAIN_RANGE)

    first = client.get(f"{path}?page_size=3")
    assert first.status_code == 200
    assert [key_of(collection, r) for r in first.get_json()] == [3, 13, 9]
    assert json.loads(first.headers["X-Pagination"]) == {
        "total": 9, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 1,
        "next_page": 2}
    rel = links(first)
    assert set(rel) == {"first", "last", "next"}
    assert_link(rel["next"], path, on, 2, 3)

    second = client.get(f"{path}?page=2")  # api.page_size is 2
    assert second.status_code == 200
    assert [key_of(collection, r) for r in second.get_json()] == [9, 11]
    assert json.loads(second.headers["X-Pagination"]) == {
        "total": 9, "total_pages": 5, "first_page": 1, "last_page": 5, "page": 2,
        "previous_page": 1, "next_page": 3}
    rel = links(second)
    assert set(rel) == {"first", "last", "prev", "next"}
    assert_link(rel["last"], path, on, 5, 2)
    assert_link(rel["prev"], path, on, 1, 2)

    # without page or page_size the whole range comes, with no pagination header
    whole = client.get(path)
    assert whole.status_code == 200
    assert [key_of(collection, r) for r in whole.get_json()] == MAIN_IN_ORDER
    assert "X-Pagination" not in whole.headers


def test_page_of_an_empty_range(make_client):
    client = make_client({"weighing": [range_row("weighing", "dt1", 1, "2026-01-01",
                                                "00:00:00")]})
    response = client.get(url("weighing", "2026-11-01", "00:00", "2026-11-02", "00:00",
                              "page=1&page_size=10"))
    assert response.status_code == 200
    assert response.get_json() == []
    assert json.loads(response.headers["X-Pagination"]) == {"total": 0, "total_pages": 0}
    assert not {"first", "last", "prev", "next"} & set(links(response))


def test_largest_page_size_is_accepted(make_client):
    client = make_client({"transactions": main_rows("transactions", "dt1")},
                         api={"max_page_size": 5, "page_size": 2})
    response = client.get(url("transactions", *MAIN_RANGE, "page_size=5"))
    assert response.status_code == 200
    assert [r["id"] for r in response.get_json()] == MAIN_IN_ORDER[:5]


# -- errors --------------------------------------------------------------------------------

GOOD = ("2026-11-01", "07:00", "2026-11-02", "07:00")
BAD_DATES = ["2026-02-30", "2026-02-29", "0000-01-01", "2026-13-01", "2026-1-5", "20261105",
             "2026-11-05T", "2026.11.05", "05-11-2026", "2026-11-5", "tomorrow"]
BAD_TIMES = ["24:00", "24:00:00", "23:60", "7:5", "07:30:60", "0730", "07", "07:30:", "7:30",
             "07:3", "07:30:00.5", "-1:00", "ab:cd"]


def bad_paths() -> list[tuple[str, str]]:
    """(path, the offending text) with one bad segment in each of the four places."""
    out = []
    for position in (0, 2):
        for bad in BAD_DATES:
            parts = list(GOOD)
            parts[position] = bad
            out.append((url("weighing", *parts), bad))
    for position in (1, 3):
        for bad in BAD_TIMES:
            parts = list(GOOD)
            parts[position] = bad
            out.append((url("weighing", *parts), bad))
    return out


# Arguments answered 400 (and paths 404) before any query is built, so whatever the engine:
# these tests share one client on SQLite.


@pytest.fixture(scope="module")
def rejects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return arguments_client(tmp_path_factory, {
        c: [range_row(c, DEFAULT_ON[c], 1, "2026-11-01", "08:00:00")] for c in DEFAULT_ON})


def test_malformed_dates_and_times_are_400(rejects):
    for path, bad in bad_paths():
        body = assert_error(rejects.get(path), 400)
        message = body["message"]
        # says what was wrong (the text sent, or which segment) and what is accepted
        assert bad in message or any(n in message for n in
                                     ("tglawal", "tglakhir", "jam_awal", "jam_akhir")), path
        assert "YYYY-MM-DD" in message or "HH:MM" in message, (path, message)


def test_start_after_end_is_400(make_client):
    client = make_client({"weighing": [range_row("weighing", "dt1", 1, "2026-11-01",
                                                "08:00:00")]})
    cases = [("2026-11-02", "07:00", "2026-11-01", "07:00"),
             ("2026-11-01", "07:00:01", "2026-11-01", "07:00"),
             ("2026-11-01", "07:01", "2026-11-01", "07:00:59"),
             ("2027-01-01", "00:00", "2026-12-31", "23:59:59")]
    for bounds in cases:
        body = assert_error(client.get(url("weighing", *bounds)), 400)
        message = body["message"]
        assert bounds[0] in message or "tglawal" in message or "start" in message, message
    # equal bounds are a valid (one-instant) range
    ok = client.get(url("weighing", "2026-11-01", "08:00", "2026-11-01", "08:00:00"))
    assert ok.status_code == 200 and [r["id"] for r in ok.get_json()] == [1]


@pytest.mark.parametrize("collection", list(DEFAULT_ON))
def test_unknown_on_is_400_and_names_the_allowed_values(rejects, collection):
    allowed = COLLECTIONS[collection][2]
    others = [on for on in PAIRS if on not in allowed]
    for value in [*others, "nope", "DT1", "", "tanggal,jam"]:
        if value in allowed:
            continue
        body = assert_error(rejects.get(url(collection, *GOOD, f"on={value}")), 400)
        for name in allowed:
            assert name in body["message"], (value, body["message"])


def test_bad_page_arguments_are_400(rejects):
    cases = [("page=0", "page"), ("page=-1", "page"), ("page=abc", "page"),
             ("page=1.5", "page"), ("page=", "page"), ("page_size=0", "page_size"),
             ("page_size=-3", "page_size"), ("page_size=1001", "page_size"),
             ("page_size=x", "page_size"), ("page=1&page_size=0", "page_size"),
             ("page=0&page_size=10", "page"), ("page=2&page_size=1001", "page_size")]
    for query, name in cases:
        body = assert_error(rejects.get(url("transactions", *GOOD, query)), 400)
        assert name in body["message"], (query, body["message"])


def test_page_size_above_a_configured_maximum_is_400(tmp_path_factory):
    client = arguments_client(tmp_path_factory, {}, api={"max_page_size": 5, "page_size": 2})
    body = assert_error(client.get(url("transactions", *GOOD, "page_size=6")), 400)
    assert "page_size" in body["message"]


@pytest.mark.parametrize("collection", NO_RANGE)
def test_no_date_range_on_master_data(rejects, collection):
    for query in ("", "on=create", "page=1&page_size=10"):
        assert_error(rejects.get(url(collection, *GOOD, query)), 404)
