"""Cancelled tickets (docs/api.md §6.3): a weighing's `cancelled`, the condition the site's
mapping gives (1 cancelled; 0 or NULL not). Lists, pages, ranges, counts, CSV and a record by
key send every record, the cancelled ones marked; `?cancelled=true|false|all` asks only for
them, for the others or for both; summaries and workbooks leave them out unless a filter
names them. Every expected answer is computed here from the rows inserted, on every engine.
(The feed's delivery of a cancellation: tests/test_changes.py and the feed soak.)
"""

from __future__ import annotations

import io
import json
from typing import Any

import openpyxl
import pytest

from app.model.labels import FIELD_LABELS
from tests.contract import COLLECTIONS, PAIRS
from tests.helpers import error, grouped, in_range, make_row, records, weighing

WEIGHINGS = ["transactions", "weighing", "timbangan1", "timbangan2"]
NUMBERED = {"weighing", "timbangan1", "timbangan2"}
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def ticket(n: int, day: str, clock: str | None, product: str, cancelled: int | None,
           weigh1: float, weigh2: float | None) -> dict[str, Any]:
    return make_row("transactions", n, {"dt1": (day, clock)}, productcode=product,
                    custcode=f"SUP-{n % 2}", cancelled=cancelled, weigh1=weigh1,
                    weigh2=weigh2)


# Three days of tickets in id order, some voided by the weighbridge program (1), a NULL
# condition (not cancelled) among the others, a cancelled ticket alone in its group (RM009),
# and one day (2026-11-19) whose only ticket is cancelled.
ROWS = [
    ticket(1, "2026-11-18", "07:00:00", "RM001", 0, 30000.0, 10000.0),
    ticket(2, "2026-11-18", "08:00:00", "RM001", 1, 28000.0, 9000.0),
    ticket(3, "2026-11-18", "09:30:00", "CPO", None, 9000.0, 37000.0),
    ticket(4, "2026-11-18", None, "CPO", 1, 9500.0, 36500.5),
    ticket(5, "2026-11-19", "10:00:00", "RM001", 1, 31000.0, 11000.0),
    ticket(6, "2026-11-20", "06:00:00", "RM009", 1, 12000.0, None),
    ticket(7, "2026-11-20", "06:30:00", "RM001", 0, 29000.0, 9500.0),
    ticket(8, "2026-11-20", "23:59:59", "CPO", 0, 8800.0, 36000.25),
]
TABLES = {c: ROWS for c in WEIGHINGS}
RANGE = "date/2026-11-18/00:00/2026-11-20/23:59:59"
START, END = "2026-11-18T00:00:00", "2026-11-20T23:59:59"


def cancelled(row: dict[str, Any]) -> bool:
    """The contract's reading of the condition: 1 is true; 0 and NULL false."""
    return row.get("cancelled") == 1


KEEP = {"true": cancelled, "false": lambda r: not cancelled(r), "all": lambda r: True}


def listed(collection: str, rows: list[dict[str, Any]], filtered: bool) -> list[dict[str, Any]]:
    """The records of these rows as a list sends them: numbered only when unfiltered."""
    out = records(collection, rows)
    if filtered and collection in NUMBERED:
        out = [r | {"numberrow": None} for r in out]
    return out


def in_range_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    day, clock = PAIRS["dt1"]
    return sorted(in_range(rows, PAIRS["dt1"], START, END),
                  key=lambda r: (r[day], r.get(clock) is not None, r.get(clock) or "", r["id"]))


def total(response: Any) -> int:
    """The records counted in X-Pagination."""
    return json.loads(response.headers["X-Pagination"])["total"]


