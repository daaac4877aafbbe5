"""/docs in a real headless Chromium against a real gunicorn: Swagger UI lists
every collection's operations, "Try it out" then "Execute" fetches a record, and nothing the
page loads or asks for leaves localhost (no CDN, no web fonts).

The browser (tests/browser.py) is Debian's `chromium` through the DevTools protocol, with a
dead proxy for every host but loopback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from tests.browser import NO_NETWORK, Browser, needs_chromium
from tests.conftest import build_database
from tests.servers import Running, gunicorn

COLLECTIONS = ("customers", "products", "transporters", "transactions", "vehicles", "bricon2",
               "weighing", "timbangan1", "timbangan2", "biao1")
METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
SUMMARIES = ("gets all", "gets by page", "finds by ID", "finds by row number", "gets by date",
             "sums by date", "gets what changed")
NUMBERED = {"bricon2", "weighing", "timbangan1", "timbangan2"}  # found by row number
UNDATED = {"customers", "products", "transporters"}  # no date range
CUSTOMERS = [
    {"id": 1, "CustCode": "C001", "CustName": "PT Sumber Batu Lestari", "Address": "Jl. Raya 5",
     "City": "Gresik", "Phone": "031-555-0101", "Contact": "Bu Sari", "Remark": None},
    {"id": 2, "CustCode": "C002", "CustName": "CV Beton Nusantara", "Address": None,
     "City": "Sidoarjo", "Phone": None, "Contact": None, "Remark": "tunai"},
]

pytestmark = needs_chromium


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Running]:
    database = build_database(tmp_path / "docs.sqlite3", {"customers": CUSTOMERS})
    with gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database)}, "--workers", "1",
                  "--threads", "4") as running:
        yield running


def _operation(path: str) -> str:
    """The JS expression for the operation block of GET `path`."""
    return (f"[...document.querySelectorAll('.opblock.opblock-get')].find(b => "
            f"b.querySelector('.opblock-summary-path')?.dataset.path === {json.dumps(path)})")


def test_docs_page_lists_operations_and_tries_one(server: Running, browser: Browser,
                                                  tmp_path: Path) -> None:
    spec = requests.get(server.base + "/openapi.json", timeout=10).json()
    documented = {(method.upper(), path, op["summary"])
                  for path, item in spec["paths"].items() for method, op in item.items()
                  if method in METHODS}

    browser.open(server.base + "/docs")
    browser.wait_for("document.querySelectorAll('.opblock').length >= "
                     f"{len(documented)}", "operations on the page")

    # Every collection is a tag, and every operation of the spec is listed under its path.
    tags = browser.js("[...document.querySelectorAll('.opblock-tag')].map(t => t.dataset.tag)")
    assert set(COLLECTIONS) <= set(tags), tags
    listed = browser.js(
        "[...document.querySelectorAll('.opblock')].map(b => ["
        " b.querySelector('.opblock-summary-method').textContent.trim(),"
        " b.querySelector('.opblock-summary-path').dataset.path,"
        " b.querySelector('.opblock-summary-description')?.textContent.trim() ?? ''])")
    assert {tuple(op) for op in listed} == documented
    shown = {summary for _, _, summary in listed}
    assert set(SUMMARIES) <= shown, shown
    for collection in COLLECTIONS:
        section = browser.js(
            f"[...[...document.querySelectorAll('.opblock-tag-section')].find(s =>"
            f" s.querySelector('.opblock-tag').dataset.tag === '{collection}')"
            f".querySelectorAll('.opblock-summary-description')].map(d => d.textContent.trim())")
        key = "finds by row number" if collection in NUMBERED else "finds by ID"
        ranges = [] if collection in UNDATED else ["gets by date", "sums by date",
                                                   "gets what changed"]
        assert sorted(section) == sorted(["gets all", "gets by page", key, *ranges]), collection
    browser.screenshot(tmp_path / "docs.png")
    print(f"screenshot: {tmp_path / 'docs.png'}")

    # Try it out on GET /customers/{ID} with ID 1, then Execute.
    block = _operation("/customers/{ID}")
    browser.click(f"{block}.querySelector('.opblock-summary')")
    browser.click(f"{block}.querySelector('.try-out__btn')")
    id_input = f"{block}.querySelector('tr[data-param-name=\"ID\"] input:not([disabled])')"
    browser.type(id_input, "1")
    browser.wait_for(f"{id_input}.value === '1'", "ID 1 typed in")
    browser.click(f"{block}.querySelector('.btn.execute')")
    live = f"{block}.querySelector('.live-responses-table tbody')"
    status = browser.wait_for(f"{live}?.querySelector('.response-col_status')"
                              f"?.textContent.trim()", "response to Execute")
    body = browser.js(f"{live}.querySelector('.response-col_description pre')?.textContent")
    request_url = browser.js(f"{block}.querySelector('.request-url pre')?.textContent.trim()")
    shot = browser.screenshot(tmp_path / "try-it-out.png", block, live)
    print(f"screenshot: {shot}")

    assert status == "200"
    assert request_url == f"{server.base}/customers/1"
    assert json.loads(body) == CUSTOMERS[0]

    # Nothing left localhost: every URL that the page, or any part of the browser, asked for
    # is on this gunicorn or needs no network (inline data, the browser's own chrome:// UI).
    origin = f"127.0.0.1:{server.port}"
    outside = [url for url in browser.seen("request", everywhere=True)
               if urlsplit(url).netloc != origin and urlsplit(url).scheme not in NO_NETWORK]
    assert not outside, f"requests leaving {origin}: {outside}"
    asked = browser.seen("request")
    for path in ("/docs", "/docs/static/swagger-ui-bundle.js", "/openapi.json", "/customers/1"):
        assert server.base + path in asked, f"{path} not among {asked}"
    # And every one of the page's requests was answered, with no error in the page.
    # The browser's own guess at an icon is the one 404 allowed: the page names no icon.
    errors = [s for s in browser.seen("status") if s != f"404 {server.base}/favicon.ico"]
    assert not errors, errors
    assert not browser.seen("failure"), browser.seen("failure")
    assert not browser.seen("error"), browser.seen("error")
