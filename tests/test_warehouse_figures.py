"""Head office's figures over the warehouse (docs/examples/warehouse/figures.sql): three
plants, each a real `jembatan serve` over a demo database of its own size and seed, loaded by
`jembatan warehouse load` (app/warehouse/) into DuckDB and into PostgreSQL; every query of
the file run on both and compared, row by row, with the sum of each plant's own
`/transactions/summary/...?by=day,direction&on=dt2` (and `by=month,direction`) answers
(docs/api.md section 7). The expected side is made from the plants' answers alone, never
from the warehouse.

And the cost at the plant: the pipeline reads under a key of its own (docs/api.md section
10, `[auth.keys.warehouse]`, at most one request at once), and the plant's /metrics counts
exactly the requests its access log shows for that key (`jembatan_key_requests_total`,
section 11), every one a 200, while the ERP's key's counter does not move."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import requests

from app.commands.demo import build_demo_database, write_void_mapping
from tests.helpers import value
from tests.postgres import OWNER, Cluster
from tests.servers import JEMBATAN, Running, environment, eventually, jembatan_serve

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "examples" / "warehouse" / "figures.sql"
WAREHOUSE_KEY = "warehouse-key-0123456789abcdef"
ERP_KEY = "erp-key-0123456789abcdef0123"
METRICS_KEY = "plant-metrics-key-0123456789"  # Prometheus's: /metrics needs it (api.md §11)
SCRAPE = {"Authorization": f"Bearer {METRICS_KEY}"}
COLLECTIONS = ["transactions", "customers", "products", "transporters"]
# (name, seed, transactions; None: the demo's default size, whether the site maps
# adjustweigh (False: NULL, as a site without deductions does)).
PLANTS = [("kediri", 2026, None, True), ("gresik", 7, 6000, True), ("tuban", 11, 1500, False)]
EVERY_DAY = "2000-01-01/00:00/2100-12-31/23:59:59"  # wider than any demo's dates
DATASET = "hq_figures"


@dataclass
class Plant:
    """A plant as the warehouse names it, and its Jembatan."""

    name: str
    server: Running

    def summary(self, by: str, **arguments: str) -> list[dict[str, Any]]:
        """The plant's own /transactions/summary over every day, by exit weighing, with the
        ERP's key."""
        response = requests.get(f"{self.server.base}/transactions/summary/{EVERY_DAY}",
                                params={"by": by, "on": "dt2", **arguments},
                                headers={"X-API-Key": ERP_KEY}, timeout=30)
        assert response.status_code == 200, response.text
        return json.loads(response.text, parse_float=Decimal)  # the figures digit for digit


def plant_database(path: Path, seed: int, rows: int | None, deductions: bool) -> Path:
    """A demo database (what `jembatan demo-db` writes) of this seed and size, its exit
    weights and deductions given grams (0.05 and 0.1 kg steps, whose floats' sums are noisy:
    the figures must be exact, docs/api.md section 7); without `deductions`, its adjustweigh
    NULL throughout."""
    build_demo_database(path, rows=rows, seed=seed)
    con = sqlite3.connect(path)
    with con:
        con.execute('UPDATE "transactions" SET "weigh2" = ROUND("weigh2" + 0.05 * ("id" % 7), 3)')
        con.execute('UPDATE "transactions" SET "adjustweigh" = '
                    + ('ROUND("adjustweigh" + 0.1 * ("id" % 10), 3)' if deductions else "NULL"))
    con.close()
    return path


def plant_settings(work: Path, database: Path) -> Path:
    """The plant's settings file: its database (the demo's, its voided tickets read by
    the mapping), the ERP's key and the warehouse's own."""
    config = work / "jembatan.toml"
    mapping = write_void_mapping(work / "sql")
    config.write_text(
        f'[database]\nsqlite = {json.dumps(str(database))}\n'
        f'sql_dir = {json.dumps(str(mapping))}\n\n'
        f'[api]\nmetrics_key = "{METRICS_KEY}"\n\n'
        f'[auth.keys.erp]\nkey = "{ERP_KEY}"\n\n'
        f'[auth.keys.warehouse]\nkey = "{WAREHOUSE_KEY}"\n'
        f"collections = {json.dumps(COLLECTIONS)}\nmax_concurrent = 1\n")
    return config


@pytest.fixture(scope="module")
def plants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Plant]]:
    """The three plants, served."""
    with contextlib.ExitStack() as stack:
        served = []
        for name, seed, rows, deductions in PLANTS:
            work = tmp_path_factory.mktemp(name)
            config = plant_settings(work, plant_database(work / "plant.sqlite3", seed, rows,
                                                         deductions))
            server = stack.enter_context(jembatan_serve(work, {"JEMBATAN_CONFIG": str(config)}))
            served.append(Plant(name, server))
        yield served


