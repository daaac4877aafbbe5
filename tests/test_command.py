"""`jembatan`, the command setup.cfg installs: every command answers --help before any
database or settings file exists; `jembatan serve` serves the same answers under gunicorn and
under waitress, and takes --config; check-sql, demo-db and `serve --check-config` say what a
plant's IT person needs, with the exit status a script (or systemd's ExecReload) relies on.
The installed wheel's command, run outside the checkout: tests/test_package.py."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest
import requests

from app.console.cli import main
from tests.conftest import build_database
from tests.helpers import records, sample_row
from tests.servers import JEMBATAN, environment, free_port, jembatan_serve, running

ROWS = 30
COMMANDS = sorted(main.commands)  # serve, check-sql, draft-mapping, demo-db, mcp, warehouse


def run(work: Path, *args: str, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`jembatan ARGS` in `cwd` (by default `work`), its output as text."""
    return subprocess.run([str(JEMBATAN), *args], cwd=cwd or work, capture_output=True,
                          text=True, timeout=120, env=environment(work, env or {}))


def test_the_commands_are_the_six_a_plant_types() -> None:
    # warehouse is head office's (docs/warehouse.md), with its own load and demo.
    assert COMMANDS == ["check-sql", "demo-db", "draft-mapping", "mcp", "serve", "warehouse"]


WAREHOUSE = [["warehouse", "load"], ["warehouse", "demo"]]


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS), *WAREHOUSE],
                         ids=["jembatan", *COMMANDS, "warehouse-load", "warehouse-demo"])
def test_help_answers_before_any_database_or_settings_exist(tmp_path: Path,
                                                            command: list[str]) -> None:
    # A settings file that names a database nobody has made, and a directory with nothing.
    config = tmp_path / "site.toml"
    config.write_text('[database]\nodbc = "Driver={FreeTDS};Server=nowhere.invalid"\n')
    for args in ([*command, "--help"], [*command, "-h"], [*command, "--config", str(config),
                                                          "--help"]):
        done = run(tmp_path, *args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"Usage: {' '.join(['jembatan', *command])} ")
        assert "--config FILE" in done.stdout
        assert done.stderr == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.toml", "site.toml"]


def test_the_group_lists_every_command(tmp_path: Path) -> None:
    listed = run(tmp_path, "--help").stdout.split("Commands:\n", 1)[1].split()
    assert [word for word in listed if word in COMMANDS] == COMMANDS


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict]]:
    """A directory outside the checkout with a database of ROWS customers and a settings
    file naming it (page_size 7, so that the settings visibly apply)."""
    work = tmp_path_factory.mktemp("site")
    rows = [sample_row("customers", n) for n in range(1, ROWS + 1)]
    database = build_database(work / "plant.sqlite3", {"customers": rows})
    config = work / "site.toml"
    config.write_text(f'[database]\nsqlite = "{database}"\n[api]\npage_size = 7\n')
    return work, config, records("customers", rows)


@pytest.mark.parametrize("server", ["gunicorn", "waitress"])
def test_serve_answers_from_the_settings_file(site: tuple[Path, Path, list[dict]],
                                              server: str) -> None:
    work, config, expected = site
    with jembatan_serve(work, {}, "--server", server, "--config", str(config)) as running:
        whole = requests.get(running.base + "/customers", timeout=30)
        page = requests.get(running.base + "/customers/page/2", timeout=30)
        one = requests.get(running.base + "/customers/3", timeout=30)
        missing = requests.get(running.base + f"/customers/{ROWS + 1}", timeout=30)
    assert (whole.status_code, whole.json()) == (200, expected)
    assert (page.status_code, page.json()) == (200, expected[7:14])
    assert (one.status_code, one.json()) == (200, expected[2])
    assert (missing.status_code, missing.json()["code"], missing.json()["status"]) == (
        404, 404, "Not Found")
    assert "Traceback" not in running.log()


def test_serve_under_gunicorn_runs_its_settings(site: tuple[Path, Path, list[dict]]) -> None:
    """gunicorn.conf.py's shape by default (2 workers of 4 threads), flags on top."""
    work, config, _ = site
    with jembatan_serve(work, {}, "--config", str(config)) as running:
        log = running.log()
    assert "Using worker: gthread" in log and log.count("Booting worker") == 2
    with jembatan_serve(work, {}, "--config", str(config), "--workers", "1",
                        "--threads", "1") as running:
        log = running.log()
    assert "Using worker: sync" in log and log.count("Booting worker") == 1


