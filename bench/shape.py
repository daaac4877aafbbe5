"""`make bench-shape` (BENCH_ONLY=shape): the production shape measured.

Jembatan under each gunicorn shape a plant would consider on this 2-core host, on the
embedded default (sqlite3) and through ODBC (pyodbc with the SQLite ODBC driver on the same
file, as `make bench`'s odbc contender), driven by wrk at 1, 4, 16 and 64 connections on
the row-by-id and the deep-page works: req/s, p99 latency, errors, and the workers' memory.

The server is not pinned: it has both cores, as in production, and wrk runs on the same two
cores (the only place it can run here), so at high concurrency the client takes CPU from
the server; every shape pays that alike.

Called by bench/run.py, which owns the plan, the server start-up and the wrk arguments.
"""

from __future__ import annotations

import contextlib
import http.client
import threading
from collections.abc import Callable
from typing import Any

import harness
from harness import ALL_CORES

CLIENTS = (1, 4, 16, 64)
# A new connection for every request, as gunicorn gets them behind the nginx of
# docs/deploy.md (no `keepalive` to the upstream): without it gthread would keep wrk's
# connections open while the sync worker closes each, and the shapes would differ in that.
HEADERS = ("Connection: close",)
WORKS = (("row", "Row by id"), ("page", "100-row page, deep offset"))
# Row by id at EXPORT_CLIENTS connections while one more client downloads the whole table
# (GET /transactions, again as soon as it ends): what a long export leaves of each shape.
EXPORT = ("export", "Row by id while one client downloads the whole table")
EXPORT_CLIENTS = 4
EXPORT_PATH = "/transactions"
ENGINES = (("sqlite", "sqlite3", False), ("odbc", "pyodbc", True))
# Rounds over every server for each work and client count, the order reversed in even
# rounds; each figure is its best round (outside interference only ever slows one down).
ROUNDS = 2
# (key, label, gunicorn flags). Every flag is given, so that gunicorn.conf.py's defaults
# do not change what is measured. On 2 cores: one process (the GIL's limit: one core for
# Python at a time), one per core, gunicorn's usual 2 per core, and threads on top of one
# process, of one per core (today's `make run`, 2 x 4) and of twice as many (2 x 8).
SHAPES = (
    ("sync1", "1 sync worker", ["--workers", "1", "--worker-class", "sync", "--threads", "1"]),
    ("sync2", "2 sync workers", ["--workers", "2", "--worker-class", "sync", "--threads", "1"]),
    ("sync4", "4 sync workers", ["--workers", "4", "--worker-class", "sync", "--threads", "1"]),
    ("gthread1x8", "1 worker x 8 threads",
     ["--workers", "1", "--worker-class", "gthread", "--threads", "8"]),
    ("gthread2x4", "2 workers x 4 threads",
     ["--workers", "2", "--worker-class", "gthread", "--threads", "4"]),
    ("gthread2x8", "2 workers x 8 threads",
     ["--workers", "2", "--worker-class", "gthread", "--threads", "8"]),
)
TITLE = "## Production shape"


def servers() -> list[dict[str, Any]]:
    """The contenders, in the form bench/run.py's start() takes."""
    return [{"key": f"shape-{shape}-{engine}", "shape": shape, "engine": engine,
             "label": f"{label}, {driver}",
             "argv": [".venv/bin/gunicorn", *flags, "--timeout", "120"],
             "config": (f"jembatan-{engine}", odbc), "server_cores": ALL_CORES}
            for engine, driver, odbc in ENGINES for shape, label, flags in SHAPES]


