"""GET /<c>/changes (docs/api.md §5.11): the ERP's bookmark.

Every expected answer is computed here from the rows each test writes: which records are
new or changed since the bookmark, in stamp order (the `on` pair, a NULL time counting as
00:00:00, NULL first among equal stamps), then key order, each record as a date range sends
it (numberrow null). The database clock is read from the engine itself (db_now), and the
settle delay is moved instead of waiting for the clock: a bookmark holds all the feed's
state, so the same token read by an app with other windows is the same feed a little later.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl
from zoneinfo import ZoneInfo

import pytest
from contract import COLLECTIONS, PAIRS, expected

from app import create_app
from app.core import bookmarks, feed
from app.core.services import services
from app.model.problems import Invalid
from bench.forged import forgotten_body, seen_body, signed, unkeyed
from tests import postgres
from tests.helpers import EVERY_QUERY, make_row, queries_asked, secrets_of

FEED_ON = {"transactions": "update", "weighing": "update", "timbangan1": "update",
           "timbangan2": "update", "vehicles": "create", "bricon2": "tanggal",
           "biao1": "tanggal"}
TOKEN = re.compile(r"[A-Za-z0-9_-]+")
# A day: every stamp of these tests is at least a few minutes behind the clock, and inside
# the window of the bookmark unless a test says otherwise.
WIDE = {"settle_seconds": 0, "lookback_seconds": 86400}


def feed_row(collection: str, key: int, stamp: tuple[str | None, str | None] | None,
             **extra: Any) -> dict[str, Any]:
    """A row of `collection` whose feed pair (FEED_ON) holds `stamp` (date, time)."""
    return make_row(collection, key, {} if stamp is None else {FEED_ON[collection]: stamp},
                    **extra)


def records(collection: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The JSON of these rows as the feed sends them, in the order given."""
    numbered = COLLECTIONS[collection][1] == "numberrow"
    return [expected(collection, row, None) if numbered else expected(collection, row)
            for row in rows]


def in_feed_order(collection: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with a stamp date, by date, time (NULL first), then key."""
    day, clock = PAIRS[FEED_ON[collection]]
    key = "no_produksi" if collection == "bricon2" else "id"
    return sorted((r for r in rows if r.get(day) is not None),
                  key=lambda r: (r[day], r.get(clock) is not None, r.get(clock) or "", r[key]))


def stamp(moment: dt.datetime) -> tuple[str, str]:
    return moment.date().isoformat(), moment.time().isoformat()


class Database:
    """The test's database: its settings, its clock, and writes after the app is made (as
    the weighbridge writes while Jembatan reads)."""

    def __init__(self, request: pytest.FixtureRequest, engine: str, settings: dict[str, Any]):
        self.engine, self.settings, self.request = engine, settings, request

    def _sqlite_path(self) -> str:
        if "sqlite" in self.settings:
            return self.settings["sqlite"]
        return re.search(r"Database=file:(.*?)\?mode=ro", self.settings["odbc"]).group(1)

    def now(self) -> dt.datetime:
        """The database server's clock, as the feed's query reads it."""
        if self.engine in ("sqlite3", "odbc"):
            con = sqlite3.connect(self._sqlite_path())
            try:
                return feed.server_clock(con.execute("SELECT datetime('now', 'localtime')")
                                   .fetchone()[0])
            finally:
                con.close()
        import pyodbc

        con = pyodbc.connect(self.settings["odbc"], autocommit=True)
        try:
            return feed.server_clock(con.execute("SELECT CURRENT_TIMESTAMP").fetchone()[0])
        finally:
            con.close()

    def write(self, table: str, rows: Sequence[dict[str, Any]], key: str = "id") -> None:
        """Each row replaces the row of its key (or is inserted): one transaction."""
        if self.engine in ("sqlite3", "odbc"):
            con = sqlite3.connect(self._sqlite_path())
            with con:
                for row in rows:
                    con.execute(f'DELETE FROM "{table}" WHERE "{key}" = ?', (row[key],))
                    names = ", ".join(f'"{n}"' for n in row)
                    con.execute(f'INSERT INTO "{table}" ({names}) VALUES '
                                f'({", ".join("?" for _ in row)})', list(row.values()))
            con.close()
            return
        if self.engine == "postgresql":
            cluster = self.request.getfixturevalue("postgres_cluster")
            schema = re.search(r"application_name=(\w+)", self.settings["odbc"]).group(1)
            target, columns = f'"{schema}"."{table}"', cluster.tables[table]
            con = cluster.connect()
            cast = postgres.cast_type
        else:
            server = self.request.getfixturevalue("mssql_server")
            target, columns = f'"{table}"', server.tables[table]
            con = server.conn

            def cast(sql_type: str) -> str:
                return sql_type
        if self.engine == "mssql":  # its rows are no longer those it loaded: ensure() reloads
            server.loaded = None
        cursor = con.cursor()
        for row in rows:
            cursor.execute(f'DELETE FROM {target} WHERE "{key}" = ?', row[key])
        postgres.insert_rows(cursor, target, columns, rows, time_as_text=True, cast=cast)
        cursor.close()


@pytest.fixture
def open_feed(request: pytest.FixtureRequest, engine: str,
              make_database: Callable[..., dict[str, Any]]) -> Callable[..., Any]:
    """open_feed({"transactions": rows}) -> (a Database, clients(**feed) -> a test client
    with those [feed] settings, on that database)."""

    def make(tables: dict[str, list[dict[str, Any]]]) -> tuple[Database, Callable[..., Any]]:
        settings = make_database(tables)
        db = Database(request, engine, settings)

        def client(timezone: str = "", **windows: Any) -> Any:
            return create_app({"database": settings, "feed": windows or WIDE,
                               "site": {"timezone": timezone}}).test_client()

        return db, client

    return make


def get(client: Any, collection: str, query: str = "") -> tuple[list[Any], str, Any]:
    """GET /<c>/changes?query: its records, its token, the response; the headers checked."""
    response = client.get(f"/{collection}/changes" + (f"?{query}" if query else ""))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    token = response.headers["X-Bookmark"]
    assert TOKEN.fullmatch(token) and len(token) < 2048, token
    link = re.fullmatch(r'<http://localhost/([a-z0-9]+)/changes\?(.*)>; rel="next"',
                        response.headers["Link"])
    assert link and link.group(1) == collection, response.headers["Link"]
    kept = [(k, v) for k, v in parse_qsl(query) if k not in ("after", "since")]
    assert parse_qsl(link.group(2)) == [*kept, ("after", token)]
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_json(), token, response


def rows_of(collection: str, spec: Sequence[tuple[int, str | None, str | None]]
            ) -> list[dict[str, Any]]:
    return [feed_row(collection, k, (d, t)) for k, d, t in spec]


# Out of order on purpose: equal stamps (5 and 9), a NULL time (7: 00:00:00, before 6 and 8
# whose time is 00:00:00), a NULL date (1: never in the feed).
FIRST = [(5, "2026-01-02", "10:00:00"), (2, "2026-01-01", "08:00:00"),
         (9, "2026-01-02", "10:00:00"), (1, None, "07:00:00"), (8, "2026-01-02", "00:00:00"),
         (7, "2026-01-02", None), (3, "2026-01-01", "23:59:59"), (6, "2026-01-02", "00:00:00"),
         (4, "2026-01-03", "00:00:00")]
# The rows of the tests that only read, one database per engine for all of them (`shared`):
# FIRST in every collection, the transactions' vehno "B 1" for an odd key, "B 2" for an even.
TABLES = {c: rows_of(c, FIRST) for c in FEED_ON}
for _row in TABLES["transactions"]:
    _row["vehno"] = "B 1" if _row["id"] % 2 else "B 2"


def feed_client(shared: Any) -> Any:
    """The shared client over TABLES with the [feed] windows of open_feed's client()."""
    return shared(TABLES, feed=WIDE, site={"timezone": ""})


