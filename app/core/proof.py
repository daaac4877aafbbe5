"""The proof of a site's mapping on its own records: each read asked for each sampled record.

check-sql (app/commands/check.py) reads a sample of every collection (the first, the middle and the
last page of SAMPLE_ROWS in canonical order) and, for up to PROVEN records spread over it,
asks every kind of read the service answers, through the same queries (sql/shapes.sql with
the site's `records` in front) and the same runner (app/database/db.py):

- by key: /<c>/<id> (a numbered collection's key is the position the sample read it at);
- per `on` of its date ranges: the range from its own moment to its own moment (whole
  seconds, as a request gives them), and the one from the same time the day before to it,
  across the midnight before it, counted and paged to its place as a paged request reads it;
- per code field (CODES) it holds: the `=` filter on its value as sent, inside that range
  (or on the whole list, for a collection without dates);
- the feed (/<c>/changes) from its stamp;
- the summary by day and its code over its moment, whose count must be the records that
  filtered range found, the record among them.

A read must find the record exactly once: a record it misses, or finds twice, is a Finding
with the likely cause, worked out from the record's values and the line of `records` that
gives the field, in the words of the engine it runs on. No SQL is written here: every read
is a named query of the collection, run as a request runs it. The reads of one record cost
at most 1 (key) + 5 per `on` (range, count, page, count again, feed) + 1 per code field + 1
(summary) queries (transactions: 27), and 2 more per page read again because a writer
changed the range meanwhile (PAGE_TRIES), so at most PROVEN times that per collection; each
is bounded by the index on the stamp pair and the records of one day, except a code filter
of a collection without dates (the master tables), which reads the whole list.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..database.db import Database, DatabaseUnavailable, QueryFailed, ValueRefused
from ..database.filters import Filter
from ..database.queries import PARAMETERS
from ..database.sqltext import joins, written_as
from ..model import params
from ..model.collections import DATE_PAIRS, Collection, QueryName
from ..model.schemas import Integer, trimmed
from .summaries import MEASURES

__all__ = ["CODES", "PROVEN", "SAMPLE_ROWS", "Finding", "Sample", "chosen", "lines", "prove",
           "sample"]

SAMPLE_ROWS = 50  # rows read from each page of the sample: enough to look at, never a table
PROVEN = 20  # records of the sample each read is asked for
# The fields a client filters on with `=` to find its own records: the codes of master data,
# the vehicle, the ticket; per record shape, those it has (decided from app/model/schemas.py).
CODES = ("productcode", "custcode", "transcode", "vehno", "recno", "ProductCode",
         "CustCode", "TransCode", "Number", "recipe")
PAGE_TRIES = 3  # pages of a range read while a writer changes it, before giving up on it
_SECOND = dt.timedelta(seconds=1)


@dataclass(frozen=True)
class Sample:
    """Records in canonical order as the page view reads them, each with its position."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    positions: list[int]  # 1-based, in canonical order


@dataclass(frozen=True)
class Finding:
    """A read that does not find a record exactly once."""

    collection: str
    read: str  # which read, as a plant would ask it: "the range on=dt1 at its own moment"
    field: str  # the field whose mapping is the likely cause
    record: str  # the record's key: "id 7", "numberrow 12"
    found: int  # how many times the read found it (0, or 2 and more)
    cause: str  # the likely cause, in words a plant understands
    copies: int = 1  # how many identical rows of a keyless table the record is

    @property
    def missed(self) -> bool:
        return self.found < self.copies


