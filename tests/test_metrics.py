"""GET /metrics (docs/api.md §11): the Prometheus text format, read here with
prometheus_client's own parser; under gunicorn one view of every worker (the metrics
directory of gunicorn.conf.py), through the Flask app the figures of each kind of request,
row and database error; behind api.metrics_key alone, or without one a key that reads
everything (open where no key is configured); not in the OpenAPI document.
"""

from __future__ import annotations

import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from pathlib import Path

import pytest
import requests

from app import create_app
from tests.conftest import build_database
from tests.helpers import own_failing_read, samples, value
from tests.servers import ROOT, SERVERS, gunicorn, http_server

ROWS = {"customers": [{"id": n, "CustName": f"PT {n}"} for n in range(1, 6)],
        "transactions": [{"id": n, "tgl_dt1": "2026-11-01", "jam_dt1": f"0{n}:00:00",
                          "weigh1": 1000.0 * n, "weigh2": 100.0 * n} for n in range(1, 4)]}


def test_one_view_of_every_gunicorn_worker(tmp_path: Path) -> None:
    database = build_database(tmp_path / "plant.sqlite3", ROWS)
    directory = tmp_path / "metrics"
    env = {"JEMBATAN_SQLITE": str(database), "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    with gunicorn(tmp_path, env, "--workers", "2", "--threads", "2") as server:
        sent = {"list": 0, "key": 0}
        # New connections until both workers have answered: each writes its own files.
        deadline = time.monotonic() + 30
        while len({p.name.rsplit("_", 1)[1] for p in directory.glob("counter_*.db")}) < 2 \
                or sent["list"] < 20:
            assert time.monotonic() < deadline, "one worker answered every request"
            assert requests.get(server.base + "/customers", timeout=10).status_code == 200
            assert requests.get(server.base + "/customers/3", timeout=10).status_code == 200
            sent["list"] += 1
            sent["key"] += 1
        assert requests.get(server.base + "/nothing-here", timeout=10).status_code == 404
        pids = {p.name.rsplit("_", 1)[1] for p in directory.glob("counter_*.db")}
        assert len(pids) == 2
        # Whichever worker answers a scrape, it counts what both served.
        for _ in range(6):
            response = requests.get(server.base + "/metrics", timeout=10,
                                    headers={"Connection": "close"})
            assert response.status_code == 200
            assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            found = samples(response.text)
            assert value(found, "jembatan_requests_total", kind="list", status="200") == \
                sent["list"]
            assert value(found, "jembatan_requests_total", kind="key", status="200") == \
                sent["key"]
            assert value(found, "jembatan_requests_total", kind="meta", status="404") == 1
            assert value(found, "jembatan_rows_sent_total", kind="list") == 5 * sent["list"]
            assert value(found, "jembatan_request_duration_seconds_count", kind="list") == \
                sent["list"]
            assert value(found, "jembatan_query_duration_seconds_count", query="all") == \
                sent["list"]
    assert directory.is_dir()  # the operator's own directory stays
    # Without one, gunicorn.conf.py makes a directory and removes it when gunicorn exits.
    # A temporary directory of this test's own (TMPDIR): other tests' gunicorns, in other
    # workers of the run, make theirs in the system's meanwhile.
    temp = tmp_path / "tmp"
    temp.mkdir()
    with gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database), "TMPDIR": str(temp)},
                  "--workers", "1") as server:
        [made] = set(temp.glob("jembatan-metrics-*"))
        assert made.is_dir()
        requests.get(server.base + "/customers/1", timeout=10)
        scrape = server.scrape(lambda found: value(found, "jembatan_requests_total", kind="key"))
        assert value(scrape, "jembatan_requests_total", kind="key", status="200") == 1
    assert not made.exists()


# Requests of known kinds, each sent EACH times from many threads at once: (kind, status,
# path, records in each answer).
CONCURRENT = [("list", "200", "/customers", 5), ("key", "200", "/customers/3", 1),
              ("key", "404", "/customers/99", None),
              ("page", "200", "/customers/page/2?page_size=2", 2),
              ("range", "200", "/transactions/date/2026-11-01/00:00/2026-11-01/23:59:59", 3)]
EACH = 60
KINDS = sorted({kind for kind, _, _, _ in CONCURRENT})


