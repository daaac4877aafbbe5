"""Keys that open only their own door (docs/api.md §10, docs/keys.md): requests generated over
every read kind of the HTTP API and every MCP tool, sent with keys of different scopes, on
every engine; each answer is compared whole with what the rows inserted here hold within the
key's scope, so that no record, count or sum outside it comes back."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from flask.testing import FlaskClient

from app import create_app
from app.formats.registry import FORMATS
from app.model.collections import COLLECTIONS as TABLE
from app.model.collections import DATE_PAIRS
from app.model.kinds import READ_KINDS
from app.ops.config import SHIPPED_SQL_DIR, ConfigError, load_settings
from tests.conftest import build_database
from tests.contract import COLLECTIONS, PAIRS, expected
from tests.helpers import grouped, in_range, records, samples, weighing

TRANSPORTERS = [{"id": 1, "TransCode": "T03", "TransName": "CV Tiga"},
                {"id": 2, "TransCode": "T04", "TransName": "PT Empat"}]
CUSTOMERS = [{"id": 1, "CustCode": "C01", "CustName": "Satu"},
             {"id": 2, "CustCode": "C02", "CustName": "Dua"},
             {"id": 3, "CustCode": "C03", "CustName": "Tiga"}]
TRANSPORT = ("T03", "T04", None, "T03", "T04", "T03", "T04", "T03", None)
CUSTOMER = ("C01", "C02", "C03", "C02", "C01", None, "C03", "C02", "C01")


def _row(i: int) -> dict[str, Any]:
    day = f"2026-11-0{1 + i % 3}"
    clock = f"{6 + i:02d}:{i * 7 % 60:02d}:00"
    return {"id": i, "transcode": TRANSPORT[i - 1], "custcode": CUSTOMER[i - 1],
            "productcode": "P1" if i % 2 else "P2", "vehno": f"N {i} X",
            "tgl_dt1": day, "jam_dt1": clock, "tgl_update": day, "jam_update": clock,
            "weigh1": 1000.0 * i + 500, "weigh2": 300.0 * i, "adjustweigh": float(i),
            "cancelled": 0}


WEIGHINGS = [_row(i) for i in range(1, len(TRANSPORT) + 1)]
ROWS = {"transactions": WEIGHINGS, "weighing": WEIGHINGS, "transporters": TRANSPORTERS,
        "customers": CUSTOMERS}
SECRETS = {"t03": "transporter-T03-secret-0001", "custs": "customers-C01-C02-secret",
           "full": "full-access-secret-000001", "limited": "one-at-a-time-secret-0001",
           "narrow": "a-few-fields-secret-00001", "entry": "entry-times-only-secret-1",
           "undated": "no-dates-at-all-secret-01"}
# What each key reads: its collections and, per field, the values its rows may hold.
SCOPES: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]] = {
    "t03": (("transactions", "weighing"), {"transcode": ("T03",)}),
    "custs": (("transactions",), {"custcode": ("C01", "C02")}),
    "full": (("customers", "transactions", "transporters", "weighing"), {}),
}
AUTH = {"api_keys": [SECRETS["full"]], "keys": {
    "t03": {"key": SECRETS["t03"], "collections": ["transactions", "weighing"],
            "where": {"transcode": "T03"}, "max_concurrent": 0},
    "custs": {"collections": ["transactions"], "where": {"custcode": ["C01", "C02"]},
              # stored as a hash, as `printf %s KEY | sha256sum` prints it
              "key_sha256": hashlib.sha256(SECRETS["custs"].encode()).hexdigest(),
              "max_concurrent": 0},
    "limited": {"key": SECRETS["limited"], "max_concurrent": 1},
    "narrow": {"key": SECRETS["narrow"], "collections": ["transactions", "weighing"],
               "fields": ["vehno", "id", "tgl_update", "jam_update"],
               "where": {"transcode": "T03"}, "max_concurrent": 0},
    # Reads the entry weighings' times, not the stamp the feed moves on by default.
    "entry": {"key": SECRETS["entry"], "collections": ["transactions"],
              "fields": ["id", "vehno", "tgl_dt1", "jam_dt1"], "max_concurrent": 0},
    # Reads no date, nor the time beside one: no range, no feed.
    "undated": {"key": SECRETS["undated"], "collections": ["transactions"],
                "fields": ["id", "vehno", "tgl_dt1"], "max_concurrent": 0},
}}
NARROW = ["id", "jam_update", "tgl_update", "vehno"]  # the key's fields, in the record's order
NAMES = {"t03": "t03", "custs": "custs", "full": "key-1"}
START, END = "2026-11-01T00:00:00", "2026-11-03T23:59:59"
RANGE = "/date/2026-11-01/00:00/2026-11-03/23:59:59"
SUMMARY = "/summary/2026-11-01/00:00/2026-11-03/23:59:59"


def scoped(key: str, collection: str) -> list[dict[str, Any]]:
    """The rows of `collection` the key may read, in canonical order."""
    _, where = SCOPES[key]
    return [r for r in ROWS.get(collection, []) if all(r.get(f) in v for f, v in where.items())]


def ranged(key: str, collection: str) -> list[dict[str, Any]]:
    """Its rows in RANGE on dt1, in the range's order."""
    rows = in_range(scoped(key, collection), PAIRS["dt1"], START, END)
    return sorted(rows, key=lambda r: (r["tgl_dt1"], r["jam_dt1"], r["id"]))


