"""The systemd unit of docs/deploy.md, section 3, shipped as app/ops/deploy/jembatan.service:
the docs show that very file, `systemd-analyze verify` finds nothing to say of it,
`systemd-analyze security` rates its exposure OK (below 4.0), and its
command lines, run as systemd runs them (the same environment, $MAINPID, a NOTIFY_SOCKET,
and what of the sandbox a process can set on itself: no new privileges, no W+X memory),
start a real gunicorn that tells systemd it is ready, and `systemctl reload` (the two
ExecReload lines in order) re-reads the settings and the mapping, or, when the settings file
is bad, fails before the signal and leaves the service answering. No systemd runs here as
PID 1, so `systemctl` itself was not run; the unit's lines were, with only the paths, the
port and the settings file changed, mechanically (`local`).

The warehouse's schedule of docs/warehouse.md, app/ops/deploy/jembatan-warehouse.service and
its .timer, is held to the same: shown in the guide, verified, rated OK, every 5 minutes, and
a oneshot, so that a start while a run is going joins it."""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import itertools
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from app.commands.demo import write_void_mapping
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import build_database
from tests.helpers import records, sample_row
from tests.postgres import Cluster
from tests.servers import (
    JEMBATAN,
    ROOT,
    Running,
    children,
    eventually,
    free_port,
    jembatan_serve,
    rss_kib,
    workers,
)

DEPLOY = ROOT / "app" / "ops" / "deploy"
UNIT = DEPLOY / "jembatan.service"
DOCS = ROOT / "docs" / "deploy.md"
WAREHOUSE = DEPLOY / "jembatan-warehouse.service"
TIMER = DEPLOY / "jembatan-warehouse.timer"
# Each shipped unit, the guide that shows it, and the limits of a service: MemoryHigh,
# MemoryMax, TasksMax (jembatan.service's: docs/deploy.md, section 3).
SHOWN = {UNIT: DOCS, WAREHOUSE: ROOT / "docs" / "warehouse.md",
         TIMER: ROOT / "docs" / "warehouse.md"}
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
INSTALLED = "/opt/jembatan"  # where the unit expects the checkout and its .venv
ROWS = 5


def service_lines(text: str) -> list[tuple[str, str]]:
    """The [Service] section's (key, value) lines, in order, comments left out."""
    section, lines = "", []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and line and not line.startswith("#"):
            key, _, value = line.partition("=")
            lines.append((key, value))
    return lines


def local(text: str, work: Path, port: int) -> str:
    """The unit as this host runs it: the checkout's venv for /opt/jembatan/.venv, `work` for
    the working directory, the state directory and /etc/jembatan (the settings, the plants
    file, the environment file), a free port for 8000."""
    return (text.replace(f"{INSTALLED}/.venv/bin/", f"{JEMBATAN.parent}/")
            .replace(f"WorkingDirectory={INSTALLED}", f"WorkingDirectory={work}")
            .replace("127.0.0.1:8000", f"127.0.0.1:{port}")
            .replace("/var/lib/jembatan-warehouse", str(work))
            .replace("/etc/jembatan", str(work))
            .replace("TMPDIR=/var/tmp", f"TMPDIR={work}"))


@pytest.mark.parametrize("shipped", SHOWN, ids=lambda p: p.name)
def test_the_docs_show_the_shipped_unit(shipped: Path) -> None:
    assert f"```ini\n{shipped.read_text()}```\n" in SHOWN[shipped].read_text()


