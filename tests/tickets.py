"""The worked example docs/examples/names, for the tests that serve it: its ticket table
TBL_TIMBANG (names on the ticket, no master tables), the tickets, and a site serving
transactions alone from them (tests/test_names_file.py; the pages' browser tests)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import site_table
from tests.helpers import Masters, exactly, name_of

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "names"

# The ticket table of the example, as SQL Server types.
TICKET_COLUMNS = {
    "NoUrut": "int", "NoTiket": "nvarchar(20)", "NoPol": "nvarchar(15)",
    "KodeBarang": "nvarchar(20)", "NamaBarang": "nvarchar(60)",
    "KodeRelasi": "nvarchar(20)", "NamaRelasi": "nvarchar(60)", "Sopir": "nvarchar(40)",
    "TglMasuk": "date", "JamMasuk": "time(0)", "TglKeluar": "date", "JamKeluar": "time(0)",
    "BeratMasuk": "float", "BeratKeluar": "float"}


def ticket(n: int, product: str | None, material: str | None, party: str | None,
           name: str | None, weigh1: float, weigh2: float | None,
           day: str = "2026-03-10", time: str = "08:00:00") -> dict[str, Any]:
    return {"NoUrut": n, "NoTiket": f"TB-2603-{n:04d}", "NoPol": f"L {9000 + n} AB",
            "KodeBarang": product, "NamaBarang": material, "KodeRelasi": party,
            "NamaRelasi": name, "Sopir": "Slamet", "TglMasuk": day, "JamMasuk": time,
            "TglKeluar": None if weigh2 is None else day,
            "JamKeluar": None if weigh2 is None else "09:00:00",
            "BeratMasuk": weigh1, "BeratKeluar": weigh2}


# Names that order alike under every collation the engines use (one a prefix of the other,
# or differing in a first letter of the same case): the least is the same everywhere.
TICKETS = [
    # RM001 with two names (retyped on a later ticket): the least, "Pasir Lumajang"
    ticket(1, "RM001", "Pasir Lumajang Halus", "SUP-1", "CV Sumber Rejeki Pasir", 30120, 10000),
    ticket(2, "RM001", "Pasir Lumajang", "SUP-1", "CV Sumber Rejeki", 25000, 9800,
           time="10:15:00"),
    # RM002 never named: null
    ticket(3, "RM002", None, "SUP-2", None, 28000, 9000, day="2026-03-09"),
    ticket(4, "RM002", None, "SUP-2", None, 26000, None),
    # FG001 named on one ticket of two (a dispatch)
    ticket(5, "FG001", None, "CUS-1", "Toko Bangunan Jaya", 9000, 31450),
    ticket(6, "FG001", "Bata Ringan 10 cm", "CUS-1", None, 10000, 20000, day="2026-03-11"),
    # no code: a group of its own, never named, though the ticket has names
    ticket(7, None, "Tanpa kode", None, "Tanpa relasi", 12000, 4500),
    # RM003 named only on a ticket outside the range: the names are read from every ticket
    ticket(8, "RM003", None, "SUP-3", None, 15000, 5000),
    ticket(9, "RM003", "Semen Gresik", "SUP-3", "PT Semen Gresik", 15000, 5000,
           day="2026-02-01"),
    # outside the range, codes that equal RM002 and SUP-2 on SQL Server alone (lower case):
    # named there, as the master lookup names them (name_of). Not a trailing blank: a code
    # sent trimmed must be found by a filter of what was sent, which on SQLite and PostgreSQL
    # takes a mapping that trims it (tests/test_text_codes.py)
    ticket(10, "rm002", "Kapur Tohor", "sup-2", "UD Kapur Jaya", 9000, 3000,
           day="2026-01-15"),
]


def contract_row(t: dict[str, Any]) -> dict[str, Any]:
    """The ticket as the example's transactions.sql sends it (the fields summaries read)."""
    return {"id": t["NoUrut"], "productcode": t["KodeBarang"], "custcode": t["KodeRelasi"],
            "transcode": None, "tgl_dt1": t["TglMasuk"], "jam_dt1": t["JamMasuk"],
            "weigh1": float(t["BeratMasuk"]),
            "weigh2": None if t["BeratKeluar"] is None else float(t["BeratKeluar"])}


def masters(tickets: list[dict[str, Any]]) -> Masters:
    """The names the example's names.sql gives: every ticket's code and name, as master
    rows without an id (so the least non-null name of a code names it). No transporters."""
    return {"products": [{"ProductCode": t["KodeBarang"], "ProductName": t["NamaBarang"]}
                         for t in tickets],
            "customers": [{"CustCode": t["KodeRelasi"], "CustName": t["NamaRelasi"]}
                          for t in tickets]}


def example_sql(tmp_path: Path, *, names: bool = True) -> Path:
    """A sql_dir holding the example's transactions.sql (and its names.sql)."""
    site = tmp_path / "site-sql"
    site.mkdir(exist_ok=True)
    shutil.copy(EXAMPLE / "transactions.sql", site)
    if names:
        shutil.copy(EXAMPLE / "names.sql", site)
    return site


def ticket_settings(request: pytest.FixtureRequest, engine: str, tmp_path: Path,
                    tickets: list[dict[str, Any]] = TICKETS) -> dict[str, Any]:
    """The settings of the example's site on `engine`: its ticket table holding `tickets`,
    its sql_dir, and transactions served alone."""
    database = site_table(request, engine, tmp_path / "tickets.sqlite3", "TBL_TIMBANG",
                          TICKET_COLUMNS, tickets)
    return {"database": database | {"sql_dir": str(example_sql(tmp_path))},
            "collections": {"serve": ["transactions"]}}


def served_site(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """For a gunicorn of the browser tests: the example's SQLite file holding TICKETS, and
    the TOML text of its sql_dir, transactions served alone."""
    database = ticket_settings(request, "sqlite3", tmp_path)["database"]
    return Path(database["sqlite"]), (f'[database]\nsql_dir = "{database["sql_dir"]}"\n\n'
                                      f'[collections]\nserve = ["transactions"]\n')


def name_in(master: str, code: str | None) -> str | None:
    """The name the example's names.sql gives a code on SQLite (strings compare exactly)."""
    code_field, name_field = {"products": ("ProductCode", "ProductName"),
                              "customers": ("CustCode", "CustName")}[master]
    return name_of(code, masters(TICKETS)[master], code_field, name_field, exactly)