def stamped(rows: list[dict[str, Any]], on: str) -> list[dict[str, Any]]:
    """The rows in the order of a range or the feed on the pair `on`: its date and time
    (a NULL time as 00:00:00), then id."""
    day, clock = PAIRS[on]
    return sorted(rows, key=lambda r: (r[day], r[clock] or "00:00:00", r["id"]))


class Keyed:
    """A client that sends one key, and closes each answer (a key's reads are counted until
    their answer is closed, as a server closes it)."""

    def __init__(self, client: FlaskClient, key: str):
        self.client, self.headers = client, {"X-API-Key": SECRETS[key]}

    def get(self, url: str, status: int = 200) -> Any:
        with self.client.get(url, headers=self.headers) as response:
            assert response.status_code == status, (url, response.data)
            response.get_data()
            return response

    def json(self, url: str, status: int = 200) -> Any:
        return self.get(url, status).get_json()

    def tool(self, name: str, **arguments: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}
        with self.client.post("/mcp", json=body, headers=self.headers | {
                "Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"}) as r:
            assert r.status_code == 200, r.data
            result = r.get_json()["result"]
        return result["content"][0]["text"] if result.get("isError") else \
            result["structuredContent"]


@pytest.fixture
def client(shared: Callable[..., FlaskClient]) -> FlaskClient:
    return shared(ROWS, auth=AUTH)


@pytest.mark.parametrize("key", list(SCOPES))
def test_every_read_kind_holds_the_key_to_its_rows(client: FlaskClient, key: str) -> None:
    """Lists, pages and their totals, records by key (a record outside the scope is the
    404 of a record that does not exist), ranges, summaries, the feed, CSV and workbooks."""
    keyed = Keyed(client, key)
    collections, _ = SCOPES[key]
    for c in collections:
        mine = scoped(key, c)
        assert keyed.json(f"/{c}") == records(c, mine)
        page = keyed.get(f"/{c}/page/2?page_size=2")
        assert page.get_json() == records(c, mine[2:4], 3)
        assert json.loads(page.headers["X-Pagination"])["total"] == len(mine)
        table = list(csv.reader(io.StringIO(keyed.get(f"/{c}?format=csv").get_data(
            as_text=True))))
        assert [row[table[0].index("id")] for row in table[1:]] == [str(r["id"]) for r in mine]
        book = openpyxl.load_workbook(io.BytesIO(keyed.get(f"/{c}?format=xlsx&fields=id").data))
        assert [v for (v,) in book.active.iter_rows(min_row=2, values_only=True)] == [
            r["id"] for r in mine]
        if c in ("customers", "transporters"):
            continue
        within = ranged(key, c)
        assert keyed.json(f"/{c}{RANGE}") == [expected(c, r) for r in within]
        paged = keyed.get(f"/{c}{RANGE}?page=1&page_size=3")
        assert paged.get_json() == [expected(c, r) for r in within[:3]]
        assert json.loads(paged.headers["X-Pagination"])["total"] == len(within)
        for by in (["transcode", "custcode"], ["day"]):
            assert keyed.json(f"/{c}{SUMMARY}?by={','.join(by)}") == grouped(
                within, by, PAIRS["dt1"], weighing, {"transporters": TRANSPORTERS,
                                                      "customers": CUSTOMERS})
        feed = sorted(mine, key=lambda r: (r["tgl_update"], r["jam_update"], r["id"]))
        assert keyed.json(f"/{c}/changes?fields=id") == [{"id": r["id"]} for r in feed]
    for row in WEIGHINGS:  # by key: the record, or the 404 of one that is not there
        n = row["id"]
        answer = keyed.json(f"/transactions/{n}", 200 if row in mine else 404)
        assert answer == (expected("transactions", row) if row in mine else {
            "code": 404, "status": "Not Found",
            "message": f"no transactions record with ID {n}"})


