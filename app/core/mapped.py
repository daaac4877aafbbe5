"""A mapping the database refuses fails loudly: a column or a table its `records` query names
and the database lacks, or a syntax the database refuses (`MappingFault` of
app/database/failures.py), never a 500.

- At start (`jembatan serve`, `serve --check-config`, `wsgi.py`: app/console/serving.py),
  each served collection's mapping is tried once (database.sql's `mapped`: its records, no
  row read), and a refusal ends the start with the file, the line and the column in words,
  and the database's own message.
- While the service runs, a read whose query the database refuses in that way (a column
  renamed or dropped under it) marks the collection not mapped (`Unmapped`,
  app/core/unmapped.py): its routes answer 503 saying where and what, /health is degraded
  and lists it, the log says it once.
- Each worker tries every mapping again (`Checks`), in the background and never in a
  request: when /health, or a read of a collection marked so, comes `database.mapping_check`
  seconds or more after the last check, one check at a time. A name or a syntax the
  database refuses marks the collection; records that run again take a mark back (a
  database corrected under the service is served again without a restart); any other
  failure (a timeout, SQL Server's 8628) decides nothing and is tried at the next check.
- On SQLite, which reads a double-quoted name that is no column as a string, the mapping is
  sent (to be tried, and in every read) with its names [bracketed] (app/database/loading.py),
  so that a column the table lacks is refused there as on the other engines.
- A database that cannot be reached decides nothing: the start goes on (its reads answer
  503 as the database's state), and the first read or /health that reaches it tries again.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.failures import MappingFault
from ..database.queries import MAPPED
from ..model.collections import Collection
from .unmapped import NOT_MAPPED, REFUSED, NotMapped, Reason, Unmapped

__all__ = ["REFUSED", "Checks", "Refusal", "Refusals", "mark", "rechecked", "refusal", "tried"]

log = logging.getLogger("jembatan")


@dataclass(frozen=True)
class Refusal:
    """A collection's mapping refused by the database: what the client is told (`reason`)
    and the operator's sentence (`said`: file, line, column, the database's words)."""

    collection: str
    reason: Reason
    said: str


def refusal(db: Database, collection: str, exc: QueryFailed,
            dialect: str | None) -> Refusal | None:
    """The refusal a failed query of `collection` is, when the database refused a name or
    the syntax of its text, or refused `mapped` (its records alone) in any way; None for
    any other failure of a read (the query's own, a 500)."""
    fault = exc.fault or (MappingFault("query", "") if exc.query == MAPPED else None)
    if fault is None:
        return None
    path, line, column, field = db.queries.place(collection, fault.name, dialect,
                                                 exc.query or "records",
                                                 once=fault.kind == "syntax")
    if fault.kind == "syntax":
        field = None  # the line it is near, not a field's mapping, is at fault
    at = f"line {line}" + (f", column {column}" if column else "")
    what = fault.said()
    records = db.queries.get(collection, "records", dialect).source.rpartition(":")[0]
    query = "records" if path == records else exc.query  # a site's own read, or its shape
    reason = Reason((field,) if field else (), REFUSED, Path(path),
                    f"the {query} query, {at}: {what}")
    given = f", the line that gives {field}" if field else ""
    said = (f"{path} {at}: {what} (the {query} query of {collection}{given}); the database "
            f"says: {exc.detail}")
    return Refusal(collection, reason, said)


def mark(unmapped: Unmapped, found: Refusal, say: bool = True) -> None:
    """Mark the collection not mapped for this refusal, and say so once in the log."""
    if unmapped.add(found.collection, found.reason) and say:
        log.error("%s is %s: %s. Every route of %s answers 503 until the mapping (or the "
                  "database) is corrected: run `jembatan check-sql %s`, then restart "
                  "Jembatan (a database corrected is found without a restart, by the next "
                  "mapping check: database.mapping_check)", found.collection, NOT_MAPPED,
                  found.said, found.collection, found.collection)


def tried(db: Database, collections: Sequence[Collection], unmapped: Unmapped,
          say: bool = True, checks: Checks | None = None) -> list[Refusal]:
    """Each collection's mapping tried once on the database, without reading a row; the
    refusals, each collection marked not mapped (and said in the log, unless the caller
    says them itself). Nothing is decided (an empty list, or those found so far) once the
    database cannot be reached; else `checks` counts it as its check (the start's)."""
    found: list[Refusal] = []
    for c in collections:
        if c.name in unmapped:
            continue
        try:
            db.execute(c.name, MAPPED).all()
        except DatabaseUnavailable:
            break
        except QueryFailed as exc:
            try:
                refused = refusal(db, c.name, exc, db.dialect())
            except DatabaseUnavailable:
                break
            if refused is not None:
                mark(unmapped, refused, say)
                found.append(refused)
    else:
        if checks is not None:
            checks.done()
    return found


def rechecked(db: Database, collections: Sequence[Collection], unmapped: Unmapped) -> bool:
    """The mapping's check while the service runs: each collection's records tried again,
    no row read, except one not mapped for another reason than the database's refusal (a
    TODO, a wrong verdict: a restart decides those). A name or a syntax refused marks it; a
    mark taken back where records run; any other failure leaves it as it was, said in the
    log. False when the database could not be reached (the check is not done)."""
    for c in collections:
        if unmapped.problems(c.name) - {REFUSED}:
            continue
        try:
            db.execute(c.name, MAPPED).all()
        except DatabaseUnavailable:
            return False
        except QueryFailed as exc:
            if exc.fault is None:  # not a name or a syntax: the next check tries again
                log.warning("the mapping check of %s failed, which decides nothing (tried "
                            "again at the next check): %s", c.name, exc.detail)
                continue
            try:
                found = refusal(db, c.name, exc, db.dialect())
            except DatabaseUnavailable:
                return False
            if found is not None:
                mark(unmapped, found)
            continue
        if unmapped.lift(c.name, REFUSED):
            log.warning("%s is served again: the database runs its records query", c.name)
    return True


class Checks:
    """The mapping's check of one worker (`rechecked`), at a pace: at most one every `pace`
    seconds, in a thread of its own, so that no request waits for it or pays its queries,
    and callers that come while one runs share it. A check the database cut short (out of
    reach) is due again at once."""

    def __init__(self, db: Database, collections: Sequence[Collection], unmapped: Unmapped,
                 pace: float, clock: Callable[[], float] = time.monotonic):
        self.db, self.collections, self.unmapped = db, tuple(collections), unmapped
        self.pace, self.clock = pace, clock
        self.last = -math.inf  # when the last check began (-inf: none done)
        self.thread: threading.Thread | None = None  # the check running, or the last one
        self._lock = threading.Lock()

    def done(self) -> None:
        """A check was done now in the caller's thread (the start's `tried`)."""
        with self._lock:
            self.last = self.clock()

    def due(self) -> None:
        """Begin a check in the background when the last began `pace` seconds ago or more
        and none is running; else nothing."""
        with self._lock:
            running = self.thread is not None and self.thread.is_alive()
            if running or self.clock() - self.last < self.pace:
                return
            self.last = self.clock()
            self.thread = threading.Thread(target=self._run, daemon=True,
                                           name="jembatan-mapping-check")
            self.thread.start()

    def _run(self) -> None:
        try:
            complete = rechecked(self.db, self.collections, self.unmapped)
        except Exception:  # a fault of the check's own: logged, tried at the next one
            log.exception("the mapping check failed")
            complete = True
        finally:
            self.db.release()  # this thread serves no request: no session kept for it
        if not complete:
            with self._lock:
                self.last = -math.inf


class Refusals:
    """What the runner (app/core/reads.py) asks of a read that failed: a NotMapped to raise
    instead, when the database refused the collection's mapping, the collection marked."""

    def __init__(self, db: Database, unmapped: Unmapped):
        self.db, self.unmapped = db, unmapped

    def instead(self, collection: str, exc: QueryFailed) -> NotMapped | None:
        """A fault of its text (a name, the syntax) is the mapping's; any other error is
        the mapping's when its records alone fail too (`mapped`, tried then), else the
        read's own (a 500)."""
        try:
            dialect = self.db.dialect()
            found = refusal(self.db, collection, exc, dialect)
            if found is None:
                try:
                    self.db.execute(collection, MAPPED).all()
                except QueryFailed as failed:
                    found = refusal(self.db, collection, failed, dialect)
        except DatabaseUnavailable:
            return None
        if found is None:
            return None
        mark(self.unmapped, found)
        return NotMapped(collection, self.unmapped.message(collection),
                         tuple(self.unmapped.fields(collection)))
