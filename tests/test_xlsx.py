"""Excel workbooks (`?format=xlsx`, docs/api.md §5.8): each workbook is read
back with openpyxl (and with LibreOffice) and compared with the JSON answer of the same
request, converted here on its own: what a spreadsheet user sees must be what an ERP gets.
Row 1 heads each column with the site's label (the defaults of app/model/labels.py, or
[site.fields]); the fields a site maps to NULL are not columns unless ?fields= asks."""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from app.formats import xlsx
from app.model.collections import COLLECTIONS as SERVED
from app.model.labels import FIELD_LABELS
from app.model.schemas import Boolean, Date, Integer, Number, String, Time
from app.ops.config import SHIPPED_SQL_DIR
from tests.contract import COLLECTIONS, columns
from tests.helpers import AWKWARD_WEIGHINGS, HOSTILE_TEXTS, sheet_text

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SOFFICE = shutil.which("soffice") or "/usr/bin/soffice"
# `make test` installs libreoffice-calc-nogui; a bare pytest without it skips, in CI it fails.
needs_soffice = pytest.mark.skipif(
    not os.access(SOFFICE, os.X_OK) and not os.environ.get("CI"),
    reason="LibreOffice (libreoffice-calc-nogui) is not installed (make test does)")

# What each field is, by the names of docs/api.md §3 (not from the code under test).
DATETIMES = {"CreatedDate", "ExpireDate"}


def is_date(name: str) -> bool:
    return name.startswith("tgl_") or name in ("tanggal", "day")


def is_time(name: str) -> bool:
    return name.startswith("jam_") or name == "jam"


def to_ms(value: Any) -> Any:
    """A time or datetime to the millisecond, as a spreadsheet keeps it."""
    return value.replace(microsecond=round(value.microsecond, -3))


def cell(name: str, value: Any) -> Any:
    """What openpyxl reads from the cell of a JSON value (docs/api.md §5.8: typed cells)."""
    if value is None:
        return None
    if name in DATETIMES:
        return to_ms(dt.datetime.fromisoformat(value))
    if is_date(name):
        day = dt.date.fromisoformat(value)
        # Excel has no date before 1900 and miscounts those before March 1900: text.
        return value if day < dt.date(1900, 3, 1) else dt.datetime(day.year, day.month, day.day)
    if is_time(name):
        return to_ms(dt.time.fromisoformat(value))
    return value  # int, float, str and a boolean (a cell of type b) as JSON has them


def xstring(text: str) -> str:
    """A text as ECMA-376's _xHHHH_ escape reads back (openpyxl leaves it as written)."""
    return re.sub(r"_x([0-9A-F]{4})_", lambda m: chr(int(m.group(1), 16)), text)


def workbook(response: Any) -> openpyxl.Workbook:
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.headers["Content-Type"] == XLSX
    return openpyxl.load_workbook(io.BytesIO(response.get_data()))


def sheet_rows(sheet: Any) -> list[list[Any]]:
    return [[xstring(v) if isinstance(v, str) else v for v in row]
            for row in sheet.iter_rows(values_only=True)]


def headings(names: list[str], labels: dict[str, str] = FIELD_LABELS) -> list[str]:
    """Row 1: each column's label, its API name where it has none."""
    return [labels.get(n, n) for n in names]


def expected_rows(names: list[str], records: list[dict[str, Any]],
                  labels: dict[str, str] = FIELD_LABELS) -> list[list[Any]]:
    return [headings(names, labels)] + [[cell(n, r[n]) for n in names] for r in records]


def assert_types(got: list[list[Any]], want: list[list[Any]]) -> None:
    """Equal and of the same types (1 and 1.0, a date and its text are not the same cell)."""
    assert got == want
    for got_row, want_row in zip(got, want, strict=True):
        assert [type(v) for v in got_row] == [type(v) for v in want_row], got_row


def assert_header(sheet: Any, names: list[str], title: str, rows: int) -> None:
    assert sheet.title == title
    assert sheet.freeze_panes == "A2"
    last = xlsx.column_letter(len(names) - 1)
    assert sheet.auto_filter.ref == f"A1:{last}{rows}"
    assert all(c.font.b for c in sheet[1])
    assert not any(c.font.b for row in sheet.iter_rows(min_row=2) for c in row)
    assert sheet.column_dimensions["A"].width >= 10


