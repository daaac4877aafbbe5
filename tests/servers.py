"""Real server processes serving Jembatan, for tests that need one: `gunicorn wsgi:app`, and
`jembatan serve` under gunicorn or waitress; a real nginx in front of gunicorn
(tests/test_nginx.py); the memory of their processes."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.helpers import samples

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).parent / "gunicorn"
JEMBATAN = Path(sys.executable).parent / "jembatan"  # the console script setup.cfg installs
START_TIMEOUT = 20.0
# How long one /health poll at start waits for its answer: the first request of a worker took
# 1.8 s on a loaded host, and a driver may wait out its login timeout before refusing (Driver
# 18 on a port that refuses TCP). A poll given up sooner and sent again leaves its request
# queued in the worker, served once the test is under way (it made a connection during a
# test's server stop).
POLL_TIMEOUT = 5.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Running:
    """A server process answering on `base`: gunicorn, or `jembatan serve` (either server)."""

    base: str
    port: int
    process: subprocess.Popen[bytes]
    stderr: Path

    def log(self) -> str:
        return self.stderr.read_text(errors="replace")

    def scrape(self, counted: Callable[[dict], bool] = lambda found: True,
               headers: Mapping[str, str] | None = None) -> dict:
        """/metrics parsed, once `counted` holds of it (or the last scrape after 10 s): a
        request is counted when its body has been sent, which the client may see first.
        `headers`: the metrics key's, where the server has API keys (docs/api.md §11)."""
        found: dict = {}

        def settled() -> bool:
            found.clear()
            found.update(samples(requests.get(self.base + "/metrics", timeout=10,
                                              headers=headers).text))
            return counted(found)

        eventually(settled)
        return found


