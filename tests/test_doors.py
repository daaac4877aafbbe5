"""The doors, second pass (docs/keys.md, docs/deploy.md): no key sent is no key whatever the
settings hold; no configured key in a log line, wherever a client put it. (The settings
refused at start: tests/test_config.py; /metrics' doors: tests/test_metrics.py.)"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from app import create_app
from app.ops import config, logs
from tests.conftest import build_database
from tests.contract import expected
from tests.helpers import assert_error

CUSTOMER = {"id": 3, "CustCode": "C03", "CustName": "PT Tiga"}
KEY = "a-key-of-the-doors-0001"
REQUIRED = ("an API key is required: send it as X-API-Key: <key> or Authorization: Bearer "
            "<key>")
# Every way of sending no key: no header, and each header given empty or blank.
NO_KEY: list[dict[str, str]] = [{}, {"X-API-Key": ""}, {"X-API-Key": "  "},
                                 {"Authorization": "Bearer "}, {"Authorization": "Bearer   "},
                                 {"X-API-Key": "", "Authorization": "Bearer "}]


def app_with(tmp_path: Path, **settings: Any) -> FlaskClient:
    database = build_database(tmp_path / "plant.sqlite3", {"customers": [CUSTOMER]})
    return create_app({"database": {"sqlite": str(database), "prove_on_first_read": False},
                       **settings}).test_client()


def test_no_key_sent_matches_no_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    """Even a settings file holding the digest of an empty key (which the start refuses:
    tests/test_config.py) lets no request in that sends none: the old check hashed the
    empty text it found and matched it."""
    monkeypatch.setattr(config, "_KNOWN_DIGESTS", {})  # the start's refusal taken away
    client = app_with(tmp_path, auth={"keys": {"empty": {
        "key_sha256": hashlib.sha256(b"").hexdigest()}, "blank": {
        "key_sha256": hashlib.sha256(b"  ").hexdigest()}}, "api_keys": [KEY]})
    for headers in NO_KEY:
        response = client.get("/customers/3", headers=headers)
        assert_error(response, 401)
        assert response.get_json() == {"code": 401, "status": "Unauthorized",
                                       "message": REQUIRED}, headers
        assert response.headers["WWW-Authenticate"] == "Bearer"
    for sent in ({"X-API-Key": KEY}, {"Authorization": f"Bearer {KEY}"},
                 {"X-API-Key": "", "Authorization": f"Bearer {KEY}"}):
        answer = client.get("/customers/3", headers=sent)
        assert (answer.status_code, answer.get_json()) == (200, expected("customers", CUSTOMER))


# Keys as a client may send them where no key belongs, each with the path it asks for and
# the path its access line must show: a hex key (openssl rand -hex), a base64 one with "/",
# "+" and "=" (openssl rand -base64), and a named key known by its digest alone.
HEX = "3a7f0c9e1b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d"
B64 = "q3+Zx/9kT2mW8vYb1/LpR0sN=="
NAMED = "named-key-by-digest-0001"
SENT = [("/customers?CustCode={k}", "/customers?CustCode=***"),
        ("/{k}", "/***"),
        ("/customers/{k}", "/customers/***"),
        ("/customers;api_key={k}", "/customers;api_key=***"),
        ("/customers?fields={k},id&page=1", "/customers?fields=***,id&page=1"),
        ("/customers?CustName={q}", "/customers?CustName=***"),
        ("/customers?a={k}&b={k}", "/customers?a=***&b=***")]
# A key beside an encoded blank or control byte (a key pasted from `echo`), encoded twice,
# between '+' blanks, as an argument's name: written *** with or without what is beside it.
BESIDE = ["/customers?CustName={k}%0A", "/customers?CustName=%20{k}%00",
          "/customers?CustName=%2520{k}", "/customers?CustName=+{k}+", "/customers?{k}=1"]


def test_no_configured_key_in_an_access_line(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A key sent in a query argument of any name, as a path segment or a `;` parameter,
    raw or percent-encoded, is written *** in the access line (the old line held it as
    sent), and in the slow-query line that logs the filter's parameters."""
    client = app_with(tmp_path, log={"format": "json", "slow_query": 1e-9},
                      auth={"api_keys": [HEX, B64], "keys": {"n": {
                          "key_sha256": hashlib.sha256(NAMED.encode()).hexdigest()}}})
    capsys.readouterr()
    wanted = {}
    for n, (path, logged) in enumerate([*SENT, *((b, None) for b in BESIDE)]):
        for m, key in enumerate((HEX, B64, NAMED)):
            sent = path.format(k=key, q="".join(f"%{b:02X}" for b in key.encode()))
            rid = f"r-{n}-{m}"
            client.get(sent, headers={"X-API-Key": HEX, "X-Request-ID": rid}).close()
            wanted[rid] = logged
    err = capsys.readouterr().err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    logged_paths = {line["request_id"]: line["path"] for line in lines
                    if line["logger"] == "jembatan.access"}
    assert {r: p for r, p in logged_paths.items() if wanted[r]} == {
        r: p for r, p in wanted.items() if p}
    beside = [p for r, p in logged_paths.items() if not wanted[r]]
    assert len(beside) == 3 * len(BESIDE) and all("***" in p for p in beside), beside
    slow = [line["message"] for line in lines if line["message"].startswith("slow query")]
    assert any("'***'" in message for message in slow), slow
    for key in (HEX, B64, NAMED):
        assert key not in err


