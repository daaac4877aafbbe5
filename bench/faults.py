"""Fault soak: the database stopped and started again under load.

Jembatan as `make run` serves it (gunicorn, 2 workers x 4 threads), 16 concurrent clients
reading lists, pages, records by key and date ranges, while the database server is stopped
and started `--cycles` times (3). Every answer must be a 200 with a complete body or a 503
JSON error with Retry-After; after each start a 200 must come back within connect_timeout +
1 s (or --recovery); no gunicorn worker may be restarted. A plant runs it against a copy of
its database:

    .venv/bin/python bench/faults.py --odbc "Driver=...;Server=...;Database=copy" \\
        --stop-cmd "sudo systemctl stop mssql-server" \\
        --start-cmd "sudo systemctl start mssql-server && sleep 5"

    (or `make fault-soak FAULT_ARGS="..."`). The start command must return once the server
    takes logins again: recovery is timed from its return.

Without --url it serves Jembatan itself (gunicorn, on a free port of 127.0.0.1, with the
configuration the environment gives: JEMBATAN_CONFIG or ./config.toml, then JEMBATAN_ODBC
from --odbc); with --url it loads a Jembatan already running there (--gunicorn-pid: its
master, to check its workers). Without --stop-cmd/--start-cmd it drives the T-SQL test server
of ../shared/tsql on TSQL_PORT (or the Port= of --odbc), never its default port.

What it reads is found through the API before the first stop (the index, then each
collection's first page and X-Pagination totals), and every read is checked against those
counts: a list that parses but is short is a failure. A streamed list (2,000 records or
more) cut off by the database going away ends in a broken chunked transfer, which the
contract allows: those are counted apart. Exits 1 on any 500, any other status than 200 and
503, an error body that is not JSON, a 503 without Retry-After, a short or malformed body, a
request gunicorn did not answer, a recovery slower than connect_timeout + 1 s (--recovery), a
503 still answered later than that after a start, or a worker restarted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.model.collections import DATE_PAIRS  # noqa: E402
from app.ops.config import load_settings  # noqa: E402

TSQL = ROOT.parent / "shared" / "tsql"
DEPLOYED = ("--workers", "2", "--threads", "4", "--timeout", "120")  # as `make run`
STREAMED_FROM = 2000  # app/core/reads.py WHOLE_ROWS: smaller answers are sent whole
PAGE_SIZE = 50


@dataclass
class Read:
    kind: str  # list, page, key, range (an unpaged range is a list: it streams)
    path: str
    expected: int | None  # records a list must hold; None for a record by key
    key: tuple[str, Any] | None = None  # (field, value) a record by key must hold

    @property
    def streamed(self) -> bool:
        return self.expected is not None and self.expected >= STREAMED_FROM


@dataclass
class Event:
    read: Read
    started: float
    ended: float
    status: int | None  # None: no HTTP answer at all
    outcome: str  # ok, 503, broken, or what was wrong


@dataclass
class Cycle:
    stopping: float = 0.0  # the stop command started
    stopped: float = 0.0  # ... and returned
    starting: float = 0.0
    back: float = 0.0  # the start command returned
    until: float = float("inf")  # the next stop (the end of this cycle's recovery window)


@dataclass
class Run:
    events: list[Event] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Event = field(default_factory=threading.Event)
    probing: threading.Event = field(default_factory=threading.Event)  # a start returned


# -- the server --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(env: dict[str, str], log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """gunicorn as `make run` starts it, on a free port; waits for /health (200 or 503)."""
    port = free_port()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(gunicorn), "--bind", f"127.0.0.1:{port}", *DEPLOYED,
                                    "wsgi:app"], cwd=ROOT, env=env, stdout=out, stderr=out)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                sys.exit(f"gunicorn exited with {process.returncode}:\n"
                         f"{log.read_text(errors='replace')[-3000:]}")
            try:
                requests.get(base + "/health", timeout=5)
                break
            except requests.RequestException:
                if time.monotonic() > deadline:
                    sys.exit(f"gunicorn did not answer within 60 s (log {log})")
                time.sleep(0.2)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def workers(master: int) -> set[int]:
    """The pids of a gunicorn master's worker processes (its children)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(") ", 1)[1].split()[1]) == master:
                out.add(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return out


def run_command(label: str, command: str, env: dict[str, str]) -> float:
    """Runs a stop or start command to its end; the seconds it took."""
    start = time.monotonic()
    done = subprocess.run(command, shell=True, env=env, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{label} command `{command}` exited with {done.returncode}: "
                           f"{(done.stderr or done.stdout)[-2000:]}")
    return time.monotonic() - start


# -- what to read ------------------------------------------------------------------------


def plan(session: requests.Session, base: str, only: set[str] | None, list_max: int,
         rng: random.Random) -> tuple[list[Read], list[str]]:
    """Lists, pages, keys and ranges of every collection, with the counts they hold now."""
    index = session.get(base + "/", timeout=60)
    index.raise_for_status()
    reads: list[Read] = []
    skipped: list[str] = []
    for c in index.json()["collections"]:
        name, key = c["name"], c["key"]
        if only is not None and name not in only:
            continue
        first = session.get(f"{base}/{name}/page/1?page_size={PAGE_SIZE}", timeout=120)
        if first.status_code != 200:
            skipped.append(f"{name} ({first.status_code} before any fault)")
            continue
        total = int(json.loads(first.headers["X-Pagination"])["total"])
        rows = first.json()
        if total == 0:
            skipped.append(f"{name} (empty)")
            continue
        if total <= list_max:
            reads.append(Read("list", f"/{name}", total))
        pages = -(-total // PAGE_SIZE)
        for page in sorted({1, pages, rng.randint(1, pages)}):
            reads.append(Read("page", f"/{name}/page/{page}?page_size={PAGE_SIZE}",
                              min(PAGE_SIZE, total - (page - 1) * PAGE_SIZE)))
        last = session.get(f"{base}/{name}/page/{pages}?page_size={PAGE_SIZE}", timeout=120)
        for row in rng.sample(rows, min(3, len(rows))) + last.json()[-2:]:
            reads.append(Read("key", f"/{name}/{row[key]}", None, (key, row[key])))
        for on in c["date_range"][:2]:
            day_field = DATE_PAIRS[on][0]
            days = sorted({r[day_field] for r in rows + last.json() if r.get(day_field)})
            if not days:
                continue
            day = rng.choice(days)
            path = f"/{name}/date/{day}/00:00:00/{day}/23:59:59?on={on}"
            paged = session.get(f"{base}{path}&page=1&page_size={PAGE_SIZE}", timeout=120)
            if paged.status_code != 200:
                skipped.append(f"{name} range on {on} ({paged.status_code})")
                continue
            count = int(json.loads(paged.headers["X-Pagination"])["total"])
            reads.append(Read("range", f"{path}&page=1&page_size={PAGE_SIZE}",
                              min(PAGE_SIZE, count)))
            if count <= list_max:
                reads.append(Read("list", path, count))
    return reads, skipped


def judge(read: Read, response: requests.Response) -> str:
    """ok, 503, broken, or what is wrong with the answer (its body read to the end)."""
    try:
        body = response.content
    except requests.RequestException as exc:
        # A streamed list cut off without its last chunk: the contract's broken transfer.
        if response.status_code == 200 and read.streamed:
            return "broken"
        return f"{response.status_code} with a broken transfer ({type(exc).__name__})"
    try:
        data = json.loads(body)
    except ValueError:
        return f"{response.status_code} body is not JSON ({len(body)} bytes)"
    status = response.status_code
    if status == 200:
        if read.key is not None:
            if not isinstance(data, dict) or data.get(read.key[0]) != read.key[1]:
                return "200 with another record"
        elif not isinstance(data, list) or len(data) != read.expected:
            got = len(data) if isinstance(data, list) else type(data).__name__
            return f"200 with {got} records, expected {read.expected} (short)"
        return "ok"
    if not isinstance(data, dict) or data.get("code") != status:
        return f"{status} body is not the JSON error shape"
    if status == 503:
        if not response.headers.get("Retry-After", "").isdigit():
            return "503 without Retry-After"
        return "503"
    return f"{status}: {data.get('message', '')[:200]}"


def client(base: str, reads: list[Read], run: Run, seed: int, timeout: float,
           headers: dict[str, str]) -> None:
    rng = random.Random(seed)
    session = requests.Session()
    session.headers.update(headers)
    # Each kind a quarter of the requests, and half the lists streamed ones (when there are
    # both): a stop then often finds a stream under way.
    groups: dict[str, list[list[Read]]] = {}
    for kind in sorted({r.kind for r in reads}):
        split = [[r for r in reads if r.kind == kind and r.streamed],
                 [r for r in reads if r.kind == kind and not r.streamed]]
        groups[kind] = [g for g in split if g]
    while not run.done.is_set():
        read = rng.choice(rng.choice(groups[rng.choice(list(groups))]))
        event = read_once(session, base, read, timeout)
        if event.outcome == "broken":  # the connection is unusable after a cut-off body
            session.close()
            session = requests.Session()
            session.headers.update(headers)
        with run.lock:
            run.events.append(event)


def read_once(session: requests.Session, base: str, read: Read, timeout: float) -> Event:
    """One read, judged (see judge)."""
    started = time.monotonic()
    status: int | None = None
    try:
        with session.get(base + read.path, stream=True, timeout=timeout) as response:
            status = response.status_code
            outcome = judge(read, response)
    except requests.RequestException as exc:
        outcome = f"no answer ({type(exc).__name__})"
    return Event(read, started, time.monotonic(), status, outcome)


def probe(base: str, read: Read, run: Run, timeout: float, headers: dict[str, str]) -> None:
    """From each start's return to its first 200, one cheap read after another (besides the
    clients, whose long reads may hold every thread then): when the service answers again."""
    session = requests.Session()
    session.headers.update(headers)
    while not run.done.is_set():
        if not run.probing.wait(0.2):
            continue
        event = read_once(session, base, read, timeout)
        with run.lock:
            run.events.append(event)
        if event.status == 200:
            run.probing.clear()
        else:
            time.sleep(0.05)


# -- the report --------------------------------------------------------------------------


def recovery(cycle: Cycle, events: list[Event], limit: float) -> tuple[float | None, int]:
    """Seconds from the start command's return to the first 200 of a request made while the
    server was down or after; and how many requests made later than `limit` after the
    return still got a 503 (before the next stop)."""
    firsts = [e.ended for e in events if e.status == 200 and e.started >= cycle.stopped
              and e.ended >= cycle.back and e.started < cycle.until]
    late = sum(1 for e in events if e.status == 503 and cycle.back + limit <= e.started
               and e.ended < cycle.until)
    return (min(firsts) - cycle.back if firsts else None), late


def error_lines(log: Path, most: int = 40) -> list[str]:
    """The ERROR records of a gunicorn log, each traceback cut to its last line, less the
    "cannot connect" ones that every request made while the server is down writes."""
    out: list[str] = []
    traceback = False
    for line in log.read_text(errors="replace").splitlines():
        if re.match(r"\d{4}-\d\d-\d\d |\[\d{4}-", line):  # a record of its own
            traceback = False
            if (" ERROR " in line or "[ERROR]" in line or "CRITICAL" in line) and (
                    "cannot connect to" not in line):
                out.append(line)
        elif line.startswith("Traceback"):
            traceback = True
        elif traceback and line and not line.startswith((" ", "\t")):
            out.append("  " + line)  # the exception a traceback ends with
    return out[:most]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--url", help="a Jembatan already running (else one is served here)")
    parser.add_argument("--odbc", help="the database's ODBC string, for the Jembatan served "
                                       "here (else the configuration's)")
    parser.add_argument("--gunicorn-pid", type=int, help="with --url: its gunicorn master")
    parser.add_argument("--stop-cmd", help="stops the database server (a shell command)")
    parser.add_argument("--start-cmd", help="starts it; returns once it takes logins")
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--up", type=float, default=8.0,
                        help="seconds of load before each stop (after the first, it is the "
                             "window the recovery is measured in)")
    parser.add_argument("--down", type=float, default=4.0,
                        help="seconds of load while the server is stopped")
    parser.add_argument("--after", type=float, default=8.0,
                        help="seconds of load after the last start")
    parser.add_argument("--connect-timeout", type=float,
                        help="database.connect_timeout of the Jembatan under test (default: "
                             "the configuration's)")
    parser.add_argument("--recovery", type=float,
                        help="seconds within which a 200 must come back after each start "
                             "(default: connect_timeout + 1; Microsoft's ODBC Driver 18 "
                             "needs more: a login begun while the server was down may end "
                             "seconds after it is back, past its login timeout)")
    parser.add_argument("--collections", help="comma-separated (default: all in the index)")
    parser.add_argument("--list-max", type=int, default=20_000,
                        help="read whole lists of at most this many records")
    parser.add_argument("--api-key", help="sent as Authorization: Bearer")
    parser.add_argument("--timeout", type=float, default=120, help="per request, seconds")
    parser.add_argument("--log", type=Path, help="gunicorn's log (default: a temporary file)")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args(argv)

    # The Jembatan under test, and its connect_timeout.
    env = dict(os.environ)
    if args.odbc:
        env["JEMBATAN_ODBC"] = args.odbc
    settings = None
    if not (args.url and args.connect_timeout):
        with contextlib.chdir(ROOT):  # where gunicorn runs: ./config.toml is ROOT's
            settings = load_settings(environ=env)
    connect_timeout = args.connect_timeout or settings.database.connect_timeout  # type: ignore[union-attr]
    limit = args.recovery or connect_timeout + 1
    if not args.url and not (settings and settings.database.odbc):
        parser.error("give --odbc (or database.odbc in the configuration), or --url")

    # The stop and start commands: by default the T-SQL test server's, on its own port.
    command_env = dict(os.environ)
    if not (args.stop_cmd and args.start_cmd):
        if args.stop_cmd or args.start_cmd:
            parser.error("give both --stop-cmd and --start-cmd, or neither")
        odbc = settings.database.odbc if settings else ""
        # FreeTDS's Port=N, or Driver 18's Server=host,N (it ignores Port=).
        found = re.search(r"(?i)\bport=(\d+)|\bserver=[^;,]*,(\d+)", odbc or "")
        port = os.environ.get("TSQL_PORT") or (found.group(1) or found.group(2) if found else "")
        if not port or not (TSQL / "stop").is_file():
            parser.error("give --stop-cmd and --start-cmd (the defaults drive "
                         f"{TSQL}/stop and resume, and need TSQL_PORT or a Port= in --odbc)")
        command_env["TSQL_PORT"] = port
        args.stop_cmd = shlex.quote(str(TSQL / "stop"))
        args.start_cmd = shlex.quote(str(TSQL / "resume")) + " >/dev/null"
    if args.up < limit:
        parser.error(f"--up must be at least the recovery limit, {limit:g} s")

    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    with contextlib.ExitStack() as stack:
        log: Path | None = None
        if args.url:
            base, master = args.url.rstrip("/"), args.gunicorn_pid
        else:
            log = args.log or Path(stack.enter_context(tempfile.TemporaryDirectory(
                prefix="jembatan-faults-"))) / "gunicorn.log"
            base, process = stack.enter_context(serve(env, log))
            master = process.pid
        return soak(args, base, master, log, headers, command_env, connect_timeout, limit)
    return 2  # not reached


def soak(args: argparse.Namespace, base: str, master: int | None, log: Path | None,
         headers: dict[str, str], command_env: dict[str, str], connect_timeout: float,
         limit: float) -> int:
    rng = random.Random(args.seed)
    session = requests.Session()
    session.headers.update(headers)
    only = set(args.collections.split(",")) if args.collections else None
    reads, skipped = plan(session, base, only, args.list_max, rng)
    if not reads:
        print(f"nothing to read at {base}; skipped: {', '.join(skipped) or '-'}")
        return 1
    # Every read once, before any fault: the counts must hold now.
    wrong = []
    for read in reads:
        with session.get(base + read.path, stream=True, timeout=args.timeout) as response:
            outcome = judge(read, response)
        if outcome != "ok":
            wrong.append(f"{read.path}: {outcome}")
    if wrong:
        print("reads that fail before any fault:\n  " + "\n  ".join(wrong[:20]))
        return 1
    kinds = Counter(r.kind for r in reads)
    print(f"fault soak of {base}: {args.cycles} cycles, {args.clients} clients (and a "
          f"probe after each start), "
          f"connect_timeout {connect_timeout:g} s (recovery limit {limit:g} s)")
    print(f"reads: {len(reads)} ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}; "
          f"{sum(r.streamed for r in reads)} streamed)"
          + (f"; skipped: {', '.join(skipped)}" if skipped else ""), flush=True)
    before = workers(master) if master else set()

    run = Run()
    threads = [threading.Thread(target=client, args=(base, reads, run, args.seed + i,
                                                     args.timeout, headers), daemon=True)
               for i in range(args.clients)]
    cheapest = next((r for r in reads if r.kind == "key"), reads[0])
    threads.append(threading.Thread(target=probe, args=(base, cheapest, run, args.timeout,
                                                        headers), daemon=True))
    for t in threads:
        t.start()
    cycles: list[Cycle] = []
    stopped = False
    try:
        for n in range(1, args.cycles + 1):
            time.sleep(args.up)
            cycle = Cycle(stopping=time.monotonic())
            if cycles:
                cycles[-1].until = cycle.stopping
            cycles.append(cycle)
            stopped = True
            run_command("stop", args.stop_cmd, command_env)
            cycle.stopped = time.monotonic()
            time.sleep(args.down)
            cycle.starting = time.monotonic()
            run_command("start", args.start_cmd, command_env)
            stopped = False
            cycle.back = time.monotonic()
            run.probing.set()
            print(f"cycle {n}: stop took {cycle.stopped - cycle.stopping:.2f} s, down "
                  f"{cycle.starting - cycle.stopped:.2f} s, start took "
                  f"{cycle.back - cycle.starting:.2f} s", flush=True)
        time.sleep(args.after)
    finally:
        if stopped:  # leave the database running, whatever went wrong
            with contextlib.suppress(Exception):
                run_command("start", args.start_cmd, command_env)
        run.done.set()
        for t in threads:
            t.join(timeout=args.timeout + 10)
    after = workers(master) if master else set()
    return report(run.events, cycles, before, after, master, log, limit)


def report(events: list[Event], cycles: list[Cycle], before: set[int], after: set[int],
           master: int | None, log: Path | None, limit: float) -> int:
    failures: list[str] = []
    statuses = Counter(e.status for e in events)
    outcomes = Counter(e.outcome for e in events)
    by_kind: dict[str, Counter[str]] = {}
    for e in events:
        by_kind.setdefault(e.read.kind, Counter())[e.outcome if e.outcome in (
            "ok", "503", "broken") else "wrong"] += 1
    wrong = [e for e in events if e.outcome not in ("ok", "503", "broken")]
    short = sum(1 for e in wrong if "(short)" in e.outcome)
    no_answer = sum(1 for e in events if e.status is None)
    other = sum(n for s, n in statuses.items() if s not in (200, 503, 500, None))
    print(f"requests: {len(events)}")
    print(f"counts: 200={statuses[200]} 503={statuses[503]} 500={statuses[500]} "
          f"other={other} no_answer={no_answer} broken={outcomes['broken']} short={short} "
          f"wrong={len(wrong)}")
    for kind, counts in sorted(by_kind.items()):
        print(f"  {kind}: " + " ".join(f"{k}={counts[k]}" for k in ("ok", "503", "broken",
                                                                      "wrong")))
    for problem, n in Counter(f"{e.outcome} [{e.read.kind} {e.read.path}]"
                              for e in wrong).most_common(15):
        print(f"  {n} x {problem}")
    if wrong:
        failures.append(f"{len(wrong)} wrong answers")
    for n, cycle in enumerate(cycles, 1):
        took, late = recovery(cycle, events, limit)
        shown = "none" if took is None else f"{took:.3f} s"
        print(f"cycle {n}: first 200 after the start returned: {shown}; 503s to requests "
              f"made {limit:g} s or more after it: {late}")
        if took is None or took > limit:
            failures.append(f"cycle {n}: no 200 within {limit:g} s of the start ({shown})")
        if late:
            failures.append(f"cycle {n}: {late} requests still got 503 {limit:g} s after "
                            f"the start")
    if master:
        print(f"workers: before {sorted(before)}, after {sorted(after)}")
        if before != after or not before:
            failures.append("a worker was restarted")
    else:
        print("workers: not checked (give --gunicorn-pid)")
    if log is not None and (statuses[500] or wrong):
        lines = error_lines(log)
        print(f"gunicorn log {log}, its errors:" + ("\n  " + "\n  ".join(lines)
                                                    if lines else " none"))
    print("result: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
