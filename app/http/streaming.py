"""Streaming a result: read at the database's pace into a spool, sent at the client's pace.

A slow client must not hold a cursor open on the plant's tables: on SQL Server a half-read
result under READ COMMITTED keeps shared locks that block the weighbridge program's
UPDATEs, and on SQLite an unfinished SELECT blocks every writer's commit. So a thread of its
own reads the result to the end as fast as the database gives it, encodes each batch and
appends the bytes to a Spool (memory up to a bound, then a temporary file); the response
sends what the spool holds as the client takes it.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import IO, Any

from ..ops.logs import Outcome

log = logging.getLogger("jembatan.stream")

MEMORY_LIMIT = 8 * 1024 * 1024  # bytes a stream may hold in memory before using a file
READ_SIZE = 256 * 1024  # bytes per chunk sent from the file
# os.pwrite and os.pread (reading and writing at an offset, without moving a shared file
# position) exist on Linux, not on Windows: there the file is read and written after a seek,
# one thread at a time.
POSITIONED = hasattr(os, "pwrite") and hasattr(os, "pread")


class Spool:
    """Bytes appended by one thread and read, in order, by another."""

    def __init__(self, memory_limit: int = MEMORY_LIMIT, positioned: bool = POSITIONED):
        self._cond = threading.Condition()
        self._positioned = positioned
        self._seeking = threading.Lock()  # without positioned I/O: one seek and read or write
        self._memory: deque[bytes] = deque()
        self._memory_size = 0
        self._memory_limit = memory_limit
        self._file: IO[bytes] | None = None
        self._file_size = 0
        self._done = False
        self._error: BaseException | None = None
        self._closed = False
        self.spilled = False  # whether a temporary file was needed

    def write(self, data: bytes) -> None:
        if not data:
            return
        with self._cond:
            if self._closed:
                # The response is over and a reader that outlived SpooledStream.close is still
                # writing: its bytes go nowhere, and its file must not be written after close
                # (a ValueError that would be logged as a stream broken by the database).
                return
            if self._file is None and self._memory_size + len(data) <= self._memory_limit:
                self._memory.append(data)
                self._memory_size += len(data)
            else:
                if self._file is None:  # from now on every write goes to the file, in order
                    self._file = tempfile.TemporaryFile(prefix="jembatan-")
                    self.spilled = True
                self._write_at(data, self._file_size)
                self._file_size += len(data)
            self._cond.notify_all()

    def finish(self, error: BaseException | None = None) -> None:
        """No more writes; a reader that reaches the end raises `error` if there is one."""
        with self._cond:
            self._done, self._error = True, error
            self._cond.notify_all()

    def read(self) -> Iterator[bytes]:
        offset = 0
        while True:
            with self._cond:
                while not (self._memory or offset < self._file_size or self._done):
                    self._cond.wait()
                if self._memory:
                    data = self._memory.popleft()
                    self._memory_size -= len(data)
                elif offset < self._file_size:
                    data = b""  # read below, outside the lock: the writer only appends
                    length = min(self._file_size - offset, READ_SIZE)
                elif self._error is not None:
                    raise self._error
                else:
                    return
            if not data:
                data = self._read_at(length, offset)
                offset += len(data)
            yield data

    def _write_at(self, data: bytes, offset: int) -> None:
        """`data` into the file at `offset` (the writer holds the condition's lock)."""
        file = self._file
        assert file is not None
        if self._positioned:
            os.pwrite(file.fileno(), data, offset)
            return
        with self._seeking:
            file.seek(offset)
            file.write(data)
            file.flush()

    def _read_at(self, length: int, offset: int) -> bytes:
        """Up to `length` bytes of the file from `offset`, outside the condition's lock."""
        file = self._file
        assert file is not None
        if self._positioned:
            return os.pread(file.fileno(), length, offset)
        with self._seeking:
            file.seek(offset)
            return file.read(length)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            if self._file is not None:
                self._file.close()
            self._memory.clear()


class SpooledStream:
    """An iterable response body: `begin`, each batch encoded, then what `end()` gives on
    success (asked for only then: an Excel workbook's last parts depend on its batches).

    If reading fails midway the error is logged and raised to the server after the bytes
    already spooled, before `end`: the server then aborts the chunked response, so no client
    can take a cut-short array for a complete one.
    """

    def __init__(self, batches: Iterator[list[Any]], encode: Callable[[list[Any], bool], bytes],
                 begin: bytes, end: Callable[[], bytes], what: str,
                 on_abandon: Callable[[], None], outcome: Outcome | None = None):
        self._batches, self._encode = batches, encode
        self._begin, self._end, self.what = begin, end, what
        self._on_abandon = on_abandon
        self._spool = Spool()
        self._stop = threading.Event()
        # What it sent, told as it is read: the records, and whether reading failed midway
        # (the client gets a cut-off body); the request's own (app/http/logged.py).
        self.outcome = Outcome() if outcome is None else outcome
        self.outcome.rows = 0
        self._thread = threading.Thread(target=self._read, name=f"spool {what}", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self._spool.write(self._begin)
            first, sent = True, 0
            for batch in self._batches:
                if self._stop.is_set():
                    break
                self._spool.write(self._encode(batch, first))
                sent += len(batch)
                self.outcome.rows = sent
                first = False
            else:
                self._spool.write(self._end())
            self._spool.finish()
        except BaseException as exc:
            log.error("stream %s broke off after %d records: %s", self.what,
                      self.outcome.rows, exc)
            self.outcome.broken = True
            self._spool.finish(exc)
        finally:
            close = getattr(self._batches, "close", None)
            if close is not None:
                close()  # close the cursor in this thread, at once

    def __iter__(self) -> Iterator[bytes]:
        return self._spool.read()

    def close(self, wait: float = 30.0) -> None:
        """The response is done (or the client went away): stop reading and clean up."""
        self._stop.set()
        self._thread.join(wait)
        if self._thread.is_alive():
            # Still inside a slow fetch: the connection is not free for the next request.
            self._on_abandon()
        self._spool.close()
