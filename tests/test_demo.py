"""The demo database (app/commands/demo.py): built into tmp_path, then checked with plain
sqlite3."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.commands import demo
from app.commands.demo import build_demo_database, demo_db
from tests.contract import MATERIALS

TABLES = ("customers", "products", "transporters", "transactions", "vehicles", "bricon2",
          "weighing", "timbangan1", "timbangan2", "biao1")
WEIGHING = ("transactions", "weighing", "timbangan1", "timbangan2")
PRODUCTION = ("bricon2", "biao1")
GROUPS = MATERIALS
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIME = re.compile(r"^\d{2}:\d{2}:\d{2}$")
DATE_COLUMNS = {
    **{t: ("tgl_create", "tgl_dt1", "tgl_dt2", "tgl_update") for t in WEIGHING},
    **{t: ("tanggal",) for t in PRODUCTION},
    "vehicles": ("tgl_create", "tgl_expired"),
}
TIME_COLUMNS = {
    **{t: ("jam_create", "jam_dt1", "jam_dt2", "jam_update") for t in WEIGHING},
    **{t: ("jam",) for t in PRODUCTION},
    "vehicles": ("jam_create", "jam_expired"),
}


def _connect(path: Path) -> closing[sqlite3.Connection]:
    return closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True))


def _content(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with _connect(path) as conn:
        return {t: conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid').fetchall() for t in TABLES}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("demo") / "sub" / "demo.sqlite3"  # parent made on demand
    return path, build_demo_database(path)


@pytest.fixture
def db(built: tuple[Path, dict[str, int]]) -> Iterator[sqlite3.Connection]:
    with _connect(built[0]) as conn:
        yield conn


def _scalar(conn: sqlite3.Connection, sql: str) -> int:
    return conn.execute(sql).fetchone()[0]


def test_every_table_filled_and_counted(built: tuple[Path, dict[str, int]],
                                        db: sqlite3.Connection) -> None:
    path, counts = built
    assert set(counts) == set(TABLES)
    for table in TABLES:
        assert counts[table] == _scalar(db, f'SELECT count(*) FROM "{table}"') > 0, table
    assert counts["transactions"] >= 2000 and counts["weighing"] >= 1000
    assert counts["timbangan1"] >= 500 and counts["timbangan2"] >= 500
    assert counts["bricon2"] >= 200 and counts["biao1"] >= 200
    assert 30 <= counts["customers"] <= 60 and counts["vehicles"] >= 100
    # Only the database is left in the directory: no temporary file survives the build.
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert _scalar(db, "PRAGMA integrity_check") == "ok"


def test_indexes_of_the_schema_exist(db: sqlite3.Connection) -> None:
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"transactions_dt1", "weighing_update", "bricon2_order", "biao1_tanggal"} <= names


@pytest.mark.parametrize("table", WEIGHING)
def test_deliveries_weigh_more_in_than_out(db: sqlite3.Connection, table: str) -> None:
    closed = f'SELECT count(*) FROM "{table}" WHERE weigh2 IS NOT NULL AND productcode LIKE '
    # Raw materials (RM...) are delivered: gross in, tare out.
    assert _scalar(db, closed + "'RM%'") > 0
    assert _scalar(db, closed + "'RM%' AND weigh1 <= weigh2") == 0
    # Finished goods (FG...) leave loaded: the minority where the exit weighing is heavier.
    outbound = _scalar(db, closed + "'FG%'")
    assert 0 < outbound < _scalar(db, closed + "'RM%'")
    assert _scalar(db, closed + "'FG%' AND weigh2 <= weigh1") == 0
    assert _scalar(db, f'SELECT min(min(weigh1, weigh2)) FROM "{table}"') > 1000


@pytest.mark.parametrize("table", WEIGHING)
def test_open_transactions_have_no_exit(db: sqlite3.Connection, table: str) -> None:
    total = _scalar(db, f'SELECT count(*) FROM "{table}"')
    open_ = _scalar(db, f'SELECT count(*) FROM "{table}" WHERE tgl_dt2 IS NULL')
    assert 0.01 * total < open_ < 0.1 * total
    assert open_ == _scalar(db, f'SELECT count(*) FROM "{table}" WHERE tgl_dt2 IS NULL '
                                "AND jam_dt2 IS NULL AND weigh2 IS NULL")
    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE tgl_dt2 IS NOT NULL '
                       "AND (jam_dt2 IS NULL OR weigh2 IS NULL)") == 0


@pytest.mark.parametrize("table", WEIGHING)
def test_references_exist(db: sqlite3.Connection, table: str) -> None:
    for column, master, key in (("vehno", "vehicles", "Number"),
                                ("custcode", "customers", "CustCode"),
                                ("productcode", "products", "ProductCode"),
                                ("transcode", "transporters", "TransCode")):
        assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE "{column}" IS NOT NULL') > 0
        missing = db.execute(f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" '
                             f'IS NOT NULL AND "{column}" NOT IN (SELECT "{key}" FROM "{master}")'
                             ).fetchall()
        assert missing == [], (table, column)
    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE vehno IS NULL '
                       "OR custcode IS NULL OR productcode IS NULL") == 0


def test_master_keys_unique(db: sqlite3.Connection) -> None:
    for table, key in (("customers", "CustCode"), ("products", "ProductCode"),
                       ("transporters", "TransCode"), ("vehicles", "Number")):
        assert _scalar(db, f'SELECT count(DISTINCT "{key}") FROM "{table}"') == _scalar(
            db, f'SELECT count(*) FROM "{table}"'), table
        ids = [r[0] for r in db.execute(f'SELECT id FROM "{table}" ORDER BY rowid')]
        assert ids == list(range(1, len(ids) + 1)), table
    assert _scalar(db, "SELECT count(*) FROM vehicles WHERE TransCode NOT IN "
                       "(SELECT TransCode FROM transporters)") == 0
    plate = re.compile(r"^[A-Z]{1,2} \d{4} [A-Z]{1,3}$")
    assert all(plate.match(r[0]) for r in db.execute("SELECT Number FROM vehicles"))


def test_dates_and_times_are_iso_text(db: sqlite3.Connection) -> None:
    for columns, pattern in ((DATE_COLUMNS, DATE), (TIME_COLUMNS, TIME)):
        for table, names in columns.items():
            for name in names:
                values = [r[0] for r in db.execute(f'SELECT "{name}" FROM "{table}"')]
                present = [v for v in values if v is not None]
                assert present, (table, name)
                bad = [v for v in present if not (isinstance(v, str) and pattern.match(v))]
                assert bad == [], (table, name, bad[:3])
                if pattern is DATE:
                    for value in set(present):
                        date.fromisoformat(value)
                else:
                    assert max(present) <= "23:59:59", (table, name)


@pytest.mark.parametrize("table", WEIGHING)
def test_weighing_times_in_order(db: sqlite3.Connection, table: str) -> None:
    def moment(pair: str) -> str:
        return f"(tgl_{pair} || ' ' || jam_{pair})"

    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE {moment("dt2")} < '
                       f'{moment("dt1")}') == 0
    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE {moment("update")} < '
                       f'{moment("create")}') == 0
    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE tgl_create IS NOT tgl_dt1 '
                       "OR jam_create IS NOT jam_dt1") == 0
    # About six months, ending on 2026-11-20.
    first, last = db.execute(f'SELECT min(tgl_dt1), max(tgl_dt1) FROM "{table}"').fetchone()
    assert last == "2026-11-20"
    assert 150 <= (date.fromisoformat(last) - date.fromisoformat(first)).days <= 200
    assert _scalar(db, f'SELECT max(max(tgl_dt2), max(tgl_update)) FROM "{table}"') \
        <= "2026-11-20"
    assert {r[0] for r in db.execute(f'SELECT DISTINCT wbname1 FROM "{table}"')} <= {
        "WB-01", "WB-02"}


def test_weighing_ids(db: sqlite3.Connection) -> None:
    ids = [r[0] for r in db.execute("SELECT id FROM transactions ORDER BY rowid")]
    assert ids == list(range(1, len(ids) + 1))
    for table in WEIGHING[1:]:
        ids = [r[0] for r in db.execute(f'SELECT id FROM "{table}" ORDER BY rowid')]
        assert None not in ids and len(set(ids)) == len(ids), table
        rising = sum(b > a for a, b in zip(ids, ids[1:], strict=False))
        assert rising >= 0.98 * (len(ids) - 1), table


def test_two_weighbridges(db: sqlite3.Connection) -> None:
    assert {r[0] for r in db.execute("SELECT DISTINCT wbname1 FROM transactions")} == {
        "WB-01", "WB-02"}
    assert {r[0] for r in db.execute("SELECT DISTINCT wbname1 FROM timbangan1")} == {"WB-01"}
    assert {r[0] for r in db.execute("SELECT DISTINCT wbname1 FROM timbangan2")} == {"WB-02"}


@pytest.mark.parametrize("table", PRODUCTION)
def test_production_pv_close_to_sv(db: sqlite3.Connection, table: str) -> None:
    for group in [*GROUPS, "temperature"]:
        rows = db.execute(f'SELECT "{group}_sv", "{group}_pv" FROM "{table}"').fetchall()
        assert rows
        for sv, pv in rows:
            assert isinstance(sv, int) and isinstance(pv, int) and sv > 0, (group, sv, pv)
            assert abs(pv - sv) <= 0.05 * sv, (table, group, sv, pv)
        assert any(sv != pv for sv, pv in rows), group  # load cells are never exact
    for group in GROUPS:
        for suffix in ("corr", "before_add"):
            values = {r[0] for r in db.execute(f'SELECT "{group}_{suffix}" FROM "{table}"')}
            assert all(isinstance(v, int) for v in values), (group, suffix)
            assert max(abs(v) for v in values) <= 100
    assert {r[0] for r in db.execute(f'SELECT DISTINCT isproses FROM "{table}"')} == {0, 1}


@pytest.mark.parametrize(("table", "plant"), [("bricon2", 2), ("biao1", 1)])
def test_production_numbers(db: sqlite3.Connection, table: str, plant: int) -> None:
    batches: dict[int, list[int]] = {}
    for no, no_, tanggal in db.execute(
            f'SELECT no_produksi, no_produksi_, tanggal FROM "{table}" ORDER BY rowid'):
        # Plant, year and month: 1202611 is plant 1, November 2026.
        assert no == plant * 1_000_000 + int(tanggal[:4]) * 100 + int(tanggal[5:7])
        batches.setdefault(no, []).append(no_)
    assert len(batches) >= 3  # spread over several months
    for numbers in batches.values():  # numbered 1, 2, 3... within each month
        assert numbers == list(range(1, len(numbers) + 1))
    if table == "biao1":
        ids = [r[0] for r in db.execute("SELECT id FROM biao1 ORDER BY rowid")]
        assert ids == list(range(1, len(ids) + 1))
    # A batch every 20-40 minutes within a production day.
    times = db.execute(f'SELECT tanggal, jam FROM "{table}" WHERE jam IS NOT NULL '
                       "ORDER BY tanggal, jam").fetchall()
    gaps = [int(b[:2]) * 60 + int(b[3:5]) - int(a[:2]) * 60 - int(a[3:5])
            for (d1, a), (d2, b) in zip(times, times[1:], strict=False) if d1 == d2]
    assert gaps and sorted(gaps)[len(gaps) // 2] in range(20, 41)


@pytest.mark.parametrize(("table", "column"), [
    ("transactions", "remark"), ("transactions", "sealno"), ("transactions", "dono"),
    ("transactions", "ffa"), ("transactions", "editedby"), ("transactions", "tgl_update"),
    ("transactions", "transcode"), ("transactions", "mai"), ("weighing", "remark"),
    ("timbangan1", "jam_update"), ("vehicles", "tgl_expired"), ("vehicles", "jam_expired"),
    ("customers", "Phone"), ("bricon2", "jam"), ("bricon2", "adonan_note"), ("biao1", "jam"),
])
def test_optional_columns_have_nulls_and_values(db: sqlite3.Connection, table: str,
                                                column: str) -> None:
    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE "{column}" IS NULL') > 0
    assert _scalar(db, f'SELECT count(*) FROM "{table}" WHERE "{column}" IS NOT NULL') > 0


def test_non_ascii_text_survives(db: sqlite3.Connection) -> None:
    names = {r[0] for r in db.execute("SELECT CustName FROM customers")}
    assert "Café Sumber Rejeki" in names and "PT Semen Gresik" in names
    assert _scalar(db, "SELECT count(*) FROM customers WHERE Address LIKE '%–%'") > 0
    assert _scalar(db, "SELECT count(*) FROM transactions WHERE remark LIKE '%–%'") > 0
    assert all(p.startswith("+62 ") for (p,) in db.execute(
        "SELECT Phone FROM customers WHERE Phone IS NOT NULL"))


def test_real_and_integer_types(db: sqlite3.Connection) -> None:
    assert {r[0] for r in db.execute("SELECT DISTINCT typeof(weigh1) FROM transactions")} == {
        "real"}
    assert {r[0] for r in db.execute("SELECT DISTINCT typeof(Capacity) || typeof(Tare) "
                                     "FROM vehicles")} == {"realreal"}
    assert {r[0] for r in db.execute("SELECT DISTINCT typeof(adonan_pv) FROM bricon2")} == {
        "integer"}


def test_same_seed_same_content(tmp_path: Path, built: tuple[Path, dict[str, int]]) -> None:
    again = tmp_path / "again.sqlite3"
    assert build_demo_database(again) == built[1]
    assert _content(again) == _content(built[0])
    other = tmp_path / "other.sqlite3"
    build_demo_database(other, seed=7)
    assert _content(other)["transactions"] != _content(again)["transactions"]


def test_rows_scales_the_weighing_tables(tmp_path: Path) -> None:
    path = tmp_path / "small.sqlite3"
    counts = build_demo_database(path, rows=600)
    assert counts["transactions"] == 600 and counts["weighing"] == 600
    assert counts["timbangan1"] == counts["timbangan2"] == 300
    with _connect(path) as conn:
        assert _scalar(conn, "SELECT max(tgl_dt1) FROM transactions") == "2026-11-20"
    bigger = build_demo_database(tmp_path / "bigger.sqlite3", rows=9000)
    assert bigger["transactions"] == 9000 and bigger["timbangan1"] == 4500
    with _connect(tmp_path / "bigger.sqlite3") as conn:
        first = _scalar(conn, "SELECT min(tgl_dt1) FROM transactions")
        # Three times the rows over about three times the days: a day holds as many rows.
        assert 500 <= (date(2026, 11, 20) - date.fromisoformat(first)).days <= 600
    tiny = build_demo_database(tmp_path / "tiny.sqlite3", rows=1)
    assert tiny["transactions"] == 1 and all(tiny[t] > 0 for t in TABLES)
    with pytest.raises(ValueError):
        build_demo_database(tmp_path / "zero.sqlite3", rows=0)


def test_a_million_rows_fill_a_few_hundred_a_day() -> None:
    # Checked on the plan rather than a built file, which takes half a minute.
    sizes, _, days = demo.sizes(1_000_000)
    assert sizes["transactions"] == 1_000_000 and sizes["timbangan2"] == 500_000
    assert 2000 <= days <= 4000  # ~1000 rows within four days


def test_worker_processes_build_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              ) -> None:
    serial = tmp_path / "serial.sqlite3"
    build_demo_database(serial, rows=400, seed=11)
    monkeypatch.setattr(demo, "PARALLEL_MIN_ROWS", 0)  # the path --rows 1000000 takes
    parallel = tmp_path / "parallel" / "demo.sqlite3"
    build_demo_database(parallel, rows=400, seed=11)
    assert _content(parallel) == _content(serial)
    assert [p.name for p in parallel.parent.iterdir()] == ["demo.sqlite3"]
    with _connect(parallel) as conn:
        assert _scalar(conn, "PRAGMA integrity_check") == "ok"
        plan = " ".join(r[3] for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM weighing WHERE tgl_dt1 >= '2026-11-01' "
            "ORDER BY tgl_dt1, jam_dt1, id"))
        assert "weighing_dt1" in plan


def test_failed_build_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "demo.sqlite3"
    target.write_bytes(b"the old file")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(demo, "_production", broken)
    with pytest.raises(RuntimeError, match="boom"):
        build_demo_database(target)
    assert [p.name for p in tmp_path.iterdir()] == ["demo.sqlite3"]
    assert target.read_bytes() == b"the old file"


def test_command_creates_and_keeps_the_file(tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "instance" / "demo.sqlite3"
    result = runner.invoke(demo_db, ["--path", str(path), "--rows", "300"])
    assert result.exit_code == 0, result.output
    assert str(path) in result.output and "transactions" in result.output
    assert _content(path)["transactions"].__len__() == 300
    before = path.stat()

    result = runner.invoke(demo_db, ["--path", str(path)])
    assert result.exit_code == 0, result.output
    assert "already exists" in result.output and "--force" in result.output
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino, before.st_mtime_ns, before.st_size)

    result = runner.invoke(demo_db, ["--path", str(path), "--force", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert len(_content(path)["transactions"]) == 3000

    result = runner.invoke(demo_db, ["--path", str(path), "--rows", "0", "--force"])
    assert result.exit_code == 2


def test_command_defaults_to_the_configured_path(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "configured.sqlite3"
    monkeypatch.setenv("JEMBATAN_SQLITE", str(path))
    monkeypatch.delenv("JEMBATAN_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(demo_db, ["--rows", "100"])
    assert result.exit_code == 0, result.output
    assert path.is_file() and str(path) in result.output


def test_command_runs_under_flask_without_loading_the_app(tmp_path: Path) -> None:
    # As `flask --app wsgi demo-db` runs it: the app is never imported, so a database that does
    # not exist yet (which the app refuses to start without) is no obstacle.
    from flask.cli import FlaskGroup

    group = FlaskGroup(add_default_commands=False, load_dotenv=False, set_debug_flag=False)
    group.add_command(demo_db)
    path = tmp_path / "demo.sqlite3"
    result = CliRunner().invoke(group, ["--app", "no_such_module_jembatan", "demo-db",
                                        "--path", str(path), "--rows", "50"])
    assert result.exit_code == 0, result.output
    assert path.is_file()
