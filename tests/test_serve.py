"""Only the collections a site has (docs/api.md §2 and §12, `[collections] serve`): the
others need no mapping file, are absent from the index, the OpenAPI document, the dashboard
and `check-sql`, and every path under them answers 404 saying this site does not serve them;
a name that is not one of the ten, or one given twice, stops the start."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask

from app import create_app
from app.model.collections import COLLECTIONS
from app.model.labels import FIELD_LABELS
from app.ops.config import SHIPPED_SQL_DIR, ConfigError
from tests.browser import Browser, needs_chromium
from tests.conftest import MakeClient, build_database
from tests.servers import ROOT, gunicorn

NAMES = [c.name for c in COLLECTIONS]
WEIGHING = {"id": 1, "vehno": "B 1234 XY", "productcode": "RM001", "custcode": "SUP001",
            "tgl_dt1": "2026-11-20", "jam_dt1": "07:05:03", "tgl_dt2": "2026-11-20",
            "jam_dt2": "07:40:00", "weigh1": 30500.0, "weigh2": 10500.0}
RANGE = "2026-11-01/00:00/2026-11-30/23:59:59"
STATE = "document.documentElement?.dataset.state"


def not_served(name: str, served: str, prefix: str = "") -> dict[str, Any]:
    """The whole body of a 404 under a collection this site does not serve."""
    return {"code": 404, "status": "Not Found",
            "message": f"This site does not serve {name}: it serves {served}. The collections "
                       f"and their URLs are listed at the index ({prefix}/)."}


def site_sql(tmp_path: Path, *collections: str) -> Path:
    """A site's sql_dir holding only these collections' mapping files (shapes.sql and
    database.sql come from Jembatan's own sql/)."""
    site = tmp_path / "site-sql"
    site.mkdir()
    for name in collections:
        shutil.copy(SHIPPED_SQL_DIR / f"{name}.sql", site)
    return site


def app_serving(tmp_path: Path, *serve: str, **settings: Any) -> Flask:
    """An app on a SQLite file with one transactions row, serving `serve`."""
    database = build_database(tmp_path / "site.sqlite3", {"transactions": [WEIGHING]})
    return create_app({**settings, "collections": {"serve": list(serve)},
                       "database": {"sqlite": str(database), **settings.get("database", {})}})


# -- the index and the OpenAPI document -----------------------------------------------------


def test_the_index_lists_exactly_the_served_in_the_table_order(tmp_path: Path) -> None:
    # Given out of order: listed in the order of the table of collections. The labels: the
    # defaults with the site's renames laid over (what a warehouse's `fields` table shows).
    client = app_serving(tmp_path, "biao1", "vehicles", "transactions",
                         site={"fields": {"weigh1": "Bruto (kg)"}}).test_client()
    r = client.get("/")
    assert r.status_code == 200
    assert r.get_json() == {
        "name": "Jembatan",
        "collections": [
            {"name": "transactions", "url": "http://localhost/transactions",
             "record": "Weighing", "key": "id", "order": ["id"],
             "date_range": ["dt1", "dt2", "create", "update"]},
            {"name": "vehicles", "url": "http://localhost/vehicles", "record": "Vehicle",
             "key": "id", "order": ["id"], "date_range": ["create", "expired"]},
            {"name": "biao1", "url": "http://localhost/biao1", "record": "ProductionWithId",
             "key": "id", "order": ["id"], "date_range": ["tanggal"]},
        ],
        "docs": "http://localhost/docs",
        "openapi": "http://localhost/openapi.json",
        "dashboard": "http://localhost/dashboard",
        "report": "http://localhost/report",
        "site": None,
        "labels": {**FIELD_LABELS, "weigh1": "Bruto (kg)"},
    }


def test_an_empty_serve_is_all_ten(tmp_path: Path) -> None:
    client = app_serving(tmp_path).test_client()
    assert [c["name"] for c in client.get("/").get_json()["collections"]] == NAMES


def test_the_openapi_document_has_only_the_served(tmp_path: Path) -> None:
    spec = app_serving(tmp_path, "transactions").test_client().get("/openapi.json").get_json()
    assert list(spec["paths"]) == [
        "/transactions", "/transactions/page/{pagenumber}", "/transactions/{ID}",
        "/transactions/date/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir}",
        "/transactions/summary/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir}",
        "/transactions/changes", "/", "/health"]
    assert [t["name"] for t in spec["tags"]] == ["transactions", "service"]
    # The record and summary schemas of the served shape only: no Customer, no Production.
    schemas = set(spec["components"]["schemas"])
    assert {"Weighing", "WeighingSummary"} <= schemas
    others = {c.schema.__name__ for c in COLLECTIONS} - {"Weighing"}
    assert not schemas & (others | {"ProductionSummary", "VehicleSummary"}), schemas
    text = json.dumps(spec)
    for name in NAMES:
        if name != "transactions":
            assert f'"/{name}' not in text and f'"{name}_' not in text, name


def test_schemas_a_served_collection_shares_stay(tmp_path: Path) -> None:
    """weighing, timbangan1 and timbangan2 share NumberedWeighing: serving one keeps it."""
    spec = app_serving(tmp_path, "timbangan2").test_client().get("/openapi.json").get_json()
    assert [t["name"] for t in spec["tags"]] == ["timbangan2", "service"]
    assert {"NumberedWeighing", "WeighingSummary"} <= set(spec["components"]["schemas"])
    assert "Weighing" not in spec["components"]["schemas"]


# -- the paths of a collection not served ---------------------------------------------------


UNSERVED_PATHS = ["/customers", "/customers/", "/customers/1", "/customers/page/1",
                  "/customers/page/1?page_size=5", "/customers?format=csv",
                  f"/bricon2/date/{RANGE}", f"/bricon2/summary/{RANGE}?by=day",
                  "/bricon2/date/2026-11-20", "/weighing/15", "/biao1/anything/at/all"]


@pytest.mark.parametrize("path", UNSERVED_PATHS)
def test_a_path_of_a_collection_not_served_is_a_404_saying_so(tmp_path: Path,
                                                              path: str) -> None:
    client = app_serving(tmp_path, "transactions", "vehicles").test_client()
    r = client.get(path)
    assert r.status_code == 404
    assert r.mimetype == "application/json"
    name = path.split("/")[1].split("?")[0]
    assert r.get_json() == not_served(name, "transactions, vehicles")
    # Any method: a path that does not exist here, not a read-only refusal (405).
    assert client.post(path).get_json() == not_served(name, "transactions, vehicles")
    assert client.head(path).status_code == 404


def test_the_404_under_a_url_prefix_and_with_api_keys(tmp_path: Path) -> None:
    client = app_serving(tmp_path, "transactions", api={"url_prefix": "/api"},
                         auth={"api_keys": ["k1-0123456789abc"]}).test_client()
    # Like every path that does not exist, it needs no key to say so.
    r = client.get("/api/customers/1")
    assert r.status_code == 404
    assert r.get_json() == not_served("customers", "transactions", "/api")
    # Outside the prefix it is no collection's path at all.
    assert client.get("/customers/1").get_json()["message"].startswith("Nothing at /customers/1.")
    assert client.get("/api/transactions/1").status_code == 401
    assert client.get("/api/transactions/1",
                      headers={"X-API-Key": "k1-0123456789abc"}).status_code == 200


def test_other_unknown_paths_keep_their_404(tmp_path: Path) -> None:
    client = app_serving(tmp_path, "transactions").test_client()
    r = client.get("/pelanggan")
    assert r.status_code == 404
    assert r.get_json()["message"].startswith("Nothing at /pelanggan.")
    # A served collection's own 404 and 400 are unchanged.
    assert client.get("/transactions/2").get_json()["message"] == (
        "no transactions record with ID 2")
    assert client.get("/transactions/date/2026-11-20").status_code == 400


# -- mapping files ----------------------------------------------------------------------------


def test_a_sql_dir_with_only_the_served_files_starts_and_answers(make_client: MakeClient,
                                                                 tmp_path: Path) -> None:
    site = site_sql(tmp_path, "transactions")
    # A file of a collection not served is not even read: this one would be refused.
    (site / "customers.sql").write_text("DELETE FROM customers;\n")
    client = make_client({"transactions": [WEIGHING]}, database={"sql_dir": str(site)},
                         collections={"serve": ["transactions"]})
    r = client.get("/transactions")
    assert r.status_code == 200
    assert [(t["id"], t["vehno"], t["tgl_dt1"], t["jam_dt1"], t["weigh1"])
            for t in r.get_json()] == [(1, "B 1234 XY", "2026-11-20", "07:05:03", 30500.0)]
    r = client.get(f"/transactions/summary/{RANGE}?by=day")
    assert r.get_json() == [{"day": "2026-11-20", "records": 1, "weighed": 1, "net": 20000.0,
                             "net_min": 20000.0, "net_max": 20000.0,
                             "deduction": 0.0, "net_after_deduction": 20000.0}]
    assert client.get("/customers").get_json() == not_served("customers", "transactions")


def test_a_missing_file_of_a_served_collection_is_refused_at_start(tmp_path: Path) -> None:
    site = site_sql(tmp_path, "transactions")
    database = build_database(tmp_path / "site.sqlite3", {})
    with pytest.raises(Exception) as caught:
        create_app({"database": {"sqlite": str(database), "sql_dir": str(site)},
                    "collections": {"serve": ["transactions", "vehicles"]}})
    assert str(caught.value) == (f"{site / 'vehicles.sql'}: missing (database.sql_dir is "
                                 f"{site}); a site without vehicles leaves it out of "
                                 f"collections.serve")


# -- check-sql --------------------------------------------------------------------------------


def checked(output: str) -> list[str]:
    """The collections a check-sql output has a section for."""
    return re.findall(r"^(\w+) \(\w+\)$", output, re.M)


def test_check_sql_checks_only_the_served(tmp_path: Path) -> None:
    site = site_sql(tmp_path, "customers", "transactions")
    app = app_serving(tmp_path, "transactions", "customers",
                      database={"sql_dir": str(site)})
    result = app.test_cli_runner().invoke(args=["check-sql"])
    assert result.exit_code == 0, result.output
    assert checked(result.output) == ["customers", "transactions"]
    assert "ERROR" not in result.output and "Every query runs" in result.output

    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 0, result.output
    assert checked(result.output) == ["transactions"]

    shown = app.test_cli_runner().invoke(args=["check-sql", "--show"]).output
    assert re.findall(r"^-- (\w+)\.records:", shown, re.M) == ["customers", "transactions"]


def test_check_sql_on_a_collection_not_served_says_so(tmp_path: Path) -> None:
    app = app_serving(tmp_path, "transactions", "customers",
                      database={"sql_dir": str(site_sql(tmp_path, "customers", "transactions"))})
    for args in (["check-sql", "bricon2"], ["check-sql", "--show", "bricon2"]):
        result = app.test_cli_runner().invoke(args=args)
        assert result.exit_code == 2
        assert result.output.endswith(
            "Error: Invalid value for COLLECTION: this site does not serve 'bricon2' (it is "
            "not in collections.serve); it serves: customers, transactions\n")
    result = app.test_cli_runner().invoke(args=["check-sql", "pelanggan"])
    assert result.exit_code == 2
    assert f"no collection 'pelanggan'; the collections are: {', '.join(NAMES)}" in (
        result.output)


# -- the setting itself ----------------------------------------------------------------------


@pytest.mark.parametrize(("serve", "message"), [
    (["pelanggan"], f"collections.serve: 'pelanggan' is not a collection; the collections "
                    f"are: {', '.join(NAMES)}"),
    (["transactions", "Vehicles"], f"collections.serve: 'Vehicles' is not a collection (did "
                                   f"you mean 'vehicles'?); the collections are: "
                                   f"{', '.join(NAMES)}"),
    ([""], f"collections.serve: '' is not a collection; the collections are: "
           f"{', '.join(NAMES)}"),
    (["transactions", "vehicles", "transactions"],
     "collections.serve names 'transactions' twice"),
])
def test_a_wrong_name_in_serve_is_an_error_at_start(tmp_path: Path, serve: list[str],
                                                    message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        app_serving(tmp_path, *serve)
    assert str(caught.value) == message


@pytest.mark.parametrize(("text", "message"), [
    ('[collections]\nserve = "transactions"\n',
     "collections.serve must be list, not str 'transactions'"),
    ("[collections]\nserve = [1]\n", "collections.serve must be a list of strings"),
    ("[collections]\nserved = []\n", "unknown key collections.served"),
])
def test_a_serve_of_the_wrong_type_is_an_error_at_start(tmp_path: Path, text: str,
                                                        message: str) -> None:
    config = tmp_path / "jembatan.toml"
    config.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    done = subprocess.run([str(Path(sys.executable).parent / "flask"), "--app", "wsgi",
                           "check-sql"], cwd=ROOT, env=env | {"JEMBATAN_CONFIG": str(config)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"jembatan: {config}: {message}"), done.stderr


def test_an_unknown_name_in_the_file_stops_gunicorn_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "jembatan.toml"
    config.write_text('[collections]\nserve = ["transactions", "vehicle"]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    done = subprocess.run([str(Path(sys.executable).parent / "gunicorn"), "--check-config",
                           "wsgi:app"], cwd=ROOT, env=env | {"JEMBATAN_CONFIG": str(config)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (f"jembatan: collections.serve: 'vehicle' is not a collection (did "
                           f"you mean 'vehicles'?); the collections are: {', '.join(NAMES)}\n")


# -- the dashboard ---------------------------------------------------------------------------


def serve_site(tmp_path: Path, database: Path, *serve: str) -> Any:
    """gunicorn on `database` serving `serve`, from a sql_dir holding only their files."""
    config = tmp_path / "site.toml"
    config.write_text(f'[database]\nsqlite = "{database}"\nsql_dir = '
                      f'"{site_sql(tmp_path, *serve)}"\n\n[collections]\nserve = '
                      f'{json.dumps(list(serve))}\n')
    return gunicorn(tmp_path, {"JEMBATAN_CONFIG": str(config)}, "--workers", "1",
                    "--threads", "4")


def wait_state(browser: Browser, *states: str) -> str:
    expected = json.dumps([*states, "error"])
    state = browser.wait_for(f"{expected}.includes({STATE}) && {STATE}",
                             f"the page in state {states}")
    assert state in states, browser.js("document.getElementById('error').textContent")
    return state


def controls(browser: Browser) -> dict[str, Any]:
    """The collection picker's options and which controls are enabled."""
    return browser.js(
        "({options: [...document.getElementById('collection').options].map(o => o.value),"
        "  enabled: ['collection', 'on', 'from', 'to', 'latest']"
        "    .filter(id => !document.getElementById(id).disabled)})")


@needs_chromium
def test_the_dashboard_of_a_site_with_only_transactions(browser: Browser,
                                                        tmp_path: Path) -> None:
    rows = [WEIGHING, WEIGHING | {"id": 2, "productcode": "RM002", "tgl_dt1": "2026-11-19",
                                  "tgl_dt2": "2026-11-19", "weigh1": 25000.0}]
    database = build_database(tmp_path / "site.sqlite3", {"transactions": rows})
    with serve_site(tmp_path, database, "transactions") as server:
        # A bookmark of a collection this site does not serve falls back to the one it does.
        browser.open(server.base + "/dashboard#c=bricon2")
        wait_state(browser, "ready")
        assert browser.js("location.hash") == "#c=transactions&from=2026-11-14&to=2026-11-20"
        assert controls(browser) == {"options": ["transactions"],
                                     "enabled": ["collection", "on", "from", "to", "latest"]}
        assert browser.js("[...document.getElementById('on').options].map(o => o.value)") == [
            "dt1", "dt2", "create", "update"]
        segments = browser.js("[...document.querySelectorAll('svg.net-chart rect.seg')]"
                              ".map(r => [r.dataset.day, r.dataset.key])")
        assert segments == [["2026-11-19", "RM002"], ["2026-11-20", "RM001"]]
        # Every request the page made was answered (no 404 of an unserved collection).
        assert not browser.seen("failure") and not browser.seen("error")
        assert not browser.seen("status"), browser.seen("status")
        asked = [u for u in browser.seen("request") if u.startswith(server.base)]
        assert not [u for u in asked if "/bricon2" in u or "/customers" in u], asked
        assert requests.get(server.base + "/bricon2", timeout=10).json() == not_served(
            "bricon2", "transactions")


@needs_chromium
def test_the_dashboard_of_a_site_without_dates_says_so(browser: Browser,
                                                       tmp_path: Path) -> None:
    database = build_database(tmp_path / "site.sqlite3", {})
    with serve_site(tmp_path, database, "customers", "products") as server:
        browser.open(server.base + "/dashboard")
        wait_state(browser, "none")
        assert browser.js("document.getElementById('status').textContent") == (
            "This site serves no collection with dates (only customers, products): there is "
            "nothing to chart. Its records are listed at the API index.")
        assert browser.js("document.getElementById('error').hidden") is True
        assert browser.js("document.querySelectorAll('section.view').length") == 0
        assert controls(browser) == {"options": [], "enabled": []}
        assert not browser.seen("status") and not browser.seen("error")
