"""The MCP tools (app/mcp/tools.py) answer what the HTTP API answers: each tool's records,
groups and figures are compared with the HTTP API's answer to the same question on the same
rows, on every engine, and with what the rows inserted here say. The calls go through
POST /mcp as JSON-RPC (the protocol itself, with the official client: test_mcp_protocol.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from flask.testing import FlaskClient

from tests.contract import COLLECTIONS
from tests.helpers import samples, value

PRODUCTS = [{"id": 1, "ProductCode": "RM001", "ProductName": "Pasir Lumajang"},
            {"id": 2, "ProductCode": "FG001", "ProductName": "Bata Ringan"}]
CUSTOMERS = [{"id": 1, "CustCode": "SUP-1", "CustName": "CV Sumber Pasir"},
             {"id": 2, "CustCode": "CUS-9", "CustName": "PT Bangun Jaya"}]


def _weighing(i: int, day: str, clock: str, weigh1: float | None, weigh2: float | None,
              product: str | None, cust: str | None, vehno: str,
              cut: float | None = None) -> dict[str, Any]:
    return {"id": i, "tgl_dt1": day, "jam_dt1": clock, "weigh1": weigh1, "weigh2": weigh2,
            "productcode": product, "custcode": cust, "vehno": vehno,
            "tgl_update": day, "jam_update": clock, "adjustweigh": cut}


# Deliveries in (weigh1 > weigh2) and dispatches out, over two days, one still on the bridge;
# deductions (adjustweigh, kg) on some, none (NULL) on one, and on the open one.
WEIGHINGS = [
    _weighing(1, "2026-11-02", "06:10:00", 30000.0, 11000.0, "RM001", "SUP-1", "N 1 A", 250.5),
    _weighing(2, "2026-11-02", "07:00:00", 9000.0, 29000.5, "FG001", "CUS-9", "N 2 B", 10.0),
    _weighing(3, "2026-11-02", "07:30:00", 25000.0, 9000.0, "RM001", "SUP-1", "N 1 A"),
    _weighing(4, "2026-11-02", "23:59:59", 12000.0, None, "RM001", "SUP-1", "N 3 C", 40.0),
    _weighing(5, "2026-11-03", "00:00:00", 8000.0, 31000.0, "FG001", "CUS-9", "N 2 B"),
    _weighing(6, "2026-11-03", "10:00:00", 40000.0, 15000.0, None, None, "N 4 D"),
    _weighing(7, "2026-11-01", "12:00:00", 20000.0, 5000.0, "RM001", "SUP-1", "N 1 A"),
]
ROWS = {"transactions": WEIGHINGS, "weighing": WEIGHINGS, "products": PRODUCTS,
        "customers": CUSTOMERS}
DAY = "2026-11-02"


def call(client: FlaskClient, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """(isError, the structured content or the error text) of a tools/call over POST /mcp,
    as a 2025-11-25 client sends it."""
    response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": name, "arguments": arguments}},
                           headers={"Accept": "application/json, text/event-stream",
                                    "MCP-Protocol-Version": "2025-11-25"})
    assert response.status_code == 200, response.data
    result = response.get_json()["result"]
    text = result["content"][0]["text"]
    if result.get("isError"):
        return True, text
    assert json.loads(text) == result["structuredContent"]  # the compact text says the same
    return False, result["structuredContent"]


def ok(client: FlaskClient, name: str, **arguments: Any) -> Any:
    error, content = call(client, name, arguments)
    assert not error, content
    return content


def http(client: FlaskClient, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, response.data
    return response.get_json()


@pytest.fixture
def client(shared: Callable[..., FlaskClient]) -> FlaskClient:
    """The module's client over ROWS (one database and app per engine: the tools only read,
    and each call is a request of its own)."""
    return shared(ROWS)


def test_records_filtered_in_parts_as_the_list(client: FlaskClient) -> None:
    """read_records, filtered, walked two at a time by its cursor, is the HTTP list."""
    expected_ids = [r["id"] for r in WEIGHINGS if r["vehno"] in ("N 1 A", "N 2 B")]
    listed = http(client, "/transactions?vehno__in=N%201%20A,N%202%20B&fields=id,vehno,weigh1")
    assert [r["id"] for r in listed] == sorted(expected_ids)
    asked = {"collection": "transactions", "fields": ["id", "vehno", "weigh1"], "limit": 2,
             "filters": [{"field": "vehno", "op": "in", "value": ["N 1 A", "N 2 B"]}]}
    records, cursor = [], None
    while True:
        part = ok(client, "read_records", **asked, **({"cursor": cursor} if cursor else {}))
        assert part["total"] == len(expected_ids) and part["truncated"] is False
        records += part["records"]
        cursor = part["cursor"]
        if cursor is None:
            break
    assert records == listed


def test_records_of_a_range_as_the_range(client: FlaskClient) -> None:
    """A window on dt1 with a filter on a number: the HTTP range, the same records."""
    inside = sorted((r["tgl_dt1"], r["jam_dt1"], r["id"]) for r in WEIGHINGS
                    if "2026-11-02T07:00:00" <= f"{r['tgl_dt1']}T{r['jam_dt1']}"
                    <= "2026-11-03T00:00:00" and r["weigh1"] > 8500)
    ranged = http(client, "/transactions/date/2026-11-02/07:00/2026-11-03/00:00:00"
                          "?weigh1__gt=8500")
    assert [r["id"] for r in ranged] == [i for _, _, i in inside]
    part = ok(client, "read_records", collection="transactions", on="dt1",
              **{"from": "2026-11-02T07:00", "to": "2026-11-03T00:00:00"},
              filters=[{"field": "weigh1", "op": "gt", "value": 8500}], limit=50)
    assert part["records"] == ranged and part["total"] == len(ranged)
    assert part["cursor"] is None


def test_one_record_by_key_and_by_position(client: FlaskClient) -> None:
    assert ok(client, "get_record", collection="transactions", key=3)["record"] == http(
        client, "/transactions/3")
    # weighing has no usable key: the second record of the canonical order (id 2).
    second = ok(client, "get_record", collection="weighing", key="2",
                fields=["numberrow", "id"])["record"]
    assert second == http(client, "/weighing/2?fields=numberrow,id") == {"numberrow": 2,
                                                                          "id": 2}
    error, text = call(client, "get_record", {"collection": "transactions", "key": 99})
    assert error and text == "no transactions record with ID 99"


def test_a_summary_with_names_and_chosen_measures(client: FlaskClient) -> None:
    url = (f"/transactions/summary/{DAY}/00:00/{DAY}/23:59:59?by=direction,productcode")
    groups = http(client, url)
    kept = ("direction", "productcode", "productname", "records", "net")
    summary = ok(client, "summarize", collection="transactions",
                 **{"from": DAY, "to": DAY}, by=["direction", "productcode"],
                 measures=["records", "net"])
    assert summary["by"] == ["direction", "productcode"]
    assert summary["groups"] == [{k: g[k] for k in kept} for g in groups]
    # The names come from products: RM001's beside it, as the rows say.
    named = {g["productcode"]: g["productname"] for g in summary["groups"]}
    assert named["RM001"] == "Pasir Lumajang" and named["FG001"] == "Bata Ringan"


def test_changes_as_the_feed(client: FlaskClient) -> None:
    """Two calls of three: the HTTP feed's records, and the bookmark goes on as its does."""
    first = client.get("/transactions/changes?limit=3&fields=id")
    tool = ok(client, "changes", collection="transactions", limit=3, fields=["id"])
    assert tool["records"] == first.get_json()
    assert tool["bookmark"] == first.headers["X-Bookmark"]
    following = http(client, f"/transactions/changes?limit=3&fields=id&after="
                              f"{quote(tool['bookmark'])}")
    after = ok(client, "changes", collection="transactions", limit=3, fields=["id"],
               after=tool["bookmark"])
    assert after["records"] == following
    by_stamp = sorted(WEIGHINGS, key=lambda r: (r["tgl_update"], r["jam_update"], r["id"]))
    assert [r["id"] for r in tool["records"] + after["records"]] == [
        r["id"] for r in by_stamp[:6]]


