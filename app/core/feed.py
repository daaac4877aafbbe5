"""The feed (docs/api.md §5.11, GET /<c>/changes and the MCP tool `changes`): every new or
changed record once, by its stamp, behind an opaque bookmark that the client stores and sends
back. `read` runs one call through the runner; the faces send its `Changes`.

No state is kept on the server: the bookmark token carries it all (app/core/bookmarks.py
holds it and writes and reads its token).

- `mark`: how far the feed has read, a stamp. When a call reads every settled record it
  moves to the database clock less `settle`; when `limit` cuts a call short, to the stamp of
  the last record it looked at. It never moves back.
- Each call reads from `mark - lookback` (one seek on the stamp pair's index), so that a
  record whose transaction committed after the feed passed its stamp is still found.
- `seen`: the (key, stamp) of the records already sent whose stamp is inside that window;
  those are skipped, so an unchanged record is never sent twice. An update that moves the
  stamp makes another (key, stamp): it is sent again, as it should be.
- At most SEEN records are remembered (the token must stay under 2 KB: a request line's
  limit in gunicorn and reverse proxies). The oldest ones are forgotten first; `forgotten`
  (the newest stamp forgotten) and `forgotten_count` say which stamps may come again. Such
  records are sent again rather than lost, counted in X-Bookmark-Repeats, and they do not
  count against `limit`, so that a call always gets past them.
  Forgotten records are not lost, though: each is folded into its bucket's digest
  (app/core/bookmarks.py), and a read that finds a bucket's unremembered records to be
  exactly those skips them as it skips the remembered ones (`checked`). So a caught-up call
  sends nothing it has sent, however many records changed inside the window; only a bucket
  whose records differ from its digest (a late commit into it, a stamp moved out of it) is
  sent again, counted as repeats.
- `floor`: a start from ?since= reads nothing older, until the window has moved past it.

Every query of a call is bounded, whatever its token says: at most `limit + SEEN + REPEATS`
rows (`row_count`), and a call runs at most READS of them. A token counts at most REPEATS
forgotten records in what a call reads; one that counts more (only after more than SEEN +
REPEATS records changed inside one window: a mass update) cannot be passed by re-reading
the window, so such a call, when its read ends among the repeats, moves the `floor` to the
second of the last record it read: every record before it has just been sent (again), and
the next call reads on from there. Nothing present is skipped; what the lookback no longer
covers there is a record committed later still, behind that floor (docs/api.md §5.11 says
so).

A crowded second (`crowded`): a call that stops short inside one second having read more
than SEEN records of it (a bookmark cannot remember them, so the next read would find them
again, and past limit + SEEN + REPEATS of them never get by) walks that second by key. It
sends what it read before that second (`walk_from`); the bookmark's `walk` is that second
and `walked` the last key of it sent (None: none yet), keys in `key_order`. Each call then
reads that second's records after `walked`, in key order alone (sql/shapes.sql
changes_within: the time parameters are whole seconds, the fractions a stamp may carry do
not matter), skips those remembered, sends the rest as usual (`walked_on`). The read that
finds no more ends the walk (`walked_all`): the reads go on from the window as ever, less
the records of that second up to `walked` (changes_walked), until the window passes that
second; the call reads on at once when that last read sent nothing (and walks the next
crowded second it meets, if any: at most READS reads). Not seen: a record committed into
the walked second at or behind `walked` (a late commit); and when another second is walked
while the window still holds a walked one, the floor moves past the first.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..database.filters import Filter
from ..model.collections import DATE_PAIRS, Collection
from ..model.problems import Invalid
from ..ops.config import FeedSettings
from .bookmarks import (
    OLDEST,
    SEEN,
    Bookmark,
    Key,
    bucket_of,
    bucket_width,
    decode,
    entry_hash,
    filters_digest,
    fitted,
    forget,
    key_order,
    window_start,
)
from .clock import ahead_said, held_ahead, server_clock, stamp_of
from .plan import Planner
from .reads import Read, Rows, Runner

log = logging.getLogger("jembatan")

DEFAULT_LIMIT = 1000
MAX_LIMIT = 10_000
# The most forgotten records one read sends again (see the module's docstring): a query of a
# call reads at most limit + SEEN + REPEATS rows, 20,200 at the largest limit.
REPEATS = 10_000
# The most reads of one call: a walk that ends having sent nothing, the usual read, and the
# walk of a crowded second it meets (see the module's docstring); each at most
# limit + SEEN + REPEATS rows.
READS = 3
_SECOND = dt.timedelta(seconds=1)
_SINCE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}", re.ASCII)


# -- one call ------------------------------------------------------------------------------

@dataclass
class Step:
    """What one call sends, and the bookmark after it."""

    sent: list[tuple[Any, ...]]
    bookmark: Bookmark
    repeats: int  # records sent that an earlier call may have sent (forgotten ones)
    lateness: list[float]  # seconds behind the database clock, per record sent first time
    # Where the call stopped short: the index of the first row `limit` left unsent, or
    # len(rows) when the read was cut by its row_count; None when it read to the end (or to
    # a record still settling).
    cut: int | None = None
    known: int = 0  # forgotten records read and left out: their buckets' digests matched


def advance(b: Bookmark, rows: Sequence[tuple[Key, dt.datetime, tuple[Any, ...]]],
            now: dt.datetime | None, complete: bool, limit: int,
            feed: FeedSettings) -> Step:
    """Which of `rows` (the read from lower_bound, in stamp then key order, with the
    database clock `now`; `complete`: nothing follows them) this call sends, and the new
    bookmark."""
    settle, lookback = (dt.timedelta(seconds=s) for s in (feed.settle_seconds,
                                                           feed.lookback_seconds))
    cutoff = now - settle if now is not None else None
    # Digests of another grid (lookback_seconds changed since) are dropped by _kept: their
    # records come again, as any forgotten record without a digest.
    known, covered = checked(b, rows, complete, feed.secrets[0]) \
        if b.width == bucket_width(lookback) else (set(), set())
    sent: list[tuple[Any, ...]] = []
    lateness: list[float] = []
    added: set[tuple[Key, dt.datetime]] = set()
    repeats, skipped, last, read_all = 0, 0, None, complete
    cut = None if complete else len(rows)
    for at, (key, stamp, values) in enumerate(rows):
        if cutoff is None or stamp > cutoff:  # still settling; so is everything after it
            read_all, cut = True, None
            break
        if (key, stamp) in b.seen:
            last = stamp
            continue
        repeat = b.forgotten is not None and stamp <= b.forgotten
        if repeat and known and bucket_of(stamp, b.width) in known:  # its digest: sent
            last, skipped = stamp, skipped + 1
            continue
        if not repeat and len(sent) - repeats == limit:
            read_all, cut = False, at
            break
        sent.append(values)
        added.add((key, stamp))
        last = stamp
        if repeat:
            repeats += 1
        else:
            lateness.append((now - stamp).total_seconds())  # type: ignore[operator]
    reached = cutoff if read_all and cutoff is not None else last
    mark = max((m for m in (b.mark, reached) if m is not None), default=None)
    # A bucket read whole whose digest did not match has just been sent again: its records
    # are remembered from here (or forgotten into a fresh digest), its old digest dropped.
    b = replace(b, buckets=tuple(d for d in b.buckets if d[0] in known or d[0] not in covered))
    kept = _kept(b, mark, b.seen | added, lookback, feed.secrets[0])
    return Step(sent, kept, repeats, lateness, cut, skipped)


def checked(b: Bookmark, rows: Sequence[tuple[Key, dt.datetime, tuple[Any, ...]]],
            complete: bool, secret: bytes) -> tuple[set[int], set[int]]:
    """The buckets whose forgotten records `rows` holds exactly (the same count and sum of
    hashes as their digests: every one of them sent), and the buckets the read covers whole
    (every bucket before the last row's, or all of them when it read to the end)."""
    if not b.buckets or b.forgotten is None:
        return set(), set()
    found: dict[int, tuple[int, int]] = {}
    for key, stamp, _ in rows:
        if stamp > b.forgotten:
            break  # in stamp order: the rest are newer than any forgotten record
        if (key, stamp) not in b.seen:
            bid = bucket_of(stamp, b.width)
            count, total = found.get(bid, (0, 0))
            found[bid] = (count + 1, (total + entry_hash(key, stamp, secret)) % 2 ** 64)
    last = bucket_of(rows[-1][1], b.width) if rows else None
    covered = {bid for bid, _, _ in b.buckets
               if complete or (last is not None and bid < last)}
    return {bid for bid, count, total in b.buckets
            if bid in covered and found.get(bid) == (count, total)}, covered


def _kept(b: Bookmark, mark: dt.datetime | None, seen: frozenset[tuple[Key, dt.datetime]],
          lookback: dt.timedelta, secret: bytes) -> Bookmark:
    """The bookmark at `mark`: what lies inside its window kept, at most SEEN records, the
    rest folded into their buckets' digests."""
    if mark is None:
        return replace(b, seen=seen)
    start = window_start(mark, lookback)
    width = bucket_width(lookback)
    first = bucket_of(start, width)
    buckets = tuple(d for d in b.buckets if d[0] >= first) if b.width == width else ()
    inside = sorted((e for e in seen if e[1] >= start), key=lambda e: (e[1], key_order(e[0])))
    forgotten, count = b.forgotten, b.forgotten_count
    if forgotten is not None and forgotten < start:
        forgotten, count = None, 0  # those records are behind the window now
    floor = b.floor if b.floor is not None and b.floor > start else None
    if b.walk is not None and b.walked_all and b.walk + _SECOND <= start:
        b = replace(b, walk=None, walked=None, walked_all=False)  # the window has passed it
    b = replace(b, mark=mark, floor=floor, forgotten=forgotten, forgotten_count=count,
                seen=frozenset(inside), width=width, buckets=buckets)
    return forget(b, inside[:-SEEN] if len(inside) > SEEN else [], secret)


# -- the read ---------------------------------------------------------------------------------

def start(collection: str, on: str, filters: Sequence[Filter], after: str | None,
          since: str | None, secrets: Sequence[bytes]) -> Bookmark:
    """The bookmark a call starts from: its `after`, its `since`, or the oldest stamp."""
    digest = filters_digest(filters)
    if after is not None and since is not None:
        raise Invalid("give after (a bookmark) or since (a time to start from), not both")
    if after is not None:
        return decode(after, collection, on, digest, secrets)
    floor = None
    if since is not None:
        try:
            if not _SINCE.fullmatch(since):
                raise ValueError(since)
            # Nothing is older than OLDEST: SQL Server's datetime could not compare it.
            floor = max(dt.datetime.fromisoformat(since), OLDEST)
        except ValueError:
            raise Invalid(f"since must be a date and time YYYY-MM-DDTHH:MM:SS, e.g. "
                          f"2026-11-01T07:00:00; got {since[:40]!r}") from None
    return Bookmark(collection, on, digest, floor=floor)


@dataclass(frozen=True)
class Changes:
    """One call's answer: the records sent, the bookmark to send back, the repeats."""

    values: list[tuple[Any, ...]]
    bookmark: str
    repeats: int


def read(runner: Runner, planner: Planner, feed: FeedSettings, on: str, limit: int,
         after: str | None = None, since: str | None = None,
         filters: Sequence[Filter] = (), fit: Callable[[list[tuple[Any, ...]]], int] | None = None
         ) -> Changes:
    """What changed since `after` (or `since`, or the oldest stamp), at most `limit`: one
    read, or up to READS where a crowded second is walked (see the module's docstring).
    `fit` says how many of the records found an answer can hold; where it holds fewer, the
    call is made again for that many from the rows already read, so that the bookmark is
    theirs."""
    planner.check_on(on)  # a pair the key may not read: refused before its bookmark is read
    filters = planner.as_run(filters)  # cancelled=all is no filter: the same bookmarks
    first = start(planner.collection.name, on, filters, after, since, feed.secrets)
    # With the plant's zone set, its "now": the server's UTC clock in that zone, read before
    # the records (a clock read first can only hold a record back, never skip one).
    zoned = runner.plant_now(feed.zone) if feed.zone is not None else None
    call = Call(runner, planner, feed, on, filters, zoned)
    steps, b = call.steps(first, limit)
    sent = [v for s in steps for v in s.sent]
    kept = len(sent) if fit is None else fit(sent)
    if kept < len(sent):
        call = replace(call, stamps=[], now=None, full=False)  # the same reads, kept
        steps, b = call.steps(first, kept)
    metrics = runner.metrics
    if metrics is not None:
        lateness = [late for s in steps for late in s.lateness]
        if lateness:
            metrics.feed_lateness(planner.collection.name, lateness)
        ahead(metrics, planner.collection, on, call.stamps, call.now, feed, call.full)
    return Changes([v for s in steps for v in s.sent], fitted(b, feed.secrets),
                   sum(s.repeats for s in steps))


@dataclass
class Call:
    """One call's reads: the collection's planner and runner, the `on` pair, the filters as
    run; what its reads found, for the metrics."""

    runner: Runner
    planner: Planner
    feed: FeedSettings
    on: str
    filters: Sequence[Filter]
    zoned: dt.datetime | None
    stamps: list[dt.datetime] = field(default_factory=list)
    now: dt.datetime | None = None
    full: bool = False  # a read returned all the rows it asked for
    # The rows each read found and how many it asked for, by what it read but its
    # row_count: a call made again for fewer records reads them from here.
    read_before: dict[Hashable, tuple[Rows, int]] = field(default_factory=dict)

    def steps(self, b: Bookmark, limit: int) -> tuple[list[Step], Bookmark]:
        """The call's steps from bookmark `b`, at most `limit` records; the bookmark after."""
        steps: list[Step] = []
        for _ in range(READS):
            wanted = limit - sum(len(s.sent) - s.repeats for s in steps)
            walking = b.walk is not None and not b.walked_all
            step, more = self.walk(b, wanted) if walking else self.usual(b, wanted)
            steps.append(step)
            b = step.bookmark
            if not more:
                break
        return steps, b

    def run(self, read: Read, row_count: int) -> Rows:
        """A read's rows: those of an earlier read of the same rows and as many or more, cut
        to row_count, else the database's."""
        what = (read.collection, read.query, read.filters,
                tuple(sorted((k, v) for k, v in read.values.items() if k != "row_count")))
        before = self.read_before.get(what)
        if before is not None and before[1] >= row_count:
            rows = before[0]
            return replace(rows, values=rows.values[:row_count], also=rows.also[:row_count])
        rows = self.runner.run(read)
        self.read_before[what] = (rows, row_count)
        return rows

    def rows(self, read: Read, row_count: int
             ) -> tuple[list[tuple[Key, dt.datetime, tuple[Any, ...]]], dt.datetime | None,
                        bool]:
        """A read's records keyed, the database clock, and whether it read to the end."""
        rows = self.run(read, row_count)
        now = (self.zoned or server_clock(rows.also[0][0])) if rows.values else None
        found = list(keyed(self.planner.collection, self.on, self.planner.encoder.output,
                           rows.values))
        self.stamps += [s for _, s, _ in found]
        self.now = now or self.now
        self.full = self.full or len(rows.values) == row_count
        return found, now, len(rows.values) < row_count

    def usual(self, b: Bookmark, limit: int) -> tuple[Step, bool]:
        """The read from the bookmark's lower bound, in stamp then key order; and whether
        the call reads on: a crowded second met with room left for a walk of it, or a read
        of records all sent before that moved the floor."""
        frm = b.lower_bound(dt.timedelta(seconds=self.feed.lookback_seconds))
        row_count = limit + len(b.seen) + min(b.forgotten_count, REPEATS)
        values = {"from_date": frm.date(), "from_time": frm.time(), "midnight": dt.time(0),
                  "row_count": row_count}
        if b.walk is None:
            read = self.planner.changes(self.on, values, self.filters)
        else:  # a walked second inside the window: leave out what the walk sent
            width = len(self.planner.collection.range_order(self.on))
            read = self.planner.changes_within(self.on, values | within(b.walk) | after_key(
                b.walked, width), self.filters, "changes_walked")
        found, now, complete = self.rows(read, row_count)
        step = advance(b, found, now, complete, limit, self.feed)
        second = crowded(found, step.cut)
        if second is not None:
            step = walk_from(b, found, second, now, limit, self.feed)
            return step, len(step.sent) - step.repeats < limit
        if not complete and b.forgotten_count > REPEATS:
            step = passed(step, b, frm, found)
            # A read of records all sent before (known by their digests) that moved the
            # floor: the call reads on from there rather than answer nothing.
            floor = step.bookmark.floor
            return step, not step.sent and floor is not None and floor > frm
        return step, False

    def walk(self, b: Bookmark, limit: int) -> tuple[Step, bool]:
        """The next records of the second the bookmark walks, by key; and whether the call
        reads on: the walk ended having sent nothing."""
        assert b.walk is not None
        row_count = limit + len(b.seen) + min(b.forgotten_count, REPEATS)
        width = len(self.planner.collection.range_order(self.on))
        found, now, complete = self.rows(self.planner.changes_within(self.on, {
            **within(b.walk), **after_key(b.walked, width), "midnight": dt.time(0),
            "row_count": row_count}, self.filters), row_count)
        step, ended = walked_on(b, found, now, complete, limit, self.feed)
        return step, ended and not step.sent


def within(second: dt.datetime) -> dict[str, Any]:
    """changes_within's bounds of one second: from it, up to (not including) the next."""
    following = second + _SECOND
    return {"within_date": second.date(), "within_time": second.time(),
            "next_date": following.date(), "next_time": following.time()}


def after_key(key: Key | None, width: int) -> dict[str, int]:
    """changes_within's {after} parameters (app/database/templates.py): after `key`, or
    before every key where it is None."""
    out = {}
    for n in range(1, width + 1):
        v = key[n - 1] if key is not None and n <= len(key) else None
        out[f"after_{n}_set"] = -1 if key is None else int(v is not None)
        out[f"after_{n}"] = v or 0
    return out


def crowded(rows: Sequence[tuple[Key, dt.datetime, tuple[Any, ...]]], cut: int | None
            ) -> dt.datetime | None:
    """The second a call stopped short in, when more than SEEN of the records it looked at
    share it: a bookmark cannot remember them, and the next read would find them again."""
    if cut is None or not rows:
        return None
    second = rows[min(cut, len(rows) - 1)][1].replace(microsecond=0)
    looked = rows[:cut + 1]
    if sum(1 for _, stamp, _ in looked if stamp.replace(microsecond=0) == second) > SEEN:
        return second
    return None


def walk_from(b: Bookmark, rows: Sequence[tuple[Key, dt.datetime, tuple[Any, ...]]],
              second: dt.datetime, now: dt.datetime | None, limit: int,
              feed: FeedSettings) -> Step:
    """The call sends what it read before the crowded `second` (a prefix of its read, the
    same records advance sent up to there), and the bookmark walks that second from its
    first key."""
    step = advance(b, [r for r in rows if r[1] < second], now, False, limit, feed)
    kept = step.bookmark
    if kept.walk == second:  # crowded again after the walk's end: on from its last key
        return replace(step, bookmark=replace(kept, walked_all=False), cut=None)
    if kept.walk is not None:  # another walked second: the read starts after it
        kept = replace(kept, floor=max(f for f in (kept.floor, kept.walk + _SECOND) if f))
    return replace(step, bookmark=replace(kept, walk=second, walked=None, walked_all=False),
                   cut=None)


def walked_on(b: Bookmark, rows: Sequence[tuple[Key, dt.datetime, tuple[Any, ...]]],
              now: dt.datetime | None, complete: bool, limit: int,
              feed: FeedSettings) -> tuple[Step, bool]:
    """Which of `rows` (the walked second's records after the bookmark's key, in key order;
    `complete`: nothing follows them) this call sends, the bookmark after it, and whether
    the walk ended: then the next read starts after that second (the floor)."""
    cutoff = now - dt.timedelta(seconds=feed.settle_seconds) if now is not None else None
    sent: list[tuple[Any, ...]] = []
    lateness: list[float] = []
    repeats, walked, ended = 0, b.walked, complete
    for key, stamp, values in rows:
        if cutoff is None or stamp > cutoff:  # still settling: the walk waits for it
            ended = False
            break
        if (key, stamp) not in b.seen:
            repeat = b.forgotten is not None and stamp <= b.forgotten
            if not repeat and len(sent) - repeats == limit:
                ended = False
                break
            sent.append(values)
            repeats += repeat
            if not repeat:
                lateness.append((now - stamp).total_seconds())  # type: ignore[operator]
        walked = key
    if not ended:
        return Step(sent, replace(b, walked=walked), repeats, lateness), False
    assert b.walk is not None
    mark = max(m for m in (b.mark, b.walk) if m is not None)
    # What the bookmark remembers of that second the reads now leave out: forgotten, to
    # make room for the rest of the window.
    seen = frozenset(e for e in b.seen if walked is None or e[1].replace(microsecond=0)
                     != b.walk or key_order(e[0]) > key_order(walked))
    done = replace(b, walked=walked, walked_all=True)
    lookback = dt.timedelta(seconds=feed.lookback_seconds)
    return Step(sent, _kept(done, mark, seen, lookback, feed.secrets[0]), repeats, lateness
                ), True


def passed(step: Step, b: Bookmark, frm: dt.datetime,
           found: Sequence[tuple[Key, dt.datetime, tuple[Any, ...]]]) -> Step:
    """A call whose bounded read ended among more repeats than REPEATS: when every record
    it read was sent again or is remembered, and none was new (the bookmark could not
    move), the floor moves to the second of the last record read, before which every
    record has just been sent (see the module's docstring). A read that ended inside the
    second it started from was walked instead (crowded: it read more than SEEN records of
    that second)."""
    remembered = step.known + sum(1 for key, stamp, _ in found if (key, stamp) in b.seen)
    if len(step.sent) > step.repeats or len(step.sent) + remembered < len(found):
        return step
    floor = found[-1][1].replace(microsecond=0)
    if floor <= frm:
        return step
    return replace(step, bookmark=replace(step.bookmark, floor=floor))


def ahead(metrics: Any, c: Collection, on: str, stamps: Sequence[dt.datetime],
          now: dt.datetime | None, feed: FeedSettings, cut: bool) -> None:
    """Count how far the stamps read lie ahead of the database clock (/health says it) and
    log it once when they start to: the feed holds those records back, for hours where the
    plant's zone is not set. No query of its own: the call's rows and clock."""
    offset, count = held_ahead(stamps, now, feed.settle_seconds) if now else (0.0, 0)
    if metrics.feed_ahead(c.name, on, offset):
        held = f"{'at least ' if cut else ''}{count} record{'' if count == 1 else 's'}"
        log.warning("%s (database clock %s)", ahead_said(c.name, on, offset, feed.zone, held),
                    now)


def keyed(c: Collection, on: str, output: list[str], values: Sequence[tuple[Any, ...]]
          ) -> Iterator[tuple[Key, dt.datetime, tuple[Any, ...]]]:
    """Each record's key (what orders it after its stamp) and stamp, with its values."""
    day, clock = (output.index(f) for f in DATE_PAIRS[on])
    keys = [output.index(f) for f in c.range_order(on)]
    for v in values:
        yield tuple(v[i] for i in keys), stamp_of(v[day], v[clock]), v
