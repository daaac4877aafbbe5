"""The feed's bookmark (docs/api.md §5.11): what it holds (app/core/feed.py says what each
part means) and its token, compact binary signed with a keyed MAC (HMAC-SHA-256 under the
first of the service's bookmark secrets, verified under any of them) in URL-safe base64,
under 2 KB, decoded only for the collection, `on` and filters it was made with.

Nothing of a token is read before its MAC is verified, and nothing of a verified one grows
with what it says: its length, its entries (at most SEEN), their unpacked bytes and its
count of forgotten records are capped, so a token cannot make a call read or hold more
than app/core/feed.py's stated bound. A feed walking a crowded second carries that second
(whole), the last key of it sent (at most 8 fields of 64 bits, NULLs allowed) and whether
the walk is over: a few bytes more, whatever the second holds.

Records forgotten (past SEEN) are not lost from the bookmark: each is folded into the digest
of its **bucket**, a slice of the window's time grid (`bucket_width`, 1/30 of the lookback),
as a count and a sum of keyed 64-bit hashes of (key, stamp). A read that finds a bucket's
unremembered records to be exactly those (the same count and sum) knows them all sent; any
difference (a late commit into that slice, an update that moved a stamp out of it) and the
bucket's records are sent again, counted as repeats, never skipped. At most MAX_BUCKETS of
them: 10 bytes or so each, whatever the records they stand for.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import hmac
import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..database.filters import Filter
from ..database.templates import Where
from ..model.problems import Invalid

SEEN = 200  # records remembered inside the lookback window (docs/api.md §5.11)
MAX_TOKEN = 2000  # characters; under 2 KB with room for the rest of a request line
VERSION = 2  # 1: a blake2b checksum anyone could compute; 2: a keyed MAC
# The oldest stamp a feed without a bookmark starts from: SQL Server's datetime begins here,
# and a date compared with an older one would not convert.
OLDEST = dt.datetime(1753, 1, 1)
LATEST = dt.datetime(9999, 12, 30)
# Records forgotten inside one window that a token may count (each call reads that many more
# rows): more than a window can hold at any plant; a larger count is a forged token.
MAX_FORGOTTEN = 1_000_000
_MAC = 12  # bytes of the token's HMAC-SHA-256 (96 bits), which no one without a secret can make
# The most bytes a token's entries unpack to: SEEN entries of a stamp (10 bytes at most) and
# a key of 8 fields (10 bytes each), with room to spare; a larger body is no token of ours.
_UNPACKED = 64 * 1024
_FILTERS = 6  # bytes of the digest of the filters the bookmark was made with
BUCKETS = 30  # slices of the lookback window a bucket's digest covers (bucket_width)
MAX_BUCKETS = 64  # digests a token may carry: a window spans at most BUCKETS + 1 of them
_HASH = 8  # bytes of a bucket's sum of hashes
_SUM = 2 ** (8 * _HASH)
_US = dt.timedelta(microseconds=1)

Key = tuple[int | None, ...]
# A bucket's digest: its index on the grid (stamp // bucket_width), how many forgotten
# records it holds and the sum of their hashes (entry_hash) modulo 2**64.
Bucket = tuple[int, int, int]


@dataclass(frozen=True)
class Bookmark:
    """What a token holds (see the module's docstring)."""

    collection: str
    on: str
    filters: bytes  # digest of the filters (filters_digest)
    mark: dt.datetime | None = None
    floor: dt.datetime | None = None
    forgotten: dt.datetime | None = None
    forgotten_count: int = 0
    seen: frozenset[tuple[Key, dt.datetime]] = field(default_factory=frozenset)
    walk: dt.datetime | None = None  # a crowded second walked by key (app/core/feed.py)
    walked: Key | None = None  # the last key of it sent; None: none yet
    walked_all: bool = False  # the walk has ended: reads leave out what it sent
    width: int = 0  # seconds of a bucket (bucket_width); 0: not set yet (a new bookmark)
    buckets: tuple[Bucket, ...] = ()  # the forgotten records' digests, by index

    def lower_bound(self, lookback: dt.timedelta) -> dt.datetime:
        """Where this call's read starts."""
        bounds = [b for b in (self.mark and window_start(self.mark, lookback), self.floor) if b]
        return max(bounds, default=OLDEST)


def window_start(mark: dt.datetime, lookback: dt.timedelta) -> dt.datetime:
    """The oldest stamp a call reads: on the buckets' grid (bucket_width, whole seconds), so
    that a read holds the whole of each bucket it meets (a time parameter over ODBC carries
    none of a second's fraction either)."""
    width = bucket_width(lookback) * 1_000_000
    return dt.datetime.min + (_micros(mark - lookback) // width * width) * _US


def bucket_width(lookback: dt.timedelta) -> int:
    """Seconds of a bucket: 1/BUCKETS of the lookback, at least one."""
    return max(1, math.ceil(lookback.total_seconds() / BUCKETS))


def bucket_of(stamp: dt.datetime, width: int) -> int:
    """The index of the bucket holding `stamp` on a grid of `width` seconds."""
    return _micros(stamp) // (width * 1_000_000)


def entry_hash(key: Key, stamp: dt.datetime, secret: bytes) -> int:
    """A record's 64-bit hash in a bucket's digest, keyed with the bookmark secret."""
    data = _key(key) + _varint(_micros(stamp))
    return int.from_bytes(hashlib.blake2b(data, key=secret[:64], digest_size=_HASH).digest(),
                          "big")


def folded(buckets: tuple[Bucket, ...], entries: Sequence[tuple[Key, dt.datetime]],
           width: int, secret: bytes) -> tuple[Bucket, ...]:
    """`buckets` with `entries` (records forgotten) added to their buckets' digests."""
    out = {bid: (count, total) for bid, count, total in buckets}
    for key, stamp in entries:
        bid = bucket_of(stamp, width)
        count, total = out.get(bid, (0, 0))
        out[bid] = (count + 1, (total + entry_hash(key, stamp, secret)) % _SUM)
    return tuple((bid, count, total) for bid, (count, total) in sorted(out.items()))


def filters_digest(filters: Sequence[Filter]) -> bytes:
    """The filters as a digest, the same whatever their order: each condition (as the SQL
    layer writes it) with its values written in place of its parameters."""
    where = Where.of(filters)
    if where is None:
        return bytes(_FILTERS)
    values = where.values
    items = sorted(re.sub(r":(filter_[0-9]+)", lambda m: repr(values[m.group(1)]), c)
                   for c in where.conditions)
    return hashlib.blake2b("\n".join(items).encode(), digest_size=_FILTERS).digest()


# -- the token: compact binary, a checksum, URL-safe base64 ------------------------------

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _zigzag(n: int) -> int:
    return n * 2 if n >= 0 else -n * 2 - 1


def _micros(stamp: dt.datetime) -> int:
    return (stamp - dt.datetime.min) // _US


def _text(value: str) -> bytes:
    raw = value.encode()
    return _varint(len(raw)) + raw


def _interval(micros: int) -> bytes:
    """A non-negative interval: whole seconds in fewer bytes (the stamps are usually whole)."""
    return _varint(micros // 500_000 if micros % 1_000_000 == 0 else micros * 2 + 1)


def _entries(b: Bookmark) -> bytes:
    """The remembered records, newest first, each stamp as its distance from the previous
    one (the first from the mark) and each key as its difference from the previous key
    (ids grow with time, so these are small numbers)."""
    out = bytearray(_varint(len(b.seen)))
    entries = sorted(b.seen, key=lambda e: (e[1], key_order(e[0])), reverse=True)
    width = len(entries[0][0]) if entries else 0
    if entries:
        out += _varint(width)
    previous_stamp = b.mark or OLDEST
    previous = [0] * width
    for key, stamp in entries:
        out += _interval(_micros(previous_stamp) - _micros(stamp))
        previous_stamp = stamp
        for i, v in enumerate(key):
            if v is None:
                out += b"\x00"
            else:
                out += _varint(_zigzag(v - previous[i]) + 1)
                previous[i] = v
    return bytes(out)


def _buckets(b: Bookmark) -> bytes:
    """The width, the count of buckets, then each: its index's step from the previous one
    (the first in full), its count of records, its sum of hashes."""
    out = bytearray(_varint(b.width) + _varint(len(b.buckets)))
    previous = 0
    for bid, count, total in b.buckets:
        out += _varint(bid - previous) + _varint(count) + total.to_bytes(_HASH, "big")
        previous = bid
    return bytes(out)


def _key(key: Key | None) -> bytes:
    """A key of the walk: its width + 1 (0: no key), then each field, 0 for NULL, else its
    zigzag + 1."""
    if key is None:
        return b"\x00"
    return _varint(len(key) + 1) + b"".join(b"\x00" if v is None else _varint(_zigzag(v) + 1)
                                           for v in key)


def encode(b: Bookmark, secrets: Sequence[bytes]) -> str:
    """The token: version, MAC (under the first of `secrets`), then the bookmark; entries
    compressed when that is shorter."""
    flags = ((b.mark is not None) | (b.floor is not None) << 1 | (b.forgotten is not None) << 2
             | (b.walk is not None) << 4 | (b.walk is not None and b.walked_all) << 5
             | bool(b.width) << 6)
    entries = _entries(b)
    packed = zlib.compress(entries, 9)
    if len(packed) < len(entries):
        entries, flags = packed, flags | 8
    body = bytearray(_text(b.collection) + _text(b.on) + b.filters + bytes([flags]))
    for stamp in (b.mark, b.floor, b.forgotten):
        if stamp is not None:
            body += _varint(_micros(stamp))
    if b.forgotten is not None:
        body += _varint(b.forgotten_count)
    if b.walk is not None:
        body += _varint(_micros(b.walk)) + _key(b.walked)
    if b.width:
        body += _buckets(b)
    body += entries
    head = bytes([VERSION])
    return base64.urlsafe_b64encode(head + mac(secrets[0], head + body) + body
                                    ).rstrip(b"=").decode()


def mac(secret: bytes, data: bytes) -> bytes:
    """The token's MAC of `data` (its version and body) under `secret`."""
    return hmac.new(secret, b"jembatan-feed\0" + data, hashlib.sha256).digest()[:_MAC]


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ValueError("short")
        self.at += n
        return self.data[self.at - n:self.at]

    def varint(self) -> int:
        n = shift = 0
        while True:
            byte = self.take(1)[0]
            n |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return n
            if shift > 70:
                raise ValueError("varint")

    def text(self) -> str:
        return self.take(self.varint()).decode()

    def stamp(self) -> dt.datetime:
        """A stamp the service could have written: from OLDEST to a day before the end of
        the calendar, so that the window's arithmetic stays inside it."""
        stamp = dt.datetime.min + self.varint() * _US
        if not OLDEST <= stamp <= LATEST:
            raise ValueError("stamp")
        return stamp


_WHAT = ("after must be the X-Bookmark header of an answer of this service, sent back "
         "unchanged (start again without after, or with since=YYYY-MM-DDTHH:MM:SS)")
# What a token that fails its MAC is, and how its feed goes on (docs/api.md §5.11).
_FORGED = ("after: the bookmark is not valid for this service (forged, damaged on the way, or "
           "signed with a secret the service no longer has); start the feed again with "
           "since=YYYY-MM-DDTHH:MM:SS, the stamp of the newest record your copy holds (the "
           "records of that second and after come again, and your copy keeps each once by "
           "its key), or without after to read from the oldest stamp.")


def decode(token: str, collection: str, on: str, filters: bytes,
           secrets: Sequence[bytes]) -> Bookmark:
    """The bookmark in `token`, or a 400 naming what is wrong with it: its length and
    alphabet checked first, then its MAC under each of `secrets`, and only then its body."""
    if len(token) >= MAX_TOKEN or not re.fullmatch(r"[A-Za-z0-9_-]+", token):
        raise Invalid(f"after: not a bookmark; {_WHAT}.")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise Invalid(f"after: not a bookmark; {_WHAT}.") from None
    if len(raw) < 1 + _MAC:
        raise Invalid(f"after: not a bookmark; {_WHAT}.")
    if raw[0] != VERSION:
        raise Invalid(f"after: a bookmark of another version of Jembatan; {_WHAT}.")
    head, body, given = raw[:1], raw[1 + _MAC:], raw[1:1 + _MAC]
    if not any(hmac.compare_digest(mac(s, head + body), given) for s in secrets):
        raise Invalid(_FORGED)
    try:
        b = _read(_Reader(body))
    except (ValueError, IndexError, OverflowError, UnicodeDecodeError, zlib.error):
        raise Invalid(f"after: the bookmark is damaged; {_WHAT}.") from None
    _belongs(b, collection, on, filters)
    return b


def _belongs(b: Bookmark, collection: str, on: str, filters: bytes) -> None:
    """A 400 unless the bookmark was made for this collection, `on` and filters."""
    if b.collection != collection:
        raise Invalid(f"after: this bookmark belongs to /{b.collection}/changes, not "
                         f"/{collection}/changes: each collection's feed has its own.")
    if b.on != on:
        raise Invalid(f"after: this bookmark was made with on={b.on}, and this request "
                         f"asks on={on}: send the on it was made with (each stamp pair is a "
                         f"feed of its own).")
    if b.filters != filters:
        raise Invalid("after: this bookmark was made with other filters than this "
                         "request's: send the filters it was made with, or start a new feed "
                         "without after for these filters.")


def _unpacked(data: bytes) -> bytes:
    """A token's entries as they were packed, never more than _UNPACKED bytes of them."""
    unpack = zlib.decompressobj()
    out = unpack.decompress(data, _UNPACKED)
    if unpack.unconsumed_tail or not unpack.eof:
        raise ValueError("entries")
    return out


def _read(r: _Reader) -> Bookmark:
    collection, on, filters = r.text(), r.text(), r.take(_FILTERS)
    flags = r.take(1)[0]
    mark = r.stamp() if flags & 1 else None
    floor = r.stamp() if flags & 2 else None
    forgotten = r.stamp() if flags & 4 else None
    count = r.varint() if forgotten is not None else 0
    if count > MAX_FORGOTTEN:  # what the service writes stays far below: a forged token
        raise ValueError("forgotten")
    walk, walked = (r.stamp(), _walked(r)) if flags & 16 else (None, None)
    if walk is not None and walk.microsecond or flags & 32 and walk is None:
        raise ValueError("walk")  # a whole second, always
    grid, buckets = _read_buckets(r) if flags & 64 else (0, ())
    if buckets and (forgotten is None or bucket_of(forgotten, grid) < buckets[-1][0]):
        raise ValueError("buckets")  # a bucket holds forgotten records only
    rest = r.data[r.at:]
    entries = _Reader(_unpacked(rest) if flags & 8 else rest)
    seen: set[tuple[Key, dt.datetime]] = set()
    stamp = mark or OLDEST
    n = entries.varint()
    if n > SEEN:  # the service never remembers more
        raise ValueError("entries")
    width = entries.varint() if n else 0
    if width > 8:  # a key is at most a few fields (bricon2's two)
        raise ValueError("width")
    previous = [0] * width
    for _ in range(n):
        step = entries.varint()
        stamp -= (step // 2 * 1_000_000 if step % 2 == 0 else step // 2) * _US
        key: list[int | None] = []
        for i in range(width):
            v = entries.varint()
            if v == 0:
                key.append(None)
                continue
            z = v - 1
            previous[i] += z // 2 if z % 2 == 0 else -(z + 1) // 2
            key.append(previous[i])
        seen.add((tuple(key), stamp))
    if entries.at != len(entries.data):
        raise ValueError("trailing bytes")
    return Bookmark(collection, on, filters, mark, floor, forgotten, count, frozenset(seen),
                    walk, walked, bool(flags & 32), grid, buckets)


def _read_buckets(r: _Reader) -> tuple[int, tuple[Bucket, ...]]:
    """A token's buckets: as many as a window holds at most, indexes rising, counts that
    add up to no more than MAX_FORGOTTEN, a width a lookback of a day could give."""
    width, n = r.varint(), r.varint()
    if not 1 <= width <= 86_400 or n > MAX_BUCKETS:
        raise ValueError("buckets")
    out: list[Bucket] = []
    bid = 0
    for i in range(n):
        step = r.varint()
        if i and not step:
            raise ValueError("buckets")
        bid += step
        count = r.varint()
        if not count:
            raise ValueError("buckets")
        out.append((bid, count, int.from_bytes(r.take(_HASH), "big")))
    if sum(c for _, c, _ in out) > MAX_FORGOTTEN:
        raise ValueError("buckets")
    return width, tuple(out)


def _walked(r: _Reader) -> Key | None:
    width = r.varint() - 1
    if width < 0:
        return None
    if width > 8:  # as wide as a key of the entries may be
        raise ValueError("width")
    key: list[int | None] = []
    for _ in range(width):
        z = r.varint()
        key.append(None if z == 0 else ((z - 1) // 2 if (z - 1) % 2 == 0 else -z // 2))
    if any(v is not None and not -2**63 <= v < 2**63 for v in key):
        raise ValueError("key")  # a database's integer is 64 bits at most
    return tuple(key)


def key_order(key: Key) -> tuple[tuple[bool, int], ...]:
    """A key as the queries order it: NULLs first."""
    return tuple((v is not None, v or 0) for v in key)


def fitted(b: Bookmark, secrets: Sequence[bytes]) -> str:
    """The token, with the oldest remembered records forgotten (into their buckets) while it
    is too long (only stamps with fractions of a second take that much room)."""
    token = encode(b, secrets)
    while len(token) >= MAX_TOKEN and b.seen:
        oldest = sorted(b.seen, key=lambda e: (e[1], key_order(e[0])))
        b = forget(b, oldest[:max(1, len(oldest) // 10)], secrets[0])
        token = encode(b, secrets)
    return token


def forget(b: Bookmark, drop: Sequence[tuple[Key, dt.datetime]], secret: bytes) -> Bookmark:
    """`b` without the remembered records `drop` (the oldest, in order): counted as
    forgotten, and folded into their buckets when the bookmark keeps buckets."""
    if not drop:
        return b
    buckets = folded(b.buckets, drop, b.width, secret) if b.width else b.buckets
    return replace(b, seen=b.seen - set(drop), buckets=buckets,
                   forgotten=max(f for f in (b.forgotten, drop[-1][1]) if f is not None),
                   forgotten_count=b.forgotten_count + len(drop))