def get(client: Any, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


@pytest.mark.parametrize("collection", WEIGHINGS)
def test_lists_pages_and_ranges_send_every_record_marked(shared, collection: str) -> None:
    client = shared(TABLES)
    assert get(client, f"/{collection}").get_json() == listed(collection, ROWS, False)
    page = get(client, f"/{collection}/page/2?page_size=3")
    assert page.get_json() == listed(collection, ROWS, False)[3:6]
    assert total(page) == len(ROWS)
    ranged = [r | ({"numberrow": None} if collection in NUMBERED else {})
              for r in records(collection, in_range_order(ROWS))]
    assert get(client, f"/{collection}/{RANGE}").get_json() == ranged
    # 4 first (a NULL time counts as 00:00:00), then 1, 2, 3, 5, 6, 7, 8.
    assert [r["cancelled"] for r in ranged] == [True, False, True, False, True, True, False,
                                                False]


@pytest.mark.parametrize("collection", WEIGHINGS)
@pytest.mark.parametrize("value", ["true", "false", "all", "TRUE", "False"])
def test_the_filter_asks_only_for_them_for_the_others_or_for_both(shared, collection: str,
                                                                   value: str) -> None:
    client = shared(TABLES)
    keep = KEEP[value.lower()]
    filtered = value.lower() != "all"
    kept = [r for r in ROWS if keep(r)]
    body = get(client, f"/{collection}?cancelled={value}").get_json()
    assert body == listed(collection, kept, filtered)
    page = get(client, f"/{collection}/page/1?page_size=2&cancelled={value}")
    assert page.get_json() == listed(collection, kept, filtered)[:2]
    assert total(page) == len(kept)
    ranged = [r | ({"numberrow": None} if collection in NUMBERED else {})
              for r in records(collection, in_range_order(kept))]
    assert get(client, f"/{collection}/{RANGE}?cancelled={value}").get_json() == ranged
    paged = get(client, f"/{collection}/{RANGE}?page=1&page_size=100&cancelled={value}")
    assert paged.get_json() == ranged
    assert total(paged) == len(ranged)


def test_a_record_by_key_still_answers_with_its_status(shared) -> None:
    client = shared(TABLES)
    for row in ROWS:
        assert get(client, f"/transactions/{row['id']}").get_json() == records(
            "transactions", [row])[0]
    assert get(client, "/transactions/2").get_json()["cancelled"] is True
    assert get(client, "/transactions/3").get_json()["cancelled"] is False  # NULL: false
    second = get(client, "/weighing/2").get_json()  # numberrow 2 is the row of id 2
    assert second == records("weighing", ROWS)[1] and second["cancelled"] is True


SUMMARY = "summary/2026-11-18/00:00/2026-11-20/23:59:59"


@pytest.mark.parametrize("collection", WEIGHINGS)
@pytest.mark.parametrize("by", [["day"], ["day", "productcode"], ["direction"]])
def test_summaries_leave_cancelled_tickets_out(shared, collection: str, by: list[str]) -> None:
    client = shared(TABLES)
    ranged = in_range(ROWS, PAIRS["dt1"], START, END)
    url = f"/{collection}/{SUMMARY}?by={','.join(by)}"
    kept = [r for r in ranged if not cancelled(r)]
    want = grouped(kept, by, PAIRS["dt1"], weighing)
    assert get(client, url).get_json() == want
    assert get(client, url + "&cancelled=false").get_json() == want
    # The clerk's "how many were cancelled", and the figures as they were before.
    assert get(client, url + "&cancelled=true").get_json() == grouped(
        [r for r in ranged if cancelled(r)], by, PAIRS["dt1"], weighing)
    assert get(client, url + "&cancelled=all").get_json() == grouped(
        ranged, by, PAIRS["dt1"], weighing)


def test_a_day_of_cancelled_tickets_alone_has_no_group(shared) -> None:
    client = shared(TABLES)
    body = get(client, "/transactions/summary/2026-11-19/00:00/2026-11-19/23:59").get_json()
    assert body == []


def test_csv_sends_every_record_with_true_and_false(shared) -> None:
    client = shared(TABLES)
    text = get(client, "/transactions?format=csv&fields=id,cancelled").get_data(as_text=True)
    assert text == "id,cancelled\r\n" + "".join(
        f"{r['id']},{'true' if cancelled(r) else 'false'}\r\n" for r in ROWS)


def sheet(response: Any) -> list[tuple[Any, ...]]:
    assert response.headers["Content-Type"] == XLSX
    book = openpyxl.load_workbook(io.BytesIO(response.get_data()))
    return list(book.active.iter_rows(values_only=True))


@pytest.mark.parametrize("url", ["/transactions", "/transactions/page/1?page_size=50",
                                 f"/transactions/{RANGE}", f"/weighing/{RANGE}?page=1"])
def test_workbooks_leave_cancelled_tickets_out_unless_asked(shared, url: str) -> None:
    client = shared(TABLES)
    join = "&" if "?" in url else "?"
    fields = f"{join}fields=id,productcode,cancelled"
    ranged = "/date/" in url
    for asked, keep in (("", KEEP["false"]), ("&cancelled=all", KEEP["all"]),
                        ("&cancelled=true", KEEP["true"])):
        rows = [r for r in (in_range_order(ROWS) if ranged else ROWS) if keep(r)]
        got = sheet(get(client, f"{url}{fields}{asked}&format=xlsx"))
        assert got == [tuple(FIELD_LABELS[f] for f in ("id", "productcode", "cancelled"))] + [
            (r["id"], r["productcode"], cancelled(r)) for r in rows]
    # The same request as JSON sends them all: only the workbook leaves them out.
    assert len(get(client, f"{url}{fields}").get_json()) == len(
        in_range_order(ROWS) if ranged else ROWS)


def test_a_wrong_value_says_what_is_accepted(shared) -> None:
    client = shared(TABLES)
    for url in ("/transactions?cancelled=maybe", f"/transactions/{SUMMARY}?cancelled=1"):
        response = client.get(url)
        body = error(response)
        assert response.status_code == 400
        assert "true" in body["message"] and "false" in body["message"], body
        assert "all (both)" in body["message"], body
    body = error(client.get("/transactions?cancelled__not=true"))
    assert body["code"] == 400
    assert ("cancelled is a condition: it takes cancelled= alone, with true (only the "
            "cancelled), false (none of them) or all (both)") in body["message"], body


def test_only_weighings_have_the_field(shared) -> None:
    client = shared(TABLES)
    body = error(client.get("/vehicles?cancelled=true"))
    assert body["code"] == 400 and "unknown argument 'cancelled'" in body["message"]
    assert "cancelled" not in COLLECTIONS["vehicles"][0]
