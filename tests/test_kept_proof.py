"""The proof's verdict kept for every process of a deployment (app/core/verdicts.py,
docs/operations.md "The proof of the mapping"): a second app on the same mapping and table
does not prove again, a changed mapping or table does, a kept wrong verdict refuses at once;
the proof runs in the background, so a request does not wait for it beyond proof_wait; a
directory that cannot be written leaves each process proving alone; under gunicorn a
recycled worker finds its sibling's verdict."""

from __future__ import annotations

import fcntl
import json
import logging
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask

from app import create_app
from app.core.services import services
from app.core.unmapped import Proving
from app.ops.config import SHIPPED_SQL_DIR
from tests.conftest import build_database
from tests.contract import expected
from tests.helpers import make_row
from tests.servers import eventually, gunicorn

ROWS = [make_row("transactions", n, {"dt1": ("2026-11-24", f"07:{n:02d}:00"),
                                     "update": ("2026-11-24", f"08:{n:02d}:00")},
                 vehno=f"B {n} XY", productcode="P1") for n in range(1, 7)]
PROVEN = re.compile(r"^transactions proven on 3 of its records in \d+\.\d s: every read "
                    r"finds each exactly once$")
KEPT = re.compile(r"^transactions: not proven again: the verdict kept in (\S+) holds \(right "
                  r"on 3 records, by jembatan serve \(pid \d+\) at \S+, when it held (\d+) "
                  r"records; it holds (\d+)\)$")


def site(tmp_path: Path) -> Path:
    """A copy of the shipped mapping, which a test may edit."""
    copy = tmp_path / "site"
    if not copy.exists():
        shutil.copytree(SHIPPED_SQL_DIR, copy)
    return copy


def app_on(tmp_path: Path, database: Path, wait: float = 120, **more: Any) -> Flask:
    """An app serving transactions from `database` with the mapping in site(), its verdicts
    kept in tmp_path/proofs; a request waits up to `wait` s for a verdict not yet kept."""
    return create_app({"database": {"sqlite": str(database), "sql_dir": str(site(tmp_path)),
                                    "proof_dir": str(tmp_path / "proofs"),
                                    "proof_wait": wait} | more,
                       "collections": {"serve": ["transactions"]}})


def proving(app: Flask) -> Proving:
    found = services(app).proving
    assert isinstance(found, Proving)
    return found


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the proof said in the log, in order."""
    return [r.getMessage() for r in caplog.records
            if "proven" in r.getMessage() or "verdict" in r.getMessage()]


def first_read(app: Flask) -> None:
    """The first request of transactions, answered whole; then the proof's end."""
    response = app.test_client().get("/transactions/1")
    assert (response.status_code, response.get_json()) == (200, expected("transactions",
                                                                          ROWS[0]))
    decided, _ = proving(app).running["transactions"]
    assert decided.wait(120)


def test_a_second_app_finds_the_verdict_and_does_not_prove_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "jembatan")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    first_read(app_on(tmp_path, database))
    assert [bool(PROVEN.match(m)) for m in said(caplog)] == [True]
    kept = json.loads(next((tmp_path / "proofs").glob("transactions-*.json")).read_text())
    assert {k: kept[k] for k in ("format", "collection", "count", "right", "fields",
                                 "findings", "records")} == {
        "format": 1, "collection": "transactions", "count": len(ROWS), "right": True,
        "fields": [], "findings": [], "records": 3}
    caplog.clear()
    first_read(app_on(tmp_path, database))  # a replaced worker, or the next start
    messages = said(caplog)
    assert len(messages) == 1 and (m := KEPT.match(messages[0])), messages
    assert m.groups() == (str(next((tmp_path / "proofs").glob("transactions-*.json"))),
                          str(len(ROWS)), str(len(ROWS)))


