"""Exact figures (docs/api.md §7, "Exact figures"; §4): a weighing summary's net, net_min,
net_max, deduction and net after deduction carry no binary float noise in any face or
format, on every engine. The tickets' weights and deductions have up to three decimals
(0.1 kg, .25, .775, .875), so that the floats' own sums are noisy (15052.149999999998,
0.30000000000000004, ...); the expected figures are worked out here with Decimal from the
rows inserted (tests/helpers.py exact_weighing), and compared whole: the JSON (read with
its numbers as Decimals, digit for digit), the CSV and csv-sheet text, the workbook's cells,
the MCP summarize tool and the daily report's totals (JSON and MCP).
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from flask.testing import FlaskClient

from app.ops.config import SHIPPED_SQL_DIR
from tests.contract import PAIRS
from tests.helpers import direction, exact_weighing, grams, grouped, in_range, weighing

DAYS = ("2026-11-20", "2026-11-21")
RANGE = f"{DAYS[0]}/00:00/{DAYS[1]}/23:59:59"
START, END = f"{DAYS[0]}T00:00:00", f"{DAYS[1]}T23:59:59"
ON = PAIRS["dt1"]
FIGURES = ("net", "net_min", "net_max", "deduction", "net_after_deduction")
# A figure as sent: digits, a point, one to three decimals (the scale of a sum, §7).
WRITTEN = re.compile(r"-?[0-9]+\.[0-9]{1,3}")
BYS = ("day", "direction,day", "day,productcode", "productcode,direction", "hour")


def _ticket(n: int) -> dict[str, Any]:
    """Ticket n: weights with one or three decimals, in or out, a deduction of 0.1 kg or
    n.775 kg (none on every fifth), some still waiting for the exit weighing."""
    delivery = n % 4 != 0
    loaded, empty = float(f"{20000 + 37 * n}.{3 * n % 10}"), float(f"{5000 + 11 * n}.{7 * n % 10}5")
    return {"id": n, "tgl_dt1": DAYS[n % 2], "jam_dt1": f"{n % 24:02d}:{n % 60:02d}:00",
            "weigh1": loaded if delivery else empty,
            "weigh2": None if n % 9 == 0 else empty if delivery else float(f"{30000 + n}.875"),
            "adjustweigh": None if n % 5 == 0 else 0.1 if n % 2 else float(f"{n}.775"),
            "productcode": ("TBS", "CPO", "PK")[n % 3]}


# And a half gram, as written, where a value has more decimals than three: rounded away
# from zero on every engine, a difference of floats (10000.000499999998) as written to 15
# significant digits (10000.0005), a deduction stored negative too.
HALVES = [{"id": 61, "tgl_dt1": DAYS[0], "jam_dt1": "23:00:00", "weigh1": 20000.0005,
           "weigh2": 10000.0, "adjustweigh": 2.0005, "productcode": "TBS"},
          {"id": 62, "tgl_dt1": DAYS[0], "jam_dt1": "23:30:00", "weigh1": 7000.0,
           "weigh2": 31234.5675, "adjustweigh": -1.0005, "productcode": "CPO"}]
TICKETS = [_ticket(n) for n in range(1, 61)] + HALVES
TABLES = {"transactions": TICKETS}
ROWS = in_range(TICKETS, ON, START, END)


def _floats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The measures as the floats' own sums give them: what was sent before."""
    weighed = [r for r in rows if r["weigh1"] is not None and r["weigh2"] is not None]
    nets = [abs(r["weigh1"] - r["weigh2"]) for r in weighed]
    cuts = [r["adjustweigh"] or 0.0 for r in weighed]
    return {"records": len(rows), "weighed": len(nets), "net": sum(nets) if nets else None,
            "net_min": min(nets) if nets else None, "net_max": max(nets) if nets else None,
            "deduction": sum(cuts) if nets else None,
            "net_after_deduction": sum(nets) - sum(cuts) if nets else None}


def expected(by: str, rows: list[dict[str, Any]] = ROWS) -> list[dict[str, Any]]:
    return grouped(rows, by.split(","), ON, exact_weighing)


def _exact_json(data: bytes | str) -> Any:
    return json.loads(data, parse_float=Decimal)


