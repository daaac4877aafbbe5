"""The dlt source: every plant's collections in one table per collection, each record once
per (plant, key) with its last values (docs/warehouse.md).

A collection with dates is read through its feed (`/<c>/changes`, docs/api.md §5.11), polled
until caught up, its bookmark per plant kept in the resource's dlt state, so that it lands in
the destination with the records it led to; the master collections (customers, products,
transporters) are read whole each run. Records are merged on (plant, key): a record sent
again (an update, a cancellation, a repeat after a restart) replaces its row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import dlt
import marshmallow as ma
from dlt.sources import DltResource, DltSource

from ..model.collections import COLLECTIONS, DATE_PAIRS, Collection, Naming
from ..model.schemas import JoinedDateTime
from .client import BookmarkRefused, PlantClient, PlantDown, PlantRefused, Poll
from .plants import Fleet, Plant

PLANT = "plant"  # the column that says whose record a row is
# When the pipeline read the row (UTC): of two rows of one key in one load (a record changed
# between two polls of a run, or sent by two feeds), the later read is kept (dlt's dedup_sort).
READ_AT = "read_at"
AGENT = "jembatan-warehouse"
BY_NAME = {c.name: c for c in COLLECTIONS}
# dlt's data type of each field class of a record shape (checked in this order: an Integer
# is a Number, a JoinedDateTime a DateTime). Plant times are local, with no zone.
TYPES: tuple[tuple[type[ma.fields.Field], dict[str, Any]], ...] = (
    (JoinedDateTime, {"data_type": "timestamp", "timezone": False}),
    (ma.fields.Date, {"data_type": "date"}),
    (ma.fields.Time, {"data_type": "time"}),
    (ma.fields.Boolean, {"data_type": "bool"}),
    (ma.fields.Integer, {"data_type": "bigint"}),
    (ma.fields.Number, {"data_type": "double"}),
)
TEXT = {"data_type": "text"}


@dataclass
class Tally:
    """What one run read, by (plant, collection), and the plants it could not read."""

    records: dict[tuple[str, str], int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    keyless: dict[tuple[str, str], int] = field(default_factory=dict)
    # Of `records`, those the plant said an earlier poll may have sent (X-Bookmark-Repeats).
    repeats: dict[tuple[str, str], int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    resumed: bool = False  # whether the run first finished an earlier run's load

    def add(self, counts: dict[tuple[str, str], int], plant: str, collection: str,
            n: int) -> None:
        """Counts n more for (plant, collection) in one of the tallies."""
        counts[plant, collection] = counts.get((plant, collection), 0) + n


class Plants:
    """The fleet during one run: each plant's client, index and names, asked for once; a
    plant that fails is skipped for the rest of the run, its bookmarks as they were."""

    def __init__(self, fleet: Fleet, tally: Tally) -> None:
        self.fleet = fleet
        self.tally = tally
        self.clients = {p.name: PlantClient(p, fleet, AGENT, tally.requests)
                        for p in fleet.plants}
        self.indexes: dict[str, dict[str, Any]] = {}
        self.lists: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.names: dict[tuple[str, str], dict[Any, str | None]] = {}
        self.last_read = datetime.min.replace(tzinfo=UTC)

    def read_now(self) -> datetime:
        """Now, in UTC, and always later than the last time it said (a clock set back)."""
        self.last_read = max(datetime.now(UTC), self.last_read + timedelta(microseconds=1))
        return self.last_read

    def reading(self, collection: str) -> Iterator[tuple[Plant, PlantClient]]:
        """The plants reached this run that serve the collection (to this pipeline's key)."""
        for plant in self.fleet.plants:
            index = self.index(plant)
            if index is not None and collection in served(index):
                yield plant, self.clients[plant.name]

    def index(self, plant: Plant) -> dict[str, Any] | None:
        """The plant's index, None once it has failed this run."""
        if plant.name in self.tally.skipped:
            return None
        if plant.name not in self.indexes:
            try:
                self.indexes[plant.name] = self.clients[plant.name].index()
            except (PlantDown, PlantRefused) as exc:
                self.skip(plant, exc)
                return None
        return self.indexes[plant.name]

    def skip(self, plant: Plant, exc: Exception) -> None:
        """Leaves the plant out of the rest of the run, saying why."""
        self.tally.skipped.setdefault(plant.name, str(exc))

    def masters(self, plant: Plant, collection: str) -> list[dict[str, Any]]:
        """A master collection's records of the plant, read once a run (for its table and for
        the names beside codes); none when the plant's index does not list it."""
        memo = (plant.name, collection)
        if memo not in self.lists:
            listed = collection in served(self.indexes.get(plant.name, {}))
            self.lists[memo] = self.clients[plant.name].records(collection) if listed else []
        return self.lists[memo]

    def named(self, plant: Plant, naming: Naming) -> dict[Any, str | None]:
        """Code -> name of the plant's master records, as the summaries name them (docs/api.md
        §7: the smallest id names a code); empty when its key does not read the masters."""
        memo = (plant.name, naming.master)
        if memo not in self.names:
            self.names[memo] = names_of(self.masters(plant, naming.master), naming)
        return self.names[memo]


def served(index: dict[str, Any]) -> set[str]:
    """The collections an index lists."""
    return {c["name"] for c in index.get("collections", ())}


def names_of(records: list[dict[str, Any]], naming: Naming) -> dict[Any, str | None]:
    """Code -> name: per code the record of the smallest id (one without an id only when none
    has one), the least name among records of that id."""
    def rank(r: dict[str, Any]) -> tuple[Any, ...]:
        name = r.get(naming.master_name)
        return (r.get("id") is None, r.get("id") or 0, name is None, name or "")
    chosen: dict[Any, str | None] = {}
    for record in sorted(records, key=rank, reverse=True):
        if record.get(naming.master_code) is not None:
            chosen[record[naming.master_code]] = record.get(naming.master_name)
    return chosen


def run_fleet(pipeline: dlt.Pipeline, fleet: Fleet, tally: Tally | None = None) -> Tally:
    """One run over the fleet: first the load an earlier run left unfinished (killed while
    loading: dlt would otherwise load only that and leave the source unread), then the
    source. What it read is in the Tally; dlt's PipelineStepFailed when a step fails."""
    tally = tally if tally is not None else Tally()
    if pipeline.has_pending_data:
        tally.resumed = True
        pipeline.run()
    pipeline.run(jembatan_source(fleet, tally), loader_file_format=file_format(pipeline))
    return tally


def file_format(pipeline: dlt.Pipeline) -> str | None:
    """JSON lines where the destination loads them (DuckDB, BigQuery, Snowflake, …), else
    its own default: DuckDB parsing dlt's default INSERT files took 2.4 GB of memory for the
    demo plant's 17,000 records, JSON lines 254 MB (docs/warehouse.md, "On a schedule")."""
    destination = pipeline.destination
    if destination is None:
        return None
    formats = destination.capabilities().supported_loader_file_formats
    return "jsonl" if "jsonl" in formats else None


def jembatan_source(fleet: Fleet, tally: Tally | None = None) -> DltSource:
    """The dlt source of the fleet's collections (all that each plant serves by default)."""
    plants = Plants(fleet, tally if tally is not None else Tally())
    wanted = [BY_NAME[name] for name in fleet.collections] if fleet.collections \
        else list(COLLECTIONS)

    @dlt.source(name="jembatan", max_table_nesting=0)
    def jembatan() -> list[DltResource]:
        return [*(collection_resource(c, plants) for c in wanted),
                fields_resource(wanted, plants)]
    return jembatan()


def collection_resource(c: Collection, plants: Plants) -> DltResource:
    """The table of one collection: its feed per plant, or its records whole (masters)."""
    rows = feed_rows if c.dates else master_rows
    return dlt.resource(rows(c, plants), name=c.name, write_disposition="merge",
                        primary_key=[PLANT, *c.identity], columns=columns_of(c))


def columns_of(c: Collection) -> dict[str, dict[str, Any]]:
    """dlt's column hints: each field's type, so that a column of NULLs so far is typed."""
    # Copies: dlt completes the hints it is given in place.
    hints = {PLANT: dict(TEXT), READ_AT: {"data_type": "timestamp", "dedup_sort": "desc"}}
    for name, f in c.schema().fields.items():
        if name != "numberrow":
            hints[name] = dict(next((t for kind, t in TYPES if isinstance(f, kind)), TEXT))
            if name in c.namings:
                hints[c.namings[name].name] = dict(TEXT)
    return hints


def feeds_of(c: Collection) -> tuple[str, ...]:
    """The `on` of each feed the collection is read through: its default, and `create`
    beside `update`, so that a record never changed since it was made (its update stamp
    NULL, which no update feed sends) arrives too."""
    extra = ("create",) if c.feed_on == "update" and "create" in c.dates else ()
    return (c.feed_on, *extra)


def feed_rows(c: Collection, plants: Plants) -> Iterator[list[dict[str, Any]]]:
    """Each plant's new and changed records since its bookmarks, until caught up."""
    state = dlt.current.resource_state()
    for plant, client in plants.reading(c.name):
        try:
            for on in feeds_of(c):
                bookmarks = state.setdefault("bookmarks", {}).setdefault(on, {})
                newest = state.setdefault("newest", {}).setdefault(on, {})
                yield from plant_feed(Feed(c, on, plant, client), plants, bookmarks, newest)
        except (PlantDown, PlantRefused) as exc:
            plants.skip(plant, exc)


@dataclass(frozen=True)
class Feed:
    """One plant's feed of a collection on one date pair."""

    collection: Collection
    on: str
    plant: Plant
    client: PlantClient


def plant_feed(feed: Feed, plants: Plants, bookmarks: dict[str, str],
               newest: dict[str, str]) -> Iterator[list[dict[str, Any]]]:
    """The feed, poll by poll, until caught up; the plant's bookmark kept with each page."""
    c, name = feed.collection, feed.plant.name
    since = None
    while True:
        try:
            poll = feed.client.changes(c.name, feed.on, bookmarks.get(name), since)
        except BookmarkRefused:
            if since is not None or name not in bookmarks:
                raise
            # The plant's secret changed: start again from the newest stamp copied
            # (docs/api.md §5.11); what comes again is merged away.
            del bookmarks[name]
            since = newest.get(name, "1753-01-01T00:00:00")
            continue
        rows = shaped(c, plants, feed.plant, poll.records)
        if poll.repeats:
            plants.tally.add(plants.tally.repeats, name, c.name, poll.repeats)
        bookmarks[name] = poll.bookmark
        stamp = newest_stamp(feed.on, poll, newest.get(name))
        if stamp:
            newest[name] = stamp
        if rows:
            yield rows
        if len(poll.records) - poll.repeats < plants.fleet.page_size:
            return


def newest_stamp(on: str, poll: Poll, before: str | None) -> str | None:
    """The newest `on` stamp among the poll's records and `before`, YYYY-MM-DDTHH:MM:SS."""
    day, time = DATE_PAIRS[on]
    stamps = [f"{r[day]}T{(r.get(time) or '00:00:00')[:8]}"
              for r in poll.records if r.get(day)]
    return max([*stamps, *([before] if before else [])], default=None)


def master_rows(c: Collection, plants: Plants) -> Iterator[list[dict[str, Any]]]:
    """Each plant's records of a master collection, whole."""
    for plant, _ in plants.reading(c.name):
        try:
            records = plants.masters(plant, c.name)
        except (PlantDown, PlantRefused) as exc:
            plants.skip(plant, exc)
            continue
        rows = shaped(c, plants, plant, records)
        if rows:
            yield rows


def shaped(c: Collection, plants: Plants, plant: Plant, records: list[dict[str, Any]]
           ) -> list[dict[str, Any]]:
    """The warehouse's rows: the plant first, the fields, names beside codes; a record
    without a key cannot be kept once, so it is counted (Tally.keyless), not loaded."""
    names = {code: plants.named(plant, n) for code, n in c.namings.items()}
    read_at = plants.read_now()
    rows = []
    for record in records:
        if any(record.get(k) is None for k in c.identity):
            plants.tally.add(plants.tally.keyless, plant.name, c.name, 1)
            continue
        row: dict[str, Any] = {PLANT: plant.name, READ_AT: read_at}
        for name, value in record.items():
            if name == "numberrow":
                continue
            row[name] = value
            if name in names:
                row[c.namings[name].name] = None if value is None else names[name].get(value)
        rows.append(row)
    plants.tally.add(plants.tally.records, plant.name, c.name, len(rows))
    return rows


def fields_resource(wanted: list[Collection], plants: Plants) -> DltResource:
    """The table `fields`: per plant and collection, which column holds which API field,
    and the site's label for it (its `[site.fields]`, docs/api.md §12)."""
    def rows() -> Iterator[list[dict[str, Any]]]:
        naming = dlt.current.source_schema().naming
        for c in wanted:
            for plant, _ in plants.reading(c.name):
                labels = plants.indexes[plant.name].get("labels") or {}
                yield [{PLANT: plant.name, "collection": c.name, "field": name,
                        "column": naming.normalize_identifier(name),
                        "label": labels.get(name)}
                       for name in columns_of(c) if name not in (PLANT, READ_AT)]
    return dlt.resource(rows(), name="fields", write_disposition="merge",
                        primary_key=[PLANT, "collection", "field"],
                        columns={name: dict(TEXT) for name in
                                 (PLANT, "collection", "field", "column", "label")})
