"""The doors, second pass (docs/keys.md, docs/deploy.md): no key sent is no key whatever the
settings hold; /metrics closed to strangers once keys are configured; no configured key in
an access line, wherever a client put it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from app import create_app
from app.ops import config
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
