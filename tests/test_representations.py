"""CSV (`?format=csv`, `Accept: text/csv`), `?fields=` and conditional requests (ETag, 304),
docs/api.md §5.8-§5.10: what an ERP integrator or a spreadsheet user relies on."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.formats.registry import FORMATS
from tests.contract import COLLECTIONS, expected
from tests.helpers import AWKWARD_WEIGHINGS, HARMLESS_TEXTS, HOSTILE_TEXTS, sheet_text

# Every test here only reads: they share a database per engine holding these tables (the
# `shared` fixture); each reads its own collection's rows alone.
TABLES = {"transactions": AWKWARD_WEIGHINGS, "weighing": AWKWARD_WEIGHINGS,
          "customers": [{"id": 1, "CustCode": "C1"}],
          "vehicles": [{"id": 1, "Number": "L 1 A", "tgl_create": "2026-01-02",
                        "jam_create": None}]}


def json_cell(value: Any) -> str:
    """What a CSV cell must hold for a JSON value (docs/api.md §5.8: as in JSON, NULL empty);
    numbers are kept as the JSON text wrote them (see as_written), booleans as JSON writes
    them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


def as_written(text: str) -> Any:
    """JSON with every number as the string of digits the response wrote."""
    return json.loads(text, parse_float=str, parse_int=str)


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("collection", ["transactions", "weighing"])
def test_csv_read_back_gives_the_json_values(shared, collection: str) -> None:
    client = shared(TABLES)
    as_json = as_written(client.get(f"/{collection}").get_data(as_text=True))
    response = client.get(f"/{collection}?format=csv")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="{collection}.csv"'
    text = response.get_data().decode("utf-8")
    assert text.endswith("\r\n")  # RFC 4180 line ends
    rows = read_csv(text)
    names = COLLECTIONS[collection][0]
    assert rows[0] == names
    assert rows[1:] == [[json_cell(record[n]) for n in names] for record in as_json]
    # Values exactly as stored: no formula-injection prefix, signs and + kept.
    by_id = {r[names.index("id")]: dict(zip(names, r, strict=True)) for r in rows[1:]}
    assert by_id["1"]["custcode"] == "+62 31 7512345"
    assert by_id["1"]["productcode"] == "=SUM(A1:A2)"
    assert by_id["1"]["weigh1"] == "-0.5"
    assert by_id["1"]["remark"] == "line one\nline two, with comma"
    assert by_id["2"]["custcode"] == "Café – Sidoarjo ✓ 日本"
    assert by_id["3"]["custcode"] == ""


def test_accept_text_csv_asks_for_csv(shared) -> None:
    client = shared(TABLES)
    response = client.get("/customers", headers={"Accept": "text/csv"})
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert read_csv(response.get_data(as_text=True)) == [
        ["id", "CustCode", "CustName", "Address", "City", "Phone", "Contact", "Remark"],
        ["1", "C1", "", "", "", "", "", ""]]
    browser = client.get("/customers", headers={"Accept": "text/html,*/*;q=0.8"})
    assert browser.headers["Content-Type"] == "application/json"
    assert client.get("/customers?format=json", headers={"Accept": "text/csv"}).headers[
        "Content-Type"] == "application/json"  # ?format= wins


def test_csv_pages_and_ranges_with_file_names(shared) -> None:
    client = shared(TABLES)
    page = client.get("/transactions/page/1?page_size=2&format=csv")
    assert page.headers["Content-Disposition"] == 'attachment; filename="transactions-page-1.csv"'
    assert [r[0] for r in read_csv(page.get_data(as_text=True))] == ["id", "1", "2"]
    assert json.loads(page.headers["X-Pagination"])["total"] == 3
    assert "format=csv" in page.headers["Link"]
    ranged = client.get("/transactions/date/2026-11-01/00:00/2026-11-30/23:59:59?format=csv")
    assert ranged.headers["Content-Disposition"] == (
        'attachment; filename="transactions-2026-11-01_2026-11-30.csv"')
    assert [r[0] for r in read_csv(ranged.get_data(as_text=True))] == ["id", "1", "2"]


def test_csv_of_an_empty_table_is_its_header(shared) -> None:
    client = shared(TABLES)
    assert client.get("/products?format=csv").get_data(as_text=True) == (
        "id,ProductCode,ProductName,Unit,Remark\r\n")


def test_fields_in_the_order_asked(shared) -> None:
    client = shared(TABLES)
    want = ["weigh1", "id", "numberrow", "custcode"]
    records = client.get("/weighing?fields=" + ",".join(want)).get_json()
    full = [expected("weighing", row, n) for n, row in enumerate(AWKWARD_WEIGHINGS, 1)]
    assert records == [{f: r[f] for f in want} for r in full]
    assert [list(r) for r in records] == [want] * 3
    one = client.get("/weighing/2?fields=custcode,numberrow").get_json()
    assert list(one.items()) == [("custcode", full[1]["custcode"]), ("numberrow", 2)]
    page = client.get("/weighing/page/2?page_size=2&fields=id").get_json()
    assert page == [{"id": 3}]
    ranged = client.get("/weighing/date/2026-11-01/00:00/2026-11-02/00:00?fields=id,jam_dt1")
    assert ranged.get_json() == [{"id": 1, "jam_dt1": "07:00:00"}, {"id": 2, "jam_dt1": None}]
    csv_rows = read_csv(client.get("/weighing?format=csv&fields=custcode,id").get_data(
        as_text=True))
    assert csv_rows == [["custcode", "id"], ["+62 31 7512345", "1"],
                        ["Café – Sidoarjo ✓ 日本", "2"], ["", "3"]]


