"""The feed's logic (app/core/feed.py) without a database: which rows of a read a call sends,
and the bookmark after it, for rows and a clock given as plain values; the call's start."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from app.core.bookmarks import SEEN, Bookmark, filters_digest
from app.core.feed import advance, start
from app.database.filters import Filter
from app.model.problems import Invalid
from app.ops.config import FeedSettings

FEED = FeedSettings(settle_seconds=30, lookback_seconds=600, secrets=(b"s" * 32,))
NOW = dt.datetime(2026, 11, 28, 12, 0, 0)
EMPTY = Bookmark("transactions", "update", filters_digest([]))


def ago(seconds: float) -> dt.datetime:
    return NOW - dt.timedelta(seconds=seconds)


def row(key: int, seconds_ago: float) -> tuple[tuple[int], dt.datetime, tuple[int]]:
    """A read's row: its key, its stamp, and the values sent (its key alone here)."""
    return (key,), ago(seconds_ago), (key,)


# Oldest first, as the read returns them: four settled, two still settling.
ROWS = [row(1, 300), row(2, 200), row(3, 200), row(4, 31), row(5, 29), row(6, 1)]


def test_the_settled_rows_are_sent_and_the_mark_moves_to_now_less_settle() -> None:
    step = advance(EMPTY, ROWS, NOW, complete=True, limit=100, feed=FEED)
    assert step.sent == [(1,), (2,), (3,), (4,)]
    assert (step.repeats, step.cut) == (0, None)
    assert step.lateness == [300.0, 200.0, 200.0, 31.0]
    assert step.bookmark.mark == ago(30)
    assert step.bookmark.seen == frozenset((k, s) for k, s, _ in ROWS[:4])


def test_the_limit_cuts_the_call_where_the_next_row_is_left() -> None:
    step = advance(EMPTY, ROWS, NOW, complete=True, limit=2, feed=FEED)
    assert (step.sent, step.cut) == ([(1,), (2,)], 2)
    assert step.bookmark.mark == ago(200)  # the stamp of the last row sent


def test_the_rows_seen_are_not_sent_again() -> None:
    first = advance(EMPTY, ROWS, NOW, complete=True, limit=2, feed=FEED)
    second = advance(first.bookmark, ROWS, NOW, complete=True, limit=2, feed=FEED)
    assert second.sent == [(3,), (4,)]
    changed = [*ROWS[:3], row(2, 100), *ROWS[3:]]  # record 2 changed: a new stamp
    third = advance(second.bookmark, changed, NOW, complete=True, limit=100, feed=FEED)
    assert third.sent == [(2,)]


def test_a_read_cut_by_its_row_count_stops_at_its_last_row() -> None:
    step = advance(EMPTY, ROWS[:3], NOW, complete=False, limit=100, feed=FEED)
    assert (step.sent, step.cut, step.bookmark.mark) == ([(1,), (2,), (3,)], 3, ago(200))


def test_without_a_clock_nothing_is_settled() -> None:
    step = advance(EMPTY, ROWS, None, complete=True, limit=100, feed=FEED)
    assert (step.sent, step.bookmark.mark) == ([], None)


def test_the_oldest_records_seen_are_forgotten_past_the_most_remembered() -> None:
    many = [row(n, 500 - n) for n in range(1, SEEN + 11)]  # SEEN + 10 settled records
    step = advance(EMPTY, many, NOW, complete=True, limit=10_000, feed=FEED)
    assert len(step.sent) == SEEN + 10
    assert step.bookmark.seen == frozenset((k, s) for k, s, _ in many[10:])
    assert (step.bookmark.forgotten, step.bookmark.forgotten_count) == (many[9][1], 10)
    # Forgotten, not lost: their buckets' digests vouch for them, so none comes again.
    again = advance(step.bookmark, many, NOW, complete=True, limit=10_000, feed=FEED)
    assert (again.sent, again.repeats, again.known) == ([], 0, 10)
    assert again.bookmark.buckets == step.bookmark.buckets


def test_a_late_commit_into_a_bucket_of_forgotten_records_brings_the_bucket_again() -> None:
    """The digest cannot tell which record of a bucket is new: the bucket's forgotten
    records come again with the late one, counted as repeats, and are remembered after."""
    many = [row(n, 500 - n) for n in range(1, SEEN + 11)]  # records 1-10 forgotten
    step = advance(EMPTY, many, NOW, complete=True, limit=10_000, feed=FEED)
    late = row(1000, 500 - 3)  # stamped as record 3, committed now
    grid = 20  # seconds: 1/30 of the 600 s lookback
    same = [r for r in many[:10] if _bucket(r[1], grid) == _bucket(late[1], grid)]
    window = sorted([*many, late], key=lambda r: (r[1], r[0]))
    again = advance(step.bookmark, window, NOW, complete=True, limit=10_000, feed=FEED)
    expected = sorted([*same, late], key=lambda r: (r[1], r[0]))
    assert (again.sent, again.repeats) == ([r[2] for r in expected], len(expected))
    after = advance(again.bookmark, window, NOW, complete=True, limit=10_000, feed=FEED)
    assert (after.sent, after.repeats) == ([], 0)


def test_a_bucket_a_read_cut_short_may_not_hold_whole_is_sent_again() -> None:
    """A read cut by its row count inside a bucket cannot vouch for that bucket."""
    many = [row(n, 500 - n) for n in range(1, SEEN + 11)]
    step = advance(EMPTY, many, NOW, complete=True, limit=10_000, feed=FEED)
    cut = advance(step.bookmark, many[:5], NOW, complete=False, limit=10_000, feed=FEED)
    assert (cut.sent, cut.repeats) == ([r[2] for r in many[:5]], 5)


def test_digests_of_another_lookback_are_not_trusted() -> None:
    many = [row(n, 500 - n) for n in range(1, SEEN + 11)]
    step = advance(EMPTY, many, NOW, complete=True, limit=10_000, feed=FEED)
    longer = dataclasses.replace(FEED, lookback_seconds=1200)
    again = advance(step.bookmark, many, NOW, complete=True, limit=10_000, feed=longer)
    assert (again.sent, again.repeats) == ([r[2] for r in many[:10]], 10)


def _bucket(stamp: dt.datetime, seconds: int) -> int:
    return int((stamp - dt.datetime.min).total_seconds()) // seconds


def test_a_start_from_since_sets_the_floor() -> None:
    b = start("transactions", "update", [], None, "2026-11-01T07:00:00", FEED.secrets)
    assert b == dataclasses.replace(EMPTY, floor=dt.datetime(2026, 11, 1, 7))


@pytest.mark.parametrize(("after", "since", "message"), [
    ("x", "2026-11-01T07:00:00", "not both"),
    (None, "2026-11-01 07:00:00", "since must be a date and time"),
    (None, "2026-13-01T07:00:00", "since must be a date and time"),
])
def test_a_start_that_is_refused(after: str | None, since: str, message: str) -> None:
    with pytest.raises(Invalid, match=message):
        start("transactions", "update", [Filter("id", "gt", (1,))], after, since, FEED.secrets)