@pytest.mark.parametrize("collection", list(FEED_ON))
def test_first_call_starts_at_the_oldest_stamp(shared, collection):
    rows = TABLES[collection]
    app = feed_client(shared)
    body, token, response = get(app, collection)
    assert body == records(collection, in_feed_order(collection, rows))
    assert "X-Bookmark-Repeats" not in response.headers
    again, _, _ = get(app, collection, f"after={token}")
    assert again == []  # nothing changed: an empty array with a bookmark


def test_paging_with_limit_follows_the_bookmark(shared):
    rows = TABLES["transactions"]
    app = feed_client(shared)
    pages, query = [], "limit=2&fields=id,tgl_update,jam_update"
    body, token, _ = get(app, "transactions", query)
    while body:
        pages.append(body)
        body, token, _ = get(app, "transactions", f"{query}&after={token}")
    order = in_feed_order("transactions", rows)
    assert pages == [[{"id": r["id"], "tgl_update": r["tgl_update"],
                       "jam_update": r.get("jam_update")} for r in order[i:i + 2]]
                     for i in range(0, len(order), 2)]


def test_a_record_inside_the_settle_delay_waits_for_the_clock(open_feed):
    db, client = open_feed({"transactions": []})
    now = db.now()
    rows = [feed_row("transactions", 1, stamp(now - dt.timedelta(minutes=20))),
            feed_row("transactions", 2, stamp(now - dt.timedelta(minutes=2))),
            feed_row("transactions", 3, stamp(now + dt.timedelta(hours=2)))]  # a PC ahead
    db.write("transactions", rows)
    # settle 10 minutes: 2 is still settling, 3 is in the future.
    body, token, _ = get(client(settle_seconds=600, lookback_seconds=3600), "transactions")
    assert body == records("transactions", rows[:1])
    # The same bookmark once the clock has passed 2's stamp by the settle delay (here: the
    # delay made shorter, which is the same comparison).
    later = client(settle_seconds=60, lookback_seconds=3600)
    body, token, _ = get(later, "transactions", f"after={token}")
    assert body == records("transactions", rows[1:2])
    body, token, _ = get(later, "transactions", f"after={token}")
    assert body == []  # 3 waits until its own stamp is settled, whatever the others do


JAKARTA = ZoneInfo("Asia/Jakarta")  # WIB, UTC+7 all year


def wib_rows(count: int) -> tuple[list[dict[str, Any]], dt.datetime]:
    """`count` transactions stamped in WIB, as a plant's PCs write them: one every two
    minutes back from the real time in Jakarta, less a minute (each one settled there); and
    that time."""
    now = dt.datetime.now(JAKARTA).replace(tzinfo=None, microsecond=0)
    return [feed_row("transactions", k, stamp(now - dt.timedelta(minutes=2 * k - 1)))
            for k in range(1, count + 1)], now


def settled(rows: Sequence[dict[str, Any]], clock: dt.datetime, settle: int
            ) -> list[dict[str, Any]]:
    """The rows whose update stamp is `settle` seconds or more behind `clock`, in feed order."""
    cutoff = clock - dt.timedelta(seconds=settle)
    return [r for r in in_feed_order("transactions", rows)
            if dt.datetime.fromisoformat(f"{r['tgl_update']}T{r['jam_update']}") <= cutoff]


def test_stamps_in_the_plants_zone_settle_by_the_servers_utc_clock(open_feed, host_zone,
                                                                   engine):
    """Stamps written in WIB, the database server's own clock (and this host's) in UTC:
    with [site] timezone = "Asia/Jakarta" every settled record comes at once."""
    host_zone("UTC")
    db, client = open_feed({"transactions": []})
    rows, _ = wib_rows(300)
    db.write("transactions", rows)
    app = client(timezone="Asia/Jakarta", settle_seconds=30, lookback_seconds=600)
    body, token, _ = get(app, "transactions")
    assert len(settled(rows, dt.datetime.now(JAKARTA).replace(tzinfo=None), 30)) == 300
    assert body == records("transactions", in_feed_order("transactions", rows))
    newer = feed_row("transactions", 301, stamp(dt.datetime.now(JAKARTA).replace(
        tzinfo=None, microsecond=0) - dt.timedelta(seconds=5)))
    db.write("transactions", [newer])
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == []  # 5 seconds old in Jakarta: still settling
    body, _, _ = get(client(timezone="Asia/Jakarta", settle_seconds=0, lookback_seconds=600),
                     "transactions", f"after={token}")
    assert body == records("transactions", [newer])


def test_without_a_zone_the_servers_local_clock_holds_wib_stamps_back(open_feed, host_zone,
                                                                      engine):
    """The same stamps with no [site] timezone: compared with the database server's local
    clock, as documented; a clock in UTC holds back the last seven hours of records."""
    host_zone("UTC")
    db, client = open_feed({"transactions": []})
    rows, wib = wib_rows(300)
    db.write("transactions", rows)
    before = db.now()
    body, _, _ = get(client(settle_seconds=30, lookback_seconds=600), "transactions")
    after = db.now()
    assert body in (records("transactions", settled(rows, before, 30)),
                    records("transactions", settled(rows, after, 30)))
    # SQLite's localtime follows TZ, PostgreSQL's session PGTZ; the T-SQL server's GETDATE()
    # is its own (UTC on the Babelfish of the tests, as at the plant that reported it).
    in_utc = abs((before - wib).total_seconds() + 7 * 3600) < 60
    assert in_utc or engine == "mssql", (before, wib)
    if in_utc:  # 7 hours at one record every 2 minutes: the newest 210 wait, 90 come
        assert len(body) == 90


