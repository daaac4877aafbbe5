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
from ..core.mapped import Refusal, tried
from ..core.reads import DatabaseUnavailable
from ..core.services import services
from ..core.unmapped import (
    MAIN_DATE_NULL,
    REFUSED,
    TODO,
    UNPROVEN,
    Proving,
    Reason,
    marked_line,
)
from ..database.queries import QueryFileError
from ..database.sqltext import null_fields, todo_fields
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
    except (ConfigError, QueryFileError, FileNotFoundError) as exc:  # FileNotFoundError:
        sys.exit(f"jembatan: {exc}")  # database.sqlite names no file (app/database/db.py)


def application() -> Flask:
    """The app to serve: built, and each served collection's mapping tried once on the
    database (app/core/mapped.py); an exit with the file, line and column of the first
    one the database refuses. A database that cannot be reached now is tried later."""
    app = built()
    kept = services(app)
    refused = tried(kept.db, kept.collections, kept.unmapped, say=False, checks=kept.checks)
    kept.db.release()  # this thread serves no request: no session held for it
    if refused:
        more = (f" (and {len(refused) - 1} more: "
                f"{', '.join(r.collection for r in refused[1:])})" if len(refused) > 1 else "")
        sys.exit(f"jembatan: {refused[0].said}{more}. Correct the mapping (`jembatan "
                 f"check-sql {refused[0].collection}` runs each of its queries), then start "
                 f"again")
    return app


def check_config() -> list[str]:
    """What `serve --check-config` finds that would keep a served collection from being
    served (docs/deploy.md): empty when every one would be. The settings and files as the
    start reads them (an exit with the line to mend when they are wrong); the database
    reached; each mapping tried on it (app/core/mapped.py); then, where the service proves
    its mapping, each collection proven as the proof at start proves it (its verdict kept
    for the start, or a kept one taken: app/core/unmapped.py `Proving`). One line for each
    place to correct, then one saying what `jembatan serve` would do."""
    app = built()
    kept = services(app)
    try:
        kept.runner.ping()
    except DatabaseUnavailable as exc:
        kept.db.release()
        return [f"jembatan: the database cannot be reached ({exc.reason}), so no mapping was "
                f"tried on it: `jembatan serve` would start, and every read answer 503 (with "
                f"Retry-After) until it can be reached. Check the connection (database.odbc "
                f"or database.sqlite, the server, the login), then check again"]
    refused = {r.collection: r for r in tried(kept.db, kept.collections, kept.unmapped,
                                              say=False)}
    if isinstance(kept.proving, Proving):
        kept.proving.by = "jembatan serve --check-config"
        for name in refused:
            kept.proving.pending.pop(name, None)
        kept.proving.prove_all()
    kept.db.release()
    said = [line for c in kept.collections for reason in kept.unmapped.reasons(c.name)
            for line in unserved(c.name, reason, refused.get(c.name),
                                 kept.proving if isinstance(kept.proving, Proving) else None)]
    if not said:
        return []
    names = list(kept.unmapped)
    if refused:
        end = (f"`jembatan serve` would refuse to start: the database refuses the mapping of "
               f"{', '.join(refused)}")
    else:
        end = (f"`jembatan serve` would start and serve the others, and every read of "
               f"{'these' if len(names) > 1 else 'this one'} answer 503 \"not mapped yet\"")
    return [*said, f"jembatan: not good to serve: {len(names)} of the {len(kept.collections)} "
                   f"served collections would answer 503 ({', '.join(names)}); {end}. Correct "
                   f"the mapping (`jembatan check-sql <collection>` runs each of its queries "
                   f"and proves its reads), or leave the collection out of collections.serve, "
                   f"then check again"]


def unserved(collection: str, reason: Reason, refusal: Refusal | None,
             proving: Proving | None) -> list[str]:
    """check-config's lines for one reason a collection would answer 503: the file and line
    to correct, what is wrong there and what to do."""
    if refusal is not None and reason.problem == REFUSED:
        return [f"jembatan: {collection}: {refusal.said}"]
    path = reason.file
    if reason.problem in (TODO, MAIN_DATE_NULL):
        def marks(line: str) -> list[str]:  # a line of the select list, as one alone
            return todo_fields(line) if reason.problem == TODO else null_fields(f", {line}")
        what = (("is still marked -- TODO (a field draft-mapping left to map): write its "
                 "column or expression, or keep its NULL and drop the TODO where the site has "
                 "no such column") if reason.problem == TODO else
                ("is given as NULL, and it is the main date (the default `on` of the ranges "
                 "and summaries, and the report's): every range, summary and report day would "
                 "be empty; map it to the column that holds the date"))
        return [f"jembatan: {collection}: {path}"
                + (f" line {n}" if (n := marked_line(path, f, marks)) else "")
                + f": {f} {what}" for f in reason.fields]
    verdict = proving.refused.get(collection) if proving else None
    if reason.problem == UNPROVEN and proving is not None and verdict is not None:
        kept = ("" if proving.keeper.unwritable else
                f" (the verdict kept in {proving.keeper.path(collection)})")
        return [f"jembatan: {collection}: {path}: {', '.join(reason.fields)} {UNPROVEN}, "
                f"proven on {verdict.records} of its records by {verdict.by} at "
                f"{verdict.at}{kept}:", *(f"  {finding}" for finding in verdict.findings)]
    return [f"jembatan: {collection}: {reason.said(full_path=True)}"]


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