@pytest.mark.parametrize("key", list(SCOPES))
def test_numbered_records_count_within_the_scope(client: FlaskClient, key: str) -> None:
    """A collection without a key numbers the key's own records 1, 2, ...: past them, the
    404 of a position beyond the table."""
    if "weighing" not in SCOPES[key][0]:
        return
    mine = scoped(key, "weighing")
    for n in range(1, len(WEIGHINGS) + 1):
        found = Keyed(client, key).json(f"/weighing/{n}", 200 if n <= len(mine) else 404)
        assert found == (expected("weighing", mine[n - 1], n) if n <= len(mine) else {
            "code": 404, "status": "Not Found",
            "message": f"no weighing record with numberrow {n}"})


@pytest.mark.parametrize("key", ["t03", "custs"])
def test_other_collections_are_not_there(client: FlaskClient, key: str) -> None:
    """A collection outside the key's scope answers as one the site does not serve, and the
    index lists only the key's own."""
    keyed = Keyed(client, key)
    collections, _ = SCOPES[key]
    assert [c["name"] for c in keyed.json("/")["collections"]] == list(collections)
    for path in ("/customers", "/customers/1", "/transporters/page/1"):
        assert keyed.json(path, 404)["message"] == (
            f"This site does not serve {path.split('/')[1]}: it serves "
            f"{', '.join(collections)}. The collections and their URLs are listed at the "
            f"index (/).")


@pytest.mark.parametrize("key", list(SCOPES))
def test_every_tool_holds_the_key_to_its_rows(client: FlaskClient, key: str) -> None:
    """describe names only the key's collections; read_records, get_record, summarize,
    changes and daily_report answer only its records, counts and sums."""
    keyed = Keyed(client, key)
    collections, _ = SCOPES[key]
    described = keyed.tool("describe")
    assert [c["name"] for c in described["collections"]] == (
        list(COLLECTIONS) if key == "full" else list(collections))
    for c in ("transactions", "weighing"):
        if c not in collections:
            assert keyed.tool("read_records", collection=c) == (
                f"Invalid arguments for read_records: arguments.collection must be one of "
                f"{', '.join(json.dumps(n) for n in collections)}")
            continue
        mine = scoped(key, c)
        part = keyed.tool("read_records", collection=c, limit=500)
        assert (part["records"], part["total"]) == (records(c, mine), len(mine))
        ranged_part = keyed.tool("read_records", collection=c, limit=500, **{
            "from": START, "to": END})
        assert ranged_part["records"] == [expected(c, r) for r in ranged(key, c)]
        groups = keyed.tool("summarize", collection=c, by=["transcode"], **{
            "from": START, "to": END})["groups"]
        assert groups == grouped(ranged(key, c), ["transcode"], PAIRS["dt1"], weighing,
                                 {"transporters": TRANSPORTERS})
        feed = keyed.tool("changes", collection=c, fields=["id"], limit=500)["records"]
        assert sorted(r["id"] for r in feed) == sorted(r["id"] for r in mine)
    mine = scoped(key, "transactions")
    for row in WEIGHINGS:
        got = keyed.tool("get_record", collection="transactions", key=row["id"])
        assert got == ({"collection": "transactions", "record": expected("transactions", row)}
                       if row in mine else f"no transactions record with ID {row['id']}")
    day = "2026-11-02"
    report = keyed.tool("daily_report", date=day)
    totals = {b["collection"]: b["totals"]["records"] for b in report["weighbridges"]}
    weighbridges = ("transactions", "weighing", "timbangan1", "timbangan2")
    assert totals == {c: len([r for r in scoped(key, c) if r["tgl_dt1"] == day])
                      for c in weighbridges if c in collections or key == "full"}
    # The report page's data, read with the same key: the same figures.
    assert keyed.json(f"/report/{day}.json") == report


