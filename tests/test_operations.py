"""What an operator relies on: request ids, one access line per request, slow queries in
the log, JSON log lines, response hygiene (nosniff, CORS off unless configured), HEAD."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from app import create_app
from app.ops.config import SHIPPED_SQL_DIR
from app.ops.logs import JsonLines
from tests.conftest import build_database
from tests.helpers import own_failing_read

ROWS = [{"id": i, "CustCode": f"C{i}", "CustName": f"PT {i}"} for i in range(1, 6)]


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return build_database(tmp_path / "plant.sqlite3", {"customers": ROWS})


def client_for(path: Path, sql_dir: Path | None = None, **settings: object):
    database = {"sqlite": str(path)} | ({"sql_dir": str(sql_dir)} if sql_dir else {})
    return create_app({"database": database, **settings}).test_client()


def access_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "jembatan.access"]


def test_every_response_carries_a_request_id(database: Path) -> None:
    client = client_for(database)
    ids = set()
    for url in ("/customers", "/customers/1", "/customers/99", "/customers/x", "/nope"):
        response = client.get(url)
        ids.add(response.headers["X-Request-ID"])
    assert len(ids) == 5 and all(len(i) == 32 for i in ids)  # a new one each time


def test_the_clients_request_id_is_kept_when_sane(database: Path) -> None:
    client = client_for(database)
    sane = "erp-poll.2026-11-22:0001"
    assert client.get("/customers/1", headers={"X-Request-ID": sane}).headers[
        "X-Request-ID"] == sane
    for hostile in ("a b", "x" * 65, "id\tx", "<script>", "ünï", "a;b"):
        got = client.get("/customers/1", headers={"X-Request-ID": hostile}).headers[
            "X-Request-ID"]
        assert got != hostile and len(got) == 32


def test_one_access_line_per_request_with_what_happened(database: Path,
                                                        caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    client = client_for(database, api={"trusted_proxies": ["127.0.0.1"]})  # the test client's
    caplog.set_level(logging.INFO, logger="jembatan")
    cases = [("/customers", 200, 5), ("/customers/page/1?page_size=2", 200, 2),
             ("/customers/3", 200, 1), ("/customers/9", 404, 0), ("/customers/x", 400, None)]
    for url, status, rows in cases:
        caplog.clear()
        response = client.get(url, headers={"X-Request-ID": "r-1",
                                            "X-Forwarded-For": "10.1.2.3"})
        response.get_data()
        response.close()  # the line is written when the response is done
        [record] = access_lines(caplog)
        fields = record.fields  # type: ignore[attr-defined]
        assert fields["request_id"] == "r-1"
        assert fields["method"] == "GET" and fields["path"] == url
        assert fields["status"] == status
        assert fields["rows"] == rows
        assert fields["client"] == "10.1.2.3"  # as forwarded by the proxy
        assert fields["seconds"] >= 0
        message = record.getMessage()
        assert f" r-1 GET {url} {status} " in message and message.startswith("10.1.2.3 ")


def test_a_500_logs_its_traceback_under_the_request_id(tmp_path: Path, database: Path,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    sql = tmp_path / "sql"
    shutil.copytree(SHIPPED_SQL_DIR, sql)
    path = sql / "customers.sql"
    own_failing_read(path)
    client = client_for(database, sql)
    response = client.get("/customers/1", headers={"X-Request-ID": "trace-me"})
    assert response.status_code == 500
    assert response.get_json()["request_id"] == "trace-me"
    assert "abs" not in response.get_data(as_text=True)
    [error] = [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]
    assert "trace-me" in error.getMessage()


def test_slow_queries_are_logged_with_name_and_parameters(database: Path,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    client = client_for(database, log={"slow_query": 1e-9})  # every query is slow
    client.get("/customers/3").close()
    slow = [r.getMessage() for r in caplog.records if "slow query" in r.getMessage()]
    assert any("customers.by_key" in m and "'key': '3'" in m for m in slow), slow


def test_json_log_lines() -> None:
    record = logging.LogRecord("jembatan.access", logging.INFO, __file__, 1, "GET %s", ("/x",),
                               None)
    record.fields = {"status": 200, "rows": 3}
    line = json.loads(JsonLines().format(record))
    assert line["message"] == "GET /x" and line["status"] == 200 and line["rows"] == 3
    assert line["level"] == "INFO" and line["logger"] == "jembatan.access"


def test_nosniff_on_every_response(database: Path) -> None:
    client = client_for(database)
    for url in ("/customers", "/customers/1", "/customers/x", "/nope", "/health", "/",
                "/openapi.json", "/docs"):
        assert client.get(url).headers["X-Content-Type-Options"] == "nosniff", url
    assert client.post("/customers").headers["X-Content-Type-Options"] == "nosniff"


def test_cors_is_off_by_default(database: Path) -> None:
    client = client_for(database)
    response = client.get("/customers", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_cors_for_configured_origins(database: Path) -> None:
    client = client_for(database, api={"cors_origins": ["https://erp.plant"]})
    response = client.get("/customers/page/1", headers={"Origin": "https://erp.plant"})
    assert response.headers["Access-Control-Allow-Origin"] == "https://erp.plant"
    assert "X-Pagination" in response.headers["Access-Control-Expose-Headers"]
    assert "Origin" in response.headers.get_all("Vary")
    other = client.get("/customers", headers={"Origin": "https://other.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    preflight = client.options("/customers", headers={
        "Origin": "https://erp.plant", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "X-API-Key"})
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Methods"] == "GET, HEAD"
    assert "X-API-Key" in preflight.headers["Access-Control-Allow-Headers"]


def test_head_on_a_stream_does_not_run_the_query(tmp_path: Path, database: Path) -> None:
    # A site SQL whose `all` cannot run (its own error, not a name the database lacks): GET
    # fails, HEAD never runs it.
    sql = tmp_path / "sql"
    shutil.copytree(SHIPPED_SQL_DIR, sql)
    path = sql / "customers.sql"
    own_failing_read(path, "all")
    client = client_for(database, sql)
    assert client.get("/customers").status_code == 500
    head = client.head("/customers")
    assert head.status_code == 200 and head.data == b""
    assert head.headers["Content-Type"] == "application/json"


def test_head_on_a_stream_still_answers_503_without_the_database(tmp_path: Path,
                                                                 database: Path) -> None:
    client = client_for(database)
    database.unlink()
    head = client.head("/customers")
    assert head.status_code == 503 and "Retry-After" in head.headers
