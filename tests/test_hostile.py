"""Hostile input: SQL injection, control characters, encoded slashes and dots,
digits that are not ASCII, integers past 64 bits, empty and 10 kB segments, impossible dates
and times, repeated and conflicting query arguments: sent to every path parameter and query
argument of every collection, filters included.

Every input gets the answer docs/api.md §5, §6 and §9 give it: 400 for a malformed value, 404 for a
well-formed key that names no record or a path that names no route, both as JSON
{"code", "status", "message"}; never a 500, a redirect or an HTML page, and never records
that the value, read as the contract reads it, does not ask for. The answers are computed
here from the contract (not from the code) and compared as one map per engine, so that a
failure lists every input that was answered wrongly. After the corpus the tables still hold
exactly their rows.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from conftest import ENGINE_PARAMS, FILE_ENGINES, ensure_rows, open_database
from contract import COLLECTIONS, PAIRS, expected
from flask.testing import FlaskClient

from app import create_app

MAX_PAGE_SIZE = 1000  # the defaults of docs/api.md §12
PAGE_SIZE = 100
ROWS = 3  # in every table, keys 1..3, the k-th on 2026-11-0k at 0k:00 (NULL time for k=3)

# -- the rows -------------------------------------------------------------------------------


def _row(collection: str, k: int) -> dict[str, Any]:
    """Row k of a table: its key, every date/time pair of the table on day k, and text that
    looks like SQL or is not ASCII, so that a value that leaked into a query would show."""
    fields = COLLECTIONS[collection][0]
    row: dict[str, Any] = {}
    if "id" in fields:
        row["id"] = k
    for on in COLLECTIONS[collection][2]:
        day, clock = PAIRS[on]
        row[day] = f"2026-11-0{k}"
        row[clock] = None if k == 3 else f"0{k}:00:00"  # a NULL time counts as 00:00:00
    text = {1: "1 OR 1=1", 2: "Ünïcødé 東京 🚚", 3: None}[k]
    for name in ("CustName", "ProductName", "TransName", "remark", "Number", "operator_name"):
        if name in fields:
            row[name] = text
    if collection == "bricon2":  # canonical order tanggal, jam, no_produksi, no_produksi_
        row |= {"no_produksi": k, "no_produksi_": None}
    return row


TABLES = {c: [_row(c, k) for k in range(1, ROWS + 1)] for c in COLLECTIONS}
# (date, time) of row k in every pair, as a range compares it
MOMENTS = [(dt.date(2026, 11, k), dt.time(k if k < 3 else 0)) for k in range(1, ROWS + 1)]

# -- the corpus -----------------------------------------------------------------------------
# As sent: each value percent-encoded whole (quote(safe="")), plus RAW values whose encoding
# is the point (an encoded dot, a malformed escape, nothing at all).

INJECTION = ["1 OR 1=1", "1; DROP TABLE customers--", "' OR ''='", "1' OR '1'='1",
             "1 UNION SELECT name FROM sqlite_master", "1 UNION SELECT 1,2,3,4,5,6,7,8--",
             "1) OR (1=1", "1/**/OR/**/1=1", "1; SELECT pg_sleep(5)",
             "1 AND 1=CAST(version() AS int)",
             "'", '"', ";", "--", "/*", "%", "_", "*", "\\", "?", "#", "&", "=", "$1", "@p1",
             "NULL", "null", "true", "[1]", '{"id":1}', "1,2", "1 OR 1=1 --", "1' --"]
CONTROL = ["\x00", "1\x00", "\x01", "\n", "1\r\n", "\t1", "\x1b[2J", "\x7f", "\u0085",
           "\u200b1", "\ufeff1", "1\u202e"]
SLASHES = ["/", "1/2", "../customers", "..", ".", "..\\..", "/1", "1/"]
FOREIGN_DIGITS = ["١٢٣", "１２３", "１", "²", "𝟏", "߁", "一", "٠٧:٠٥", "２０２６-１１-０１"]
NUMBERS = ["0", "-0", "00", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x1", "1_000", "Infinity",
           "NaN", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
           "99999999999999999999999", "-99999999999999999999999"]
DATES = ["2026-02-29", "0000-01-01", "9999-12-31T", "2026-13-01", "2026-11-31", "2026-1-01",
         "20261101", "2026/11/01", "2026-11-01T00:00", "2026-11-01 ", "9999-12-31",
         "0001-01-01", "2026-11-01"]
TIMES = ["24:00", "23:60", "7:5", "07:5", "07:05:5", "07:05:05.5", "07:05:60", "-1:00",
         "07-05", "0705", "07:05:05:05", "07:05 ", "00:00", "23:59:59"]
LONG = ["A" * 10240, "1" * 10240]  # 10 kB segments: one of text, one a 10240-digit integer
RAW = ["", "%2e%2e", "%2E%2E%2F", "%2e", "%ZZ", "%", "%E2", "%C0%AF", "%252F", "%00%00"]

CORPUS: list[str] = list(dict.fromkeys(
    [quote(v, safe="") for v in INJECTION + CONTROL + SLASHES + FOREIGN_DIGITS + NUMBERS
     + DATES + TIMES + LONG] + RAW))

# -- what the contract answers --------------------------------------------------------------
# The reference reading of each kind of value, written from docs/api.md §5-§6 (not from app/).


def integer(text: str) -> int | None:
    """An integer written in ASCII digits with an optional minus; past 20 digits only its
    size matters (no row and no page is that far), so it is not converted whole."""
    m = re.fullmatch(r"(-?)([0-9]+)", text, re.ASCII)
    if m is None:
        return None
    digits = m[2].lstrip("0") or "0"
    value = int(digits) if len(digits) <= 20 else 10**21
    return -value if m[1] else value


def date(text: str) -> dt.date | None:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text, re.ASCII):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:  # 2026-02-29, 0000-01-01
        return None


def clock(text: str) -> dt.time | None:
    m = re.fullmatch(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?", text, re.ASCII)
    if m is None:
        return None
    hour, minute, second = int(m[1]), int(m[2]), int(m[3] or 0)
    return dt.time(hour, minute, second) if hour < 24 and minute < 60 and second < 60 else None


def count(total: int, page: int | None, page_size: int | None) -> int:
    """How many of `total` records a page holds; unpaged, all of them. page_size alone asks
    for page 1, page alone has the default size."""
    if page is None and page_size is None:
        return total
    page, page_size = page or 1, page_size or PAGE_SIZE
    return max(0, min(page_size, total - (page - 1) * page_size))


Answer = tuple[int, Any]  # (status, the error's code in the body | records | record key)
BAD: Answer = (400, 400)
NONE: Answer = (404, 404)


class Malformed(Exception):
    """A query argument or path segment the contract answers with 400."""


def filter_kinds(collection: str) -> dict[str, str]:
    """The fields of the collection that the corpus filters on, and their types: the first
    integer, a text, a date and a time field (those the rows fill)."""
    fields, _, ons = COLLECTIONS[collection]
    out = {"no_produksi" if collection == "bricon2" else "id": "integer"}
    text = [n for n in ("CustName", "ProductName", "TransName", "remark", "Number",
                        "operator_name") if n in fields]
    out[text[0]] = "string"
    if ons:
        out[PAIRS[ons[0]][0]] = "date"
        out[PAIRS[ons[0]][1]] = "time"
    return out


INT64 = 2**63 - 1
INT32 = 2**31 - 1
# Filters compare with the engine's column: PostgreSQL refuses to compare an INTEGER column
# with a value past 32 bits (a 400, docs/api.md §6.1), where SQL Server and SQLite find no record.
# The test tables (app/model/tables.py) make `id` 64 bits there, the other integers 32.
ENGINE: dict[str, str] = {}


def filter_value(kind: str, text: str, field: str = "") -> Any:
    """A filter value read as docs/api.md §6.1 reads its field's type; Malformed if it does not
    fit (an integer past 64 bits and a text holding NUL: Jembatan's documented decisions)."""
    if kind == "string":
        if "\x00" in text:
            raise Malformed
        return text
    value = {"integer": integer, "date": date, "time": clock}[kind](text)
    if value is None or (kind == "integer" and not -INT64 - 1 <= value <= INT64):
        raise Malformed
    if (kind == "integer" and ENGINE.get("name") == "postgresql" and field != "id"
            and not -INT32 - 1 <= value <= INT32):
        raise Malformed
    return value


def stored(collection: str, k: int, field: str) -> Any:
    """Row k's value of a filtered field, as the filter compares it."""
    value = TABLES[collection][k - 1].get(field)
    kind = filter_kinds(collection)[field]
    if value is None or kind in ("integer", "string"):
        return value
    return date(value) if kind == "date" else clock(value[:8])


def kept(collection: str, filters: list[tuple[str, str, str]]) -> list[int]:
    """The rows (k) that every filter (field, operator, value as sent) keeps."""
    kinds = filter_kinds(collection)
    out = []
    for k in range(1, ROWS + 1):
        keep = True
        for field, op, text in filters:
            value = stored(collection, k, field)
            if op == "isnull":
                if text.lower() not in ("true", "false"):
                    raise Malformed
                keep &= (value is None) == (text.lower() == "true")
                continue
            if kinds[field] == "string" and op in ("gt", "gte", "lt", "lte"):
                raise Malformed
            wanted = [filter_value(kinds[field], t, field)
                      for t in (text.split(",") if op == "in" else [text])]
            if op == "not":
                keep &= value is None or value != wanted[0]
            elif value is None:
                keep = False
            elif op in ("", "in"):
                keep &= value in wanted
            else:
                keep &= {"gt": value > wanted[0], "gte": value >= wanted[0],
                         "lt": value < wanted[0], "lte": value <= wanted[0]}[op]
        if keep:
            out.append(k)
    return out


def query_arguments(collection: str, args: dict[str, str], *, route: str
                    ) -> tuple[int | None, int | None, bool, list[int]]:
    """page, page_size, whether the answer is CSV, and the rows the filters keep, as the
    contract reads them; an argument the route does not take is Malformed."""
    ranged = route in ("range", "summary")
    fields, _, ons = COLLECTIONS[collection]
    filters = []
    for name in args:
        if name in arguments(collection, route):
            continue
        field, _, op = name.partition("__")
        if route == "record" or field not in filter_kinds(collection) or op not in (
                "", "not", "gt", "gte", "lt", "lte", "in", "isnull"):
            raise Malformed
        filters.append((field, op, unquote(args[name])))
    rows = kept(collection, filters)
    page = page_size = None
    if "page_size" in args:
        page_size = integer(args["page_size"])
        if page_size is None or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise Malformed
    if route == "range" and "page" in args:
        page = integer(args["page"])
        if page is None or page < 1:
            raise Malformed
    if ranged and "on" in args and args["on"] not in ons:
        raise Malformed
    if "by" in args:  # the corpus names no field: only the time groups can be right
        groups = unquote(args["by"]).split(",")
        if groups == [""] or set(groups) - {"day", "month", "hour"} or len(
                set(groups)) < len(groups):
            raise Malformed
    if "format" in args and args["format"] not in ("json", "csv"):
        raise Malformed
    if "fields" in args:
        names = args["fields"].split(",")
        if not all(names) or len(set(names)) < len(names) or set(names) - set(fields):
            raise Malformed
    return page, page_size, args.get("format") == "csv", rows


def listed(n: int, csv: bool) -> Any:
    return f"csv {n}" if csv else n


def expect(collection: str, route: str, segments: dict[str, str], args: dict[str, str]
           ) -> Answer:
    """The contract's answer to GET /<collection>/<route ...>?args; segments as sent."""
    decoded = {name: unquote(value) for name, value in segments.items()}
    if any("/" in v for v in decoded.values()) or "" in decoded.values():
        # Another path, or an empty segment: no route has it. A date range's or summary's
        # path with the wrong parts is a 400 that shows the format, other paths a 404.
        return BAD if route in ("range", "summary") else NONE
    try:
        page, page_size, csv, rows = query_arguments(collection, args, route=route)
        if route == "all":
            return 200, listed(len(rows), csv)
        if route == "page":
            number = integer(decoded["pagenumber"])
            if number is None or number < 1:
                return BAD
            return 200, listed(count(len(rows), number, page_size or PAGE_SIZE), csv)
        if route == "record":
            key = integer(decoded["key"])
            numbered = COLLECTIONS[collection][1] == "numberrow"
            if key is None or (numbered and key < 1):
                return BAD
            if not 1 <= key <= ROWS:
                return NONE
            return 200, listed(1, csv) if csv else f"{COLLECTIONS[collection][1]} {key}"
        start = (date(decoded["tglawal"]), clock(decoded["jam_awal"]))
        end = (date(decoded["tglakhir"]), clock(decoded["jam_akhir"]))
        if None in start + end or start > end:
            return BAD
        inside = [k for k in rows if start <= MOMENTS[k - 1] <= end]
        if route == "summary":  # one group per day: row k is on day k (docs/api.md §7)
            by = unquote(args.get("by", "day")).split(",")
            keys = {tuple({"day": MOMENTS[k - 1][0], "month": 11,
                           "hour": MOMENTS[k - 1][1].hour}[g] for g in by) for k in inside}
            return 200, listed(len(keys), csv)
        return 200, listed(count(len(inside), page, page_size), csv)
    except Malformed:
        return BAD


# -- what the service answers ---------------------------------------------------------------


def answer(response: Any) -> Answer:
    """(status, what the body says) in the terms of `expect`; a body in the wrong shape is
    described instead, so that it differs from every expected answer."""
    status = response.status_code
    text = response.get_data(as_text=True)
    if response.mimetype == "text/csv" and status == 200:
        return status, f"csv {len(text.splitlines()) - 1}"
    if response.mimetype != "application/json":
        return status, f"{response.mimetype or 'no type'}: {text[:60]!r}"
    try:
        body = json.loads(text)
    except ValueError:
        return status, f"JSON that does not parse: {text[:60]!r}"
    if status >= 400:
        if (isinstance(body, dict) and {"code", "status", "message"} <= set(body)
                and body["status"] == HTTPStatus(status).phrase
                and isinstance(body["message"], str) and body["message"].strip()):
            return status, body["code"]
        return status, f"not the error shape: {text[:80]!r}"
    if isinstance(body, list):
        return status, len(body)
    if isinstance(body, dict):
        key = "numberrow" if "numberrow" in body else "id"
        return status, f"{key} {body.get(key)}"
    return status, f"unexpected JSON: {text[:60]!r}"


# -- one app per engine ---------------------------------------------------------------------


@dataclass
class Service:
    engine: str
    client: FlaskClient
    path: Path  # the SQLite file of a file engine


@pytest.fixture(scope="module", params=ENGINE_PARAMS)
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[Service]:
    engine = request.param
    path = tmp_path_factory.mktemp(f"hostile-{engine}") / "hostile.sqlite3"
    database = open_database(request, engine, TABLES, path)
    # Thousands of requests: an access line each, and a traceback for each 500, would bury
    # the report of the inputs answered wrongly, which names every 500 by its URL.
    loggers = [logging.getLogger("jembatan"), logging.getLogger("jembatan.access")]
    for logger in loggers:
        logger.disabled = True
    try:
        yield Service(engine, create_app({"database": database}).test_client(), path)
    finally:
        for logger in loggers:
            logger.disabled = False


@pytest.fixture
def client(request: pytest.FixtureRequest, service: Service) -> Iterator[FlaskClient]:
    ensure_rows(request, service.engine, TABLES)
    ENGINE["name"] = service.engine
    yield service.client
    ENGINE.clear()


# -- the requests ---------------------------------------------------------------------------

SAFE = {"key": "1", "pagenumber": "1", "tglawal": "2026-11-01", "jam_awal": "00:00",
        "tglakhir": "2026-11-30", "jam_akhir": "23:59:59"}


def url(collection: str, route: str, segments: dict[str, str], args: dict[str, str]) -> str:
    if route == "all":
        path = f"/{collection}"
    elif route == "page":
        path = f"/{collection}/page/{segments['pagenumber']}"
    elif route == "record":
        path = f"/{collection}/{segments['key']}"
    else:
        kind = "date" if route == "range" else "summary"
        path = "/{}/{}/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir}".format(
            collection, kind, **segments)
    return path + ("?" + "&".join(f"{k}={v}" for k, v in args.items()) if args else "")


def routes(collection: str) -> dict[str, list[str]]:
    """Each route of the collection and the path segments it takes."""
    out = {"all": [], "page": ["pagenumber"], "record": ["key"]}
    if COLLECTIONS[collection][2]:
        out["range"] = ["tglawal", "jam_awal", "tglakhir", "jam_akhir"]
        out["summary"] = out["range"]
    return out


def arguments(collection: str, route: str) -> list[str]:
    """The query arguments of a route (docs/api.md §6.2)."""
    return {"all": ["format", "fields"], "page": ["page_size", "format", "fields"],
            "record": ["format", "fields"],
            "range": ["on", "page", "page_size", "format", "fields"],
            "summary": ["on", "by", "format"]}[route]


def probe(client: FlaskClient, requests: list[tuple[str, str, dict[str, str], dict[str, str]]]
          ) -> dict[str, tuple[Answer, Answer]]:
    """Every request whose answer is not the contract's: {url: (got, expected)}."""
    wrong = {}
    for collection, route, segments, args in requests:
        target = url(collection, route, segments, args)
        got = answer(client.get(target))
        want = expect(collection, route, segments, args)
        if got != want:
            wrong[re.sub(r"(.)\1{19,}", lambda m: f"{m[1]}<x{len(m[0])}>", target)] = (
                got, want)
    return wrong


def report(wrong: dict[str, tuple[Answer, Answer]], sent: int) -> str:
    """One line per input answered wrongly: the whole map, not the first difference."""
    lines = [f"{len(wrong)} of {sent} requests answered otherwise than the contract says "
             f"(got -> expected):"]
    lines += [f"  {target}  {got} -> {want}" for target, (got, want) in wrong.items()]
    return "\n".join(lines)


def test_hostile_path_segments(client):
    """Each corpus value in each path segment of each route, the other segments valid."""
    requests = []
    for collection in COLLECTIONS:
        for route, names in routes(collection).items():
            for name in names:
                safe = {n: quote(SAFE[n], safe="") for n in names}
                for value in [SAFE[name], *CORPUS]:
                    requests.append((collection, route, safe | {name: value}, {}))
    wrong = probe(client, requests)
    assert not wrong, report(wrong, len(requests))


def test_hostile_query_arguments(client):
    """Each corpus value in each query argument of each route, the path valid."""
    requests = []
    for collection in COLLECTIONS:
        for route, names in routes(collection).items():
            safe = {n: quote(SAFE[n], safe="") for n in names}
            for argument in arguments(collection, route):
                for value in CORPUS:
                    requests.append((collection, route, safe, {argument: value}))
    wrong = probe(client, requests)
    assert not wrong, report(wrong, len(requests))


def filter_arguments(collection: str) -> list[str]:
    """The filter arguments the corpus goes into: each filtered field with each operator
    its type takes, and misspelt ones."""
    out = []
    for field, kind in filter_kinds(collection).items():
        ops = ["", "not", "in", "isnull"] + (["gt", "gte", "lt", "lte"] if kind != "string"
                                             else [])
        out += [field + (f"__{op}" if op else "") for op in ops]
    return out + ["nosuchfield", "id__like", f"{next(iter(filter_kinds(collection)))}__gtt"]


@pytest.mark.parametrize("collection", ["transactions", "vehicles", "bricon2", "customers"])
def test_hostile_filter_values(client, collection):
    """Each corpus value in each filter argument on the list (and a few on a page, a range
    and a record), the path valid: a 400 where the value does not fit its field, else
    exactly the rows it keeps."""
    requests = []
    for argument in filter_arguments(collection):
        for value in CORPUS:
            requests.append((collection, "all", {}, {argument: value}))
        for route, names in routes(collection).items():
            safe = {n: quote(SAFE[n], safe="") for n in names}
            for value in ["1", "2026-11-02", "00:00", "true", "1,2", quote("1 OR 1=1"),
                          quote("' OR ''='")]:
                requests.append((collection, route, safe, {argument: value}))
    wrong = probe(client, requests)
    assert not wrong, report(wrong, len(requests))


def test_the_corpus_is_what_the_issue_lists():
    """The hostile inputs listed above are all in the corpus, as sent."""
    listed_in_issue = ["1%20OR%201%3D1", "1%3B%20DROP%20TABLE%20customers--",
                       "%27%20OR%20%27%27%3D%27", "%27", "%3B", "--", "%00", "%2F", "..",
                       "%2e%2e", quote("١٢٣"), quote("１２３"), "99999999999999999999999",
                       "-1", "0", "", "1" * 10240,
                       "2026-02-29", "0000-01-01", "9999-12-31T", "2026-13-01", "24%3A00",
                       "23%3A60", "7%3A5", "07%3A5", "07%3A05%3A5", "07%3A05%3A05.5"]
    assert [v for v in listed_in_issue if v not in CORPUS] == []
    assert any(v.startswith("1%20UNION%20SELECT") for v in CORPUS)
    assert len(CORPUS) > 100


# -- injection never widens a query ---------------------------------------------------------


@pytest.mark.parametrize("collection", ["customers", "transactions", "biao1", "weighing"])
def test_an_injected_key_is_not_a_record(client, collection):
    """`/customers/1 OR 1=1` is a 400 (a 404 where the value holds a slash, which makes it
    another path): not customer 1, not every customer."""
    for value in ["1 OR 1=1", "1 OR 1=1 --", "1; DROP TABLE customers--", "1' OR '1'='1",
                  "1 UNION SELECT 1,2,3", "1) OR (1=1", "1/**/OR/**/1=1", "-1 OR 1=1"]:
        response = client.get(f"/{collection}/{quote(value, safe='')}")
        assert answer(response) == (NONE if "/" in value else BAD), (
            value, response.get_data(as_text=True)[:200])


def test_an_injected_page_size_or_range_argument_is_not_a_bigger_answer(client):
    for target in ["/customers/page/1?page_size=1%20OR%201%3D1",
                   "/customers/page/1?page_size=1%3B%20DROP%20TABLE%20customers--",
                   "/weighing/date/2026-11-01/00:00/2026-11-01/23:59?on=dt1%20OR%201%3D1",
                   "/weighing/date/2026-11-01/00:00/2026-11-01/23:59?on=dt1--",
                   "/weighing/date/2026-11-01%27%20OR%20%27%27%3D%27/00:00/2026-11-01/23:59",
                   "/weighing/date/2026-11-01/00:00%20OR%201%3D1/2026-11-01/23:59",
                   "/weighing/date/2026-11-01/00:00/2026-11-01/23:59?page=1%20OR%201%3D1"]:
        assert answer(client.get(target)) == BAD, target


# -- repeated and conflicting query arguments -----------------------------------------------
# docs/api.md §6.2: `fields` and a filter's `__in` given twice join their values in
# order (generated clients send an array as fields=id&fields=vehno); any other argument given
# twice is a 400, whether or not its values agree: never the first value alone.

REPEATED = [
    ("page", "page_size=1&page_size=1000", None),
    ("page", "page_size=1&page_size=1", None),
    ("page", "page_size=abc&page_size=1", None),
    ("page", "format=json&format=csv", None),
    ("page", "format=csv&format=csv", None),
    ("record", "format=csv&format=xml", None),
    ("record", "fields={a}&fields={b}", "fields={a},{b}"),
    ("page", "fields={b}&fields={a}", "fields={b},{a}"),
    ("record", "fields={a}&fields=%27", "fields={a},%27"),
    ("record", "fields={a}&fields={a}", "fields={a},{a}"),
    ("range", "on={on}&on=zz", None),
    ("range", "on={on}&on={on}", None),
    ("range", "on={on}&on={last}", None),
    ("range", "page=1&page=-1", None),
    ("range", "page=2&page=1&page_size=1&page_size=2", None),
    ("range", "page_size=1&page_size=0", None),
    ("range", "fields={a}&page=1&fields={b}", "fields={a},{b}&page=1"),
    ("all", "{f}__in=1&{f}__in=2", "{f}__in=1,2"),
    ("all", "{f}=1&{f}=2", None),
    ("page", "{f}__gte=1&{f}__gte=1", None),
]


def test_repeated_arguments_join_or_are_refused(client):
    wrong, sent = {}, 0
    for collection, (fields, key, ons) in COLLECTIONS.items():
        first = "numberrow" if key == "numberrow" else "id"
        names = {"a": first, "b": fields[-1], "on": ons[0] if ons else "",
                 "last": ons[-1] if ons else "", "f": next(iter(filter_kinds(collection)))}
        for route, repeated, joined in REPEATED:
            if route == "range" and not ons:
                continue
            base = url(collection, route, {n: quote(SAFE[n], safe="") for n in SAFE}, {})
            twice = client.get(f"{base}?{repeated.format(**names)}")
            sent += 1
            if joined is None:
                ok = answer(twice) == BAD
                want: Any = BAD
            else:
                once = client.get(f"{base}?{joined.format(**names)}")
                want = (once.status_code, once.mimetype, once.get_data())
                ok = (twice.status_code, twice.mimetype, twice.get_data()) == want
                want = answer(once)
            if not ok or twice.status_code >= 500:
                wrong[f"{base}?{repeated.format(**names)}"] = (answer(twice), want)
    assert not wrong, report(wrong, sent)  # (got, expected)


def test_repeated_arguments_spelt_out(client):
    """The rule on one collection."""
    assert answer(client.get("/customers/page/1?page_size=1&page_size=1000")) == BAD
    assert answer(client.get("/customers/page/1?page_size=1&page_size=1")) == BAD
    day = "/weighing/date/2026-11-01/00:00/2026-11-30/23:59"
    assert answer(client.get(f"{day}?on=dt1&on=zz")) == BAD
    assert answer(client.get(f"{day}?page=1&page=-1")) == BAD
    assert client.get("/customers/1?fields=id&fields=CustName").get_json() == {
        "id": 1, "CustName": "1 OR 1=1"}
    assert answer(client.get("/customers?id__in=1&id__in=3")) == (200, 2)
    assert answer(client.get("/customers?_=1&_=2")) == (200, 3)


def test_an_encoded_slash_is_a_slash(client):
    """WSGI hands the app a decoded PATH_INFO, so %2F is a slash before any route sees it: a
    value with one is another path (404 above), and where that path is a route, the answer
    is that route's, with no record beyond its meaning."""
    day = "/weighing/date/2026-11-01{}00:00/2026-11-30/23:59"
    encoded, literal = client.get(day.format("%2F")), client.get(day.format("/"))
    assert (encoded.status_code, encoded.get_data()) == (literal.status_code,
                                                          literal.get_data())
    assert answer(encoded) == (200, 3)


# -- nothing changed ------------------------------------------------------------------------


def test_the_tables_still_hold_their_rows(client, service):
    """Last, after every request of this module on the same database: every table holds
    exactly its rows, read through the API and, for a file, from the file itself."""
    for collection, rows in TABLES.items():
        numbered = COLLECTIONS[collection][1] == "numberrow"
        want = [expected(collection, row, k if numbered else None)
                for k, row in enumerate(rows, 1)]
        response = client.get(f"/{collection}")
        assert response.status_code == 200
        assert response.get_json() == want, collection
    if service.engine in FILE_ENGINES:
        con = sqlite3.connect(f"file:{service.path}?mode=ro", uri=True)
        try:
            tables = {name for (name,) in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            assert tables == set(TABLES)
            for collection, rows in TABLES.items():
                names = list(rows[0])
                stored = con.execute(
                    f'SELECT {", ".join(chr(34) + n + chr(34) for n in names)} '
                    f'FROM "{collection}" ORDER BY rowid').fetchall()
                assert stored == [tuple(row[n] for n in names) for row in rows], collection
        finally:
            con.close()
