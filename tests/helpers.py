"""Helpers shared by the test modules, so that no test module imports another: the error
shape of docs/api.md §9, rows written for a collection, the records the contract
(tests/contract.py) promises for them, and the summaries (docs/api.md §7) computed in Python
from the rows a test inserts."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from http import HTTPStatus
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from app.core.services import services
from tests.contract import COLLECTIONS, PAIRS, columns, expected

ERROR_KEYS = {"code", "status", "message"}
# An expression SQLite refuses that names nothing the database lacks: in a read's own text
# (own_failing_read), a query's own error, answered 500; in `records`, or naming a column or
# table the database lacks, a collection not mapped (503, tests/test_mapping_errors.py).
QUERYS_OWN_ERROR = "abs(1, 2)"


def own_failing_read(mapping: Any, name: str = "by_key") -> None:
    """Give a site's mapping file (a Path) its own text of the read `name` (by_key or all),
    which the database refuses though its records are right."""
    condition = {"by_key": '{key} = :key', "all": "1 = 1"}[name]
    order = " ORDER BY {order}" if name == "all" else ""
    mapping.write_text(mapping.read_text() + f"\n-- name: {name}\n-- Asks too much of abs().\n"
                       f"SELECT {{fields}} FROM \"records\" WHERE {condition} AND "
                       f"{QUERYS_OWN_ERROR} = 1{order};\n")
LINK = re.compile(r'<([^<>]*)>\s*;\s*rel="([a-z]+)"')


def assert_error(response: Any, code: int) -> dict[str, Any]:
    """docs/api.md §9: a `code` answer whose body is the JSON object {"code", "status",
    "message"} (a validation error may add "errors", a 500 its "request_id"), the status
    the standard reason phrase of the code and the message some text. Returns the body."""
    assert response.status_code == code, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert isinstance(body, dict), body
    assert set(body) - {"errors", "request_id"} == ERROR_KEYS, body
    assert body["code"] == code and body["status"] == HTTPStatus(code).phrase, body
    assert isinstance(body["message"], str) and body["message"].strip(), body
    return body


def error(response: Any) -> dict[str, Any]:
    """The body of an error answer in the shape of docs/api.md §9, whatever its code."""
    return assert_error(response, response.status_code)


def links(response: Any) -> dict[str, str]:
    """The Link header as {rel: url}; every part must be `<url>; rel="..."`."""
    header = response.headers.get("Link")
    if header is None:
        return {}
    out: dict[str, str] = {}
    for part in re.split(r",\s*(?=<)", header):
        match = LINK.fullmatch(part.strip())
        assert match, f"not an RFC 8288 link: {part!r} in {header!r}"
        assert match[2] not in out, f"rel {match[2]} twice in {header!r}"
        out[match[2]] = match[1]
    return out


def make_row(collection: str, key: int | None,
             stamps: Mapping[str, tuple[str | None, str | None]], **extra: Any
             ) -> dict[str, Any]:
    """A row of `collection` identified by `key` (bricon2, which has no id, by no_produksi)
    whose date/time pairs hold `stamps`, {on: (date, time)} (the `on` names of PAIRS), and
    a text that tells it apart; `extra` columns last."""
    row: dict[str, Any] = ({"no_produksi": key, "no_produksi_": 0} if collection == "bricon2"
                           else {"id": key})
    for on, (day, clock) in stamps.items():
        row[PAIRS[on][0]], row[PAIRS[on][1]] = day, clock
    if collection == "vehicles":
        row["Number"] = f"B {key} XY"
    elif collection in ("bricon2", "biao1"):
        row["operator_name"] = f"op{key}"
    else:
        row["remark"] = f"record {key}"
    return row | extra


NUMBERED = [c for c, (_, key, _) in COLLECTIONS.items() if key == "numberrow"]
# The REAL columns of the embedded schema (weighing shape and vehicles); the production
# shape's columns are integers except its texts.
REALS = {"adjustunit", "adjustweigh", "detctid", "weigh1", "weigh2", "weighsource1",
         "weighsource2", "weighunit1", "weighunit2", "Capacity", "CapacityUnit", "Tare",
         "TareUnit"}
PRODUCTION_TEXTS = {"operator_name", "mode_operator"}


def kind(collection: str, column: str) -> str:
    """The type of a column as docs/api.md §3 gives it: int, real, date, time, text or
    condition (a weighing's cancelled)."""
    if column == "cancelled":
        return "condition"
    if column in REALS:
        return "real"
    if column.startswith("tgl_") or column == "tanggal":
        return "date"
    if column.startswith("jam"):
        return "time"
    if column == "id":
        return "int"
    if collection in ("bricon2", "biao1") and column not in PRODUCTION_TEXTS \
            and not column.endswith("_note"):
        return "int"
    return "text"


def sample_row(collection: str, n: int) -> dict[str, Any]:
    """A row with a value in every column, distinct per n; canonical order follows n."""
    row: dict[str, Any] = {}
    for i, column in enumerate(columns(collection)):
        k = kind(collection, column)
        if k == "int":
            row[column] = n if column == "id" else n * 100 + i
        elif k == "real":
            row[column] = n * 1000 + i + 0.25
        elif k == "date":
            row[column] = (dt.date(2025, 1, 1) + dt.timedelta(days=n + i)).isoformat()
        elif k == "time":
            row[column] = f"{n % 24:02d}:{i % 60:02d}:{n // 24 % 60:02d}"
        elif k == "condition":  # none cancelled: tests/test_cancelled.py cancels its own
            row[column] = 0
        else:
            row[column] = f"{column}-{n}"
    return row


def records(collection: str, rows: list[dict[str, Any]], first: int = 1
            ) -> list[dict[str, Any]]:
    """The JSON the contract promises for these rows, already in canonical order."""
    numbered = collection in NUMBERED
    return [expected(collection, row, first + i if numbered else None)
            for i, row in enumerate(rows)]


# -- summaries (docs/api.md §7) -----------------------------------------------------------


def in_range(rows: list[dict[str, Any]], on: tuple[str, str], start: str, end: str
             ) -> list[dict[str, Any]]:
    """The rows a range holds: a date, and (date, time or 00:00:00) within both bounds."""
    day, clock = on
    return [r for r in rows if r.get(day) is not None
            and start <= f"{r[day]}T{r.get(clock) or '00:00:00'}" <= end]


def direction(row: dict[str, Any]) -> str | None:
    """"in" when weighed heavier first (a delivery), "out" when lighter first, else None."""
    first, second = row.get("weigh1"), row.get("weigh2")
    if first is None or second is None or first == second:
        return None
    return "in" if first > second else "out"


def group_key(row: dict[str, Any], by: list[str], on: tuple[str, str]) -> tuple[Any, ...]:
    day, clock = on
    out = []
    for name in by:
        if name == "day":
            out.append(row[day])
        elif name == "month":
            out.append(row[day][:7])
        elif name == "hour":
            out.append(int(row[clock][:2]) if row.get(clock) else 0)
        elif name == "direction":
            out.append(direction(row))
        else:  # a text group without its trailing blanks (docs/api.md §7)
            value = row.get(name)
            out.append(value.rstrip(" ") if isinstance(value, str) else value)
    return tuple(out)


# A code of master data -> the key of its name, sent right after it, and where the name
# comes from: the master collection, its code field and its name field (docs/api.md §7).
NAMES = {"productcode": ("productname", "products", "ProductCode", "ProductName"),
         "custcode": ("custname", "customers", "CustCode", "CustName"),
         "transcode": ("transname", "transporters", "TransCode", "TransName"),
         "TransCode": ("TransName", "transporters", "TransCode", "TransName")}
Masters = dict[str, list[dict[str, Any]]]
# What identifies a record in the company's warehouse after its `plant` (docs/warehouse.md,
# "The tables"): bricon2 its batch numbers, every other collection its id.
WAREHOUSE_KEYS = {"bricon2": ("no_produksi", "no_produksi_")}


def warehouse_key(collection: str) -> tuple[str, ...]:
    """The fields of a record of `collection` that key its warehouse row, after `plant`."""
    return WAREHOUSE_KEYS.get(collection, ("id",))


def name_of(code: Any, rows: list[dict[str, Any]], code_field: str, name_field: str,
            same: Callable[[str, str], bool]) -> Any:
    """The name of a code: of the master rows whose code is the same (as the engine compares
    strings: `same`), those with the smallest id (a NULL id only when none has one), the
    least name; None for a NULL code or when no row has it."""
    if code is None:
        return None
    matching = [r for r in rows if r.get(code_field) is not None and same(r[code_field], code)]
    ids = [r["id"] for r in matching if r.get("id") is not None]
    chosen = [r for r in matching if r.get("id") == min(ids)] if ids else matching
    names = [r[name_field] for r in chosen if r.get(name_field) is not None]
    return min(names) if names else None


def exactly(a: str, b: str) -> bool:
    return a == b


def grouped(rows: list[dict[str, Any]], by: list[str], on: tuple[str, str],
            measure: Callable[[list[dict[str, Any]]], dict[str, Any]],
            masters: Masters | None = None, same: Callable[[str, str], bool] = exactly
            ) -> list[dict[str, Any]]:
    """The summary of `rows`, its groups in order, a name after each code of master data
    (from `masters`' rows, none by default), then the measures."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(group_key(row, by, on), []).append(row)
    order = sorted(groups, key=lambda k: [(v is not None, v if v is not None else 0) for v in k])
    out = []
    for k in order:
        group: dict[str, Any] = {}
        for name, value in zip(by, k, strict=True):
            group[name] = value
            if name in NAMES:
                key, master, code_field, name_field = NAMES[name]
                group[key] = name_of(value, (masters or {}).get(master, []), code_field,
                                     name_field, same)
        out.append(group | measure(groups[k]))
    return out


def grams(kg: float) -> Decimal:
    """A weight as a summary takes it (docs/api.md §7, "Exact figures"): the float as written
    to 15 significant digits, rounded half away from zero to three places."""
    return Decimal(f"{float(kg):.15g}").quantize(Decimal("0.001"), ROUND_HALF_UP)


def exact_weighing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The weighing shape's measures of `rows`, the weights as exact Decimals."""
    weighed = [r for r in rows if r.get("weigh1") is not None and r.get("weigh2") is not None]
    nets = [grams(abs(r["weigh1"] - r["weigh2"])) for r in weighed]
    cuts = [grams(r.get("adjustweigh") or 0) for r in weighed]  # kg deducted, NULL as 0
    return {"records": len(rows), "weighed": len(nets), "net": sum(nets) if nets else None,
            "net_min": min(nets) if nets else None, "net_max": max(nets) if nets else None,
            "deduction": sum(cuts) if nets else None,
            "net_after_deduction": sum(nets) - sum(cuts) if nets else None}


def weighing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """exact_weighing as JSON is read (a number is a float): the float nearest each exact
    figure, which a sum of floats with noise (112903.87500000001) is not."""
    return {k: float(v) if isinstance(v, Decimal) else v
            for k, v in exact_weighing(rows).items()}


def keys(groups: list[dict[str, Any]]) -> list[list[str]]:
    """The keys of each group, in order."""
    return [list(g) for g in groups]


# Weighings whose values are hard to write out: quotes, a comma and a newline in text, a
# formula, text beyond ASCII, a negative and a tiny float, and a row of NULLs (CSV, fields,
# ETags: tests/test_representations.py; the workbook: tests/test_xlsx.py).
AWKWARD_WEIGHINGS = [
    {"id": 1, "custcode": "+62 31 7512345", "drivername": 'Budi "Kancil", Jr.',
     "remark": "line one\nline two, with comma", "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00",
     "weigh1": -0.5, "weigh2": 12000.0, "productcode": "=SUM(A1:A2)"},
    {"id": 2, "custcode": "Café – Sidoarjo ✓ 日本", "tgl_dt1": "2026-11-02", "jam_dt1": None,
     "weigh1": 1e-06, "adjustweigh": 0.1},
    {"id": 3},  # every other column NULL
]


# -- /metrics, read as Prometheus reads it ------------------------------------------------

def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """{(sample name, sorted labels): value} of a scrape, parsed as Prometheus parses it."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    """The sum of `name`'s samples that carry these labels (and any others)."""
    return sum(v for (n, have), v in found.items()
               if n == name and set(labels.items()) <= set(have))


# -- the documentation's code blocks ------------------------------------------------------

def fenced_blocks(markdown: str, language: str) -> list[str]:
    """The text of each ```language block of a Markdown page, in order, each line ending in
    a newline, as a file holding it would."""
    return re.findall(rf"^```{re.escape(language)}\n(.*?)^```$", markdown, re.M | re.S)


def secrets_of(client: Any) -> tuple[bytes, ...]:
    """The bookmark secrets of a test client's app (docs/api.md §12, feed.bookmark_secrets)."""
    return services(client.application).settings.feed.secrets


# A test's app with this [log] setting logs every query, when its result is closed, with its
# name and parameters (app/database/db.py): what the database was asked for, counted for real.
EVERY_QUERY = {"log": {"slow_query": 1e-9}}


def queries_asked(caplog: Any) -> list[tuple[str, dict[str, str]]]:
    """(name, parameters) of every query logged under EVERY_QUERY since the last call, which
    clears them: the name as "<collection>.<query>" (transactions.changes_update)."""
    asked = [(r.args[0], r.args[2]) for r in caplog.records if r.msg.startswith("slow query")]
    caplog.clear()
    return asked



def voided(tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> bool:
    """Whether these rows void tickets: some row carries `cancelled`, a column the plant's
    tables lack (the service description's fields) and the demo's tables have."""
    return any("cancelled" in row for rows in tables.values() for row in rows)


# -- CSV for people (format=csv-sheet, docs/api.md §5.8) ------------------------------------

# Stored text a spreadsheet program would run as a formula when it opens CSV, with the
# separator `,`, `;` or a tab (an Excel list separator, LibreOffice's import options): a
# formula at the start (OWASP's "CSV Injection"), behind blanks, or behind a `;`, a tab or a
# line break inside the text, where such a separator begins a cell.
HOSTILE_TEXTS = (
    '=HYPERLINK("http://x.example/","y")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx",
    " =1+1", "\uff1d1+1", "Sortasi 2%;=cmd|' /C calc'!A0", "a; =2+2", 'a;"=3+3"',
    "a;;=4+4", "b\t=5+5", "c\n=6+6", "d\r\n=7+7", "e;@SUM(1)", "f;-8+1")
# Text that only looks like it, which stays as it is: a formula that a comma, inside the
# value's RFC 4180 quotes, never begins a cell of; signs inside a word.
HARMLESS_TEXTS = ("a=1", "'quoted", "1-2", "q,=5+5", "r, -3", "a;b", "Sortasi 2%")
_SHEET_BREAKS = ";\t\r\n"
_SHEET_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def sheet_text(text: str) -> str:
    """`text` as csv-sheet must send it: a single quote at each place a cell may begin (the
    start, after each of _SHEET_BREAKS) where, past any blanks and double quotes, the next
    character begins a formula."""
    out = []
    for i, char in enumerate(text):
        if i == 0 or text[i - 1] in _SHEET_BREAKS:
            rest = text[i:].lstrip(' "')
            if rest[:1] and rest[0] in _SHEET_FORMULA:
                out.append("'")
        out.append(char)
    return "".join(out)


def health_checked(client: Any) -> Any:
    """/health's body once the mapping check a call began (when due) is done: what the
    check found (app/core/mapped.py `Checks`)."""
    client.get("/health")
    thread = services(client.application).checks.thread
    if thread is not None:
        thread.join(timeout=60)
        assert not thread.is_alive()
    return client.get("/health").get_json()
