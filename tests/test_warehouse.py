"""The company's warehouse (docs/warehouse.md): the dlt source over plants served for real,
into DuckDB and PostgreSQL. The expected tables are read from each plant's own answers to
its lists (`GET /<c>`), never from the feed the source reads, nor from the warehouse."""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dlt
import duckdb
import pytest
import requests
from click.testing import CliRunner
from dlt.common.normalizers.naming.snake_case import NamingConvention

from app import create_app
from app.commands.demo import write_void_mapping
from app.console.cli import main
from app.console.warehouse import served
from app.model.labels import FIELD_LABELS
from app.ops.config import SHIPPED_SQL_DIR
from app.warehouse import (
    Fleet,
    FleetError,
    Plant,
    Tally,
    jembatan_source,
    load_fleet,
    run_fleet,
)
from tests.conftest import build_database
from tests.helpers import NAMES, exactly, name_of, warehouse_key
from tests.servers import JEMBATAN, ROOT, free_port

COLUMN = NamingConvention().normalize_identifier  # dlt's default names (its documented rule)
MASTERS = {"products": [{"id": 1, "ProductCode": "P1", "ProductName": "Sand"},
                        {"id": 2, "ProductCode": "P2", "ProductName": "Cement"}],
           "customers": [{"id": 1, "CustCode": "C1", "CustName": "CV Maju"}],
           "transporters": [{"id": 5, "TransCode": "T1", "TransName": "PT Angkut"},
                            {"id": 4, "TransCode": "T1", "TransName": "PT Lama"}]}


def ticket(n: int, update: str | None, **extra: Any) -> dict[str, Any]:
    """A weighed ticket of 2026-11-20, its update stamp `update` (HH:MM:SS or None)."""
    return {"id": n, "productcode": f"P{n % 2 + 1}", "custcode": "C1", "transcode": "T1",
            "weigh1": 30000.0 + n, "weigh2": 10000.0, "adjustweigh": float(n),
            "tgl_dt1": "2026-11-20", "jam_dt1": "07:00:00", "tgl_dt2": "2026-11-20",
            "jam_dt2": "07:30:00", "tgl_create": "2026-11-20", "jam_create": "07:00:00",
            "tgl_update": update and "2026-11-20", "jam_update": update, "cancelled": 0,
            **extra}


def moments_ago(seconds: int) -> tuple[str, str]:
    """(date, time) of the plant's clock (this machine's local time, SQLite's) less `seconds`:
    a stamp a writer puts on a change now, which the feed sends once it has settled."""
    moment = dt.datetime.now() - dt.timedelta(seconds=seconds)
    return moment.date().isoformat(), moment.strftime("%H:%M:%S")


def tickets_file(path: Path, count: int) -> Path:
    """A plant's SQLite file of `count` tickets saved on 2026-11-20 at 08:00, nothing else."""
    return build_database(path, {"transactions": [ticket(n, "08:00:00")
                                                  for n in range(1, count + 1)]})


ONLY_TICKETS = {"collections": {"serve": ["transactions"]}}


def plant_settings(database: Path, voids: bool = True, **more: Any) -> dict[str, Any]:
    """A plant's service over a SQLite file whose tickets void in the demo's flag column,
    read by its mapping (with `voids`; else the shipped mapping, as `jembatan warehouse demo`
    serves the demo); records settle at once (their stamps are old)."""
    mapping = write_void_mapping(database.parent / "void-sql") if voids else SHIPPED_SQL_DIR
    return {"database": {"sqlite": str(database), "sql_dir": str(mapping)},
            "feed": {"settle_seconds": 0}, **more}


def json_value(value: Any) -> Any:
    """A warehouse value as the API's JSON writes it."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return value


def expected_tables(url: str, plant: str) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Per collection the plant serves: (plant, key) -> the row the warehouse should hold,
    from the plant's lists: every field (numberrow aside), names beside codes."""
    index = requests.get(url + "/", timeout=30).json()
    lists = {c["name"]: requests.get(f"{url}/{c['name']}", timeout=60).json()
             for c in index["collections"]}
    tables = {}
    for name, records in lists.items():
        rows = {}
        for record in records:
            row = {"plant": plant}
            for field, value in record.items():
                if field == "numberrow":
                    continue
                row[field] = value
                if field in NAMES:
                    named, master, code, master_name = NAMES[field]
                    row[named] = name_of(value, lists.get(master, []), code, master_name,
                                         exactly)
            rows[(plant, *(record[k] for k in warehouse_key(name)))] = row
        tables[name] = rows
    return tables


