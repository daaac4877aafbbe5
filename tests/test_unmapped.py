"""A mapping is finished or it is not served (docs/adapting.md "Adapting to your database"): a
served collection whose `records` still has a select-list line marked `-- TODO` starts, logs one
WARNING, answers 503 "not mapped yet" on every route (every read kind, format and HEAD),
shows in /health, the index and the OpenAPI document, and never sends a record with a NULL
for a field left to map; the other collections serve. Once its lines are finished, the same
factory serves it. A NULL given without the TODO, and a TODO in a comment, are the site's.

The site: a weighbridge table named as a plant names it (TBL_TIMBANG), a records query in
the form draft-mapping writes, written out here with the fields it leaves TODO, and the
shipped products mapping over the embedded products table.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask

from app import create_app
from app.ops.config import SHIPPED_SQL_DIR
from tests.browser import Browser, needs_chromium
from tests.conftest import build_database
from tests.contract import WEIGHING, expected
from tests.servers import gunicorn

TABLE = ('CREATE TABLE "TBL_TIMBANG" ("NoUrut" INTEGER, "NO_TIKET" TEXT, "NOPOL" TEXT, '
         '"WAKTU_MASUK" TEXT, "BRUTO" REAL, "TARA" REAL, "KD_SUPPLIER" TEXT, "Catatan" TEXT, '
         '"TGL_UBAH" TEXT, "JAM_UBAH" TEXT)')
ROWS = [
    {"NoUrut": 1, "NO_TIKET": "TB-2611-0001", "NOPOL": "L 1234 AB",
     "WAKTU_MASUK": "2026-11-24 07:05:00", "BRUTO": 30500.0, "TARA": 10500.0,
     "KD_SUPPLIER": "SUP001", "Catatan": None, "TGL_UBAH": "2026-11-24", "JAM_UBAH": "07:40:00"},
    {"NoUrut": 2, "NO_TIKET": "TB-2611-0002", "NOPOL": "W 9 XY",
     "WAKTU_MASUK": "2026-11-25 13:00:30", "BRUTO": 12000.5, "TARA": 28000.0,
     "KD_SUPPLIER": "SUP002", "Catatan": "basah", "TGL_UBAH": "2026-11-25",
     "JAM_UBAH": "13:20:00"},
]
PRODUCTS = [{"id": 1, "ProductCode": "RM001", "ProductName": "Pasir", "Unit": "kg",
             "Remark": None},
            {"id": 2, "ProductCode": "RM002", "ProductName": "Batu split", "Unit": "kg",
             "Remark": "1/2"}]
# Where the draft found each field it filled (SQLite's text), the rest being left TODO.
FOUND = {"recno": '"NO_TIKET"', "vehno": '"NOPOL"', "custcode": '"KD_SUPPLIER"',
         "remark": '"Catatan"', "tgl_dt1": 'date("WAKTU_MASUK")',
         "jam_dt1": 'time("WAKTU_MASUK")', "weigh1": '"BRUTO"', "weigh2": '"TARA"',
         "tgl_update": '"TGL_UBAH"', "jam_update": '"JAM_UBAH"'}
TODO = [f for f in WEIGHING if f not in FOUND]  # id first: a record would have "id": null
HEADER = f"""\
-- name: records
-- Where each field of a transactions record comes from at this site: drafted by
-- `jembatan draft-mapping` from the columns of "TBL_TIMBANG". Each line says how
-- it was found: its name, or a trade word of draft-words.toml (a site word: your own).
-- {len(TODO)} fields to finish: each `... AS ... -- TODO` line names the nearest
-- columns not used. Write the column or an expression, or keep NULL and drop the TODO
-- where the site has none; then run `jembatan check-sql transactions`.
SELECT
"""
# Not select-list lines: a line commented out, and a block comment, each with a TODO.
COMMENTED = ('    -- NULL AS "remark", -- TODO nearest: "Catatan"\n'
             '    /* an older try:\n'
             '    NULL AS "custcode", -- TODO nearest: "KD_SUPPLIER" */\n')
RANGE = "2026-11-01/00:00/2026-11-30/23:59:59"


def records_query(line: Any) -> str:
    """The draft's text, each field's line written by `line(field)`."""
    body = []
    for n, field in enumerate(WEIGHING):
        text = line(field).replace(",", "," if n < len(WEIGHING) - 1 else "", 1)
        body.append(("" if field != "remark" else COMMENTED) + "    " + text)
    return HEADER + "\n".join(body) + '\nFROM "TBL_TIMBANG";\n'


def drafted(field: str) -> str:
    """A line as draft-mapping leaves it: the column found, else NULL marked TODO."""
    if field in FOUND:
        return f'{FOUND[field]} AS "{field}", -- trade word'
    return f'NULL AS "{field}", -- TODO nearest: "NoUrut"'


def finished(field: str) -> str:
    """The same line finished: id from NoUrut, the other TODOs kept as a NULL (no such
    column here), one of them typed as on SQL Server."""
    if field == "id":
        return '"NoUrut" AS "id",'
    if field == "tgl_dt2":
        return 'CAST(NULL AS date) AS "tgl_dt2",'
    return drafted(field).split(" -- TODO")[0]


def site(tmp_path: Path, records: str) -> dict[str, Any]:
    """The settings of the site: its SQLite file and a sql_dir with this transactions.sql."""
    database = tmp_path / "plant.sqlite3"
    if not database.exists():
        build_database(database, {"products": PRODUCTS})
        con = sqlite3.connect(database)
        con.execute(TABLE)
        for row in ROWS:
            con.execute(f'INSERT INTO "TBL_TIMBANG" VALUES ({", ".join("?" * len(row))})',
                        list(row.values()))
        con.commit()
        con.close()
    sql_dir = tmp_path / "site-sql"
    sql_dir.mkdir(exist_ok=True)
    (sql_dir / "products.sql").write_text((SHIPPED_SQL_DIR / "products.sql").read_text())
    (sql_dir / "transactions.sql").write_text(records, encoding="utf-8")
    return {"database": {"sqlite": str(database), "sql_dir": str(sql_dir)},
            "collections": {"serve": ["transactions", "products"]}}


def message(fields: list[str]) -> str:
    return (f"transactions is not mapped yet: {len(fields)} fields still marked -- TODO in "
            f"transactions.sql: {', '.join(fields)}. Its records are not served until the "
            f"operator maps those fields, runs `jembatan check-sql transactions` and "
            f"restarts Jembatan.")


NOT_MAPPED = {"code": 503, "status": "Service Unavailable", "message": message(TODO),
              "unmapped": TODO}
WARNING = ("transactions is not mapped yet: {n} fields still marked -- TODO in {path}: "
           "{fields}. Every route of transactions answers 503 until they are mapped: write "
           "each one's column or expression (or keep its NULL and drop the TODO where the "
           "site has no such column), run `jembatan check-sql transactions`, then "
           "restart Jembatan")

# Every read kind of transactions, with filters and arguments right or wrong: not one is read.
PATHS = ["/transactions", "/transactions/page/1", "/transactions/page/1?page_size=5",
         "/transactions/1", "/transactions/2", "/transactions/999",
         f"/transactions/date/{RANGE}", f"/transactions/date/{RANGE}?on=update&page=1",
         f"/transactions/summary/{RANGE}", f"/transactions/summary/{RANGE}?by=productcode",
         "/transactions/changes", "/transactions/changes?on=update&limit=1",
         "/transactions?vehno=L%201234%20AB", "/transactions?fields=id,vehno",
         "/transactions/page/0", "/transactions?nosuch=1"]
FORMATS = [({}, ""), ({}, "format=csv"), ({}, "format=xlsx"), ({"Accept": "text/csv"}, ""),
           ({"Accept": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
            "")]


def with_query(path: str, query: str) -> str:
    if not query:
        return path
    return path + ("&" if "?" in path else "?") + query


@pytest.fixture
def draft_app(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Flask:
    with caplog.at_level(logging.INFO, logger="jembatan"):
        return create_app(site(tmp_path, records_query(drafted)))


@pytest.mark.parametrize("path", PATHS)
def test_every_route_of_an_unfinished_collection_answers_503(draft_app: Flask,
                                                               path: str) -> None:
    client = draft_app.test_client()
    for headers, query in FORMATS:
        response = client.get(with_query(path, query), headers=headers)
        assert (response.status_code, response.get_json()) == (503, NOT_MAPPED), (path, query)
        assert response.content_type == "application/json"
        assert "Retry-After" not in response.headers  # waiting does not map a field
        head = client.head(with_query(path, query), headers=headers)
        assert (head.status_code, head.data) == (503, b""), (path, query)
        assert "Retry-After" not in head.headers


def test_the_other_collection_serves(draft_app: Flask) -> None:
    client = draft_app.test_client()
    response = client.get("/products")
    assert (response.status_code, response.get_json()) == (
        200, [expected("products", row) for row in PRODUCTS])
    response = client.get("/products/2")
    assert (response.status_code, response.get_json()) == (200, expected("products",
                                                                          PRODUCTS[1]))
    rows = list(csv.reader(io.StringIO(client.get("/products?format=csv").text)))
    assert rows[1:] == [["1", "RM001", "Pasir", "kg", ""], ["2", "RM002", "Batu split", "kg",
                                                            "1/2"]]
    assert client.head("/products").status_code == 200


def test_health_lists_it_and_the_index_and_document_keep_it(draft_app: Flask) -> None:
    client = draft_app.test_client()
    health = client.get("/health")
    assert (health.status_code, health.get_json()) == (
        200, {"status": "degraded", "database": "ok", "unmapped": {"transactions": TODO}})
    entries = {c["name"]: c for c in client.get("/").get_json()["collections"]}
    assert entries["transactions"] == {
        "name": "transactions", "url": "http://localhost/transactions", "record": "Weighing",
        "key": "id", "order": ["id"], "date_range": ["dt1", "dt2", "create", "update"],
        "unmapped": TODO}
    assert "unmapped" not in entries["products"]
    spec = client.get("/openapi.json").get_json()
    assert {"/transactions", "/transactions/{ID}", "/transactions/changes"} <= set(spec["paths"])
    tags = {t["name"]: t["description"] for t in spec["tags"]}
    assert tags["transactions"].endswith(
        f" Not mapped yet at this site: every operation answers 503 until "
        f"{', '.join(TODO)} are mapped.")
    assert "mapped" not in tags["products"]


def test_one_warning_at_start(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="jembatan"):
        create_app(site(tmp_path, records_query(drafted)))
    said = [(r.levelname, r.getMessage()) for r in caplog.records if "mapped" in r.getMessage()]
    path = tmp_path / "site-sql" / "transactions.sql"
    assert said == [("WARNING", WARNING.format(n=len(TODO), path=path,
                                               fields=", ".join(TODO)))]


def test_a_key_is_asked_before_the_mapping_is_told(tmp_path: Path) -> None:
    app = create_app(site(tmp_path, records_query(drafted))
                     | {"auth": {"api_keys": ["k1-0123456789abc"]}})
    client = app.test_client()
    assert client.get("/transactions").status_code == 401
    response = client.get("/transactions", headers={"X-API-Key": "k1-0123456789abc"})
    assert (response.status_code, response.get_json()) == (503, NOT_MAPPED)


def test_a_browser_page_elsewhere_can_read_why(tmp_path: Path) -> None:
    """CORS: the preflight reads nothing and passes; the 503 carries the CORS headers."""
    origin = "http://erp.plant.local"
    app = create_app(site(tmp_path, records_query(drafted)) | {"api": {"cors_origins":
                                                                        [origin]}})
    client = app.test_client()
    preflight = client.options("/transactions", headers={
        "Origin": origin, "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == origin
    response = client.get("/transactions", headers={"Origin": origin})
    assert (response.status_code, response.get_json()) == (503, NOT_MAPPED)
    assert response.headers["Access-Control-Allow-Origin"] == origin


def test_once_finished_the_same_factory_serves_it(tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    create_app(site(tmp_path, records_query(drafted)))  # as drafted: not served
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="jembatan"):
        app = create_app(site(tmp_path, records_query(finished)))
    assert not [r for r in caplog.records if "mapped" in r.getMessage()]
    client = app.test_client()
    want = [expected("transactions", {
        "id": row["NoUrut"], "recno": row["NO_TIKET"], "vehno": row["NOPOL"],
        "custcode": row["KD_SUPPLIER"], "remark": row["Catatan"],
        "tgl_dt1": row["WAKTU_MASUK"][:10], "jam_dt1": row["WAKTU_MASUK"][11:],
        "weigh1": row["BRUTO"], "weigh2": row["TARA"], "tgl_update": row["TGL_UBAH"],
        "jam_update": row["JAM_UBAH"]}) for row in ROWS]
    response = client.get("/transactions")
    assert (response.status_code, response.get_json()) == (200, want)
    assert [r["id"] for r in want] == [1, 2]  # the field once left TODO now has its values
    response = client.get("/transactions/2")
    assert (response.status_code, response.get_json()) == (200, want[1])
    response = client.get("/transactions/date/2026-11-25/00:00/2026-11-25/23:59?on=dt1")
    assert (response.status_code, response.get_json()) == (200, want[1:])
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}
    assert "unmapped" not in client.get("/").get_json()["collections"][0]


def test_a_todo_in_a_dialect_text_is_unfinished_too(tmp_path: Path) -> None:
    """The main text finished, its SQLite text not: the file is not finished."""
    main = records_query(finished)
    sqlite_text = records_query(drafted).replace("-- name: records\n",
                                                 "-- name: records\n-- dialect: sqlite\n")
    app = create_app(site(tmp_path, main + "\n" + sqlite_text))
    response = app.test_client().get("/transactions/1")
    assert (response.status_code, response.get_json()) == (503, NOT_MAPPED)


def test_check_sql_says_what_the_service_does(tmp_path: Path) -> None:
    app = create_app(site(tmp_path, records_query(drafted)))
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 1
    assert (f"      still to map (-- TODO): {', '.join(TODO)}\n"
            f"      until they are mapped, every route of transactions answers 503 "
            f"(not mapped yet)\n") in result.output


def serve_site(tmp_path: Path) -> Any:
    """gunicorn (one worker) on the site as drafted."""
    settings = site(tmp_path, records_query(drafted))
    config = tmp_path / "site.toml"
    config.write_text(f'[database]\nsqlite = "{settings["database"]["sqlite"]}"\n'
                      f'sql_dir = "{settings["database"]["sql_dir"]}"\n\n[collections]\n'
                      f'serve = ["transactions", "products"]\n')
    return gunicorn(tmp_path, {"JEMBATAN_CONFIG": str(config)}, "--workers", "1",
                    "--threads", "4")


def test_gunicorn_serves_the_rest_and_logs_it(tmp_path: Path) -> None:
    with serve_site(tmp_path) as server:
        for path in ("/transactions", "/transactions/1", f"/transactions/date/{RANGE}",
                     "/transactions/changes", f"/transactions/summary/{RANGE}?format=csv"):
            response = requests.get(server.base + path, timeout=10)
            assert (response.status_code, response.json()) == (503, NOT_MAPPED), path
            assert "Retry-After" not in response.headers
        assert requests.head(server.base + "/transactions", timeout=10).status_code == 503
        response = requests.get(server.base + "/products", timeout=10)
        assert (response.status_code, response.json()) == (
            200, [expected("products", row) for row in PRODUCTS])
        health = requests.get(server.base + "/health", timeout=10)
        assert (health.status_code, health.json()) == (
            200, {"status": "degraded", "database": "ok", "unmapped": {"transactions": TODO}})
        log = server.log()
    path = tmp_path / "site-sql" / "transactions.sql"
    warned = [line.split(" ", 2)[2] for line in log.splitlines() if "not mapped" in line]
    assert warned == ["WARNING jembatan " + WARNING.format(n=len(TODO), path=path,
                                                           fields=", ".join(TODO))]


STATE = "document.documentElement?.dataset.state"


def state(browser: Browser, *states: str) -> str:
    return str(browser.wait_for(f"{json.dumps([*states, 'error'])}.includes({STATE}) && "
                                f"{STATE}", f"the page in state {states}"))


@needs_chromium
def test_the_dashboard_and_report_leave_it_out_and_say_so(browser: Browser,
                                                          tmp_path: Path) -> None:
    with serve_site(tmp_path) as server:
        browser.open(server.base + "/dashboard#c=transactions")
        assert state(browser, "none") == "none"
        assert browser.js("document.getElementById('status').textContent") == (
            "Nothing to chart: All weighings is not mapped yet at this site. The operator "
            "finishes the mapping and restarts Jembatan; /health lists the fields left to map.")
        browser.open(server.base + "/report/2026-11-24")
        assert state(browser, "ready") == "ready"
        assert browser.js("document.getElementById('body').textContent") == (
            "Not mapped yet at this site, so not in this report: All weighings.")
        asked = [u for u in browser.seen("request") if u.startswith(server.base)]
        assert not [u for u in asked if "/transactions" in u], asked
        assert not browser.seen("failure") and not browser.seen("status")
