"""Query arguments (docs/api.md §6.2): each endpoint takes its own and, where it
returns a list, the filters; anything else is a 400 that names it and lists what is
accepted, so that a misspelt filter never answers with the unfiltered list. Names that start
with `_` are ignored. `fields` and `__in` given twice join their values; any other argument
given twice is a 400.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import arguments_client, ensure_rows, shared_client
from tests.helpers import error

ROWS = {"transactions": [{"id": 1, "vehno": "B 1 A", "weigh1": 1.5, "tgl_dt1": "2026-11-01",
                          "jam_dt1": "07:00:00"},
                         {"id": 2, "vehno": "B 2 A", "tgl_dt1": "2026-11-02"}],
        "weighing": [{"id": 1}], "customers": [{"id": 1, "CustName": "PT Maju"}]}
RANGE = "/transactions/date/2026-11-01/00:00/2026-11-30/23:59"


# The tests that read records share a client per engine; the tests of arguments answered 400
# (before any query is built, so whatever the engine) share one on SQLite: `rejects`.


@pytest.fixture(scope="module")
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            module_engine: str) -> FlaskClient:
    return shared_client(request, tmp_path_factory, module_engine, ROWS)


@pytest.fixture
def client(request: pytest.FixtureRequest, module_engine: str, service: FlaskClient
           ) -> FlaskClient:
    ensure_rows(request, module_engine, ROWS)
    return service


@pytest.fixture(scope="module")
def rejects(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return arguments_client(tmp_path_factory, ROWS)


def bad(response: Any, *words: str) -> str:
    """A 400 in the error shape whose message holds every one of `words`."""
    assert response.status_code == 400, response.get_data(as_text=True)
    message = error(response)["message"]
    for word in words:
        assert word in message, (word, message)
    return message


@pytest.mark.parametrize("url", ["/transactions", "/transactions/page/1", RANGE,
                                 f"{RANGE}?page=1"])
def test_a_misspelt_filter_is_a_400_never_the_unfiltered_list(rejects, url) -> None:
    join = "&" if "?" in url else "?"
    message = bad(rejects.get(f"{url}{join}vehnoo=B%201%20A"), "vehnoo", "did you mean vehno?",
                  "format, fields", "vehno", "weighunit2")
    assert "Arguments that start with _ are ignored" in message
    bad(rejects.get(f"{url}{join}isproses__not=1"), "isproses")  # not a weighing field
    bad(rejects.get(f"{url}{join}numberrow=1"), "numberrow")


@pytest.mark.parametrize(("url", "takes"), [
    ("/transactions?pagesize=5", "format, fields and filters"),
    ("/transactions/page/1?size=5", "page_size, format, fields and filters"),
    (f"{RANGE}?of=dt2", "on, page, page_size, format, fields and filters"),
    ("/transactions/1?vehno=B%201%20A", "format, fields."),
    ("/weighing/1?id=1", "format, fields."),
    ("/?collection=customers", "no arguments"),
    ("/health?verbose=1", "no arguments"),
    ("/openapi.json?v=2", "no arguments"),
    ("/docs?x=1", "no arguments"),
])
def test_an_argument_an_endpoint_does_not_take_is_a_400(rejects, url, takes) -> None:
    name = url.split("?")[1].split("=")[0]
    bad(rejects.get(url), f"unknown argument '{name}'", f"This endpoint takes {takes}")


def test_page_on_a_list_points_at_the_page_path(rejects) -> None:
    message = bad(rejects.get("/transactions?page=2&vehno=B%201%20A"), "unknown argument 'page'",
                  "a list's pages are paths: /transactions/page/N (with ?page_size=M and the "
                  "same filters).")
    assert "did you mean" not in message
    # Elsewhere `page` is either taken (a range) or not a list's (a page, a record).
    for other in ("/transactions/1?page=2", "/transactions/page/1?page=2"):
        assert "pages are paths" not in bad(rejects.get(other), "unknown argument 'page'")


@pytest.mark.parametrize("url", ["/transactions", "/transactions/page/1", RANGE,
                                 "/transactions/1", "/", "/health", "/openapi.json", "/docs"])
def test_arguments_that_start_with_an_underscore_are_ignored(client, url) -> None:
    plain = client.get(url)
    assert plain.status_code == 200
    busted = client.get(f"{url}?_=1700000000&_cache=x&__=1")
    assert (busted.status_code, busted.data) == (200, plain.data)


@pytest.mark.parametrize(("argument", "words"), [
    ("vehno__like=B", ["unknown operator 'like'", "vehno__not, vehno__in, vehno__isnull"]),
    ("id__between=1", ["unknown operator 'between'", "id__gt, id__gte, id__lt, id__lte"]),
    ("vehno__gt=B", ["vehno is text", "__gt, __gte, __lt and __lte apply to numbers"]),
    ("custcode__lte=A", ["custcode is text"]),
    ("id=1.5", ["id takes an integer in digits", "'1.5'"]),
    ("id=%D9%A1", ["id takes an integer in digits"]),
    ("id__in=1,,2", ["id__in takes an integer in digits", "''"]),
    ("id=99999999999999999999", ["id takes an integer from -9223372036854775808 to "
                                 "9223372036854775807"]),
    ("weigh1=0x10", ["weigh1 takes a number in decimal notation"]),
    ("weigh1=1,5", ["weigh1 takes a number in decimal notation"]),
    ("weigh1__gt=NaN", ["weigh1__gt takes a number in decimal notation"]),
    ("weigh1__gt=Infinity", ["weigh1__gt takes a number in decimal notation"]),
    ("weigh1=" + "9" * 400, ["weigh1 takes a finite number, at most about 1.8e308"]),
    ("weigh1__lt=1e999", ["weigh1__lt takes a finite number"]),
    ("tgl_dt1=2026-02-30", ["'2026-02-30' is not a date of the calendar", "YYYY-MM-DD"]),
    ("tgl_dt1__gte=01-11-2026", ["tgl_dt1__gte takes a date YYYY-MM-DD"]),
    ("jam_dt1=24:00", ["jam_dt1 takes a time HH:MM or HH:MM:SS"]),
    ("jam_dt1__lt=7:30", ["jam_dt1__lt takes a time HH:MM or HH:MM:SS"]),
    ("vehno__isnull=yes", ["vehno__isnull takes true or false", "'yes'"]),
    ("vehno=B%00", ["NUL character"]),
    ("id__in=" + ",".join(["1"] * 1001), ["at most 1000 filter values"]),
])
def test_a_filter_that_does_not_fit_is_a_400_saying_what_is_accepted(rejects, argument,
                                                                       words) -> None:
    for url in ("/transactions", "/transactions/page/1", RANGE):
        bad(rejects.get(f"{url}?{argument}"), *words)


@pytest.mark.parametrize("repeated", [
    "format=json&format=csv", "format=json&format=json", "page_size=1&page_size=2",
    "vehno=B%201%20A&vehno=B%202%20A", "id__gte=1&id__gte=2",
    "vehno__isnull=true&vehno__isnull=true",
])
def test_an_argument_given_twice_is_a_400(rejects, repeated) -> None:
    name = repeated.split("=")[0]
    for url in ("/transactions/page/1", f"{RANGE}?page=1"):
        join = "&" if "?" in url else "?"
        message = bad(rejects.get(f"{url}{join}{repeated}"), f"{name} is given 2 times")
        if "__" not in name and name not in ("format", "page_size"):
            assert f"{name}__in=v1,v2" in message
    bad(rejects.get(f"{RANGE}?on=dt1&on=dt2"), "on is given 2 times")
    bad(rejects.get(f"{RANGE}?page=1&page=2"), "page is given 2 times")


def test_fields_given_twice_join_in_order(client) -> None:
    """What generated clients send for an array: fields=id&fields=vehno."""
    for url in ("/transactions", "/transactions/page/1", RANGE, "/transactions/1"):
        join = "&" if "?" in url else "?"
        twice = client.get(f"{url}{join}fields=vehno&fields=id")
        once = client.get(f"{url}{join}fields=vehno,id")
        assert twice.status_code == 200
        assert twice.data == once.data
        body = twice.get_json()
        assert list(body[0] if isinstance(body, list) else body) == ["vehno", "id"]
    bad(client.get("/transactions?fields=id&fields=id"), "a field is named twice")


def test_a_filter_and_its_operator_on_one_field(client) -> None:
    got = client.get("/transactions?id__gte=1&id__lt=2&vehno__not=B%202%20A&fields=id")
    assert got.get_json() == [{"id": 1}]
