"""What the figures leave out, and why (docs/api.md §7, "What a summary leaves out"): every
summary (JSON, CSV, csv-sheet, xlsx), a workbook of records, the MCP `summarize` and
`daily_report` tools and `/report/{date}.json` say how many records they leave out per
reason (cancelled; no main date, in no day; a weight missing, in no net figure) and the
read that lists them; check-sql counts the NULL main dates and weights and names the first.

Every expected count, list and URL is worked out here from the rows inserted, and each URL
given is followed: it lists exactly the records counted. On every engine.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import openpyxl
import pytest
from flask.testing import FlaskClient

from app import create_app
from tests.conftest import build_database
from tests.contract import PAIRS
from tests.helpers import in_range

DAY = "2026-11-20"
RANGE = f"{DAY}/00:00:00/{DAY}/23:59:59"
ROOT = "http://localhost/"
EVERY = "every figure"
NET = "weighed, net, net_min, net_max, deduction, net_after_deduction"
# What each reason means, as the answers say it (docs/api.md §7's table).
WHY = {
    "voided": "cancelled tickets, left out unless a filter names cancelled",
    "no_main_date": "records whose main date (the on date) is NULL: they belong to no day, "
                    "so to no range",
    "not_weighed_out": "records of the range with no second weight (weigh2): counted in "
                       "records, in no net figure",
    "not_weighed_in": "records of the range with a second weight but no first (weigh1): "
                      "counted in records, in no net figure",
}


def ticket(n: int, day: str | None, weigh1: float | None, weigh2: float | None,
           cancelled: int = 0, product: str = "RM001") -> dict[str, Any]:
    return {"id": n, "tgl_dt1": day, "jam_dt1": f"{6 + n % 12:02d}:00:00", "weigh1": weigh1,
            "weigh2": weigh2, "cancelled": cancelled, "productcode": product,
            "custcode": "SUP-1"}


# The plant's day: dispatches and deliveries, a voided ticket (weighed, and one open), two
# still missing a weight, and tickets with no weigh-in date: one dispatch of 14,090 kg that
# the plant's books count on the day and a voided one; another day's tickets around it.
WEIGHINGS = [
    ticket(1, DAY, 6000.0, 26000.0), ticket(2, DAY, 30000.0, 11000.0),
    ticket(3, DAY, 7000.0, 21090.0, product="FG001"), ticket(4, DAY, 9000.0, 25000.0, 1),
    ticket(5, DAY, 12000.0, None), ticket(6, DAY, None, 8000.0),
    ticket(7, DAY, 10000.0, None, 1), ticket(8, None, 6000.0, 20090.0),
    ticket(9, None, 5000.0, 9000.0, 1, "FG001"), ticket(10, "2026-11-21", 8000.0, 30000.0),
    ticket(11, "2026-11-19", 9000.0, None, 1),
]
BATCHES = [{"no_produksi": n, "no_produksi_": 1, "tanggal": day, "jam": "07:00:00",
            "recipe": 3, "adonan_sv": 800, "adonan_pv": 801}
           for n, day in ((1, DAY), (2, DAY), (3, None), (4, "2026-11-21"))]
ROWS = {"transactions": WEIGHINGS, "bricon2": BATCHES}


def voided(row: dict[str, Any]) -> bool:
    return row.get("cancelled") == 1


Keep = Callable[[dict[str, Any]], bool]


def expected(rows: list[dict[str, Any]], date: str, keep: Keep, cancelled: str | None,
             weighs: bool) -> list[tuple[str, list[Any], str, list[tuple[str, str]]]]:
    """Each reason's records (their first field: id or no_produksi), the read that lists
    them and its own arguments, from the rows: `keep` is the filters the request names but
    `cancelled`, whose value (None: not named) decides what is left out as cancelled."""
    on = next(p for p, (d, _) in PAIRS.items() if d == date)
    key = "id" if weighs else "no_produksi"
    wanted = {None: lambda r: not voided(r), "true": voided, "all": lambda r: True,
              "false": lambda r: not voided(r)}[cancelled]
    ranged = [r for r in in_range(rows, PAIRS[on], f"{DAY}T00:00:00", f"{DAY}T23:59:59")
              if keep(r)]
    cancellable = any("cancelled" in r for r in rows)  # a weighing: bricon2 has no such field
    kept = [("cancelled", "false")] if cancelled in (None, "false") and cancellable else []
    found = []
    if kept:
        found.append(("voided", [r for r in ranged if voided(r)], "range",
                      [("cancelled", "true")]))
    found.append(("no_main_date", [r for r in rows if r.get(date) is None and keep(r)
                                   and wanted(r)], "list", [*kept, (f"{date}__isnull", "true")]))
    if weighs:
        summed = [r for r in ranged if wanted(r)]
        found += [("not_weighed_out", [r for r in summed if r["weigh2"] is None], "range",
                   [*kept, ("weigh2__isnull", "true")]),
                  ("not_weighed_in", [r for r in summed if r["weigh1"] is None
                                      and r["weigh2"] is not None], "range",
                   [*kept, ("weigh1__isnull", "true"), ("weigh2__isnull", "false")])]
    return [(name, [r[key] for r in listed], read, own) for name, listed, read, own in found]


def url(collection: str, read: str, asked: list[tuple[str, str]],
        own: list[tuple[str, str]], on: str = "dt1") -> str:
    """The URL that lists a reason's records: the request's filters as sent, less those the
    reason's replace, then the reason's."""
    kept = [(k, v) for k, v in asked if k not in dict(own)]
    if read == "list":
        return f"{ROOT}{collection}?{urlencode(kept + own)}"
    return f"{ROOT}{collection}/date/{RANGE}?{urlencode([('on', on), *kept, *own])}"


def header(collection: str, found: list[Any], asked: list[tuple[str, str]], on: str = "dt1"
           ) -> list[dict[str, Any]]:
    # A filter asked the other way round: none left out, none listed; but cancelled=false,
    # which a summary adds of itself, is the voided tickets' reason to be left out.
    sent = {k: v for k, v in asked if (k, v) != ("cancelled", "false")}
    return [{"reason": name, "records": len(ids),
             "left_out_of": NET if name.startswith("not_weighed") else EVERY,
             "add": urlencode(own),
             "list": None if any(sent.get(k, v) != v for k, v in own)
             else url(collection, read, asked, own, on)}
            for name, ids, read, own in found]


CASES = [  # (filters as sent, the rows they keep but cancelled, the cancelled value sent)
    ([], lambda r: True, None),
    ([("productcode", "RM001")], lambda r: r["productcode"] == "RM001", None),
    ([("cancelled", "all")], lambda r: True, "all"),
    ([("cancelled", "true")], lambda r: True, "true"),
    ([("cancelled", "false"), ("productcode__not", "FG001")],
     lambda r: r["productcode"] != "FG001", "false"),
]


@pytest.fixture
def client(shared: Callable[..., FlaskClient]) -> FlaskClient:
    return shared(ROWS)


def listed(client: FlaskClient, link: str, key: str) -> list[Any]:
    """The keys of the records a left-out URL lists, in its order."""
    got = client.get(link.removeprefix(ROOT.rstrip("/")))
    assert got.status_code == 200, got.get_data(as_text=True)
    return [r[key] for r in got.get_json()]


@pytest.mark.parametrize(("asked", "keep", "cancelled"), CASES)
def test_a_summary_says_what_it_leaves_out_and_where(client: FlaskClient, asked, keep,
                                                     cancelled) -> None:
    query = urlencode([("by", "day"), *asked])
    got = client.get(f"/transactions/summary/{RANGE}?{query}")
    assert got.status_code == 200, got.get_data(as_text=True)
    found = expected(WEIGHINGS, "tgl_dt1", keep, cancelled, True)
    assert json.loads(got.headers["X-Left-Out"]) == header("transactions", found, asked)
    for (_, ids, _, _), said in zip(found, json.loads(got.headers["X-Left-Out"]), strict=True):
        assert sorted(listed(client, said["list"], "id")) == sorted(ids)


def test_the_plants_books_are_the_figures_and_what_they_leave_out(client: FlaskClient) -> None:
    """The day's dispatches as the plant's SQL counts them (every ticket not voided, its
    weigh-in moment NULL or on the day) are the summary's, and those it leaves out for no
    main date; and every ticket of the day is the summary's or left out."""
    books = [r for r in WEIGHINGS if not voided(r) and r["tgl_dt1"] in (DAY, None)
             and r["weigh1"] is not None and r["weigh2"] is not None
             and r["weigh2"] > r["weigh1"]]
    got = client.get(f"/transactions/summary/{RANGE}?by=direction")
    [out] = [g for g in got.get_json() if g["direction"] == "out"]
    left = {i["reason"]: i for i in json.loads(got.headers["X-Left-Out"])}
    undated = listed(client, left["no_main_date"]["list"], "id")
    dispatched = [r["id"] for r in books if r["tgl_dt1"] is None]
    assert set(dispatched) <= set(undated)
    assert out["records"] + len(dispatched) == len(books)
    assert out["net"] + sum(r["weigh2"] - r["weigh1"] for r in books
                            if r["id"] in dispatched) == sum(r["weigh2"] - r["weigh1"]
                                                             for r in books)
    day = [r for r in WEIGHINGS if r["tgl_dt1"] == DAY]
    assert sum(g["records"] for g in got.get_json()) + left["voided"]["records"] == len(day)


