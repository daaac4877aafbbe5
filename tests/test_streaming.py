"""Streaming (docs/api.md §5.6): `/<c>` and unpaged ranges are read at the database's pace into a
spool (memory, then a temporary file) and sent at the client's pace, so a slow client never
holds a cursor open on the plant's tables; under gunicorn and under waitress alike, a client
that goes away frees its thread at once."""

from __future__ import annotations

import http.client
import json
import re
import socket
import sqlite3
import struct
import threading
import time
from pathlib import Path

import pytest
import requests

from app.http.streaming import Spool
from tests.conftest import build_database
from tests.helpers import samples, value
from tests.servers import SERVERS, Running, eventually, http_server, workers

# The file beyond the memory limit read and written at an offset (os.pread, os.pwrite: Linux)
# or after a seek, one thread at a time (Windows, which has neither).
POSITIONED_OR_NOT = pytest.mark.parametrize("positioned", [True, False],
                                            ids=["pread-pwrite", "seek"])


def drain(spool: Spool) -> bytes:
    return b"".join(spool.read())


@POSITIONED_OR_NOT
def test_spool_keeps_the_order_across_memory_and_file(positioned: bool) -> None:
    spool = Spool(memory_limit=10, positioned=positioned)
    parts = [b"[", b"1234", b"56789", b"abcdefghij", b"klm", b"]"]
    for part in parts:
        spool.write(part)
    spool.finish()
    assert drain(spool) == b"".join(parts)
    assert spool.spilled  # past 10 bytes the rest went to a temporary file
    spool.close()


@POSITIONED_OR_NOT
def test_spool_reader_follows_a_slower_writer(positioned: bool) -> None:
    spool = Spool(memory_limit=64, positioned=positioned)
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


@POSITIONED_OR_NOT
def test_spool_raises_the_writers_error_after_what_was_written(positioned: bool) -> None:
    spool = Spool(memory_limit=4, positioned=positioned)
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


@pytest.mark.parametrize("kind", SERVERS)
def test_a_client_reading_one_byte_a_second_does_not_block_the_weighbridge(
        tmp_path: Path, kind: str) -> None:
    # SQLite in its default rollback-journal mode, like SQL Server under READ COMMITTED:
    # while a SELECT is half read its reader holds a shared lock, and a writer cannot commit.
    rows = [{"id": i, "vehno": f"L {i} AB", "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00",
             "weigh1": 1000.0 + i} for i in range(1, ROWS + 1)]
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": rows})
    with http_server(kind, tmp_path, {"JEMBATAN_SQLITE": str(database)}, threads=4) as server:
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


def resident(pid: int) -> int:
    """The resident memory of process `pid`, in bytes (Linux: /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def serving_pid(kind: str, server: Running) -> int:
    """The process that answers: waitress's own, gunicorn's one worker."""
    if kind == "waitress":
        return server.process.pid
    [worker] = workers(server)
    return worker


@pytest.mark.parametrize("kind", SERVERS)
def test_a_client_gone_mid_stream_frees_the_thread(tmp_path: Path, kind: str) -> None:
    """One thread: a client stops reading a ~30 MB list and the process holds a bounded part
    of it in memory; the client goes away, its access line is written, and the same thread
    answers the next request at once."""
    rows = [{"id": i, "vehno": f"L {i} AB", "tgl_dt1": "2026-11-01", "jam_dt1": "07:00:00",
             "weigh1": 1000.0 + i} for i in range(1, ROWS + 1)]
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": rows})
    with http_server(kind, tmp_path, {"JEMBATAN_SQLITE": str(database)}, threads=1) as server:
        pid = serving_pid(kind, server)
        assert requests.get(server.base + "/transactions/1", timeout=10).status_code == 200
        # The proof of transactions runs in the background (docs/operations.md, "The proof of
        # the mapping"): decided before the stream's memory is measured, since its ranges at
        # these records' one moment read all 40,000 of them.
        assert eventually(lambda: re.search(r"transactions( proven on|: not proven again)",
                                            server.log()) is not None, 120), server.log()
        before = resident(pid)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(b"GET /transactions HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: gone\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")
        time.sleep(2)  # the database read to the end meanwhile; the client reads no more
        held = resident(pid) - before
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # a reset, as when the client's process is killed
        started = time.monotonic()
        answer = requests.get(server.base + "/transactions/2", timeout=30)
        took = time.monotonic() - started
        assert eventually(lambda: " gone GET /transactions 200 " in server.log())
        found = samples(requests.get(server.base + "/metrics", timeout=10).text)
    print(f"{kind}: {held / 2**20:.1f} MiB more resident while the client waited; the next "
          f"request answered in {took:.2f} s")
    # The spool holds 8 MiB in memory (app/http/streaming.py) and waitress 1 MiB of what
    # waits for the client (outbuf_overflow), each a temporary file beyond that; gunicorn
    # writes straight to the socket. Measured: 9.8 MiB (gunicorn), 13.6 MiB (waitress); at
    # a later run 10.2 and 19.3 MiB alone, 21.2 MiB (waitress) once in a run of the
    # quick suite (16.0 MiB for waitress just before it, on the same machine): under a
    # quarter of the ~30 MB list's more than that would be held whole.
    assert held < 24 * 2**20
    assert answer.status_code == 200 and answer.json()["id"] == 2 and took < 5
    # A client that goes away is not a stream broken by the database, under either server.
    assert value(found, "jembatan_streams_broken_total") == 0
    assert "broke off" not in server.log()