def test_the_tickets_are_noisy_as_floats() -> None:
    """The rows would catch noise: for every `by` some figure of the floats' own sums is not
    the float nearest the exact figure, and every figure is so in some group."""
    noisy: set[str] = set()
    for by in BYS:
        pairs = zip(grouped(ROWS, by.split(","), ON, _floats),
                    grouped(ROWS, by.split(","), ON, weighing), strict=True)
        found = {k for sums, exact in pairs for k in FIGURES if sums[k] != exact[k]}
        assert found, by
        noisy |= found
    assert noisy == set(FIGURES)


def test_json_digit_for_digit(shared: Any) -> None:
    client = shared(TABLES)
    for by in BYS:
        got = client.get(f"/transactions/summary/{RANGE}?by={by}")
        assert got.status_code == 200, got.get_json()
        body = _exact_json(got.data)
        assert body == expected(by), by
        assert got.get_json() == grouped(ROWS, by.split(","), ON, weighing)
        for g in body:
            if g["net"] is not None:
                assert g["net"] - g["deduction"] == g["net_after_deduction"]
        written = re.findall(rb'"(?:net|net_min|net_max|deduction|net_after_deduction)"'
                             rb':([^,}]*)', got.data)
        assert written and all(w == b"null" or WRITTEN.fullmatch(w.decode())
                               for w in written), written


def _cells_agree(header: list[str], row: list[str], want: dict[str, Any]) -> None:
    assert header == list(want)
    for name, cell in zip(header, row, strict=True):
        value = want[name]
        if isinstance(value, Decimal):
            assert WRITTEN.fullmatch(cell) and Decimal(cell) == value, (name, cell, value)
        else:
            assert cell == ("" if value is None else str(value)), (name, cell, value)


def test_csv_and_csv_sheet(shared: Any) -> None:
    client = shared(TABLES)
    for fmt in ("csv", "csv-sheet"):
        for by in BYS:
            got = client.get(f"/transactions/summary/{RANGE}?by={by}&format={fmt}")
            assert got.status_code == 200, got.data
            header, *lines = list(csv.reader(io.StringIO(got.get_data(as_text=True))))
            want = expected(by)
            assert len(lines) == len(want)
            for line, group in zip(lines, want, strict=True):
                _cells_agree(header, line, group)


def test_workbook_cells(shared: Any) -> None:
    client = shared(TABLES)
    for by in ("day,productcode", "direction"):
        got = client.get(f"/transactions/summary/{RANGE}?by={by}&format=xlsx")
        assert got.status_code == 200, got.data
        sheet = openpyxl.load_workbook(io.BytesIO(got.data))["summary"]
        [_, *rows] = [list(r) for r in sheet.iter_rows(values_only=True)]
        want = expected(by)
        figures = [[float(g[k]) if g[k] is not None else None for k in FIGURES] for g in want]
        assert [r[-len(FIGURES):] for r in rows] == figures
        assert all(type(v) is float for r in rows for v in r[-len(FIGURES):] if v is not None)
        xml = zipfile.ZipFile(io.BytesIO(got.data)).read("xl/worksheets/sheet1.xml").decode()
        numbers = re.findall(r"<v>([^<]*)</v>", xml)
        assert numbers and all(re.fullmatch(r"-?[0-9]+(\.[0-9]{1,3})?", n) for n in numbers)


def _mcp(client: FlaskClient, name: str, arguments: dict[str, Any]) -> Any:
    """A tool's answer, as its text content says it (numbers read as Decimals)."""
    response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": name, "arguments": arguments}},
                           headers={"Accept": "application/json, text/event-stream",
                                    "MCP-Protocol-Version": "2025-11-25"})
    assert response.status_code == 200, response.data
    result = response.get_json()["result"]
    assert not result.get("isError"), result
    return _exact_json(result["content"][0]["text"])


def test_the_mcp_summarize_tool(shared: Any) -> None:
    client = shared(TABLES)
    for by in BYS:
        got = _mcp(client, "summarize", {"collection": "transactions", "from": DAYS[0],
                                         "to": DAYS[1], "by": by.split(",")})
        assert got["groups"] == expected(by), by


def _day_totals(day: str) -> dict[str, Any]:
    """A weighbridge's totals in the daily report, from the rows: in and out apart."""
    rows = [r for r in TICKETS if r["tgl_dt1"] == day]
    out: dict[str, Any] = {"records": len(rows)}
    out["weighed"] = sum(1 for r in rows if r["weigh1"] is not None and r["weigh2"] is not None)
    out["open"] = out["records"] - out["weighed"]
    for side in ("in", "out"):
        figures = exact_weighing([r for r in rows if direction(r) == side])
        out[side] = figures["net"] or Decimal(0)
        out[f"{side}_after_deduction"] = figures["net_after_deduction"] or Decimal(0)
    return {k: out[k] for k in ("records", "weighed", "open", "in", "in_after_deduction",
                                "out", "out_after_deduction")}


