"""Serving under waitress: one process of threads, where gunicorn cannot run (Windows).

What differs from gunicorn, and what is done about it (docs/deploy.md, "Windows"):

- Logs. `waitress.serve` calls `logging.basicConfig()`, which gives the root logger a handler
  of its own: every line of Jembatan's loggers, which propagate, was then written twice (the
  second time as `INFO:jembatan.access:...`). The server is made with `create_server` and run
  here instead, the root logger is left alone, and waitress's own lines (where it listens, a
  client gone mid-answer, its task queue) go through Jembatan's handler, in its format.
- Metrics. One process: every thread counts into the app's own registry, which /metrics
  renders. PROMETHEUS_MULTIPROC_DIR is for gunicorn's several processes; here its files would
  only outlive the process and add an earlier run's figures to this one's, so it is dropped
  before the app (and prometheus_client) is loaded.
- Forwarded headers. waitress removes X-Forwarded-* from every request unless told to trust a
  proxy; Jembatan applies them itself, for exactly one proxy, from the addresses of
  api.trusted_proxies only (app/http/hosts.py, docs/deploy.md, section 2), so waitress is
  told to leave them.
- Timeouts. waitress has no worker timeout: `channel_timeout` closes a connection that has
  been silent that long, and only while no request of it is being served, so an export that
  takes minutes is never cut while the app is still giving bytes; once the app is done,
  each send to the client counts as activity. It is gunicorn's `timeout` (120 s), the
  longest silence gunicorn allows a worker: one setting for both servers.
- Bodies. waitress reads a request's whole body (into a temporary file past 512 KiB) before
  the app sees it, and takes up to 1 GiB by default: a 300 MiB body was spooled to disk
  before Jembatan answered 401. `max_request_body_size` is the largest body Jembatan reads
  (app/ops/limits.py: an MCP message), so waitress answers a larger one 413 from its
  Content-Length, before reading it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from . import gunicorn_hooks, logs
from .limits import MAX_BODY
from .metrics import MULTIPROCESS

# waitress's adjustments (waitress.adjustments.Adjustments) that Jembatan sets; the others
# keep waitress's defaults: 100 connections at most, request headers up to 256 KiB in all
# (max_request_header_size), a response held in memory up to 1 MiB and in a temporary file
# beyond that, the app paused while 16 MiB are waiting for the client.
SETTINGS: dict[str, Any] = {
    "channel_timeout": gunicorn_hooks.SETTINGS["timeout"],
    # waitress refuses a body of max_request_body_size bytes or more: MAX_BODY itself passes.
    "max_request_body_size": MAX_BODY + 1,
    "clear_untrusted_proxy_headers": False,
    # A client that goes away mid-answer is an ordinary event (the access line says how
    # many records it got); waitress would log each as "Socket error" with a traceback.
    "log_socket_errors": False,
    "ident": "jembatan",
}


def serve(build: Callable[[], Any], host: str, port: int, threads: int) -> None:
    """Serve the app that `build()` makes on host:port with `threads` threads until
    stopped."""
    from waitress.server import create_server

    os.environ.pop(MULTIPROCESS, None)
    application = build()
    logs.share_handler(logging.getLogger("waitress"))
    server = create_server(application, host=host, port=port, threads=threads, **SETTINGS)
    server.print_listen("Serving on http://{}:{}")
    server.run()
