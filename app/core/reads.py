"""The runner: a planned read (`Read`, made by app/core/plan.py) run on the database and answered
as rows, the same way for every collection and every face.

A part of a read (a `Window`) is counted when asked and read whole; a record by key is read
whole; a list, a range or a summary is read whole when small, and otherwise answered as an
open result whose rows are read as they are sent (`Rows.stream`). A site's `records` query
that lacks a field fails here, before a row is read. Nothing here knows HTTP: the HTTP face
(app/http/answers.py) and the MCP tools (app/mcp/tools.py) turn `Rows` into their wire forms.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from ..database.db import Database, DatabaseUnavailable, QueryFailed, Result, ValueRefused
from ..database.filters import Filter
from ..formats.registry import Encoder
from ..model import params
from ..model.collections import QueryName
from ..model.problems import Absent
from ..model.schemas import ValueMisfit
from ..ops.metrics import Metrics
from .clock import plant_now
from .mapped import Refusals

# The runner's failures, which each face turns into its wire form: re-exported here, so that
# a face imports nothing of app/database/.
__all__ = ["WHOLE_ROWS", "DatabaseUnavailable", "Pulse", "QueryFailed", "Read", "RowEncoder",
           "Rows", "Runner", "ValueRefused", "Window"]

log = logging.getLogger("jembatan")

# A list or range that ends within its first WHOLE_ROWS records is read whole: a thread and
# a spool (app/http/streaming.py) only pay for themselves on larger results.
WHOLE_ROWS = 2000


class RowEncoder(Encoder, Protocol):
    """An encoder that also turns a query's rows into the values sent."""

    def columns_missing(self, columns: Sequence[str]) -> list[str]: ...
    def values(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               first: int | None = None) -> list[tuple[Any, ...]]: ...


@dataclass(frozen=True)
class Window:
    """A part of a read: `size` records after the first `skip`, and the query that counts
    the whole of what it is a part of (None: not counted)."""

    skip: int
    size: int
    count: QueryName | None = None

    def values(self) -> dict[str, int]:
        """Its rows as both ROW_NUMBER bounds and LIMIT/OFFSET (sql/shapes.sql)."""
        return params.rows(self.skip, self.size)


@dataclass(frozen=True)
class Read:
    """One read, planned: what is read, with what, and how much of it."""

    collection: str  # whose queries (sql/<collection>.sql)
    query: QueryName
    encoder: RowEncoder  # the collection's records, or a summary's groups
    values: Mapping[str, Any] = field(default_factory=dict)  # bound values (a range's bounds)
    filters: tuple[Filter, ...] = ()
    fields: Sequence[str] | None = None  # only these fields, in this order
    numbered: bool = False  # numberrow counts from the first row read (unfiltered lists)
    window: Window | None = None  # a part of the read; None: all of it
    by: tuple[str, ...] = ()  # a summary's groups
    absent: str = ""  # a read of one record: the message when there is none
    whole: bool = False  # read whole whatever its size (the feed: its query bounds it)
    also: tuple[str, ...] = ()  # columns read beside the record (the feed's clock)

    @property
    def name(self) -> str:
        """What its records are called where they are named (an Excel sheet)."""
        return "summary" if self.by else self.collection

    @property
    def streams(self) -> bool:
        """Whether its answer may be too large to read whole (a list, range or summary)."""
        return not (self.absent or self.window or self.whole)


@dataclass
class Rows:
    """What a read answers: its records' values, read whole, or an open result to stream."""

    read: Read
    values: list[tuple[Any, ...]] = field(default_factory=list)
    total: int | None = None  # a counted window: how many records the whole read has
    stream: Result | None = None  # too large to read whole: read as it is sent
    first: int | None = None  # a stream's numberrow of its first record
    also: list[tuple[Any, ...]] = field(default_factory=list)  # Read.also, row by row


