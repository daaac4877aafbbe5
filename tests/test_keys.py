"""GET /<c>/{key}: one record by ID, or by numberrow where the table has no usable key
(docs/api.md §2, §5.4, §9)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import arguments_client
from tests.contract import COLLECTIONS, expected
from tests.helpers import NUMBERED, assert_error, records, sample_row

BY_ID = [c for c, (_, key, _) in COLLECTIONS.items() if key == "id"]
HUGE = "99999999999999999999999"


def error_of(response: Any) -> tuple[int, str] | str:
    """(code, status) of an error answer in the shape of docs/api.md §9, or what was wrong."""
    try:
        assert_error(response, response.status_code)
    except (AssertionError, KeyError, TypeError):
        return f"{response.status_code} {response.get_data(as_text=True)[:200]}"
    return response.status_code, response.get_json()["status"]


def test_by_id_collections_are_the_six_of_the_contract():
    assert sorted(BY_ID) == sorted(["customers", "products", "transporters", "transactions",
                                    "vehicles", "biao1"])


# The tests of one collection share a database per engine (the `shared` fixture) holding the
# rows of that test for every collection: each test reads its own collection's alone.


def by_id_rows(collection: str) -> list[dict[str, Any]]:
    """Four rows by id and one whose id is NULL, last."""
    ids = [7, -5, 0, 42]
    rows = [sample_row(collection, n) | {"id": id_} for n, id_ in enumerate(ids, 1)]
    return rows + [sample_row(collection, 9) | {"id": None}]


@pytest.mark.parametrize("collection", BY_ID)
def test_record_by_id_is_the_exact_record(shared, collection):
    client = shared({c: by_id_rows(c) for c in BY_ID})
    for row in by_id_rows(collection)[:-1]:
        response = client.get(f"/{collection}/{row['id']}")
        assert response.status_code == 200
        assert response.mimetype == "application/json"
        body = response.get_json()
        assert body == expected(collection, row)
        assert list(body.keys()) == COLLECTIONS[collection][0]


@pytest.mark.parametrize("collection", BY_ID)
def test_record_by_id_with_every_other_column_null(shared, collection):
    client = shared({c: [{"id": 3}] for c in BY_ID})
    response = client.get(f"/{collection}/3")
    assert response.status_code == 200
    fields = COLLECTIONS[collection][0]
    # Every other field null; a weighing's cancelled false: a NULL condition (docs/api.md §3).
    assert response.get_json() == {f: (3 if f == "id" else False if f == "cancelled" else None)
                                   for f in fields}


ABSENT_IDS = ["1", "6", "0", "-1", "-6", HUGE, "-" + HUGE]


@pytest.mark.parametrize("collection", BY_ID)
def test_absent_id_zero_negative_or_huge_is_404(shared, collection):
    client = shared({c: [sample_row(c, n) | {"id": id_} for n, id_ in enumerate([5, 7], 1)]
                     for c in BY_ID})
    answers = {key: error_of(client.get(f"/{collection}/{key}")) for key in ABSENT_IDS}
    assert answers == dict.fromkeys(ABSENT_IDS, (404, "Not Found"))


@pytest.mark.parametrize("collection", BY_ID)
def test_any_id_in_an_empty_table_is_404(shared, collection):
    client = shared({})
    assert_error(client.get(f"/{collection}/1"), 404)


@pytest.mark.parametrize("collection", NUMBERED)
def test_record_by_numberrow_is_that_position_of_the_list(shared, collection):
    client = shared({c: [sample_row(c, n) for n in (3, 1, 5, 2, 4)] for c in NUMBERED})
    listed = client.get(f"/{collection}").get_json()
    in_order = [sample_row(collection, n) for n in (1, 2, 3, 4, 5)]
    assert listed == records(collection, in_order)
    for n in range(1, len(in_order) + 1):
        response = client.get(f"/{collection}/{n}")
        assert response.status_code == 200
        assert response.mimetype == "application/json"
        body = response.get_json()
        assert body == listed[n - 1]
        assert body == expected(collection, in_order[n - 1], n)
        assert list(body.keys()) == COLLECTIONS[collection][0]


def test_bricon2_numberrow_follows_tanggal_jam_no_produksi_with_nulls_first(make_client):
    def row(name: str, tanggal: str | None, jam: str | None, no: int | None,
            no_: int | None) -> dict[str, Any]:
        return {"operator_name": name, "tanggal": tanggal, "jam": jam, "no_produksi": no,
                "no_produksi_": no_}

    a = row("a", None, None, None, None)
    b = row("b", "2026-01-01", "23:00:00", 9, 9)
    c = row("c", "2026-01-02", None, 4, 4)
    d = row("d", "2026-01-02", "06:00:00", None, 8)
    e = row("e", "2026-01-02", "06:00:00", 2, None)
    f = row("f", "2026-01-02", "06:00:00", 2, 3)
    client = make_client({"bricon2": [f, d, b, e, a, c]})
    listed = client.get("/bricon2").get_json()
    for n, row_ in enumerate([a, b, c, d, e, f], 1):
        body = client.get(f"/bricon2/{n}").get_json()
        assert body == expected("bricon2", row_, n) == listed[n - 1]


@pytest.mark.parametrize("collection", NUMBERED)
def test_numberrow_of_a_null_row_is_its_position(shared, collection):
    client = shared({c: [sample_row(c, 1), dict.fromkeys(sample_row(c, 1))] for c in NUMBERED})
    one = sample_row(collection, 1)
    nothing = dict.fromkeys(one)
    assert client.get(f"/{collection}/1").get_json() == expected(collection, nothing, 1)
    assert client.get(f"/{collection}/2").get_json() == expected(collection, one, 2)


BEYOND = ["4", "5", "1000", HUGE]


@pytest.mark.parametrize("collection", NUMBERED)
def test_numberrow_beyond_the_last_is_404(shared, collection):
    client = shared({c: [sample_row(c, n) for n in (1, 2, 3)] for c in NUMBERED})
    answers = {key: error_of(client.get(f"/{collection}/{key}")) for key in BEYOND}
    assert answers == dict.fromkeys(BEYOND, (404, "Not Found"))


@pytest.mark.parametrize("collection", NUMBERED)
def test_numberrow_in_an_empty_table_is_404(shared, collection):
    client = shared({})
    assert_error(client.get(f"/{collection}/1"), 404)


# The keys answered 400, and the unknown path, before any query is built (so whatever the
# engine): these tests share one client on SQLite, `rejects`.


@pytest.fixture(scope="module")
def rejects(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return arguments_client(tmp_path_factory, {c: [sample_row(c, 1)] for c in COLLECTIONS})


NOT_INTEGERS = ["abc", "1.5", "+1", "1e3", "0x10", "%201", "1a", "1_000", "١", "１"]


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_key_that_is_not_an_integer_is_400(rejects, collection):
    answers = {key: error_of(rejects.get(f"/{collection}/{key}")) for key in NOT_INTEGERS}
    assert answers == dict.fromkeys(NOT_INTEGERS, (400, "Bad Request"))


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_trailing_slash_is_an_unknown_path_pointing_at_the_collection(rejects, collection):
    # GET /<c>/ has no key at all: an unknown path (404, docs/api.md §9), not a malformed key;
    # the message shows the collection's URL (docs/api.md §9).
    response = rejects.get(f"/{collection}/")
    assert_error(response, 404)
    assert f"/{collection} " in response.get_json()["message"]


BELOW_ONE = ["0", "-1", "-" + HUGE]


@pytest.mark.parametrize("collection", NUMBERED)
def test_numberrow_below_one_is_400(rejects, collection):
    answers = {key: error_of(rejects.get(f"/{collection}/{key}")) for key in BELOW_ONE}
    assert answers == dict.fromkeys(BELOW_ONE, (400, "Bad Request"))
