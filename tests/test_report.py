"""/report/{date} (docs/api.md §8, "The daily report") in a real headless Chromium against a real
gunicorn, printed to PDF through the DevTools protocol as the browser's print dialog would
(A4 from the page's own @page rule) and read back with poppler's pdftotext and pdfinfo: the
figures printed are those computed here from the rows the test wrote (tonnes, names beside
codes, open weighings, sv/pv/deviation), a small day is one page and the demo's busiest day
at most two, a day without data says so, nothing leaves localhost, and values from the
database are printed as text, never run as HTML.

The page tells where it is through `<html data-state>`: loading, ready, key or error.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import subprocess
from collections import defaultdict
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
import requests

from app.commands.demo import build_demo_database, write_void_mapping
from tests.browser import NO_NETWORK, Browser, needs_chromium
from tests.conftest import build_database, other_zone_than
from tests.servers import Running, gunicorn
from tests.tickets import TICKETS, contract_row, name_in, served_site

pytestmark = needs_chromium

DAY = "2026-03-10"
STATE = "document.documentElement?.dataset.state"
BOLD = "<b>x</b>"
SCRIPT = "<script>window.pwned=1</script>"  # wraps in its cell: checked in the page
WEIGHBRIDGES = ("transactions", "weighing", "timbangan1", "timbangan2")


# -- fixtures and helpers --------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite3"
    build_demo_database(path)
    return path


def serve(tmp_path: Path, database: Path, config: str = "",
          **env: str) -> AbstractContextManager[Running]:
    """One gunicorn on `database`, with `config` as its TOML file and JEMBATAN_* `env`; a
    database whose tickets void in the demo's flag column is read with the mapping that
    reads it."""
    toml = tmp_path / "report.toml"
    with contextlib.closing(sqlite3.connect(database)) as con:
        flag = "cancelled" in {r[1] for r in con.execute(
            "SELECT * FROM pragma_table_info('transactions')")}
    mapping = write_void_mapping(tmp_path / "void-sql") if flag else None
    toml.write_text((f"[database]\nsql_dir = {json.dumps(str(mapping))}\n" if mapping else "")
                    + config)
    return gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database),
                               "JEMBATAN_CONFIG": str(toml), **env},
                    "--workers", "1", "--threads", "4")


def wait_ready(browser: Browser, state: str = "ready") -> None:
    found = browser.wait_for(f"['{state}', 'error'].includes({STATE}) && {STATE}",
                             f"the report in state {state}")
    if found != state:
        raise AssertionError(browser.js("document.getElementById('error').textContent"))


def printed(browser: Browser, path: Path) -> tuple[int, str]:
    """(pages, text) of the page printed to PDF, its text with every run of white space as
    one space (the narrow no-break space that groups digits comes out as a space)."""
    pdf = browser.pdf(path)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    pages = re.search(r"^Pages:\s+(\d+)$", info.stdout, re.M)
    size = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", info.stdout, re.M)
    assert pages and size, info.stdout
    assert (round(float(size[1])), round(float(size[2]))) == (595, 842), "not A4 portrait"
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return int(pages[1]), " ".join(text.replace("\u202f", " ").split())


def assert_stayed_home(browser: Browser, server: Running) -> None:
    """Nothing the page or the browser asked for left this gunicorn, and nothing failed."""
    origin = f"127.0.0.1:{server.port}"
    outside = [url for url in browser.seen("request", everywhere=True)
               if urlsplit(url).netloc != origin and urlsplit(url).scheme not in NO_NETWORK]
    assert not outside, f"requests leaving {origin}: {outside}"
    for kind in ("status", "failure", "error"):
        assert not browser.seen(kind), browser.seen(kind)


def t(kg: float) -> str:
    """Tonnes as the report prints them: three decimals, thousands grouped (by a space once
    printed)."""
    return f"{kg / 1000:,.3f}".replace(",", " ")


def weighing(n: int, product: str | None, customer: str | None, weigh1: float,
             weigh2: float | None, day: str = DAY, time: str = "08:00:00",
             cut: float | None = None, cancelled: int = 0) -> dict[str, Any]:
    return {"id": n, "productcode": product, "custcode": customer, "tgl_dt1": day,
            "jam_dt1": time, "weigh1": weigh1, "weigh2": weigh2, "adjustweigh": cut,
            "cancelled": cancelled}


def batch(n: int, day: str, **amounts: int) -> dict[str, Any]:
    return {"no_produksi": n, "tanggal": day, "jam": "09:00:00", **amounts}


# The small day: a delivery and a dispatch material, a name that is markup, a code without
# a master record, an open weighing, a dispatch the weighbridge program cancelled (never in
# the figures: docs/api.md §6.3), and rows just outside the day; deductions (adjustweigh,
# kg) on deliveries, none (NULL) on one, and one on the open weighing that counts nowhere.
ROWS: dict[str, list[dict[str, Any]]] = {
    "products": [{"id": 1, "ProductCode": "RM001", "ProductName": "Pasir Lumajang"},
                 {"id": 2, "ProductCode": "FG001", "ProductName": "Paving K-300"}],
    "customers": [{"id": 1, "CustCode": "SUP001", "CustName": "CV Sumber Rejeki"},
                  {"id": 2, "CustCode": "CUS001", "CustName": BOLD},
                  {"id": 3, "CustCode": "CUS002", "CustName": SCRIPT}],
    "transactions": [
        weighing(1, "RM001", "SUP001", 30120, 10000, time="00:00:00", cut=604.0),
        weighing(2, "RM001", "SUP001", 25000, 9800),
        weighing(3, "FG001", "CUS001", 9000, 31450, cut=0.0),
        weighing(4, "RM001", "SUP001", 28000, None, cut=300.0),  # still on the bridge
        weighing(5, "FG001", "CUS002", 10000, 20000, time="23:59:59", cut=12.0),
        weighing(8, "FG001", "CUS001", 9500, 37500, time="12:00:00", cut=40.0, cancelled=1),
        weighing(6, "RM001", "SUP001", 40000, 10000, day="2026-03-11", time="00:00:00",
                 cut=900.0),
        weighing(7, "RM001", "SUP001", 40000, 10000, day="2026-03-09", time="23:59:59"),
    ],
    "weighing": [weighing(1, "RM404", "SUP001", 12000, 4500, cut=75.0)],  # no product RM404
    "bricon2": [batch(1, DAY, adonan_sv=2100, adonan_pv=2096, air_sv=380, air_pv=378),
                batch(2, DAY, adonan_sv=2100, adonan_pv=2110, air_sv=380, air_pv=381),
                batch(3, "2026-03-11", adonan_sv=9999, adonan_pv=1)],
}


def expected_weighbridge(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the report prints for these weighing rows on DAY: per direction the net kg and
    the net after deduction (less adjustweigh, NULL as 0) and weighings by product and by
    customer, the day's records and open ones; cancelled tickets left out."""
    day = [r for r in rows if r["tgl_dt1"] == DAY and r.get("cancelled") != 1]
    out: dict[str, Any] = {"records": len(day), "in": 0.0, "out": 0.0, "in_after": 0.0,
                           "out_after": 0.0, "open": sum(r["weigh2"] is None for r in day)}
    groups: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for r in day:
        if r["weigh2"] is None or r["weigh1"] == r["weigh2"]:
            continue
        direction = "in" if r["weigh1"] > r["weigh2"] else "out"
        net = abs(r["weigh1"] - r["weigh2"])
        after = net - (r.get("adjustweigh") or 0)
        out[direction] += net
        out[f"{direction}_after"] += after
        for field in ("productcode", "custcode"):
            group = groups[(direction, field, r[field])]
            group[0] += 1
            group[1] += net
            group[2] += after
    out["groups"] = groups
    return out


