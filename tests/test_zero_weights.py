"""A weighing not made, written as 0 (docs/adapting.md "A weighing not made, written as 0"):
a palm-oil mill's weighbridge program writes BERAT_2 = 0 (and NETTO = 0) for a truck not
weighed out yet. check-sql counts the weights of 0 or less and names the first records, and
the URL it gives lists exactly them; draft-mapping reads such a column NULLIF(col, 0) where
its sampled values hold zeros beside weights in the thousands, and the draft so read serves
the open tickets with no second weight. On every engine.

The rows are tickets of that mill (its table TR_TIMBANG, columns and values as its program
writes them: an open ticket's BERAT_2 is 0, or NULL on an older version of the program);
every expected line is worked out here from them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app import create_app
from tests.conftest import FILE_ENGINES, open_database
from tests.test_draft_mapping import SERVED, draft, plant_database, selected

# (NO_TIKET, TANGGAL, JAM_MASUK, JAM_KELUAR, NOPOL, KD_BARANG, BERAT_1, BERAT_2, NETTO)
MILL = [
    ("TK/2610/0145", "2026-10-13 00:00:00", "16:57", "17:54", "BM 8340 XY", "TBS   ", 20876,
     9259, 11617),
    ("TK/2610/0146", "2026-10-13 00:00:00", "17:48", "18:41", "BM 8471 XY", "PK    ", 9956,
     28356, 18400),
    # The operator corrected its printed net: 12,603, not |20,527 - 7,804| = 12,723.
    ("TK/2610/0147", "2026-10-13 00:00:00", "19:37", "20:18", "BM 9032 RZ", "TBS   ", 20527,
     7804, 12603),
    ("TK/2610/0186", "2026-10-17 00:00:00", "07:55", None, "BM 9216 CD", "TBS   ", 15222, 0, 0),
    ("TK/2610/0228", "2026-10-21 00:00:00", "21:36", None, "BM 9447 CD", "TBS   ", 18034, None,
     None),
    ("TK/2610/0268", "2026-10-25 00:00:00", "09:50", None, "BM 9788 KL", "TBS   ", 22324, 0, 0),
    ("TK/2610/0289", "2026-10-28 00:00:00", "07:09", None, "BM 9843 TU", "CPO   ", 12445, 0, 0),
    ("TK/2610/0290", "2026-10-28 00:00:00", "07:57", "10:19", "BM 9841 RZ", "JJK   ", 6926,
     11727, 4801),
]
# The mill's DDL (schema_sqlserver.sql), as SQLite, PostgreSQL and SQL Server type it.
TABLE = "TR_TIMBANG"
COLUMNS = [("NO_TIKET", "VARCHAR(15)", "VARCHAR(15)", "varchar(15)"),
           ("TANGGAL", "DATETIME", "TIMESTAMP", "smalldatetime"),
           ("JAM_MASUK", "CHAR(5)", "CHAR(5)", "char(5)"),
           ("JAM_KELUAR", "CHAR(5)", "CHAR(5)", "char(5)"),
           ("NOPOL", "VARCHAR(12)", "VARCHAR(12)", "varchar(12)"),
           ("KD_BARANG", "CHAR(6)", "CHAR(6)", "char(6)"),
           ("BERAT_1", "INT", "INT", "int"), ("BERAT_2", "INT", "INT", "int"),
           ("NETTO", "INT", "INT", "int")]
NAMES = [name for name, *_ in COLUMNS]
ROWS = [dict(zip(NAMES, ticket, strict=True)) for ticket in MILL]

OCTOBER = "2026-10-01/00:00/2026-10-31/23:59:59"
ZERO = ("a weighing not made written as 0? Such a ticket counts as weighed, its net the "
        "whole other weight: map it NULLIF(col, 0) (docs/adapting.md \"A weighing not made, "
        "written as 0\")")


def tickets(first_id: int = 1) -> list[dict[str, Any]]:
    """The mill's tickets as rows of the seed's transactions table, numbered in order."""
    return [{"id": n, "tgl_dt1": row["TANGGAL"][:10], "jam_dt1": row["JAM_MASUK"] + ":00",
             "vehno": row["NOPOL"], "productcode": row["KD_BARANG"].strip(),
             "weigh1": float(row["BERAT_1"]),
             "weigh2": None if row["BERAT_2"] is None else float(row["BERAT_2"])}
            for n, row in enumerate(ROWS, first_id)]


def warned(output: str, label: str) -> list[str]:
    """The lines check-sql prints under one WARNING label of a collection."""
    after = output.split(f"  {label:<22} WARNING\n", 1)[1].splitlines()
    return [line.strip() for line in after[:next(
        (i for i, line in enumerate(after) if not line.startswith("      ")), len(after))]]


def test_check_sql_counts_and_names_the_weights_of_0(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> None:
    rows = tickets() + [{"id": 9, "tgl_dt1": "2026-10-29", "jam_dt1": "08:00:00",
                         "weigh1": -40.0, "weigh2": 9000.0}]  # a scale's negative zero
    database = open_database(request, engine, {"transactions": rows}, tmp_path / "s.sqlite3")
    app = create_app({"database": database, "collections": {"serve": ["transactions"]}})
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 0, result.output  # a warning, not a failure
    want = []
    for field in ("weigh1", "weigh2"):
        ids = [r["id"] for r in rows if r[field] is not None and r[field] <= 0]
        if ids:
            want.append(f"{len(ids)} record{'s' if len(ids) != 1 else ''} with {field} 0 or "
                        f"less ({ZERO}; cancelled ones included): id "
                        f"{', '.join(map(str, ids[:5]))}. List them: "
                        f"/transactions?{field}__lte=0")
    assert warned(result.output, "weights of 0") == want
    client = app.test_client()
    for line in want:  # each URL lists exactly the records counted
        url = line.rsplit("List them: ", 1)[1]
        field = url.split("?")[1].split("__")[0]
        got = client.get(url)
        assert got.status_code == 200, got.get_data(as_text=True)
        assert [r["id"] for r in got.get_json()] == [
            r["id"] for r in rows if r[field] is not None and r[field] <= 0]


def test_no_weight_of_0_no_warning(request: pytest.FixtureRequest, engine: str,
                                   tmp_path: Path) -> None:
    rows = [r for r in tickets() if r["weigh2"] != 0]
    database = open_database(request, engine, {"transactions": rows}, tmp_path / "s.sqlite3")
    app = create_app({"database": database, "collections": {"serve": ["transactions"]}})
    result = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    assert result.exit_code == 0, result.output
    assert "weights of 0" not in result.output


def test_the_draft_reads_a_weight_written_0_as_null(
        request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> None:
    database, schema = plant_database(request, engine, tmp_path, TABLE, COLUMNS, ROWS)
    done = draft(database, f"{schema}.{TABLE}" if schema else TABLE,
                 "--collection", "transactions")
    assert done.exit_code == 0, done.output
    lines = selected(done.stdout)
    weights = [r["BERAT_2"] for r in ROWS if r["BERAT_2"] is not None]
    zeros = sum(w == 0 for w in weights)
    assert lines["weigh1"] == ('"BERAT_1"', "trade word (BERAT_1)")  # no zero: as it is
    assert lines["weigh2"] == (
        'NULLIF("BERAT_2", 0)',
        f"trade word (BERAT_2); NULLIF: {zeros} of {len(weights)} sampled values are 0 "
        f"beside weights up to {max(weights)}: a weighing not made yet, written as 0, is "
        f"read as NULL (docs/adapting.md \"A weighing not made, written as 0\")")
    if engine not in FILE_ENGINES:
        return
    # Served as drafted (its TODOs kept as NULL): the open tickets have no second weight,
    # and October's weighed net is that of the tickets weighed out.
    sql_dir = tmp_path / "site-sql"
    sql_dir.mkdir()
    settled = "\n".join(line.split(" -- TODO")[0] for line in done.stdout.splitlines())
    (sql_dir / "transactions.sql").write_text(settled + "\n", encoding="utf-8")
    app = create_app({"database": database | SERVED | {"sql_dir": str(sql_dir)},
                      "collections": {"serve": ["transactions"]}})
    client = app.test_client()
    got = client.get(f"/transactions/date/{OCTOBER}")
    assert got.status_code == 200, got.get_data(as_text=True)
    assert [(r["recno"], r["weigh2"]) for r in got.get_json()] == [
        (r["NO_TIKET"], None if not r["BERAT_2"] else r["BERAT_2"]) for r in ROWS]
    summary = client.get(f"/transactions/summary/{OCTOBER}")
    assert summary.status_code == 200, summary.get_data(as_text=True)
    checked = app.test_cli_runner().invoke(args=["check-sql", "transactions"])
    # (Its exit status is the queries' and the proof's: the draft's own lines, not these.)
    # NETTO is left unused: the tickets weighed twice whose printed net is not the weights'.
    twice = [r for r in ROWS if r["BERAT_1"] and r["BERAT_2"] and r["NETTO"] is not None]
    differ = [f'{r["NO_TIKET"]} ({r["NETTO"]}, not {abs(r["BERAT_1"] - r["BERAT_2"])})'
              for r in twice if r["NETTO"] != abs(r["BERAT_1"] - r["BERAT_2"])]
    assert warned(checked.output, "printed net") == [
        f'"NETTO", a net the program prints, unused by the mapping, is not |weigh1 - weigh2| '
        f"(Jembatan's net) on {len(differ)} of {len(twice)} rows weighed twice of the first "
        f"1000 of the table (by NO_TIKET): {', '.join(differ)}. Where the plant's books add "
        f'up the printed net, reconcile these tickets (docs/adapting.md "A printed net '
        f'beside the weights")']
    want = []
    for day in sorted({r["TANGGAL"][:10] for r in ROWS}):
        of_day = [r for r in ROWS if r["TANGGAL"][:10] == day]
        out = [abs(r["BERAT_1"] - r["BERAT_2"]) for r in of_day if r["BERAT_2"]]
        want.append((day, len(of_day), len(out), float(sum(out)) if out else None))
    assert [(d["day"], d["records"], d["weighed"], d["net"])
            for d in summary.get_json()] == want
