"""/jembatan.js (app/http/pages.py): the script the dashboard and the daily report share, served
beside them under `url_prefix`, open as they are when API keys are configured, as JavaScript
revalidated by its ETag; each page loads it by a relative URL that reaches it, takes from it
only what it offers, and defines none of its functions again (the copies that drifted apart
before it). The pages running with it in a browser: tests/test_dashboard.py, test_report.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import pytest

from app import create_app
from tests.conftest import build_database

STATIC = Path(__file__).parent.parent / "app" / "http" / "static"
SHARED = (STATIC / "jembatan.js").read_text(encoding="utf-8")
PAGES = {"dashboard.html": "/dashboard", "report.html": "/report/2026-03-10"}
# A definition of a name in JavaScript: a function or class declaration, or a binding of
# one name (not the destructuring of `Jembatan`, which is how a page takes what it shares).
DEFINED = re.compile(r"\b(?:(?:async\s+)?function\*?|class)\s+([A-Za-z_$][\w$]*)"
                     r"|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=")


def definitions(js: str) -> set[str]:
    """Every name `js` defines, at any depth (its // comments aside)."""
    return {a or b for a, b in DEFINED.findall(re.sub(r"//.*", "", js))}


def shared_definitions() -> set[str]:
    """The names the shared script defines at its top (the body of its one function, two
    spaces in), what `Jembatan` offers among them; not the local names of its functions."""
    return definitions("\n".join(line for line in SHARED.splitlines()
                                  if re.match(r"  \S", line)))


def exported() -> set[str]:
    """What `Jembatan` offers: the names of the object the shared script freezes."""
    (names,) = re.findall(r"Object\.freeze\(\{(.*?)\}\)", SHARED, re.DOTALL)
    return {n.strip() for n in names.split(",") if n.strip()}


def page_scripts(html: str) -> tuple[list[str], str]:
    """(the src of each external script, the page's inline scripts' text)."""
    sources = re.findall(r'<script src="([^"]+)"></script>', html)
    inline = "\n".join(re.findall(r"<script>(.*?)</script>", html, re.DOTALL))
    return sources, inline


def test_the_shared_script_offers_what_it_defines():
    offered = exported()
    assert {"getJson", "askForKey", "summaryUrl", "table", "h", "shapeOf", "addDays",
            "fmt", "NeedKey", "LABELS", "IN_ZONE"} <= offered
    # Everything offered is defined there (a name in the list alone would be undefined).
    assert offered <= shared_definitions(), offered - shared_definitions()


@pytest.mark.parametrize("filename", PAGES)
def test_no_page_defines_a_shared_function_again(filename):
    html = (STATIC / filename).read_text(encoding="utf-8")
    sources, inline = page_scripts(html)
    # The shared script first, then the page's own: `Jembatan` exists when the page runs.
    assert html.index(f'<script src="{sources[0]}">') < html.index("<script>\n")
    again = definitions(inline) & shared_definitions()
    assert not again, f"{filename} defines again what app/http/static/jembatan.js defines: {again}"
    taken = re.findall(r"const\s*\{([^}]*)\}\s*=\s*Jembatan\s*;", inline)
    assert len(taken) == 1, "each page takes what it shares from Jembatan once"
    names = {n.strip() for n in taken[0].split(",") if n.strip()}
    assert names <= exported(), f"{filename} takes what Jembatan lacks: {names - exported()}"
    # And uses each name it takes (beyond taking it).
    unused = {n for n in names
              if len(re.findall(rf"(?<![\w$.]){re.escape(n)}(?![\w$])", inline)) < 2}
    assert not unused, f"{filename} takes and never uses {unused}"


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return build_database(tmp_path / "plant.sqlite3", {})


@pytest.mark.parametrize("prefix", ["", "/api"])
@pytest.mark.parametrize("keys", [[], ["k1-0123456789abc"]])
def test_the_script_is_served_beside_the_pages(database, prefix, keys):
    client = create_app({"database": {"sqlite": str(database)}, "api": {"url_prefix": prefix},
                         "auth": {"api_keys": keys}}).test_client()
    url = f"{prefix}/jembatan.js"
    for filename, path in PAGES.items():
        page = client.get(prefix + path)
        assert page.status_code == 200
        # The page's relative src reaches the script, under the prefix too.
        sources, _ = page_scripts(page.get_data(as_text=True))
        assert [urljoin(f"http://localhost{prefix}{path}", s) for s in sources] == [
            f"http://localhost{url}"], filename

    # Open like the pages, with keys or without: no key sent here.
    script = client.get(url)
    assert script.status_code == 200
    assert script.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert script.get_data() == SHARED.encode()
    assert script.headers["Cache-Control"] == "no-cache"
    assert script.headers["X-Content-Type-Options"] == "nosniff"
    again = client.get(url, headers={"If-None-Match": script.headers["ETag"]})
    assert again.status_code == 304 and not again.get_data()
    # It takes no query argument, as the pages do; an `_` one is ignored.
    wrong = client.get(f"{url}?x=1")
    assert wrong.status_code == 400 and wrong.get_json()["code"] == 400
    assert client.get(f"{url}?_=1").status_code == 200
    # Under a prefix it is there only; the API's index still needs its key.
    if prefix:
        assert client.get("/jembatan.js").status_code == 404
    assert client.get(f"{prefix}/").status_code == (401 if keys else 200)


def test_the_script_is_not_an_operation(database):
    client = create_app({"database": {"sqlite": str(database)}}).test_client()
    spec = client.get("/openapi.json").get_json()
    assert not [p for p in spec["paths"] if "jembatan" in p]