@pytest.mark.parametrize("by_text", [True, False])
def test_keys_by_text_or_by_digest_alone(monkeypatch: pytest.MonkeyPatch,
                                         by_text: bool) -> None:
    """The same lines, with the keys known by their text (found by it, and an encoded one
    by its digest) and by their digest alone (key_sha256)."""
    for kept in ("_HIDDEN", "_TEXTS", "_DIGESTS_ALONE"):
        monkeypatch.setattr(logs, kept, set())
    logs.hide_keys([hashlib.sha256(k.encode()).digest() for k in (HEX, B64)],
                   (HEX, B64) if by_text else ())
    encoded = "".join(f"%{b:02X}" for b in B64.encode())
    lines = {f"/c?v={HEX}": "/c?v=***", f"/c/{B64}/x": "/c/***/x",
             f"/c?v={encoded}&w=B%201": "/c?v=***&w=B%201", "/c?v=B%201&w=2": "/c?v=B%201&w=2",
             f"slow query all took 2.10 s, parameters ['{HEX}', 7]":
             "slow query all took 2.10 s, parameters ['***', 7]",
             f"/c/x{HEX}": "/c/x***" if by_text else f"/c/x{HEX}"}  # glued: by its text only
    assert {line: logs.without_keys(line) for line in lines} == lines
    # gunicorn's warning about a request it refuses quotes its request line
    record = logging.LogRecord("gunicorn.error", logging.WARNING, __file__, 1,
                               "Invalid request from ip=%s: %s", ("127.0.0.1", (
                                   f"Invalid HTTP request line: 'GET /{B64}\\x00 HTTP/1.1'")),
                               None)
    assert logs.SecretsHidden().filter(record)
    assert record.getMessage() == ("Invalid request from ip=127.0.0.1: Invalid HTTP request "
                                   "line: 'GET /***\\x00 HTTP/1.1'")


def test_the_default_proof_dir_is_resolved_and_logged(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """Without STATE_DIRECTORY the default is instance/proofs under the working directory,
    wherever that is: the start says which, as an absolute path."""
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.INFO, "jembatan")
    app_with(tmp_path)
    said = [r.getMessage() for r in caplog.records]
    assert [line for line in said if line.startswith("database.proof_dir")] == [
        f"database.proof_dir, where the proof's findings (and, without [feed] "
        f"bookmark_secrets, the bookmark secret) are kept: {tmp_path.resolve()}/instance/proofs"]