@pytest.mark.parametrize("format", ["csv", "csv-sheet", "xlsx"])
def test_every_format_of_a_summary_says_it(client: FlaskClient, format: str) -> None:
    base = f"/transactions/summary/{RANGE}"
    want = header("transactions", expected(WEIGHINGS, "tgl_dt1", lambda r: True, None, True),
                  [])
    got = client.get(f"{base}?format={format}")
    assert got.status_code == 200
    assert json.loads(got.headers["X-Left-Out"]) == want
    if format != "xlsx":  # the body is the groups alone, as without the header
        assert got.get_data(as_text=True) == client.get(f"{base}?format=csv").get_data(
            as_text=True)
        assert list(csv.reader(io.StringIO(got.get_data(as_text=True))))[0][0] == "day"
        return
    book = openpyxl.load_workbook(io.BytesIO(got.get_data()))
    assert book.sheetnames == ["summary", "left out"]
    assert [list(r) for r in book["left out"].iter_rows(values_only=True)] == [
        ["reason", "records", "left out of", "why", "list them"],
        *([w["reason"], w["records"], w["left_out_of"], WHY[w["reason"]], w["list"]]
          for w in want if w["records"])]


@pytest.mark.parametrize(("path", "read", "asked"), [
    ("/transactions", "list", []),
    ("/transactions/page/1", "list", [("page_size", "3")]),
    (f"/transactions/date/{RANGE}", "range", [("productcode", "RM001")]),
    (f"/transactions/date/{RANGE}", "range", [("page", "1"), ("page_size", "2")]),
])
def test_a_workbook_of_records_says_what_it_leaves_out(client: FlaskClient, path, read,
                                                       asked) -> None:
    """A list or a page leaves out the cancelled tickets; a range those too, and the ones
    with no main date, which no range holds."""
    got = client.get(f"{path}?{urlencode([*asked, ('format', 'xlsx')])}")
    assert got.status_code == 200, got.get_data(as_text=True)
    filters = [(k, v) for k, v in asked if k not in ("page", "page_size")]
    keep = (lambda r: r["productcode"] == "RM001") if filters else (lambda r: True)
    if read == "list":
        ids = [r["id"] for r in WEIGHINGS if voided(r)]
        want = [{"reason": "voided", "records": len(ids), "left_out_of": EVERY,
                 "add": "cancelled=true",
                 "list": url("transactions", "list", filters, [("cancelled", "true")])}]
    else:
        want = header("transactions", expected(WEIGHINGS, "tgl_dt1", keep, None, True)[:2],
                      filters)
    assert json.loads(got.headers["X-Left-Out"]) == want
    book = openpyxl.load_workbook(io.BytesIO(got.get_data()))
    assert [r[:2] for r in book["left out"].iter_rows(values_only=True)][1:] == [
        (w["reason"], w["records"]) for w in want if w["records"]]
    assert not client.get(f"{path}?{urlencode(asked)}").headers.get("X-Left-Out")  # JSON


