"""Bookmarks as an attacker makes them, for bench/bounded_feed.py and
tests/test_changes.py: the bodies of the reproductions of unbounded reads, a version 1
token with the unkeyed checksum anyone could compute, and a version 2 token signed with
any secret."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import zlib

MARK = dt.datetime(2026, 11, 25, 12)  # the mark of the reproductions' bookmarks
_HEAD = b"\x0ctransactions\x06update" + bytes(6)  # the transactions' update feed, no filters


def varint(n: int) -> bytes:
    """n as the token writes its integers: 7 bits a byte, low first."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _micros(stamp: dt.datetime) -> int:
    return (stamp - dt.datetime.min) // dt.timedelta(microseconds=1)


def forgotten_body(count: int) -> bytes:
    """A bookmark at MARK that counts `count` forgotten records and remembers none."""
    mark = varint(_micros(MARK))
    return _HEAD + bytes([1 | 4]) + mark + mark + varint(count) + b"\x00"


def seen_body(entries: int) -> bytes:
    """A bookmark at MARK that remembers `entries` records of no key, one second apart:
    zlib packs four million of them into about 4 kB."""
    packed = zlib.compress(varint(entries) + b"\x00" + b"\x02" * entries, 9)
    return _HEAD + bytes([1 | 8]) + varint(_micros(MARK)) + packed


def unkeyed(body: bytes) -> str:
    """A version 1 token: the unkeyed blake2b checksum of before the tokens were signed."""
    check = hashlib.blake2b(body, digest_size=6, person=b"jembatan-feed").digest()
    return base64.urlsafe_b64encode(b"\x01" + check + body).rstrip(b"=").decode()


def signed(body: bytes, secret: bytes) -> str:
    """A version 2 token of `body` signed with `secret`, as the service signs one
    (app/core/bookmarks.py): what only a holder of the secret can make."""
    mac = hmac.new(secret, b"jembatan-feed\0\x02" + body, hashlib.sha256).digest()[:12]
    return base64.urlsafe_b64encode(b"\x02" + mac + body).rstrip(b"=").decode()
