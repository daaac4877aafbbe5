"""The plant's clock: what "now" and "today" are wherever Jembatan compares with them.

The weighbridge and batching PCs write their stamps in the plant's local time, with no
zone. With `[site] timezone` set (an IANA name, e.g. "Asia/Jakarta"), "now" is the database
server's clock read in UTC and turned into that zone here, so neither the zone of the host
that runs Jembatan nor the database server's own zone setting matters; "today" is the date
in that zone. Without it, each place keeps the clock it always had: the feed the database
server's local time (SQL Server's GETDATE(); SQLite's is the host's zone), `/report` the
host's date, the dashboard the browser's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..formats.encoding import RecordEncoder
from ..model.collections import DATE_PAIRS, Collection, QueryName
from ..model.schemas import ValueMisfit
from ..ops.config import FeedSettings

# Records read ahead of the clock when check-sql looks for stamps in the future: enough to
# count what a wrong zone holds back at a busy plant for hours, bounded on any table.
AHEAD_ROWS = 1000


def server_clock(value: Any) -> dt.datetime:
    """The database clock as a naive datetime (drivers give a datetime or text)."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value.strip().replace(" ", "T", 1))
    if not isinstance(value, dt.datetime):
        raise QueryFailed("the database clock is not a date and time", repr(value))
    return value.replace(tzinfo=None)


def in_zone(utc: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    """A naive UTC time as the plant's naive local time in `zone`."""
    return utc.replace(tzinfo=dt.UTC).astimezone(zone).replace(tzinfo=None)


def plant_now(db: Database, zone: ZoneInfo | None) -> dt.datetime:
    """The database server's clock (database.clock) as the plant's stamps are written: its
    UTC clock in `zone`, or, with no zone set, its own local time."""
    result = db.execute("database", "clock")
    rows, columns = result.all(), result.columns
    if not rows:
        raise QueryFailed("database.clock returned no row")
    if zone is None:
        return server_clock(rows[0][columns.index("local_now")])
    return in_zone(server_clock(rows[0][columns.index("utc_now")]), zone)


def plant_today(zone: ZoneInfo | None) -> dt.date:
    """Today's date at the plant: in `zone` by this host's clock (whatever zone the host is
    set to), or, with no zone set, the host's own date."""
    return dt.datetime.now(zone).date() if zone is not None else dt.date.today()


def stamp_of(day: str | None, clock: str | None) -> dt.datetime:
    """A record's stamp from its date and time as sent (a NULL time counts as 00:00:00)."""
    return dt.datetime.fromisoformat(f"{day}T{clock or '00:00:00'}")


def _span(seconds: float) -> str:
    if seconds >= 0.95 * 3600:
        return f"{seconds / 3600:.1f} hours"
    minutes = round(seconds / 60)
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


def ahead_advice(offset: float, zone: ZoneInfo | None) -> str:
    """What to do about stamps `offset` seconds ahead of the clock the feed compares with."""
    if zone is None and offset >= 1800:
        return ("if the plant writes its stamps in local time, set [site] timezone to its "
                'zone, e.g. timezone = "Asia/Jakarta"')
    return "correct the clock of the PC that writes them" + (
        "" if zone is None else ", or set [site] timezone to the zone the plant writes its "
                                "stamps in")


def ahead_said(collection: str, on: str, offset: float, zone: ZoneInfo | None,
               held: str = "those records") -> str:
    """What /health and the log say of a feed whose newest stamps lie `offset` seconds ahead
    of the database clock (jembatan_feed_ahead_seconds), holding back `held`."""
    pair = "+".join(DATE_PAIRS[on])
    return (f"{collection}: the newest {pair} stamps /{collection}/changes read are "
            f"{_span(offset)} ahead of the database clock: it holds back {held} until that "
            f"clock passes them; {ahead_advice(offset, zone)}")


def held_ahead(stamps: Sequence[dt.datetime], now: dt.datetime, settle: float
               ) -> tuple[float, int]:
    """How far the newest of `stamps` lies ahead of `now` beyond `settle` seconds (0: none),
    and how many lie so far ahead: records the feed holds back for that long."""
    bound = now + dt.timedelta(seconds=settle)
    ahead = [s for s in stamps if s > bound]
    return ((max(ahead) - now).total_seconds(), len(ahead)) if ahead else (0.0, 0)


def stamps_ahead(db: Database, c: Collection, feed: FeedSettings) -> str | None:
    """A warning for check-sql when the newest stamps of `c`'s feed (its default `on`) lie
    ahead of the clock the feed compares them with by more than the settle delay: the feed
    then holds those records back until the clock catches up (hours, for stamps written in
    another zone than the clock's). None when they do not, or `c` has no feed."""
    if not c.dates:
        return None
    on = c.feed_on
    try:
        now = plant_now(db, feed.zone)
        bound = now + dt.timedelta(seconds=feed.settle_seconds)
        # Whole seconds, as a time parameter carries them; the bound itself is checked below.
        start = bound.replace(microsecond=0)
        result = db.execute(c.name, QueryName("changes", on), {
            "from_date": start.date(), "from_time": start.time(), "midnight": dt.time(0),
            "row_count": AHEAD_ROWS})
        columns, rows = result.columns, result.all()
        encoder = RecordEncoder(c.schema)
        values = encoder.values(columns, rows, None)
    except (QueryFailed, DatabaseUnavailable, ValueMisfit, ValueError):
        return None  # check-sql reports the collection's queries and values itself
    day, clock = (encoder.output.index(f) for f in DATE_PAIRS[on])
    ahead = [s for v in values if (s := stamp_of(v[day], v[clock])) > bound]
    if not ahead:
        return None
    offset = (max(ahead) - now).total_seconds()
    count = f"{'at least ' if len(rows) == AHEAD_ROWS else ''}{len(ahead)} " \
            f"record{'' if len(ahead) == 1 else 's'}"
    where = (f"in {feed.zone.key} ({now:%Y-%m-%d %H:%M:%S})" if feed.zone is not None
             else f"(its own local time, {now:%Y-%m-%d %H:%M:%S})")
    advice = ahead_advice(offset, feed.zone)
    pair = "+".join(DATE_PAIRS[on])
    return (f"{c.name}: the newest {pair} stamps are {_span(offset)} ahead of the database "
            f"clock {where}: the feed (/{c.name}/changes) holds "
            f"back {count} until that clock passes them; {advice}")