def name_of(code: str) -> str:
    for row in ROWS["products"]:
        if row["ProductCode"] == code:
            return row["ProductName"]
    for row in ROWS["customers"]:
        if row["CustCode"] == code:
            return row["CustName"]
    return "–"


# -- the tests ----------------------------------------------------------------------------------

def test_a_small_day_printed(browser: Browser, tmp_path: Path) -> None:
    database = build_database(tmp_path / "day.sqlite3", ROWS)
    site = 'PT Semen "Contoh" <i>Gresik</i>'
    with serve(tmp_path, database, f"[site]\nname = {json.dumps(site)}\n") as server:
        browser.open(f"{server.base}/report/{DAY}")
        wait_ready(browser)
        pages, text = printed(browser, tmp_path / "day.pdf")
        assert pages == 1, text
        assert site in text and "Tuesday, 10 March 2026 (2026-03-10)" in text
        read_at = browser.js("document.getElementById('read-at').textContent")
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", read_at)
        assert f"figures read {read_at}" in text
        assert "Supervisor (name) Signature Date" in text
        assert "No data" not in text

        # Each weighbridge: its totals line, and per direction one row per material and per
        # customer, name then code, weighings, tonnes net and after deduction; computed
        # from the rows written.
        for c in ("transactions", "weighing"):
            e = expected_weighbridge(ROWS[c])
            weighings = "weighing" if e["records"] == 1 else "weighings"
            assert (f"{e['records']} {weighings}, {e['open']} open (no exit weighing) · in "
                    f"{t(e['in'])} t net, {t(e['in_after'])} t after deduction · out "
                    f"{t(e['out'])} t net, {t(e['out_after'])} t after deduction") in text
            for (_, _, code), (n, net, after) in e["groups"].items():
                row = f"{code} {n} {t(net)} {t(after)}"  # SCRIPT wraps: checked below
                assert (row if name_of(code) == SCRIPT else f"{name_of(code)} {row}") in text
        # 20 120 kg less 604 and 15 200 kg less nothing; 22 450 and 10 000 less 12.
        assert "Deliveries in: 2 weighings, 35.320 t net, 34.716 t after deduction" in text
        assert "Dispatches out: 2 weighings, 32.450 t net, 32.438 t after deduction" in text
        assert "Dispatches out: none" in text  # weighing's
        assert "No weighings on this day: Weighbridge 1, Weighbridge 2." in text
        # The day's totals: a row per weighbridge and their sum, in and out apart, never
        # added together (35.320 + 32.450 = 67.770 t is nowhere).
        assert ("Weighbridge Weighings Open In, net (t) In, after ded. (t) Out, net (t) Out, "
                "after ded. (t)") in text
        assert "All weighings 5 1 35.320 34.716 32.450 32.438" in text
        assert "Weighing log 1 0 7.500 7.425 0.000 0.000" in text
        assert "All weighbridges 6 1 42.820 42.141 32.450 32.438" in text
        assert "67.770" not in text and "75.270" not in text
        assert "Batches: Batching plant — Bricon 2 · Batching plant — Biao 0" in text
        # What the figures leave out, and why (docs/api.md §7): of transactions the day's
        # cancelled tickets and those still waiting for their second weight; of the others
        # nothing, so no line of theirs.
        day = [r for r in ROWS["transactions"] if r["tgl_dt1"] == DAY]
        voids = sum(r["cancelled"] == 1 for r in day)
        waiting = sum(r["weigh2"] is None and r["cancelled"] != 1 for r in day)
        assert (f"All weighings: left out of its figures: {voids} cancelled; {waiting} not "
                f"weighed out (no second weight: in the weighings, not the net).") in text
        assert browser.js("[...document.querySelectorAll('p.left-out')].map(p => "
                          "JSON.parse(p.dataset.leftOut))") == [
            {"voided": voids, "no_main_date": 0, "not_weighed_out": waiting,
             "not_weighed_in": 0}]

        # Batching: sv and pv over the day's batches, pv - sv and the deviation (bricon2
        # and biao1 side by side: their lines are read apart).
        assert ("Batching plant — Bricon bricon2, by batch date Batching plant — Biao biao1, by "
                "batch date") in text
        assert "2 batches No batches on this day." in text
        assert "adonan 4 200 4 206 +6 +0.14" in text
        assert "air 760 759 -1 -0.13" in text
        assert "kapur – – – –" in text

        # Markup in names is printed as its characters, and nothing of it ran.
        assert f"{BOLD} CUS001 1 22.450 22.450" in text and "<script>window.pw" in text
        assert SCRIPT in browser.js("[...document.querySelectorAll('td.name')]"
                                    ".map(td => td.textContent)")
        assert browser.js("document.querySelectorAll('#sheet b, #sheet i, #sheet script')"
                          ".length") == 0
        assert browser.js("typeof window.pwned") == "undefined"
        # Its labels as JSON data, which never runs, the script it shares with the dashboard
        # (from this server, under the page's prefix) and its own.
        assert browser.js("[...document.scripts].map(s => [s.type, s.src])") == [
            ["application/json", ""], ["", f"{server.base}/jembatan.js"], ["", ""]]
        # The report's own style applies (its CSP hash matches): the sheet's print rules.
        assert browser.js("getComputedStyle(document.querySelector('table')).borderCollapse"
                          ) == "collapse"
        assert_stayed_home(browser, server)


