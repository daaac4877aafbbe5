"""Writing a result set as it is read, in chunks, so memory stays flat."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

log = logging.getLogger("jembatan.stream")

CHUNK = 64 * 1024  # bytes per write: few enough syscalls, small enough to start at once


def json_array(items: Iterable[str], what: str) -> Iterator[bytes]:
    """`[item,item,...]` from already-encoded JSON values.

    If reading fails midway the error is logged and re-raised before the closing `]`: the
    server then aborts the chunked response, so no client can take a cut-short array for a
    complete one.
    """
    parts = ["["]
    size = 1
    count = 0
    try:
        for item in items:
            if count:
                parts.append(",")
            parts.append(item)
            size += len(item) + 1
            count += 1
            if size >= CHUNK:
                yield "".join(parts).encode()
                parts, size = [], 0
    except Exception as exc:
        log.error("stream %s broke off after %d records: %s", what, count, exc)
        raise
    parts.append("]")
    yield "".join(parts).encode()
