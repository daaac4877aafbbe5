"""/dashboard (docs/api.md §8) in a real headless Chromium against a real gunicorn: the page picks
the last 7 days holding data, and every figure it draws or writes equals what the API gives
the test for the same question; its links reproduce them; nothing leaves localhost; values
from the database are shown as text, never run as HTML; with API keys it asks for one, keeps
it for the tab only and works under a URL prefix.

The browser is tests/browser.py's (DevTools over a pipe, every request logged).
The page tells where it is through `<html data-state>`: loading, ready, key (asking for an API
key) or error.
"""

from __future__ import annotations

import json
from collections import Counter
from contextlib import AbstractContextManager
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
import requests

from app.commands.demo import END_DATE, build_demo_database
from tests.browser import NO_NETWORK, Browser, needs_chromium
from tests.conftest import build_database, other_zone_than
from tests.contract import MATERIALS, PAIRS
from tests.helpers import direction, in_range
from tests.servers import Running, gunicorn
from tests.tickets import TICKETS, contract_row, name_in, served_site

pytestmark = needs_chromium

NONE = "(none)"  # how the page shows a NULL group
STATE = "document.documentElement?.dataset.state"
SCRIPT = "<script>window.pwned=1</script>"
IMG = '<img src=x onerror="window.pwned=2">'


# -- fixtures ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo database, built once for the module (the tests only read it)."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite3"
    build_demo_database(path)
    return path


def serve(tmp_path: Path, database: Path, **env: str) -> AbstractContextManager[Running]:
    """One gunicorn on `database`, with JEMBATAN_* settings `env`."""
    return gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database), **env}, "--workers", "1",
                    "--threads", "4")


# -- helpers ----------------------------------------------------------------------------------

