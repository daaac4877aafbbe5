"""The warehouse's key stays with its plant (docs/warehouse.md, "The plants file"): a redirect
to another origin is refused, never followed with the key, and a plants file that would send
the key in clear text over the network is refused unless the plant allows it. The plants and
the other host are real HTTP servers on loopback; the other host records what it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.console.cli import main
from app.warehouse import Fleet, Plant
from app.warehouse.client import PlantClient, PlantRefused

KEY = "north-mill-key-0123456789"
INDEX = {"collections": [], "labels": {}}


@contextmanager
def server(answer: Any) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """An HTTP server on a free loopback port: `answer(path)` gives (status, headers, body)
    for each GET; yields its URL and the headers of every request it received."""
    received: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            received.append({"path": self.path, **dict(self.headers.items())})
            status, headers, body = answer(self.path)
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", received
    finally:
        httpd.shutdown()
        thread.join()
        httpd.server_close()


def index(_: str) -> tuple[int, dict[str, str], bytes]:
    return 200, {"Content-Type": "application/json"}, json.dumps(INDEX).encode()


def moved_to(location: str) -> Any:
    return lambda path: (302, {"Location": location + path}, b"")


def client(url: str) -> PlantClient:
    return PlantClient(Plant("north_mill", url, KEY), Fleet(()), "test")


@pytest.mark.parametrize("elsewhere", ["other port", "localhost", "https"])
def test_a_redirect_to_another_origin_is_refused_and_never_sent_the_key(elsewhere: str
                                                                        ) -> None:
    with server(index) as (other, received):
        port = other.rsplit(":", 1)[1]
        location = {"other port": other, "localhost": f"http://localhost:{port}",
                    "https": f"https://127.0.0.1:{port}"}[elsewhere]
        with server(moved_to(location)) as (plant, asked):
            with pytest.raises(PlantRefused) as refused:
                client(plant).index()
    assert str(refused.value) == (
        f"/ answered 302, a redirect to {location}/: another scheme, host or port than the "
        "plant's url, not followed (the key would go there); set [plants.north_mill] url in "
        "the plants file to the address that answers")
    assert [a["X-API-Key"] for a in asked] == [KEY]  # the plant itself had it
    assert received == []  # the other origin: not a request, so not the key


def test_a_redirect_within_the_plant_is_followed_with_its_key() -> None:
    def plant(path: str) -> tuple[int, dict[str, str], bytes]:
        moved = (301, {"Location": "/moved" + path}, b"")
        return index(path) if path.startswith("/moved/") else moved
    with server(plant) as (url, asked):
        assert client(url).index() == INDEX
    assert [(a["path"], a["X-API-Key"]) for a in asked] == [("/", KEY), ("/moved/", KEY)]


def load(plants: Path, work: Path) -> Result:
    """`jembatan warehouse load` of `plants` into a DuckDB file under `work`."""
    return CliRunner().invoke(main, [
        "warehouse", "load", "--plants", str(plants), "--duckdb-file", str(work / "w.duckdb"),
        "--pipelines-dir", str(work / "pipelines")])


def test_the_load_names_the_plant_and_the_location_it_did_not_follow(tmp_path: Path) -> None:
    with server(index) as (other, received), server(moved_to(other)) as (url, asked):
        plants = tmp_path / "plants.toml"
        plants.write_text(f'[plants.north_mill]\nurl = "{url}"\nkey = "{KEY}"\n')
        said = load(plants, tmp_path)
    assert said.exit_code == 3, said.output
    assert said.stdout.splitlines()[0] == (
        f"north_mill: no records; 1 requests; NOT READ TO THE END: / answered 302, a redirect "
        f"to {other}/: another scheme, host or port than the plant's url, not followed (the "
        "key would go there); set [plants.north_mill] url in the plants file to the address "
        "that answers (its bookmarks are kept: a later run catches up)")
    assert len(asked) == 1 and received == []


def test_a_plant_allowed_plain_http_is_named_in_a_warning_at_each_load(tmp_path: Path) -> None:
    # 192.0.2.1 (TEST-NET-1) answers nothing: the run goes on past the warning to skip it.
    plants = tmp_path / "plants.toml"
    plants.write_text('timeout = 0.2\n[plants.south_quarry]\nurl = "http://192.0.2.1:8000"\n'
                      f'key = "{KEY}"\ninsecure_http = true\n')
    said = load(plants, tmp_path)
    assert said.exit_code == 3, said.output
    assert said.stderr.splitlines()[0] == (
        f"warning: {plants}: [plants.south_quarry]: http://192.0.2.1:8000 is read over plain "
        "http (insecure_http = true): its key and its records cross the network unencrypted")