def sample_row(collection: str, n: int) -> dict[str, Any]:
    """A row of `collection` with every column filled, each value of its column's type."""
    declared = next(c for c in SERVED if c.name == collection).schema._declared_fields
    row: dict[str, Any] = {}
    for i, name in enumerate(columns(collection)):
        kind = type(declared[name])
        row[name] = {Integer: n * 100 + i, Number: n * 1000.5 + i, String: f"{name} {n}",
                     Date: f"2026-11-{n:02d}", Time: f"0{n}:{i % 60:02d}:05",
                     Boolean: 0}[kind]  # none cancelled: a workbook leaves those out
    return row


# The rows of the tests that only read, two databases per engine for them all (`shared`):
# every collection's rows filled in every column, and a third row of NULLs but its key;
SAMPLES = {c: [sample_row(c, 1), sample_row(c, 2), {columns(c)[0]: 3}] for c in COLLECTIONS}
# and the weighings whose values are hard to write out, with one more of every kind (4), no
# products (an empty table).
AWKWARD = {"transactions": [
    *AWKWARD_WEIGHINGS,
    {"id": 4, "custcode": "=1+1", "drivername": "<&> \"'", "remark": " two  spaces ",
     "noct": "bell\x07 and unit separator\x1f _x0041_ tab\tline\n", "dono": "",
     "tgl_dt1": "1900-01-01", "jam_dt1": "23:59:59.123456", "tgl_dt2": "2026-02-28",
     "jam_dt2": "00:00:00", "weigh1": 123456789012, "weigh2": -0.0001}],
    "weighing": AWKWARD_WEIGHINGS}


@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_workbook_read_back_gives_the_json_values(shared, collection: str) -> None:
    client = shared(SAMPLES)
    # A workbook of weighings is the JSON of cancelled=false (docs/api.md §6.3): numberrow
    # null, as in any filtered answer.
    weighings = "cancelled" in COLLECTIONS[collection][0]
    as_json = client.get(f"/{collection}" + ("?cancelled=false" if weighings else "")
                         ).get_json()
    response = client.get(f"/{collection}?format=xlsx")
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="{collection}.xlsx"')
    book = workbook(response)
    assert book.sheetnames == [collection]
    names = COLLECTIONS[collection][0]
    assert_types(sheet_rows(book.active), expected_rows(names, as_json))
    assert_header(book.active, names, collection, 4)


def test_values_of_every_kind_and_text_that_is_never_a_formula(shared) -> None:
    client = shared(AWKWARD)
    as_json = client.get("/transactions").get_json()
    response = client.get("/transactions?format=xlsx")
    names = COLLECTIONS["transactions"][0]
    got = sheet_rows(workbook(response).active)
    assert_types(got, expected_rows(names, as_json))
    four = dict(zip(names, got[4], strict=True))
    assert four["custcode"] == "=1+1" and four["drivername"] == "<&> \"'"
    assert four["remark"] == " two  spaces" and four["dono"] == ""  # trailing blanks: §4
    assert four["noct"] == "bell\x07 and unit separator\x1f _x0041_ tab\tline\n"
    if "." in as_json[3]["jam_dt1"]:  # (the SQLite ODBC driver drops fractions of a second)
        assert four["jam_dt1"] == dt.time(23, 59, 59, 123000)  # to the millisecond
    with zipfile.ZipFile(io.BytesIO(response.get_data())) as z:
        sheet = z.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet and "<f " not in sheet  # no formula, ever
    assert '<t xml:space="preserve"> two  spaces</t>' in sheet  # its leading blank kept
    assert "_x0007_" in sheet and "_x005F_x0041_" in sheet


def test_a_summary_as_a_workbook(shared) -> None:
    client = shared(AWKWARD)
    url = "/transactions/summary/2026-11-01/00:00/2026-11-30/23:59:59?by=day,productcode"
    as_json = client.get(url).get_json()
    response = client.get(url + "&format=xlsx")
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="transactions-summary-2026-11-01_2026-11-30.xlsx"')
    book = workbook(response)
    names = list(as_json[0])
    # The name beside the code (docs/api.md §7), a text cell like any other.
    assert names[:4] == ["day", "productcode", "productname", "records"]
    assert_types(sheet_rows(book.active), expected_rows(names, as_json))
    assert_header(book.active, names, "summary", len(as_json) + 1)
    hours = client.get("/bricon2/summary/2026-11-01/00:00/2026-11-30/23:59:59?by=hour,month"
                       "&format=xlsx")
    assert sheet_rows(workbook(hours).active)[0][:3] == ["Hour", "Month", "Batches"]


