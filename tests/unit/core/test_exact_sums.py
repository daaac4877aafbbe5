"""Exact figures (docs/api.md §7, "Exact figures"; §4): a weighing summary run on a SQLite
file of noisy rows gives its weights as exact Decimals of three places (summed in whole
grams by sql/shapes.sql's SQLite text), and a Decimal is written digit for digit in JSON and
CSV. The expected figures are worked out with Decimal from the rows."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import orjson

from app.core.plan import Planner
from app.core.reads import Runner
from app.database.db import Database
from app.database.queries import Queries
from app.formats.encoding import csv_cell, decimal_text, dumps
from app.model import params
from app.ops.config import load_settings
from tests.unit.rows import collection, database_file

DAY = "2026-11-20"
# Deductions of 0.1 kg, whose float sum is 0.30000000000000004 by the third, and nets whose
# float differences are noisy (15052.149999999998); one value past the gram, rounded half
# away from zero as written (2.0005 -> 2.001); one ticket not weighed out.
TICKETS = [{"id": n, "tgl_dt1": DAY, "jam_dt1": f"{n:02d}:00:00", "weigh1": w1, "weigh2": w2,
            "adjustweigh": cut}
           for n, (w1, w2, cut) in enumerate([
               (20074.3, 5022.15, 0.1), (20111.6, 5033.85, 0.1), (20148.9, 5044.55, 0.1),
               (7000.0, 31234.5675, 2.0005), (20000.0, None, 0.1)], 1)]


def _grams(kg: float) -> Decimal:
    return Decimal(f"{kg:.15g}").quantize(Decimal("0.001"), ROUND_HALF_UP)


def test_a_days_weights_are_exact_decimals(tmp_path: Path, queries: Queries) -> None:
    weighed = [r for r in TICKETS if r["weigh2"] is not None]
    nets = [_grams(abs(r["weigh1"] - r["weigh2"])) for r in weighed]
    cuts = [_grams(r["adjustweigh"]) for r in weighed]
    assert sum(abs(r["weigh1"] - r["weigh2"]) for r in weighed) != float(sum(nets))  # noisy
    settings = load_settings({"database": {"sqlite": str(database_file(
        tmp_path / "db.sqlite3", {"transactions": TICKETS}))}}).database
    read = Planner(collection("transactions")).summary(
        "dt1", params.date_range(DAY, "00:00:00", DAY, "23:59:59"))
    rows = Runner(Database(settings, queries)).run(read)
    assert rows.values == [(DAY, len(TICKETS), len(weighed), sum(nets), min(nets), max(nets),
                            sum(cuts), sum(nets) - sum(cuts))]
    assert all(type(v) is Decimal for v in rows.values[0][3:])


def test_a_decimal_is_written_digit_for_digit() -> None:
    """As a float's shortest text is (one decimal at least, no exponent), but exact at any
    length."""
    cases: list[tuple[Any, str]] = [
        (Decimal("63804.775"), "63804.775"), (Decimal("48630.000"), "48630.0"),
        (Decimal("1508.250"), "1508.25"), (Decimal("0.000"), "0.0"), (Decimal("-0.000"), "0.0"),
        (Decimal("-1.001"), "-1.001"), (Decimal("1E+3"), "1000.0"),
        (Decimal("0.001"), "0.001"),
        (Decimal("9007199254740993.125"), "9007199254740993.125")]
    for value, text in cases:
        assert decimal_text(value) == text
        assert dumps({"net": value}) == b'{"net":' + text.encode() + b"}"
        assert csv_cell(value) == text
        assert orjson.loads(dumps(value)) == float(value)  # a JSON reader's nearest float
