"""GET /<c>: every record of a collection, streamed, in canonical order (docs/api.md §2-§4, §5.2).

Each test writes its own rows, and compares the whole response body with the records that
tests/contract.py builds from those rows.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.contract import COLLECTIONS, columns, expected
from tests.helpers import NUMBERED, REALS, kind, records, sample_row

# The tests of one collection share a database per engine (the `shared` fixture) holding the
# rows of that test for every collection: each test reads its own collection's alone.

def get_list(client: Any, collection: str) -> list[dict[str, Any]]:
    response = client.get(f"/{collection}")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert isinstance(body, list)
    for record in body:
        assert list(record.keys()) == COLLECTIONS[collection][0]
    return body


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_list_sends_every_record_with_every_field(shared, collection):
    client = shared({c: [sample_row(c, n) for n in (1, 2, 3)] for c in COLLECTIONS})
    rows = [sample_row(collection, n) for n in (1, 2, 3)]
    assert get_list(client, collection) == records(collection, rows)


BY_ID = [c for c in COLLECTIONS if c != "bricon2"]


def rows_by_id(collection: str) -> list[dict[str, Any]]:
    ids = [3, None, -2, 10, 0]
    return [sample_row(collection, n) | {"id": id_} for n, id_ in enumerate(ids, 1)]


@pytest.mark.parametrize("collection", BY_ID)
def test_list_is_ordered_by_id_with_null_ids_first(shared, collection):
    client = shared({c: rows_by_id(c) for c in BY_ID})
    rows = rows_by_id(collection)
    by_id = {row["id"]: row for row in rows}
    in_order = [by_id[None], by_id[-2], by_id[0], by_id[3], by_id[10]]
    assert get_list(client, collection) == records(collection, in_order)


def test_bricon2_is_ordered_by_tanggal_jam_no_produksi_with_nulls_first(make_client):
    def row(name: str, tanggal: str | None, jam: str | None, no: int | None,
            no_: int | None) -> dict[str, Any]:
        return {"operator_name": name, "tanggal": tanggal, "jam": jam, "no_produksi": no,
                "no_produksi_": no_, "recipe": 7}

    a = row("a", None, "08:00:00", 5, 5)
    b = row("b", "2026-01-02", None, 1, 1)
    c = row("c", "2026-01-02", "07:00:00", None, 2)
    d = row("d", "2026-01-02", "07:00:00", 3, None)
    e = row("e", "2026-01-02", "07:00:00", 3, 1)
    f = row("f", "2026-01-01", "23:00:00", 9, 9)
    client = make_client({"bricon2": [e, c, f, a, d, b]})
    assert get_list(client, "bricon2") == records("bricon2", [a, f, b, c, d, e])


@pytest.mark.parametrize("collection", NUMBERED)
def test_numberrow_counts_from_one_in_canonical_order(shared, collection):
    client = shared({c: [sample_row(c, n) for n in (4, 1, 3, 2)] for c in NUMBERED})
    body = get_list(client, collection)
    assert [r["numberrow"] for r in body] == [1, 2, 3, 4]
    assert body == records(collection, [sample_row(collection, n) for n in (1, 2, 3, 4)])


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_empty_table_is_an_empty_array(shared, collection):
    client = shared({})
    response = client.get(f"/{collection}")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.get_json() == []


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_row_with_every_column_null_has_every_field_null(shared, collection):
    """Every field null, but a weighing's cancelled: a NULL condition is false (§3)."""
    client = shared({c: [sample_row(c, 1), dict.fromkeys(columns(c))] for c in COLLECTIONS})
    nothing = {column: None for column in columns(collection)}
    one = sample_row(collection, 1)
    body = get_list(client, collection)
    assert body == records(collection, [nothing, one])
    fields = COLLECTIONS[collection][0]
    assert body[0] == {f: (1 if f == "numberrow" else False if f == "cancelled" else None)
                       for f in fields}


UNICODE = ["Café – Sidoarjo", "日本", "🚛 truk 🏗️", "  spasi di tepi  ", 'kutip "ganda" \\ \'',
           "Ünïcödé ñ ß", "‎עברית", "line\nbreak\ttab", ""]


def texts_of(collection: str) -> list[str]:
    return [c for c in columns(collection) if kind(collection, c) == "text"]