def test_a_summary_of_batches_leaves_out_those_with_no_date(client: FlaskClient) -> None:
    got = client.get(f"/bricon2/summary/{RANGE}")
    found = expected(BATCHES, "tanggal", lambda r: True, None, False)
    assert json.loads(got.headers["X-Left-Out"]) == header("bricon2", found, [], "tanggal")
    said = json.loads(got.headers["X-Left-Out"])[0]
    assert listed(client, said["list"], "no_produksi") == found[0][1]


def mcp(client: FlaskClient, name: str, arguments: dict[str, Any]) -> Any:
    response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": name, "arguments": arguments}},
                           headers={"Accept": "application/json, text/event-stream",
                                    "MCP-Protocol-Version": "2025-11-25"})
    result = response.get_json()["result"]
    assert not result.get("isError"), result
    return result["structuredContent"]


def test_the_summarize_tool_says_it_with_the_call_that_lists_them(client: FlaskClient) -> None:
    asked = [{"field": "productcode", "op": "eq", "value": "RM001"}]
    got = mcp(client, "summarize", {"collection": "transactions", "from": DAY, "to": DAY,
                                    "filters": asked})
    found = expected(WEIGHINGS, "tgl_dt1", lambda r: r["productcode"] == "RM001", None, True)
    want = []
    for name, ids, read, own in found:
        filters = asked + [{"field": k.partition("__")[0], "op": k.partition("__")[2] or "eq",
                            "value": v == "true"} for k, v in own]
        call: dict[str, Any] = {"collection": "transactions", "filters": filters}
        if read == "range":
            call |= {"on": "dt1", "from": DAY, "to": DAY}
        want.append({"reason": name, "records": len(ids),  # the call instead of a URL
                     "left_out_of": NET if name.startswith("not_weighed") else EVERY,
                     "list": {"tool": "read_records", "arguments": call}})
        records = mcp(client, "read_records", call | {"limit": 100})
        assert sorted(r["id"] for r in records["records"]) == sorted(ids)
    assert got["left_out"] == want


