"""Logs nobody can forge (docs/deploy.md section 2, "Logs"): every control
character a client sends, in the path, the query or a header, is written escaped as JSON
escapes it, one line a request, under the real gunicorn and waitress; an argument that looks
like a key is logged ***, in the access line, in either format, and in gunicorn's own
warning."""

from __future__ import annotations

import json
import logging
import re
import socket
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from app import create_app
from app.ops.logs import JsonLines, Plain, SecretsHidden, redacted
from tests.conftest import build_database
from tests.servers import SERVERS, Running, eventually, http_server

# Every C0 control, DEL and every C1 control, and the Unicode line and paragraph separators.
CONTROLS = [*map(chr, range(0x00, 0x20)), *map(chr, range(0x7F, 0xA0)), "\u2028", "\u2029"]
SECRET = "S3cr3t-value"
SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
# The start of a line of Jembatan's plain log, and gunicorn's own warning about a request it
# refuses.
STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "
GUNICORNS = re.compile(r"\[[^]]+\] \[\d+\] \[WARNING\] Invalid request from ip=127\.0\.0\.1: "
                       r"Invalid HTTP (request line|Header): .*")

QUEUE = re.compile(STAMP + r"WARNING waitress\.queue Task queue depth is \d+")


def as_json(char: str) -> str:
    """How JSON escapes a control character."""
    return SHORT.get(char) or f"\\u{ord(char):04x}"