@pytest.mark.parametrize("mode", [0o666, 0o620])
def test_a_verdict_another_user_could_have_written_is_not_believed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, mode: int) -> None:
    """A kept verdict open to its group or others (in a directory that is not): another local
    user could have planted it, so the next app says so and proves again."""
    caplog.set_level(logging.INFO, "jembatan")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    first_read(app_on(tmp_path, database))
    kept = next((tmp_path / "proofs").glob("transactions-*.json"))
    kept.chmod(mode)
    caplog.clear()
    first_read(app_on(tmp_path, database))
    messages = [m for m in said(caplog) if m.startswith("transactions")]
    whom = "its group and others" if mode & 0o002 else "its group"
    assert messages[0] == (f"transactions: the kept verdict is not believed: {kept} is open "
                           f"to {whom} (mode {mode:04o}); proving again"), messages
    assert [bool(PROVEN.match(m)) for m in messages[1:]] == [True], messages


def test_a_table_that_grew_keeps_it_and_one_that_changed_otherwise_proves_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "jembatan")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    first_read(app_on(tmp_path, database))
    with sqlite3.connect(database) as writer:  # a new weighing: the table grew
        writer.execute('INSERT INTO "transactions" ("id", "tgl_dt1", "jam_dt1") '
                       "VALUES (7, '2026-11-24', '09:00:00')")
    writer.close()
    caplog.clear()
    first_read(app_on(tmp_path, database))
    assert [m.groups()[1:] for m in map(KEPT.match, said(caplog)) if m] == [("6", "7")]
    with sqlite3.connect(database) as writer:  # rows deleted: not the table it was proven on
        writer.execute('DELETE FROM "transactions" WHERE "id" > 5')
    writer.close()
    caplog.clear()
    first_read(app_on(tmp_path, database))
    assert [bool(PROVEN.match(m)) for m in said(caplog)] == [True]


def test_a_changed_mapping_proves_again(tmp_path: Path,
                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "jembatan")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    first_read(app_on(tmp_path, database))
    records = site(tmp_path) / "transactions.sql"
    records.write_text(records.read_text() + "\n-- a comment: the text changed\n")
    caplog.clear()
    first_read(app_on(tmp_path, database))
    assert [bool(PROVEN.match(m)) for m in said(caplog)] == [True]
    assert len(list((tmp_path / "proofs").glob("transactions-*.json"))) == 1  # replaced


