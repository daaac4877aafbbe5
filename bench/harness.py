"""The parts of the benchmark that touch processes: servers, wrk, full-table streams, RSS.

Every server is started in a session of its own and stopped (SIGTERM, then SIGKILL) by
`Server.__exit__`, so a failed run leaves nothing behind; every wait is bounded.
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import io
import json
import os
import shlex
import signal
import socket
import subprocess
import threading
import time
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent  # every command runs here, with paths from here
WRK_DIR = Path("bench/wrk")
CORES = os.cpu_count() or 1
ALL_CORES = f"0-{CORES - 1}"
SERVER_CORE = "0"  # the server's core in the pinned runs
CLIENT_CORE = "1" if CORES > 1 else "0"  # the load generator's


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    """VmRSS of one process in KiB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    # pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    return sorted(found)


def _proving(pid: int) -> bool:
    """Whether process `pid` is the proof at start (python -m app.console.prover)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"app.console.prover" in f.read()
    except OSError:
        return False


class Server:
    """A server process: `with Server(...) as s:` starts it and waits until `ready_path`
    answers 200; leaving the block stops it and everything it started."""

    def __init__(self, name: str, argv: Sequence[str], port: int, ready_path: str,
                 env: dict[str, str] | None = None, cores: str = SERVER_CORE,
                 worker_processes: bool = False, log: Path | None = None):
        self.name, self.port, self.ready_path = name, port, ready_path
        self.argv = ["taskset", "-c", cores, *argv]
        self.env = env
        self.worker_processes = worker_processes  # gunicorn: measure the master's children
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    def __enter__(self) -> Server:
        if self.log:
            self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log or os.devnull, "ab") as out:  # the child keeps its own copy
            self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 180
        url = f"http://127.0.0.1:{self.port}{self.ready_path}"
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode} at start; "
                                   f"log: {self.log}")
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"{self.name} did not answer {url} within 180 s")
            time.sleep(0.2)
        if self.worker_processes:  # gunicorn boots its workers after the master listens
            for _ in range(100):
                if self.pids():
                    break
                time.sleep(0.1)
        return self

    def pids(self) -> list[int]:
        """The processes that serve requests: gunicorn's workers (not the proof at start its
        master runs a while, app/console/prover.py), or the server itself."""
        assert self.proc is not None
        return ([p for p in children(self.proc.pid) if not _proving(p)]
                if self.worker_processes else [self.proc.pid])

    def __exit__(self, *exc: object) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(15)


# --- wrk ----------------------------------------------------------------------------------

def wrk_argv(port: int, script: str, args: Sequence[object], seconds: float, threads: int,
             cores: str, connections: int = 4, headers: Sequence[str] = ()) -> list[str]:
    return ["taskset", "-c", cores, "wrk", f"-t{threads}", f"-c{connections}",
            *(x for h in headers for x in ("-H", h)), f"-d{max(1, round(seconds))}s",
            "--latency", "--timeout", "60s", "-s", str(WRK_DIR / script),
            f"http://127.0.0.1:{port}", "--", *map(str, args)]


def wrk(port: int, script: str, args: Sequence[object], seconds: float, warmup: float,
        threads: int = 1, cores: str = CLIENT_CORE, connections: int = 4,
        headers: Sequence[str] = ()) -> dict[str, object]:
    """A warm-up run (discarded), then the measured run: req/s, latency, errors (all kinds
    summed; `errors_status` alone counts answers outside 2xx/3xx). `headers` go with every
    request (wrk -H)."""
    if warmup > 0:
        _run_wrk(wrk_argv(port, script, args, warmup, threads, cores, connections, headers),
                 warmup)
    argv = wrk_argv(port, script, args, seconds, threads, cores, connections, headers)
    s = _run_wrk(argv, seconds)
    duration = s["duration_us"] / 1e6
    errors = sum(v for k, v in s.items() if k.startswith("errors_"))
    return {"req_s": s["requests"] / duration, "p50_ms": s["latency_p50_us"] / 1000,
            "p99_ms": s["latency_p99_us"] / 1000, "mean_ms": s["latency_mean_us"] / 1000,
            "requests": s["requests"], "errors": errors, "errors_status": s["errors_status"],
            "bytes_per_request": s["bytes"] / max(1, s["requests"]),
            "command": shlex.join(argv)}


def _run_wrk(argv: list[str], seconds: float) -> dict[str, float]:
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                          timeout=seconds + 120, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("WRK_JSON "):
            return json.loads(line[len("WRK_JSON "):])
    raise RuntimeError(f"wrk gave no summary (exit {done.returncode}):\n{done.stdout}\n"
                       f"{done.stderr}")


# --- full-table streams ---------------------------------------------------------------------

class RssSampler:
    """Peak VmRSS of the serving processes, sampled every 50 ms in a thread."""

    def __init__(self, pids: Sequence[int], interval: float = 0.05):
        self.pids, self.interval = list(pids), interval
        self.baseline_kib = sum(rss_kib(p) for p in self.pids)
        self.peak_sum_kib = self.baseline_kib
        self.peak_each_kib = max((rss_kib(p) for p in self.pids), default=0)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            each = [rss_kib(p) for p in self.pids]
            self.peak_sum_kib = max(self.peak_sum_kib, sum(each))
            self.peak_each_kib = max(self.peak_each_kib, *each, 0)
            self.samples += 1
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


@contextlib.contextmanager
def on_cores(cores: str) -> Iterator[None]:
    """Run this process (the streaming client) on the given cores for a while."""
    before = os.sched_getaffinity(0)
    first, _, last = cores.partition("-")
    os.sched_setaffinity(0, set(range(int(first), int(last or first) + 1)))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def stream(port: int, path: str, pids: Sequence[int], expected_rows: int, kind: str,
           cores: str = CLIENT_CORE) -> dict[str, object]:
    """GET a full table once: rows/s, time to first body byte, peak server RSS, and whether
    the body is complete (parsed after the clock stops)."""
    chunks: list[bytes] = []
    with on_cores(cores), RssSampler(pids) as rss:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        try:
            started = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            headers_at = time.perf_counter()
            first_at = None
            while True:
                data = response.read1(1 << 20)
                if not data:
                    break
                if first_at is None:
                    first_at = time.perf_counter()
                chunks.append(data)
            ended = time.perf_counter()
            status = response.status
        finally:
            conn.close()
    body = b"".join(chunks)
    chunks.clear()
    seconds = ended - started
    check = {"json": count_json, "csv": count_csv, "xlsx": count_xlsx}[kind](body)
    rows = check["rows"]
    return {
        "status": status, "seconds": seconds, "rows": rows, "bytes": len(body),
        "rows_s": rows / seconds if seconds else 0.0,
        "mb_s": len(body) / seconds / 1e6 if seconds else 0.0,
        "first_byte_ms": ((first_at or ended) - started) * 1000,
        "headers_ms": (headers_at - started) * 1000,
        "rss_baseline_mb": rss.baseline_kib / 1024, "rss_peak_mb": rss.peak_sum_kib / 1024,
        "rss_peak_worker_mb": rss.peak_each_kib / 1024, "rss_samples": rss.samples,
        "complete": status == 200 and check["valid"] and rows == expected_rows,
        "check": check["detail"],
    }


def count_json(body: bytes, piece: int = 8 << 20) -> dict[str, object]:
    """Parse a JSON array of records piece by piece (bounded memory): valid, and how many.

    The body is cut after a `}` that is followed by `,{`; a cut that falls inside a string
    leaves a piece that does not parse, so the cut moves on to the next candidate. Every piece
    parsing as `[piece]` means the whole array parses. Also checks that ids ascend.
    """
    if body[:1] != b"[" or body[-1:] != b"]":
        return {"valid": False, "rows": 0,
                "detail": f"not a JSON array: starts {body[:20]!r}, ends {body[-20:]!r}"}
    rows, start, end, last_id = 0, 1, len(body) - 1, None
    while start < end:
        cut = body.find(b"},{", min(start + piece, end))
        while True:
            stop = end if cut < 0 else cut + 1
            try:
                records = orjson.loads(b"[" + body[start:stop] + b"]")
                break
            except orjson.JSONDecodeError as exc:
                if cut < 0:
                    return {"valid": False, "rows": rows,
                            "detail": f"JSON does not parse after {rows} records: {exc}"}
                cut = body.find(b"},{", cut + 1)
        for record in records:
            if last_id is not None and not record["id"] > last_id:
                return {"valid": False, "rows": rows, "detail": f"id {record['id']} out of order"}
            last_id = record["id"]
        rows += len(records)
        start = stop + 1  # past the comma
    return {"valid": True, "rows": rows, "detail": f"JSON parses: {rows:,} records, ids ascending"}


def count_xlsx(body: bytes | Path) -> dict[str, object]:
    """Records of an Excel workbook: the rows of its sheets, less each sheet's header row,
    each sheet's XML inflated piece by piece (the zip's CRCs checked on the way). Also the
    number of sheets and their rows (a sheet holds at most 1,048,576, its header's included)."""
    try:
        with zipfile.ZipFile(io.BytesIO(body) if isinstance(body, bytes) else body) as z:
            sheets = sorted((n for n in z.namelist() if n.startswith("xl/worksheets/sheet")),
                            key=lambda n: int(n[len("xl/worksheets/sheet"):-4]))
            counts = [_xml_rows(z, name) for name in sheets]
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        return {"valid": False, "rows": 0, "detail": f"not a workbook: {exc}"}
    rows = sum(counts) - len(counts)
    return {"valid": bool(counts) and max(counts) <= 1_048_576, "rows": rows,
            "sheets": counts, "detail": f"xlsx: {len(counts)} sheet(s) of "
            f"{', '.join(f'{c:,}' for c in counts)} rows (headers included), {rows:,} records"}


def _xml_rows(z: zipfile.ZipFile, name: str) -> int:
    rows, carry = 0, b""
    with z.open(name) as f:
        while data := f.read(1 << 20):
            data = carry + data
            rows += data.count(b"<row ")
            carry = data[-4:]  # a tag cut between two reads is counted once, in the next
            rows -= carry.count(b"<row ")
    return rows + carry.count(b"<row ")


def count_csv(body: bytes) -> dict[str, object]:
    """Rows of a CSV body (after its header), each with as many fields as the header."""
    reader = csv.reader(io.TextIOWrapper(io.BytesIO(body), encoding="utf-8", newline=""))
    header = next(reader, None)
    if not header:
        return {"valid": False, "rows": 0, "detail": "empty CSV"}
    rows, short = 0, 0
    for row in reader:
        rows += 1
        short += len(row) != len(header)
    return {"valid": short == 0, "rows": rows,
            "detail": f"CSV: header of {len(header)} fields, {rows:,} rows"
                      + (f", {short} with another number of fields" if short else "")}
