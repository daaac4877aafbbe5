"""Reads bounded whatever is asked, beside the feed's (tests/test_changes.py): a
page of any number, a range's page, and an MCP cursor of any place ask the database for at
most the rows their answer holds, counted from the queries' own parameters as the database
received them (tests/helpers.py EVERY_QUERY), and a cursor the service did not sign is
refused unread.
"""

from __future__ import annotations

from typing import Any

import pytest

from app import create_app
from tests.helpers import EVERY_QUERY, make_row, queries_asked

ROWS = {"transactions": [make_row("transactions", k, {"dt1": ("2026-11-20", f"0{k}:00:00")})
                         for k in range(1, 8)]}


def most_asked(caplog: pytest.LogCaptureFixture) -> dict[str, int]:
    """For each page query asked since the last call, the most rows it may return."""
    out = {}
    for name, values in queries_asked(caplog):
        if name.endswith("_page") or name.endswith(".page"):
            rows = int(values["last_row"]) - int(values["first_row"]) + 1
            assert int(values["row_count"]) == rows, values
            out[name] = rows
    return out


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One app for the module, on sqlite3 (the bound is the planner's, the same on every
    engine): pages of 3 at most, every query logged."""
    from conftest import build_database

    path = build_database(tmp_path_factory.mktemp("db") / "db.sqlite3", ROWS)
    return create_app({"database": {"sqlite": str(path), "prove_on_first_read": False},
                       "api": {"page_size": 3, "max_page_size": 3}, **EVERY_QUERY})


@pytest.fixture
def client(app: Any, caplog: pytest.LogCaptureFixture) -> Any:
    caplog.set_level("WARNING", logger="jembatan")
    return app.test_client()


def test_any_page_asks_for_its_page_size_at_most(client, caplog):
    for n in (1, 2, 3, 4, 10**12, 2**63 - 1, 2**64 + 1):
        for path in (f"/transactions/page/{n}?page_size=3",
                     f"/transactions/date/2026-11-20/00:00:00/2026-11-20/23:59:59"
                     f"?on=dt1&page={n}&page_size=3"):
            response = client.get(path)
            assert response.status_code == 200, (path, response.get_json())
            expected = [{"id": k} for k in range(3 * n - 2, min(3 * n, 7) + 1)]
            assert [{"id": r["id"]} for r in response.get_json()] == expected, path
            assert set(most_asked(caplog).values()) <= {3}, path
    response = client.get("/transactions/page/1?page_size=4")
    assert response.status_code == 400 and most_asked(caplog) == {}


def call(client: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": name, "arguments": arguments}},
                           headers={"Accept": "application/json, text/event-stream",
                                    "MCP-Protocol-Version": "2025-11-25"})
    assert response.status_code == 200
    return response.get_json()["result"]


def test_an_mcp_cursor_goes_on_within_limit_and_only_the_services_is_taken(client, caplog):
    asked = {"collection": "transactions", "limit": 2, "fields": ["id"]}
    got, cursor = [], None
    while True:
        result = call(client, "read_records", asked | ({"cursor": cursor} if cursor else {}))
        assert not result.get("isError"), result
        got += result["structuredContent"]["records"]
        assert set(most_asked(caplog).values()) <= {2}
        cursor = result["structuredContent"]["cursor"]
        if cursor is None:
            break
    assert got == [{"id": k} for k in range(1, 8)]
    # A cursor of the same shape with another place in it: its MAC no longer fits.
    import base64
    import json

    first = call(client, "read_records", asked)["structuredContent"]["cursor"]
    data = json.loads(base64.urlsafe_b64decode(first + "=" * (-len(first) % 4)))
    moved = base64.urlsafe_b64encode(json.dumps(data | {"skip": 2**61}).encode()).decode()
    caplog.clear()
    result = call(client, "read_records", asked | {"cursor": moved})
    assert result["isError"] and result["content"][0]["text"] == (
        "cursor: not a cursor of this read; pass the cursor of the last answer with the same "
        "collection, filters, fields and range, or none to start again")
    assert most_asked(caplog) == {}