def test_a_day_without_data(browser: Browser, tmp_path: Path) -> None:
    database = build_database(tmp_path / "day.sqlite3", ROWS)
    with serve(tmp_path, database) as server:
        browser.open(f"{server.base}/report/2026-03-12")
        wait_ready(browser)
        assert browser.js("document.documentElement.dataset.empty") == "yes"
        pages, text = printed(browser, tmp_path / "empty.pdf")
        assert pages == 1
        assert "No data for 2026-03-12: no weighing and no batch on this day." in text
        # The weighbridges by the labels the site did not change (app/model/labels.py's defaults).
        assert ("No weighings on this day: All weighings, Weighing log, Weighbridge 1, "
                "Weighbridge 2.") in text
        assert "No batches on this day." in text
        assert "Daily production report" in text
        assert browser.js("document.getElementById('site').hidden") is True  # none set
        assert_stayed_home(browser, server)


def test_names_from_the_tickets(browser: Browser, request: pytest.FixtureRequest,
                                tmp_path: Path) -> None:
    """A plant without product or customer tables whose tickets carry the names, given in
    its names.sql (tests/test_names_file.py): the report prints them beside the codes."""
    database, config = served_site(request, tmp_path)
    e = expected_weighbridge([contract_row(r) for r in TICKETS])
    with serve(tmp_path, database, config) as server:
        browser.open(f"{server.base}/report/{DAY}")
        wait_ready(browser)
        _, text = printed(browser, tmp_path / "tickets.pdf")
        shown = {}
        for direction in ("in", "out"):
            for kind in ("materials", "parties"):
                for cells in browser.js(
                        f"[...document.querySelectorAll('table.codes.{direction}.{kind} tbody "
                        f"tr')].map(r => [...r.cells].map(c => c.textContent))"):
                    shown[(direction, kind, cells[1] or None)] = cells[0]
        names = {}
        for (direction, field, code), (n, net, _) in e["groups"].items():
            master, kind = (("products", "materials") if field == "productcode"
                            else ("customers", "parties"))
            name = "(none)" if code is None else name_in(master, code) or "–"
            names[(direction, kind, code)] = name
            assert " ".join(f"{name} {code or ''} {n} {t(net)}".split()) in text
        assert shown == names
        # The example maps adjustweigh to NULL: the net alone, no column after deduction.
        assert "After ded." not in text and "In, after ded." not in text
        assert " t after deduction" not in text
        assert "Out, net (t)" in text
        # The example maps adjustweigh to NULL: the net alone, no column after deduction.
        assert "After ded." not in text and "In, after ded." not in text
        assert " t after deduction" not in text
        assert "Out, net (t)" in text
        # Named from every ticket, the day's or not; the least of a code's names.
        assert {code: name for (_, _, code), name in shown.items()} == {
            "RM001": "Pasir Lumajang", "RM003": "Semen Gresik", "FG001": "Bata Ringan 10 cm",
            None: "(none)", "SUP-1": "CV Sumber Rejeki", "SUP-3": "PT Semen Gresik",
            "CUS-1": "Toko Bangunan Jaya"}
        assert_stayed_home(browser, server)