def warehouse_tables(query: Any, shapes: dict[str, set[str]], dataset: str
                     ) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """The same from the warehouse, by the API's field names (dlt's snake_case of each);
    `query(sql)` gives (column names, rows). A key twice fails here."""
    tables = {}
    for name, fields in shapes.items():
        columns, found = query(f'SELECT * FROM {dataset}."{name}"')
        by_column = {COLUMN(f): f for f in fields}
        table = {}
        for values in found:
            record = {by_column[c]: json_value(v) for c, v in zip(columns, values, strict=True)
                      if c in by_column}
            key = (record["plant"], *(record[k] for k in warehouse_key(name)))
            assert key not in table, f"{name}: {key} twice in the warehouse"
            table[key] = record
        tables[name] = table
    return tables


def fields_of(rows: dict[tuple[Any, ...], dict[str, Any]]) -> set[str]:
    """The fields a table's expected rows hold."""
    return {f for row in rows.values() for f in row}


def compare(expected: dict[str, dict], query: Any, dataset: str) -> None:
    """The warehouse holds exactly the expected rows, value for value, once each."""
    expected = {name: rows for name, rows in expected.items() if rows}  # dlt makes no
    # table until a row comes
    found = warehouse_tables(query, {n: fields_of(rows) for n, rows in expected.items()},
                             dataset)
    for name in expected:
        assert sorted(found[name]) == sorted(expected[name]), name
        for key, row in expected[name].items():
            assert found[name][key] == row, (name, key)


def duck(path: Path) -> Any:
    """query(sql) -> (columns, rows) on a DuckDB file."""
    def query(sql: str) -> tuple[list[str], list[tuple]]:
        with duckdb.connect(str(path), read_only=True) as con:
            cursor = con.execute(sql)
            return [d[0] for d in cursor.description], cursor.fetchall()
    return query


@contextmanager
def plant(database: Path, voids: bool = True, **settings: Any) -> Iterator[str]:
    """A plant's Jembatan over the SQLite file, served over HTTP: its URL."""
    with served(create_app(plant_settings(database, voids, **settings))) as url:
        yield url


def run(fleet: Fleet, work: Path, destination: Any = None, dataset: str = "hq") -> Tally:
    """One run of the documented pipeline (docs/warehouse.md, "From Python")."""
    pipeline = dlt.pipeline(
        pipeline_name="hq", dataset_name=dataset, pipelines_dir=str(work / "pipelines"),
        destination=destination or dlt.destinations.duckdb(str(work / "warehouse.duckdb")))
    return run_fleet(pipeline, fleet)


@pytest.fixture(autouse=True)
def no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")


# -- the plants file ------------------------------------------------------------------------