def plants_file(work: Path, plants: list[Plant]) -> Path:
    """The pipeline's plants file (app/warehouse/plants.py) for these plants."""
    path = work / "plants.toml"
    path.write_text(
        f"page_size = 1000\npause_seconds = 0\ntimeout = 30\n"
        f"collections = {json.dumps(COLLECTIONS)}\n"
        + "".join(f'\n[plants.{p.name}]\nurl = "{p.server.base}"\nkey = "{WAREHOUSE_KEY}"\n'
                  for p in plants))
    return path


def load(work: Path, plants: list[Plant], *destination: str,
         env: dict[str, str] | None = None) -> str:
    """`jembatan warehouse load` of these plants into `destination`; what it printed."""
    done = subprocess.run(
        [str(JEMBATAN), "warehouse", "load", "--plants", str(plants_file(work, plants)),
         "--pipelines-dir", str(work / "pipelines"), "--dataset", DATASET, *destination],
        cwd=work, env=environment(work, env or {}), capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def queries() -> dict[str, str]:
    """figures.sql's statements by name, each under its `-- name:` line and one comment."""
    out = {}
    for block in re.split(r"^-- name: ", FIGURES.read_text(), flags=re.M)[1:]:
        name, doc, sql = block.split("\n", 2)
        assert doc.startswith("-- ") and not doc.startswith("-- name:"), name
        out[name] = sql.strip().removesuffix(";")
    return out


def figures(cursor: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every query of figures.sql run through a DB-API cursor (the view first): the rows of
    each that returns rows."""
    cursor.execute(f"SET search_path = '{DATASET}'")
    out = {}
    for name, sql in queries().items():
        cursor.execute(sql)
        if not name.endswith("#"):
            out[name] = [tuple(row) for row in cursor.fetchall()]
    return out


# -- the expected side: the plants' own summaries --------------------------------------------

KG = ("weighed", "net", "deduction", "net_after_deduction")


def by_direction(plants: list[Plant], period: str) -> list[tuple[Any, ...]]:
    """(plant, period, direction, tickets, net, deduction, net after deduction, and the two
    in tonnes) of each plant's groups `by=<period>,direction` that are in or out."""
    rows = []
    for plant in sorted(plants, key=lambda p: p.name):
        for group in plant.summary(f"{period},direction"):
            if group["direction"] in ("in", "out"):
                tickets, net, deduction, after = (group[k] for k in KG)
                rows.append((plant.name, period_value(period, group[period]),
                             group["direction"], tickets, net, deduction, after, net / 1000,
                             after / 1000))
    return rows


def period_value(period: str, text: str) -> Any:
    """A day as the warehouse's date type gives it; a month as its text."""
    return dt.date.fromisoformat(text) if period == "day" else text


def side_by_side(rows: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], dict[str, list]]:
    """The rows of by_direction("day") by plant and day: per direction its kilograms, net
    and after deduction."""
    out: dict[tuple[Any, ...], dict[str, list]] = {}
    for plant, day, direction, _, net, _, after, _, _ in rows:
        sums = out.setdefault((plant, day), {"in": [Decimal(0)] * 2, "out": [Decimal(0)] * 2})
        sums[direction][0] += net
        sums[direction][1] += after
    return out


def company(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows of by_direction("day") summed over the plants, by day and direction: the
    plants, the tickets, tonnes net and after deduction."""
    sums: dict[tuple[Any, ...], list] = {}
    for plant, day, direction, tickets, net, _, after, _, _ in rows:
        found = sums.setdefault((day, direction), [set(), 0, Decimal(0), Decimal(0)])
        found[0].add(plant)
        found[1] += tickets
        found[2] += net
        found[3] += after
    return [key + (len(s[0]), s[1], s[2] / 1000, s[3] / 1000)
            for key, s in sorted(sums.items())]


def tonnes(sums: dict) -> tuple[Decimal, ...]:
    """Tonnes in, in after deduction, out, out after deduction, of side_by_side's sums."""
    return (sums["in"][0] / 1000, sums["in"][1] / 1000, sums["out"][0] / 1000,
            sums["out"][1] / 1000)


def expected(plants: list[Plant]) -> dict[str, list[tuple[Any, ...]]]:
    """What each query of figures.sql must give, from the plants' summaries."""
    days = by_direction(plants, "day")
    per_plant = side_by_side(days)
    return {
        "tonnes_by_plant_day_direction": days,
        "tonnes_in_out_by_plant_day": [key + tonnes(s) for key, s in sorted(per_plant.items())],
        "tonnes_by_day": company(days),
        "tonnes_by_plant_month_direction": [row[:4] + row[7:]
                                            for row in by_direction(plants, "month")],
    }


# -- the tests --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def wanted(plants: list[Plant]) -> dict[str, list[tuple[Any, ...]]]:
    """The figures the plants' own summaries give, checked to hold what makes the comparison
    worth making: deductions, cancelled tickets left out, and plants of different sizes."""
    want = expected(plants)
    assert {name for name in want} == {n for n in queries() if not n.endswith("#")}
    days = want["tonnes_by_plant_day_direction"]
    assert sum(row[5] for row in days) > 0  # deductions
    assert {row[0] for row in days if row[5]} == {"kediri", "gresik"}
    counted = {p.name: sum(g["weighed"] for g in p.summary("direction")) for p in plants}
    every = {p.name: sum(g["weighed"] for g in p.summary("direction", cancelled="all"))
             for p in plants}
    assert all(every[n] > counted[n] for n in counted), (every, counted)  # cancellations
    assert len(set(counted.values())) == 3
    return want


def test_figures_on_duckdb_equal_the_plants_summaries(
        plants: list[Plant], wanted: dict[str, list[tuple[Any, ...]]], tmp_path: Path) -> None:
    import duckdb

    out = load(tmp_path, plants, "--destination", "duckdb", "--duckdb-file",
               str(tmp_path / "hq.duckdb"))
    con = duckdb.connect(str(tmp_path / "hq.duckdb"))
    try:
        got = figures(con.cursor())
    finally:
        con.close()
    assert got == wanted, out


def test_figures_on_postgresql_equal_the_plants_summaries(
        plants: list[Plant], wanted: dict[str, list[tuple[Any, ...]]], tmp_path: Path,
        postgres_cluster: Cluster) -> None:
    # dlt's postgres destination takes a URL with a password; the cluster trusts 127.0.0.1.
    url = f"postgresql://{OWNER}:trusted@127.0.0.1:{postgres_cluster.port}/jembatan"
    out = load(tmp_path, plants, "--destination", "postgres",
               env={"DESTINATION__POSTGRES__CREDENTIALS": url})
    con = postgres_cluster.connect()
    try:
        got = figures(con.cursor())
    finally:
        con.close()
    assert got == wanted, out


# -- the cost at the plant: the pipeline's own key ---------------------------------------------

# An access line (app/ops/logs.py write_access): method, path, status, seconds, rows, key.
ACCESS = re.compile(r" (?:GET|HEAD) (\S+) (\d{3}) [\d.]+s rows=\S+ key=(\S+)")


def logged(server: Running, key: str) -> list[tuple[str, int]]:
    """(path, status) of each request the access log shows under the key named `key`."""
    return [(m[1], int(m[2])) for m in ACCESS.finditer(server.log()) if m[3] == key]


def requests_printed(out: str, plant: str) -> int:
    """The requests `jembatan warehouse load` says it made of one plant."""
    found = re.findall(rf"^{plant}: .*; (\d+) requests$", out, flags=re.M)
    assert len(found) == 1, out
    return int(found[0])


def test_the_pipeline_is_counted_under_its_own_key_and_the_erps_is_not(
        plants: list[Plant], tmp_path: Path) -> None:
    plant = plants[0]
    for path in ("/transactions/page/1", "/customers"):  # the ERP reads too
        assert requests.get(plant.server.base + path, headers={"X-API-Key": ERP_KEY},
                            timeout=30).status_code == 200
    # At rest (every earlier request done), the counter and the log agree.
    before = plant.server.scrape(lambda found: value(
        found, "jembatan_key_requests_total", key="erp") >= 2 and value(
        found, "jembatan_key_requests_total", key="warehouse") == len(
        logged(plant.server, "warehouse")), SCRAPE)
    earlier = len(logged(plant.server, "warehouse"))
    out = load(tmp_path, [plant], "--destination", "duckdb", "--duckdb-file",
               str(tmp_path / "cost.duckdb"))
    # The requests the pipeline says it made are those the plant logged (a line is written
    # once its answer is sent, which the client may see first).
    printed = requests_printed(out, plant.name)
    eventually(lambda: len(logged(plant.server, "warehouse")) - earlier >= printed)
    sent = logged(plant.server, "warehouse")[earlier:]
    assert len(sent) == printed, (out, sent)

    def counted(found: dict) -> bool:
        return value(found, "jembatan_key_requests_total", key="warehouse") - value(
            before, "jembatan_key_requests_total", key="warehouse") >= len(sent)

    after = plant.server.scrape(counted, SCRAPE)
    assert sent and {status for _, status in sent} == {200}, sent  # never a 429: one at once
    for status in ("200", None):
        labels = {"key": "warehouse"} | ({"status": status} if status else {})
        assert value(after, "jembatan_key_requests_total", **labels) - value(
            before, "jembatan_key_requests_total", **labels) == len(sent)
    assert value(after, "jembatan_key_requests_total", key="erp") == value(
        before, "jembatan_key_requests_total", key="erp") > 0
    # Feed calls among them: the plant's transactions take several pages.
    assert len([path for path, _ in sent if path.startswith("/transactions/changes")]) > 2