def test_without_a_zone_a_host_in_the_plants_zone_settles_them(open_feed, host_zone, engine):
    """No [site] timezone and the server's local clock in WIB (SQLite: the host's zone):
    the stamps and the clock agree, and every settled record comes."""
    if engine in ("mssql",):
        pytest.skip("the T-SQL server's own zone is not this test's to set")
    host_zone("Asia/Jakarta")
    db, client = open_feed({"transactions": []})
    rows, _ = wib_rows(300)
    db.write("transactions", rows)
    body, _, _ = get(client(settle_seconds=30, lookback_seconds=600), "transactions")
    assert body == records("transactions", in_feed_order("transactions", rows))


def test_a_late_commit_inside_the_lookback_comes_once(open_feed):
    db, client = open_feed({"transactions": []})
    now = db.now()
    early = [feed_row("transactions", k, stamp(now - dt.timedelta(minutes=m)))
             for k, m in ((1, 50), (2, 40), (3, 30))]
    db.write("transactions", early)
    app = client(settle_seconds=60, lookback_seconds=1800)
    body, token, _ = get(app, "transactions")
    assert body == records("transactions", early)
    # Committed now, stamped 45 and 35 minutes ago: behind the bookmark (the clock less the
    # settle delay) by less than the 30-minute lookback for 4 only.
    late = [feed_row("transactions", 4, stamp(now - dt.timedelta(minutes=25))),
            feed_row("transactions", 5, stamp(now - dt.timedelta(hours=3)))]
    db.write("transactions", late)
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == records("transactions", late[:1])
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == []  # 1-4 unchanged inside the window: never sent twice


def test_an_update_that_moves_the_stamp_comes_again(open_feed):
    db, client = open_feed({"transactions": []})
    now = db.now()
    rows = [feed_row("transactions", k, stamp(now - dt.timedelta(minutes=m)))
            for k, m in ((1, 30), (2, 20))]
    db.write("transactions", rows)
    app = client(settle_seconds=60, lookback_seconds=3600)
    body, token, _ = get(app, "transactions")
    assert body == records("transactions", rows)
    # The exit weighing of 1: weigh2 and a new update stamp.
    exit_weighing = feed_row("transactions", 1, stamp(now - dt.timedelta(minutes=10)),
                             weigh1=30500.0, weigh2=12250.5)
    # An edit of 2 that leaves its stamp as it was: not a change the feed can see.
    silent = rows[1] | {"remark": "edited"}
    db.write("transactions", [exit_weighing, silent])
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == records("transactions", [exit_weighing])
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == []


def test_a_cancellation_that_moves_the_stamp_comes_once_marked(open_feed):
    """docs/api.md §6.3: the feed never leaves cancelled records out; a ticket voided after
    the ERP copied it comes again, once, with cancelled true, so the ERP can reverse it."""
    # The tickets void in the demo's flag column, so the table holds it from the start.
    db, client = open_feed({"transactions": [{"id": 0, "cancelled": 0}]})
    now = db.now()
    rows = [feed_row("transactions", k, stamp(now - dt.timedelta(minutes=m)), cancelled=c)
            for k, m, c in ((1, 40, 0), (2, 30, 0), (3, 25, 1))]  # 3 voided already
    db.write("transactions", rows)
    app = client(settle_seconds=60, lookback_seconds=3600)
    body, token, _ = get(app, "transactions")
    assert body == records("transactions", rows)
    assert [r["cancelled"] for r in body] == [False, False, True]
    # The weighbridge program voids 1 and saves it (its update stamp moves); it voids 2
    # without moving the stamp: the feed cannot see that one (docs/integrating.md).
    voided = rows[0] | {"cancelled": 1, "tgl_update": stamp(now - dt.timedelta(minutes=5))[0],
                        "jam_update": stamp(now - dt.timedelta(minutes=5))[1]}
    silent = rows[1] | {"cancelled": 1}
    db.write("transactions", [voided, silent])
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == records("transactions", [voided]) and body[0]["cancelled"] is True
    body, token, _ = get(app, "transactions", f"after={token}")
    assert body == []  # once
    # cancelled=all is no filter: the same bookmark serves it.
    body, _, _ = get(app, "transactions", f"cancelled=all&after={token}")
    assert body == []


def test_past_200_records_in_the_window_none_comes_twice_but_with_a_late_commit(open_feed):
    """The bookmark remembers the newest 200 records of its window and the rest by their
    buckets' digests (docs/api.md §5.11): a caught-up call sends nothing again, however many
    changed inside the window. A late commit into a bucket of forgotten records brings that
    bucket again, counted as repeats (the late one among them: the digest cannot tell which
    is new)."""
    db, client = open_feed({"transactions": []})
    now = db.now().replace(microsecond=0)
    rows = [feed_row("transactions", k, stamp(now - dt.timedelta(minutes=30, seconds=-k)))
            for k in range(1, 251)]
    db.write("transactions", rows)
    app = client(settle_seconds=60, lookback_seconds=7200)
    body, token, response = get(app, "transactions", "limit=10000")
    assert body == records("transactions", rows)
    assert "X-Bookmark-Repeats" not in response.headers
    for _ in range(2):
        body, token, response = get(app, "transactions", f"limit=10000&after={token}")
        assert body == [] and "X-Bookmark-Repeats" not in response.headers
    # Committed now, stamped as record 20 (among the 50 oldest, which the bookmark keeps as
    # digests), and a record of five minutes ago.
    late = feed_row("transactions", 1000, (rows[19]["tgl_update"], rows[19]["jam_update"]))
    db.write("transactions", [late])
    # A bucket is 1/30 of the lookback (240 s) on a grid from 0001-01-01: the forgotten
    # records of the late one's bucket come again with it.
    def bucket(row: dict[str, Any]) -> int:
        moment = dt.datetime.fromisoformat(f"{row['tgl_update']}T{row['jam_update']}")
        return int((moment - dt.datetime.min).total_seconds()) // 240
    again = in_feed_order("transactions", [r for r in [*rows[:50], late]
                                           if bucket(r) == bucket(late)])
    # (A read cut short by its row count, as limit=1 would make this one, could not vouch
    # for the bucket of its last row: where the grid falls, that may be one of these.)
    body, token, response = get(app, "transactions", f"limit=10000&after={token}")
    assert body == records("transactions", again) and len(again) > 1
    assert response.headers["X-Bookmark-Repeats"] == str(len(again))
    new = feed_row("transactions", 251, stamp(now - dt.timedelta(minutes=5)))
    db.write("transactions", [new])
    body, token, response = get(app, "transactions", f"limit=1&after={token}")
    assert body == records("transactions", [new]) and "X-Bookmark-Repeats" not in response.headers
    body, token, response = get(app, "transactions", f"limit=10000&after={token}")
    assert body == [] and "X-Bookmark-Repeats" not in response.headers


