"""`jembatan serve`: the app under gunicorn (a master and its workers, as gunicorn.conf.py
sets them) or under waitress (one process of threads, for Windows, where gunicorn cannot run).
Both build the app through `application()`, as wsgi.py does: a setting or mapping file to
mend, or a mapping the database refuses (app/core/mapped.py), ends the start with one line,
not a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from flask import Flask

from .. import create_app
from ..core.mapped import tried
from ..core.services import services
from ..database.queries import QueryFileError
from ..ops.config import ConfigError

SERVERS = ("auto", "gunicorn", "waitress")
DEFAULT_PORT = 8000
# One waitress process does what gunicorn's 2 workers of 4 threads do: 8 threads.
WAITRESS_THREADS = 8
# gunicorn's exit status of a worker that cannot boot: its master then stops ("Worker failed
# to boot") instead of starting the worker again and again (any other status).
WORKER_BOOT_ERROR = 3
# IIS's HttpPlatformHandler starts the process with the port it proxies to in this variable.
PLATFORM_PORT = "HTTP_PLATFORM_PORT"


def built() -> Flask:
    """The app from the settings, or an exit with the operator's one line to mend: for the
    commands (check-sql, draft-mapping, mcp), which report a mapping's faults themselves."""
    try:
        return create_app()
    except (ConfigError, QueryFileError) as exc:
        sys.exit(f"jembatan: {exc}")


def application() -> Flask:
    """The app to serve: built, and each served collection's mapping tried once on the
    database (app/core/mapped.py); an exit with the file, line and column of the first
    one the database refuses. A database that cannot be reached now is tried later."""
    app = built()
    kept = services(app)
    refused = tried(kept.db, kept.collections, kept.unmapped, say=False)
    kept.db.release()  # this thread serves no request: no session held for it
    if refused:
        more = (f" (and {len(refused) - 1} more: "
                f"{', '.join(r.collection for r in refused[1:])})" if len(refused) > 1 else "")
        sys.exit(f"jembatan: {refused[0].said}{more}. Correct the mapping (`jembatan "
                 f"check-sql {refused[0].collection}` runs each of its queries), then start "
                 f"again")
    return app


def default_bind(environ: Mapping[str, str]) -> str:
    """127.0.0.1 on HttpPlatformHandler's port when IIS gives one, else on 8000."""
    return f"127.0.0.1:{environ.get(PLATFORM_PORT) or DEFAULT_PORT}"


def chosen(server: str) -> str:
    """`auto`: gunicorn where it can run (it needs fork and fcntl), waitress on Windows."""
    if server != "auto":
        return server
    return "waitress" if os.name == "nt" else "gunicorn"


def split_bind(bind: str) -> tuple[str, int]:
    """HOST:PORT (or [IPv6]:PORT) as waitress takes it."""
    host, sep, port = bind.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"--bind {bind!r}: give HOST:PORT, for example 127.0.0.1:8000")
    return host.strip("[]"), int(port)


def serve_gunicorn(options: Mapping[str, Any], flags: Sequence[str] = ()) -> None:
    """gunicorn's master in this process, with gunicorn.conf.py's settings and hooks, then
    `options`, then gunicorn's own command-line `flags`: a HUP (systemctl reload) starts new
    workers, which build the app anew."""
    from gunicorn.app.base import BaseApplication

    from ..ops import gunicorn_hooks

    gunicorn_hooks.metrics_directory()  # before a worker imports prometheus_client

    class Jembatan(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            known = self.cfg.settings
            given = vars(self.cfg.parser().parse_args(list(flags)))
            for name, value in {**gunicorn_hooks.settings(known), **options}.items():
                self.cfg.set(name, value)
            for name, value in given.items():
                if name in known and value is not None:
                    self.cfg.set(name, value)

        def load(self) -> Flask:
            try:
                return application()
            except SystemExit as refused:  # the operator's line, then the master stops
                print(refused.code, file=sys.stderr, flush=True)
                raise SystemExit(WORKER_BOOT_ERROR) from None

    Jembatan(prog="jembatan serve").run()


def serve_waitress(host: str, port: int, threads: int) -> None:
    """waitress in this process: one process of `threads` threads."""
    from ..ops import waitress_serving

    waitress_serving.serve(application, host, port, threads)