def verify(*units: Path) -> subprocess.CompletedProcess[str]:
    """`systemd-analyze verify` of these unit files, side by side."""
    assert SYSTEMD_ANALYZE, "systemd-analyze is missing (Debian's systemd: make test installs it)"
    return subprocess.run([SYSTEMD_ANALYZE, "verify", *map(str, units)], capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("shipped", [[UNIT], [WAREHOUSE, TIMER]],
                         ids=lambda units: "+".join(p.name for p in units))
def test_systemd_analyze_verify_finds_nothing(tmp_path: Path, shipped: list[Path]) -> None:
    units = [tmp_path / p.name for p in shipped]
    for unit, source in zip(units, shipped, strict=True):
        unit.write_text(local(source.read_text(), tmp_path, 8000))
    done = verify(*units)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    # It does speak: an ExecStart that is not there fails.
    units[0].write_text(shipped[0].read_text())
    done = verify(*units)
    assert done.returncode != 0 and "/opt/jembatan/.venv/bin/jembatan" in done.stderr


LIMITS = ("768M", "1G", "128")  # MemoryHigh, MemoryMax, TasksMax: docs/deploy.md, section 3
WAREHOUSE_LIMITS = ("768M", "1G", "64")  # the same of a load: docs/warehouse.md


@pytest.mark.parametrize(("shipped", "limits"), [(UNIT, LIMITS), (WAREHOUSE, WAREHOUSE_LIMITS)],
                         ids=["jembatan.service", "jembatan-warehouse.service"])
def test_systemd_analyze_security_scores_it_ok(tmp_path: Path, shipped: Path,
                                               limits: tuple[str, str, str]) -> None:
    """The sandbox and its limits: `systemd-analyze security` rates the unit's exposure
    below 4.0 ("OK"; it rated jembatan.service of before 7.0 MEDIUM), and the unit caps the
    memory and the tasks of the whole service (sized in docs/deploy.md, section 3, and
    docs/warehouse.md)."""
    assert SYSTEMD_ANALYZE, "systemd-analyze is missing (Debian's systemd: make test installs it)"
    unit = tmp_path / shipped.name
    unit.write_text(local(shipped.read_text(), tmp_path, 8000))
    done = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", "--no-pager",
                           str(unit)], capture_output=True, text=True, timeout=60)
    print(done.stdout.splitlines()[-1])
    [(score, rating)] = re.findall(rf"Overall exposure level for {re.escape(shipped.name)}: "
                                   r"(\d+\.\d) (\w+)", done.stdout)
    assert float(score) < 4.0 and rating == "OK", done.stdout
    assert f"scores it {score} {rating}" in shipped.read_text()  # the unit's comment says so
    lines = dict(service_lines(shipped.read_text()))
    assert (lines["MemoryHigh"], lines["MemoryMax"], lines["TasksMax"]) == limits


def test_the_warehouse_loads_every_5_minutes_one_run_at_a_time() -> None:
    """The timer starts its service (the one of its own name) every 5 minutes, as
    `systemd-analyze calendar` reads its OnCalendar, and the service is a oneshot: its start
    lasts until the load ends, and a start asked for meanwhile joins it."""
    assert SYSTEMD_ANALYZE, "systemd-analyze is missing (Debian's systemd: make test installs it)"
    timer = dict(line.split("=", 1) for line in TIMER.read_text().splitlines()
                 if "=" in line and not line.startswith("#"))
    assert "Unit" not in timer and TIMER.with_suffix(".service") == WAREHOUSE
    done = subprocess.run([SYSTEMD_ANALYZE, "calendar", "--iterations=4", timer["OnCalendar"]],
                          capture_output=True, text=True, timeout=60, env={"TZ": "UTC"})
    times = [dt.datetime.strptime(m, "%Y-%m-%d %H:%M:%S") for m in
             re.findall(r"(?:Next elapse|Iter\. #\d): \w+ (\S+ \S+) UTC", done.stdout)]
    assert len(times) == 4, done.stdout
    assert {b - a for a, b in itertools.pairwise(times)} == {dt.timedelta(minutes=5)}
    assert all(t.minute % 5 == 0 and t.second == 0 for t in times)
    lines = dict(service_lines(WAREHOUSE.read_text()))
    assert lines["Type"] == "oneshot" and "Restart" not in lines
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1  # linux/prctl.h (Linux 6.3)


def sandboxed() -> None:
    """In the service's process before it starts, what of the unit's sandbox a process can
    set on itself without systemd: no new privileges, and no memory both writable and
    executable (MemoryDenyWriteExecute=yes; Linux 6.3's PR_SET_MDWE, kept across fork and
    exec), so that the drivers' and Python's needs are tried for real."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_MDWE (Linux 6.3 or later)")


WX_MAPPING = """import mmap
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
except PermissionError:
    print("refused")