def test_a_plants_file_lists_each_plant_with_its_key(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "plants.toml"
    path.write_text('page_size = 500\npause_seconds = 0.5\ncollections = ["transactions"]\n'
                    '[plants.north_mill]\nurl = "http://10.0.0.5:8000/"\nkey_env = "NORTH"\n'
                    'insecure_http = true\n'
                    '[plants."depot-2"]\nurl = "https://depot2.example/jembatan"\n'
                    '[plants.here]\nurl = "http://localhost:8000"\nkey = "k"\n')
    warned: list[str] = []
    assert load_fleet(path, {"NORTH": "s3cret"}, warned.append) == Fleet(
        plants=(Plant("north_mill", "http://10.0.0.5:8000", "s3cret", insecure_http=True),
                Plant("depot-2", "https://depot2.example/jembatan", None),
                Plant("here", "http://localhost:8000", "k")),
        collections=("transactions",), page_size=500, pause_seconds=0.5, timeout=30.0)
    # One line per plant the file allows plain http to another host (loopback needs none).
    assert warned == [f"{path}: [plants.north_mill]: http://10.0.0.5:8000 is read over plain "
                      "http (insecure_http = true): its key and its records cross the network "
                      "unencrypted"]
    # Without `warn` (the Python API), the same lines go to the log jembatan.warehouse.
    with caplog.at_level(logging.WARNING, "jembatan.warehouse"):
        load_fleet(path, {"NORTH": "s3cret"})
    assert [r.getMessage() for r in caplog.records if r.name == "jembatan.warehouse"] == warned


@pytest.mark.parametrize(("text", "message"), [
    ("", "no plants: add a [plants.<name>] table with its url"),
    ('[plants.a]\nurl = "ftp://x"\n', "[plants.a]: url must be the plant's Jembatan address, "
                                      "http://host:port or https://host/prefix"),
    ('[plants.a]\nurl = "https://x"\nkey_env = "NOPE"\n',
     "[plants.a]: key_env names 'NOPE', which is not set"),
    ('[plants.a]\nurl = "https://x"\nkey = "k"\nkey_env = "K"\n',
     "[plants.a]: give key or key_env, not both"),
    ('[plants."a b"]\nurl = "https://x"\n',
     "[plants.a b]: a plant's name is 1 to 64 letters, digits, '_', '.' or '-', starting "
     "with a letter or digit"),
    ('page_size = 20000\n[plants.a]\nurl = "https://x"\n',
     "page_size must be a whole number from 1 to 10000"),
    ('collections = ["trucks"]\n[plants.a]\nurl = "https://x"\n',
     "collections must be a list of distinct collection names, of customers, products, "
     "transporters, transactions, vehicles, bricon2, weighing, timbangan1, timbangan2, biao1"),
    ('limit = 5\n[plants.a]\nurl = "https://x"\n', "unknown setting 'limit'; the settings are "
     "collections, page_size, pause_seconds, plants, timeout"),
    # Plain http to another host: the key and the records in clear text on the network.
    ('[plants.a]\nurl = "http://10.0.0.5:8000"\nkey = "k"\n',
     "[plants.a]: http://10.0.0.5:8000 is plain http to another host: the key and the "
     "records would cross the network in clear text; use the plant's https:// address (its "
     "proxy, docs/deploy.md), or set insecure_http = true for a network without TLS "
     "(docs/warehouse.md)"),
    ('[plants.a]\nurl = "http://x"\ninsecure_http = "yes"\n',
     "[plants.a]: insecure_http must be true or false"),
])
def test_a_bad_plants_file_is_refused_with_what_is_wrong(tmp_path: Path, text: str,
                                                         message: str) -> None:
    path = tmp_path / "plants.toml"
    path.write_text(text)
    with pytest.raises(FleetError) as refused:
        load_fleet(path, {})
    assert str(refused.value) == f"{path}: {message}"


# -- updates, cancellations, new tickets; the state; a plant down ----------------------------


def test_a_change_a_cancellation_and_a_new_ticket_replace_or_add_their_rows(
        tmp_path: Path) -> None:
    database = build_database(tmp_path / "plant.sqlite3", {
        "transactions": [ticket(n, "08:00:00" if n % 3 else None) for n in range(1, 8)],
        **MASTERS})
    labels = {"weigh1": "Bruto (kg)"}
    with plant(database, site={"fields": labels}) as url:
        fleet = Fleet((Plant("north", url),), page_size=2)
        first = run(fleet, tmp_path)
        # Every ticket in pages of two, through both feeds: by update stamp (the 5 with
        # one), by creation (all 7).
        assert first.records[("north", "transactions")] == 12 and not first.skipped
        day, now = moments_ago(2)
        with sqlite3.connect(database) as con:
            con.execute("UPDATE transactions SET weigh2 = 9000, tgl_update = ?, "
                        "jam_update = ? WHERE id = 2", (day, now))
            con.execute("UPDATE transactions SET cancelled = 1, tgl_update = ?, "
                        "jam_update = ? WHERE id = 3", (day, now))
        add_ticket(database, 8)
        second = run(fleet, tmp_path)
        # Only what changed: 2, 3 and 8 by update, 8 by creation (and the masters, whole).
        assert second.records[("north", "transactions")] == 4
        expected = expected_tables(url, "north")
    compare(expected, duck(tmp_path / "warehouse.duckdb"), "hq")
    cancelled = expected["transactions"][("north", 3)]
    assert cancelled["cancelled"] is True and expected["transactions"][("north", 2)][
        "weigh2"] == 9000.0
    # T1 is named by its smallest id, 4, as the plant's summaries name it.
    assert expected["transactions"][("north", 8)]["transname"] == "PT Lama"
    _, fields = duck(tmp_path / "warehouse.duckdb")(
        'SELECT plant, "collection", field, "column", label FROM hq.fields '
        "WHERE \"collection\" = 'transactions' ORDER BY field")
    assert fields == sorted(
        ("north", "transactions", f, COLUMN(f), {**FIELD_LABELS, **labels}.get(f))
        for f in fields_of(expected["transactions"]) if f != "plant")


def test_the_bookmarks_live_in_dlt_state_and_come_back_from_the_warehouse(
        tmp_path: Path) -> None:
    database = tickets_file(tmp_path / "plant.sqlite3", 5)
    with plant(database, **ONLY_TICKETS) as url:
        fleet = Fleet((Plant("north", url),))
        assert run(fleet, tmp_path).records == {("north", "transactions"): 10}
        # The pipeline's working folder lost (a new host, a wiped disk): dlt takes its
        # state, the bookmarks among it, back from the warehouse, and nothing comes again.
        subprocess.run(["rm", "-rf", str(tmp_path / "pipelines")], check=True)
        again = run(fleet, tmp_path)
        assert again.records == {("north", "transactions"): 0}
        assert again.requests == {"north": 3}  # the index, one poll of each feed
        expected = expected_tables(url, "north")
    compare(expected, duck(tmp_path / "warehouse.duckdb"), "hq")
    # No file of the source's own: dlt's working folder, the warehouse, the plant's.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name not in ("proofs", "void-sql")) == [
        "pipelines", "plant.sqlite3", "warehouse.duckdb"]