def test_since_starts_at_a_time(shared):
    rows = TABLES["transactions"]
    app = feed_client(shared)
    body, token, _ = get(app, "transactions", "since=2026-01-02T00:00:00")
    assert body == records("transactions", [r for r in in_feed_order("transactions", rows)
                                            if r["tgl_update"] >= "2026-01-02"])
    assert get(app, "transactions", f"after={token}")[0] == []


def test_filters_fields_and_csv(shared):
    app = feed_client(shared)
    kept = [r for r in in_feed_order("transactions", TABLES["transactions"])
            if r["vehno"] == "B 1"]
    assert [r["id"] for r in kept] == [3, 7, 5, 9]  # 1, odd too, has no date: never sent
    body, token, _ = get(app, "transactions", "vehno=B%201&fields=id,vehno")
    assert body == [{"id": r["id"], "vehno": "B 1"} for r in kept]
    response = app.get("/transactions/changes?vehno=B%201&format=csv&fields=id,jam_update")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.get_data(as_text=True) == "id,jam_update\r\n" + "".join(
        f"{r['id']},{r.get('jam_update') or ''}\r\n" for r in kept)
    assert TOKEN.fullmatch(response.headers["X-Bookmark"])


def error(app: Any, url: str) -> dict[str, Any]:
    response = app.get(url)
    assert response.status_code == 400, response.get_data(as_text=True)
    return response.get_json()


def bad(message: str) -> dict[str, Any]:
    return {"code": 400, "status": "Bad Request", "message": message}


WHAT = ("after must be the X-Bookmark header of an answer of this service, sent back "
        "unchanged (start again without after, or with since=YYYY-MM-DDTHH:MM:SS)")
FORGED = ("after: the bookmark is not valid for this service (forged, damaged on the way, or "
          "signed with a secret the service no longer has); start the feed again with "
          "since=YYYY-MM-DDTHH:MM:SS, the stamp of the newest record your copy holds (the "
          "records of that second and after come again, and your copy keeps each once by its "
          "key), or without after to read from the oldest stamp.")
SECRETS = (b"the secret of these tests",)


def test_bad_bookmarks_are_400s_that_say_why(shared):
    app = feed_client(shared)
    _, token, _ = get(app, "transactions", "vehno=B%201")
    assert error(app, "/transactions/changes?after=not%20a%20bookmark") == bad(
        f"after: not a bookmark; {WHAT}.")
    damaged = token[:-3] + ("A" if token[-3] != "A" else "B") + token[-2:]
    assert error(app, f"/transactions/changes?vehno=B%201&after={damaged}") == bad(FORGED)
    assert error(app, f"/transactions/changes?vehno=B%201&after={token[:-8]}") == bad(FORGED)
    assert error(app, f"/vehicles/changes?after={token}") == bad(
        "after: this bookmark belongs to /transactions/changes, not /vehicles/changes: each "
        "collection's feed has its own.")
    assert error(app, f"/transactions/changes?vehno=B%201&on=dt1&after={token}") == bad(
        "after: this bookmark was made with on=update, and this request asks on=dt1: send "
        "the on it was made with (each stamp pair is a feed of its own).")
    for filters in ("", "vehno=B%202&", "vehno=B%201&weigh2__isnull=true&"):
        assert error(app, f"/transactions/changes?{filters}after={token}") == bad(
            "after: this bookmark was made with other filters than this request's: send the "
            "filters it was made with, or start a new feed without after for these filters.")
    assert error(app, f"/transactions/changes?vehno=B%201&after={token}"
                      f"&since=2026-01-01T00:00:00") == bad(
        "give after (a bookmark) or since (a time to start from), not both")
    assert error(app, "/transactions/changes?since=2026-01-01") == bad(
        "since must be a date and time YYYY-MM-DDTHH:MM:SS, e.g. 2026-11-01T07:00:00; got "
        "'2026-01-01'")
    assert error(app, "/transactions/changes?limit=10001")["message"] == (
        "Invalid query parameter limit: Must be greater than or equal to 1 and less than or "
        "equal to 10000.")


def test_the_token_stays_under_2_kb_with_200_records_remembered():
    mark = dt.datetime(2026, 11, 25, 12)
    # The worst case: fractions of a second in every stamp, keys far apart.
    seen = frozenset(((k * 7919,), mark - dt.timedelta(seconds=k * 3, microseconds=k * 4567))
                     for k in range(200))
    bookmark = bookmarks.Bookmark("timbangan2", "update", bytes(6), mark=mark, seen=seen)
    token = bookmarks.fitted(bookmark, SECRETS)
    assert len(token) < 2000 and TOKEN.fullmatch(token)
    assert bookmarks.decode(token, "timbangan2", "update", bytes(6), SECRETS) == bookmark


def test_a_walk_rides_in_the_token_and_a_key_past_64_bits_is_damage():
    """The second a feed walks and the last key it sent (two fields, NULLs, negatives), with
    200 records remembered, stay under 2 KB; a key no database holds is refused."""
    mark = dt.datetime(2026, 11, 25, 12)
    seen = frozenset(((k * 7919, None), mark - dt.timedelta(seconds=k * 3, microseconds=k))
                     for k in range(200))
    for walked in (None, (None, None), (-(2**63), 2**63 - 1), (2202611, None)):
        bookmark = bookmarks.Bookmark("bricon2", "tanggal", bytes(6), mark=mark, seen=seen,
                                      walk=mark - dt.timedelta(minutes=1), walked=walked,
                                      walked_all=walked is not None)
        token = bookmarks.fitted(bookmark, SECRETS)
        assert len(token) < 2000 and TOKEN.fullmatch(token)
        assert bookmarks.decode(token, "bricon2", "tanggal", bytes(6), SECRETS) == bookmark
    past = bookmarks.Bookmark("bricon2", "tanggal", bytes(6), mark=mark, walk=mark,
                              walked=(2**63, 0))
    with pytest.raises(Invalid, match="the bookmark is damaged"):
        bookmarks.decode(bookmarks.encode(past, SECRETS), "bricon2", "tanggal", bytes(6),
                         SECRETS)