def test_a_bookmark_holds_its_keys_scope(client: FlaskClient) -> None:
    """A feed's bookmark digests the key's condition: another key's is a 400."""
    bookmark = Keyed(client, "t03").get("/transactions/changes").headers["X-Bookmark"]
    refused = Keyed(client, "custs").json(f"/transactions/changes?after={bookmark}", 400)
    assert refused["code"] == 400
    assert Keyed(client, "t03").json(f"/transactions/changes?after={bookmark}") == []


def test_a_key_past_its_reads_at_once_waits(client: FlaskClient) -> None:
    """max_concurrent: a read of the key held open (its answer not closed yet) takes its one
    place; the next is a 429 with Retry-After, and once the first is closed it is answered."""
    headers = {"X-API-Key": SECRETS["limited"]}
    first = client.get("/transactions", headers=headers)
    assert first.status_code == 200
    with client.get("/transactions/1", headers=headers) as refused:
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
        assert refused.get_json() == {
            "code": 429, "status": "Too Many Requests",
            "message": "the key limited has 1 request running in this process, as many as "
                       "it may (auth.keys.limited.max_concurrent): retry when one has finished"}
    first.close()
    with client.get("/transactions/1", headers=headers) as again:
        assert again.status_code == 200


def test_the_key_is_named_never_sent(shared_app: Callable[..., Any],
                                     caplog: pytest.LogCaptureFixture) -> None:
    """The access line and /metrics name the key (api_keys' entries key-1, key-2, ...); the
    key itself is written nowhere."""
    client = shared_app(ROWS, auth=AUTH).test_client()
    caplog.set_level(logging.INFO, "jembatan.access")
    for key in SCOPES:
        Keyed(client, key).get("/transactions/1")  # in every key's scope
    lines = [r.getMessage() for r in caplog.records if r.name == "jembatan.access"]
    assert [line.rsplit(" ", 1)[1] for line in lines] == [f"key={NAMES[k]}" for k in SCOPES]
    with client.get("/metrics", headers={"X-API-Key": SECRETS["full"]}) as response:
        text = response.get_data(as_text=True)
    found = samples(text)
    for key in SCOPES:
        assert found[("jembatan_key_requests_total",
                      (("key", NAMES[key]), ("status", "200")))] == 1
    assert not any(secret in text or any(secret in line for line in lines)
                   for secret in SECRETS.values())


def test_a_key_with_fields_reads_only_those(client: FlaskClient) -> None:
    """auth.keys.<name>.fields: its records send those fields alone (and numberrow where
    there is one) in every read; a field, a filter or a group on another is a 400 that says
    which it reads, and so is a summary, whose figures are made of other fields."""
    keyed = Keyed(client, "narrow")
    mine = scoped("t03", "transactions")
    only = [{f: r[f] for f in NARROW} for r in mine]
    feed = sorted(only, key=lambda r: (r["tgl_update"], r["jam_update"], r["id"]))
    assert keyed.json("/transactions") == only
    assert keyed.json("/transactions/page/1?page_size=2") == only[:2]
    assert keyed.json(f"/transactions/{mine[0]['id']}") == only[0]
    assert keyed.json("/weighing/1") == {"numberrow": 1} | only[0]
    assert keyed.json(f"/transactions{RANGE}?on=update") == [  # the pair it reads
        {f: r[f] for f in NARROW} for r in stamped(in_range(mine, PAIRS["update"], START, END),
                                                   "update")]
    assert keyed.json("/transactions/changes") == feed
    assert keyed.get("/transactions?format=csv").get_data(as_text=True) == "".join(
        ",".join(str(v or "") for v in row.values()) + "\r\n"
        for row in [dict(zip(NARROW, NARROW, strict=True)), *only])
    reads = ("id, jam_update, tgl_update, vehno of transactions")
    for path, argument, outside in (("/transactions?fields=id,weigh1", "fields", "weigh1"),
                                    ("/transactions?weigh1__gt=1", "filters", "weigh1"),
                                    ("/transactions/changes?fields=custcode", "fields",
                                     "custcode")):
        assert keyed.json(path, 400)["message"] == (
            f"Invalid query parameter {argument}: this key reads only {reads}, not {outside}")
    refusal = ("the key narrow reads only some fields of transactions "
               "(auth.keys.narrow.fields), and a summary's figures are made of others: read "
               "its records instead")
    assert keyed.json(f"/transactions{SUMMARY}", 400)["message"] == refusal
    assert keyed.tool("read_records", collection="transactions", limit=500)["records"] == only
    assert keyed.tool("summarize", collection="transactions", **{
        "from": START, "to": END}) == refusal
    assert keyed.json("/report/2026-11-02.json", 400)["message"] == refusal  # the page's data
    described = keyed.tool("describe")
    assert [f["name"] for f in described["records"]["Weighing"]] == NARROW
    assert "summary" not in described["collections"][0]


