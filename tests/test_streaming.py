"""Streaming (docs/api.md §5.6): `/<c>` and unpaged ranges are read at the database's pace into a
spool (memory, then a temporary file) and sent at the client's pace, so a slow client never
holds a cursor open on the plant's tables."""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from app.http.streaming import Spool
from tests.conftest import build_database
from tests.servers import gunicorn


def drain(spool: Spool) -> bytes:
    return b"".join(spool.read())


def test_spool_keeps_the_order_across_memory_and_file() -> None:
    spool = Spool(memory_limit=10)
    parts = [b"[", b"1234", b"56789", b"abcdefghij", b"klm", b"]"]
    for part in parts:
        spool.write(part)
    spool.finish()
    assert drain(spool) == b"".join(parts)
    assert spool.spilled  # past 10 bytes the rest went to a temporary file
    spool.close()


def test_spool_reader_follows_a_slower_writer() -> None:
    spool = Spool(memory_limit=64)
    parts = [str(i).encode() * 20 for i in range(50)]

    def write() -> None:
        for part in parts:
            spool.write(part)
            time.sleep(0.001)
        spool.finish()

    writer = threading.Thread(target=write)
    writer.start()
    assert drain(spool) == b"".join(parts)
    writer.join()
    spool.close()


def test_spool_raises_the_writers_error_after_what_was_written() -> None:
    spool = Spool(memory_limit=4)
    spool.write(b"[1,")
    spool.write(b"2,3")
    spool.finish(RuntimeError("connection lost"))
    got = []
    with pytest.raises(RuntimeError, match="connection lost"):
        for chunk in spool.read():
            got.append(chunk)
    assert b"".join(got) == b"[1,2,3"  # everything before the failure, and no closing ]
    spool.close()


ROWS = 40_000  # about 30 MB of JSON: more than the socket buffers hold


def test_a_client_reading_one_byte_a_second_does_not_block_the_weighbridge(
        tmp_path: Path) -> None:
    # SQLite in its default rollback-journal mode, like SQL Server under READ COMMITTED:
    # while a SELECT is half read its reader holds a shared lock, and a writer cannot commit.
    rows = [{"id": i, "vehno": f"L {i} AB", "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00",
             "weigh1": 1000.0 + i} for i in range(1, ROWS + 1)]
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": rows})
    with gunicorn(tmp_path, {"JEMBATAN_SQLITE": str(database)}, "--workers", "1") as server:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        client = http.client.HTTPConnection("127.0.0.1", server.port)
        client.sock = sock
        client.request("GET", "/transactions")
        response = client.getresponse()
        assert response.status == 200
        received = response.read(1)
        for _ in range(2):  # a slow client: one byte a second
            time.sleep(1)
            received += response.read(1)

        # The weighbridge program saves a weighing meanwhile. Its commit waits for readers'
        # shared locks, up to its busy timeout; it must get through while the client still
        # has nearly the whole response to read.
        writer = sqlite3.connect(database, timeout=15)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute('INSERT INTO "transactions" ("id", "vehno") VALUES (?, ?)',
                       (ROWS + 1, "W 1 NEW"))
        writer.commit()  # raises "database is locked" if the stream still held its cursor
        writer.close()
        received += response.read(1)
        assert len(received) == 4  # the client had read 4 bytes when the commit went through

        received += response.read()  # now the client reads the rest
        records = json.loads(received)
        # The answer is what was committed when the request started: the new row is not in it.
        assert [r["id"] for r in records] == list(range(1, ROWS + 1))
        client.close()
