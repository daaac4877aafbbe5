"""A company's warehouse of every plant's records: a dlt source over the plants' Jembatan
services (docs/warehouse.md). Needs the extra: pip install "jembatan[warehouse]".

    import dlt
    from app.warehouse import load_fleet, run_fleet

    pipeline = dlt.pipeline("jembatan", destination="duckdb", dataset_name="jembatan")
    tally = run_fleet(pipeline, load_fleet("plants.toml"))   # or pipeline.run(jembatan_source(…))
"""

from .plants import Fleet, FleetError, Plant, load_fleet
from .source import Tally, jembatan_source, run_fleet

__all__ = ["Fleet", "FleetError", "Plant", "Tally", "jembatan_source", "load_fleet", "run_fleet"]