def measure(plan: dict[str, Any], *, start: Callable[[dict[str, Any]], harness.Server],
            probe: Callable[[int, dict[str, Any]], None],
            wrk_args: Callable[[str], list[object]], warm: Callable[[], None],
            seconds: float, warmup: float, say: Callable[[str], None]) -> dict[str, Any]:
    """Every server started first (each idles while another is measured), then for each
    work and client count, ROUNDS rounds over all of them back to back."""
    chosen = servers()
    out: dict[str, Any] = {"clients": list(CLIENTS), "rounds": ROUNDS, "servers": {},
                           "export_clients": EXPORT_CLIENTS}
    with contextlib.ExitStack() as stack:
        running: dict[str, harness.Server] = {}
        for c in chosen:
            say(f"starting {c['label']}")
            server = running[c["key"]] = stack.enter_context(start(c))
            probe(server.port, c)
            out["servers"][c["key"]] = {"label": c["label"], "shape": c["shape"],
                                        "engine": c["engine"], "command": server.command,
                                        "workers": len(server.pids()), "works": {}}
        for work, title in WORKS:
            for clients in CLIENTS:
                say(f"\n== {title}, {clients} client{'s' if clients > 1 else ''}")
                threads = min(2, clients)  # wrk needs a connection per thread at least
                for n in range(ROUNDS):
                    for c in chosen if n % 2 == 0 else chosen[::-1]:
                        warm()
                        r = harness.wrk(running[c["key"]].port, SCRIPTS[work], wrk_args(work),
                                        seconds, warmup, threads=threads, cores=ALL_CORES,
                                        connections=clients, headers=HEADERS)
                        cell = out["servers"][c["key"]]["works"].setdefault(work, {})
                        keep_best(cell, str(clients), r)
                        say(f"   round {n + 1}  {c['label']:<34} {r['req_s']:9.1f} req/s   "
                            f"p99 {r['p99_ms']:8.1f} ms   errors {r['errors']} "
                            f"(non-2xx {r['errors_status']})")
                say(table_rows(out, work, upto=clients))
        say(f"\n== {EXPORT[1]}, {EXPORT_CLIENTS} clients")
        for n in range(ROUNDS):
            for c in chosen if n % 2 == 0 else chosen[::-1]:
                warm()
                port = running[c["key"]].port
                with Export(port) as export:
                    r = harness.wrk(port, SCRIPTS["row"], wrk_args("row"), seconds, warmup,
                                    threads=2, cores=ALL_CORES, connections=EXPORT_CLIENTS,
                                    headers=HEADERS)
                r |= {"export_bytes": export.bytes, "export_status": export.status,
                      "export_error": export.error}
                keep_best(out["servers"][c["key"]]["works"].setdefault(EXPORT[0], {}),
                          str(EXPORT_CLIENTS), r)
                say(f"   round {n + 1}  {c['label']:<34} {r['req_s']:9.1f} req/s   "
                    f"p99 {r['p99_ms']:8.1f} ms   errors {r['errors']} "
                    f"(non-2xx {r['errors_status']})   export: status {export.status}, "
                    f"{export.bytes / 1e6:.0f} MB read {export.error}")
        say(table_rows(out, EXPORT[0]))
        for c in chosen:  # memory after the whole run: what each shape holds
            rss = [harness.rss_kib(p) for p in running[c["key"]].pids()]
            out["servers"][c["key"]]["rss_mb"] = sum(rss) / 1024
            out["servers"][c["key"]]["rss_worker_mb"] = max(rss, default=0) / 1024
    return out


SCRIPTS = {"row": "row.lua", "page": "page.lua"}


class Export:
    """`with Export(port):` one client reading the whole table in a loop in a thread of its
    own, each body read and thrown away; the block is entered once the first answer's
    headers are in (the export under way), and leaving it cuts the download off."""

    def __init__(self, port: int):
        self.port, self.bytes, self.status, self.error = port, 0, 0, ""
        self._stop, self._started = threading.Event(), threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
                self._conn.request("GET", EXPORT_PATH)
                response = self._conn.getresponse()
                self.status = response.status
                self._started.set()
                while not self._stop.is_set():
                    data = response.read1(1 << 20)
                    if not data:
                        break
                    self.bytes += len(data)
                self._conn.close()
        except OSError as exc:  # the cut at the end, or a real failure before it
            if not self._stop.is_set():
                self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._started.set()

    def __enter__(self) -> Export:
        self._thread.start()
        self._started.wait(120)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._conn is not None and self._conn.sock is not None:
            with contextlib.suppress(OSError):
                self._conn.sock.shutdown(2)
        self._thread.join(30)


def keep_best(into: dict[str, Any], clients: str, r: dict[str, Any]) -> None:
    before = into.get(clients)
    best = r if before is None or r["req_s"] > before["req_s"] else before
    into[clients] = best | {
        "rounds": (before["rounds"] if before else []) + [r["req_s"]],
        "p99_rounds": (before["p99_rounds"] if before else []) + [r["p99_ms"]],
        "errors": (before["errors"] if before else 0) + r["errors"],
        "errors_status": (before["errors_status"] if before else 0) + r["errors_status"]}


def _cell(r: dict[str, Any] | None) -> str:
    if not r:
        return ""
    text = (f"{r['req_s']:,.1f} ({r['p99_ms']:,.1f})" if r["requests"]
            else "0 (none answered)")
    return text + (f" **{r['errors']} errors, {r['errors_status']} non-2xx**"
                   if r["errors"] else "")


def table_rows(out: dict[str, Any], work: str, upto: int | None = None) -> str:
    """A Markdown table of one work: a row per shape and engine, a column per client
    count (those measured so far)."""
    shown = ([out["export_clients"]] if work == EXPORT[0]
             else [n for n in out["clients"] if upto is None or n <= upto])
    L = ["| Shape | Engine | " + " | ".join(f"{n} client{'s' if n > 1 else ''}"
                                             for n in shown) + " |",
         "|---|---|" + "---:|" * len(shown)]
    for s in out["servers"].values():
        cells = s["works"].get(work, {})
        L.append(f"| {s['label'].rsplit(', ', 1)[0]} | {s['label'].rsplit(', ', 1)[1]} | "
                 + " | ".join(_cell(cells.get(str(n))) for n in shown) + " |")
    return "\n".join(L)


