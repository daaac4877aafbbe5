"""`pip install .` gives a working service: the wheel built from the repository carries the
queries (sql/ as app/sql/), the pages (dashboard, report), the script they share and
everything create_app reads, and a fresh virtual environment with nothing but the wheel and
its dependencies serves requests from a directory outside the repository."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import requests

from tests.servers import ROOT, free_port, running

SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import app
    from app import create_app
    from app.model import glossary
    from app.commands.demo import build_demo_database

    here = Path.cwd()
    assert not Path(app.__file__).is_relative_to(sys.argv[1]), app.__file__
    database = here / "plant.sqlite3"
    build_demo_database(database, rows=50)
    client = create_app({"database": {"sqlite": str(database)}}).test_client()
    answers = {}
    for url in ["/transactions/1", "/transactions/page/1?page_size=2",
                "/transactions/summary/2026-11-01/00:00/2026-11-20/23:59:59?by=month",
                "/docs", "/docs/static/swagger-ui-bundle.js", "/dashboard",
                "/report/2026-11-20", "/jembatan.js", "/metrics"]:
        response = client.get(url)
        answers[url] = [response.status_code, response.mimetype]
    print(json.dumps({"app": app.__file__, "answers": answers,
                      "glossary": glossary.meaning("NumberedWeighing", "weigh1")}))
""")


def test_a_wheel_installed_in_a_fresh_venv_serves(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--wheel-dir", str(wheels), str(ROOT)], check=True, timeout=600)
    [wheel] = wheels.glob("jembatan-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # The queries and draft-mapping's table of the trade's words.
    shipped = {p.name for p in (ROOT / "sql").iterdir() if p.suffix in (".sql", ".toml")}
    assert {n.removeprefix("app/sql/") for n in names if n.startswith("app/sql/")} == shipped
    # The pages, the script they share (app/http/pages.py) and the glossary.
    assert {"app/http/static/dashboard.html", "app/http/static/report.html",
            "app/http/static/jembatan.js", "app/model/glossary.toml"} <= set(names)
    # The files docs/deploy.md shows: the nginx site and its snippet (section 4), the systemd
    # unit (section 3), IIS's web.config (section 5), and the warehouse's service and timer
    # (docs/warehouse.md), copied from the installed package.
    deploy = {p.relative_to(ROOT).as_posix() for p in (ROOT / "app/ops/deploy").iterdir()}
    assert deploy == {"app/ops/deploy/nginx-site.conf", "app/ops/deploy/jembatan-proxy.conf",
                      "app/ops/deploy/jembatan.service", "app/ops/deploy/web.config",
                      "app/ops/deploy/jembatan-warehouse.service",
                      "app/ops/deploy/jembatan-warehouse.timer"}
    assert deploy <= set(names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", str(wheel)], check=True,
                   timeout=900)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([str(venv / "bin" / "python"), "-c", SCRIPT, str(ROOT)],
                          cwd=elsewhere, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["app"].startswith(str(venv))
    assert result["answers"] == {
        "/transactions/1": [200, "application/json"],
        "/transactions/page/1?page_size=2": [200, "application/json"],
        "/transactions/summary/2026-11-01/00:00/2026-11-20/23:59:59?by=month":
            [200, "application/json"],
        "/docs": [200, "text/html"],
        "/docs/static/swagger-ui-bundle.js": [200, "text/javascript"],
        "/dashboard": [200, "text/html"],
        "/report/2026-11-20": [200, "text/html"],
        "/jembatan.js": [200, "text/javascript"],
        "/metrics": [200, "text/plain"],
    }
    # glossary.toml is read from the installed package.
    assert result["glossary"] == "The weight at the entry weighing."

    # The `jembatan` command the wheel installs, outside the repository: each server answers
    # the record the script's database holds (its settings: the environment alone).
    jembatan = venv / "bin" / "jembatan"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "JEMBATAN_SQLITE": str(elsewhere / "plant.sqlite3")}
    done = subprocess.run([str(jembatan), "serve", "--check-config"], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = []
    for server in ("gunicorn", "waitress"):
        port = free_port()
        command = [str(jembatan), "serve", "--server", server, "--bind", f"127.0.0.1:{port}"]
        with running(tmp_path, env, command, port, elsewhere) as served:
            answers.append(requests.get(served.base + "/transactions/1", timeout=30).json())
    assert answers[0] == answers[1] and answers[0]["id"] == 1