def sample(db: Database, c: Collection) -> Sample:
    """The first, the middle and the last page of SAMPLE_ROWS records in canonical order,
    each read as the page view reads it (so bounded on a table of millions)."""
    last = max(1, -(-db.scalar(c.name, "count") // SAMPLE_ROWS))
    columns: list[str] = []
    rows: list[tuple[Any, ...]] = []
    positions: list[int] = []
    for page in sorted({1, (last + 1) // 2, last}):
        window = params.window(page, SAMPLE_ROWS)
        result = db.execute(c.name, "page", {k: v for k, v in window.items()
                                             if k in PARAMETERS["page"]})
        columns = list(result.columns)
        got = [tuple(row) for row in result.all()]
        rows.extend(got)
        positions.extend(range(window["first_row"], window["first_row"] + len(got)))
    return Sample(columns, rows, positions)


def _same(value: Any) -> Any:
    """A value as compared between reads: NaN equal to NaN."""
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


def _day(value: Any) -> dt.date | None:
    """The date a date field's value says, read leniently (the value check judges it)."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}(?:$|[ T])", value):
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def _clock(value: Any) -> dt.time | None:
    """The time of day a time field's value (or a date field's, after its date) says."""
    if isinstance(value, dt.datetime):
        return value.time()
    if isinstance(value, dt.time):
        return value
    if isinstance(value, str):
        m = re.search(r"(?:^|[ T])(\d{2}):(\d{2})(?::(\d{2}))?(\.\d*[1-9])?0*$", value)
        if m and int(m.group(1)) < 24 and int(m.group(2)) < 60 and int(m.group(3) or 0) < 60:
            return dt.time(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0),
                           1 if m.group(4) else 0)  # a fraction: somewhere in that second
    return None


def _span(day: Any, clock: Any) -> tuple[dt.datetime, dt.datetime] | None:
    """The range a request gives (whole seconds) from the record's own moment to it: its
    date and time (a NULL time: the time after its date, if the date field holds one, else
    midnight), to the next second where the time has a fraction; None without a moment."""
    d = _day(day)
    if d is None or (clock is not None and _clock(clock) is None):
        return None
    t = _clock(clock if clock is not None else day) or dt.time(0)
    start = dt.datetime.combine(d, t.replace(microsecond=0))
    return start, _moved(start, _SECOND) if t.microsecond else start


def _moved(stamp: dt.datetime, by: dt.timedelta) -> dt.datetime:
    """`stamp` moved by `by`, or left where it is at the end of the calendar."""
    try:
        return stamp + by
    except OverflowError:
        return stamp


def _key(values: dict[str, Any], text: bool = False) -> Any:
    """A record's id as sent (7 for the 7.0 of a float column; a text code, `text`, without
    its trailing blanks, quoted), else as it is."""
    if text:
        value = values.get("id")
        return repr(trimmed(value) if isinstance(value, str) else value)
    try:
        return Integer()._serialize(values.get("id"), None, None)
    except ValueError:
        return repr(values.get("id"))


def _bounds(start: dt.datetime, end: dt.datetime) -> dict[str, Any]:
    return {"start_date": start.date(), "start_time": start.time(), "end_date": end.date(),
            "end_time": end.time(), "midnight": params.MIDNIGHT}


class _Record:
    """One sampled record: its values by field, its key as a plant names it."""

    def __init__(self, c: Collection, columns: Sequence[str], row: tuple[Any, ...],
                 position: int):
        self.values = dict(zip(columns, row, strict=True))
        self.row = tuple(_same(self.values[f]) for f in c.fields)
        self.label = (f"numberrow {position}" if c.numbered
                      else f"id {_key(self.values, c.text_key)}")
        # How many identical rows `records` holds of it, as the range at its own moment
        # finds them (_Prover.ranges); 1 until then, and for a collection with a key.
        self.copies: int | None = None

    def count_in(self, c: Collection, columns: Sequence[str],
                 rows: Sequence[Sequence[Any]]) -> int:
        """How many of these rows are this record (every field the same)."""
        index = [list(columns).index(f) for f in c.fields]
        return sum(tuple(_same(r[i]) for i in index) == self.row for r in rows)


class _Prover:
    """The reads of one collection on one database, and the findings they make."""

    def __init__(self, db: Database, c: Collection, dialect: str | None):
        self.db, self.c, self.dialect = db, c, dialect
        self.findings: list[Finding] = []
        self.lines: dict[str, str] = {}  # field -> its line of records, read once
        # A keyless table read alone (no JOIN in records): identical records are rows the
        # table holds more than once (a batch controller sending a record twice), each one
        # a record every read must find; where records joins, a repeat may be the JOIN's.
        self.rows_repeat = c.numbered and not joins(
            db.queries.get(c.name, "records", dialect).sql)

    def rows(self, name: QueryName, values: dict[str, Any], filters: Sequence[Filter] = (),
             by: tuple[str, ...] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        result = self.db.execute(self.c.name, name, {
            k: v for k, v in values.items() if k in PARAMETERS[name.kind]}, filters, by)
        return list(result.columns), result.all()

    def judge(self, record: _Record, read: str, field: str, found: int, cause: str) -> bool:
        """Whether the read found the record as many times as `records` holds it (once, or
        each identical row of a keyless table: _Record.copies); else a Finding. `cause`
        explains a miss; a repeat is the records query's doing."""
        copies = record.copies or 1
        if found == copies:
            return True
        if found > copies and self.c.numbered and not self.rows_repeat:
            cause = (f"the records query gives this record {found} times: its JOIN matches "
                     f"more than one row (join on a column that is unique), or the table "
                     f"holds the row {found} times, which the proof cannot tell apart where "
                     f"records joins; see {self.source()}")
        elif found > copies:
            cause = (f"the records query gives this record {found} times (a JOIN that "
                     f"matches more than one row, or a row the table holds twice): join on a "
                     f"column that is unique, see {self.source()}")
        elif found:
            cause = (f"it finds {found} of the {copies} identical rows the table holds of "
                     f"it: {cause}")
        self.findings.append(Finding(self.c.name, read, field, record.label, found, cause,
                                     copies))
        return False

    def source(self) -> str:
        return self.db.queries.get(self.c.name, "records", self.dialect).source

    def line(self, field: str) -> str:
        if field not in self.lines:
            self.lines[field] = self.db.queries.field_line(self.c.name, field, self.dialect)
        return self.lines[field]

    def expression(self, field: str) -> str | None:
        """What `records` writes before AS "field" on its line, or None."""
        return written_as(self.line(field), field)

    def as_type(self, expression: str, kind: str) -> str:
        """The engine's text that makes a date or a time of an expression."""
        return (f"{kind}({expression})" if self.dialect == "sqlite"
                else f"CAST({expression} AS {kind})")

    def engine(self) -> str:
        return "on SQLite" if self.dialect == "sqlite" else "on this database"

    # -- the reads ---------------------------------------------------------------------

    def by_key(self, record: _Record) -> None:
        if self.c.numbered:  # its key is its position, which the sample read it at
            return
        key = _key(record.values) if not self.c.text_key else record.values.get("id")
        if self.c.text_key and isinstance(key, str):
            key = trimmed(key)  # a code as sent, and as a client asks for it
        elif not isinstance(key, int) or abs(key) > params.INT64_MAX:  # the value check's
            return
        columns, rows = self.rows(QueryName("by_key"), {"key": key})
        found = record.count_in(self.c, columns, rows)
        if found == 1 and len(rows) > 1:
            self.findings.append(Finding(
                self.c.name, f"the record by key (/{self.c.name}/<id>)", "id", record.label,
                len(rows),
                f"id {key} is held by {len(rows)} records, and /{self.c.name}/{key} answers "
                f"only the first: id comes from {self.line('id')}, which is not unique at "
                f"this site; map id to the table's key (a column that is unique)"))
            return
        stored = record.values.get("id")
        self.judge(record, f"the record by key (/{self.c.name}/<id>)", "id", found,
                   self.code_cause("id", stored) if isinstance(stored, str) and stored != key
                   else f"the key read compares id as this database holds it, not as the "
                        f"record shows it ({stored!r}): see {self.line('id')}")

    def ranges(self, record: _Record, on: str) -> bool | None:
        """The range at the record's own moment and the one across the midnight before it,
        counted and paged; whether the first found it (None: the record has no moment)."""
        day, clock = DATE_PAIRS[on]
        span = _span(record.values.get(day), record.values.get(clock))
        if span is None:
            return None
        moment, end = span
        cause = self.range_cause(record, on)
        columns, rows = self.rows(QueryName("range", on), _bounds(moment, end))
        count = record.count_in(self.c, columns, rows)
        if record.copies is None:  # the first range that can hold it: every copy of it
            record.copies = count if count > 1 and self.rows_repeat else 1
        found = self.judge(record, f"the range on={on} from its own moment to it", day,
                           count, cause)
        paged = self.last_page(on, _bounds(_moved(moment, -dt.timedelta(days=1)), end),
                               max(len(rows), 1))  # the records of its moment come last
        if paged is not None:
            self.judge(record, f"the range on={on} from a day before its moment to it "
                               f"(across the midnight before it), paged", day,
                       record.count_in(self.c, *paged), cause)
        self.feed(record, on, moment, len(rows), cause)
        return found

    def last_page(self, on: str, bounds: dict[str, Any], size: int
                  ) -> tuple[list[str], list[tuple[Any, ...]]] | None:
        """The last `size` records of the range, paged as a request pages it to them: read
        between two counts that agree, up to PAGE_TRIES times. A record written into the
        range between the count and the page (the plant's PCs stamp seconds behind the
        clock) moves the page; None when the range changed under every try (no judgement)."""
        count = QueryName("range_count", on)
        total = self.db.scalar(self.c.name, count, bounds)
        for _ in range(PAGE_TRIES):
            window = params.window(1, size) | {"first_row": max(total - size, 0) + 1,
                                               "last_row": max(total, 1),
                                               "skip": max(total - size, 0)}
            page = self.rows(QueryName("range_page", on), bounds | window)
            total, before = self.db.scalar(self.c.name, count, bounds), total
            if total == before:
                return page
        return None

    def feed(self, record: _Record, on: str, moment: dt.datetime, at: int, cause: str) -> None:
        """/<c>/changes from its stamp: the records of its moment come first (`at`, those
        the range at its moment found, and the record if that range missed it)."""
        columns, rows = self.rows(QueryName("changes", on), {
            "from_date": moment.date(), "from_time": moment.time(),
            "midnight": params.MIDNIGHT, "row_count": at + 1})
        self.judge(record, f"the feed (/{self.c.name}/changes?on={on}) from its stamp",
                   DATE_PAIRS[on][0], record.count_in(self.c, columns, rows), cause)

    def codes(self, record: _Record, on: str | None) -> dict[str, int]:
        """The `=` filter on each code field, inside the range at its moment (the whole list
        without dates): how many records each found."""
        day, clock = DATE_PAIRS[on] if on else ("", "")
        span = _span(record.values.get(day), record.values.get(clock)) if on else None
        found: dict[str, int] = {}
        for field in (f for f in CODES if f in self.c.fields):
            value = record.values.get(field)
            if value is None:
                continue
            kind = self.c.schema._declared_fields[field]
            try:
                sent = kind._serialize(value, None, None)
            except ValueError:
                continue
            filters = [Filter(field, "", (sent,))]
            cause = self.code_cause(field, value)
            try:
                columns, rows = (self.rows(QueryName("range", on), _bounds(*span), filters)
                                 if span else self.rows(QueryName("all"), {}, filters))
            except ValueError:  # a site's own read that takes no filters: none to prove
                continue
            except (QueryFailed, ValueRefused) as exc:  # a column that is not text, say
                columns, rows = list(self.c.fields), []
                cause = (f"this database refuses to compare {field} with its own value "
                         f"({getattr(exc, 'detail', None) or exc}): {field} comes from "
                         f"{self.line(field)}; write {field} as text there")
            within = f" in the range on={on} at its moment" if span else ""
            if self.judge(record, f"the filter {field}=<its {field}>{within}", field,
                          record.count_in(self.c, columns, rows), cause):
                found[field] = len(rows)
        return found

    def summary(self, record: _Record, on: str, code: str, count: int) -> None:
        """The summary by day and `code` over its moment, filtered by its code: its count
        must be the `count` records the filtered range found there, the record among them."""
        day, clock = DATE_PAIRS[on]
        span = _span(record.values.get(day), record.values.get(clock))
        assert span is not None and self.c.summary is not None
        sent = self.c.schema._declared_fields[code]._serialize(record.values[code], None, None)
        filters = [Filter(code, "", (sent,))]
        columns, rows = self.rows(QueryName("summary", on), _bounds(*span), filters,
                                  ("day", code))
        measure = MEASURES[self.c.summary].entries[0].name  # records, batches
        counted = sum(int(r[columns.index(measure)] or 0) for r in rows)
        days = {_same(r[columns.index("day")]) for r in rows}
        if counted != count or days != {_same(record.values[day])}:
            self.findings.append(Finding(
                self.c.name, f"the summary on={on} by=day,{code} at its moment, filtered "
                             f"by its {code},", day,
                record.label, counted,
                f"it counts {counted} records on {sorted(map(str, days)) or 'no day'} where "
                f"the range found {count}, this one among them on "
                f"{record.values[day]!r}: see {self.line(day)}"))

    # -- the likely causes -----------------------------------------------------------

    def range_cause(self, record: _Record, on: str) -> str:
        day, clock = DATE_PAIRS[on]
        date_value, time_value = record.values.get(day), record.values.get(clock)
        source = self.expression(day) or f'"{day}"'
        timed = (isinstance(date_value, str) and len(date_value) > 10) or (
            isinstance(date_value, dt.datetime)
            and (date_value.time() != dt.time(0) or self.dialect == "sqlite"))
        if timed:
            shown = (repr(date_value) if isinstance(date_value, str)
                     else f"{date_value.isoformat(' ')} (a date and time)")
            fix = f"write {self.as_type(source, 'date')} for {day}"
            if time_value is None or self.expression(clock) in (None, "NULL", source):
                fix += f" and {self.as_type(source, 'time')} for {clock}"
            return (f"{day} holds {shown}, a date with a time after it: "
                    f"{self.engine()} {fix}")
        if isinstance(time_value, str | dt.datetime):
            dated = isinstance(time_value, dt.datetime) or len(time_value) > 10
            short = isinstance(time_value, str) and len(time_value) == 5
            if dated or short:
                what = "a time with a date before it" if dated else "a time without seconds"
                return (f"{clock} holds {time_value!r}, {what}: {self.engine()} write "
                        f"{self.as_type(self.expression(clock) or clock, 'time')} for {clock}")
        if self.dialect == "sqlite" and isinstance(time_value, dt.time):
            return (f"{clock} is shown as {time_value.isoformat()}, which the SQLite ODBC "
                    f"driver made of the text the column holds (by its declared type), and "
                    f"the range compares that text: serve a SQLite file with `sqlite`, not "
                    f"through ODBC")
        return (f"the range compares {day} and {clock} as this database holds them, not as "
                f"the record shows them ({date_value!r}, {time_value!r}): see "
                f"{self.line(day)}; {self.line(clock)}")

    def code_cause(self, field: str, value: Any) -> str:
        source = self.expression(field) or f'"{field}"'
        if isinstance(value, str) and isinstance(self.c.schema._declared_fields[field], Integer):
            return (f"{field} holds {value!r}, a number kept as text, which `=` compares as "
                    f"text with the number a client sends: write CAST({source} AS int) for "
                    f"{field}")
        if isinstance(value, str) and value != value.strip():
            return (f"{field} holds {value!r}, with blanks around it, which `=` on this "
                    f"database does not compare as the record shows it: write "
                    f"RTRIM(LTRIM({source})) for {field}")
        return (f"the `=` filter compares {field} as this database holds it, not as the "
                f"record shows it ({value!r}): see {self.line(field)}")

    # -- one record ------------------------------------------------------------------

    def record(self, record: _Record) -> None:
        try:
            self.by_key(record)
            found = {on: self.ranges(record, on) for on in self.c.dates}
            on = next((o for o, f in found.items() if f), None)
            if self.c.dates and on is None:
                return  # no range found it: the filters cannot be judged within one
            counts = self.codes(record, on)
            code = next((f for f in CODES if f in counts), None)
            if self.c.summary and on and code:
                self.summary(record, on, code, counts[code])
        except (QueryFailed, DatabaseUnavailable) as exc:
            self.findings.append(Finding(self.c.name, "a read", "", record.label, 0,
                                         getattr(exc, "detail", None) or str(exc)))


def prove(db: Database, c: Collection, sampled: Sample | None = None,
          records: int = PROVEN) -> list[Finding]:
    """Every read of `c` asked for up to `records` records of the sample (read when not
    given): what a read does not find exactly once, with its likely cause."""
    sampled = sampled if sampled is not None else sample(db, c)
    prover = _Prover(db, c, db.dialect())
    for i in chosen(c, sampled, records):
        prover.record(_Record(c, sampled.columns, sampled.rows[i], sampled.positions[i]))
    return prover.findings


def confirmed(db: Database, c: Collection, sampled: Sample | None = None,
              records: int = PROVEN) -> list[Finding]:
    """prove(), keeping a finding only when its record reads the same in a sample read again
    and a second proof, on that sample, makes a finding about the same field: on a live
    table a writer may change or delete a record between the proof's reads (an exit
    weighing, a new update stamp, a voided ticket), and a right read then misses it. A read
    that failed is kept as it is."""
    sampled = sampled if sampled is not None else sample(db, c)
    findings = prove(db, c, sampled, records)
    if not any(f.field for f in findings):
        return findings
    again = sample(db, c)
    before, after = _records(c, sampled), _records(c, again)
    steady = {label for label, row in before.items() if after.get(label) == row}
    fields = {f.field for f in prove(db, c, again, records)}
    return [f for f in findings if not f.field or (f.record in steady and f.field in fields)]


def _records(c: Collection, sampled: Sample) -> dict[str, tuple[Any, ...]]:
    """Each sampled record's values, by its key as a finding names it."""
    return {r.label: r.row for r in (_Record(c, sampled.columns, row, position)
                                     for row, position in zip(sampled.rows, sampled.positions,
                                                              strict=True))}


def chosen(c: Collection, sampled: Sample, records: int = PROVEN) -> list[int]:
    """The indexes in the sample of the records the proof asks for: at most `records`,
    spread over it (the first and the last kept), each distinct record once."""
    seen: set[tuple[Any, ...]] = set()
    distinct: list[int] = []
    for i, row in enumerate(sampled.rows):
        values = tuple(_same(row[sampled.columns.index(f)]) for f in c.fields)
        if values not in seen:
            seen.add(values)
            distinct.append(i)
    if len(distinct) <= records:
        return distinct
    step = (len(distinct) - 1) / (records - 1)
    return [distinct[round(i * step)] for i in range(records)]


def lines(findings: Sequence[Finding]) -> list[str]:
    """The findings as check-sql prints them: one line per read and field, the records it
    missed or repeated (a few named, the rest counted), and the cause of the first."""
    groups: dict[tuple[str, str, bool], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.read, f.field, f.missed), []).append(f)
    out = []
    for (_, field, missed), group in groups.items():
        named = ", ".join(f.record for f in group[:3])
        more = f" and {len(group) - 3} more" if len(group) > 3 else ""
        verb = ("does not find" if missed else "finds more than once"
                if group[0].copies == 1 else "finds more often than the table holds")
        out.append(f"{field or 'proof'}: {group[0].read} {verb} {named}{more}: "
                   f"{group[0].cause}")
    return out