def test_the_daily_report_says_it_per_collection(client: FlaskClient) -> None:
    report = mcp(client, "daily_report", {"date": DAY})
    assert client.get(f"/report/{DAY}.json").get_json() == report
    bridges = {b["collection"]: b for b in report["weighbridges"]}
    plants = {b["collection"]: b for b in report["batching"]}
    for figures, rows, key in ((bridges["transactions"], WEIGHINGS, "id"),
                               (plants["bricon2"], BATCHES, "no_produksi")):
        date = PAIRS[figures["on"]][0]
        found = expected(rows, date, lambda r: True, None, key == "id")
        said = header(figures["collection"], found, [], figures["on"])
        assert figures["left_out"] == [{k: v for k, v in s.items() if k != "add"}
                                       | {"list": s["list"].removeprefix(ROOT)} for s in said]
        for (_, ids, _, _), s in zip(found, said, strict=True):
            assert sorted(listed(client, s["list"], key)) == sorted(ids)


def test_check_sql_counts_null_main_dates_and_weights(tmp_path: Path) -> None:
    database = build_database(tmp_path / "site.sqlite3", ROWS)
    app = create_app({"database": {"sqlite": str(database)}})
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 0, result.output
    after = result.output.split("  NULL dates, weights    WARNING\n", 1)[1].splitlines()
    lines = [line for line in after[:next(i for i, line in enumerate(after)
                                         if not line.startswith("      "))]]
    want = []
    for date, what in (
            ("tgl_dt1", "the main date of on=dt1: such a record belongs to no day, so to no "
                        "range, summary or report day on=dt1"),
            ("tgl_dt2", "the main date of on=dt2: such a record belongs to no day, so to no "
                        "range, summary or report day on=dt2"),
            ("tgl_create", "the main date of on=create: such a record belongs to no day, so "
                           "to no range, summary or report day on=create"),
            ("tgl_update", "the main date of on=update: such a record belongs to no day, so "
                           "to no range, summary or report day on=update"),
            *((w, "a weight: counted in a summary's records, in none of its net figures "
                  "(weighed, net, deduction, net_after_deduction)") for w in ("weigh1", "weigh2"))):
        ids = sorted(r["id"] for r in WEIGHINGS if r.get(date) is None)
        if ids:
            more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
            want.append(f"      {len(ids)} record{'s' if len(ids) != 1 else ''} with a NULL "
                        f"{date} ({what}; cancelled ones included): id "
                        f"{', '.join(map(str, ids[:5]))}{more}. List them: "
                        f"/transactions?{date}__isnull=true")
    assert lines == want


def test_many_filter_values_leave_the_urls_out_of_the_header(client: FlaskClient) -> None:
    """A request of many filter values would make each URL as long as its own query: past
    2,000 bytes X-Left-Out gives `add` alone (a proxy refuses headers past its buffer)."""
    codes = ["RM001", *(f"X{n:05d}" for n in range(400))]
    asked = [("productcode__in", ",".join(codes))]
    got = client.get(f"/transactions/summary/{RANGE}?{urlencode(asked)}")
    assert got.status_code == 200, got.get_data(as_text=True)
    found = expected(WEIGHINGS, "tgl_dt1", lambda r: r["productcode"] in codes, None, True)
    assert len(got.headers["X-Left-Out"]) <= 2000
    assert json.loads(got.headers["X-Left-Out"]) == [
        said | {"list": None} for said in header("transactions", found, asked)]


@pytest.mark.parametrize("value", ["true", "false"])
def test_a_filter_on_a_reasons_own_field(client: FlaskClient, value: str) -> None:
    """A summary of the open tickets (weigh2__isnull=true) leaves them all out of the net;
    one of the others (false) leaves none out for want of weigh2, and lists nothing."""
    asked = [("weigh2__isnull", value)]
    got = client.get(f"/transactions/summary/{RANGE}?{urlencode(asked)}")
    keep = (lambda r: r["weigh2"] is None) if value == "true" else (
        lambda r: r["weigh2"] is not None)
    want = header("transactions", expected(WEIGHINGS, "tgl_dt1", keep, None, True), asked)
    if value == "false":
        [out] = [w for w in want if w["reason"] == "not_weighed_out"]
        assert out["records"] == 0 and out["list"] is None
    said = json.loads(got.headers["X-Left-Out"])
    assert said == want
    summary = got.get_json()
    out = next(s for s in said if s["reason"] == "not_weighed_out")
    assert out["records"] == sum(g["records"] - g["weighed"] for g in summary) - next(
        s["records"] for s in said if s["reason"] == "not_weighed_in")