def test_a_sites_own_read_without_filters_refuses_a_keys_condition(tmp_path: Path) -> None:
    """A site's own query that takes no {where_filters} could not hold a key to its rows:
    the start is refused, naming it; a key without a condition over that collection starts."""
    sql = tmp_path / "sql"
    shutil.copytree(SHIPPED_SQL_DIR, sql)
    mapping = sql / "transactions.sql"
    mapping.write_text(mapping.read_text() + '\n-- name: all\n-- Everything, unfiltered.\n'
                       'SELECT {fields} FROM "records" ORDER BY {order};\n')
    database = {"sqlite": str(build_database(tmp_path / "db.sqlite3", {})),
                "sql_dir": str(sql)}
    with pytest.raises(ConfigError) as refused:
        create_app({"database": database, "auth": AUTH})
    assert str(refused.value) == (
        f"auth.keys.t03.where: transactions's own all in {mapping} takes no filters "
        f"({{where_filters}} or {{and_filters}}, as sql/shapes.sql's), so it cannot hold the "
        f"key to its rows: add them, or leave transactions out of the key's collections")
    create_app({"database": database, "auth": {"keys": {"c": AUTH["keys"]["custs"] | {
        "collections": ["weighing"], "where": {"custcode": "C01"}}}}})


# The moments a key of `fields` reads: the `on` pairs whose date and time are both its own.
DATED = {c.name: c for c in TABLE}
DAYS = "2026-11-01/00:00/2026-11-03/23:59:59"


def readable(key: str, collection: str) -> list[str]:
    fields = AUTH["keys"][key]["fields"]
    return [on for on in DATED[collection].dates if set(DATE_PAIRS[on]) <= set(fields)]


def on_path(kind: Any, collection: str) -> str:
    """A read kind's path (docs/api.md §6.2 as app/model/kinds.py writes it) over DAYS."""
    return kind.path.replace("<c>", collection).replace("…", DAYS).replace("{n}", "1")


@pytest.mark.parametrize("key", ["narrow", "entry", "undated"])
def test_a_key_with_fields_reads_on_its_own_dates_alone(client: FlaskClient, key: str
                                                        ) -> None:
    """Every read kind that takes `on` (a range, a summary, the feed), on every date pair of
    the key's collections: a pair whose date or time the key does not read is the 400 of a
    pair that is not there, listing those it reads, through HTTP and MCP alike; the feed's
    default pair too. A pair it reads answers its records in that pair's order."""
    keyed = Keyed(client, key)
    fields = [f for f in COLLECTIONS["transactions"][0] if f in AUTH["keys"][key]["fields"]]
    where = AUTH["keys"][key].get("where", {})
    mine = [{f: r[f] for f in fields} for r in WEIGHINGS
            if all(r.get(f) in ([v] if isinstance(v, str) else v) for f, v in where.items())]
    kinds = [k for k in READ_KINDS if "on" in k.arguments]
    assert kinds
    for c in AUTH["keys"][key]["collections"]:
        accepted = readable(key, c)
        takes = ", ".join(accepted) or "nothing: this key reads none of its dates"
        refusal = (f"{c} has no date pair {{!r}} that this key reads (auth.keys.{key}.fields); "
                   f"on takes {takes}")
        for kind in kinds:
            for on in DATED[c].dates:
                path = f"{on_path(kind, c)}?on={on}"
                if kind.name == "summary":  # made of other fields: refused on any pair
                    assert keyed.json(path, 400)["message"].startswith(f"the key {key} reads")
                elif on not in accepted:
                    assert keyed.json(path, 400) == {
                        "code": 400, "status": "Bad Request",
                        "message": f"Invalid query parameter on: {refusal.format(on)}",
                        "errors": {"query": {"on": [refusal.format(on)]}}}, path
                else:
                    found = keyed.json(path)
                    numbered = [{"numberrow": None} | r for r in mine] if DATED[c].numbered \
                        else mine
                    assert found == stamped(in_range(numbered, PAIRS[on], START, END), on), path
        for on in DATED[c].dates:
            if on in accepted:
                continue
            assert keyed.tool("read_records", collection=c, on=on, **{
                "from": START, "to": END}) == refusal.format(on)
            assert keyed.tool("changes", collection=c, on=on) == refusal.format(on)
        if DATED[c].feed_on not in accepted:  # the feed's own pair: no default for this key
            assert keyed.json(f"/{c}/changes", 400)["message"] == (
                f"Invalid query parameter on: {refusal.format(DATED[c].feed_on)}")
        described = keyed.tool("describe", collection=c)["collections"][0]["date_pairs"]
        assert described == {on: list(DATE_PAIRS[on]) for on in accepted}