def add_ticket(database: Path, n: int) -> None:
    """A new ticket, weighed and saved just now."""
    day, now = moments_ago(2)
    row = ticket(n, now, tgl_update=day, tgl_create=day, jam_create=now)
    with sqlite3.connect(database) as con:
        con.execute(f"INSERT INTO transactions ({', '.join(row)}) VALUES "
                    f"({', '.join('?' * len(row))})", list(row.values()))


def test_a_load_a_killed_run_left_unfinished_is_finished_before_the_next_read(
        tmp_path: Path) -> None:
    database = tickets_file(tmp_path / "plant.sqlite3", 3)
    with plant(database, **ONLY_TICKETS) as url:
        fleet = Fleet((Plant("north", url),))
        pipeline = dlt.pipeline(pipeline_name="hq", dataset_name="hq",
                                pipelines_dir=str(tmp_path / "pipelines"),
                                destination=dlt.destinations.duckdb(str(tmp_path / "w.duckdb")))
        assert run_fleet(pipeline, fleet).records == {("north", "transactions"): 6}
        add_ticket(database, 4)
        # What a run killed in its load step leaves: ticket 4 read, its bookmarks in the
        # package's state, nothing of it in the warehouse yet.
        pipeline.extract(jembatan_source(fleet, Tally()))
        pipeline.normalize()
        add_ticket(database, 5)
        tally = run_fleet(pipeline, fleet)
        # The package loaded, then only ticket 5 read (by both feeds).
        assert tally.resumed and tally.records == {("north", "transactions"): 2}
        expected = expected_tables(url, "north")
    assert len(expected["transactions"]) == 5
    compare(expected, duck(tmp_path / "w.duckdb"), "hq")


def test_a_plant_that_is_down_is_skipped_and_caught_up_when_it_is_back(
        tmp_path: Path) -> None:
    north = tickets_file(tmp_path / "north.sqlite3", 3)
    south = tickets_file(tmp_path / "south.sqlite3", 5)
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    plants = tmp_path / "plants.toml"
    with plant(north, **ONLY_TICKETS) as url:
        plants.write_text(f'[plants.north]\nurl = "{url}"\n[plants.south]\nurl = "{down}"\n')
        said = CliRunner().invoke(main, [
            "warehouse", "load", "--plants", str(plants), "--duckdb-file",
            str(tmp_path / "warehouse.duckdb"), "--dataset", "hq", "--pipeline-name", "hq",
            "--pipelines-dir",
            str(tmp_path / "pipelines")])
        assert said.exit_code == 3, said.output
        assert said.stdout.splitlines()[:2] == [
            "north: transactions 6; 3 requests",
            "south: no records; 1 requests; NOT READ TO THE END: /: cannot connect (its "
            "bookmarks are kept: a later run catches up)"]
        with plant(south, **ONLY_TICKETS) as back:
            fleet = Fleet((Plant("north", url), Plant("south", back)))
            tally = run(fleet, tmp_path)
            assert tally.records == {("north", "transactions"): 0,
                                     ("south", "transactions"): 10}
            expected = {"transactions": {**expected_tables(url, "north")["transactions"],
                                         **expected_tables(back, "south")["transactions"]}}
    compare(expected, duck(tmp_path / "warehouse.duckdb"), "hq")