def environment(work: Path, env: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without JEMBATAN_* settings, then `env`: an empty settings
    file, so that nothing comes from a config.toml someone left in the checkout, and no key."""
    empty_config = work / "empty.toml"
    empty_config.write_text("")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    return full_env | {"JEMBATAN_CONFIG": str(empty_config)} | dict(env)


@contextlib.contextmanager
def running(work: Path, env: Mapping[str, str], command: list[str], port: int,
            cwd: Path = ROOT) -> Iterator[Running]:
    """Start `command` (listening on `port`) with `env` on top of environment(); wait for
    /health to answer (200 or 503); stop it afterwards (SIGTERM, then SIGKILL)."""
    stderr_path = work / f"server-{port}.log"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, env=environment(work, env),
                                   stdout=stderr, stderr=stderr)
    server = Running(f"http://127.0.0.1:{port}", port, process, stderr_path)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"{command[0]} exited with {process.returncode}:\n{server.log()}")
            try:
                requests.get(server.base + "/health", timeout=POLL_TIMEOUT)
                break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{command[0]} did not answer within {START_TIMEOUT:.0f} s:\n"
                            f"{server.log()}")
            time.sleep(0.2)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextlib.contextmanager
def gunicorn(work: Path, env: Mapping[str, str], *args: str) -> Iterator[Running]:
    """gunicorn (`gunicorn wsgi:app` from the checkout) on a free port with `env` (JEMBATAN_*
    settings) and extra `args`."""
    assert GUNICORN.is_file(), f"gunicorn is not installed next to {sys.executable}"
    port = free_port()
    with running(work, env, [str(GUNICORN), "-b", f"127.0.0.1:{port}", *args, "wsgi:app"],
                 port) as server:
        yield server


@contextlib.contextmanager
def jembatan_serve(work: Path, env: Mapping[str, str], *args: str,
                   cwd: Path | None = None) -> Iterator[Running]:
    """`jembatan serve` (the installed command) on a free port with `env` and extra `args`
    (`--server waitress`), from `cwd` (by default `work`, outside the checkout)."""
    port = free_port()
    with running(work, env, [str(JEMBATAN), "serve", "--bind", f"127.0.0.1:{port}", *args],
                 port, cwd or work) as server:
        yield server


# The two servers Jembatan runs under: gunicorn (Linux) and waitress (Windows, or when asked).
SERVERS = ("gunicorn", "waitress")


@contextlib.contextmanager
def http_server(kind: str, work: Path, env: Mapping[str, str], threads: int,
                workers: int = 1) -> Iterator[Running]:
    """`gunicorn wsgi:app` (`workers` processes of `threads` threads) or `jembatan serve
    --server waitress` (one process of `threads` threads), by `kind`, on a free port."""
    if kind == "gunicorn":
        with gunicorn(work, env, "--workers", str(workers), "--threads", str(threads)) as g:
            yield g
    elif kind == "waitress":
        with jembatan_serve(work, env, "--server", "waitress", "--threads", str(threads)) as w:
            yield w
    else:
        raise ValueError(f"unknown server {kind!r}")


def stream_cut(url: str, cut: Callable[[], None], after: int = 1) -> tuple[bytes, bool]:
    """GET `url` streamed; once `after` bytes have arrived, `cut()` (the database goes away),
    then read on. The body, and whether the transfer broke off (no last chunk)."""
    body = bytearray()
    with requests.get(url, stream=True, timeout=60) as response:
        assert response.status_code == 200
        # One iterator from the first byte to the last. (raw.read() and then iter_content()
        # would parse the chunked framing from the middle of a chunk: a ChunkedEncodingError
        # even for a complete body, and the client closing the connection at once, before
        # the server has seen the database go.)
        chunks = response.iter_content(64 * 1024)
        for chunk in chunks:
            body += chunk
            if len(body) >= after:  # the stream is under way
                break
        cut()
        try:
            for chunk in chunks:
                body += chunk
        except requests.exceptions.ChunkedEncodingError:
            return bytes(body), True  # the server ended the transfer without its last chunk
    return bytes(body), False


def records_before_the_break(body: bytes) -> int:
    """How many whole records a broken JSON array holds; it must not parse as complete, so
    that the ERP cannot take it for an answer."""
    assert body.startswith(b"[{")
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)
    return len(json.loads(body.rsplit(b",{", 1)[0] + b"]"))


def children(pid: int) -> set[int]:
    """The pids of the processes whose parent is `pid`."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def workers(server: Running) -> set[int]:
    """The pids of gunicorn's worker processes (not the proof at start, which the master
    starts once it listens and which ends once it has proven: app/console/prover.py)."""
    return {pid for pid in children(server.process.pid) if not proving(pid)}


def proving(pid: int) -> bool:
    """Whether process `pid` is the proof at start (python -m app.console.prover)."""
    try:
        return b"app.console.prover" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """The resident memory of process `pid` (VmRSS in /proc/PID/status; `field` VmHWM: its
    peak since it started its program), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for process {pid}")


class PeakRss:
    """Samples the resident memory of some processes every `interval` seconds in a thread,
    from entering to leaving: the first sample and the highest, by pid, in KiB."""

    def __init__(self, pids: set[int], interval: float = 0.02):
        self.pids, self.interval = pids, interval
        self.first = {pid: rss_kib(pid) for pid in pids}
        self.peak = dict(self.first)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            for pid in self.pids:
                self.peak[pid] = max(self.peak[pid], rss_kib(pid))
            self.samples += 1

    def growth(self, pid: int) -> int:
        """How far above its first sample the process's memory went, in KiB."""
        return self.peak[pid] - self.first[pid]

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def eventually(condition: Callable[[], bool], seconds: float = 10) -> bool:
    """Whether `condition` becomes true within `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


ODBC_CONNECT_TIMEOUT = 2  # seconds: serve_odbc's connect_timeout, which the fault tests time


@contextlib.contextmanager
def serve_odbc(odbc: str, work: Path, threads: int = 1, serve: Sequence[str] = (),
               **database: object) -> Iterator[Running]:
    """One worker (with `threads` threads) serving Jembatan from `odbc`, with these
    [database] settings and connect_timeout = ODBC_CONNECT_TIMEOUT; only the collections
    `serve` names, when it names some (the start refuses a table the database lacks)."""
    config = work / "jembatan.toml"
    # The queries and faults are the requests' own: the proof at the first read is left out.
    lines = [f"connect_timeout = {ODBC_CONNECT_TIMEOUT}", "prove_on_first_read = false"] + [
        f"{k} = {json.dumps(v)}" for k, v in database.items()]
    served = f"\n[collections]\nserve = {json.dumps(list(serve))}\n" if serve else ""
    config.write_text("[database]\n" + "\n".join(lines) + "\n" + served)
    with gunicorn(work, {"JEMBATAN_ODBC": odbc, "JEMBATAN_CONFIG": str(config),
                         "PYTHONFAULTHANDLER": "1"}, "--workers", "1", "--threads", str(threads),
                  "--timeout", "60") as g:
        yield g


NGINX = Path("/usr/sbin/nginx")  # Debian's package `nginx` (Makefile TEST_DEBS)
# The main configuration around a site: nginx in the foreground as a child of the test, every
# file it writes under its prefix. As root (CI) the workers would otherwise run as `nobody`,
# who cannot enter pytest's private temporary directories.
NGINX_MAIN = """daemon off;
master_process on;
worker_processes 1;
{user}pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/temp/body;
    proxy_temp_path {prefix}/temp/proxy;
    fastcgi_temp_path {prefix}/temp/fastcgi;
    uwsgi_temp_path {prefix}/temp/uwsgi;
    scgi_temp_path {prefix}/temp/scgi;
{http}
}}
"""


@dataclass
class Nginx:
    process: subprocess.Popen[bytes]
    prefix: Path

    def log(self) -> str:
        """nginx's error log (and what it wrote to stderr)."""
        return "".join(p.read_text(errors="replace") for p in
                       (self.prefix / "stderr.log", self.prefix / "error.log") if p.exists())

    def access(self) -> list[str]:
        return (self.prefix / "access.log").read_text().splitlines()

    def workers(self) -> set[int]:
        return children(self.process.pid)