def test_the_lateness_histogram(open_feed):
    db, client = open_feed({"transactions": []})
    now = db.now()
    rows = [feed_row("transactions", k, stamp(now - dt.timedelta(seconds=s)))
            for k, s in ((1, 600), (2, 100))]
    db.write("transactions", rows)
    app = client(settle_seconds=60, lookback_seconds=3600)
    get(app, "transactions")
    text = app.get("/metrics").get_data(as_text=True)
    assert 'jembatan_feed_lateness_seconds_count{collection="transactions"} 2.0' in text
    # One at least 600 s behind the clock, the other between 100 s and 180 s.
    assert 'jembatan_feed_lateness_seconds_bucket{collection="transactions",le="90.0"} 0.0' \
        in text
    assert 'jembatan_feed_lateness_seconds_bucket{collection="transactions",le="300.0"} 1.0' \
        in text


# -- the cost: one seek on the stamp pair's index ------------------------------------------

def _window_values(mark: dt.datetime) -> dict[str, Any]:
    start = mark - dt.timedelta(minutes=30)
    return {"from_date": start.date(), "from_time": start.time(), "midnight": dt.time(0),
            "row_count": 1030}


def _many(n: int) -> list[dict[str, Any]]:
    """n weighings a minute apart, the last at 2026-11-20 12:00."""
    last = dt.datetime(2026, 11, 20, 12)
    return [feed_row("transactions", k, stamp(last - dt.timedelta(minutes=n - k)))
            for k in range(1, n + 1)]


def test_the_sqlite_plan_is_a_search_of_the_stamp_index(tmp_path):
    from conftest import build_database

    path = build_database(tmp_path / "plan.sqlite3", {"transactions": _many(2000)})
    app = create_app({"database": {"sqlite": str(path)}})
    query = services(app).db.queries.get("transactions", "changes_update",
                                                          "sqlite")
    values = {k: v.isoformat() if hasattr(v, "isoformat") else v
              for k, v in _window_values(dt.datetime(2026, 11, 20, 12)).items()}
    con = sqlite3.connect(path)
    plan = [row[3] for row in con.execute("EXPLAIN QUERY PLAN " + query.sql,
                                          [values[p] for p in query.params])]
    con.close()
    assert plan == ["SEARCH transactions USING INDEX transactions_update (tgl_update>?)"]


@pytest.mark.postgresql
def test_the_postgresql_plan_is_an_index_scan_of_the_stamp_pair(request):
    """The main text (SQL Server's) on PostgreSQL, with docs/adapting.md's index on a table of
    20,000 weighings: the window is read through the index, never by a scan of the table."""
    import pyodbc

    from app.model import tables

    cluster = request.getfixturevalue("postgres_cluster")
    schema = cluster.create_schema({"transactions": _many(20_000)})
    request.addfinalizer(lambda: cluster.drop_schema(schema))
    owner = cluster.connect()
    index = next(s for s in tables.index_statements("postgresql")
                 if '"transactions_update"' in s)
    owner.execute(f'SET search_path TO "{schema}"; {index}; ANALYZE "transactions"')
    owner.close()
    odbc = cluster.connection_string(schema=schema)
    query = services(create_app({"database": {"odbc": odbc}})).db.queries.get(
        "transactions", "changes_update", None)
    values = _window_values(dt.datetime(2026, 11, 20, 12))
    con = pyodbc.connect(odbc, autocommit=True)
    plan = "\n".join(row[0] for row in con.execute(
        "EXPLAIN " + query.sql, *[values[p] for p in query.params]).fetchall())
    con.close()
    # A seek on the date from the window's first day (a plain or a bitmap index scan, as
    # the statistics decide), the time compared on that day's rows only; no scan of the
    # table. The few rows of the window are then sorted into the feed's order.
    assert re.search(r"Index Scan on transactions_update .*\n\s+Index Cond: \(tgl_update >= "
                     r"'2026-11-20'::date\)|Index Scan using transactions_update on "
                     r"transactions", plan), plan
    assert "Seq Scan" not in plan, plan


@pytest.mark.parametrize("tail", [
    b"\x04" + b"\xff" * 9 + b"\x7f",  # a forgotten stamp past the calendar
    b"\x04\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00",  # one before 1753
    b"\x00\x01\xff\xff\xff\xff\x0f",  # one entry of a key a billion fields wide
    b"\x00\x05",  # five entries promised, none there
    b"\x40\x00\x00\x00",  # buckets of no width
    b"\x40\x14\x41" + b"\x01\x01" + bytes(8) + b"\x00",  # more buckets than a window holds
    b"\x40\x14\x01\x01\x01" + bytes(8) + b"\x00",  # a bucket with no forgotten record
    b"\x40\x14\x02\x01\x01" + bytes(8) + b"\x00\x01" + bytes(8) + b"\x00",  # one index twice
])
def test_a_damaged_bookmark_is_a_400_not_a_500(shared, tail):
    """Bodies the service never writes, signed with its own secret (as a bug would sign
    them): read, and refused as damaged."""
    client = feed_client(shared)
    token = signed(b"\x0ctransactions\x06update" + bytes(6) + tail, secrets_of(client)[0])
    assert error(client, f"/transactions/changes?after={token}") == bad(
        f"after: the bookmark is damaged; {WHAT}.")


def test_a_forged_count_of_forgotten_records_is_refused():
    mark = dt.datetime(2026, 11, 25, 12)
    bookmark = bookmarks.Bookmark("transactions", "update", bytes(6), mark=mark, forgotten=mark,
                             forgotten_count=bookmarks.MAX_FORGOTTEN + 1)
    with pytest.raises(Invalid, match="the bookmark is damaged"):
        bookmarks.decode(bookmarks.encode(bookmark, SECRETS), "transactions", "update",
                         bytes(6), SECRETS)


def test_a_browser_page_may_read_the_bookmark(make_client):
    client = make_client({"transactions": []}, api={"cors_origins": ["https://erp.plant"]})
    response = client.get("/transactions/changes", headers={"Origin": "https://erp.plant"})
    exposed = response.headers["Access-Control-Expose-Headers"].split(", ")
    assert {"X-Bookmark", "X-Bookmark-Repeats", "Link"} <= set(exposed)