def test_the_daily_report_figures(client: FlaskClient) -> None:
    """The day's totals as the rows make them: net = |weigh1 - weigh2|, in when weigh1 is
    the larger, and after deduction less adjustweigh (NULL as 0); a weighing without its
    second weight is open. In and out are never added together."""
    day = [r for r in WEIGHINGS if r["tgl_dt1"] == DAY]
    weighed = [r for r in day if r["weigh1"] is not None and r["weigh2"] is not None]
    net_in = sum(r["weigh1"] - r["weigh2"] for r in weighed if r["weigh1"] > r["weigh2"])
    net_out = sum(r["weigh2"] - r["weigh1"] for r in weighed if r["weigh1"] < r["weigh2"])
    cut_in = sum(r["adjustweigh"] or 0 for r in weighed if r["weigh1"] > r["weigh2"])
    cut_out = sum(r["adjustweigh"] or 0 for r in weighed if r["weigh1"] < r["weigh2"])
    report = ok(client, "daily_report", date=DAY)
    bridges = {b["collection"]: b for b in report["weighbridges"]}
    weighbridges = {c for c, (fields, _, _) in COLLECTIONS.items() if "weigh1" in fields}
    assert set(bridges) == weighbridges  # every weighing collection; two hold the rows
    for empty in weighbridges - set(ROWS):
        assert bridges[empty]["totals"] == {"records": 0, "weighed": 0, "open": 0, "in": 0,
                                            "in_after_deduction": 0, "out": 0,
                                            "out_after_deduction": 0}
    assert bridges["transactions"]["totals"] == {
        "records": len(day), "weighed": len(weighed), "open": len(day) - len(weighed),
        "in": net_in, "in_after_deduction": net_in - cut_in, "out": net_out,
        "out_after_deduction": net_out - cut_out}
    assert (cut_in, cut_out) == (250.5, 10.0)
    delivered = [r for r in weighed if r["weigh1"] > r["weigh2"]]
    dispatched = [r for r in weighed if r["weigh1"] < r["weigh2"]]
    assert {r["productcode"] for r in delivered} == {"RM001"}  # one material in
    assert {r["custcode"] for r in dispatched} == {"CUS-9"}  # one customer out
    assert bridges["transactions"]["in"]["materials"] == [
        {"code": "RM001", "name": "Pasir Lumajang", "records": len(delivered), "net": net_in,
         "net_after_deduction": net_in - cut_in}]
    assert bridges["transactions"]["out"]["parties"] == [
        {"code": "CUS-9", "name": "PT Bangun Jaya", "records": len(dispatched),
         "net": net_out, "net_after_deduction": net_out - cut_out}]
    assert report["date"] == DAY and report["unmapped"] == []
    # Per direction its weighings, and the day's totals over every weighbridge (two hold
    # these rows: transactions and weighing).
    assert (bridges["transactions"]["in"]["records"],
            bridges["transactions"]["out"]["records"]) == (len(delivered), len(dispatched))
    assert report["totals"] == {
        "records": 2 * len(day), "weighed": 2 * len(weighed),
        "open": 2 * (len(day) - len(weighed)), "in": 2 * net_in,
        "in_after_deduction": 2 * (net_in - cut_in), "out": 2 * net_out,
        "out_after_deduction": 2 * (net_out - cut_out)}
    # The report page's data: the same figures, served as JSON.
    assert http(client, f"/report/{DAY}.json") == report


