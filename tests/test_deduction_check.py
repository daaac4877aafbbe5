"""check-sql on the deduction's sign (docs/adapting.md "The deduction's sign"): the sampled
records' adjustweigh against their nets. Every deduction negative, or every one more than its
net, is an error naming the mapping's line (exit 1); some negative, some more than the net, or
values that look like a percent, a warning (exit 0). Each expected line is written here from
the rows the test inserts and the line of the site's file.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app import create_app
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import build_database

SHIPPED_LINE = '    "adjustweigh" AS "adjustweigh",'


def _ticket(n: int, w1: float | None, w2: float | None, cut: float | None) -> dict[str, Any]:
    return {"id": n, "tgl_dt1": "2026-11-20", "jam_dt1": f"{6 + n:02d}:00:00", "weigh1": w1,
            "weigh2": w2, "adjustweigh": cut}


def check(tmp_path: Path, tickets: list[dict[str, Any]], line: str = SHIPPED_LINE,
          copy: str = "") -> tuple[int, str, str]:
    """(exit code, output, where the mapping gives adjustweigh) of check-sql transactions
    over these tickets, the site's adjustweigh written as `line`; `copy` names a column the
    site's table has beside, holding each ticket's adjustweigh."""
    site = tmp_path / "site-sql"
    site.mkdir()
    text = (SHIPPED_SQL_DIR / "transactions.sql").read_text()
    assert SHIPPED_LINE in text
    (site / "transactions.sql").write_text(text.replace(SHIPPED_LINE, line))
    shutil.copy(SHIPPED_SQL_DIR / "shapes.sql", site)
    shutil.copy(SHIPPED_SQL_DIR / "database.sql", site)
    lines = (site / "transactions.sql").read_text().splitlines()
    number = next(i for i, text in enumerate(lines, 1) if text == line)
    where = f"{site / 'transactions.sql'}:{number}: {line.strip()}"
    database = build_database(tmp_path / "site.sqlite3", {"transactions": tickets})
    if copy:
        with sqlite3.connect(database) as con:
            con.execute(f'ALTER TABLE transactions ADD COLUMN "{copy}" NUMERIC')
            con.execute(f'UPDATE transactions SET "{copy}" = adjustweigh')
        con.close()
    app = create_app({"database": {"sqlite": str(database), "sql_dir": str(site)},
                      "collections": {"serve": ["transactions"]}})
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    return result.exit_code, result.output, where


def said(output: str) -> list[str]:
    """The lines check-sql says of adjustweigh, each as one line (the output wraps none)."""
    return [line.strip() for line in output.splitlines() if "adjustweigh:" in line]


def records_status(output: str) -> str:
    found = re.search(r"^  records +(\w+)", output, re.M)
    assert found, output
    return found[1]


# Mill tickets: TBS delivered (in) with sortasi in kg, one without (NULL), one with none (0),
# an open one whose deduction is read nowhere, a dispatch.
KG = [_ticket(1, 24500.0, 9500.0, 450.0), _ticket(2, 22000.0, 8000.0, None),
      _ticket(3, 30000.0, 10000.0, 600.0), _ticket(4, 21000.0, None, -75.0),
      _ticket(5, 11000.0, 36500.0, 0.0), _ticket(6, 28000.0, 9000.0, 380.0)]


def test_deductions_in_kg_pass(tmp_path: Path) -> None:
    code, output, _ = check(tmp_path, KG)
    assert code == 0, output
    assert said(output) == [] and records_status(output) == "OK"


def _negated(tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t | {"adjustweigh": None if t["adjustweigh"] is None else -t["adjustweigh"]}
            for t in tickets]


def test_deductions_stored_negative_are_an_error(tmp_path: Path) -> None:
    code, output, where = check(tmp_path, _negated(KG))
    assert code == 1, output
    assert records_status(output) == "ERROR"
    assert said(output) == [
        "adjustweigh: every sampled deduction is negative (-450 on id 1 (net 15,000 kg), "
        "-600 on id 3 (net 20,000 kg), -380 on id 6 (net 19,000 kg)); adjustweigh is the "
        "kilograms deducted, a positive number, so net_after_deduction would be more than "
        'net: where the program stores deductions negative, write -(its column) AS '
        f'"adjustweigh"; it comes from {where}']


def test_the_same_mapped_with_its_sign_turned_passes(tmp_path: Path) -> None:
    code, output, _ = check(tmp_path, _negated(KG), '    -"adjustweigh" AS "adjustweigh",')
    assert code == 0, output
    assert said(output) == []


def test_some_negative_or_more_than_the_net_are_warnings(tmp_path: Path) -> None:
    tickets = [*KG, _ticket(7, 26000.0, 9000.0, -120.0), _ticket(8, 12000.0, 11800.0, 250.0)]
    code, output, where = check(tmp_path, tickets)
    assert code == 0, output
    assert records_status(output) == "OK"
    assert said(output) == [
        "Warning: adjustweigh: 1 of 5 sampled deductions are negative (-120 on id 7 (net "
        "17,000 kg)), and each adds to its net after deduction; adjustweigh is the "
        f"kilograms deducted, a positive number; it comes from {where}",
        "Warning: adjustweigh: 1 of 5 sampled deductions are more than their ticket's net "
        "(250 on id 8 (net 200 kg)), so its net after deduction is negative; it comes from "
        f"{where}"]


def test_every_deduction_more_than_its_net_is_an_error(tmp_path: Path) -> None:
    grams = [_ticket(1, 24500.0, 9500.0, 450000.0), _ticket(2, 30000.0, 10000.0, 600000.0)]
    code, output, where = check(tmp_path, grams)
    assert code == 1, output
    assert said(output) == [
        "adjustweigh: every sampled deduction is more than its ticket's net (450,000 on id 1 "
        "(net 15,000 kg), 600,000 on id 2 (net 20,000 kg)): not kilograms deducted from this "
        f"ticket (grams? a weight?); it comes from {where}"]


PERCENT = [_ticket(1, 24500.0, 9500.0, 3.0), _ticket(2, 22000.0, 8000.0, 2.5),
           _ticket(3, 30000.0, 10000.0, 5.0), _ticket(4, 11000.0, 36500.0, 0.0)]


def test_a_percent_where_kg_are_meant_is_a_warning(tmp_path: Path) -> None:
    code, output, where = check(tmp_path, PERCENT)
    assert code == 0, output
    nets = sorted(abs(t["weigh1"] - t["weigh2"]) for t in PERCENT if t["adjustweigh"])
    assert said(output) == [
        "Warning: adjustweigh: every sampled deduction is between 2.5 and 5 while the nets "
        f"are thousands of kg (median {nets[1]:,.0f} kg): if the program stores a percent, "
        "map the kilograms it means, e.g. ABS(<weigh1's column> - <weigh2's column>) * <its "
        'column> / 100.0 AS "adjustweigh" (docs/adapting.md, "Net after deduction"); it '
        f"comes from {where}"]


@pytest.mark.parametrize("line", [
    '    ABS("weigh1" - "weigh2") * "adjustweigh" / 100 AS "adjustweigh",',
    '    CAST(NULL AS float) AS "adjustweigh",'])
def test_the_percent_mapped_as_kg_or_no_deduction_pass(tmp_path: Path, line: str) -> None:
    code, output, _ = check(tmp_path, PERCENT, line)
    assert code == 0, output
    assert said(output) == []


def test_two_small_deductions_say_nothing(tmp_path: Path) -> None:
    """Fewer than three: 40 kg on a truck is a deduction as likely as a percent."""
    code, output, _ = check(tmp_path, PERCENT[1:])
    assert code == 0 and said(output) == [], output


@pytest.mark.parametrize("tickets", [PERCENT, KG], ids=["percents", "kilograms"])
def test_a_column_named_for_a_percent_given_as_it_is_is_an_error(
        tmp_path: Path, tickets: list[dict[str, Any]]) -> None:
    """POT_PERSEN as adjustweigh: whatever its values, a percent taken for kilograms."""
    code, output, where = check(tmp_path, tickets, '    "POT_PERSEN" AS "adjustweigh",',
                                copy="POT_PERSEN")
    assert code == 1, output
    assert records_status(output) == "ERROR"
    assert said(output) == [
        'adjustweigh: "POT_PERSEN" is a percent by its name, given as it is: adjustweigh is '
        "the kilograms deducted, so every summary's deduction and net_after_deduction would "
        "take its percents for kilograms; map the kilograms it means, ABS(<weigh1's column> - "
        '<weigh2\'s column>) * "POT_PERSEN" / 100.0 AS "adjustweigh" (docs/adapting.md, "Net '
        f'after deduction"); it comes from {where}']


def test_the_kilograms_a_named_percent_means_pass(tmp_path: Path) -> None:
    line = '    ABS("weigh1" - "weigh2") * "POT_PERSEN" / 100.0 AS "adjustweigh",'
    code, output, _ = check(tmp_path, PERCENT, line, copy="POT_PERSEN")
    assert code == 0, output
    assert said(output) == []
