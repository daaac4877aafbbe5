"""Which served collections are not mapped yet, and why: a collection whose mapping is not
finished is not served as if it were.

The factory builds one `Unmapped` at start: each collection whose `records` query still has
a select-list line marked `-- TODO` (draft-mapping's mark of a field left to map) gets a
`Reason`. Any other check may add one (`Unmapped.add`). The service still starts and the
other collections keep serving; such a collection keeps its routes, its place in the index
and its documentation, but `Unmapped.check` refuses each read of it with `NotMapped`, which
the HTTP face answers as a 503 (app/http/errors.py), /health lists it and the log says it once at
start. A field given as `NULL AS "field"` without the TODO is the site's decision (no such
column there): that collection is served, unless the field is a dated collection's main date
(its default `on`: tgl_dt1, tanggal, tgl_create), without which every range, summary and
report day of it would be empty rather than an error.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.sqlfiles import is_name_line, parse_file
from ..database.sqltext import null_fields, todo_fields
from ..model.collections import DATE_PAIRS, Collection
from . import proof, verdicts

log = logging.getLogger("jembatan")

NOT_MAPPED = "not mapped yet"
TODO = "still marked -- TODO"  # the problem of fields a draft left to map
# The problem of a dated collection's main date given as NULL (main_date): every range,
# summary and report day of its default `on` would be empty, never an error.
MAIN_DATE_NULL = ("given as NULL where the main date belongs (the default `on` of its "
                  "ranges and summaries, and the report's)")
# The problem of fields the proof found mapped wrong (app/core/proof.py).
UNPROVEN = "mapped so that a read misses or repeats the site's own records"
# The problem of a collection whose records query the database refuses (app/core/mapped.py).
REFUSED = "the database refuses"
# Every reason a served collection answers 503 "not mapped yet" for (Reason.problem): what
# `serve --check-config` says, each in its words (app/console/serving.py `unserved`), and
# tests/test_check_config.py tries, each on every engine. Unmapped.add takes no other.
PROBLEMS = (TODO, MAIN_DATE_NULL, UNPROVEN, REFUSED)
# Records each collection's reads are asked for at its first read: check-sql asks for
# proof.PROVEN; this is the part that is cheap enough before a request's answer.
FIRST_READ_RECORDS = 3


@dataclass(frozen=True)
class Reason:
    """Why a collection is not served: some of its fields are not mapped right yet."""

    fields: tuple[str, ...]  # the fields concerned, in the record's order
    problem: str  # what is wrong with them, words a client may read (no path, no SQL): TODO
    file: Path  # the mapping file to correct: clients are told its name, the log its path
    detail: str = ""  # where in the file and what, when one place says it (app/core/mapped.py)

    def said(self, full_path: bool = False) -> str:
        """'2 fields still marked -- TODO in transactions.sql: id, vehno'; with no field,
        'a query the database refuses in shapes.sql'; then the detail."""
        n = len(self.fields)
        where = str(self.file) if full_path else self.file.name
        detail = f" ({self.detail})" if self.detail else ""
        if not n:
            return f"a query {self.problem} in {where}{detail}"
        return (f"{n} field{'s' if n != 1 else ''} {self.problem} in {where}: "
                f"{', '.join(self.fields)}{detail}")


class NotMapped(Exception):
    """A read of a collection that is not mapped yet (Unmapped.check)."""

    def __init__(self, collection: str, message: str, fields: tuple[str, ...]):
        super().__init__(message)
        self.collection, self.message, self.fields = collection, message, fields


class Unmapped:
    """The served collections that are not mapped yet, each with its reasons."""

    def __init__(self) -> None:
        self._reasons: dict[str, list[Reason]] = {}
        self._lock = threading.Lock()  # a request may add one while others read them

    def add(self, collection: str, reason: Reason) -> bool:
        """Mark `collection` not mapped yet for `reason` (one more, if it has some); False
        when it has that problem already."""
        if reason.problem not in PROBLEMS:
            raise ValueError(f"{reason.problem!r} is not one of unmapped.PROBLEMS")
        with self._lock:
            had = self._reasons.get(collection, [])
            if any(r.problem == reason.problem for r in had):
                return False
            self._reasons[collection] = [*had, reason]
            return True

    def lift(self, collection: str, problem: str) -> bool:
        """Take back `collection`'s reason of `problem` (the database runs its records
        again: app/core/mapped.py `Checks`); False when it had none."""
        with self._lock:
            had = self._reasons.get(collection, [])
            kept = [r for r in had if r.problem != problem]
            if len(kept) == len(had):
                return False
            if kept:
                self._reasons[collection] = kept
            else:
                del self._reasons[collection]
            return True

    def problems(self, collection: str) -> set[str]:
        """The problems `collection` is not mapped for (empty: it is)."""
        return {r.problem for r in self.reasons(collection)}

    def __bool__(self) -> bool:
        return bool(self._reasons)

    def __contains__(self, collection: object) -> bool:
        return collection in self._reasons

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._reasons))

    def reasons(self, collection: str) -> tuple[Reason, ...]:
        return tuple(self._reasons.get(collection, ()))

    def fields(self, collection: str) -> list[str]:
        """Every field some reason names, each once, in the order the reasons name them."""
        return list(dict.fromkeys(f for r in self.reasons(collection) for f in r.fields))

    def by_collection(self) -> dict[str, list[str]]:
        """{collection: its fields}, as /health lists them."""
        return {c: self.fields(c) for c in list(self._reasons)}

    def message(self, collection: str) -> str:
        """What a client is told for each read of `collection`."""
        said = "; ".join(r.said() for r in self.reasons(collection))
        mend = "maps those fields" if self.fields(collection) else "corrects its mapping"
        return (f"{collection} is {NOT_MAPPED}: {said}. Its records are not served until "
                f"the operator {mend}, runs `jembatan check-sql "
                f"{collection}` and restarts Jembatan.")

    def check(self, collection: str) -> None:
        """Nothing when `collection` may be read; else NotMapped, saying why."""
        if collection in self._reasons:
            raise NotMapped(collection, self.message(collection),
                            tuple(self.fields(collection)))

    def warn(self) -> None:
        """One WARNING line per collection not mapped yet: the file, the fields, what to do."""
        for collection, reasons in self._reasons.items():
            log.warning("%s is %s: %s. Every route of %s answers 503 until they are mapped: "
                        "write each one's column or expression (or keep its NULL and drop "
                        "the TODO where the site has no such column), run `jembatan "
                        "check-sql %s`, then restart Jembatan", collection, NOT_MAPPED,
                        "; ".join(r.said(full_path=True) for r in reasons), collection,
                        collection)



def left_to_map(path: Path, c: Collection) -> tuple[str, ...]:
    """The fields of `c` that a `records` query of its file (any dialect's text) still marks
    `-- TODO`, in the record's order."""
    marked = {f for block in parse_file(path) if block.name == "records"
              for f in todo_fields(block.text)}
    return tuple(f for f in c.fields if f in marked)


def marked_line(path: Path, field: str, marks: Callable[[str], list[str]]) -> int | None:
    """The first line of a `records` query of `path` (any dialect's text) on which `marks`
    (todo_fields, null_fields) finds `field`: where the operator corrects it; else None."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for block in parse_file(path):
        if block.name != "records":
            continue
        n = int(block.source.rpartition(":")[2]) + 1
        while n <= len(lines) and not is_name_line(lines[n - 1]):
            if field in marks(lines[n - 1]):
                return n
            n += 1
    return None


def main_date(c: Collection) -> str | None:
    """The date field of a dated collection's default `on` (tgl_dt1, tanggal), else None."""
    return DATE_PAIRS[c.dates[0]][0] if c.dates else None


def main_date_null(path: Path, c: Collection) -> bool:
    """Whether a `records` query of `c`'s file (any dialect's) gives its main date as NULL."""
    main = main_date(c)
    return main is not None and any(main in null_fields(block.text)
                                    for block in parse_file(path) if block.name == "records")


def from_mapping(files: dict[str, Path], collections: Sequence[Collection]) -> Unmapped:
    """The collections whose mapping file (by name in `files`) still has TODO lines, or
    gives a dated collection's main date as NULL."""
    unmapped = Unmapped()
    for c in collections:
        todo = left_to_map(files[c.name], c)
        if todo:
            unmapped.add(c.name, Reason(todo, TODO, files[c.name]))
        main = main_date(c)
        if main and main not in todo and main_date_null(files[c.name], c):
            unmapped.add(c.name, Reason((main,), MAIN_DATE_NULL, files[c.name]))
    return unmapped


class Proving:
    """Each served collection's reads proven on a few of its own records (app/core/proof.py),
    in the background, from the first request of that collection in a process: no request
    waits longer than `wait` seconds after that first one (docs/operations.md, "The proof of
    the mapping"). The verdict is kept (app/core/verdicts.py): a process that finds one made
    on the same mapping and database, for the table in a state it still holds, does not
    prove again, and a kept wrong one refuses the collection at once. One whose reads miss
    or repeat a record is marked not mapped yet (its routes answer 503) and the log says
    why. While the database cannot be reached nothing is decided: the next request tries
    again; a read that fails on the way (a query the site mapped wrong) leaves it served
    unproven, each read answering its own error."""

    def __init__(self, db: Database, collections: Sequence[Collection],
                 files: dict[str, Path], unmapped: Unmapped, keeper: verdicts.Keeper,
                 wait: float):
        self.db, self.files, self.unmapped, self.keeper = db, files, unmapped, keeper
        self.wait = wait
        self.by = "jembatan serve"  # who proves, as a kept verdict names it (with the pid)
        self.pending = {c.name: c for c in collections if c.name not in unmapped}
        self.mappings = {name: verdicts.mapping_digest(c, files)
                         for name, c in self.pending.items()}
        self.lock = threading.Lock()  # one proof at a time in a process
        self.starting = threading.Lock()  # guards `running`
        self.running: dict[str, tuple[threading.Event, float]] = {}  # decided, wait until
        self.refused: dict[str, verdicts.Verdict] = {}  # the wrong verdicts it acted on

    def refuse_kept(self) -> None:
        """At start: each collection whose kept verdict, on this mapping, is wrong is refused
        at once (/health says so before any read), and the log says why."""
        for name in list(self.pending):
            self.kept_wrong(name)

    def kept_wrong(self, name: str) -> bool:
        """Refuse `name` at once when its kept verdict, on this mapping, is wrong."""
        kept = self.keeper.read(name, self.mappings[name])
        if kept is None or kept.right or self.pending.pop(name, None) is None:
            return False
        self.refuse(name, kept)
        return True

    def ensure(self, collection: str) -> None:
        """Start proving `collection` in the background unless it is proven (or marked)
        already; wait for its verdict until `wait` seconds after the proof began."""
        if collection not in self.pending:
            return
        with self.starting:
            if collection not in self.running:
                if self.kept_wrong(collection):
                    return
                kept = self.keeper.read(collection, self.mappings[collection])
                # A verdict kept right: served at once while the table's state is read.
                until = time.monotonic() + (0 if kept else self.wait)
                decided = threading.Event()
                self.running[collection] = (decided, until)
                threading.Thread(target=self.run, args=(collection, decided), daemon=True,
                                 name=f"jembatan-proof-{collection}").start()
            decided, until = self.running[collection]
        if (left := until - time.monotonic()) > 0:
            decided.wait(left)

    def prove_all(self) -> None:
        """Every collection not decided yet, one after the other, in this thread: what the
        prover that gunicorn's master starts does (app/console/prover.py)."""
        for name in list(self.pending):
            decided = threading.Event()
            with self.starting:
                if name in self.running:
                    continue
                self.running[name] = (decided, 0.0)
            self.run(name, decided)

    def run(self, collection: str, decided: threading.Event) -> None:
        """The background proof of one collection: one at a time in this process, and one
        process at a time on a kept verdict's directory (its siblings then find it)."""
        try:
            with self.lock, self.keeper.lock(collection):
                self.decide(collection)
        except DatabaseUnavailable:  # the requests answer 503; the next one tries again
            with self.starting:
                self.running.pop(collection, None)
        except QueryFailed:  # records itself fails: each read says so (check-sql too)
            self.pending.pop(collection, None)
        except Exception:  # a fault of the proof's own: logged, the collection served
            log.exception("the proof of %s failed; it is served unproven", collection)
            self.pending.pop(collection, None)
        finally:
            decided.set()

    def decide(self, collection: str) -> None:
        """Take the kept verdict where it holds, else prove, keep the verdict and act on it."""
        c, mapping = self.pending.get(collection), self.mappings[collection]
        if c is None or self.kept_wrong(collection):  # a sibling found it wrong meanwhile
            return
        state = verdicts.table_state(self.db, c)
        kept = self.keeper.read(collection, mapping)  # right, if any
        if kept is not None and kept.holds(*state):
            log.info("%s: not proven again: the verdict kept in %s holds (right on %d "
                     "records, by %s at %s, when it held %d records; it holds %d)",
                     collection, self.keeper.path(collection), kept.records, kept.by,
                     kept.at, kept.count, state[0])
            self.pending.pop(collection, None)
            return
        begun = time.monotonic()
        findings = proof.confirmed(self.db, c, records=FIRST_READ_RECORDS)
        self.pending.pop(collection, None)
        if failed := [f for f in findings if not f.field]:  # a read itself failed
            log.info("%s is served unproven: a read failed while proving it (%s); "
                     "run `jembatan check-sql %s`", collection, failed[0].cause,
                     collection)
            return
        verdict = verdicts.made(c, mapping, self.keeper, state, findings,
                                FIRST_READ_RECORDS, f"{self.by} (pid {os.getpid()})")
        self.keeper.write(verdict)
        if findings:
            self.refuse(collection, verdict)
        else:
            log.info("%s proven on %d of its records in %.1f s: every read finds each "
                     "exactly once", collection, FIRST_READ_RECORDS,
                     time.monotonic() - begun)

    def refuse(self, collection: str, verdict: verdicts.Verdict) -> None:
        """Mark `collection` not mapped yet for a wrong verdict, and say why in the log."""
        self.refused[collection] = verdict
        self.unmapped.add(collection, Reason(verdict.fields, UNPROVEN, self.files[collection]))
        log.warning("%s is %s: proven on %d of its records by %s at %s, %s. Every route of "
                    "%s answers 503: run `jembatan check-sql %s` for every finding, correct "
                    "the mapping, then restart Jembatan", collection, NOT_MAPPED,
                    verdict.records, verdict.by, verdict.at, "; ".join(verdict.findings),
                    collection, collection)


def read_guard(unmapped: Unmapped, proving: Proving | None,
               recheck: Callable[[], None] | None = None) -> Callable[[str], None]:
    """What a read of a collection passes first, whatever face asks: its proof on the first
    read, and NotMapped for one not mapped yet; a read of one the database refused asks for
    the mapping's check again (`recheck`: app/core/mapped.py `Checks.due`, at its pace), so
    that a database corrected under the service is found without /health."""
    def guard(collection: str) -> None:
        if proving is not None:
            proving.ensure(collection)
        if unmapped:
            again = recheck if REFUSED in unmapped.problems(collection) else None
            try:
                unmapped.check(collection)  # this read: as the last check left it
            finally:
                if again is not None:
                    again()
    return guard
