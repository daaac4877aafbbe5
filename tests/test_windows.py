"""What a Windows plant runs, as far as this Linux machine can run it: IIS's HttpPlatformHandler
starts the command line of the shipped web.config (app/ops/deploy/web.config), and
docs/deploy.md shows that file as it is. IIS, HttpPlatformHandler and a Windows service are
not run here: the command line is, under waitress, with the Windows paths mapped onto this
machine the way IIS fills in %HTTP_PLATFORM_PORT% and the environment."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path, PureWindowsPath

import requests

from tests.conftest import build_database
from tests.helpers import fenced_blocks, records, sample_row
from tests.servers import JEMBATAN, ROOT, free_port, running

WEB_CONFIG = ROOT / "app" / "ops" / "deploy" / "web.config"
PORT_VARIABLE = "%HTTP_PLATFORM_PORT%"


def httpplatform() -> ElementTree.Element:
    """The <httpPlatform> element of the shipped web.config."""
    found = ElementTree.parse(WEB_CONFIG).getroot().find("system.webServer/httpPlatform")
    assert found is not None, "web.config has no system.webServer/httpPlatform"
    return found


def on_this_machine(windows: str, places: dict[PureWindowsPath, Path]) -> Path:
    """A Windows path of web.config on this machine: under the longest of `places` that
    holds it, a program's `.exe` dropped (Scripts\\jembatan.exe is bin/jembatan here)."""
    path = PureWindowsPath(windows)
    for prefix in sorted(places, key=lambda p: len(p.parts), reverse=True):
        if path.is_relative_to(prefix):
            parts = path.relative_to(prefix).parts
            name = parts[-1].removesuffix(".exe") if path.suffix == ".exe" else parts[-1]
            return places[prefix].joinpath(*parts[:-1], name)
    raise AssertionError(f"{windows}: not under {sorted(map(str, places))}")


def test_iis_starts_what_web_config_says(tmp_path: Path) -> None:
    """The exact command line and environment of web.config, as HttpPlatformHandler fills
    them in: /health and a record answer on the port IIS chose."""
    platform = httpplatform()
    assert platform.get("stdoutLogEnabled") == "true" and platform.get("stdoutLogFile")
    assert int(platform.get("startupTimeLimit", "0")) >= 30
    install = tmp_path / "Jembatan"
    places = {PureWindowsPath(r"C:\Jembatan\.venv\Scripts"): JEMBATAN.parent,
              PureWindowsPath(r"C:\Jembatan"): install}
    program = on_this_machine(platform.get("processPath", ""), places)
    assert program == JEMBATAN
    port = free_port()
    arguments = platform.get("arguments", "")
    assert '"' not in arguments  # so that splitting at spaces is how Windows splits it
    command = [str(program), *arguments.replace(PORT_VARIABLE, str(port)).split()]
    assert command[1:4] == ["serve", "--server", "waitress"]
    settings = {variable.get("name", ""): variable.get("value", "")
                for variable in platform.iterfind("environmentVariables/environmentVariable")}
    assert set(settings) == {"JEMBATAN_CONFIG"}
    config = on_this_machine(settings["JEMBATAN_CONFIG"], places)
    config.parent.mkdir(parents=True)
    rows = [sample_row("customers", n) for n in (1, 2, 3)]
    database = build_database(install / "plant.sqlite3", {"customers": rows})
    config.write_text(f'[database]\nsqlite = "{database}"\n')
    site = tmp_path / "inetpub"  # the site's folder, where IIS starts the process
    site.mkdir()
    env = {"HTTP_PLATFORM_PORT": str(port), "JEMBATAN_CONFIG": str(config)}
    with running(tmp_path, env, command, port, cwd=site) as server:
        health = requests.get(server.base + "/health", timeout=30)
        record = requests.get(server.base + "/customers/2", timeout=30)
        log = server.log()
    assert (health.status_code, health.json()) == (200, {"status": "ok", "database": "ok"})
    assert (record.status_code, record.json()) == (200, records("customers", rows)[1])
    assert f"Serving on http://127.0.0.1:{port}" in log and "Traceback" not in log


def test_the_docs_show_the_shipped_web_config() -> None:
    shown = [block for block in fenced_blocks((ROOT / "docs" / "deploy.md").read_text(), "xml")
             if "<httpPlatform " in block]
    assert shown == [WEB_CONFIG.read_text()]