@pytest.mark.parametrize(("collection", "fields", "hidden"), [
    ("transactions", ["vehno", "weigh1"], "id"),
    ("bricon2", ["tanggal", "jam", "no_produksi"], "no_produksi_"),
])
def test_a_key_must_read_the_order_its_records_come_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collection: str, fields: list[str],
        hidden: str) -> None:
    """Records come in their collection's canonical order: a key's fields without one of
    its fields would read that field's order, so the start is refused, naming it."""
    monkeypatch.chdir(tmp_path)
    order = DATED[collection].order
    with pytest.raises(ConfigError) as refused:
        load_settings({"auth": {"keys": {"k": {"key": SECRETS["narrow"], "fields": fields,
                                               "collections": [collection]}}}}, {})
    assert str(refused.value) == (
        f"auth.keys.k.fields: {collection}'s records come in the order of {', '.join(order)} "
        f"(docs/api.md §2), which would tell the key what it may not read: add {hidden}")


# Tickets 4 and 8 of the transporter T03 voided: a key that may not read `cancelled`.
VOIDED = {"transactions": [r | {"cancelled": int(r["id"] in (4, 8))} for r in WEIGHINGS]}


def listed_ids(name: str, body: bytes) -> list[Any]:
    """The first column of an answer in format `name` (asked with fields=id): its ids."""
    extension = FORMATS[name].extension
    if extension is None:
        return [r["id"] for r in json.loads(body)]
    if extension == "csv":
        lines = body.decode("utf-8-sig").splitlines()
        return [int(v) for v in lines[1 + lines[0].startswith("sep="):]]
    assert extension == "xlsx", f"a format this test cannot read: {name}"
    book = openpyxl.load_workbook(io.BytesIO(body))
    assert len(book.sheetnames) == 1, book.sheetnames  # no sheet of what it leaves out
    return [v for (v,) in book.active.iter_rows(min_row=2, values_only=True)]


def test_every_format_sends_the_same_records_to_a_key_that_cannot_read_cancelled(
        shared: Callable[..., FlaskClient]) -> None:
    """A workbook leaves voided tickets out, JSON and CSV send them: for a key without
    `cancelled` among its fields, every format of every read sends the same records in the
    same order, and nothing says how many were voided (X-Left-Out names no voided)."""
    keyed = Keyed(shared(VOIDED, auth=AUTH), "narrow")
    mine = [r for r in VOIDED["transactions"] if r["transcode"] == "T03"]
    assert any(r["cancelled"] for r in mine) and any(not r["cancelled"] for r in mine)
    kinds = [k for k in READ_KINDS if "format" in k.arguments and "filters" in k.arguments
             and "by" not in k.arguments]
    for kind in kinds:
        path = on_path(kind, "transactions") + "?fields=id" + (
            "&on=update" if "on" in kind.arguments else "")
        ordered = stamped(mine, "update") if "on" in kind.arguments else mine
        for name in FORMATS:
            answer = keyed.get(f"{path}&format={name}")
            assert listed_ids(name, answer.data) == [r["id"] for r in ordered], (path, name)
            assert "voided" not in answer.headers.get("X-Left-Out", ""), (path, name)