def per_day(base: str, collections: tuple[str, ...], measure: str) -> dict[str, int]:
    """`measure` summed per day over `collections`, from the API."""
    out: dict[str, int] = defaultdict(int)
    for c in collections:
        days = requests.get(f"{base}/{c}/summary/1900-01-01/00:00/9999-12-31/23:59:59",
                            timeout=30).json()
        for d in days:
            out[d["day"]] += d[measure]
    return out


def test_the_demos_busiest_days_fit_two_pages(demo_database: Path, browser: Browser,
                                              tmp_path: Path) -> None:
    with serve(tmp_path, demo_database) as server:
        weighings = per_day(server.base, WEIGHBRIDGES, "records")
        bricon2, biao1 = (per_day(server.base, (c,), "batches") for c in ("bricon2", "biao1"))
        batches = {d: bricon2.get(d, 0) + biao1.get(d, 0) for d in {*bricon2, *biao1}}
        busiest = max(sorted(weighings), key=weighings.__getitem__)
        # Also the busiest of the days when both batching plants ran: the longest report.
        both = [d for d in sorted(weighings) if d in bricon2 and d in biao1]
        assert both, "the demo has no day with both plants running"
        longest = max(both, key=lambda d: weighings[d] + batches[d])
        for day in (busiest, longest):
            browser.open(f"{server.base}/report/{day}")
            wait_ready(browser)
            pages, text = printed(browser, tmp_path / f"{day}.pdf")
            print(f"{day}: {weighings[day]} weighings, {batches.get(day, 0)} batches, "
                  f"{pages} pages")
            assert pages <= 2, text
            assert f"({day})" in text and "No data" not in text
            assert "Supervisor (name) Signature Date" in text
            # The totals row of transactions is the API's own day summary by direction.
            ways = requests.get(f"{server.base}/transactions/summary/{day}/00:00/{day}"
                                f"/23:59:59?by=direction", timeout=10).json()
            cells = browser.js("[...document.querySelector('table.totals tbody tr').cells]"
                               ".map(c => c.textContent)")
            records, weighed = (sum(g[k] for g in ways) for k in ("records", "weighed"))
            assert cells[:3] == ["All weighings", str(records), str(records - weighed)]
            by_way = {g["direction"]: g for g in ways}
            assert cells[3:] == [t(by_way[way][k] if way in by_way else 0).replace(
                " ", "\u202f") for way in ("in", "out") for k in ("net", "net_after_deduction")]
        assert_stayed_home(browser, server)