def test_vehicles_computed_fields_can_be_chosen(shared) -> None:
    client = shared(TABLES)
    assert client.get("/vehicles?fields=CreatedDate,Number").get_json() == [
        {"CreatedDate": "2026-01-02T00:00:00", "Number": "L 1 A"}]


@pytest.mark.parametrize("query", ["fields=id,nope,zz", "fields=", "fields=id,id",
                                   "fields=ID", "format=xml", "format="])
def test_bad_fields_or_format_is_400_naming_them(shared, query: str) -> None:
    client = shared(TABLES)
    for url in (f"/customers?{query}", f"/customers/1?{query}",
                f"/customers/page/1?{query}"):
        response = client.get(url)
        assert response.status_code == 400, url
        body = response.get_json()
        assert body["code"] == 400 and body["status"] == "Bad Request"
        if "nope" in query:
            assert "nope, zz" in body["message"] and "CustCode" in body["message"]


def test_etag_and_304_on_records_pages_and_range_pages(shared) -> None:
    client = shared(TABLES)
    for url in ("/transactions/1", "/transactions/page/1?page_size=2",
                "/transactions/date/2026-11-01/00:00/2026-11-30/00:00?page=1",
                "/transactions/1?format=csv", "/transactions/page/1?fields=id"):
        first = client.get(url)
        tag = first.headers["ETag"]
        assert tag.startswith('"') and not tag.startswith('W/'), url  # strong
        assert first.headers["Cache-Control"] == "no-cache"
        again = client.get(url, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.data == b"", url
        assert again.headers["ETag"] == tag
        other = client.get(url, headers={"If-None-Match": '"something-else"'})
        assert other.status_code == 200 and other.data == first.data
    # Another representation is another tag.
    assert client.get("/transactions/1").headers["ETag"] != client.get(
        "/transactions/1?format=csv").headers["ETag"]


def test_streams_carry_no_etag(shared) -> None:
    client = shared(TABLES)
    assert "ETag" not in client.get("/transactions").headers


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_is_asked_for_by_name_or_media_type(shared, name: str) -> None:
    """Each entry of the formats' registry answers a page, a record and a summary, asked by
    ?format= or by Accept alike, with its media type and, for a download, its file name
    (docs/api.md §5.8)."""
    entry = FORMATS[name]
    client = shared(TABLES)
    for path, stem in (("/transactions/page/1?page_size=2", "transactions-page-1"),
                       ("/transactions/1", "transactions-1"),
                       ("/transactions/summary/2026-11-01/00:00/2026-11-30/23:59:59",
                        "transactions-summary-2026-11-01_2026-11-30")):
        named = client.get(f"{path}{'&' if '?' in path else '?'}format={name}")
        # An entry asked for by name only (its media type is another's): Accept gets that one.
        accepted = client.get(path, headers={"Accept": entry.media_type}
                              if entry.negotiated else {})
        for response in (named, accepted) if entry.negotiated else (named,):
            assert response.status_code == 200, (path, response.get_data(as_text=True))
            assert response.mimetype == entry.media_type, path
            disposition = response.headers.get("Content-Disposition")
            assert disposition == (f'attachment; filename="{stem}.{entry.extension}"'
                                   if entry.extension else None), path
        assert named.get_data() == accepted.get_data() or not entry.negotiated, path


def test_the_reference_names_every_format() -> None:
    """docs/api.md §5.8 says which ?format= values there are: the registry's, no other."""
    text = (Path(__file__).parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    [sentence] = re.findall(r"anything but ([^.]*?) is `400`", text)
    assert sorted(re.findall(r"`([a-z0-9-]+)`", sentence)) == sorted(FORMATS)


# Each stored text a spreadsheet program would run as a formula, and each that only looks like
# it (tests/helpers.py), in a weighing of its own, beside negative weights.
SHEET_ROWS = [{"id": n, "custcode": text, "remark": text, "vehno": f"L {n} A",
               "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00", "weigh1": -5.2, "weigh2": -1.0}
              for n, text in enumerate(HOSTILE_TEXTS + HARMLESS_TEXTS, 1)]


def people_cell(value: Any, written: Any) -> str:
    """A JSON value's cell in CSV for people: a JSON string with a single quote wherever a
    cell may begin a formula (sheet_text); anything else (a number as the JSON wrote it) as
    in the CSV for programs."""
    return sheet_text(value) if isinstance(value, str) else json_cell(written)


def program_cell(value: Any, written: Any) -> str:
    return json_cell(written)


@pytest.mark.parametrize("path", [
    "/transactions", "/transactions/1", "/transactions/page/1?page_size=5",
    "/transactions/summary/2026-11-01/00:00/2026-11-30/23:59:59?by=custcode,vehno"])
def test_csv_for_people_is_inert_and_csv_for_programs_exact(make_client, path: str) -> None:
    """format=csv-sheet: a single quote wherever a text value would begin a formula, at its
    start or after a `;`, a tab or a line break, numbers (-5.2) untouched; format=csv and
    Accept: text/csv: every value as stored (docs/api.md §5.8)."""
    client = make_client({"transactions": SHEET_ROWS})
    body = client.get(path).get_data(as_text=True)
    typed, written = json.loads(body), as_written(body)
    if isinstance(typed, dict):
        typed, written = [typed], [written]
    names = list(typed[0])
    join = "&" if "?" in path else "?"
    for cell, query, headers in ((program_cell, "", {"Accept": "text/csv"}),
                                 (program_cell, f"{join}format=csv", {}),
                                 (people_cell, f"{join}format=csv-sheet", {})):
        response = client.get(path + query, headers=headers)
        assert (response.status_code, response.mimetype) == (200, "text/csv"), query
        want = [names] + [[cell(t[n], w[n]) for n in names]
                          for t, w in zip(typed, written, strict=True)]
        assert read_csv(response.get_data(as_text=True)) == want, query
