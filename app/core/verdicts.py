"""The proof's verdicts, kept where every process of a deployment finds them.

A verdict says whether a collection's reads found each of its proven records exactly once
(app/core/proof.py), and what it was proven on: a digest of the mapping texts the reads are
made of (the collection's own file, shapes.sql, names.sql, and the proof's own code), a
digest of the database it was read from (its description, with no password), and the
table's state (its count of records and a digest of its first record in canonical order).
It is one JSON file per collection and database in the directory `database.proof_dir`
(docs/operations.md, "The proof of the mapping"), written whole to a temporary file and
renamed over the old one, so a reader sees the old verdict or the new one, never a part.
A lock file beside it lets one process prove while the others wait for its verdict. A
directory that cannot be written (a read-only filesystem) is said once in the log, and the
process then proves on its own; serving never depends on it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from ..database.db import Database
from ..database.queries import NAMES_FILE, PARAMETERS, SHAPES_FILE
from ..model import params
from ..model.collections import Collection
from ..ops.config import unsafe_place
from . import proof

try:  # POSIX; on Windows (IIS, waitress: one process) each verdict is written unlocked
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms the tests run on
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("jembatan")

FORMAT = 1  # the files' layout; a file of another is not read
_RULES = hashlib.sha256(Path(proof.__file__).read_bytes()).hexdigest()  # the proof's own code


def digest(*texts: str) -> str:
    """A short SHA-256 of texts, each kept apart from the next."""
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()[:32]


def mapping_digest(c: Collection, files: Mapping[str, Path]) -> str:
    """What a collection's reads are made of: its file, shapes.sql and names.sql as written
    (any dialect's text), its fields, and the proof's own code."""
    texts = [c.name, ",".join(c.fields), _RULES]
    for stem in (c.name, SHAPES_FILE, NAMES_FILE):
        path = files.get(stem)
        texts.append(path.read_text(encoding="utf-8", errors="surrogateescape")
                     if path is not None else "")
    return digest(*texts)


def table_state(db: Database, c: Collection) -> tuple[int, str]:
    """The table's state, read cheaply: its count of records, and a digest of its first
    record in canonical order (the page view's first page of one)."""
    count = db.scalar(c.name, "count")
    result = db.execute(c.name, "page", {k: v for k, v in params.window(1, 1).items()
                                         if k in PARAMETERS["page"]})
    return count, digest(repr([tuple(row) for row in result.all()]))


@dataclass(frozen=True)
class Verdict:
    """A proof's verdict on one collection, and what it was proven on."""

    collection: str
    mapping: str  # mapping_digest
    database: str  # digest of the database's description
    count: int  # the table's records when it was proven
    first: str  # digest of its first record then
    right: bool  # every read found every proven record exactly once
    fields: tuple[str, ...]  # the fields found mapped wrong (none when right)
    findings: tuple[str, ...]  # the findings, as check-sql prints them
    records: int  # how many records were proven
    by: str  # who proved it: "jembatan serve (pid 1234)", "the proof at start (pid 812)"
    at: str  # when, in UTC (ISO 8601)

    def holds(self, count: int, first: str) -> bool:
        """Whether a right verdict still holds for the table in this state: the same first
        record, and no fewer records (a table grows; one restored, replaced or purged does
        not hold)."""
        return first == self.first and count >= self.count


class Keeper:
    """The verdicts of one database, kept as files in one directory (None: not kept)."""

    def __init__(self, directory: Path | None, database: str):
        self.directory = directory
        self.database = digest(database)
        self.unwritable = directory is None  # said once in the log, then proved alone
        self.distrusted: set[str] = set()  # collections whose kept verdict was not believed

    def path(self, collection: str, suffix: str = ".json") -> Path:
        assert self.directory is not None
        return self.directory / f"{collection}-{self.database[:16]}{suffix}"

    def read(self, collection: str, mapping: str) -> Verdict | None:
        """The kept verdict of `collection` proven on this mapping and database, if any."""
        if self.directory is None:
            return None
        why = unsafe_place(self.path(collection))
        if why:  # another local user could have written it: believed never, proven again
            if collection not in self.distrusted:
                self.distrusted.add(collection)
                log.warning("%s: the kept verdict is not believed: %s; proving again",
                            collection, why)
            return None
        try:
            data = json.loads(self.path(collection).read_text(encoding="utf-8"))
            if data.pop("format", None) != FORMAT:
                return None
            verdict = Verdict(**{**data, "fields": tuple(data["fields"]),
                                 "findings": tuple(data["findings"])})
        except (OSError, ValueError, TypeError, KeyError):
            return None  # none yet, or not one this version wrote: proven again
        if (verdict.collection, verdict.mapping, verdict.database) != (
                collection, mapping, self.database):
            return None
        return verdict

    def write(self, verdict: Verdict) -> None:
        """Keep `verdict`: written whole beside the old one, then renamed over it."""
        if self.unwritable or self.directory is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o755)
            fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=".verdict-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump({"format": FORMAT, **asdict(verdict)}, f, indent=1)
                    f.write("\n")
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(temporary, self.path(verdict.collection))
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            self.cannot(exc)

    @contextmanager
    def lock(self, collection: str) -> Iterator[None]:
        """Held while `collection` is proven: a sibling process waits here, then finds the
        verdict. Without a usable directory, no lock (each process proves alone)."""
        if self.unwritable or self.directory is None or fcntl is None:
            yield
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o755)
            handle = open(self.path(collection, ".lock"), "a+b")  # noqa: SIM115
        except OSError as exc:
            self.cannot(exc)
            yield
            return
        with handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def cannot(self, exc: OSError) -> None:
        """Said once: the directory cannot be written, so this process proves alone."""
        if not self.unwritable:
            self.unwritable = True
            log.warning("cannot keep the proof's verdicts in %s (%s): this process proves "
                        "each collection itself, in the background, and its siblings and "
                        "the next start prove again; set [database] proof_dir to a "
                        "directory the service may write", self.directory,
                        exc.strerror or exc)


def made(c: Collection, mapping: str, keeper: Keeper, state: tuple[int, str],
         findings: Sequence[proof.Finding], records: int, by: str) -> Verdict:
    """The verdict of a proof of `c` that made `findings` (none that is a failed read)."""
    fields = tuple(dict.fromkeys(f.field for f in findings))
    return Verdict(c.name, mapping, keeper.database, state[0], state[1], not findings,
                   fields, tuple(proof.lines(findings)), records, by,
                   dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