@contextlib.contextmanager
def nginx(work: Path, http: str, files: Mapping[str, str], ports: list[int]) -> Iterator[Nginx]:
    """Start nginx with `http` inside its http block and `files` (relative path: text) next to
    its nginx.conf, where relative includes find them; wait until it accepts on `ports`;
    stop it afterwards."""
    assert NGINX.is_file(), "nginx is not installed: `make test` installs Debian's package"
    prefix = work / "nginx"
    (prefix / "temp").mkdir(parents=True)
    for name, text in files.items():
        (prefix / name).parent.mkdir(parents=True, exist_ok=True)
        (prefix / name).write_text(text)
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = prefix / "nginx.conf"
    conf.write_text(NGINX_MAIN.format(user=user, prefix=prefix, http=http))
    with open(prefix / "stderr.log", "wb") as stderr:
        process = subprocess.Popen([str(NGINX), "-p", str(prefix), "-c", str(conf),
                                    "-e", str(prefix / "error.log")],
                                   stdout=stderr, stderr=stderr)
    server = Nginx(process, prefix)
    try:
        def up() -> bool:
            return process.poll() is not None or all(_accepts(port) for port in ports)

        if not eventually(up, START_TIMEOUT):
            pytest.fail(f"nginx did not listen on {ports}:\n{server.log()}")
        if process.poll() is not None:
            pytest.fail(f"nginx exited with {process.returncode}:\n{server.log()}")
        yield server
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def self_signed(work: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for `name` and 127.0.0.1, made with the openssl CLI: the
    certificate's and the key's paths."""
    cert, key = work / "cert.pem", work / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name},IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key