def test_a_workbook_of_the_changes(shared):
    """format=xlsx, as wherever CSV is answered: one sheet named after the collection, the
    records of the answer, and the bookmark in the headers all the same."""
    import io

    import openpyxl

    rows = TABLES["transactions"]
    response = feed_client(shared).get("/transactions/changes?format=xlsx&fields=id,jam_update")
    assert response.status_code == 200
    assert TOKEN.fullmatch(response.headers["X-Bookmark"])
    book = openpyxl.load_workbook(io.BytesIO(response.get_data()))
    assert book.sheetnames == ["transactions"]
    cells = [[c.value for c in row] for row in book["transactions"].iter_rows()]
    order = in_feed_order("transactions", rows)
    assert [row[0] for row in cells] == ["ID", *(r["id"] for r in order)]


# -- reads bounded whatever is asked ---------------------------------------------------------
#
# What a call asks the database for is counted for real (tests/helpers.py EVERY_QUERY): the
# feed's row_count is the LIMIT of sql/shapes.sql's changes, the most rows it returns.

COUNTED = EVERY_QUERY
SIGNED_BY_OTHERS = (b"a secret this service never had",)


def feed_reads(caplog: pytest.LogCaptureFixture) -> list[int]:
    """The row_count of every feed query asked since the last call."""
    return [int(values["row_count"]) for name, values in queries_asked(caplog)
            if ".changes" in name]


def bound(limit: int) -> int:
    """The most rows a call of this limit asks for (docs/api.md §5.11)."""
    return limit + bookmarks.SEEN + feed.REPEATS


@pytest.mark.parametrize("engine", ["sqlite3"])
def test_the_issues_reproductions_are_400s_that_read_nothing(make_client, caplog):
    """A forged bookmark of a million forgotten records, and one of four million seen
    entries in 5 kB: refused before anything is read (bench/bounded_feed.py measures the
    worker's time and memory). Signed with the service's own secret, as a bug would sign
    them, each is still refused as damaged, unread."""
    client = make_client(TABLES, feed=WIDE, **COUNTED)
    caplog.set_level("WARNING", logger="jembatan")
    million, millions = forgotten_body(1_000_000), seen_body(4_000_000)
    assert len(unkeyed(millions)) < 8000
    # Longer than any token the service writes: not read at all; shorter: not ours.
    for body, says in ((million, FORGED), (millions, f"after: not a bookmark; {WHAT}.")):
        assert error(client, f"/transactions/changes?limit=1&after={unkeyed(body)}") == bad(
            says if body is millions else
            f"after: a bookmark of another version of Jembatan; {WHAT}.")
        token = signed(body, SIGNED_BY_OTHERS[0])
        assert error(client, f"/transactions/changes?limit=1&after={token}") == bad(says)
    mine = secrets_of(client)[0]
    for body in (forgotten_body(bookmarks.MAX_FORGOTTEN + 1), seen_body(bookmarks.SEEN + 1),
                 seen_body(70_000)):
        own = signed(body, mine)
        assert len(own) < bookmarks.MAX_TOKEN
        assert error(client, f"/transactions/changes?after={own}") == bad(
            f"after: the bookmark is damaged; {WHAT}.")
    assert feed_reads(caplog) == []
    tool = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                     "params": {"name": "changes", "arguments": {
                                         "collection": "transactions", "limit": 1,
                                         "after": signed(million, SIGNED_BY_OTHERS[0])}}},
                       headers={"Accept": "application/json, text/event-stream",
                                "MCP-Protocol-Version": "2025-11-25"}).get_json()["result"]
    assert tool["isError"] and tool["content"][0]["text"] == FORGED
    assert feed_reads(caplog) == []


def _mutations(token: str) -> Any:
    """Hypothesis: a token changed as a client could change it (a character replaced,
    dropped or added, the token cut), or built from any bytes."""
    from hypothesis import strategies as st

    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    at = st.integers(0, len(token) - 1)
    return st.one_of(
        st.tuples(at, st.sampled_from(alphabet)).map(
            lambda m: token[:m[0]] + m[1] + token[m[0] + 1:]),
        at.map(lambda i: token[:i] + token[i + 1:]),
        st.tuples(at, st.sampled_from(alphabet)).map(lambda m: token[:m[0]] + m[1] + token[m[0]:]),
        at.map(lambda i: token[:i]),
        st.binary(max_size=1500).map(lambda b: unkeyed(b)),
        st.binary(max_size=1500).map(lambda b: signed(b, SIGNED_BY_OTHERS[0])),
    ).filter(lambda t: t != token)


