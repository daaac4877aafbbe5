"""`jembatan warehouse`: every plant's records into the company's warehouse with dlt
(docs/warehouse.md). Needs the extra: pip install "jembatan[warehouse]".

    jembatan warehouse load --plants plants.toml     each plant's feeds, merged into DuckDB
    jembatan warehouse demo                          the demo plant, served here, into DuckDB
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from ..ops.config_option import config_option
from . import serving

SKIPPED = 3  # the exit status of a run that could not read some plant (the others loaded)
DESTINATION_HELP = ("A dlt destination: duckdb (the file of --duckdb-file), postgres, "
                    "clickhouse, bigquery, snowflake, mssql, …; its credentials come from "
                    "dlt's configuration (e.g. DESTINATION__POSTGRES__CREDENTIALS, or "
                    ".dlt/secrets.toml).")


def pipeline_options(command: click.Command) -> click.Command:
    """The options of a pipeline run, shared by `load` and `demo`."""
    for option in reversed([
        click.option("--destination", default="duckdb", show_default=True,
                     help=DESTINATION_HELP),
        click.option("--duckdb-file", type=click.Path(dir_okay=False, path_type=Path),
                     default=Path("warehouse.duckdb"), show_default=True,
                     help="The DuckDB file (with --destination duckdb)."),
        click.option("--dataset", default="jembatan", show_default=True,
                     help="The dataset (schema) the tables go into."),
        click.option("--pipeline-name", default="jembatan", show_default=True,
                     help="dlt's pipeline name: its state (the bookmarks) is kept under it."),
        click.option("--pipelines-dir", type=click.Path(file_okay=False, path_type=Path),
                     default=None, help="dlt's working folder (default: ~/.dlt/pipelines)."),
    ]):
        command = option(command)
    return command


@click.group("warehouse")
@config_option
def warehouse() -> None:
    """Load every plant's records into the company's warehouse (dlt)."""


@warehouse.command("load")
@config_option
@click.option("--plants", "plants_file", required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="The plants file: each plant's name, URL and key (docs/warehouse.md).")
@pipeline_options
def load(plants_file: Path, **run: Any) -> None:
    """Read each plant's new and changed records and merge them into the warehouse.

    Exits 0 when every plant was read to the end, 3 when some plant could not be read this
    run (the others were loaded; its bookmarks are kept, and a later run catches up)."""
    modules = warehouse_modules()
    try:
        fleet = modules.load_fleet(
            plants_file, warn=lambda line: click.echo(f"warning: {line}", err=True))
    except modules.FleetError as exc:
        raise click.UsageError(str(exc)) from None
    raise SystemExit(run_pipeline(fleet, **run))


@warehouse.command("demo")
@config_option
@click.option("--plant", "plant_name", default="demo", show_default=True,
              help="The plant's name in the warehouse.")
@pipeline_options
def demo(plant_name: str, **run: Any) -> None:
    """Serve this plant's database (the demo one, made if missing) on a loopback port for the
    time of one run, and load it into the warehouse."""
    modules = warehouse_modules()
    demo_database()
    logging.getLogger("jembatan.access").setLevel(logging.WARNING)  # its lines, not each request's
    with served(serving.built()) as url:
        fleet = modules.Fleet(plants=(modules.Plant(plant_name, url),))
        raise SystemExit(run_pipeline(fleet, **run))


def warehouse_modules() -> ModuleType:
    """app.warehouse, or an exit saying which extra it needs (dlt is not a dependency)."""
    os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")  # no call home from a plant
    try:
        from .. import warehouse as modules
    except ImportError as exc:
        raise click.ClickException(f"{exc}: install the warehouse extra, "
                                   "pip install \"jembatan[warehouse]\"") from None
    return modules


def run_pipeline(fleet: Any, destination: str, duckdb_file: Path, dataset: str,
                 pipeline_name: str, pipelines_dir: Path | None) -> int:
    """One run of the pipeline over the fleet; prints what it read; its exit status."""
    import dlt
    from dlt.pipeline.exceptions import PipelineStepFailed

    modules = warehouse_modules()
    if destination == "duckdb" and duckdb_file.stem == dataset:
        # DuckDB names the file's catalog after it, and a catalog and a schema of one name
        # make its binder refuse the load ("Ambiguous reference to catalog or schema").
        raise click.UsageError(f"--duckdb-file {duckdb_file}: a DuckDB file cannot be named "
                               f"as the dataset ({dataset}); name it otherwise")
    tally = modules.Tally()
    # An absolute path: dlt would take a relative one from the directory of the pipeline's
    # first run, not from this one.
    target = dlt.destinations.duckdb(str(duckdb_file.resolve())) \
        if destination == "duckdb" else destination
    pipeline = dlt.pipeline(pipeline_name=pipeline_name, destination=target,
                            dataset_name=dataset,
                            pipelines_dir=None if pipelines_dir is None else str(pipelines_dir))
    started = time.perf_counter()
    try:
        modules.run_fleet(pipeline, fleet, tally)
    except PipelineStepFailed as exc:
        raise click.ClickException(f"the {exc.step} step failed: {exc.exception}") from None
    if tally.resumed:
        click.echo("finished first the load an earlier run had left unfinished")
    for line in said(fleet, tally):
        click.echo(line)
    where = f" ({duckdb_file})" if destination == "duckdb" else ""
    click.echo(f"loaded into {destination}{where}, dataset {dataset}, "
               f"in {time.perf_counter() - started:.1f} s")
    return SKIPPED if tally.skipped else 0


def said(fleet: Any, tally: Any) -> Iterator[str]:
    """One line per plant: the records of each collection and the requests, or why not."""
    for plant in fleet.plants:
        read = ", ".join(f"{c} {n:,}{again(n, tally.repeats.get((p, c), 0))}"
                         for (p, c), n in tally.records.items() if p == plant.name)
        keyless = sum(n for (p, _), n in tally.keyless.items() if p == plant.name)
        line = f"{plant.name}: {read or 'no records'}; " \
               f"{tally.requests.get(plant.name, 0)} requests"
        if keyless:
            line += f"; {keyless} records without a key left out (they cannot be kept once)"
        if plant.name in tally.skipped:
            line += f"; NOT READ TO THE END: {tally.skipped[plant.name]} (its bookmarks " \
                    "are kept: a later run catches up)"
        yield line


def again(records: int, repeats: int) -> str:
    """How many of a collection's records read were new and how many came again (the
    plant's X-Bookmark-Repeats: a late commit into a busy window brings its neighbours
    again), when some did."""
    if not repeats:
        return ""
    return f" ({max(records - repeats, 0):,} new, {repeats:,} again)"


def demo_database() -> None:
    """The demo database at database.sqlite, made as `jembatan demo-db` makes it if missing
    (a site that reads another database is served as it is)."""
    from ..commands.demo import build_demo_database
    from ..ops.config import ConfigError, load_settings

    try:
        settings = load_settings()
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if not settings.database.odbc and not settings.database.sqlite.exists():
        build_demo_database(settings.database.sqlite)


@contextmanager
def served(app: Any) -> Iterator[str]:
    """The app served on a free loopback port for the block's time: its URL."""
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # the service logs its own requests
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()