def test_a_streamed_range_as_a_workbook(make_client) -> None:
    day = dt.datetime(2026, 11, 1)
    rows = [{"id": i, "vehno": f"L {i} AB", "weigh1": i * 1.5, "weigh2": i,
             "tgl_dt1": (day + dt.timedelta(minutes=i)).date().isoformat(),
             "jam_dt1": (day + dt.timedelta(minutes=i)).time().isoformat()}
            for i in range(1, 2601)]
    client = make_client({"transactions": rows})
    url = ("/transactions/date/2026-11-01/00:00/2026-11-20/23:59"
           "?fields=id,vehno,tgl_dt1,jam_dt1,weigh1")
    as_json = client.get(url).get_json()
    response = client.get(url + "&format=xlsx")
    assert response.is_streamed and "Content-Length" not in response.headers
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="transactions-2026-11-01_2026-11-20.xlsx"')
    names = ["id", "vehno", "tgl_dt1", "jam_dt1", "weigh1"]
    book = workbook(response)
    assert len(as_json) == 2600
    assert_types(sheet_rows(book.active), expected_rows(names, as_json))
    assert_header(book.active, names, "transactions", 2601)


def test_accept_pages_keys_and_file_names(shared) -> None:
    client = shared(AWKWARD)
    asked = client.get("/transactions", headers={"Accept": XLSX})
    assert asked.headers["Content-Type"] == XLSX and asked.headers["Vary"] == "Accept"
    assert client.get("/transactions?format=json", headers={"Accept": XLSX}).headers[
        "Content-Type"] == "application/json"  # ?format= wins
    assert client.get("/transactions?format=csv", headers={"Accept": XLSX}).headers[
        "Content-Type"] == "text/csv; charset=utf-8"
    page = client.get("/weighing/page/2?page_size=2&format=xlsx")
    assert page.headers["Content-Disposition"] == 'attachment; filename="weighing-page-2.xlsx"'
    assert "format=xlsx" in page.headers["Link"]
    names = COLLECTIONS["weighing"][0]
    assert sheet_rows(workbook(page).active) == expected_rows(
        names, client.get("/weighing/page/2?page_size=2&cancelled=false").get_json())
    numbered = client.get("/weighing/page/2?page_size=2&format=xlsx&cancelled=all")
    assert sheet_rows(workbook(numbered).active) == expected_rows(
        names, client.get("/weighing/page/2?page_size=2").get_json())
    one = client.get("/weighing/2?format=xlsx&fields=custcode,numberrow")
    assert one.headers["Content-Disposition"] == 'attachment; filename="weighing-2.xlsx"'
    assert sheet_rows(workbook(one).active) == [["Supplier / customer code", "No."],
                                                 ["Café – Sidoarjo ✓ 日本", 2]]
    ranged = client.get("/transactions/date/2026-11-01/00:00/2026-11-30/23:59?page=1"
                        "&page_size=1&format=xlsx")
    assert ranged.headers["Content-Disposition"] == (
        'attachment; filename="transactions-2026-11-01_2026-11-30.xlsx"')
    assert [r[0] for r in sheet_rows(workbook(ranged).active)] == ["ID", 1]


def test_an_empty_table_is_its_header(shared) -> None:
    assert "products" not in AWKWARD
    book = workbook(shared(AWKWARD).get("/products?format=xlsx"))
    assert sheet_rows(book.active) == [headings(COLLECTIONS["products"][0])]
    assert book.active.auto_filter.ref == "A1:E1"


