"""`jembatan check-sql` for a new site: records first, then every read run once, its
columns compared with the record shape, a non-zero exit when anything is wrong; `--show`
prints what each query sends."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
from pathlib import Path
from zoneinfo import ZoneInfo

from app import create_app
from app.core.services import services
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import build_database
from tests.servers import JEMBATAN, ROOT
from tests.test_read_kinds import spelt_reads

JAKARTA = ZoneInfo("Asia/Jakarta")


def site_copy(tmp_path: Path) -> Path:
    site = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, site)
    return site


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


def run_check(tmp_path: Path, *args: str, sql_dir: Path = SHIPPED_SQL_DIR) -> tuple[int, str]:
    database = build_database(tmp_path / "site.sqlite3", {
        "customers": [{"id": 1, "CustCode": "C1", "CustName": "PT Maju"}],
        "transactions": [{"id": 1, "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00"}]})
    app = create_app({"database": {"sqlite": str(database), "sql_dir": str(sql_dir)}})
    result = app.test_cli_runner().invoke(args=["check-sql", *args])
    return result.exit_code, result.output


def test_the_shipped_queries_pass(tmp_path: Path) -> None:
    code, output = run_check(tmp_path)
    assert code == 0, output
    assert "ERROR" not in output
    for c in COLLECTIONS:
        assert f"\n{c.name} (" in output
        section = output.split(f"\n{c.name} (", 1)[1].split("\n\n", 1)[0]
        assert re.findall(r"^  (\w+) +OK$", section, re.M) == ["records", *c.query_names()]
    assert "Every query runs" in output


def test_one_collection(tmp_path: Path) -> None:
    code, output = run_check(tmp_path, "customers")
    assert code == 0, output
    assert "\ncustomers (" in output and "\ntransactions (" not in output


def test_an_unknown_collection(tmp_path: Path) -> None:
    code, output = run_check(tmp_path, "pelanggan")
    assert code == 2
    assert "no collection 'pelanggan'" in output and "customers" in output


def test_a_misspelt_quoted_column_is_found(tmp_path: Path) -> None:
    site = site_copy(tmp_path)
    # SQLite would read the misspelt "CustNme" as a string: its mapping is sent with the
    # name [bracketed], which SQLite refuses as it refuses any column the table lacks.
    edit(site / "customers.sql", '"CustName" AS "CustName"', '"CustNme" AS "CustName"')
    code, output = run_check(tmp_path, "customers", sql_dir=site)
    assert code == 1
    section = [line for line in output.split("\ncustomers (Customer)\n", 1)[1].splitlines()
               if not re.match(r"\d{4}-\d\d-\d\d ", line)]  # the log's lines
    assert section[:3] == [
        "  records                ERROR",
        f"      {site / 'customers.sql'} line 8, column 5: the database has no column CustNme "
        f"(the records query of customers, the line that gives CustName); the database says: "
        f"no such column: CustNme",
        "  (every read of the collection reads records: fix it first)"]
    assert "queries with problems" in output


def test_a_records_query_that_fails_is_reported_once(tmp_path: Path) -> None:
    site = site_copy(tmp_path)
    edit(site / "customers.sql", '"Remark" AS "Remark"', 'NoSuchColumn AS "Remark"')
    code, output = run_check(tmp_path, "customers", sql_dir=site)
    assert code == 1
    section = output.split("\ncustomers (", 1)[1]
    assert re.search(r"^  records +ERROR\n +.*NoSuchColumn", section, re.M)
    assert "fix it first" in section
    assert not re.search(r"^  (all|page) ", section, re.M)  # not run: each would say the same


def test_fields_still_to_map_and_fields_given_as_null(tmp_path: Path) -> None:
    site = site_copy(tmp_path)
    edit(site / "transactions.sql", '"ffa" AS "ffa",',
         'NULL AS "ffa", -- TODO: no column named like ffa, closest: "FFA_Val"')
    edit(site / "transactions.sql", '"lot" AS "lot",', 'NULL AS "lot",')
    code, output = run_check(tmp_path, "transactions", sql_dir=site)
    assert code == 1
    section = output.split("\ntransactions (", 1)[1]
    assert re.search(r"^  records +ERROR\n +still to map \(-- TODO\): ffa$", section, re.M)
    assert "given as NULL (no such column at this site): lot" in section
    # The reads themselves run: a NULL field is a valid mapping.
    assert re.search(r"^  range_update_page +OK$", section, re.M)
    assert "1 query with problems" in output


# The reads of bricon2 (numbered, one date pair, a summary), as --show prints them, and
# those that take {where_filters} (the undated ones; the others {and_filters}).
BRICON2_READS = spelt_reads(("tanggal",), summary=True, numbered=True)
WHERE_READS = spelt_reads((), summary=True, numbered=True)


def test_show_prints_each_query_as_it_is_sent(tmp_path: Path) -> None:
    database = build_database(tmp_path / "site.sqlite3", {})
    app = create_app({"database": {"sqlite": str(database)}})
    queries = services(app).db.queries
    result = app.test_cli_runner().invoke(args=["check-sql", "--show", "bricon2"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("-- the SQLite texts, as sent to SQLite ")
    chunks = out.rstrip("\n").split("\n\n")[1:]  # after the line naming the engine
    names = ["records", *BRICON2_READS]
    assert [re.match(r"-- bricon2\.(\w+): ", chunk).group(1) for chunk in chunks] == names
    for name, chunk in zip(names, chunks, strict=True):
        q = queries.get("bricon2", name, "sqlite")
        lines = chunk.split("\n")
        assert lines[1] == f"-- from {q.source}"
        if name != "records":
            assert lines[2] == f"-- parameters: {', '.join(q.params) or 'none'}"
        # Every read takes filters, and says where they go.
        filtered = name != "records"
        if filtered:
            placeholder = ("{where_filters}" if name in WHERE_READS
                           else "{and_filters}")
            assert lines[3].startswith(f"-- with filters: {placeholder} of the shape becomes "
                                       f"WHERE (or AND) one condition per filter")
        sql = "\n".join(lines[2 if name == "records" else 3 + filtered:])
        assert sql == q.sql + ";"
    assert "transactions" not in out


def test_show_without_the_database_gives_the_main_texts(tmp_path: Path) -> None:
    app = create_app({"database": {"odbc": "Driver={No Such Driver};Server=nowhere",
                                   "connect_timeout": 1}})
    result = app.test_cli_runner().invoke(args=["check-sql", "--show", "customers"])
    assert result.exit_code == 0, result.output
    assert "cannot be reached" in result.output and "the main texts" in result.output
    page = services(app).db.queries.get("customers", "page", None)
    assert page.sql + ";\n" in result.output and "ROW_NUMBER()" in page.sql


def test_a_missing_mapping_file_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """`jembatan check-sql` (and gunicorn) with a collection's file gone: exit 1 and
    one line that names the file, the way every refused mapping is told at start."""
    site = site_copy(tmp_path)
    (site / "customers.sql").unlink()
    database = build_database(tmp_path / "site.sqlite3", {})
    config = tmp_path / "jembatan.toml"
    config.write_text(f'[database]\nsqlite = "{database}"\nsql_dir = "{site}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    done = subprocess.run([str(JEMBATAN), "check-sql"], cwd=ROOT,
                          env=env | {"JEMBATAN_CONFIG": str(config)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (f"jembatan: {site / 'customers.sql'}: missing "
                           f"(database.sql_dir is {site}); a site without customers leaves "
                           f"it out of collections.serve\n")


def check_with_stamps(tmp_path: Path, newest: dt.datetime, timezone: str = ""
                      ) -> tuple[int, list[str]]:
    """check-sql on 300 transactions updated one every 2 minutes back from `newest`; its exit
    code and its warning lines."""
    rows = [{"id": k + 1, "tgl_update": (newest - dt.timedelta(minutes=2 * k)).date().isoformat(),
             "jam_update": (newest - dt.timedelta(minutes=2 * k)).time().isoformat()}
            for k in range(300)]
    database = build_database(tmp_path / "stamps.sqlite3", {"transactions": rows})
    app = create_app({"database": {"sqlite": str(database)}, "site": {"timezone": timezone},
                      "collections": {"serve": ["transactions", "customers"]}})
    result = app.test_cli_runner().invoke(args=["check-sql"])
    return result.exit_code, [line for line in result.output.splitlines()
                              if line.startswith("Warning:")]


def clock_in(line: str) -> dt.datetime:
    return dt.datetime.fromisoformat(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", line)[0])


def test_stamps_hours_ahead_of_the_clock_are_a_warning(tmp_path: Path, host_zone) -> None:
    """Stamps written in WIB, the database clock (SQLite: this host's zone) in UTC, no
    [site] timezone: a warning naming the offset, the records held back and the setting;
    the exit status stays the queries' (0)."""
    host_zone("UTC")
    wib = dt.datetime.now(JAKARTA).replace(tzinfo=None, microsecond=0)
    code, warnings = check_with_stamps(tmp_path, wib)
    assert code == 0
    [line] = warnings
    clock = clock_in(line)
    utc = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    assert abs((utc - clock).total_seconds()) < 60
    # Ahead by more than the 30 s settle delay: the stamps within 7 h less 30 s of the newest,
    # one every 2 minutes.
    held = sum(1 for k in range(300)
               if wib - dt.timedelta(minutes=2 * k) > clock + dt.timedelta(seconds=30))
    assert held == 210
    assert line == (
        f"Warning: transactions: the newest tgl_update+jam_update stamps are 7.0 hours ahead "
        f"of the database clock (its own local time, {clock}): the feed "
        f"(/transactions/changes) holds back {held} records until that clock passes them; if "
        f'the plant writes its stamps in local time, set [site] timezone to its zone, e.g. '
        f'timezone = "Asia/Jakarta"')


def test_with_the_plants_zone_the_same_stamps_are_no_warning(tmp_path: Path,
                                                             host_zone) -> None:
    host_zone("UTC")
    wib = dt.datetime.now(JAKARTA).replace(tzinfo=None, microsecond=0)
    assert check_with_stamps(tmp_path, wib, "Asia/Jakarta") == (0, [])


def test_stamps_ahead_of_the_plants_zone_are_a_warning(tmp_path: Path, host_zone) -> None:
    """[site] timezone set, and a PC whose clock runs 3 hours ahead of the plant's."""
    host_zone("Asia/Jakarta")  # the host's zone plays no part once the plant's is set
    ahead = dt.datetime.now(JAKARTA).replace(tzinfo=None, microsecond=0) + dt.timedelta(hours=3)
    code, [line] = check_with_stamps(tmp_path, ahead, "Asia/Jakarta")
    assert code == 0
    clock = clock_in(line)
    assert abs((dt.datetime.now(JAKARTA).replace(tzinfo=None) - clock).total_seconds()) < 60
    held = sum(1 for k in range(300)
               if ahead - dt.timedelta(minutes=2 * k) > clock + dt.timedelta(seconds=30))
    assert held == 90  # 3 hours less 30 s, one every 2 minutes
    assert line == (
        f"Warning: transactions: the newest tgl_update+jam_update stamps are 3.0 hours ahead "
        f"of the database clock in Asia/Jakarta ({clock}): the feed (/transactions/changes) "
        f"holds back {held} records until that clock passes them; correct the clock of the "
        f"PC that writes them, or set [site] timezone to the zone the plant writes its stamps "
        f"in")