@pytest.mark.parametrize("kind", SERVERS)
def test_requests_from_many_threads_add_up_exactly(tmp_path: Path, kind: str) -> None:
    """Each server in its production shape (gunicorn 2 workers of 4 threads, waitress one
    process of 8 threads, no PROMETHEUS_MULTIPROC_DIR given), 16 clients at once: every
    request is counted once, by kind and status, with its records."""
    database = build_database(tmp_path / "plant.sqlite3", ROWS)
    env = {"JEMBATAN_SQLITE": str(database)}
    threads, workers = (8, 1) if kind == "waitress" else (4, 2)
    paths = [path for _, _, path, _ in CONCURRENT] * EACH
    with http_server(kind, tmp_path, env, threads=threads, workers=workers) as server, \
            ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(
            lambda path: requests.get(server.base + path, timeout=30).status_code, paths))
        assert sorted(statuses) == sorted(int(status) for _, status, _, _ in CONCURRENT
                                          for _ in range(EACH))
        found = server.scrape(lambda found: sum(
            value(found, "jembatan_requests_total", kind=k) for k in KINDS) >= len(paths))
    for route, status in {(route, status) for route, status, _, _ in CONCURRENT}:
        sent = sum(1 for r, s, _, _ in CONCURRENT if (r, s) == (route, status)) * EACH
        assert value(found, "jembatan_requests_total", kind=route, status=status) == sent
    for route in ("list", "page", "range"):
        records = sum(n or 0 for r, _, _, n in CONCURRENT if r == route) * EACH
        assert value(found, "jembatan_rows_sent_total", kind=route) == records
    assert value(found, "jembatan_request_duration_seconds_count") == value(
        found, "jembatan_requests_total")


