"""Every code block of the warehouse's docs (docs/warehouse.md and
docs/examples/warehouse/README.md) is run here, in the order the pages give them, against the
demo plant served for real, or says in TRIED why it is not (a root-only step, a warehouse
elsewhere, a file another test holds to the page). One load of the demo, by the page's own
`jembatan warehouse demo`; what each block prints is compared with what the page shows, or
with figures computed here from the plant's own lists."""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import io
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, redirect_stdout
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any
from unittest import mock

import duckdb

from app.warehouse import load_fleet
from tests.servers import JEMBATAN, ROOT, environment
from tests.test_warehouse import compare, duck, expected_tables, plant, tickets_file

DOCS = ROOT / "docs"
PAGES = (DOCS / "warehouse.md", DOCS / "examples" / "warehouse" / "README.md")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
KEY = "..."  # what the page's `export NORTH_MILL_KEY=...` sets
TICKETS = 4  # the tickets of the plant the page's plants file is pointed at
SECONDS = re.compile(r" in \d+\.\d s$")  # a run's time, the one figure a page cannot fix

ROOT_ONLY = "not run: root's step on the loading host (a user, /etc, systemd)"
ELSEWHERE = ("not run: a warehouse elsewhere; tests/test_warehouse.py loads PostgreSQL through "
             "the same pipeline")
# How each block is tried, by its page and first line: a runner of RUNNERS, or why not here.
TRIED = {
    ("warehouse.md", 'python3 -m venv /opt/jembatan/.venv'):
        "not run: installs from the package index into /opt; tests/test_package.py installs "
        "the built package",
    ("warehouse.md", "[auth.keys.warehouse]"): "key",
    ("warehouse.md", "page_size = 1000      # records per poll (the feed's limit), 1 to 10000"):
        "plants",
    ("warehouse.md", "$ jembatan warehouse demo"): "demo",
    ("warehouse.md", "$ python -c \"import duckdb; print(duckdb.connect('warehouse.duckdb')"
                     ".sql('SELECT plant, count(*) AS tickets, count(*) FILTER (WHERE cancelled)"
                     " AS cancelled FROM jembatan.transactions GROUP BY plant'))\""): "session",
    ("warehouse.md", "export NORTH_MILL_KEY=... SOUTH_QUARRY_KEY=..."): "load",
    ("warehouse.md", "export DESTINATION__POSTGRES__CREDENTIALS=postgresql://loader:<password>"
                     "@warehouse.example.com:5432/analytics"): ELSEWHERE,
    ("warehouse.md", "[destination.postgres]"): ELSEWHERE,
    ("warehouse.md", "jembatan warehouse load --plants plants.toml --destination clickhouse"):
        "not run: ClickHouse, which the page says nothing here has loaded into",
    ("warehouse.md", 'SELECT field, "column", label FROM jembatan.fields'): "results",
    ("warehouse.md", "NORTH_MILL_KEY=..."): "environment file",
    ("warehouse.md", "sudo useradd --system --home-dir /var/lib/jembatan-warehouse --shell "
                     "/usr/sbin/nologin jembatan-warehouse"): ROOT_ONLY,
    ("warehouse.md", "# /etc/cron.d/jembatan-warehouse: every 5 minutes, as the user "
                     "jembatan-warehouse"): ROOT_ONLY,
    ("warehouse.md", "# /etc/systemd/system/jembatan-warehouse.service: one load of every "
                     "plant's changes into head"):
        "not run: the shipped unit, which tests/test_systemd.py holds to the page",
    ("warehouse.md", "# /etc/systemd/system/jembatan-warehouse.timer: starts "
                     "jembatan-warehouse.service every 5"):
        "not run: the shipped timer, which tests/test_systemd.py holds to the page",
    ("warehouse.md", "deploy=$(/opt/jembatan/.venv/bin/python -c 'import app.ops, os; "
                     "print(os.path.dirname(app.ops.__file__))')/deploy"): ROOT_ONLY,
    ("warehouse.md", "import dlt"): "orchestrator",
    ("warehouse.md", "SET search_path = 'jembatan';   -- the dataset (--dataset), on DuckDB "
                     "and PostgreSQL alike"): "sql",
    ("README.md", "GET /transactions/summary/<first day>/00:00/<last day>/23:59:59"
                  "?by=day,direction&on=dt2"):
        "not run: a request of a plant's API; tests/test_warehouse_figures.py compares "
        "figures.sql with it",
    ("README.md", "PGOPTIONS='-c search_path=jembatan' psql "
                  "\"postgresql://hq@warehouse.example/hq\" -f figures.sql"):
        "not run: psql on a warehouse elsewhere; tests/test_warehouse_figures.py runs "
        "figures.sql on PostgreSQL",
    ("README.md", "import re"): "figures",
}


def blocks() -> Iterator[tuple[tuple[str, str], str]]:
    """((page, first line), text) of every fenced block of the pages, in order."""
    for page in PAGES:
        for match in FENCE.finditer(page.read_text(encoding="utf-8")):
            yield (page.name, match.group(2).splitlines()[0]), match.group(2)