class Runner:
    """Runs reads on the app's database (one per app, shared by every collection)."""

    def __init__(self, db: Database, refusals: Refusals | None = None):
        self.db = db
        self.refusals = refusals  # a mapping the database refuses: 503, not a 500

    def run(self, read: Read) -> Rows:
        """The rows of a read: one record (Absent when none), a window, or all of it; a
        NotMapped when the database refuses the collection's mapping (app/core/mapped.py)."""
        try:
            return self._run(read)
        except QueryFailed as exc:
            self._refused(read.collection, exc)
            raise

    def _run(self, read: Read) -> Rows:
        if read.absent:
            rows = (self._window(read, params.INT64_MAX) if read.window
                    else self._rows(read, read.values, limit=1))
            if not rows.values:
                raise Absent(read.absent)
            return rows
        if read.window is not None:
            total = (None if read.window.count is None else
                     self.db.count(read.collection, read.window.count, read.values,
                                   read.filters))
            return self._window(read, params.INT64_MAX if total is None else total)
        if read.whole:
            return self._rows(read, read.values)
        return self._all(read)

    def count(self, collection: str, query: QueryName, values: Mapping[str, Any],
              filters: Sequence[Filter]) -> int:
        """A count query's answer (sql/shapes.sql `count`, `range_count`), as a page's
        X-Pagination has it; a NotMapped where the database refuses the mapping."""
        try:
            return self.db.count(collection, query, values, filters)
        except QueryFailed as exc:
            self._refused(collection, exc)
            raise

    def _refused(self, collection: str, exc: QueryFailed) -> None:
        """A NotMapped instead of `exc` where the database refuses the mapping."""
        instead = self.refusals and self.refusals.instead(collection, exc)
        if instead:
            raise instead from None

    def ping(self) -> None:
        """One round trip, for an answer that reads nothing but must still say 503 when the
        database cannot be reached."""
        self.db.ping()

    @property
    def metrics(self) -> Metrics | None:
        """The app's metrics, which the database's reads are counted in (None: not counted)."""
        return self.db.metrics

    def plant_now(self, zone: ZoneInfo | None) -> dt.datetime:
        """The database server's clock as the plant's stamps are written (app/core/clock.py)."""
        return plant_now(self.db, zone)

    def report_misfit(self, collection: str, exc: ValueMisfit, request_id: str) -> None:
        """Log a value that does not fit its field, with the mapping line that gives it, and
        count it for /health and /metrics (also from a stream's reading thread)."""
        try:
            line = self.db.queries.field_line(collection, exc.field, self.db.dialect())
        except Exception:  # noqa: BLE001 - the report must not fail on the way to the log
            line = f"the records query of {collection}"
        log.error("request %s: the mapping of %s gives %s a value that does not fit: %s. No "
                  "record is sent with it; correct %s (jembatan check-sql %s shows every "
                  "such field)", request_id, collection, exc.field or "a field", exc, line,
                  collection)
        if self.metrics is not None:
            self.metrics.mapping_error(collection, exc.field, exc.expected)

    def _window(self, read: Read, total: int) -> Rows:
        """The records of the read's window of `total` rows; no query beyond the last."""
        assert read.window is not None
        counted = None if read.window.count is None else total
        window = read.window
        if window.skip >= total or window.skip + window.size > params.INT64_MAX:
            return Rows(read, total=counted)
        first = window.skip + 1 if read.numbered else None
        rows = self._rows(read, {**read.values, **window.values()}, first=first)
        rows.total = counted
        return rows

    def _rows(self, read: Read, values: Mapping[str, Any], limit: int | None = None,
              first: int | None = None) -> Rows:
        """A result read whole (or its first `limit` rows) before anything is sent."""
        result = self._checked(read, self.db.execute(
            read.collection, read.query, values, read.filters, read.by))
        raw = result.all()[:limit]
        also = [result.columns.index(name) for name in read.also]
        return Rows(read, read.encoder.values(result.columns, raw, first),
                    also=[tuple(r[i] for i in also) for r in raw] if also else [])

    def _checked(self, read: Read, result: Result) -> Result:
        """A site's SQL that lacks a field fails before any row is read, instead of
        sending records without it."""
        missing = read.encoder.columns_missing(result.columns)
        missing += [name for name in read.also if name not in result.columns]
        if missing:
            result.close()
            raise QueryFailed(f"{result.what} returns no column {', '.join(missing)}")
        return result

    def _all(self, read: Read) -> Rows:
        """A list, a range or a summary: read whole when small, else left open to stream."""
        result = self._checked(read, self.db.execute(
            read.collection, read.query, read.values, read.filters, read.by))
        first = 1 if read.numbered else None
        if result.read_ahead(WHOLE_ROWS):  # small: read whole, its cursor already closed
            return Rows(read, read.encoder.values(result.columns, result.all(), first))
        return Rows(read, stream=result, first=first)


class Pulse:
    """/health's ping (`Runner.ping`): one at a time in a worker, and the calls that come
    while it is on its way take its answer, whatever it is; the database reached is kept
    `keep` seconds more (0: not kept), so that however many poll /health, a worker pings a
    database that answers at most once every `keep` seconds. A failure is not kept beyond
    the calls that waited for it: the next call after it tries again, and finds the
    database back at once."""

    def __init__(self, runner: Runner, keep: float,
                 clock: Callable[[], float] = time.monotonic):
        self.runner, self.keep, self.clock = runner, keep, clock
        self._lock = threading.Lock()
        self._pings = 0  # pings answered so far
        self._answer: str | None = None  # the last one's: None (reached) or why not
        self._reached = -math.inf  # when the database last answered one

    def reached(self) -> str | None:
        """None when the database answered a ping within the last `keep` seconds, or now;
        else why not: a DatabaseUnavailable's reason, or "query failed"."""
        arrived = self._pings
        with self._lock:
            if self._pings != arrived:  # a ping answered while this call waited for it
                return self._answer
            if self.clock() - self._reached < self.keep:
                return None
            try:
                self.runner.ping()
                self._answer, self._reached = None, self.clock()
            except DatabaseUnavailable as exc:
                self._answer = exc.reason
            except QueryFailed:
                self._answer = "query failed"
            self._pings += 1
            return self._answer