"""


def tree(pid: int) -> set[int]:
    """`pid` and every process below it."""
    found, todo = set(), {pid}
    while todo:
        found |= todo
        todo = set().union(*(children(p) for p in todo)) - found
    return found


def tasks(pids: set[int]) -> int:
    """The threads of these processes: what TasksMax counts."""
    return sum(len(list(Path(f"/proc/{p}/task").iterdir())) for p in pids
               if Path(f"/proc/{p}/task").exists())


class Service:
    """The unit's ExecStart running, as systemd would start it."""

    def __init__(self, work: Path, unit: Path = UNIT) -> None:
        self.work = work
        self.port = free_port()
        self.lines = service_lines(local(unit.read_text(), work, self.port))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
        for key, value in self.lines:
            if key == "EnvironmentFile":
                path = Path(value.removeprefix("-"))
                settings = path.read_text().splitlines() if path.exists() else []
            else:
                settings = [value] if key == "Environment" else []
            for setting in settings:
                name, _, setting = setting.partition("=")
                self.env[name] = setting
        self.cwd = dict(self.lines)["WorkingDirectory"]
        self.base = f"http://127.0.0.1:{self.port}"

    def values(self, key: str) -> list[str]:
        return [value for k, value in self.lines if k == key]

    def run_reload(self, pid: int) -> list[int]:
        """The ExecReload lines in order, $MAINPID set; systemd stops at the first that fails."""
        codes = []
        for line in self.values("ExecReload"):
            argv = [a.replace("$MAINPID", str(pid)) for a in shlex.split(line)]
            codes.append(subprocess.run(argv, cwd=self.cwd, env=self.env, timeout=120,
                                        capture_output=True).returncode)
            if codes[-1]:
                break
        return codes


def site(work: Path) -> list[dict]:
    """A copy of the shipped queries, customers alone, over ROWS rows; the expected records."""
    shutil.copytree(SHIPPED_SQL_DIR, work / "sql")
    rows = [sample_row("customers", n) for n in range(1, ROWS + 1)]
    database = build_database(work / "plant.sqlite3", {"customers": rows})
    settings(work, f'sqlite = "{database}"\nsql_dir = "{work / "sql"}"')
    return records("customers", rows)


def settings(work: Path, database: str, api: str = "") -> None:
    (work / "config.toml").write_text(f'[database]\n{database}\n[collections]\n'
                                      f'serve = ["customers"]\n[api]\n{api}\n')


Started = tuple[Service, subprocess.Popen[bytes], bytes, list[dict]]


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Started]:
    """The site, then ExecStart with a NOTIFY_SOCKET, as Type=notify runs it; the READY
    message it sent, and the records the site holds."""
    expected = site(tmp_path)
    service = Service(tmp_path)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(30)
    [start] = service.values("ExecStart")
    log = open(tmp_path / "service.log", "wb")  # noqa: SIM115 (closed below)
    assert dict(service.lines)["MemoryDenyWriteExecute"] == "yes"
    process = subprocess.Popen(shlex.split(start), cwd=service.cwd, stdout=log, stderr=log,
                               env=service.env | {"NOTIFY_SOCKET": str(tmp_path / "notify")},
                               preexec_fn=sandboxed)
    try:
        ready = notify.recv(4096)
        yield service, process, ready, expected
    finally:
        notify.close()
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        log.close()


def test_reload_reads_the_mapping_again(started: Started) -> None:
    service, process, ready, expected = started
    assert ready.startswith(b"READY=1")
    first = requests.get(service.base + "/customers/2", timeout=30)
    assert first.json() == expected[1]
    running = Running(service.base, service.port, process, service.work / "service.log")
    before = workers(running)
    # Under the unit's limits, with room (the sizes: docs/deploy.md, section 3).
    for _ in range(20):
        assert requests.get(service.base + "/customers", timeout=30).json() == expected
    pids = tree(process.pid)
    memory, threads = sum(rss_kib(p) for p in pids), tasks(pids)
    print(f"{len(pids)} processes, {threads} tasks, {memory / 1024:.0f} MiB resident")
    assert threads < int(LIMITS[2]) and memory < 768 * 1024
    # What the service ran under holds across exec, as in the service's processes: a
    # Python started the same way is refused a mapping both writable and executable.
    tried = subprocess.run([sys.executable, "-c", WX_MAPPING], capture_output=True, text=True,
                           timeout=60, preexec_fn=sandboxed)
    assert (tried.returncode, tried.stdout) == (0, "refused\n"), tried.stderr

    # The site maps Remark from City now: `systemctl reload` starts workers that read it.
    mapping = service.work / "sql" / "customers.sql"
    text = mapping.read_text()
    mapping.write_text(text.replace('"Remark" AS "Remark"', '"City" AS "Remark"'))
    assert service.run_reload(process.pid) == [0, 0]
    changed = [record | {"Remark": record["City"]} for record in expected]
    assert eventually(lambda: requests.get(service.base + "/customers/2", timeout=30).json()
                      == changed[1], 30)
    assert requests.get(service.base + "/customers", timeout=30).json() == changed
    assert eventually(lambda: workers(running).isdisjoint(before), 30)

    # A bad settings file: the check fails, no HUP is sent, the service answers as before.
    settings(service.work, 'sqlite = "/nowhere.sqlite3"', "page_size = 0")
    assert service.run_reload(process.pid) == [1]
    assert requests.get(service.base + "/customers/2", timeout=30).json() == changed[1]
    assert process.poll() is None

    # systemctl stop: SIGTERM to the master (KillMode=mixed), which ends within the graceful
    # timeout, under TimeoutStopSec.
    stop = int(dict(service.lines)["TimeoutStopSec"])
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=stop) == 0