def test_serve_listens_on_iis_port_by_default(site: tuple[Path, Path, list[dict]]) -> None:
    """HttpPlatformHandler gives the port in HTTP_PLATFORM_PORT; no --bind needed."""
    work, config, expected = site
    port = free_port()
    command = [str(JEMBATAN), "serve", "--server", "waitress", "--config", str(config)]
    with running(work, {"HTTP_PLATFORM_PORT": str(port)}, command, port, work) as server:
        answer = requests.get(server.base + "/customers/1", timeout=30)
    assert answer.json() == expected[0]


@pytest.mark.parametrize(("args", "words"), [
    (["--bind", "8000"], "--bind '8000': give HOST:PORT"),
    (["--bind", "127.0.0.1:http"], "give HOST:PORT"),
    (["--server", "uwsgi"], "'uwsgi' is not one of 'auto', 'gunicorn', 'waitress'"),
    (["--server", "waitress", "--workers", "2"], "--workers, --timeout and flags after --"),
    (["--server", "waitress", "--", "--preload"], "--workers, --timeout and flags after --"),
    (["--", "--nonsense"], "jembatan serve: error: unrecognized arguments: --nonsense"),
    (["--workers", "0"], "0 is not in the range x>=1"),
])
def test_serve_refuses_wrong_options_in_one_line(tmp_path: Path, args: list[str],
                                                 words: str) -> None:
    done = run(tmp_path, "serve", *args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr


def test_check_config_says_whether_the_service_would_start(
        site: tuple[Path, Path, list[dict]], tmp_path: Path) -> None:
    work, config, _ = site
    good = run(work, "serve", "--check-config", "--config", str(config))
    assert good.returncode == 0 and good.stdout == (
        "jembatan: the settings and the mapping are good to serve\n")
    bad = tmp_path / "bad.toml"
    bad.write_text("[api]\npage_size = 0\n")
    done = run(work, "serve", "--check-config", "--config", str(bad))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "jembatan: api.page_size must be at least 1 and at most api.max_page_size (0 > 1000)")
    missing = run(work, "serve", "--config", str(tmp_path / "nowhere.toml"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


@pytest.mark.parametrize("before", [False, True], ids=["after-the-command", "before-it"])
def test_check_sql_with_config(site: tuple[Path, Path, list[dict]], before: bool) -> None:
    """check-sql reads the database the settings file names: customers is checked on it.
    --config is taken after the command or before it, on `jembatan` itself."""
    work, config, _ = site
    given = ["--config", str(config)]
    args = [*given, "check-sql", "customers"] if before else ["check-sql", "customers", *given]
    done = run(work, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert str(config) in done.stderr  # the log line naming the settings it read
    assert done.stdout.rstrip().splitlines()[-1].startswith("Every query runs")


def test_demo_db_writes_where_the_settings_say(tmp_path: Path) -> None:
    target = tmp_path / "demo" / "plant.sqlite3"
    target.parent.mkdir()
    config = tmp_path / "site.toml"
    config.write_text(f'[database]\nsqlite = "{target}"\n')
    done = run(tmp_path, "demo-db", "--rows", "20", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Wrote the demo database {target} in ")
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT COUNT(*) FROM transactions").fetchone() == (20,)


def test_the_flask_forms_keep_working(site: tuple[Path, Path, list[dict]]) -> None:
    """`flask --app wsgi check-sql` from the checkout, the settings in JEMBATAN_CONFIG (Flask
    builds the app before it reads a command's options: the flask forms take no --config)."""
    work, config, _ = site
    flask = JEMBATAN.parent / "flask"
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([str(flask), "--app", "wsgi", "check-sql", "customers"], cwd=root,
                          capture_output=True, text=True, timeout=120,
                          env=environment(work, {"JEMBATAN_CONFIG": str(config)}))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().splitlines()[-1].startswith("Every query runs")
    refused = subprocess.run([str(flask), "--app", "wsgi", "check-sql", "--config", str(config)],
                             cwd=root, capture_output=True, text=True, timeout=120,
                             env=environment(work, {"JEMBATAN_CONFIG": str(config)}))
    assert refused.returncode == 2 and "No such option '--config'" in refused.stderr