def test_the_daily_reports_totals(shared: Any) -> None:
    client = shared(TABLES)
    for day in DAYS:
        want = _day_totals(day)
        got = client.get(f"/report/{day}.json")
        assert got.status_code == 200, got.data
        report = _exact_json(got.data)
        [bridge] = [w for w in report["weighbridges"] if w["collection"] == "transactions"]
        assert bridge["totals"] == want
        assert report["totals"] == want  # the other weighbridges are empty
        materials = {m["code"]: m["net"] for m in bridge["in"]["materials"]}
        assert materials == {g["productcode"]: g["net"] for g in expected(
            "productcode", [r for r in ROWS if r["tgl_dt1"] == day and direction(r) == "in"])}
        assert _mcp(client, "daily_report", {"date": day})["totals"] == want


# A deduction kept as a percent and worked out in the mapping (docs/adapting.md, "Net after
# deduction"): in floating point each of these is noisy (273.02000000000004, 570.8599999999999)
# though its exact value has two decimals.
PERCENTS = [{"id": n, "tgl_dt1": DAYS[0], "jam_dt1": f"{n:02d}:00:00", "weigh1": w1,
             "weigh2": w2, "adjustunit": pct, "productcode": "TBS"}
            for n, (w1, w2, pct) in enumerate([(31020.0, 6200.0, 1.1), (31020.0, 6200.0, 2.3),
                                               (31020.0, 8070.0, 4.6), (31020.0, 8070.0, 0.7),
                                               (22010.0, 9890.0, None)], 1)]
PERCENT = 'ABS("weigh1" - "weigh2") * "adjustunit" / 100.0'


def _mapped(tmp_path: Path, line: str) -> Path:
    """The shipped sql/ with transactions' adjustweigh line written as `line`."""
    site = tmp_path / "site-sql"
    site.mkdir(exist_ok=True)
    text = (SHIPPED_SQL_DIR / "transactions.sql").read_text()
    shipped = '    "adjustweigh" AS "adjustweigh",\n'
    assert shipped in text
    (site / "transactions.sql").write_text(text.replace(shipped, f"    {line},\n"))
    return site


def _kg(row: dict[str, Any]) -> float | None:
    """The percent's kilograms as the engines work them out: in binary floating point."""
    if row["adjustunit"] is None:
        return None
    return abs(row["weigh1"] - row["weigh2"]) * row["adjustunit"] / 100.0


def test_a_percent_worked_out_in_the_mapping(make_client: Any, engine: str,
                                             tmp_path: Path) -> None:
    """A record is sent as the database gives it: the mapping's float arithmetic with its
    noise, unless the mapping rounds it as docs/adapting.md says (ROUND(..., 3)); the
    summary counts each deduction to the gram either way (docs/api.md §4, §7)."""
    if engine == "postgresql":
        pytest.skip("PostgreSQL has no ROUND(double precision, int): a mapping there CASTs "
                    "to numeric (the advice is SQL Server's, which SQLite shares)")
    assert any(repr(_kg(r)) != str(grams(_kg(r)).normalize()) for r in PERCENTS if _kg(r))
    for line, sent in ((f'{PERCENT} AS "adjustweigh"', _kg),
                       (f'ROUND({PERCENT}, 3) AS "adjustweigh"',
                        lambda r: None if _kg(r) is None else float(grams(_kg(r))))):
        client = make_client({"transactions": PERCENTS}, collections={"serve": [
            "transactions"]}, database={"sql_dir": str(_mapped(tmp_path, line))})
        got = client.get("/transactions?fields=id,adjustweigh")
        assert got.status_code == 200, got.data
        if engine == "odbc":  # the SQLite ODBC driver gives a REAL to 15 digits (CONTRIBUTING)
            assert got.get_json() == [{"id": r["id"], "adjustweigh": None if sent(r) is None
                                       else float(f"{sent(r):.15g}")} for r in PERCENTS]
        else:
            assert got.get_json() == [{"id": r["id"], "adjustweigh": sent(r)} for r in PERCENTS]
        summary = client.get(f"/transactions/summary/{RANGE}?by=day")
        as_kg = [r | {"adjustweigh": _kg(r)} for r in PERCENTS]
        assert _exact_json(summary.data) == grouped(as_kg, ["day"], ON, exact_weighing)
