"""The feed's bookmarks (app/core/bookmarks.py): a bookmark written as a token and read back
whole, under each secret that verifies it; any other token refused with a 400's message."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from app.core.bookmarks import Bookmark, decode, encode, filters_digest
from app.database.filters import Filter
from app.model.problems import Invalid

OLD, NEW = b"o" * 32, b"n" * 32
AT = dt.datetime(2026, 11, 28, 7, 15, 30, 250000)
FILTERS = [Filter("custcode", "in", ("CUS-1", "CUS-2")), Filter("weigh2", "gt", (1000.0,))]
DIGEST = filters_digest(FILTERS)
SEEN = frozenset({((7,), AT), ((8,), AT), ((None,), AT - dt.timedelta(seconds=3))})

BOOKMARKS = [
    Bookmark("transactions", "update", DIGEST),
    Bookmark("transactions", "update", DIGEST, mark=AT, seen=SEEN),
    Bookmark("transactions", "update", DIGEST, mark=AT, floor=AT - dt.timedelta(hours=1),
             forgotten=AT - dt.timedelta(minutes=2), forgotten_count=412, seen=SEEN),
    Bookmark("transactions", "update", DIGEST, mark=AT, walk=AT.replace(microsecond=0),
             walked=(41,), seen=SEEN),
    Bookmark("transactions", "update", DIGEST, mark=AT, walk=AT.replace(microsecond=0),
             walked=(41,), walked_all=True),
    # Two hundred remembered records: the token compresses them.
    Bookmark("transactions", "update", DIGEST, mark=AT, seen=frozenset(
        ((n,), AT - dt.timedelta(milliseconds=n)) for n in range(200))),
]


@pytest.mark.parametrize("bookmark", BOOKMARKS)
def test_a_token_reads_back_as_its_bookmark(bookmark: Bookmark) -> None:
    token = encode(bookmark, [NEW, OLD])
    assert len(token) < 2000
    for secrets in ([NEW], [OLD, NEW]):
        assert decode(token, "transactions", "update", DIGEST, secrets) == bookmark


def test_the_filters_digest_is_that_of_the_filters_in_any_order() -> None:
    assert filters_digest(FILTERS[::-1]) == DIGEST
    assert filters_digest(FILTERS[:1]) != DIGEST
    assert filters_digest([Filter("weigh2", "gte", (1000.0,)), FILTERS[0]]) != DIGEST


TOKEN = encode(BOOKMARKS[1], [NEW])


@pytest.mark.parametrize(("token", "collection", "on", "digest", "message"), [
    (TOKEN[:-4], "transactions", "update", DIGEST, "not valid for this service"),
    ("not a token!", "transactions", "update", DIGEST, "not a bookmark"),
    ("x" * 2000, "transactions", "update", DIGEST, "not a bookmark"),
    ("AQ", "transactions", "update", DIGEST, "not a bookmark"),
    (TOKEN, "weighing", "update", DIGEST, "belongs to /transactions/changes"),
    (TOKEN, "transactions", "dt1", DIGEST, "made with on=update"),
    (TOKEN, "transactions", "update", filters_digest([]), "other filters"),
])
def test_another_token_is_refused(token: str, collection: str, on: str, digest: bytes,
                                  message: str) -> None:
    with pytest.raises(Invalid, match=message):
        decode(token, collection, on, digest, [NEW])


def test_a_token_signed_with_a_secret_no_longer_kept_is_refused() -> None:
    with pytest.raises(Invalid, match="not valid for this service"):
        decode(TOKEN, "transactions", "update", DIGEST, [OLD])


def test_the_lower_bound_is_the_window_start_or_the_floor() -> None:
    lookback = dt.timedelta(minutes=10)
    b = BOOKMARKS[1]
    # Ten minutes back, down to the buckets' grid (1/30 of the lookback: 20 s).
    assert b.lower_bound(lookback) == dt.datetime(2026, 11, 28, 7, 5, 20)
    later = dataclasses.replace(b, floor=dt.datetime(2026, 11, 28, 7, 6))
    assert later.lower_bound(lookback) == dt.datetime(2026, 11, 28, 7, 6)
    assert Bookmark("transactions", "update", DIGEST).lower_bound(lookback).year == 1753