@pytest.mark.parametrize("engine", ["sqlite3"])
def test_forged_and_mutated_bookmarks_are_400s_that_read_nothing(make_client, caplog):
    from hypothesis import HealthCheck, given, settings

    client = make_client(TABLES, feed=WIDE, **COUNTED)
    caplog.set_level("WARNING", logger="jembatan")
    _, token, _ = get(client, "transactions")
    assert feed_reads(caplog) == [feed.DEFAULT_LIMIT]

    @settings(max_examples=150, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(_mutations(token))
    def check(forged: str) -> None:
        response = client.get(f"/transactions/changes?limit=1&after={forged}")
        assert response.status_code == 400, (forged, response.get_json())
        assert response.get_json()["message"].startswith("after: ")
        assert feed_reads(caplog) == []

    check()


def _bookmarks(mark: dt.datetime) -> Any:
    """Hypothesis: any bookmark the service could sign for the transactions' update feed:
    any count of forgotten records it accepts, up to SEEN remembered ones, any floor."""
    from hypothesis import strategies as st

    moments = st.integers(0, 86_400 * 30).map(lambda s: mark - dt.timedelta(seconds=s))
    entry = st.tuples(st.tuples(st.integers(1, 10**9)), moments)
    walked = st.none() | st.tuples(st.none() | st.integers(-(2**63), 2**63 - 1))
    walks = st.none() | st.tuples(moments, walked, st.booleans())
    return st.builds(
        lambda seen, count, floor, walk, limit: (bookmarks.Bookmark(
            "transactions", "update", bookmarks.filters_digest(()), mark=mark,
            floor=floor, forgotten=mark if count else None, forgotten_count=count,
            seen=frozenset(seen), walk=walk and walk[0], walked=walk and walk[1],
            walked_all=bool(walk and walk[2])), limit),
        st.lists(entry, max_size=bookmarks.SEEN), st.integers(0, bookmarks.MAX_FORGOTTEN),
        st.none() | moments, walks, st.integers(1, feed.MAX_LIMIT))


@pytest.mark.parametrize("engine", ["sqlite3"])
def test_any_bookmark_it_signs_reads_at_most_the_stated_bound(make_client, caplog):
    from hypothesis import HealthCheck, given, settings

    client = make_client(TABLES, feed=WIDE, **COUNTED)
    caplog.set_level("WARNING", logger="jembatan")
    secrets = secrets_of(client)

    @settings(max_examples=100, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(_bookmarks(dt.datetime(2026, 1, 3)))
    def check(asked: tuple[bookmarks.Bookmark, int]) -> None:
        b, limit = asked
        token = bookmarks.fitted(b, secrets)
        response = client.get(f"/transactions/changes?limit={limit}&after={token}")
        assert response.status_code == 200, response.get_json()
        row_count, *more = feed_reads(caplog)  # more: after a walk (app/core/feed.py)
        assert max([row_count, *more]) <= bound(limit) and len(more) < feed.READS
        assert row_count == limit + len(b.seen) + min(b.forgotten_count, feed.REPEATS) or \
            len(bookmarks.encode(b, secrets)) >= bookmarks.MAX_TOKEN  # fitted forgot some

    check()


@pytest.mark.parametrize("engine", ["sqlite3"])
def test_rotation_keeps_the_feeds_in_flight(make_database):
    """The first secret signs, every one verifies: a token of the old secret is read by a
    service that has a new one first, and its answer's token is signed with the new one; a
    secret the service does not list is refused."""
    database = make_database(TABLES)

    def client(*secrets: str) -> Any:
        return create_app({"database": database | {"prove_on_first_read": False},
                           "feed": WIDE | {"bookmark_secrets": list(secrets)}}).test_client()

    old, new = "the secret of last year", "the secret of this year"
    before, rotated, after = client(old), client(new, old), client(new)
    body, token, _ = get(before, "transactions", "limit=3")
    ordered = records("transactions", in_feed_order("transactions", TABLES["transactions"]))
    assert body == ordered[:3]
    body, following, _ = get(rotated, "transactions", f"limit=3&after={token}")
    assert body == ordered[3:6]
    assert bookmarks.decode(following, "transactions", "update", bookmarks.filters_digest(()),
                            (new.encode(),)).mark is not None
    body, _, _ = get(after, "transactions", f"limit=3&after={following}")
    assert body == ordered[6:9]
    # A secret it does not list, either way: the old one dropped, the new one not known.
    assert error(after, f"/transactions/changes?after={token}") == bad(FORGED)
    assert error(before, f"/transactions/changes?after={following}") == bad(FORGED)


@pytest.mark.parametrize("engine", ["sqlite3"])  # the feed's logic, the same on every engine
def test_a_burst_past_the_repeats_a_call_reads_is_passed_whole(open_feed, caplog, monkeypatch):
    """More records forgotten inside the window than a call reads again (REPEATS, 5 here
    instead of 10,000): the feed still sends every record, each once as new, and no call
    asks for more than limit + SEEN + REPEATS rows; the floor moves past the repeats."""
    monkeypatch.setattr(feed, "REPEATS", 5)
    db, client = open_feed({"transactions": []})
    now = db.now()
    rows = [feed_row("transactions", k, stamp(now - dt.timedelta(minutes=30, seconds=-k)))
            for k in range(1, 301)]
    db.write("transactions", rows)
    app = create_app({"database": db.settings | {"prove_on_first_read": False},
                      "feed": {"settle_seconds": 60, "lookback_seconds": 7200},
                      **COUNTED}).test_client()
    caplog.set_level("WARNING", logger="jembatan")
    got, new, query = [], 0, "limit=50"
    for _ in range(20):
        body, token, response = get(app, "transactions", query)
        if not body:
            break
        got += body
        new += len(body) - int(response.headers.get("X-Bookmark-Repeats", 0))
        query = f"limit=50&after={token}"
    assert not body and new == len(rows)
    assert {r["id"] for r in got} == {r["id"] for r in rows}
    assert max(feed_reads(caplog)) == 50 + bookmarks.SEEN + 5


# A mass update (UPDATE t SET updated = GETDATE()): one second holding more records than a
# call reads, walked by key (app/core/feed.py). A second far behind every clock: settled.
BURST = ("2025-06-01", "10:00:00")


def walk(app: Any, collection: str, query: str, calls: int,
         between: Callable[[int, str], None] = lambda call, token: None
         ) -> tuple[list[dict[str, Any]], int, int]:
    """Follow the bookmark to an empty answer, at most `calls` calls, `between(n, token)`
    after call n: the records received in order, how many of them were said to be repeats,
    and the calls made."""
    got, repeats, token = [], 0, None
    for call in range(calls):
        body, token, response = get(app, collection,
                                    query + (f"&after={token}" if token else ""))
        if not body:
            return got, repeats, call + 1
        got += body
        repeats += int(response.headers.get("X-Bookmark-Repeats", 0))
        between(call, token)
    raise AssertionError(f"the feed did not end in {calls} calls, {len(got)} records read")


def walked_reads(caplog: pytest.LogCaptureFixture, limit: int, calls: int) -> int:
    """How many of the feed's queries walked a second; each asks for at most
    limit + SEEN + REPEATS rows, and a call asks at most READS of them."""
    asked = [(name, int(values["row_count"])) for name, values in queries_asked(caplog)
             if ".changes" in name]
    assert asked and max(n for _, n in asked) <= limit + bookmarks.SEEN + feed.REPEATS
    assert len(asked) <= feed.READS * calls
    return sum(1 for name, _ in asked if name.endswith("_within"))


def test_a_burst_in_one_second_is_walked_once_in_bounded_steps(open_feed, engine, caplog,
                                                               monkeypatch):
    """More records of one second than a call reads (REPEATS 5 here instead of 10,000): the
    feed walks the second by key, sends each record once, and each query asks for at most
    limit + SEEN + REPEATS rows. While the walk goes on: records inserted into that second
    after its place (new ids) come in it; one moved out of it comes again with its new
    stamp; a late commit stamped before it, inside the window, comes once the walk is over,
    as does one inserted into it after its last key once it is over. Not seen (docs/api.md
    §5.11): a record moved into that second behind the walk's place."""
    monkeypatch.setattr(feed, "REPEATS", 5)
    n, limit = (30_000, 1000) if engine in ("sqlite3", "odbc") else (2_500, 100)
    db, _ = open_feed({"transactions": []})
    second = (db.now() - dt.timedelta(minutes=30)).replace(microsecond=0)
    burst, before = stamp(second), stamp(second - dt.timedelta(minutes=10))
    later = stamp(second + dt.timedelta(minutes=5))
    rows = ([feed_row("transactions", k, before) for k in range(1, 6)]
            + [feed_row("transactions", k, burst) for k in range(101, n + 101)])
    db.write("transactions", rows)
    app = create_app({"database": db.settings | {"prove_on_first_read": False},
                      "feed": {"settle_seconds": 60, "lookback_seconds": 7200},
                      **COUNTED}).test_client()
    caplog.set_level("WARNING", logger="jembatan")
    during = [*(feed_row("transactions", n + 100 + k, burst) for k in range(1, 4)),
              feed_row("transactions", 110, later), feed_row("transactions", n + 97, later),
              feed_row("transactions", n + 150, stamp(second - dt.timedelta(minutes=5))),
              feed_row("transactions", 3, burst)]  # behind the walk's place: not seen
    ended = [feed_row("transactions", n + 200, burst)]
    written: list[dict[str, Any]] = []

    def between(call: int, token: str) -> None:
        walked = bookmarks.decode(token, "transactions", "update",
                                  bookmarks.filters_digest(()), secrets_of(app))
        if call == 3 and walked.walk is not None:  # well past id 110, short of n + 97
            db.write("transactions", during)
            written.extend(during)
        elif walked.walked_all and not written[len(during):]:
            db.write("transactions", ended)
            written.extend(ended)

    got, repeats, calls = walk(app, "transactions",
                               f"limit={limit}&fields=id,tgl_update,jam_update",
                               n // limit * 2, between)
    assert len(written) == len(during) + len(ended)  # the walk was under way, then over
    table = {r["id"]: r for r in [*rows, *written]}
    final = {(k, r["tgl_update"], r["jam_update"]) for k, r in table.items()}
    received = [(r["id"], r["tgl_update"], r["jam_update"]) for r in got]
    assert len(received) == len(set(received))  # nothing twice
    assert final - set(received) == {(3, *burst)}
    # the versions sent before they moved: 110 in the walk, 3 before it
    assert set(received) - final == {(110, *burst), (3, *before)}
    assert repeats == 0
    # In steps of `limit`: the first calls until the second holds more records than a
    # bookmark remembers, then the walk, a call or two at its end, and the last, empty.
    assert calls <= len(got) // limit + 5
    assert walked_reads(caplog, limit, calls) >= (n - 2 * bookmarks.SEEN) // limit


def production(p: int | None, q: int | None, clock: str) -> dict[str, Any]:
    return {"no_produksi": p, "no_produksi_": q, "tanggal": BURST[0], "jam": clock,
            "operator_name": f"op {p} {q}"}


def sent_time(clock: str, engine: str) -> str:
    """A time as the feed sends it: in microseconds where there is a fraction; the SQLite
    ODBC driver's times carry none."""
    if engine == "odbc":
        return clock[:8]
    return clock if "." not in clock else dt.time.fromisoformat(clock).isoformat(
        timespec="microseconds")


def test_a_burst_of_two_column_keys_with_nulls_and_fractions_is_walked_once(open_feed,
                                                                             engine, caplog):
    """bricon2's key is two columns, each may be NULL (NULLs first); stamps carry
    fractions of the second where the engine keeps them (the walk compares whole seconds
    and orders by key alone). Records inserted into the second while it is walked come."""
    rows = [production(p, q, BURST[1] + ("", ".250", ".5")[(q or 0) % 3])
            for p in (None, -3, 1, 2) for q in (None, *range(100))]
    after = [production(p, 0, "10:01:00") for p in (1, 9)]
    db, _ = open_feed({"bricon2": rows + after})
    app = create_app({"database": db.settings | {"prove_on_first_read": False},
                      "feed": WIDE, **COUNTED}).test_client()
    caplog.set_level("WARNING", logger="jembatan")
    inserted = [production(p, 0, BURST[1]) for p in (5, 6, 7)]

    def between(call: int, token: str) -> None:
        if call == 5:  # the walk has begun: it begins when a read holds 200+ of the second
            db.write("bricon2", inserted, key="no_produksi")

    got, repeats, calls = walk(app, "bricon2", "limit=50", 40, between)
    received = [(r["no_produksi"], r["no_produksi_"], r["tanggal"], r["jam"]) for r in got]
    assert len(received) == len(set(received))
    # Each key once (the keys are distinct), with its stamp as the engine keeps it.
    assert sorted(received, key=repr) == sorted(
        ((r["no_produksi"], r["no_produksi_"], r["tanggal"], sent_time(r["jam"], engine))
         for r in rows + after + inserted), key=repr)
    assert repeats == 0
    assert walked_reads(caplog, 50, calls) > 0


def test_crowded_seconds_one_after_another_and_a_walked_one_crowded_again(open_feed,
                                                                          monkeypatch):
    """Two crowded seconds in a row are walked one after the other; records crowding into a
    walked second after its last key once the walk is over are walked on from that key.
    Each record comes once."""
    monkeypatch.setattr(feed, "REPEATS", 5)
    db, _ = open_feed({"transactions": []})
    first = (db.now() - dt.timedelta(minutes=30)).replace(microsecond=0)
    second, third = first + dt.timedelta(seconds=1), first + dt.timedelta(minutes=1)
    rows = [feed_row("transactions", k, stamp(at)) for at, keys in (
        (first, range(1000, 1600)), (second, range(2000, 2600)), (third, range(1, 4)))
        for k in keys]
    db.write("transactions", rows)
    app = create_app({"database": db.settings | {"prove_on_first_read": False},
                      "feed": {"settle_seconds": 60, "lookback_seconds": 7200}}).test_client()
    crowding = [feed_row("transactions", k, stamp(third)) for k in range(5000, 5300)]
    again = [feed_row("transactions", k, stamp(third)) for k in range(6000, 6300)]
    written: list[dict[str, Any]] = []

    def between(call: int, token: str) -> None:
        walked = bookmarks.decode(token, "transactions", "update",
                                  bookmarks.filters_digest(()), secrets_of(app))
        if walked.walk == first and not walked.walked_all and not written:
            # into the third second while the first is walked: comes after the walks
            db.write("transactions", crowding)
            written.extend(crowding)
        elif walked.walk == third and walked.walked_all and len(written) == len(crowding):
            db.write("transactions", again)  # after the third's last key: walked on
            written.extend(again)

    got, repeats, _ = walk(app, "transactions", "limit=100&fields=id,tgl_update,jam_update",
                           60, between)
    assert len(written) == len(crowding) + len(again)
    received = [(r["id"], r["tgl_update"], r["jam_update"]) for r in got]
    assert sorted(received) == sorted((r["id"], r["tgl_update"], r["jam_update"])
                                      for r in rows + written)
    assert repeats == 0