def unicode_rows(collection: str) -> list[dict[str, Any]]:
    rows = []
    for n in (1, 2):
        row = sample_row(collection, n)
        for i, column in enumerate(texts_of(collection)):
            row[column] = UNICODE[(i + n) % len(UNICODE)]
        rows.append(row)
    return rows


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_unicode_text_is_returned_exactly(shared, collection):
    client = shared({c: unicode_rows(c) for c in COLLECTIONS})
    texts = texts_of(collection)
    rows = unicode_rows(collection)
    body = get_list(client, collection)
    assert body == records(collection, rows)
    for record, row in zip(body, rows, strict=True):  # less their trailing blanks (§4)
        assert {c: record[c] for c in texts} == {c: row[c].rstrip(" ") for c in texts}


REAL_COLLECTIONS = [c for c in COLLECTIONS if REALS & set(columns(c))]
REAL_VALUES = [12345.5, 0.25, -0.75, 0.1, 123456789.125, 1e-06, 40000.0, -3.0]


def real_rows(collection: str) -> list[dict[str, Any]]:
    rows = []
    for n in (1, 2):
        row = sample_row(collection, n)
        for i, column in enumerate(c for c in columns(collection) if c in REALS):
            row[column] = REAL_VALUES[(i + n) % len(REAL_VALUES)]
        rows.append(row)
    return rows


@pytest.mark.parametrize("collection", REAL_COLLECTIONS)
def test_real_values_are_exact_json_numbers(shared, collection):
    client = shared({c: real_rows(c) for c in REAL_COLLECTIONS})
    reals = [c for c in columns(collection) if c in REALS]
    rows = real_rows(collection)
    body = get_list(client, collection)
    assert body == records(collection, rows)
    for record in body:
        for column in reals:
            assert isinstance(record[column], int | float)
            assert not isinstance(record[column], bool)


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_integer_columns_are_json_integers(shared, collection):
    client = shared({c: [sample_row(c, n) for n in (1, 2)] for c in COLLECTIONS})
    rows = [sample_row(collection, n) for n in (1, 2)]
    body = get_list(client, collection)
    assert body == records(collection, rows)
    ints = [c for c in columns(collection) if kind(collection, c) == "int"]
    assert ints
    for record in body:
        for column in ints:
            assert type(record[column]) is int, column
        if collection in NUMBERED:
            assert type(record["numberrow"]) is int


def test_vehicle_created_and_expire_dates_join_date_and_time(make_client):
    full = {"id": 1, "Number": "L 1234 AB", "tgl_create": "2026-03-04", "jam_create": "07:08:09",
            "tgl_expired": "2027-12-31", "jam_expired": "23:59:59"}
    no_times = {"id": 2, "Number": "W 5 X", "tgl_create": "2026-01-02", "jam_create": None,
                "tgl_expired": "2026-06-30", "jam_expired": None}
    no_dates = {"id": 3, "Number": "N 9", "tgl_create": None, "jam_create": "10:11:12",
                "tgl_expired": None, "jam_expired": "13:14:15"}
    nothing = {"id": 4, "Number": None}
    client = make_client({"vehicles": [full, no_times, no_dates, nothing]})
    body = get_list(client, "vehicles")
    assert body == records("vehicles", [full, no_times, no_dates, nothing])
    assert [(r["CreatedDate"], r["ExpireDate"]) for r in body] == [
        ("2026-03-04T07:08:09", "2027-12-31T23:59:59"),
        ("2026-01-02T00:00:00", "2026-06-30T00:00:00"),
        (None, None),
        (None, None),
    ]


def test_dates_and_times_are_iso_text(make_client):
    row = {"id": 1, "tgl_dt1": "2026-11-01", "jam_dt1": "07:30:00", "tgl_dt2": "2026-11-01",
           "jam_dt2": "00:00:00", "tgl_create": "1999-12-31", "jam_create": "23:59:59",
           "tgl_update": None, "jam_update": None}
    client = make_client({"transactions": [row]})
    [record] = get_list(client, "transactions")
    assert record == expected("transactions", row)
    assert (record["tgl_dt1"], record["jam_dt1"], record["jam_dt2"]) == (
        "2026-11-01", "07:30:00", "00:00:00")


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_long_list_is_streamed_complete_and_in_order(shared, collection):
    # More than two fetch batches (of 500 rows), inserted in reverse order.
    count = 1200
    client = shared({c: [sample_row(c, n) for n in range(count, 0, -1)] for c in COLLECTIONS})
    rows = [sample_row(collection, n) for n in range(1, count + 1)]
    response = client.get(f"/{collection}")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert len(body) == count
    assert body == records(collection, rows)
