"""The warehouse over a fleet of plants (tests/fleet.py): ten plants on SQLite, each a real
`jembatan serve` over a demo database of its own size (300 to 20,000 transactions) in its own
time zone (half-hour zones, both sides of UTC, and one on the host's own clock), and two more
on the T-SQL server where the suite runs it. Every plant's writer (three weighbridge PCs, one
stamping behind the database clock and one ahead, transactions held open) inserts, weighs
out and cancels tickets while `jembatan warehouse load` runs in a loop as a scheduler would:
its first run SIGKILLed with a load package in flight, one run with a plant stopped (exit 3,
the others loaded), the plant back. Once the writers stop and the windows have passed, runs
until one finds nothing new; then the warehouse must equal the union of the plants' tables,
read with plain SQL: every record under its plant's name once, every field's last value
(exit weighings and cancellations included), the names beside the codes. The figures
(records, plants, wall time, the pipeline's peak memory, polls) are printed."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import fleet, mssql
from tests.fleet import DATASET, STAMP_DATE, Pipeline, Plant, PlantSpec, Servers, compare, serving
from tests.postgres import Cluster

SPECS = (PlantSpec("north_mill", 300, "Asia/Jakarta", 0.1),
         PlantSpec("south_mill", 500, "Asia/Makassar", 0.05),
         PlantSpec("east_quarry", 800, "Asia/Jayapura", 0.08),
         PlantSpec("west_port", 1200, "Europe/Berlin", 0.1),
         PlantSpec("river_works", 2000, "America/Sao_Paulo", 0.03),
         PlantSpec("hill_works", 3000, "Asia/Kolkata", 0.1),
         PlantSpec("lake_depot", 4500, "Australia/Adelaide", 0.07),
         PlantSpec("bay_yard", 6500, "Pacific/Auckland", 0.1),
         PlantSpec("delta_site", 9000, "America/New_York", 0.06),
         PlantSpec("city_plant", 20000, "", 0.1))
TSQL_SPECS = (PlantSpec("tsql_coast", 400, "", 0.1, "mssql"),
              PlantSpec("tsql_inland", 1200, "", 0.05, "mssql"))
PG_SPEC = PlantSpec("pg_valley", 800, "", 0.08, "postgresql")
WRITE_SECONDS = 45
DOWN = "east_quarry"  # the plant stopped for a run


@pytest.fixture
def plants(tmp_path: Path, postgres_cluster: Cluster) -> Iterator[list[Plant]]:
    """The plants, served; the T-SQL ones only where JEMBATAN_TEST_MSSQL names a server."""
    odbc = mssql.connection_string()
    specs = (*SPECS, PG_SPEC, *(TSQL_SPECS if odbc else ()))
    with serving(specs, tmp_path, Servers(odbc, postgres_cluster)) as plants:
        yield plants


def test_the_warehouse_holds_every_record_of_every_plant_once(plants: list[Plant],
                                                               tmp_path: Path) -> None:
    down = next(p for p in plants if p.spec.name == DOWN)
    pipeline, figures, verdict = fleet.run(plants, tmp_path, WRITE_SECONDS, down)
    print(figures.text())
    print(verdict.text())
    runs = pipeline.runs
    assert any(r.killed for r in runs if r.phase == "first"), "no run was killed mid-load"
    (down_run,) = [r for r in runs if r.phase == "down"]
    assert down_run.code == 3, down_run.out  # the others loaded: below, nothing is missing
    assert [line.split(":")[0] for line in down_run.out.splitlines()
            if "NOT READ TO THE END" in line] == [DOWN], down_run.out
    for run in runs:
        assert run.killed or run.phase == "down" or run.code == 0, run.out
    assert runs[-1].phase == "final" and not runs[-1].records(STAMP_DATE), runs[-1].out
    for plant in plants:  # every plant's PCs inserted, weighed out and cancelled
        assert all(pc["inserted"] and pc["exited"] for pc in plant.written.values())
        assert sum(pc["cancelled"] for pc in plant.written.values()) > 0, plant.spec.name
    assert verdict.cancelled > 0
    assert verdict.ok, verdict.text()
    assert_the_verdict_catches_a_loss_a_duplicate_and_a_stale_value(plants, pipeline, tmp_path)


def assert_the_verdict_catches_a_loss_a_duplicate_and_a_stale_value(
        plants: list[Plant], pipeline: Pipeline, tmp_path: Path) -> None:
    """The comparison can fail: a copy of the warehouse with one record gone, one twice and
    one ticket's cancellation undone is told apart, each as what it is."""
    import duckdb

    spoiled = tmp_path / "spoiled.duckdb"
    shutil.copy(pipeline.duckdb, spoiled)
    table = f'"{DATASET}"."transactions"'
    with contextlib.closing(duckdb.connect(str(spoiled))) as con:
        gone = con.execute(f"SELECT plant, id FROM {table} ORDER BY plant, id LIMIT 1").fetchone()
        con.execute(f"DELETE FROM {table} WHERE plant = ? AND id = ?", list(gone))
        twice = con.execute(f"SELECT plant, id FROM {table} ORDER BY plant DESC, id "
                            f"LIMIT 1").fetchone()
        con.execute(f"INSERT INTO {table} SELECT * FROM {table} WHERE plant = ? AND id = ?",
                    list(twice))
        voided = con.execute(f"SELECT plant, id FROM {table} WHERE cancelled ORDER BY id "
                             f"LIMIT 1").fetchone()
        con.execute(f"UPDATE {table} SET cancelled = false WHERE plant = ? AND id = ?",
                    list(voided))
    verdict = compare(plants, spoiled)
    assert verdict.missing == [f"transactions {(gone[0], gone[1])}"]
    assert verdict.twice == [f"transactions {(twice[0], twice[1])}"]
    assert verdict.differ == [f"transactions {(voided[0], voided[1])} cancelled: the plant has "
                              f"True, the warehouse False"]
    assert verdict.extra == []
