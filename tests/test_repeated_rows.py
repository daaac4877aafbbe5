"""Rows a keyless table holds twice are two records, not a mapping error
(app/core/proof.py, docs/adapting.md "Rows a keyless table holds twice"): a batch table
(bricon2, numbered by numberrow) holding two identical rows, as a batch controller writes them
when it sends a record twice, passes check-sql (every read finds both copies, as `records`
holds them) and is served with both; where `records` joins another table, a record given
twice may be the JOIN's doing, which check-sql still refuses, naming both causes.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from app import create_app
from app.ops.config import SHIPPED_SQL_DIR
from tests.helpers import records

ON = "2026-11-24"


def batch(n: int, clock: str, **extra: Any) -> dict[str, Any]:
    return {"no_produksi": n, "no_produksi_": 1, "tanggal": ON, "jam": clock, "recipe": 3,
            "operator_name": f"op{n}", "adonan_sv": 100 + n, "adonan_pv": 99 + n} | extra


TWICE = batch(2, "08:00:00")
ROWS = [batch(1, "07:00:00"), TWICE, dict(TWICE), batch(3, "09:00:00")]  # canonical order


def check(settings: dict[str, Any]) -> tuple[int, str]:
    app = create_app({"database": settings, "collections": {"serve": ["bricon2"]}})
    result = app.test_cli_runner().invoke(args=["check-sql", "bricon2"])
    return result.exit_code, result.output


def proof_lines(output: str) -> list[str]:
    """The proof's line of bricon2's section and the findings under it."""
    section = output.split("\nbricon2 (", 1)[1].split("\n\n", 1)[0].split("\n")
    start = next(i for i, line in enumerate(section) if line.startswith("  proof on "))
    return [line.strip() if i else line for i, line in enumerate(section[start:])]


def test_a_row_the_table_holds_twice_is_two_records(make_database: Any) -> None:
    database = make_database({"bricon2": ROWS})
    code, output = check(database)
    assert code == 0, output
    # Three distinct records, each asked of every read; the repeated one found twice by each.
    assert proof_lines(output) == ["  proof on 3 records     OK"]
    client = create_app({"database": database | {"prove_on_first_read": True},
                         "collections": {"serve": ["bricon2"]}}).test_client()
    whole = client.get("/bricon2")
    assert whole.status_code == 200 and whole.get_json() == records("bricon2", ROWS)
    day = client.get(f"/bricon2/date/{ON}/08:00/{ON}/08:00")
    # A range numbers no record (docs/api.md §2): both copies, numberrow null.
    assert day.status_code == 200 and day.get_json() == [
        r | {"numberrow": None} for r in records("bricon2", ROWS)[1:3]]
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}


def test_a_join_that_repeats_a_keyless_record_is_still_refused(make_database: Any,
                                                              tmp_path: Path) -> None:
    """The same table read through a JOIN to products, where two products share a code:
    every batch comes out twice, which the proof cannot tell from rows held twice, so it
    says both and check-sql fails."""
    rows = [batch(1, "07:00:00", operator_name="P1"), batch(3, "09:00:00")]
    database = make_database({
        "bricon2": rows,
        "products": [{"id": 1, "ProductCode": "P1", "ProductName": "Pasir"},
                     {"id": 2, "ProductCode": "P1", "ProductName": "Pasir (kode lama)"}]})
    site = tmp_path / "site"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    path = site / "bricon2.sql"
    text = path.read_text(encoding="utf-8")
    for field in ("no_produksi", "tanggal", "jam", "recipe", "operator_name"):
        text = text.replace(f'    "{field}" AS', f'    "b"."{field}" AS')
    text = text.replace('FROM "bricon2";', 'FROM "bricon2" AS "b"\n    LEFT JOIN "products" '
                                           'AS "p" ON "p"."ProductCode" = "b"."operator_name";')
    path.write_text(text, encoding="utf-8")
    code, output = check(database | {"sql_dir": str(site)})
    assert code == 1, output
    cause = (f"the records query gives this record 2 times: its JOIN matches more than one "
             f"row (join on a column that is unique), or the table holds the row 2 times, "
             f"which the proof cannot tell apart where records joins; see {path}:1")
    assert proof_lines(output) == [
        "  proof on 2 records     ERROR",
        f"tanggal: the range on=tanggal from its own moment to it finds more than once "
        f"numberrow 1: {cause}",
        f"tanggal: the range on=tanggal from a day before its moment to it (across the "
        f"midnight before it), paged finds more than once numberrow 1: {cause}",
        f"tanggal: the feed (/bricon2/changes?on=tanggal) from its stamp finds more than once "
        f"numberrow 1: {cause}"]