def test_api_keys_under_a_url_prefix(browser: Browser, tmp_path: Path) -> None:
    database = build_database(tmp_path / "day.sqlite3", ROWS)
    with serve(tmp_path, database, '[api]\nurl_prefix = "/api"\n'
               '[site.collections]\ntransactions = "Timbangan utama"\n',
               JEMBATAN_API_KEYS="k1-0123456789abc") as server:
        base = server.base + "/api"
        browser.open(f"{base}/report/{DAY}")
        wait_ready(browser, "key")
        browser.type("document.getElementById('key')", "k1-0123456789abc")
        browser.click("document.querySelector('#keyform button')")
        wait_ready(browser)
        assert browser.js("Object.values(sessionStorage)") == ["k1-0123456789abc"]
        assert browser.js("document.querySelector('table.totals tbody td').textContent") \
            == "Timbangan utama"  # the site's own label
        for url in browser.seen("request"):
            if urlsplit(url).scheme not in NO_NETWORK:
                assert urlsplit(url).path.startswith("/api/"), url
        origin = f"127.0.0.1:{server.port}"
        assert all(urlsplit(u).netloc == origin or urlsplit(u).scheme in NO_NETWORK
                   for u in browser.seen("request", everywhere=True))
        assert browser.seen("status") == [f"401 {base}/report/{DAY}.json"]