def test_a_bookmark_the_plant_no_longer_signs_starts_again_from_the_newest_stamp(
        tmp_path: Path) -> None:
    database = build_database(tmp_path / "plant.sqlite3", {
        "transactions": [ticket(n, f"08:0{n}:00") for n in range(1, 6)]})
    first, second = "first-secret-0123456789", "second-secret-0123456789"
    with plant(database, feed={"settle_seconds": 0, "bookmark_secrets": [first]},
               **ONLY_TICKETS) as url:
        run(Fleet((Plant("north", url),)), tmp_path)
    with sqlite3.connect(database) as con:
        con.execute("UPDATE transactions SET weigh2 = 9500, tgl_update = ?, jam_update = ? "
                    "WHERE id = 5", moments_ago(2))
    # The plant's secret replaced without keeping the old one: its bookmarks are refused.
    with plant(database, feed={"settle_seconds": 0, "bookmark_secrets": [second]},
               **ONLY_TICKETS) as url:
        tally = run(Fleet((Plant("north", url),)), tmp_path)
        assert not tally.skipped
        expected = expected_tables(url, "north")
    compare(expected, duck(tmp_path / "warehouse.duckdb"), "hq")
    assert expected["transactions"][("north", 5)]["weigh2"] == 9500.0


# -- PostgreSQL -------------------------------------------------------------------------------


@pytest.mark.postgresql
def test_the_same_pipeline_loads_into_postgresql(tmp_path: Path, postgres_cluster: Any
                                                 ) -> None:
    database = build_database(tmp_path / "plant.sqlite3", {
        "transactions": [ticket(n, "08:00:00" if n % 2 else None) for n in range(1, 30)],
        **MASTERS})
    credentials = f"postgresql://postgres:trusted@127.0.0.1:{postgres_cluster.port}/jembatan"
    with plant(database) as url:
        fleet = Fleet((Plant("north", url), Plant("south", url)), page_size=10)
        run(fleet, tmp_path, dlt.destinations.postgres(credentials), dataset="hq_pg")
        with sqlite3.connect(database) as con:
            con.execute("UPDATE transactions SET cancelled = 1, tgl_update = ?, jam_update = ? "
                        "WHERE id = 7", moments_ago(2))
        run(fleet, tmp_path, dlt.destinations.postgres(credentials), dataset="hq_pg")
        expected = {name: {**rows, **expected_tables(url, "south")[name]}
                    for name, rows in expected_tables(url, "north").items()}
    import psycopg2

    def query(sql: str) -> tuple[list[str], list[tuple]]:
        with psycopg2.connect(credentials) as con, con.cursor() as cursor:
            cursor.execute(sql)
            return [d[0] for d in cursor.description], cursor.fetchall()
    compare(expected, query, "hq_pg")
    assert expected["transactions"][("south", 7)]["cancelled"] is True


def test_the_command_line_does_not_import_dlt_until_a_warehouse_command_runs() -> None:
    # dlt is an extra: `jembatan serve` and the others start without it.
    done = subprocess.run([str(JEMBATAN.parent / "python"), "-c",
                           "import sys, app.console.cli; print('dlt' in sys.modules)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "False\n"


# -- the DuckDB file --------------------------------------------------------------------------


def test_a_duckdb_file_named_as_the_dataset_is_refused(tmp_path: Path) -> None:
    # DuckDB calls the file's catalog after it: a catalog and a schema both `jembatan` made
    # its binder refuse the load ("Ambiguous reference to catalog or schema").
    plants = tmp_path / "plants.toml"
    plants.write_text(f'[plants.north]\nurl = "http://127.0.0.1:{free_port()}"\n')
    said = CliRunner().invoke(main, ["warehouse", "load", "--plants", str(plants),
                                     "--duckdb-file", str(tmp_path / "jembatan.duckdb")])
    assert said.exit_code == 2
    assert said.output.splitlines()[-1] == (
        f"Error: --duckdb-file {tmp_path / 'jembatan.duckdb'}: a DuckDB file cannot be named "
        "as the dataset (jembatan); name it otherwise")
    assert not (tmp_path / "jembatan.duckdb").exists()


def test_a_relative_duckdb_file_is_in_the_directory_the_command_runs_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One pipeline (its name and directory), run from two directories: each run's file is
    # the one of its own directory, never the directory of the pipeline's first run.
    database = tickets_file(tmp_path / "plant.sqlite3", 3)
    plants = tmp_path / "plants.toml"
    with plant(database, **ONLY_TICKETS) as url:
        plants.write_text(f'[plants.north]\nurl = "{url}"\n')
        for name in ("first", "second"):
            (tmp_path / name).mkdir()
            monkeypatch.chdir(tmp_path / name)
            said = CliRunner().invoke(main, [
                "warehouse", "load", "--plants", str(plants), "--pipelines-dir",
                str(tmp_path / "pipelines")])
            assert said.exit_code == 0, said.output
        expected = expected_tables(url, "north")
    for name in ("first", "second"):
        compare(expected, duck(tmp_path / name / "warehouse.duckdb"), "jembatan")
