"""A company's warehouse of every plant's records: a dlt source over the plants' Jembatan
services (docs/warehouse.md). Needs the extra: pip install "jembatan[warehouse]".

    import dlt
    from app.warehouse import jembatan_source, load_fleet

    pipeline = dlt.pipeline("jembatan", destination="duckdb", dataset_name="jembatan")
    pipeline.run(jembatan_source(load_fleet("plants.toml")))
"""

from .plants import Fleet, FleetError, Plant, load_fleet
from .source import Tally, jembatan_source

__all__ = ["Fleet", "FleetError", "Plant", "Tally", "jembatan_source", "load_fleet"]