def test_a_kept_wrong_verdict_refuses_at_once_without_reading_the_database(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A mapping whose ranges miss every record (tgl_dt1 from a column holding a date and a
    time, here dono): proven wrong once; the next app refuses it at its start, /health says
    so before any read, and its reads answer 503 "not mapped yet" with the database gone."""
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": [
        row | {"dono": f"{row['tgl_dt1']} {row['jam_dt1']}"} for row in ROWS]})
    records = site(tmp_path) / "transactions.sql"
    text = records.read_text()
    assert text.count('"tgl_dt1" AS "tgl_dt1"') == 1
    records.write_text(text.replace('"tgl_dt1" AS "tgl_dt1"', '"dono" AS "tgl_dt1"'))
    message = ("transactions is not mapped yet: 1 field mapped so that a read misses or "
               "repeats the site's own records in transactions.sql: tgl_dt1. Its records are "
               "not served until the operator maps those fields, runs `jembatan "
               "check-sql transactions` and restarts Jembatan.")
    refused = (503, {"code": 503, "status": "Service Unavailable", "message": message,
                     "unmapped": ["tgl_dt1"]})
    app = app_on(tmp_path, database)
    response = app.test_client().get("/transactions/1")
    assert (response.status_code, response.get_json()) == refused
    caplog.clear()
    again = app_on(tmp_path, database)
    warned = [r.getMessage() for r in caplog.records if "not mapped yet" in r.getMessage()]
    assert len(warned) == 1 and re.match(
        r"transactions is not mapped yet: proven on 3 of its records by jembatan serve "
        r"\(pid \d+\) at \S+, tgl_dt1: ", warned[0]), warned
    client = again.test_client()
    health = client.get("/health")
    assert (health.status_code, health.get_json()) == (200, {
        "status": "degraded", "database": "ok", "unmapped": {"transactions": ["tgl_dt1"]}})
    database.rename(tmp_path / "gone.sqlite3")  # any read now fails
    for url in ("/transactions/1", "/transactions", "/transactions/changes"):
        response = client.get(url)
        assert (response.status_code, response.get_json()) == refused, url
    assert "transactions" not in proving(again).running  # no proof was started


def test_a_request_is_served_while_the_proof_waits(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """A sibling holds the proof's lock (as a worker proving a large table does): with
    proof_wait = 0 the request is answered at once, before the verdict; the proof goes on
    once the lock is free, and keeps its verdict."""
    caplog.set_level(logging.INFO, "jembatan")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    app = app_on(tmp_path, database, wait=0)
    keeper = proving(app).keeper
    (tmp_path / "proofs").mkdir(exist_ok=True)  # made at start for the bookmark secret
    with open(keeper.path("transactions", ".lock"), "a+b") as sibling:
        fcntl.flock(sibling.fileno(), fcntl.LOCK_EX)
        client = app.test_client()
        for url, want in (("/transactions/1", expected("transactions", ROWS[0])),
                          ("/transactions", [expected("transactions", r) for r in ROWS])):
            response = client.get(url)
            assert (response.status_code, response.get_json()) == (200, want), url
        decided, _ = proving(app).running["transactions"]
        assert not decided.is_set()  # the proof has not run: it waits for the lock
        assert not keeper.path("transactions").exists()
        assert said(caplog) == []
        fcntl.flock(sibling.fileno(), fcntl.LOCK_UN)
    assert decided.wait(120)
    assert [bool(PROVEN.match(m)) for m in said(caplog)] == [True]
    assert json.loads(keeper.path("transactions").read_text())["right"] is True


def test_a_directory_that_cannot_be_written_is_said_once_and_each_app_proves(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """proof_dir under a file (as on a read-only filesystem, a directory that cannot be
    made): the proof still runs and serves its verdict; the log says once per process that
    the verdicts are not kept; the next app proves again."""
    caplog.set_level(logging.INFO, "jembatan")
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    (tmp_path / "file").write_text("not a directory")
    unwritable = str(tmp_path / "file" / "proofs")
    for _ in range(2):
        caplog.clear()
        app = app_on(tmp_path, database, proof_dir=unwritable)
        first_read(app)
        app.test_client().get("/transactions/2")
        messages = said(caplog)
        assert len(messages) == 2, messages
        assert messages[0] == (
            f"cannot keep the proof's verdicts in {unwritable} (Not a directory): this "
            f"process proves each collection itself, in the background, and its siblings "
            f"and the next start prove again; set [database] proof_dir to a directory the "
            f"service may write")
        assert PROVEN.match(messages[1])


def test_gunicorn_proves_at_start_and_a_recycled_worker_does_not_prove_again(
        tmp_path: Path) -> None:
    """gunicorn's master starts the proof at start (app/console/prover.py), which keeps the
    verdict before any request; then, each of the two workers replaced every few requests
    (the shipped unit's --max-requests, lowered), every worker finds it: no worker proves."""
    database = build_database(tmp_path / "plant.sqlite3", {"transactions": ROWS})
    config = tmp_path / "jembatan.toml"
    proofs = tmp_path / "proofs"
    config.write_text(f'[database]\nsqlite = "{database}"\nproof_dir = "{proofs}"\n'
                      f'proof_wait = 60\n[collections]\nserve = ["transactions"]\n')
    with gunicorn(tmp_path, {"JEMBATAN_CONFIG": str(config)}, "--workers", "2",
                  "--threads", "1", "--max-requests", "4") as server:
        assert eventually(lambda: "transactions proven on" in server.log(), 60), server.log()
        for n in range(24):
            response = requests.get(f"{server.base}/transactions/{n % 6 + 1}", timeout=60)
            assert (response.status_code, response.json()) == (
                200, expected("transactions", ROWS[n % 6])), n
        log = server.log()
    lines = log.splitlines()
    booted = re.findall(r"Booting worker with pid: (\d+)", log)
    proven = [line for line in lines if "transactions proven on" in line]
    kept = [line for line in lines if "transactions: not proven again" in line]
    assert len(booted) >= 6, log  # 24 requests, 4 a worker: at least 6 workers served
    assert len(proven) == 1, log
    assert all("by the proof at start (pid " in line for line in kept), log
    assert len(kept) >= 4, log
    verdict = json.loads(next(proofs.glob("transactions-*.json")).read_text())
    assert (verdict["right"], verdict["by"].startswith("the proof at start (pid ")) == (
        True, True)
