"""Running under gunicorn: the hooks that gunicorn.conf.py hands it.

- Errors gunicorn answers itself, before Flask sees the request (a request line over
  `limit_request_line`, 414; headers over `limit_request_field_size` or
  `limit_request_fields`, 431; a request that is not HTTP, 400), come in Jembatan's JSON error
  shape instead of gunicorn's HTML page (docs/api.md §9): gunicorn writes every one of them
  through `gunicorn.util.write_error`, which each worker replaces with `write_json_error`.
- The proof at start (docs/operations.md, "The proof of the mapping"): once the master
  listens, and again on a reload (HUP), it starts `python -m app.console.prover`, which
  proves every served collection and keeps the verdicts for the workers, however often
  they are replaced; it is stopped with the master. Not with `prove_on_first_read = false`.
- The metrics of all workers: PROMETHEUS_MULTIPROC_DIR is made before the workers start
  (gunicorn.conf.py, before anything imports prometheus_client), emptied at start, a dead
  worker's files are marked, and the directory is removed at exit when Jembatan made it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from http import HTTPStatus
from pathlib import Path
from typing import Any

from .config import ConfigError, load_settings
from .metrics import MULTIPROCESS

MADE_HERE = "JEMBATAN_METRICS_DIR_MADE"  # set when the directory is Jembatan's to remove

_MESSAGES = {
    414: "The request line is longer than the server accepts (gunicorn's limit_request_line, "
         "4,094 bytes by default): send fewer or shorter query arguments.",
    431: "The request's headers are larger than the server accepts (gunicorn's "
         "limit_request_field_size, 8,190 bytes a header, and limit_request_fields, 100 "
         "headers): send fewer or smaller headers.",
    400: "The request is not valid HTTP",
}


def metrics_directory() -> str:
    """PROMETHEUS_MULTIPROC_DIR: the operator's own, else a new temporary one. Called by
    gunicorn.conf.py at load, so that every process gunicorn starts inherits it."""
    given = os.environ.get(MULTIPROCESS)
    if given:
        Path(given).mkdir(parents=True, exist_ok=True)
        return given
    made = tempfile.mkdtemp(prefix="jembatan-metrics-")
    os.environ[MULTIPROCESS] = made
    os.environ[MADE_HERE] = made
    return made


def json_error(status: int, reason: str, detail: str) -> bytes:
    """A whole HTTP/1.1 error response in the error shape of docs/api.md §9."""
    message = _MESSAGES.get(status)
    if message is None or status == 400:
        base = message or "The server could not answer this request"
        message = f"{base}: {detail[:200]}" if detail else f"{base}."
    # gunicorn's reason phrases are RFC 9110's ("URI Too Long"; Python's is older).
    phrase = reason or (HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_
                        else "Error")
    body = json.dumps({"code": status, "status": phrase, "message": message}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


def write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    from gunicorn import util

    util.write_nonblock(sock, json_error(status_int, reason, mesg))


# -- gunicorn's server hooks (gunicorn.conf.py names them) -----------------------------------


def on_starting(server: Any) -> None:
    """Before the first worker: no figures left from an earlier run in the directory."""
    directory = os.environ.get(MULTIPROCESS)
    if directory:
        for stale in Path(directory).glob("*.db"):
            stale.unlink(missing_ok=True)


def post_worker_init(worker: Any) -> None:
    """In each worker, before it serves: gunicorn's own error pages as JSON, and no key in
    its warning about a request it refuses (which quotes the request line, escaped)."""
    from gunicorn import util

    from . import logs  # here: loaded by the workers only

    util.write_error = write_json_error
    logging.getLogger("gunicorn.error").addFilter(logs.SecretsHidden())


def child_exit(server: Any, worker: Any) -> None:
    """A worker is gone: its live figures (gauges) no longer count."""
    if os.environ.get(MULTIPROCESS):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def when_ready(server: Any) -> None:
    """The master listens: the proof at start, in a process of its own."""
    stop_prover(server)
    try:
        prove = load_settings().database.prove_on_first_read
    except ConfigError:
        return  # the workers say why, and gunicorn stops
    if prove:  # its queries are no request's: kept out of the workers' metrics
        env = {k: v for k, v in os.environ.items() if k not in (MULTIPROCESS, MADE_HERE)}
        server.jembatan_prover = subprocess.Popen(
            [sys.executable, "-m", "app.console.prover"], stdin=subprocess.DEVNULL, env=env)


def on_reload(server: Any) -> None:
    """A reload (HUP) builds new workers on a mapping that may have changed: prove again."""
    when_ready(server)


def stop_prover(server: Any) -> None:
    """The proof at start ends with its master (or before a new one starts)."""
    prover = getattr(server, "jembatan_prover", None)
    if prover is not None and prover.poll() is None:
        prover.terminate()
        try:
            prover.wait(10)
        except subprocess.TimeoutExpired:
            prover.kill()
            prover.wait(10)
    server.jembatan_prover = None


def on_exit(server: Any) -> None:
    """The proof at start stops; the directory Jembatan made goes with it."""
    stop_prover(server)
    made = os.environ.get(MADE_HERE)
    if made and made == os.environ.get(MULTIPROCESS):
        shutil.rmtree(made, ignore_errors=True)


# -- what gunicorn is given: gunicorn.conf.py and `jembatan serve` alike ---------------------

# 2 worker processes of 4 threads each (more than one thread makes gunicorn use its gthread
# worker), measured by `make bench-shape` (bench/RESULTS.md, "Production shape"; the trade-off
# in docs/deploy.md, section 2). A silent worker is replaced after 120 s, and requests in
# progress get as long on reload or stop. No control socket (gunicorn 25 and later): it would
# be written under the service user's home, which the systemd unit hides. Recycling workers
# (--max-requests) is the unit's choice, on its command line: a run by hand keeps its workers.
# gunicorn does not read the scheme from X-Forwarded-Proto itself (by default it believes it
# from 127.0.0.1 and ::1, whoever that is): Jembatan does, from api.trusted_proxies only
# (app/http/hosts.py).
SETTINGS: dict[str, Any] = {"workers": 2, "threads": 4, "timeout": 120, "graceful_timeout": 120,
                            "control_socket_disable": True, "secure_scheme_headers": {}}
HOOKS = (on_starting, when_ready, on_reload, post_worker_init, child_exit, on_exit)


def settings(known: Any) -> dict[str, Any]:
    """SETTINGS that this gunicorn knows (`known`: its cfg.settings), and the hooks above."""
    return {name: value for name, value in SETTINGS.items() if name in known} | {
        hook.__name__: hook for hook in HOOKS}