def summary(base: str, c: str, first: str, last: str, by: str) -> list[dict[str, Any]]:
    """The API's summary, fetched by the test itself."""
    response = requests.get(f"{base}/{c}/summary/{first}/00:00/{last}/23:59:59",
                            params={"by": by}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def last_day(base: str, c: str) -> date:
    """The last day holding data in `c`, from the API."""
    days = summary(base, c, "1900-01-01", "9999-12-31", "day")
    return date.fromisoformat(days[-1]["day"])


def number(text: str) -> float | None:
    """A figure as the page writes it ("1 402 880", "+0.06", "–" for none)."""
    text = text.strip()
    if text == "–":
        return None
    return float("".join(text.split()).replace("\u202f", ""))


def wait_state(browser: Browser, *states: str) -> str:
    """Wait for the page to reach one of `states`; an error state fails at once."""
    expected = json.dumps([*states, "error"])
    state = browser.wait_for(f"{expected}.includes({STATE}) && {STATE}",
                             f"the page in state {states}")
    if state not in states:
        error = browser.js("document.getElementById('error').textContent")
        raise AssertionError(f"page state {state!r}, not {states}: {error}")
    return state


def rows(browser: Browser, table: str, part: str = "tbody") -> list[list[str]]:
    """The cells' text of a table's rows (`table` a CSS selector)."""
    return browser.js(f"[...document.querySelectorAll({json.dumps(f'{table} {part} tr')})]"
                      f".map(r => [...r.cells].map(c => c.textContent))")


def segments(browser: Browser, chart: str) -> list[tuple[str, str]]:
    """(day, key) of every bar segment of an SVG chart."""
    found = browser.js(f"[...document.querySelectorAll({json.dumps(f'svg.{chart} rect.seg')})]"
                       f".map(r => [r.dataset.day, r.dataset.key])")
    return [tuple(pair) for pair in found]


def links(browser: Browser) -> list[tuple[str, str, str]]:
    """(workbook link, CSV link, API link) of every view, as absolute URLs."""
    return [tuple(three) for three in browser.js(
        "[...document.querySelectorAll('section.view')].map(s =>"
        " ['a.xlsx', 'a.csv', 'a.api'].map(a => s.querySelector(a)?.href))")]


def legend(browser: Browser, selector: str) -> list[tuple[str, str]]:
    """(text, hover) of every entry of a legend."""
    return [tuple(pair) for pair in browser.js(
        f"[...document.querySelectorAll({json.dumps(selector + ' li')})]"
        f".map(l => [l.textContent, l.querySelector('[title]')?.title])")]


def code(value: str | None) -> str:
    """A group's key as the page has it: the code, or (none)."""
    return NONE if value is None else value


def tonnes(kg: float | None) -> str:
    """A weight as the page writes it: tonnes, two decimals, thin-space groups."""
    if kg is None:
        return "–"
    return f"{kg / 1000:,.2f}".replace(",", "\u202f") + " t"


def kilograms(kg: float) -> str:
    """A weight's hover text: kilograms, at most two decimals."""
    return f"{kg:,.2f}".rstrip("0").rstrip(".").replace(",", "\u202f") + " kg"


def assert_stayed_home(browser: Browser, server: Running, allowed: tuple[str, ...] = ()) -> None:
    """Nothing the page or the browser asked for left this gunicorn (inline data and the
    browser's own pages need no network), and no request failed or page error happened."""
    origin = f"127.0.0.1:{server.port}"
    outside = [url for url in browser.seen("request", everywhere=True)
               if urlsplit(url).netloc != origin and urlsplit(url).scheme not in NO_NETWORK]
    assert not outside, f"requests leaving {origin}: {outside}"
    statuses = [s for s in browser.seen("status") if s not in allowed]
    assert not statuses, statuses
    assert not browser.seen("failure"), browser.seen("failure")
    assert not browser.seen("error"), browser.seen("error")


def week(end: date) -> tuple[str, str]:
    return (end - timedelta(days=6)).isoformat(), end.isoformat()


def deviation(sv: int, pv: int) -> float | None:
    """The deviation of docs/api.md §7, rounded half away from zero."""
    if not sv:
        return None
    exact = Decimal(pv - sv) * 100 / Decimal(sv)
    return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


# -- the tests --------------------------------------------------------------------------------

def test_weighing_view_on_the_demo(demo_database: Path, browser: Browser,
                                   tmp_path: Path) -> None:
    with serve(tmp_path, demo_database) as server:
        browser.open(server.base + "/dashboard")
        wait_state(browser, "ready")
        base = server.base

        # No hash: transactions over the last 7 days holding data, written into the hash.
        first, last = week(last_day(base, "transactions"))
        assert (first, last) == ("2026-11-14", "2026-11-20") == week(END_DATE)
        assert browser.js("location.hash") == f"#c=transactions&from={first}&to={last}"
        assert browser.js("['collection', 'from', 'to']"
                          ".map(id => document.getElementById(id).value)") == [
            "transactions", first, last]
        assert browser.js("[...document.getElementById('collection').selectedOptions]"
                          ".map(o => o.textContent)") == ["All weighings"]

        # Per direction, one bar segment per day and material that has a net, named.
        groups = summary(base, "transactions", first, last, "day,direction,productcode")
        assert {g["direction"] for g in groups} >= {"in", "out"}
        for way in ("in", "out"):
            with_net = [g for g in groups if g["net"] is not None and g["direction"] == way]
            assert Counter(segments(browser, f"net-chart.{way}")) == Counter(
                (g["day"], code(g["productcode"])) for g in with_net)
            names = {code(g["productcode"]): g["productname"] for g in with_net}
            assert all(names.values()), "every demo material has a name"
            assert sorted(legend(browser, f"svg.net-chart.{way} + .legend")) == sorted(
                (name, f"code {c}") for c, name in names.items())
            # The total per material over the range, in tonnes: net, the deduction and the
            # net after it (the demo maps adjustweigh).
            per_material: dict[str, Counter[str]] = {}
            for g in with_net:
                total = per_material.setdefault(names[code(g["productcode"])], Counter())
                for k in ("net", "deduction", "net_after_deduction"):
                    total[k] += g[k]
            shown = {cells[0]: cells[3:6] for cells in rows(browser, f"table.materials.{way}")}
            assert shown == {name: [tonnes(t["net"]), tonnes(t["deduction"]),
                                    tonnes(t["net_after_deduction"])]
                             for name, t in per_material.items()}

        # The tables by supplier (in) and customer (out): names and tonnes as the API gives.
        parties = summary(base, "transactions", first, last, "direction,custcode")
        for way, cls in (("in", "suppliers"), ("out", "customers")):
            expected = [g for g in parties if g["direction"] == way]
            shown = rows(browser, f"table.{cls}")
            assert [cells[0] for cells in shown] == [g["custname"] for g in expected]
            assert [[number(c) for c in cells[1:3]] + cells[3:] for cells in shown] == [
                [g["records"], g["weighed"], tonnes(g["net"]), tonnes(g["deduction"]),
                 tonnes(g["net_after_deduction"]), tonnes(g["net_min"]), tonnes(g["net_max"])]
                for g in expected]
        tiles = dict(browser.js("[...document.querySelectorAll('.tile')].map(t =>"
                                " [t.querySelector('.label').textContent,"
                                "  t.querySelector('.value').textContent])"))
        assert number(tiles["Weighings"]) == sum(g["records"] for g in parties)
        for way, name in (("in", "Delivered in"), ("out", "Dispatched out")):
            assert tiles[name] == tonnes(sum(g["net"] or 0 for g in parties
                                             if g["direction"] == way))
            assert tiles[f"{name}, after deduction"] == tonnes(sum(
                g["net_after_deduction"] or 0 for g in parties if g["direction"] == way))

        # Under the tiles, what the figures leave out and why (docs/api.md §7), as the
        # summary's X-Left-Out says it, each reason that leaves some out linked to them.
        said = json.loads(requests.get(
            f"{base}/transactions/summary/{first}/00:00/{last}/23:59:59",
            params={"by": "direction,custcode", "on": "dt1"}, timeout=10
        ).headers["X-Left-Out"])
        assert json.loads(browser.js("document.querySelector('p.left-out').dataset.leftOut")
                          ) == {i["reason"]: i["records"] for i in said}
        assert browser.js("[...document.querySelectorAll('p.left-out a')].map(a => a.href)"
                          ) == [i["list"] for i in said if i["records"]]

        # Each view links its workbook, its CSV and the JSON URL the page fetched.
        asked = browser.seen("request")
        views = links(browser)
        assert len(views) >= 4
        for xlsx_url, csv_url, api_url in views:
            assert api_url in asked
            assert (xlsx_url, csv_url) == (api_url + "&format=xlsx", api_url + "&format=csv-sheet")
            assert requests.get(csv_url, timeout=10).headers["Content-Type"].startswith(
                "text/csv")
        assert [requests.get(api, timeout=10).json() for _, _, api in views[:4]] == [
            groups, groups, parties, parties]
        assert browser.js("document.getElementById('report').getAttribute('href')") == \
            f"report/{last}"

        # The page's own style is applied (its CSP hash matches) and its requests are few.
        assert browser.js("getComputedStyle(document.querySelector('section.view'))"
                          ".borderTopStyle") == "solid"
        api_requests = [u for u in asked if urlsplit(u).scheme == "http"
                        and urlsplit(u).path not in ("/dashboard", "/favicon.ico",
                                                     "/jembatan.js")]
        assert len(api_requests) <= 6, api_requests

        shot = browser.screenshot(tmp_path / "dashboard.png")
        print(f"screenshot: {shot}")
        assert_stayed_home(browser, server)


def test_production_view_on_the_demo(demo_database: Path, browser: Browser,
                                     tmp_path: Path) -> None:
    with serve(tmp_path, demo_database) as server:
        base = server.base
        # A collection and no dates: that collection's own last 7 days holding data.
        browser.open(base + "/dashboard#c=bricon2")
        wait_state(browser, "ready")
        first, last = week(last_day(base, "bricon2"))
        assert browser.js("location.hash") == f"#c=bricon2&from={first}&to={last}"

        def assert_figures(c: str) -> None:
            days = summary(base, c, first, last, "day")
            assert days, f"no {c} batches from {first} to {last}"
            # sv and pv per material: the sums of the API's day groups.
            expected = []
            for m in MATERIALS:
                sv = sum(d[f"{m}_sv"] for d in days if d[f"{m}_sv"] is not None)
                pv = sum(d[f"{m}_pv"] for d in days if d[f"{m}_pv"] is not None)
                expected.append([m, sv, pv, pv - sv, deviation(sv, pv)])
            shown = rows(browser, "table.svpv")
            assert [[r[0], *map(number, r[1:])] for r in shown] == expected
            # The deviation per day: a bar per day and material that has one, and the table.
            assert Counter(segments(browser, "deviation-chart")) == Counter(
                (d["day"], m) for d in days for m in MATERIALS
                if d[f"{m}_deviation"] is not None)
            shown = rows(browser, "table.deviations")
            assert [[r[0], *map(number, r[1:])] for r in shown] == [
                [d["day"], *(d[f"{m}_deviation"] for m in MATERIALS)] for d in days]
            batches = browser.js("document.querySelector('.tile .value').textContent")
            assert number(batches) == sum(d["batches"] for d in days)
            for xlsx_url, csv_url, api_url in links(browser):
                assert api_url == f"{base}/{c}/summary/{first}/00:00/{last}/23:59:59" \
                                  f"?by=day&on=tanggal"
                assert xlsx_url == api_url + "&format=xlsx"
                assert requests.get(csv_url, timeout=10).status_code == 200
                assert requests.get(api_url, timeout=10).json() == days

        assert_figures("bricon2")

        # Another collection from the picker keeps the dates, in the hash too.
        browser.js("const picker = document.getElementById('collection');"
                   " picker.value = 'biao1'; picker.dispatchEvent(new Event('change'))")
        browser.wait_for("document.getElementById('status').textContent"
                         f".startsWith('Batching plant — Biao,') && {STATE} === 'ready'",
                         "biao1's view")
        assert browser.js("location.hash") == f"#c=biao1&from={first}&to={last}"
        assert_figures("biao1")
        assert_stayed_home(browser, server)


def test_values_are_text_never_html(browser: Browser, tmp_path: Path) -> None:
    def weighing(n: int, custcode: str | None, productcode: str | None,
                 day: str) -> dict[str, Any]:
        return {"id": n, "custcode": custcode, "productcode": productcode, "tgl_dt1": day,
                "jam_dt1": "08:00:00", "weigh1": 20000.0 + n, "weigh2": 8000.0}

    database = build_database(tmp_path / "hostile.sqlite3", {"transactions": [
        weighing(1, SCRIPT, IMG, "2026-03-09"),
        weighing(2, SCRIPT, "RM001", "2026-03-10"),
        weighing(3, None, None, "2026-03-10"),
    ]})
    with serve(tmp_path, database) as server:
        browser.open(server.base + "/dashboard")
        wait_state(browser, "ready")
        assert browser.js("location.hash") == "#c=transactions&from=2026-03-04&to=2026-03-10"

        # The exact characters, as text, where they belong; NULL as "(none)"; codes without
        # a master record as the code, saying there is no name. All weighed in: deliveries.
        assert [r[0] for r in rows(browser, "table.suppliers")] == [
            NONE, f"{SCRIPT} (no name)"]
        assert sorted(legend(browser, "svg.net-chart.in + .legend")) == sorted([
            (NONE, "no code recorded"),
            (f"{IMG} (no name)", f"{IMG}: no name in products"),
            ("RM001 (no name)", "RM001: no name in products")])
        titles = browser.js("[...document.querySelectorAll('svg.net-chart title')]"
                            ".map(t => t.textContent)")
        # 20001 - 8000 kg
        assert f"2026-03-09 · {IMG}: 12.00 t (12\u202f001 kg)" in titles
        # ... and nothing of them ran or became an element.
        assert browser.js("typeof window.pwned") == "undefined"
        assert browser.js("document.querySelectorAll('img').length") == 0
        assert browser.js("document.querySelector('img[src=\"x\"]')") is None
        # Its labels as JSON data, which never runs, the script it shares with the daily report
        # (from this server, under the page's prefix) and its own.
        assert browser.js("[...document.scripts].map(s => [s.type, s.src])") == [
            ["application/json", ""], ["", f"{server.base}/jembatan.js"], ["", ""]]

        # An error of the API is shown as its text: a range that starts after it ends.
        browser.js("location.hash = '#c=transactions&from=2026-03-10&to=2026-03-01'")
        assert wait_state(browser, "error") == "error"
        refused = [f"{server.base}/transactions/summary/2026-03-10/00:00/2026-03-01/23:59:59"
                   f"?by={by}&on=dt1" for by in ("day,direction,productcode",
                                                 "direction,custcode")]
        answer = requests.get(refused[0], timeout=10)
        assert answer.status_code == 400
        shown = browser.js("document.getElementById('error').textContent")
        assert answer.json()["message"] in shown and "400" in shown
        assert browser.js("document.querySelectorAll('section.view').length") == 0
        assert browser.js("typeof window.pwned") == "undefined"
        assert_stayed_home(browser, server, allowed=tuple(f"400 {url}" for url in refused))


def test_names_from_the_tickets(browser: Browser, request: pytest.FixtureRequest,
                                tmp_path: Path) -> None:
    """A plant without product or customer tables whose tickets carry the names, given in
    its names.sql (tests/test_names_file.py): the tables by material and by party show them,
    the code on hover; a code no ticket names says so."""
    database, config = served_site(request, tmp_path)
    toml = tmp_path / "tickets.toml"
    toml.write_text(config)
    rows_in = [contract_row(t) for t in TICKETS]
    with serve(tmp_path, database, JEMBATAN_CONFIG=str(toml)) as server:
        browser.open(server.base + "/dashboard")
        wait_state(browser, "ready")
        first, last = week(date(2026, 3, 11))  # the last day holding data
        assert browser.js("location.hash") == f"#c=transactions&from={first}&to={last}"
        week_rows = in_range(rows_in, PAIRS["dt1"], f"{first}T00:00:00", f"{last}T23:59:59")
        for field, master, tables in (("productcode", "products", ("materials", "materials")),
                                      ("custcode", "customers", ("suppliers", "customers"))):
            for way, table in zip(("in", "out"), tables, strict=True):
                mine = [r for r in week_rows if direction(r) == way]
                want: dict[str, list[str]] = {}
                for value in {r[field] for r in mine}:
                    some = [r for r in mine if r[field] == value]
                    name = name_in(master, value)
                    label = (NONE if value is None else name if name is not None
                             else f"{value} (no name)")
                    net = sum(abs(r["weigh1"] - r["weigh2"]) for r in some)
                    want[label] = [str(len(some)), str(len(some)), tonnes(net)]
                selector = f"table.{table}" + (f".{way}" if table == "materials" else "")
                assert {cells[0]: cells[1:4] for cells in rows(browser, selector)} == want
        # Its mapping gives adjustweigh as NULL: the net alone, no deduction column or tile.
        assert rows(browser, "table.materials.in", "thead") == [
            ["Material", "Weighings", "Weighed in and out", "Net (t)"]]
        assert rows(browser, "table.suppliers", "thead") == [
            ["Supplier", "Weighings", "Weighed in and out", "Net (t)", "Smallest net (t)",
             "Largest net (t)"]]
        assert browser.js("[...document.querySelectorAll('.tile .label')]"
                          ".map(l => l.textContent)") == [
            "Weighings", "Weighed in and out", "Delivered in", "Dispatched out",
            "Suppliers and customers"]
        assert sorted(legend(browser, "svg.net-chart.in + .legend")) == sorted([
            (NONE, "no code recorded"), ("Pasir Lumajang", "code RM001"),
            ("RM002 (no name)", "RM002: no name in products"), ("Semen Gresik", "code RM003")])
        assert legend(browser, "svg.net-chart.out + .legend") == [
            ("Bata Ringan 10 cm", "code FG001")]
        assert_stayed_home(browser, server)


def test_api_keys_under_a_url_prefix(demo_database: Path, browser: Browser,
                                     tmp_path: Path) -> None:
    config = tmp_path / "prefix.toml"
    config.write_text('[api]\nurl_prefix = "/api"\n')
    with serve(tmp_path, demo_database, JEMBATAN_API_KEYS="k1-0123456789abc",
               JEMBATAN_CONFIG=str(config)) as server:
        base = server.base + "/api"
        assert requests.get(base + "/", timeout=10).status_code == 401

        # The page itself is open; its first API request is refused, so it asks for a key.
        browser.open(base + "/dashboard")
        wait_state(browser, "key")
        assert browser.js("document.getElementById('keyform').hidden") is False
        assert browser.js("document.querySelectorAll('section.view').length") == 0

        browser.type("document.getElementById('key')", "k1-0123456789abc")
        browser.click("document.querySelector('#keyform button')")
        wait_state(browser, "ready")
        first, last = week(END_DATE)
        assert browser.js("location.hash") == f"#c=transactions&from={first}&to={last}"
        # The views loaded, which every API request after the key needed it for.
        assert segments(browser, "net-chart")
        assert browser.js("document.getElementById('keyform').hidden") is True

        # The key is kept for the tab only.
        assert browser.js("Object.values(sessionStorage)") == ["k1-0123456789abc"]
        assert browser.js("localStorage.length") == 0
        assert "k1-0123456789abc" not in browser.js("document.cookie + location.href")

        # Every request went under the prefix; the links name URLs that answer with the key.
        for url in browser.seen("request"):
            if urlsplit(url).scheme not in NO_NETWORK:
                assert urlsplit(url).path.startswith("/api/"), url
        for _, csv_url, api_url in links(browser):
            assert api_url.startswith(f"{base}/transactions/summary/{first}/")
            assert requests.get(api_url, timeout=10).status_code == 401
            assert requests.get(api_url, headers={"X-API-Key": "k1-0123456789abc"},
                                timeout=10).status_code == 200
            assert requests.get(csv_url, headers={"X-API-Key": "k1-0123456789abc"},
                                timeout=10).status_code == 200

        # A download link followed with the key: the page fetches it with the header.
        csv_url = links(browser)[0][1]
        browser.click("document.querySelector('section.view a.csv')")
        browser.until(lambda: csv_url in browser.seen("request"), "the CSV fetched with the key")
        browser.wait_for(f"performance.getEntriesByName({json.dumps(csv_url)})"
                         ".some(e => e.responseEnd > 0)", "the CSV downloaded")
        assert browser.js("document.getElementById('error').hidden") is True

        # A reload in the same tab keeps the key: the views load without asking again.
        browser.js("window.before_reload = 1")
        browser.call("Page.reload", {}, browser.page)
        browser.wait_for(f"!window.before_reload && {STATE} === 'ready'", "the reloaded page")
        assert browser.js("document.getElementById('keyform').hidden") is True
        assert segments(browser, "net-chart")

        assert_stayed_home(browser, server, allowed=(f"401 {base}/",))


def test_without_the_shared_script_the_pages_say_so(demo_database: Path, browser: Browser,
                                                    tmp_path: Path) -> None:
    """A proxy that passes the pages but not /jembatan.js (the script they share,
    app/http/pages.py): each page says which URL did not load, rather than staying blank."""
    with serve(tmp_path, demo_database) as server:
        browser.open("about:blank")
        browser.call("Network.setBlockedURLs", {"urls": ["*/jembatan.js"]}, browser.page)
        for path in ("/dashboard", "/report/2026-11-20"):
            browser.call("Page.navigate", {"url": server.base + path}, browser.page)
            browser.wait_for(f"location.pathname === {json.dumps(path)} && {STATE} === 'error'",
                             f"{path} in state error")
            assert browser.js("document.getElementById('error').textContent") == (
                f"This page's script did not load: {server.base}/jembatan.js")
            assert browser.js("document.getElementById('error').hidden") is False
        assert not browser.seen("error"), browser.seen("error")  # no exception: it checked


def test_dashboard_route(demo_database: Path, tmp_path: Path) -> None:
    with serve(tmp_path, demo_database, JEMBATAN_API_KEYS="k1-0123456789abc") as server:
        page = requests.get(server.base + "/dashboard", timeout=10)
        assert page.status_code == 200
        assert page.headers["Content-Type"] == "text/html; charset=utf-8"
        assert page.headers["Cache-Control"] == "no-cache"
        policy = dict(p.strip().split(" ", 1)
                      for p in page.headers["Content-Security-Policy"].split(";"))
        assert policy["default-src"] == policy["connect-src"] == "'self'"
        assert policy["img-src"] == "'self' data:"
        for inline in ("script-src", "style-src"):
            assert policy[inline].startswith("'self' 'sha256-"), policy[inline]
        assert "unsafe" not in page.headers["Content-Security-Policy"]
        assert "http" not in page.headers["Content-Security-Policy"]
        # Revalidated cheaply.
        again = requests.get(server.base + "/dashboard", timeout=10,
                             headers={"If-None-Match": page.headers["ETag"]})
        assert again.status_code == 304

        # A query argument is a 400 in the error shape; an `_` one is ignored.
        wrong = requests.get(server.base + "/dashboard?x=1", timeout=10)
        assert wrong.status_code == 400
        assert wrong.headers["Content-Type"] == "application/json"
        assert wrong.json()["code"] == 400 and "'x'" in wrong.json()["message"]
        assert requests.get(server.base + "/dashboard?_=1", timeout=10).status_code == 200

        # Not an operation of the API: absent from its OpenAPI document.
        spec = requests.get(server.base + "/openapi.json", timeout=10).json()
        assert not [p for p in spec["paths"] if "dashboard" in p]


def test_the_office_language(browser: Browser, tmp_path: Path) -> None:
    """Rows written here: names with the code on hover, a code without a master record,
    tonnes worked out from the weights, deliveries and dispatches apart, the site's labels,
    the quick ranges and the links."""
    def weighing(n: int, product: str, party: str, weigh1: float,
                 weigh2: float | None, cut: float | None = None) -> dict[str, Any]:
        return {"id": n, "productcode": product, "custcode": party, "tgl_dt1": "2026-03-10",
                "jam_dt1": "08:00:00", "weigh1": weigh1, "weigh2": weigh2, "adjustweigh": cut}

    # adjustweigh: kg deducted (sortasi); none on ticket 2, and ticket 5's counts nowhere.
    weighings = [weighing(1, "RM001", "SUP001", 30120.0, 8000.0, 320.0),  # in: 22 120 kg
                 weighing(2, "RM001", "SUP001", 28500.5, 8100.0),  # in: 20 400.5 kg
                 weighing(3, "RM099", "SUP001", 15000.0, 5000.0, 150.5),  # no such product
                 weighing(4, "FG001", "CUS001", 7000.0, 19880.0, 0.0),  # out: 12 880 kg
                 weighing(5, "FG001", "CUS001", 7100.0, None, 99.0)]  # not weighed out yet
    database = build_database(tmp_path / "office.sqlite3", {
        "transactions": weighings,
        "products": [{"id": 1, "ProductCode": "RM001", "ProductName": "Pasir Lumajang"},
                     {"id": 2, "ProductCode": "FG001", "ProductName": "Bata Ringan 10 cm"}],
        "customers": [{"id": 1, "CustCode": "SUP001", "CustName": "CV Sumber Pasir"},
                      {"id": 2, "CustCode": "CUS001", "CustName": f"Toko {IMG}"}]})
    config = tmp_path / "labels.toml"
    hostile = "Timbangan </script><script>window.pwned=3</script> & co"
    config.write_text(f'[site.collections]\ntransactions = "{hostile}"\n'
                      '[site.dates]\ndt1 = "masuk"\n', encoding="utf-8")
    with serve(tmp_path, database, JEMBATAN_CONFIG=str(config)) as server:
        browser.open(server.base + "/dashboard")
        wait_state(browser, "ready")
        assert browser.js("location.hash") == "#c=transactions&from=2026-03-04&to=2026-03-10"

        # The site's labels, as text: in the pickers and the status line.
        assert browser.js("[...document.getElementById('collection').selectedOptions]"
                          ".map(o => [o.textContent, o.title])") == [[hostile, "transactions"]]
        assert browser.js("document.getElementById('on').selectedOptions[0].textContent") \
            == "masuk"
        assert browser.js("document.getElementById('status').textContent").startswith(
            f"{hostile}, 2026-03-04 to 2026-03-10 by masuk date")

        # Deliveries in: names with the code on hover, the unnamed code says so; tonnes
        # from the weights above, kilograms on hover.
        assert sorted(legend(browser, "svg.net-chart.in + .legend")) == [
            ("Pasir Lumajang", "code RM001"), ("RM099 (no name)", "RM099: no name in products")]
        assert legend(browser, "svg.net-chart.out + .legend") == [
            ("Bata Ringan 10 cm", "code FG001")]
        # Net, deduction and net after deduction of each material.
        lumajang = (30120.0 - 8000.0) + (28500.5 - 8100.0)
        weights = {"Pasir Lumajang": (lumajang, 320.0), "RM099 (no name)": (10000.0, 150.5),
                   "Total": (lumajang + 10000.0, 470.5)}
        assert rows(browser, "table.materials.in") == [
            [name, n, n, *(tonnes(kg) for kg in (net, cut, net - cut))]
            for name, n in (("Pasir Lumajang", "2"), ("RM099 (no name)", "1"))
            for net, cut in [weights[name]]]
        net, cut = weights["Total"]
        assert rows(browser, "table.materials.in", "tfoot") == [
            ["Total", "3", "3", tonnes(net), tonnes(cut), tonnes(net - cut)]]
        assert tonnes(lumajang) == "42.52 t"  # 42 520.5 kg
        hovers = browser.js("[...document.querySelectorAll('table.materials.in .weight')]"
                            ".map(w => w.title)")
        assert hovers == [kilograms(kg) for net, cut in weights.values()
                          for kg in (net, cut, net - cut)]
        assert rows(browser, "table.materials.out") == [
            ["Bata Ringan 10 cm", "1", "1", tonnes(12880.0), tonnes(0.0), tonnes(12880.0)]]

        # Suppliers deliver, customers receive; the open weighing is neither.
        suppliers = rows(browser, "table.suppliers")
        assert [r[:4] for r in suppliers] == [["CV Sumber Pasir", "3", "3",
                                               tonnes(lumajang + 10000.0)]]
        assert rows(browser, "table.customers") == [
            [f"Toko {IMG}", "1", "1", tonnes(12880.0), tonnes(0.0), tonnes(12880.0),
             tonnes(12880.0), tonnes(12880.0)]]
        assert browser.js("document.querySelector('table.customers th .name').title") == \
            "code CUS001"
        assert rows(browser, "table.open") == [[f"Toko {IMG}", "1", "0"]]

        # Every download is a workbook first, the CSV and the API; the report of the day.
        base = f"{server.base}/transactions/summary/2026-03-04/00:00/2026-03-10/23:59:59"
        by_day = f"{base}?by=day,direction,productcode&on=dt1"
        by_party = f"{base}?by=direction,custcode&on=dt1"
        assert links(browser) == [
            (f"{api}&format=xlsx", f"{api}&format=csv-sheet", api)
            for api in (by_day, by_day, by_party, by_party, by_party)]
        assert browser.js("document.getElementById('report').href") == \
            f"{server.base}/report/2026-03-10"

        # Nothing of the labels or names ran or became an element.
        assert browser.js("typeof window.pwned") == "undefined"
        assert browser.js("document.querySelectorAll('img').length") == 0
        assert hostile not in requests.get(server.base + "/dashboard", timeout=10).text

        # Today, Yesterday, This month: the local calendar's dates, in the hash and pickers.
        now = date.today()
        for button, first, last in (
                ("today", now, now), ("yesterday", now - timedelta(1), now - timedelta(1)),
                ("month", now.replace(day=1), now)):
            browser.click(f"document.getElementById('{button}')")
            # The status line is written when the view of that range is drawn.
            status = json.dumps(f"{hostile}, {first} to {last} ")
            browser.wait_for(f"document.getElementById('status').textContent"
                             f".startsWith({status}) && {STATE} === 'ready'",
                             f"the range of {button}")
            assert browser.js("location.hash") == f"#c=transactions&from={first}&to={last}"
            assert browser.js("[document.getElementById('from').value,"
                              " document.getElementById('to').value]") == [
                first.isoformat(), last.isoformat()]
        assert_stayed_home(browser, server)


@pytest.mark.parametrize("timezone", ["Asia/Jakarta", ""])
def test_today_is_the_plants_date(tmp_path: Path, host_zone, timezone: str) -> None:
    """The quick ranges in the plant's calendar ([site] timezone), whatever zone the browser
    (and the host) is in; without the setting, the browser's own calendar."""
    plant = "Asia/Jakarta"
    browser_zone = other_zone_than(plant)
    host_zone(browser_zone)  # the browser and gunicorn inherit TZ
    database = build_database(tmp_path / "zone.sqlite3", {"transactions": [
        {"id": 1, "tgl_dt1": "2026-03-10", "jam_dt1": "08:00:00", "weigh1": 1.0}]})
    config = tmp_path / "zone.toml"
    config.write_text(f'[site]\ntimezone = "{timezone}"\n', encoding="utf-8")
    calendar = ZoneInfo(timezone or browser_zone)
    browser = Browser(tmp_path / "zone-profile", tmp_path / "zone-chromium.log")
    try:
        with serve(tmp_path, database, JEMBATAN_CONFIG=str(config)) as server:
            browser.open(server.base + "/dashboard")
            wait_state(browser, "ready")
            shown = {}
            for button, back in (("today", 0), ("yesterday", 1)):
                before = datetime.now(calendar).date()
                browser.click(f"document.getElementById('{button}')")
                days = sorted({(before - timedelta(back)).isoformat(),
                               (datetime.now(calendar).date() - timedelta(back)).isoformat()})
                # The status line is written when the view of that range is drawn.
                browser.wait_for(
                    f"{json.dumps([f'All weighings, {d} to {d} ' for d in days])}.some(s => "
                    f"document.getElementById('status').textContent.startsWith(s)) && "
                    f"{STATE} === 'ready'", f"the range of {button}")
                shown[button] = browser.js("[document.getElementById('from').value,"
                                           " document.getElementById('to').value]")
                assert browser.js("location.hash") == \
                    f"#c=transactions&from={shown[button][0]}&to={shown[button][1]}"
            # The browser's own date is another day than the plant's (other_zone_than).
            own = browser.js("new Intl.DateTimeFormat('en-CA').format(new Date())")
            assert (shown["today"][0] == own) == (not timezone), (shown, own)
    finally:
        browser.close()