def test_etag_304_and_the_same_bytes_for_the_same_rows(shared) -> None:
    client = shared(AWKWARD)
    for url in ("/transactions/1?format=xlsx", "/transactions/page/1?format=xlsx"):
        first = client.get(url)
        tag = first.headers["ETag"]
        again = client.get(url, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.data == b""
        assert client.get(url).data == first.data  # fixed zip timestamps
    assert client.get("/transactions?format=xlsx").data == client.get(
        "/transactions?format=xlsx").data


def test_head_and_errors_as_for_csv(shared) -> None:
    client = shared(AWKWARD)
    head = client.head("/transactions?format=xlsx")
    assert head.status_code == 200 and head.data == b""
    assert head.headers["Content-Type"] == XLSX
    for url, status in (("/transactions/99?format=xlsx", 404),
                        ("/transactions/page/0?format=xlsx", 400),
                        ("/transactions?format=xlsx&nope=1", 400),
                        ("/transactions/date/2026-11-01/00:00/2026-10-01/00:00?format=xlsx",
                         400)):
        response = client.get(url, headers={"Accept": XLSX})
        assert response.status_code == status, url
        assert response.headers["Content-Type"] == "application/json"
        assert response.get_json()["code"] == status


def test_the_document_names_xlsx_only_in_descriptions(shared) -> None:
    """As for CSV: generated clients keep the JSON type (tests/test_service.py)."""
    document = shared(AWKWARD).get("/openapi.json").get_json()
    records = [p for p in document["paths"] if p not in ("/", "/health")]
    assert len(records) == 51  # with the seven feeds (/<c>/changes)
    for path in records:
        operation = document["paths"][path]["get"]
        assert "`?format=xlsx` or `Accept:\napplication/vnd.openxmlformats" in operation[
            "description"], path
        assert list(operation["responses"]["200"]["content"]) == ["application/json"], path
        assert "format" not in {p["name"] for p in operation.get("parameters", [])}, path


@pytest.mark.parametrize("count", [7, 2600])  # read whole, and streamed
def test_records_past_a_sheets_rows_go_on_in_the_next_sheet(make_client, monkeypatch,
                                                            count: int) -> None:
    """The limit is lowered here (a million rows per run of the suite would cost minutes);
    bench/xlsx_memory.py checks the real one, 1,048,576 rows, on a real server."""
    per_sheet = 4 if count < 10 else 1000  # rows, the header's included
    monkeypatch.setattr(xlsx, "MAX_ROWS", per_sheet)
    client = make_client({"products": [{"id": i, "ProductCode": f"P{i}"}
                                       for i in range(1, count + 1)]})
    book = workbook(client.get("/products?format=xlsx"))
    sheets = -(-count // (per_sheet - 1))
    assert book.sheetnames == ["products"] + [f"products ({n})" for n in range(2, sheets + 1)]
    ids = []
    for sheet in book.worksheets:
        rows = sheet_rows(sheet)
        assert rows[0] == headings(COLLECTIONS["products"][0]) and 1 < len(rows) <= per_sheet
        assert_header(sheet, rows[0], sheet.title, len(rows))
        ids += [r[0] for r in rows[1:]]
    assert ids == list(range(1, count + 1))  # every record, in order, none twice


def test_the_first_bytes_go_out_before_any_record() -> None:
    """The writer of a stream gives a zip's first entry header at once, and each batch's
    bytes as it comes (the deflater holds back less than its window)."""
    writer = xlsx.Workbook(["id", "ProductCode"], ["integer", "text"], "products")
    assert writer.head()[:4] == b"PK\x03\x04"
    sent = [len(writer.part([(n, f"P{n} {n * 7919 % 10007}") for n in range(k, k + 1000)],
                            k == 1)) for k in range(1, 50001, 1000)]
    assert sum(s > 0 for s in sent) > len(sent) / 2
    assert writer.tail()[-22:-18] == b"PK\x05\x06"  # the end of the central directory


@needs_soffice
def test_libreoffice_reads_the_json_values(make_client, tmp_path: Path) -> None:
    rows = [*AWKWARD_WEIGHINGS[:2], {"id": 3, "custcode": "=1+1", "drivername": "<&> _x0041_",
                             "tgl_dt2": "2026-12-31", "jam_dt2": "23:59:59.5",
                             "weigh1": 123456789}]
    client = make_client({"vehicles": [sample_row("vehicles", 1)], "transactions": rows})
    for collection in ("transactions", "vehicles"):
        as_json = client.get(f"/{collection}").get_json()
        path = tmp_path / f"{collection}.xlsx"
        path.write_bytes(client.get(f"/{collection}?format=xlsx").get_data())
        subprocess.run([SOFFICE, f"-env:UserInstallation=file://{tmp_path}/profile",
                        # comma, quote, UTF-8 (76), from line 1; cells as shown (the default)
                        "--headless", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1",
                        "--outdir", str(tmp_path),
                        str(path)], check=True, capture_output=True, timeout=120)
        got = list(csv.reader(io.StringIO((tmp_path / f"{collection}.csv").read_text(
            encoding="utf-8"), newline="")))
        names = COLLECTIONS[collection][0]
        got = [[re.sub(r"(:\d\d\.\d+)$", lambda m: m.group(1).ljust(7, "0"), v) for v in row]
               for row in got]
        assert got == [headings(names)] + [[shown(n, r[n]) for n in names] for r in as_json]


def shown(name: str, value: Any) -> str:
    """How LibreOffice prints a JSON value's cell with the display formats of the workbook:
    yyyy-mm-dd, hh:mm:ss, yyyy-mm-dd hh:mm:ss, with .000 for a fraction of a second (which
    LibreOffice 7.4 prints with two or three digits: .5 as .50, so the test pads what it
    prints to three); numbers in its General format; a boolean as TRUE or FALSE; text as it
    is."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).upper()
    if name in DATETIMES or is_time(name):
        clock = value.replace("T", " ")
        whole, _, fraction = clock.partition(".")
        return f"{whole}.{fraction.ljust(3, '0')[:3]}" if fraction else whole
    if isinstance(value, float):
        return f"{value:.15g}" if abs(value) >= 1e-4 else f"{value:.10f}".rstrip("0")
    return str(value)


# A site without some columns: each way of writing a NULL, and a NULL only in a comment
# (which maps nothing: dono keeps its column).
NULLED = {"lot": 'NULL AS "lot"', "sealno": 'CAST(NULL AS varchar(20)) AS "sealno"',
          "adjustweigh": 'CAST( NULL AS float ) AS "adjustweigh"',
          "remark": 'NULL AS "remark" /* not kept here */'}


def null_site(tmp_path: Path) -> Path:
    """The shipped sql/ with transactions' NULLED fields given as NULL."""
    site = tmp_path / "null-site"
    site.mkdir()
    text = (SHIPPED_SQL_DIR / "transactions.sql").read_text()
    for name, line in NULLED.items():
        shipped = f'    "{name}" AS "{name}",\n'
        assert shipped in text
        text = text.replace(shipped, f"    {line},\n")
    text = text.replace('    "dono" AS "dono",\n',
                        '    -- NULL AS "dono",\n    "dono" AS "dono",\n')
    (site / "transactions.sql").write_text(text)
    return site


def test_fields_a_site_maps_to_null_are_no_columns(make_client, tmp_path: Path) -> None:
    """The clerk's workbook: the site's labels ([site.fields] over the defaults), the fields
    mapped to NULL left out; ?fields= still gives what it names; CSV keeps every field by
    its API name."""
    labels = {"weigh1": "Bruto (kg)", "weigh2": "Tara (kg)", "net": "Netto (kg)"}
    client = make_client(SAMPLES, database={"sql_dir": str(null_site(tmp_path))},
                         collections={"serve": ["transactions"]}, site={"fields": labels})
    every = COLLECTIONS["transactions"][0]
    as_json = client.get("/transactions").get_json()
    assert [r["lot"] for r in as_json] == [None] * 3  # sent as null, as before
    names = [n for n in every if n not in NULLED]
    assert len(names) == len(every) - 4 and "dono" in names
    got = sheet_rows(workbook(client.get("/transactions?format=xlsx")).active)
    assert_types(got, expected_rows(names, as_json, FIELD_LABELS | labels))
    assert got[0][names.index("weigh1")] == "Bruto (kg)"
    assert got[0][names.index("tgl_dt1")] == "Entry date"  # a default the site kept

    asked = ["id", "lot", "weigh1", "adjustweigh"]
    got = sheet_rows(workbook(client.get(
        f"/transactions?format=xlsx&fields={','.join(asked)}")).active)
    assert got == expected_rows(asked, as_json, FIELD_LABELS | labels)
    assert got[0] == ["ID", "Lot", "Bruto (kg)", "Deduction (kg)"]

    csv_text = client.get("/transactions?format=csv").get_data(as_text=True)
    assert csv_text.splitlines()[0] == ",".join(every)

    # A summary's workbook: its groups and measures by label, none left out.
    url = "/transactions/summary/2026-11-01/00:00/2026-11-30/23:59:59?by=day"
    summary = client.get(url).get_json()
    got = sheet_rows(workbook(client.get(f"{url}&format=xlsx")).active)
    assert got[0] == headings(list(summary[0]), FIELD_LABELS | labels)
    assert got[0] == ["Day", "Records", "Weighed in and out", "Netto (kg)",
                      "Smallest net (kg)", "Largest net (kg)", "Deduction (kg)",
                      "Net after deduction (kg)"]


@needs_soffice
def test_libreoffice_reads_the_sites_headings(make_client, tmp_path: Path) -> None:
    """The workbook of a site with fields mapped to NULL and labels of its own, as a clerk
    opens it: LibreOffice shows the labels and none of the NULL fields."""
    labels = {"weigh1": "Bruto (kg)", "vehno": "No. Polisi"}
    client = make_client(SAMPLES, database={"sql_dir": str(null_site(tmp_path))},
                         collections={"serve": ["transactions"]}, site={"fields": labels})
    as_json = client.get("/transactions").get_json()
    path = tmp_path / "transactions.xlsx"
    path.write_bytes(client.get("/transactions?format=xlsx").get_data())
    subprocess.run([SOFFICE, f"-env:UserInstallation=file://{tmp_path}/profile",
                    "--headless", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1",
                    "--outdir", str(tmp_path), str(path)],
                   check=True, capture_output=True, timeout=120)
    got = list(csv.reader(io.StringIO((tmp_path / "transactions.csv").read_text(
        encoding="utf-8"), newline="")))
    names = [n for n in COLLECTIONS["transactions"][0] if n not in NULLED]
    assert got == [headings(names, FIELD_LABELS | labels)] + [
        [shown(n, r[n]) for n in names] for r in as_json]
    assert "No. Polisi" in got[0] and "Lot" not in got[0] and "Remark" not in got[0]


# How a CSV file may be opened: LibreOffice's CSV filter options (separator codes, quote,
# UTF-8, from line 1, and the 11th token, "Trim spaces") for a comma, as LibreOffice and Excel
# under a `,` list separator split it; a semicolon, as Excel under the `;` list separator of
# Indonesian and most European Windows does, with LibreOffice's "Trim spaces" ticked; a tab.
OPENED_WITH = {"comma": "44,34,76,1", "semicolon, blanks trimmed": "59,34,76,1,,,false,,,,true",
               "tab": "9,34,76,1"}


@needs_soffice
@pytest.mark.parametrize("engine", ["sqlite3"])  # the values on every engine: test_representations
@pytest.mark.parametrize("opened_with", list(OPENED_WITH))
def test_libreoffice_runs_no_formula_of_the_csv_for_people(make_client, tmp_path: Path,
                                                           opened_with: str) -> None:
    """The CSV for people (format=csv-sheet, docs/api.md §5.8) of every hostile text
    (tests/helpers.py), opened in LibreOffice with each separator: no cell is a formula; with
    a comma, each cell shows the text with its quotes and the negative weight is a number.
    The same rows as format=csv: LibreOffice runs a formula (what the test would see if
    csv-sheet were not inert)."""
    client = make_client({"transactions": [{"id": n, "vehno": text, "remark": text, "weigh1": -5.2}
                                           for n, text in enumerate(HOSTILE_TEXTS, 1)]})
    fields = "vehno,id,remark,weigh1"  # a text first: its start is a line's
    for fmt in ("csv-sheet", "csv"):
        (tmp_path / f"{fmt}.csv").write_bytes(
            client.get(f"/transactions?format={fmt}&fields={fields}").get_data())
    subprocess.run([SOFFICE, f"-env:UserInstallation=file://{tmp_path}/profile", "--headless",
                    f"--infilter=CSV:{OPENED_WITH[opened_with]}", "--convert-to", "xlsx",
                    "--outdir", str(tmp_path), str(tmp_path / "csv-sheet.csv"),
                    str(tmp_path / "csv.csv")], check=True, capture_output=True, timeout=120)
    people, program = (openpyxl.load_workbook(tmp_path / f"{fmt}.xlsx").active
                       for fmt in ("csv-sheet", "csv"))
    assert [c.value for row in people.iter_rows() for c in row if c.data_type == "f"] == []
    assert [c.value for row in program.iter_rows() for c in row if c.data_type == "f"] != []
    if opened_with == "comma":  # (LibreOffice keeps a line break inside a cell as a line feed)
        cells = [sheet_text(t).replace("\r\n", "\n").replace("\r", "\n") for t in HOSTILE_TEXTS]
        assert [[c.value for c in row] for row in people.iter_rows()] == [
            fields.split(",")] + [[t, n, t, -5.2] for n, t in enumerate(cells, 1)]
        assert [[c.data_type for c in row] for row in people.iter_rows()] == [
            ["s"] * 4] + [["s", "n", "s", "n"]] * len(HOSTILE_TEXTS)