def test_every_block_of_the_warehouse_docs_is_run_or_says_why_not() -> None:
    assert sorted(name for name, _ in blocks()) == sorted(TRIED)
    assert {how for how in TRIED.values() if not how.startswith("not run: ")} == set(RUNNERS)


def test_the_example_plants_file_loads_and_warns_of_each_plant_on_plain_http() -> None:
    example = DOCS / "examples" / "warehouse" / "plants.toml"
    tables = tomllib.loads(example.read_text(encoding="utf-8"))["plants"]
    warned: list[str] = []
    fleet = load_fleet(example, {t["key_env"]: KEY for t in tables.values() if "key_env" in t},
                       warned.append)
    assert [p.name for p in fleet.plants] == list(tables)
    assert warned == [f"{example}: [plants.{name}]: {t['url']} is read over plain http "
                      "(insecure_http = true): its key and its records cross the network "
                      "unencrypted" for name, t in tables.items() if t.get("insecure_http")]
    assert warned  # the file shows the opt-in


@dataclass
class Workspace:
    """The directory the page's commands run in, their environment, and what runs share."""

    cwd: Path
    env: dict[str, str]
    stack: ExitStack
    settings: dict[str, Any] = field(default_factory=dict)  # the plant's key, from the page
    plants: str = ""  # the page's plants file
    expected: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = field(
        default_factory=dict)  # the warehouse's rows, from the plants' own lists

    def shell(self, script: str, program: str = "bash") -> str:
        """What `script` prints, run by `program` in the workspace; it must exit 0."""
        done = subprocess.run([program, "-c", script], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, (script, done.stdout[-2000:], done.stderr[-3000:])
        return done.stdout

    @property
    def warehouse(self) -> Path:
        return self.cwd / "warehouse.duckdb"

    @property
    def database(self) -> Path:
        return self.cwd / "instance" / "demo.sqlite3"


def session(ws: Workspace, text: str) -> None:
    """A terminal session: each `$ ` command prints the lines under it (a run's time aside,
    and the blank lines it ends with)."""
    for command, shown in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", text, re.M):
        said = ws.shell(command).rstrip("\n").splitlines()
        assert [SECONDS.sub(" in N s", line) for line in said] == \
            [SECONDS.sub(" in N s", line) for line in shown.splitlines()]


def demo(ws: Workspace, text: str) -> None:
    """`jembatan warehouse demo` as the page runs it; then the warehouse holds every record
    of the plant's own lists, once each."""
    session(ws, text)
    with plant(ws.database, voids=False) as url:
        ws.expected = expected_tables(url, "demo")
    compare(ws.expected, duck(ws.warehouse), "jembatan")


def key(ws: Workspace, text: str) -> None:
    """The plant's key settings as the page writes them, its digest the key's."""
    digest = hashlib.sha256(KEY.encode()).hexdigest()
    ws.settings = tomllib.loads(text.replace("<64 hex digits>", digest))


def plants(ws: Workspace, text: str) -> None:
    """The page's plants file loads as it is (its keys from the page's variables)."""
    fleet = load_fleet(_written(ws, "page-plants.toml", text),
                       dict.fromkeys(re.findall(r'key_env = "(\w+)"', text), KEY),
                       lambda _: None)
    assert [p.name for p in fleet.plants] == re.findall(r"^\[plants\.(\w+)\]", text, re.M)
    ws.plants = text


def load(ws: Workspace, text: str) -> None:
    """The page's load, with the page's plants file, every url a plant of TICKETS tickets
    served with the page's key: each plant's tickets join the demo's in the warehouse."""
    database = tickets_file(ws.cwd.parent / "plant.sqlite3", TICKETS)
    url = ws.stack.enter_context(plant(database, auth=ws.settings["auth"]))
    names = re.findall(r"^\[plants\.(\w+)\]", ws.plants, re.M)
    pointed, urls = re.subn(r'^url = "[^"]*"', f'url = "{url}"', ws.plants, flags=re.M)
    assert urls == len(names)
    _written(ws, "plants.toml", pointed)
    said = ws.shell(text).splitlines()
    # The session keeps what it exported, for the blocks after this one.
    ws.env.update(re.findall(r"(\w+)=(\S+)", "".join(re.findall(r"^export (.*)", text, re.M))))
    # Each ticket through both feeds; the file's other collection the key reads, vehicles,
    # has no record at this plant.
    assert [(line.split(": ")[0], _counts(line)) for line in said[:-1]] == [
        (name, {"transactions": 2 * TICKETS, "vehicles": 0}) for name in names]
    assert said[-1].startswith("loaded into duckdb (warehouse.duckdb), dataset jembatan, in ")
    with plant(database) as keyless:
        for name in names:
            ws.expected["transactions"].update(expected_tables(keyless, name)["transactions"])
    compare(ws.expected, duck(ws.warehouse), "jembatan")


def _counts(line: str) -> dict[str, int]:
    """The records of each collection of a plant's line (`north: transactions 6, …; …`)."""
    read = line.split(": ", 1)[1].split(";")[0]
    return {c: int(n.replace(",", "")) for c, n in (part.split(" ") for part in
                                                     read.split(", "))}


def orchestrator(ws: Workspace, text: str) -> None:
    """The page's Python over the same pipeline (this warehouse and its working directory
    rather than the page's PostgreSQL and /var/lib), run in this process with the keys the
    session exported: caught up, it reads nothing new."""
    for shown, here in (('destination="postgres"',
                         f"destination=dlt.destinations.duckdb({str(ws.warehouse)!r})"),
                        ('"/var/lib/jembatan-warehouse/pipelines"',
                         repr(ws.env["DLT_DATA_DIR"] + "/pipelines")),
                        ('"/etc/jembatan/plants.toml"', repr(str(ws.cwd / "plants.toml")))):
        assert text.count(shown) == 1
        text = text.replace(shown, here)
    printed = io.StringIO()
    keys = {name: ws.env[name] for name in re.findall(r'key_env = "(\w+)"', ws.plants)}
    with mock.patch.dict(os.environ, keys), redirect_stdout(printed):
        exec(compile(text, "docs/warehouse.md", "exec"), {})  # noqa: S102
    records, skipped = ast.literal_eval("(" + printed.getvalue().strip()
                                        .replace("} {", "}, {") + ")")
    collections = [c for c in tomllib.loads(ws.plants)["collections"]
                   if c in ws.settings["auth"]["keys"]["warehouse"]["collections"]]
    names = re.findall(r"^\[plants\.(\w+)\]", ws.plants, re.M)
    assert (records, skipped) == ({(p, c): 0 for p in names for c in collections}, {})


def results(ws: Workspace, text: str) -> None:
    """A query whose rows the page shows as `-- a | b | c` lines under it."""
    shown = [tuple(cell.strip() for cell in line[3:].split("|"))
             for line in text.splitlines() if line.startswith("-- ")]
    with duckdb.connect(str(ws.warehouse), read_only=True) as con:
        assert con.execute(text).fetchall() == shown


def sql(ws: Workspace, text: str) -> None:
    with duckdb.connect(str(ws.warehouse), read_only=True) as con:
        con.execute(text)


def environment_file(ws: Workspace, text: str) -> None:
    """`NAME=value` lines that sh reads as systemd does: each name set to its value."""
    _written(ws, "warehouse.env", text)
    said = ws.shell("set -a; . ./warehouse.env; env", "sh").splitlines()
    for line in text.splitlines():
        assert line in said


def figures(ws: Workspace, text: str) -> None:
    """The README's Python prints tonnes_in_out_by_plant_day: per plant and day of exit
    weighing, the tonnes in and out, computed here from the plant's own list."""
    shutil.copy(DOCS / "examples" / "warehouse" / "figures.sql", ws.cwd)
    said = ws.shell(text, "python").splitlines()
    found = [eval(line, {"datetime": dt, "Decimal": Decimal}) for line in said]  # noqa: S307
    assert found == _tonnes(list(ws.expected["transactions"].values()))


def _tonnes(tickets: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(plant, day, tonnes in, in after deduction, out, out after deduction), as the
    README says they are counted."""
    days: dict[tuple[str, dt.date], list[Decimal]] = {}
    for t in tickets:
        if t["cancelled"] or None in (t["weigh1"], t["weigh2"], t["tgl_dt2"]) or \
                t["weigh1"] == t["weigh2"]:
            continue
        net = Decimal(str(abs(t["weigh1"] - t["weigh2"]))).quantize(Decimal("0.001"))
        deduction = Decimal(str(t["adjustweigh"] or 0)).quantize(Decimal("0.001"))
        sums = days.setdefault((t["plant"], dt.date.fromisoformat(t["tgl_dt2"][:10])),
                               [Decimal(0)] * 4)
        at = 0 if t["weigh1"] > t["weigh2"] else 2
        sums[at] += net
        sums[at + 1] += net - deduction
    return [(*at, *(kg * Decimal("0.001") for kg in sums)) for at, sums in sorted(days.items())]


def _written(ws: Workspace, name: str, text: str) -> Path:
    path = ws.cwd / name
    path.write_text(text, encoding="utf-8")
    return path


RUNNERS: dict[str, Callable[[Workspace, str], None]] = {
    "key": key, "plants": plants, "demo": demo, "session": session, "load": load,
    "results": results, "environment file": environment_file, "orchestrator": orchestrator,
    "sql": sql, "figures": figures}


def test_the_warehouse_docs_run_as_written_against_the_demo(tmp_path: Path) -> None:
    cwd = tmp_path / "head-office"
    cwd.mkdir()
    env = environment(tmp_path, {
        "PATH": f"{JEMBATAN.parent}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path),
        "DLT_DATA_DIR": str(tmp_path / "dlt"), "RUNTIME__DLTHUB_TELEMETRY": "false"})
    with ExitStack() as stack:
        ws = Workspace(cwd, env, stack)
        for name, text in blocks():
            how = TRIED[name]
            if not how.startswith("not run: "):
                RUNNERS[how](ws, text)