def test_report_routes(tmp_path: Path) -> None:
    database = build_database(tmp_path / "day.sqlite3", ROWS)
    with serve(tmp_path, database, JEMBATAN_API_KEYS="k1-0123456789abc") as server:
        page = requests.get(f"{server.base}/report/{DAY}", timeout=10)  # open, like /dashboard
        assert page.status_code == 200
        assert page.headers["Content-Type"] == "text/html; charset=utf-8"
        policy = page.headers["Content-Security-Policy"]
        assert "script-src 'self' 'sha256-" in policy and "unsafe" not in policy
        assert "http" not in policy
        again = requests.get(f"{server.base}/report/2026-01-01", timeout=10,
                             headers={"If-None-Match": page.headers["ETag"]})
        assert again.status_code == 304  # the same page for every day

        # A malformed or impossible date: a 400 in the API's error shape.
        for wrong, said in (("2026-02-30", "is not a date of the calendar"),
                            ("20260310", "must be a date written YYYY-MM-DD"),
                            ("2026-3-10", "must be a date written YYYY-MM-DD")):
            answer = requests.get(f"{server.base}/report/{wrong}", timeout=10)
            assert answer.status_code == 400
            assert answer.headers["Content-Type"] == "application/json"
            assert said in answer.json()["message"], answer.json()
        assert requests.get(f"{server.base}/report/{DAY}?x=1", timeout=10).status_code == 400

        # The page's data: its figures, behind the key as the API's reads are.
        figures = f"{server.base}/report/{DAY}.json"
        assert requests.get(figures, timeout=10).status_code == 401
        keyed = {"X-API-Key": "k1-0123456789abc"}
        answer = requests.get(figures, headers=keyed, timeout=10)
        assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/json"
        assert answer.json()["date"] == DAY
        for wrong in ("2026-02-30", "20260310"):
            answer = requests.get(f"{server.base}/report/{wrong}.json", headers=keyed, timeout=10)
            assert answer.status_code == 400 and "date" in answer.json()["message"]
        assert requests.get(f"{figures}?x=1", headers=keyed, timeout=10).status_code == 400

        # Without a date: today's report, by the server's clock, never cached.
        today = requests.get(f"{server.base}/report", timeout=10, allow_redirects=False)
        assert today.status_code == 302
        assert re.fullmatch(r"/report/\d{4}-\d\d-\d\d", today.headers["Location"])
        assert today.headers["Cache-Control"] == "no-store"

        # Linked from the index; not an operation of the API.
        index = requests.get(server.base + "/", headers={"X-API-Key": "k1-0123456789abc"},
                             timeout=10).json()
        assert index["report"] == f"{server.base}/report" and index["site"] is None
        spec = requests.get(server.base + "/openapi.json", timeout=10).json()
        assert not [p for p in spec["paths"] if "report" in p]


@pytest.mark.parametrize("timezone", ["Asia/Jakarta", ""])
def test_today_and_the_time_read_are_the_plants(tmp_path: Path, host_zone,
                                                 timezone: str) -> None:
    """`/report` alone opens the plant's today ([site] timezone) and the page prints the time
    its figures were read in the plant's time, whatever zone the host and the browser are
    in; without the setting, the host's date and the browser's time."""
    far = other_zone_than("Asia/Jakarta")
    host_zone(far)  # gunicorn and the browser inherit TZ
    calendar = ZoneInfo(timezone or far)
    database = build_database(tmp_path / "day.sqlite3", ROWS)
    browser = Browser(tmp_path / "zone-profile", tmp_path / "zone-chromium.log")
    try:
        with serve(tmp_path, database, f'[site]\ntimezone = "{timezone}"\n') as server:
            before = datetime.now(calendar)
            today = requests.get(f"{server.base}/report", timeout=10, allow_redirects=False)
            after = datetime.now(calendar)
            assert today.status_code == 302
            assert today.headers["Location"] in {f"/report/{before.date()}",
                                                 f"/report/{after.date()}"}
            browser.open(f"{server.base}/report/{DAY}")
            wait_ready(browser)
            read_at = datetime.fromisoformat(
                browser.js("document.getElementById('read-at').textContent"))
            now = datetime.now(calendar).replace(tzinfo=None)
            assert abs((now - read_at).total_seconds()) < 60, (read_at, now)
    finally:
        browser.close()