PLANT_KEY = "head-office-key-0123456789"


def served_plant(work: Path, rows: list[dict]) -> dict[str, str]:
    """A plant's database holding these transactions, served with its customers behind a
    named key `warehouse` (docs/warehouse.md, "A key from each plant"); its environment."""
    work.mkdir()
    database = build_database(work / "plant.sqlite3", {
        "transactions": rows, "customers": [sample_row("customers", 1)]})
    mapping = write_void_mapping(work / "sql")  # the tickets void in the demo's flag column
    (work / "config.toml").write_text(
        f'[database]\nsqlite = "{database}"\nsql_dir = "{mapping}"\n[collections]\n'
        f'serve = ["transactions", "customers"]\n[auth.keys.warehouse]\n'
        f'key = "{PLANT_KEY}"\ncollections = ["transactions", "customers"]\nmax_concurrent = 1\n')
    return {"JEMBATAN_CONFIG": str(work / "config.toml")}


def run_load(service: Service) -> tuple[int, str, int]:
    """The unit's ExecStart as systemd runs it (its environment, its working directory, no new
    privileges, no W+X memory): the exit status, the output, the peak RSS in KiB."""
    [start] = service.values("ExecStart")
    with open(service.work / "load.log", "w+b") as log:
        process = subprocess.Popen(shlex.split(start), cwd=service.cwd, env=service.env,
                                   stdout=log, stderr=subprocess.STDOUT, preexec_fn=sandboxed)
        stop = threading.Timer(600, process.kill)
        stop.start()
        _, status, usage = os.wait4(process.pid, 0)
        stop.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        return process.returncode, log.read().decode(), usage.ru_maxrss


def test_the_warehouse_unit_loads_the_plants(tmp_path: Path, postgres_cluster: Cluster) -> None:
    """jembatan-warehouse.service's command line, run as systemd runs it, with the plants'
    keys and PostgreSQL's credentials from its environment file: every transaction of the
    plant once in the warehouse; run again, the same; the plant down, exit 3."""
    rows = [sample_row("transactions", n) for n in range(1, 31)]
    rows[4]["cancelled"] = 1
    expected = {("north_mill", r["id"], r["weigh1"], r["weigh2"], r.get("cancelled", 0))
                for r in rows}
    (tmp_path / "plants.toml").write_text(
        '[plants.north_mill]\nurl = "{url}"\nkey_env = "NORTH_MILL_KEY"\n')
    (tmp_path / "warehouse.env").write_text(
        f"NORTH_MILL_KEY={PLANT_KEY}\nDESTINATION__POSTGRES__CREDENTIALS=postgresql://"
        f"postgres:trusted@127.0.0.1:{postgres_cluster.port}/jembatan\n")
    postgres_cluster.drop_schema("jembatan")
    with jembatan_serve(tmp_path / "plant", served_plant(tmp_path / "plant", rows)) as plant:
        plants = tmp_path / "plants.toml"
        plants.write_text(plants.read_text().replace("{url}", plant.base))
        service = Service(tmp_path, WAREHOUSE)
        assert service.env["NORTH_MILL_KEY"] == PLANT_KEY
        for _ in range(2):  # the second run finds nothing new, and changes nothing
            code, output, peak = run_load(service)
            print(output, f"peak RSS {peak / 1024:.0f} MiB", sep="\n")
            assert code == 0, output
            assert warehouse_transactions(postgres_cluster) == expected
    code, output, _ = run_load(service)
    print(output)
    assert code == 3 and "north_mill: no records; " in output, output
    assert "NOT READ TO THE END: /: cannot connect" in output, output
    assert warehouse_transactions(postgres_cluster) == expected
    postgres_cluster.drop_schema("jembatan")


def warehouse_transactions(cluster: Cluster) -> set[tuple]:
    """(plant, id, weigh1, weigh2, cancelled) of every row of the warehouse's transactions."""
    with contextlib.closing(cluster.connect()) as con:
        rows = con.execute("SELECT plant, id, weigh1, weigh2, CAST(cancelled AS integer) "
                           "FROM jembatan.transactions").fetchall()
    return {tuple(row) for row in rows}