def send(server: Running, request: bytes) -> tuple[int, str | None]:
    """One request on its own connection: the status, and the X-Request-ID Jembatan gave
    (None: the server answered itself, Jembatan never saw it)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, _, v in (line.partition(": ") for line in head[1:])}
    return int(head[0].split()[1]), headers.get("x-request-id")


def request(target: bytes, *headers: bytes, host: bytes = b"localhost") -> bytes:
    return b"\r\n".join([b"GET " + target + b" HTTP/1.1", b"Host: " + host,
                         b"X-Forwarded-For: 10.0.0.9", *headers, b"Connection: close",
                         b"", b""])


def lines_of(server: Running) -> list[str]:
    return server.log().split("\n")[:-1]


@pytest.mark.parametrize("kind", SERVERS)
def test_every_control_character_one_escaped_line_a_request(tmp_path: Path, kind: str) -> None:
    database = build_database(tmp_path / "plant.sqlite3", {"customers": []})
    config = tmp_path / "jembatan.toml"  # nginx's address, so X-Forwarded-For is logged
    config.write_text('[api]\ntrusted_proxies = ["127.0.0.1"]\n'
                      "[database]\nprove_on_first_read = false\n")
    env = {"JEMBATAN_SQLITE": str(database), "JEMBATAN_CONFIG": str(config)}
    with http_server(kind, tmp_path, env, threads=2) as server:
        assert send(server, request(b"/health", b"X-Request-ID: start"))[0] == 200
        assert eventually(lambda: "start GET /health 200" in server.log())
        before = len(lines_of(server))
        expected: list[re.Pattern[str]] = []  # each request's line, in order
        for n, char in enumerate(CONTROLS):
            code = quote(char.encode(), safe="").encode()
            escaped = re.escape(as_json(char))
            # The character percent-encoded in the path (decoded before it is logged) and in
            # the query (logged as sent), a key beside it: always Jembatan's to answer.
            for target, logged in [
                    (b"/nothing/A" + code + b"B?api_key=" + SECRET.encode(),
                     f"/nothing/A{escaped}B\\?api_key=\\*\\*\\*"),
                    (b"/customers?vehno=" + code + b"&token=" + code + SECRET.encode(),
                     f"/customers\\?vehno={re.escape(code.decode())}&token=\\*\\*\\*")]:
                status, rid = send(server, request(target, b"X-Request-ID: r%d" % n))
                assert rid == f"r{n}"
                expected.append(re.compile(
                    rf"{STAMP}INFO jembatan\.access 10\.0\.0\.9 {rid} GET "
                    rf"{logged} {status} \d+\.\d{{3}}s rows=-"))
            # The byte itself (Latin-1), raw: in the query, in three headers, in the Host (a
            # host refused: a 400 with its line). A server may
            # refuse the request itself: gunicorn then writes one warning of its own (the
            # request line quoted, escaped), waitress nothing.
            raw = char.encode("latin-1") if ord(char) < 0x100 else char.encode()
            for sent in [request(b"/customers?api_key=" + SECRET.encode() + raw + b"B"),
                         request(b"/customers/1", b"X-Request-ID: A" + raw + b"B",
                                 b"X-Forwarded-For: 10.0.0." + raw, b"User-Agent: " + raw),
                         request(b"/customers/1", host=b"A" + raw + b".example")]:
                status, rid = send(server, sent)
                if rid is not None:
                    expected.append(re.compile(
                        rf"{STAMP}INFO jembatan\.access \S+ {rid} GET "
                        rf"/customers\S* {status} .*"))
                elif kind == "gunicorn":
                    expected.append(GUNICORNS)
        assert send(server, request(b"/health", b"X-Request-ID: end"))[0] == 200
        assert eventually(lambda: "end GET /health 200" in server.log())
        # waitress warns "Task queue depth is 1" when a request comes in while its threads are
        # still putting the last ones away (a race of its own): a line about its threads that
        # holds nothing a client sent, and no request's.
        lines = [line for line in lines_of(server)[before:] if not QUEUE.fullmatch(line)]
        text = server.log()
    assert len(lines) == len(expected) + 1
    for line in lines[:-1]:  # each line is a request's, each request's is there
        match = next((p for p in expected if p.fullmatch(line)), None)
        assert match is not None, line
        expected.remove(match)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text)
    assert SECRET not in text


def test_the_formats_escape_what_json_escapes_and_more() -> None:
    """Plain writes a message's controls as JSON does; JSON lines also DEL, C1, U+2028/9;
    both one line, and the JSON line reads back as the text sent."""
    text = "GET /x" + "".join(CONTROLS) + "y"
    record = logging.LogRecord("jembatan.access", logging.INFO, __file__, 1, "%s", (text,),
                               None)
    plain = Plain().format(record)
    assert plain.endswith(" INFO jembatan.access GET /x" + "".join(map(as_json, CONTROLS))
                          + "y")
    line = JsonLines().format(record)
    assert "\n" not in plain and "\n" not in line
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", plain + line)
    assert json.loads(line)["message"] == text


@pytest.mark.parametrize(("path", "logged"), [
    ("/c?api_key=k1&page=2", "/c?api_key=***&page=2"),
    ("/c?page=2&API%5FKEY=k1&apikey=k2&key=k3&x=1",
     "/c?page=2&API%5FKEY=***&apikey=***&key=***&x=1"),
    ("/c?access_token=t&password=p&client_secret=s&Authorization=a", "/c?access_token=***&"
     "password=***&client_secret=***&Authorization=***"),
    ("/c?vehno=B%201&fields=id", "/c?vehno=B%201&fields=id"),
    ("/c?token", "/c?token"), ("/c", "/c"), ("/key/1?x=key", "/key/1?x=key"),
])
def test_arguments_that_look_like_keys_are_logged_starred(path: str, logged: str) -> None:
    assert redacted(path) == logged


def test_gunicorns_own_warning_hides_a_key() -> None:
    record = logging.LogRecord("gunicorn.error", logging.WARNING, __file__, 1,
                               "Invalid request from ip=%s: %s",
                               ("127.0.0.1", "Invalid HTTP request line: 'GET /c?x=1&api_key=k1"
                                             "\\x00B&Token=t2 HTTP/1.1'"), None)
    assert SecretsHidden().filter(record)
    assert record.getMessage() == ("Invalid request from ip=127.0.0.1: Invalid HTTP request "
                                   "line: 'GET /c?x=1&api_key=***&Token=*** HTTP/1.1'")


@pytest.mark.parametrize("form", ["plain", "json"])
def test_the_access_line_of_a_key_in_the_query(tmp_path: Path, form: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A key sent as ?api_key= is refused (400, not an argument) and its
    value never logged, in either format; the path's controls escaped in both."""
    database = build_database(tmp_path / "plant.sqlite3", {"customers": []})
    app = create_app({"database": {"sqlite": str(database), "prove_on_first_read": False},
                      "log": {"format": form}})
    response = app.test_client().get(f"/customers/%0a%1b?api_key={SECRET}&page=1",
                                     headers={"X-Request-ID": "k-1"})
    assert response.status_code == 400  # the key of a customer is a number
    response.close()  # the access line is written when the response is done
    err = capsys.readouterr().err
    [line] = [line for line in err.split("\n") if "k-1" in line]
    assert SECRET not in err
    if form == "json":
        fields = json.loads(line)
        assert {k: fields[k] for k in ("logger", "client", "request_id", "method", "path",
                                       "status", "rows")} == {
            "logger": "jembatan.access", "client": "127.0.0.1", "request_id": "k-1",
            "method": "GET", "path": "/customers/\n\x1b?api_key=***&page=1", "status": 400,
            "rows": None}
    else:
        assert re.fullmatch(rf"{STAMP}INFO jembatan\.access 127\.0\.0\.1 k-1 GET "
                            r"/customers/\\n\\u001b\?api_key=\*\*\*&page=1 400 \S+ rows=-",
                            line), line


def test_a_traceback_cannot_start_a_line_of_its_own() -> None:
    """An exception's text may hold what a client sent, line feeds included: every line of a
    traceback is indented and escaped, so only a record's first line starts a line."""
    forged = "bad value\n2026-11-28 20:00:00,000 INFO jembatan.access 6.6.6.6 x GET / 200\x1b[2J"
    try:
        raise ValueError(forged)
    except ValueError:
        record = logging.LogRecord("jembatan", logging.ERROR, __file__, 1, "request %s failed",
                                   ("r-1",), sys.exc_info())
    first, *rest = Plain().format(record).split("\n")
    assert re.fullmatch(STAMP + "ERROR jembatan request r-1 failed", first)
    assert rest[0] == "    Traceback (most recent call last):"
    assert rest[-2:] == ["    ValueError: bad value",
                         "    2026-11-28 20:00:00,000 INFO jembatan.access 6.6.6.6 x GET / 200"
                         "\\u001b[2J"]
    assert all(line.startswith("    ") for line in rest)