def test_describe_tells_what_the_index_and_the_records_are(client: FlaskClient) -> None:
    described = ok(client, "describe")
    index = http(client, "/")["collections"]
    assert [(c["name"], c["key"], c["order"], list(c["date_pairs"])) for c in
            described["collections"]] == [(c["name"], c["key"], c["order"],
                                           c["date_range"]) for c in index]
    for c in described["collections"]:
        fields = described["records"][c["record"]]
        assert [f["name"] for f in fields] == COLLECTIONS[c["name"]][0]
        assert all(f["meaning"] for f in fields)
    one = ok(client, "describe", collection="vehicles")
    assert [c["name"] for c in one["collections"]] == ["vehicles"]


def _unkeyed_cursor(skip: int) -> str:
    """A cursor as anyone could make one before cursors were signed: skip and a digest of
    the read that needs no secret."""
    import base64
    import hashlib

    asked = json.dumps(["transactions", None, None, False, None, None], sort_keys=True)
    digest = hashlib.blake2b(asked.encode(), digest_size=6).hexdigest()
    data = json.dumps({"skip": skip, "read": digest}, separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


FORGED_CURSOR = _unkeyed_cursor(2**61)

HOSTILE = [
    # Refused by the tool's inputSchema (app/mcp/protocol.py) before the tool runs.
    ("read_records", {"collection": "nope"},
     'arguments.collection must be one of "customers", "products"'),
    ("read_records", {"collection": "transactions", "limit": 10**9},
     "arguments.limit must be at most 500"),
    ("read_records", {"collection": "transactions", "limit": 0},
     "arguments.limit must be at least 1"),
    ("read_records", {"collection": "transactions", "drop": "table"},
     "arguments takes no property 'drop'"),
    # Refused by the tool.
    ("read_records", {"collection": "transactions", "cursor": "eyJza2lwIjoxfQ"},
     "cursor: not a cursor of this read"),
    ("read_records", {"collection": "transactions",
                      "filters": [{"field": "weigh1", "op": "lt", "value": "1; DROP"}]},
     "filters[0].value takes a number"),
    ("read_records", {"collection": "transactions",
                      "filters": [{"field": "vehno", "op": "gt", "value": "A"}]},
     "filters[0].op: vehno takes eq, not, in, isnull"),
    ("read_records", {"collection": "customers", "from": DAY, "to": DAY},
     "customers has no dates"),
    ("read_records", {"collection": "transactions", "from": "2026-13-01", "to": DAY},
     "from '2026-13-01' is not a date of the calendar"),
    ("summarize", {"collection": "transactions", "from": DAY, "to": "2026-11-01"},
     "the range starts after it ends"),
    ("summarize", {"collection": "transactions", "from": DAY, "to": DAY, "by": ["x' --"]},
     "cannot group by"),
    ("changes", {"collection": "transactions", "after": "AAAA"}, "after: "),
    # Repeated or unknown fields: refused as over HTTP, and at once however many are sent.
    ("read_records", {"collection": "transactions", "fields": ["id", "vehno", "id"]},
     "fields: a field is named twice"),
    ("read_records", {"collection": "transactions", "fields": ["id"] * 100_000},
     "arguments.fields must have at most"),  # more than any record has: refused unread
    ("read_records", {"collection": "transactions", "fields": ["id"] * 100_000},
     "items (it has 100000)"),
    ("get_record", {"collection": "transactions", "key": 1, "fields": ["id", "id"]},
     "fields: a field is named twice"),
    ("changes", {"collection": "transactions", "fields": ["vehno"] * 3},
     "fields: a field is named twice"),
    ("read_records", {"collection": "transactions", "fields": [f"x{i}" for i in range(9)]},
     "; not x0, x1, x2, x3, x4 and 4 more"),
    # A cursor of the right shape that the service did not sign (the unkeyed digest of
    # before): refused, whatever skip it says.
    ("read_records", {"collection": "transactions", "cursor": FORGED_CURSOR},
     "cursor: not a cursor of this read"),
    ("get_record", {"collection": "transactions", "key": "1 OR 1=1"}, "ID must be"),
]


@pytest.mark.parametrize(("tool", "arguments", "says"), HOSTILE)
def test_hostile_arguments_are_tool_errors(client: FlaskClient, tool: str,
                                           arguments: dict[str, Any], says: str) -> None:
    error, text = call(client, tool, arguments)
    assert error and says in text, text


def test_sql_in_a_text_filter_is_a_value(client: FlaskClient) -> None:
    """A text filter's value is bound, never SQL: no record has it, and the table stays."""
    sneaky = "N 1 A' OR '1'='1"
    part = ok(client, "read_records", collection="transactions",
              filters=[{"field": "vehno", "value": sneaky}])
    assert part["records"] == [] and part["total"] == 0
    assert ok(client, "read_records", collection="transactions")["total"] == len(WEIGHINGS)


def test_a_large_answer_is_cut_to_the_budget_with_a_cursor(
        make_client: Callable[..., FlaskClient]) -> None:
    """Records of about 1.3 kB each (five texts of 250 characters): the answer holds what
    fits about 60 kB, says truncated, and the cursor goes on from the first record left out."""
    texts = ("remark", "drivername", "location", "sealno", "dono")
    wide = [_weighing(i, DAY, "08:00:00", 1.0, 2.0, "RM001", "SUP-1", "N 1 A")
            | {t: f"{i:04d}{t}".ljust(250, "x") for t in texts} for i in range(1, 101)]
    client = make_client({"transactions": wide})
    asked = {"collection": "transactions", "limit": 100, "fields": ["id", *texts]}
    first = ok(client, "read_records", **asked)
    size = len(json.dumps(first["records"], separators=(",", ":")).encode())
    assert first["truncated"] is True and 55_000 < size <= 60_000
    assert first["total"] == 100 and first["cursor"]
    rest = ok(client, "read_records", **asked, cursor=first["cursor"])
    assert first["records"] + rest["records"][:1] == http(
        client, f"/transactions/page/1?page_size={first['count'] + 1}&fields=id,"
                + ",".join(texts))


def test_a_feed_answer_over_the_budget_is_cut_to_what_fits(
        make_client: Callable[..., FlaskClient]) -> None:
    """The feed cut to the budget: its records and bookmark are the HTTP feed's with `limit`
    the number that fit, so the next call goes on from the first record left out; and the
    call reads the database once (the records that fit are fitted from the rows read)."""
    texts = ("remark", "drivername", "location", "sealno", "dono")
    wide = [_weighing(i, DAY, f"08:{i // 60:02d}:{i % 60:02d}", 1.0, 2.0, "RM001", "SUP-1",
                      "N 1 A") | {t: f"{i:04d}{t}".ljust(250, "x") for t in texts}
            for i in range(1, 101)]
    client = make_client({"transactions": wide})
    fields = ["id", *texts]
    cut = ok(client, "changes", collection="transactions", limit=100, fields=fields)
    assert cut["truncated"] is True and 0 < cut["count"] < 100
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert value(found, "jembatan_query_duration_seconds_count", query="changes") == 1
    feed = client.get(f"/transactions/changes?limit={cut['count']}&fields={','.join(fields)}")
    assert cut["records"] == feed.get_json()
    assert cut["bookmark"] == feed.headers["X-Bookmark"]
    assert [r["id"] for r in cut["records"]] == list(range(1, cut["count"] + 1))
