"""Stamps ahead of the database clock are said while the service runs
(app/core/feed.py `ahead`, docs/api.md §9.2, docs/operations.md): when /<c>/changes holds back
records whose stamps lie further ahead of the database clock than feed.settle_seconds (a time
zone not set: the plant's PCs write local time, the clock is UTC), /health is degraded with a
`clock` line, /metrics has how far, and the log says it once, not on every poll; once the
stamps are behind the clock again, /health is ok. No query of its own: the feed's rows.

The site: the embedded transactions table on a SQLite file, whose clock is the host's local
time (database.sql `clock`), three records updated an hour ago and two stamped seven hours
ahead of that clock.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
from pathlib import Path

import pytest

from app import create_app
from tests.conftest import build_database
from tests.helpers import make_row, samples, value

AHEAD = dt.timedelta(hours=7)
ZONE_ADVICE = ('if the plant writes its stamps in local time, set [site] timezone to its '
               'zone, e.g. timezone = "Asia/Jakarta"')


def clock(path: Path) -> dt.datetime:
    """The database's clock, as the feed reads it (SQLite: the host's local time)."""
    with sqlite3.connect(path) as con:
        return dt.datetime.fromisoformat(con.execute(
            "SELECT datetime('now', 'localtime')").fetchone()[0])


def stamped(n: int, at: dt.datetime) -> dict[str, object]:
    day, time = at.date().isoformat(), at.time().replace(microsecond=0).isoformat()
    return make_row("transactions", n, {"dt1": (day, time), "update": (day, time)})


def test_stamps_ahead_of_the_clock_are_said_in_health_and_once_in_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "plant.sqlite3"
    build_database(path, {})
    now = clock(path)
    rows = [stamped(n, now - dt.timedelta(hours=1, minutes=n)) for n in (1, 2, 3)] + [
        stamped(n, now + AHEAD + dt.timedelta(seconds=n)) for n in (4, 5)]
    path.unlink()
    build_database(path, {"transactions": rows})
    client = create_app({"database": {"sqlite": str(path), "prove_on_first_read": False},
                         "collections": {"serve": ["transactions"]}}).test_client()
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}

    with caplog.at_level(logging.WARNING, logger="jembatan"):
        first = client.get("/transactions/changes?fields=id")
        assert first.status_code == 200  # the settled ones; those ahead held back
        assert first.get_json() == [{"id": 3}, {"id": 2}, {"id": 1}]
        token = first.headers["X-Bookmark"]
        for _ in range(2):  # two more polls: nothing new, and nothing more in the log
            again = client.get(f"/transactions/changes?fields=id&after={token}")
            assert again.status_code == 200 and again.get_json() == []
            token = again.headers["X-Bookmark"]
    said = [r.getMessage() for r in caplog.records if "ahead of the database clock" in
            r.getMessage()]
    assert len(said) == 1, said  # once, not on every poll
    assert said[0].startswith(
        "transactions: the newest tgl_update+jam_update stamps /transactions/changes read "
        "are 7.0 hours ahead of the database clock: it holds back 2 records until that clock "
        f"passes them; {ZONE_ADVICE} (database clock ")
    health = client.get("/health").get_json()
    assert health == {
        "status": "degraded", "database": "ok", "clock": [
            "transactions: the newest tgl_update+jam_update stamps /transactions/changes "
            "read are 7.0 hours ahead of the database clock: it holds back those records "
            f"until that clock passes them; {ZONE_ADVICE}"]}
    found = samples(client.get("/metrics").get_data(as_text=True))
    seconds = value(found, "jembatan_feed_ahead_seconds", collection="transactions",
                    on="update")
    assert AHEAD.total_seconds() < seconds < (AHEAD + dt.timedelta(minutes=10)).total_seconds()

    # The PCs' clocks are put right: their stamps fall behind the clock, and the feed sends
    # them; /health is ok again.
    with sqlite3.connect(path) as con:
        earlier = (now - dt.timedelta(minutes=10)).replace(microsecond=0)
        con.execute("UPDATE transactions SET tgl_update = ?, jam_update = ? WHERE id IN (4, 5)",
                    (earlier.date().isoformat(), earlier.time().isoformat()))
    response = client.get(f"/transactions/changes?fields=id&after={token}")
    assert response.get_json() == [{"id": 4}, {"id": 5}]
    assert client.get("/health").get_json() == {"status": "ok", "database": "ok"}