def test_waitress_keeps_its_figures_in_the_process(tmp_path: Path) -> None:
    """A PROMETHEUS_MULTIPROC_DIR left in the environment (for gunicorn) is not used by the
    one process of waitress: no files of figures that would outlive it, and its own count."""
    database = build_database(tmp_path / "plant.sqlite3", ROWS)
    directory = tmp_path / "metrics"
    directory.mkdir()
    env = {"JEMBATAN_SQLITE": str(database), "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    with http_server("waitress", tmp_path, env, threads=2) as server:
        for _ in range(3):
            assert requests.get(server.base + "/customers/3", timeout=10).status_code == 200
        found = server.scrape(lambda found: value(found, "jembatan_requests_total") >= 3)
    assert value(found, "jembatan_requests_total", kind="key", status="200") == 3
    assert list(directory.iterdir()) == []


def test_each_kind_of_request_rows_and_queries(tmp_path: Path) -> None:
    database = build_database(tmp_path / "plant.sqlite3", ROWS)
    # The queries counted are the requests' own: the proof at the first read is left out.
    app = create_app({"database": {"sqlite": str(database), "prove_on_first_read": False}})
    client = app.test_client()
    day = "2026-11-01/00:00/2026-11-01/23:59:59"
    for url, status in [("/transactions", 200), ("/transactions/page/1", 200),
                        ("/transactions/2", 200), ("/transactions/9", 404),
                        (f"/transactions/date/{day}", 200),
                        (f"/transactions/date/{day}?page=1", 200),
                        (f"/transactions/summary/{day}?by=hour", 200),
                        ("/transactions?nope=1", 400), ("/", 200), ("/health", 200)]:
        assert client.get(url, buffered=True).status_code == status, url
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert {(k[1][0][1], k[1][1][1]): v for k, v in found.items()
            if k[0] == "jembatan_requests_total"} == {
        ("list", "200"): 1, ("page", "200"): 1, ("key", "200"): 1, ("key", "404"): 1,
        ("range", "200"): 2, ("summary", "200"): 1, ("list", "400"): 1, ("meta", "200"): 2}
    assert value(found, "jembatan_rows_sent_total", kind="list") == 3
    assert value(found, "jembatan_rows_sent_total", kind="range") == 6
    assert value(found, "jembatan_rows_sent_total", kind="summary") == 3  # three hours
    # The summary also counts what it leaves out (docs/api.md §7): no_main_date by `count`
    # (on the whole collection), voided, not_weighed_out and not_weighed_in by `range_count`.
    for query, count in [("all", 1), ("count", 1 + 1), ("page", 1), ("by_key", 2),
                         ("range", 1), ("range_count", 1 + 3), ("range_page", 1),
                         ("summary", 1), ("ping", 1)]:
        assert value(found, "jembatan_query_duration_seconds_count", query=query) == count, \
            query
    assert value(found, "jembatan_streams_broken_total") == 0


def test_database_errors_by_kind(tmp_path: Path) -> None:
    # unreachable: an ODBC source that is not there
    app = create_app({"database": {"odbc": "Driver={No Such Driver};Server=nowhere",
                                   "connect_timeout": 1, "prove_on_first_read": False}})
    client = app.test_client()
    assert client.get("/customers", buffered=True).status_code == 503
    assert client.get("/health", buffered=True).status_code == 503
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert value(found, "jembatan_database_errors_total", kind="unreachable") == 2
    assert value(found, "jembatan_database_errors_total", kind="unreachable",
                 reason="cannot connect to the database") == 2
    assert value(found, "jembatan_requests_total", kind="list", status="503") == 1
    # query_failed: a site's query the database refuses (not a name it lacks: that is a
    # collection not mapped)
    sql = tmp_path / "sql"
    shutil.copytree(ROOT / "sql", sql)
    customers = sql / "customers.sql"
    own_failing_read(customers)
    database = build_database(tmp_path / "plant.sqlite3", ROWS)
    client = create_app({"database": {"sqlite": str(database), "sql_dir": str(sql),
                                      "prove_on_first_read": False}}).test_client()
    assert client.get("/customers/1", buffered=True).status_code == 500
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert value(found, "jembatan_database_errors_total", kind="query_failed",
                 reason="query failed") == 1


SCRAPE = "a-scrape-secret-0001"
CLIENT = "client-key-0123456789"  # an auth.api_keys entry: it reads everything
SCOPED = "scoped-key-0123456789"
# Who opens /metrics, by the settings: (api settings, the key's headers, status). Without a
# metrics key the old /metrics answered anyone once keys were configured (every key's name
# and counts); now a key that reads everything opens it, a key with a scope is a 403.
AUTH = {"api_keys": [CLIENT], "keys": {"t03": {"key": SCOPED, "collections": ["customers"]}}}
DOORS = [({}, {}, 401), ({}, {"X-API-Key": CLIENT}, 200),
         ({}, {"Authorization": f"Bearer {CLIENT}"}, 200), ({}, {"X-API-Key": SCOPED}, 403),
         ({}, {"X-API-Key": ""}, 401), ({}, {"Authorization": "Bearer "}, 401),
         ({"metrics_key": SCRAPE}, {}, 401), ({"metrics_key": SCRAPE}, {"X-API-Key": CLIENT}, 401),
         ({"metrics_key": SCRAPE}, {"Authorization": f"Bearer {CLIENT}"}, 401),
         ({"metrics_key": SCRAPE}, {"Authorization": f"Bearer {SCRAPE}x"}, 401),
         ({"metrics_key": SCRAPE}, {"Authorization": "Bearer "}, 401),
         ({"metrics_key": SCRAPE}, {"Authorization": f"Bearer {SCRAPE}"}, 200)]
MESSAGES = {(False, 401): "an API key is required: send it as X-API-Key: <key> or "
                          "Authorization: Bearer <key>",
            (False, 403): "/metrics counts every key's requests: it needs a key that reads "
                          "everything, and the key t03 has a scope; or set api.metrics_key "
                          "and send Authorization: Bearer <metrics_key>",
            (True, 401): "/metrics needs the metrics key: send Authorization: Bearer "
                         "<api.metrics_key>"}


def test_open_or_behind_its_own_key(tmp_path: Path) -> None:
    database = build_database(tmp_path / "plant.sqlite3", ROWS)
    apps = {name: create_app({"database": {"sqlite": str(database)}, "auth": AUTH,
                              "api": api}).test_client()
            for name, api in (("locked", {}), ("keyed", {"metrics_key": SCRAPE}))}
    locked, keyed = apps["locked"], apps["keyed"]
    for api, headers, status in DOORS:
        response = apps["keyed" if api else "locked"].get("/metrics", headers=headers)
        if status == 200:
            assert response.status_code == 200, (api, headers)
            assert "jembatan_requests_total" in response.get_data(as_text=True)
            continue
        assert response.get_json() == {"code": status, "status": HTTPStatus(status).phrase,
                                       "message": MESSAGES[bool(api), status]}, (api, headers)
        assert status == 403 or response.headers["WWW-Authenticate"] == "Bearer"
    open_ = create_app({"database": {"sqlite": str(database)}}).test_client()
    assert open_.get("/metrics").status_code == 200  # no key configured: nothing is closed
    assert keyed.get("/customers", headers={"Authorization": f"Bearer {SCRAPE}"}
                     ).status_code == 401  # the metrics key opens nothing else
    full = {"X-API-Key": CLIENT}
    assert locked.get("/metrics?x=1", headers=full).status_code == 400
    assert locked.get("/metrics?_=1", headers=full).status_code == 200
    paths = open_.get("/openapi.json").get_json()["paths"]
    assert not [p for p in paths if re.search(r"metrics", p)]