def render(out: dict[str, Any], results: dict[str, Any]) -> list[str]:
    """The section "Production shape" of RESULTS.md."""
    plan, m = results["plan"], results["machine"]
    L = [TITLE, "",
         f"Written by `make bench-shape` (bench/shape.py) on {results['date']}; load average "
         f"(1/5/15 min) {'/'.join(f'{x:.2f}' for x in out['load_average_start'])} at its start, "
         f"{'/'.join(f'{x:.2f}' for x in out['load_average_end'])} at its end; "
         f"{out['wall_seconds']:.0f} s. {m['nproc']} cores, {m['cpu']}, Python {m['python']}, "
         f"SQLite {m['sqlite']}, {m['gunicorn']}.",
         "",
         f"Database `{plan['db']}`, {plan['rows']:,} rows. Each gunicorn shape serves it twice: "
         "through `sqlite3` (the embedded default) and through pyodbc with the SQLite ODBC "
         "driver (`Driver=SQLite3`) on the same file, so the ODBC figures carry pyodbc's and "
         "the driver's cost but no network: a SQL Server on another host adds a round trip "
         "per query that is not measured here. Server and wrk both on all cores (`taskset -c "
         f"{ALL_CORES}`), as production runs the server; wrk cannot run elsewhere on this "
         "machine, so it takes CPU from the server, more at more connections. Every request "
         "is sent with `Connection: close`, so each comes on a new connection, as behind the "
         "nginx of docs/deploy.md (which keeps no connections to gunicorn open) and as "
         "gunicorn's sync worker handles them anyway. "
         f"{results['settings']['seconds']:g} s per measured wrk "
         f"run after a {results['settings']['warmup']} s warm-up; wrk threads: min(2, "
         f"connections). {out['rounds']} rounds over every server for each work and client "
         "count, back to back (order reversed in the second); shown is each one's best round, "
         "req/s and its p99 latency in ms in brackets, and any errors (socket errors, "
         "timeouts and non-2xx answers, all rounds). Every round's figure is in "
         "bench/data/results.json (`shape`).",
         ""]
    for work, title in WORKS:
        L += [f"### {title}", "", table_rows(out, work), ""]
    if any(EXPORT[0] in s["works"] for s in out["servers"].values()):
        L += [f"### {EXPORT[1]}", "",
              f"Row by id at {out['export_clients']} connections (as above) while one more "
              f"client reads `GET {EXPORT_PATH}` ({plan['rows']:,} records) in a loop, from "
              "before the measurement until its end, when its download is cut off. A shape "
              "whose every worker (or thread) is taken by the export answers nothing "
              "meanwhile.", "", table_rows(out, EXPORT[0]), ""]
    L += ["Memory: the workers' VmRSS summed (and the largest worker) after the whole run:",
          "", "| Shape | sqlite3 MB | pyodbc MB |", "|---|---:|---:|"]
    by = {(s["shape"], s["engine"]): s for s in out["servers"].values()}
    for shape, label, _ in SHAPES:
        a, b = by.get((shape, "sqlite")), by.get((shape, "odbc"))
        L.append(f"| {label} | " + " | ".join(
            f"{x['rss_mb']:.0f} ({x['rss_worker_mb']:.0f})" if x else "" for x in (a, b)) + " |")
    L += ["", "Commands (the port differs per run):", "", "```sh"]
    for s in out["servers"].values():
        L += [f"# {s['label']} (JEMBATAN_CONFIG: bench/data/jembatan-{s['engine']}.toml)",
              s["command"]]
    L.append("# wrk at 64 connections (1: -t1 -c1; 4: -t2 -c4; 16: -t2 -c16)")
    some = next(iter(out["servers"].values()))
    for work, _ in WORKS:
        L.append(some["works"][work][str(CLIENTS[-1])]["command"])
    L += ["```", ""]
    return L


def splice(text: str, section: list[str]) -> str:
    """`text` (a RESULTS.md) with its "Production shape" section replaced by `section`, or
    `section` put before "Earlier studies" (or at the end) when it has none; the rest kept."""
    body = "\n".join(section).strip() + "\n"
    start = text.find("\n" + TITLE + "\n")
    if start >= 0:
        rest = text[start + 1:]
        end = rest.find("\n## ", len(TITLE))
        tail = "" if end < 0 else rest[end + 1:]
        return text[:start + 1] + body + ("\n" + tail if tail else "")
    earlier = text.find("\n## Earlier studies\n")
    if earlier >= 0:
        return text[:earlier + 1] + body + "\n" + text[earlier + 1:]
    return text.rstrip() + "\n\n" + body


def kept(published: str) -> list[str]:
    """The published "Production shape" section, for a run that does not measure it."""
    start = published.find("\n" + TITLE + "\n")
    if start < 0:
        return []
    rest = published[start + 1:]
    end = rest.find("\n## ", len(TITLE))
    return (rest if end < 0 else rest[:end]).strip().splitlines()
