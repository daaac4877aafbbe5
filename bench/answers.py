"""The refactor check: records the HTTP answers and compares them.

Not a benchmark: nothing here is timed but the run itself. It asks the app a broad, fixed set
of questions and keeps what it answered, so that a refactor of the read core can be shown to
leave every answer byte-identical:

    PYTHONPATH=. python bench/answers.py record OUT_DIR    # before the refactor
    PYTHONPATH=. python bench/answers.py compare OUT_DIR   # after: exit 0, or 1 and the list

It runs on whatever code is importable (`from app import create_app`), so the same script
records before and compares after. `record` builds the demo database (app/commands/demo.py, seed
2026, its default size: transactions 3,000 and weighing 2,500 records, so that lists and ranges are
both read whole (under 2,000 records) and streamed (over)) in a temporary directory, creates
the app under each of SETTINGS (overrides of the TOML's shape), saves its /openapi.json and
sends the requests of `plan()` through Flask's test client (GET, HEAD, OPTIONS, POST), each
setting's answers into OUT_DIR/<setting>.json and its document into
OUT_DIR/<setting>.openapi.json, and the commit of the code into OUT_DIR/COMMIT. `compare`
records again into a temporary directory and reports every difference.

The requests are made from the app's own tables (app/model/collections.py COLLECTIONS,
app/formats/registry.py FORMATS, app/database/filters.py OPERATORS), its OpenAPI document (the
filter parameters and their types, the `fields` and `by` enums, the feed's default `on` and `limit`)
and values read from the demo database itself with sqlite3. An answer that refers to an
earlier one (a feed's `after=` the X-Bookmark of an earlier answer, If-None-Match its ETag) is
keyed by its URL template, `{bookmark:LABEL}`, `{etag:LABEL}`, not by the token it sent.

Per answer: method, URL, request headers, status, the response headers less DROPPED ones
(they change on every run; Allow with its methods sorted, as they come in a set's order), a
blake2b digest and the length of the body, its first 300 bytes.
Volatile answers are compared on status and their other headers only, and listed as such:

- a feed answer (/<c>/changes) that read up to the database clock: its bookmark then holds
  that clock (settle_seconds behind now), so X-Bookmark and Link differ from run to run (its
  body does not: every demo stamp is in the past); a feed whose stamps reach today or the
  future (vehicles' `expired`) also has a volatile body, since what has "settled" moves with
  the clock. A feed answer cut short by `limit` ends at its last record's stamp: pinned, and
  compared in full (so are the `since=` starts, chosen inside the demo's dates);
- /report without a date, a redirect to today's report.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import difflib
import hashlib
import io
import json
import logging
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from app import create_app
from app.commands.demo import build_demo_database
from app.database.filters import OPERATORS
from app.formats.registry import FORMATS
from app.model.collections import COLLECTIONS, DATE_PAIRS, Collection

SEED = 2026  # the demo database's seed (its default size: a few thousand records per table)
HEAD_BYTES = 300
DROPPED = ("Date", "X-Request-ID", "Expires")  # new on every request
# Recorded with their comma-separated values sorted: werkzeug writes Allow in the order of a
# set, which changes with Python's hash seed from run to run.
SORTED = ("Allow",)
VOLATILE = "(volatile)"  # a volatile header's value as recorded
KEYS = ["key-one-0123456789", "key-two-0123456789"]
BOOKMARK_SECRET = "answers-bookmark-secret-0123456789"
SUBSET = ["transactions", "timbangan1", "vehicles", "products"]
SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "prefix": {"api": {"url_prefix": "/api"}},
    "keys": {"auth": {"api_keys": KEYS}},
    "subset": {"collections": {"serve": SUBSET}},
    "all": {"api": {"url_prefix": "/api"}, "auth": {"api_keys": KEYS},
            "collections": {"serve": SUBSET}},
}
_REF = re.compile(r"\{(bookmark|etag):([^}]+?)(:cut)?\}")
Headers = tuple[tuple[str, str], ...]


# -- what is asked ------------------------------------------------------------------------

@dataclass(frozen=True)
class Req:
    """One request: `path` is relative to api.url_prefix and may hold `{bookmark:LABEL}` (the
    X-Bookmark of the answer labelled LABEL, `:cut` less its last 3 characters) and headers
    `{etag:LABEL}`."""

    path: str
    method: str = "GET"
    headers: Headers = ()
    label: str = ""
    volatile: str = ""  # known to vary with the date: why (its body and Location vary)
    keyless: bool = False  # sent without the setting's API key
    bare: bool = False  # not under api.url_prefix


def _sorted(value: str) -> str:
    return ", ".join(sorted(v.strip() for v in value.split(",")))


def url(path: str, *args: tuple[str, str]) -> str:
    """`path?k=v&...`, the values quoted (a `{...}` reference left as it is)."""
    if not args:
        return path
    return path + "?" + "&".join(f"{quote(k, safe='_')}={quote(v, safe=',:{}*')}"
                                 for k, v in args)


@dataclass
class Facts:
    """What the requests are made from: the app's document and the demo database."""

    counts: dict[str, int]
    filters: dict[str, list[tuple[str, str]]]  # collection -> (field, kind) in record order
    fields: dict[str, list[str]]  # collection -> its fields as sent
    groups: dict[str, list[str]]  # collection -> the `by` values of its summary
    feed_on: dict[str, str]  # collection -> the feed's default `on`
    feed_limit: int
    days: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    ahead: dict[tuple[str, str], bool] = field(default_factory=dict)  # stamps near or past now
    values: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # low, mid, high
    distinct: dict[tuple[str, str], int] = field(default_factory=dict)  # how many values

    def pick(self, c: str, kind: str) -> str | None:
        """The first filterable field of this kind with three values or more to filter by
        (else with one or more)."""
        chosen = [f for f, k in self.filters[c] if k == kind and (c, f) in self.values]
        return next((f for f in chosen if self.distinct[c, f] >= 3), next(iter(chosen), None))


def _kind(schema: dict[str, Any]) -> str:
    """A filter parameter's kind (app/database/filters.py KINDS) from its schema in the document."""
    if schema.get("type") in ("integer", "number"):
        return str(schema["type"])
    if schema.get("format") == "date":
        return "date"
    return "time" if ":" in schema.get("pattern", "") else "string"


def _parameter(op: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in op["parameters"] if p["name"] == name)


def facts(document: dict[str, Any], db: Path) -> Facts:
    """The facts of the default setting's document and the demo database."""
    paths = document["paths"]
    f = Facts({}, {}, {}, {}, {}, feed_limit=0)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    for c in COLLECTIONS:
        f.counts[c.name] = con.execute(f'SELECT count(*) FROM "{c.name}"').fetchone()[0]
        listing = paths[f"/{c.name}"]
        f.filters[c.name] = [(p["name"], _kind(p["schema"])) for p in listing["parameters"]]
        f.fields[c.name] = _parameter(listing["get"], "fields")["schema"]["items"]["enum"]
        if c.summary:
            summary = paths[f"/{c.name}/summary/{{tglawal}}/{{jam_awal}}/{{tglakhir}}/"
                            f"{{jam_akhir}}"]["get"]
            f.groups[c.name] = _parameter(summary, "by")["schema"]["items"]["enum"]
        if c.dates:
            changes = paths[f"/{c.name}/changes"]["get"]
            f.feed_on[c.name] = _parameter(changes, "on")["schema"]["default"]
            f.feed_limit = _parameter(changes, "limit")["schema"]["default"]
        for name, _ in f.filters[c.name]:
            found = [r[0] for r in con.execute(
                f'SELECT DISTINCT "{name}" FROM "{c.name}" WHERE "{name}" IS NOT NULL '
                f'ORDER BY 1')]
            if found:
                n = len(found)
                f.values[c.name, name] = [_text(found[i]) for i in (n // 4, n // 2, 3 * n // 4)]
                f.distinct[c.name, name] = n
        _dates(f, con, c)
    con.close()
    return f


def _text(value: Any) -> str:
    return value[:8] if isinstance(value, str) and re.fullmatch(r"\d\d:\d\d:\d\d\..*", value) \
        else str(value)


def _dates(f: Facts, con: sqlite3.Connection, c: Collection) -> None:
    """Per `on`: the first, a middle and the last date, and whether stamps reach today."""
    soon = (dt.datetime.now() - dt.timedelta(days=2)).isoformat(" ")
    for on in c.dates:
        day, clock = DATE_PAIRS[on]
        rows = [r[0] for r in con.execute(
            f'SELECT "{day}" FROM "{c.name}" WHERE "{day}" IS NOT NULL ORDER BY 1')]
        f.days[c.name, on] = (rows[0], rows[len(rows) // 2], rows[-1])
        latest = con.execute(f'SELECT max("{day}" || \' \' || coalesce("{clock}", '
                             f'\'00:00:00\')) FROM "{c.name}"').fetchone()[0]
        f.ahead[c.name, on] = latest >= soon


# -- the plan: the requests of each setting -----------------------------------------------

def lists(c: Collection) -> list[Req]:
    """Every format, by ?format= and by Accept, and HEAD."""
    p = f"/{c.name}"
    out = [Req(p), Req(p, "HEAD"), Req(p, "OPTIONS"), Req(url(p, ("_", "1234")))]
    for f in FORMATS.values():  # Accept asks for a negotiated format only (csv-sheet: by name)
        out += [Req(url(p, ("format", f.name)))] + (
            [Req(p, headers=(("Accept", f.media_type),))] if f.negotiated else [])
    out += [Req(url(p, ("format", "json")), headers=(("Accept", "text/csv"),)),
            Req(p, headers=(("Accept", "text/csv;q=0.5, application/json"),)),
            Req(p, headers=(("Accept", "text/html"),)), Req(p, headers=(("Accept", "*/*"),))]
    return out


def pages(c: Collection, facts: Facts) -> list[Req]:
    p, n = f"/{c.name}/page", facts.counts[c.name]
    out = [Req(f"{p}/1", label=f"{c.name}:page1"), Req(f"{p}/1", "HEAD"),
           Req(url(f"{p}/2", ("page_size", "7"))), Req(url(f"{p}/3", ("page_size", "1000"))),
           Req(url(f"{p}/{(n + 49) // 50}", ("page_size", "50"))),
           Req(url(f"{p}/{(n + 49) // 50 + 1}", ("page_size", "50"))), Req(f"{p}/999999"),
           Req(url(f"{p}/2", ("page_size", "5"), ("format", "csv"))),
           Req(url(f"{p}/2", ("page_size", "5"), ("format", "xlsx"))),
           Req(url(f"{p}/1", ("page_size", "3")), headers=(("Accept", "text/csv"),))]
    for bad in ("0", "-1", "abc", "99999999999999999999999"):
        out.append(Req(f"{p}/{bad}"))
    for size in ("0", "1001", "x", ""):
        out.append(Req(url(f"{p}/1", ("page_size", size))))
    return out


def keys(c: Collection, facts: Facts) -> list[Req]:
    """Records by key: present, absent, malformed; numberrow for the numbered ones."""
    p, n = f"/{c.name}", facts.counts[c.name]
    present = ["1", "2", str(n // 2), str(n)]
    absent = [str(n + 1), "999999"] if c.numbered else ["0", "-1", "999999"]
    out = [Req(f"{p}/{k}", label=f"{c.name}:key{k}" if k == "2" else "")
           for k in present + absent]
    if c.numbered:
        out.append(Req(f"{p}/0"))
    out += [Req(f"{p}/abc"), Req(f"{p}/1.5"), Req(f"{p}/99999999999999999999"),
            Req(f"{p}/2", "HEAD")]
    out += [Req(url(f"{p}/2", ("format", f.name))) for f in FORMATS.values() if f.name != "json"]
    return out


def _range(c: str, kind: str, first: str, last: str, start: str = "00:00",
           end: str = "23:59:59") -> str:
    return f"/{c}/{kind}/{first}/{start}/{last}/{end}"


def ranges(c: Collection, facts: Facts) -> list[Req]:
    """Each `on`: a small range, all of it (streamed past 2,000 records), paged."""
    out: list[Req] = []
    for on in c.dates:
        first, mid, last = facts.days[c.name, on]
        small, whole = _range(c.name, "date", mid, mid), _range(c.name, "date", first, last)
        out += [Req(url(small, ("on", on))),
                Req(url(small, ("on", on), ("page", "1")), label=f"{c.name}:small:{on}"),
                Req(url(whole, ("on", on))),
                Req(url(whole, ("on", on), ("page", "2"), ("page_size", "50"))),
                Req(url(_range(c.name, "date", mid, last, "06:30", "18:00"), ("on", on)))]
    first, mid, last = facts.days[c.name, c.dates[0]]
    small, whole = _range(c.name, "date", mid, mid), _range(c.name, "date", first, last)
    out += [Req(small), Req(small, "HEAD"), Req(whole, "HEAD"),
            Req(url(whole, ("page_size", "25"))), Req(url(whole, ("page", "3"))),
            Req(url(whole, ("page", "999"), ("page_size", "50"))),
            Req(url(small, ("format", "csv"))), Req(url(small, ("format", "xlsx"))),
            Req(url(whole, ("format", "csv"))), Req(small, headers=(("Accept", "text/csv"),)),
            Req(url(small, ("fields", ",".join(facts.fields[c.name][:3])))),
            Req(_range(c.name, "date", last, first)),  # the bounds the wrong way round
            Req(_range(c.name, "date", mid, mid, "12:00", "12:00")),
            Req(_range(c.name, "date", "2026-02-30", mid)),
            Req(_range(c.name, "date", "20261101", mid)),
            Req(_range(c.name, "date", mid, mid, "25:00")),
            Req(_range(c.name, "date", mid, mid, "7:30")),
            Req(_range(c.name, "date", mid, mid, "07:30:60")),
            Req(url(small, ("on", "nosuch"))), Req(url(small, ("page", "0"))),
            Req(url(small, ("page_size", "1001"))),
            Req(url(small, ("page", "1"), ("page", "2")))]
    return out


def summaries(c: Collection, facts: Facts) -> list[Req]:
    """`by` time groups, fields, direction, codes with names; each `on`; the formats."""
    groups = facts.groups[c.name]
    first, mid, last = facts.days[c.name, c.dates[0]]
    whole = _range(c.name, "summary", first, last)
    fields = [g for g in groups if g not in ("day", "month", "hour", "direction")]
    named = [g for g in ("productcode", "custcode", "transcode", "TransCode") if g in groups]
    bys = ["day", "month", "hour", *[g for g in ("direction",) if g in groups],
           fields[1], *named, ",".join(named[:2]), ",".join(["month", *named[:1], "hour"]),
           ",".join(groups[:4])]
    out = [Req(whole), Req(_range(c.name, "summary", mid, mid))]
    out += [Req(url(whole, ("by", by))) for by in dict.fromkeys(bys)]
    out += [Req(url(whole, ("on", on), ("by", "month"))) for on in c.dates]
    out += [Req(url(whole, ("by", "month"), ("format", f.name))) for f in FORMATS.values()]
    out += [Req(url(whole, ("by", named[0] if named else fields[0])),
                headers=(("Accept", "text/csv"),)),
            Req(url(whole, ("by", "day"), ("by", "month"))),
            Req(url(whole, ("by", ",".join(groups[:5])))), Req(url(whole, ("by", "nosuch"))),
            Req(url(whole, ("by", "day,day"))), Req(url(whole, ("by", ""))),
            Req(url(whole, ("fields", "day"))), Req(whole, "HEAD")]
    return out


def feeds(c: Collection, facts: Facts) -> list[Req]:
    """/changes: a first call, the bookmark followed, `since`, filters, each `on`, errors."""
    p, n = f"/{c.name}/changes", c.name
    on = facts.feed_on[n]
    since = f"{facts.days[n, on][1]}T12:00:00"
    other = next((o for o in c.dates if o != on), None)
    field_ = facts.pick(n, "string") or facts.filters[n][0][0]
    value = facts.values[n, field_][1]
    out = [Req(url(p, ("limit", "5")), label=f"{n}:f1"),
           Req(url(p, ("limit", "5"), ("after", f"{{bookmark:{n}:f1}}")), label=f"{n}:f2"),
           Req(url(p, ("limit", "5"), ("after", f"{{bookmark:{n}:f2}}"))),
           Req(url(p, ("limit", "5")), "HEAD"),
           Req(p, label=f"{n}:fall"), Req(url(p, ("after", f"{{bookmark:{n}:fall}}"))),
           Req(url(p, ("since", since), ("limit", "5")), label=f"{n}:fsince"),
           Req(url(p, ("limit", "5"), ("after", f"{{bookmark:{n}:fsince}}"))),
           Req(url(p, ("since", "2999-01-01T00:00:00"))),
           Req(url(p, ("since", "1700-01-01T00:00:00"), ("limit", "2"))),
           Req(url(p, (field_, value), ("limit", "4")), label=f"{n}:ffilter"),
           Req(url(p, (field_, value), ("limit", "4"), ("after", f"{{bookmark:{n}:ffilter}}"))),
           Req(url(p, ("limit", "3"), ("format", "csv"))),
           Req(url(p, ("limit", "3"), ("format", "xlsx"))),
           Req(url(p, ("limit", "3")), headers=(("Accept", "text/csv"),)),
           Req(url(p, ("limit", "3"), ("fields", ",".join(facts.fields[n][:2])))),
           Req(url(p, ("after", "not-a-bookmark"))), Req(url(p, ("after", "bad token!"))),
           Req(url(p, ("after", f"{{bookmark:{n}:f1:cut}}"))),
           Req(url(p, ("after", f"{{bookmark:{n}:f1}}"), ("since", since))),
           Req(url(p, (field_, value), ("after", f"{{bookmark:{n}:f1}}"))),
           Req(url(p, ("since", since[:10]))), Req(url(p, ("since", "2026-02-30T00:00:00"))),
           Req(url(p, ("limit", "0"))), Req(url(p, ("limit", "10001"))),
           Req(url(p, ("limit", "2"), ("limit", "3"))), Req(url(p, ("page", "1")))]
    out += [Req(url(p, ("on", o), ("limit", "3"))) for o in c.dates]
    if other:
        out.append(Req(url(p, ("on", other), ("after", f"{{bookmark:{n}:f1}}"))))
    if n != "transactions":  # a bookmark of another collection's feed
        out.append(Req(url(p, ("after", "{bookmark:transactions:f1}"))))
    return out


def filters(c: Collection, facts: Facts) -> list[Req]:
    """Every operator on a field of each kind it takes, and the 400s of bad values."""
    p, n = f"/{c.name}", c.name
    out: list[Req] = []
    chosen = {kind: f for kind in ("integer", "number", "date", "time", "string")
              if (f := facts.pick(n, kind))}
    for kind, f in chosen.items():
        low, mid, high = facts.values[n, f]
        for op in OPERATORS.values():
            if kind not in op.kinds:
                continue
            name = f"{f}__{op.suffix}" if op.suffix else f
            if op.form.boolean:
                out += [Req(url(p, (name, "true"))), Req(url(p, (name, "FALSE")))]
            elif op.form.split:
                out += [Req(url(p, (name, f"{low},{high}"))),
                        Req(url(p, (name, low), (name, high)))]
            else:
                out.append(Req(url(p, (name, mid))))
        for op in OPERATORS.values():  # an operator this kind does not take
            if kind not in op.kinds:
                out.append(Req(url(p, (f"{f}__{op.suffix}", mid))))
    bad = {"integer": "4x", "number": "1,5", "date": "2026-13-01", "time": "24:00",
           "string": "a\x00b"}
    out += [Req(url(p, (f, bad[kind]))) for kind, f in chosen.items()]
    first = next(iter(chosen.values()))
    out += [Req(url(p, (f"{first}__like", "x"))), Req(url(p, (f"{first}__isnull", "maybe"))),
            Req(url(p, (first, "1"), (first, "2"))), Req(url(p, ("nosuchfield", "1")))]
    if len(chosen) > 1:  # two filters together, and the filters on every other read kind
        f1, f2 = list(chosen.values())[:2]
        both = ((f1, facts.values[n, f1][1]), (f"{f2}__isnull", "false"))
        out += [Req(url(p, *both)), Req(url(f"{p}/page/1", *both, ("page_size", "10"))),
                Req(url(p, *both, ("format", "csv")))]
        if c.dates:
            first_, _, last = facts.days[n, c.dates[0]]
            out += [Req(url(_range(n, "date", first_, last), *both)),
                    Req(url(_range(n, "date", first_, last), *both, ("page_size", "10")))]
        if c.summary:
            out.append(Req(url(_range(n, "summary", *facts.days[n, c.dates[0]][::2]),
                               *both, ("by", "month"))))
    return out


def representations(c: Collection, facts: Facts) -> list[Req]:
    """fields=, and conditional requests with the ETags of earlier answers."""
    p, n, names = f"/{c.name}", c.name, facts.fields[c.name]
    two, three = ",".join(names[:2]), ",".join(reversed(names[:3]))
    out = [Req(url(p, ("fields", two))), Req(url(p, ("fields", three), ("format", "csv"))),
           Req(url(p, ("fields", three), ("format", "xlsx"))),
           Req(url(p, ("fields", names[0]), ("fields", names[-1]))),
           Req(url(f"{p}/page/1", ("fields", names[-1]), ("page_size", "4"))),
           Req(url(f"{p}/2", ("fields", two))), Req(url(p, ("fields", ""))),
           Req(url(p, ("fields", "nosuch"))), Req(url(p, ("fields", f"{names[0]},{names[0]}"))),
           Req(url(f"{p}/2", ("fields", "nosuch")))]
    for label, path in ((f"{n}:page1", f"{p}/page/1"), (f"{n}:key2", f"{p}/2")):
        out += [Req(path, headers=(("If-None-Match", f"{{etag:{label}}}"),)),
                Req(path, "HEAD", headers=(("If-None-Match", f"{{etag:{label}}}"),))]
    out += [Req(f"{p}/page/1", headers=(("If-None-Match", '"nope"'),)),
            Req(f"{p}/page/1", headers=(("If-None-Match", "*"),)),
            Req(f"{p}/page/1", headers=(("If-Modified-Since", "Thu, 01 Jan 2026 00:00:00 GMT"),)),
            Req(p, headers=(("If-None-Match", f"{{etag:{n}:page1}}"),))]
    if c.dates:
        label = f"{n}:small:{c.dates[0]}"
        small = _range(n, "date", facts.days[n, c.dates[0]][1], facts.days[n, c.dates[0]][1])
        out += [Req(url(small, ("on", c.dates[0])),
                    headers=(("If-None-Match", f"{{etag:{label}}}"),)),
                Req(url(small, ("on", c.dates[0]), ("page", "1")),
                    headers=(("If-None-Match", f"{{etag:{label}}}"),))]
    return out


def service() -> list[Req]:
    """The routes that are not a collection's, and the requests no route takes."""
    return [Req("/"), Req("/", "HEAD"), Req("/health"), Req("/health", "HEAD"),
            Req("/openapi.json"), Req("/docs"), Req("/docs/"), Req("/favicon.ico"),
            Req("/dashboard"), Req("/report/2026-11-01"), Req("/report/2026-02-30"),
            Req("/report/yesterday"),
            Req("/report", volatile="a redirect to today's report"),
            Req("/?x=1"), Req("/health?x=1"), Req("/openapi.json?x=1"), Req("/dashboard?x=1"),
            Req("/nosuch"), Req("/nosuch/1"), Req("/transactions/"), Req("//transactions"),
            Req("/transactions/page/"), Req("/transactions/date/2026-11-01"),
            Req("/transactions", "POST"), Req("/transactions/1", "PUT"),
            Req("/transactions/1", "DELETE"), Req("/health", "POST"), Req("/", "OPTIONS")]


def full(c: Collection, facts: Facts) -> list[Req]:
    out = lists(c) + pages(c, facts) + keys(c, facts) + filters(c, facts)
    if c.dates:
        out += ranges(c, facts) + feeds(c, facts)
    if c.summary:
        out += summaries(c, facts)
    return out + representations(c, facts)


def sample(c: Collection, facts: Facts) -> list[Req]:
    """A few of each read kind, for the settings beside the default."""
    p, n = f"/{c.name}", c.name
    out = [Req(p), Req(url(p, ("format", "csv"))), Req(f"{p}/page/1", label=f"{n}:page1"),
           Req(url(f"{p}/page/2", ("page_size", "5"))), Req(f"{p}/2", label=f"{n}:key2"),
           Req(f"{p}/999999"), Req(f"{p}/2", headers=(("If-None-Match", f"{{etag:{n}:key2}}"),))]
    f = facts.pick(n, "string")
    if f:
        out.append(Req(url(p, (f, facts.values[n, f][1]))))
    if c.dates:
        first, mid, last = facts.days[n, c.dates[0]]
        out += [Req(_range(n, "date", mid, mid)),
                Req(url(_range(n, "date", first, last), ("page", "2"), ("page_size", "20"))),
                Req(url(f"{p}/changes", ("limit", "3")), label=f"{n}:f1"),
                Req(url(f"{p}/changes", ("limit", "3"), ("after", f"{{bookmark:{n}:f1}}")))]
    if c.summary:
        by = next(g for g in ("productcode", "TransCode", "month") if g in facts.groups[n])
        out.append(Req(url(_range(n, "summary", *facts.days[n, c.dates[0]][::2]), ("by", by))))
    return out


def plan(setting: str, facts: Facts) -> list[Req]:
    """The requests of one setting: everything under the default, a sample under the others
    with what each setting changes (the prefix, the keys, the collections served)."""
    overrides = SETTINGS[setting]
    serve = overrides.get("collections", {}).get("serve") or [c.name for c in COLLECTIONS]
    served = [c for c in COLLECTIONS if c.name in serve]
    out = service()
    for c in served:
        out += full(c, facts) if setting == "default" else sample(c, facts)
    if len(served) < len(COLLECTIONS):
        out += [Req(f"/{c.name}{tail}") for c in COLLECTIONS if c.name not in serve
                for tail in ("", "/1", "/page/1", "/changes")]
    if overrides.get("api", {}).get("url_prefix"):
        out += [Req(path, bare=True) for path in ("/", "/health", "/openapi.json",
                                                  "/transactions", "/dashboard", "/api")]
    if overrides.get("auth", {}).get("api_keys"):
        out += auth()
    return out


def auth() -> list[Req]:
    """Without a key, with a wrong one, both ways of sending one, and the open routes."""
    out = [Req(path, keyless=True) for path in (
        "/", "/transactions", "/transactions/1", "/transactions/page/1", "/transactions/changes",
        "/health", "/openapi.json", "/docs", "/dashboard", "/report/2026-11-01", "/nosuch")]
    out += [Req("/transactions/1", "HEAD", keyless=True),
            Req("/transactions", "POST", keyless=True)]
    for headers in ((("X-API-Key", "wrong"),), (("Authorization", "Bearer wrong"),),
                    (("Authorization", f"Bearer {KEYS[1]}"),),
                    (("Authorization", f"bearer  {KEYS[0]} "),),
                    (("Authorization", f"Basic {KEYS[0]}"),), (("X-API-Key", ""),),
                    (("X-API-Key", KEYS[1]),)):
        out.append(Req("/transactions/1", headers=headers, keyless=True))
    return out


# -- asking and recording ------------------------------------------------------------------

class Recorder:
    """Sends one setting's requests and records the answers."""

    def __init__(self, setting: str, database: Path, facts: Facts) -> None:
        overrides = SETTINGS[setting]
        self.facts, self.setting = facts, setting
        self.prefix = overrides.get("api", {}).get("url_prefix", "")
        keyed = overrides.get("auth", {}).get("api_keys")
        self.key: Headers = (("X-API-Key", keyed[0]),) if keyed else ()
        # One fixed bookmark secret: a random one (kept in a temporary proof_dir) would sign
        # every bookmark differently from run to run.
        app = create_app({**overrides, "database": {"sqlite": str(database)},
                          "feed": {"bookmark_secrets": [BOOKMARK_SECRET]}})
        self.client = app.test_client()
        self.answers: dict[str, dict[str, str]] = {}  # label -> its answer's headers

    def send(self, method: str, target: str, headers: Headers) -> tuple[int, Headers, bytes]:
        response = self.client.open(target, method=method, headers=list(headers))
        try:
            body = response.get_data()
            return response.status_code, tuple(response.headers.items()), body
        finally:
            response.close()

    def resolve(self, text: str) -> str:
        def one(m: re.Match[str]) -> str:
            headers = self.answers.get(m.group(2), {})
            value = headers.get("X-Bookmark" if m.group(1) == "bookmark" else "ETag",
                                "MISSING")
            return value[:-3] if m.group(3) else value
        return _REF.sub(one, text)

    def ask(self, req: Req) -> dict[str, Any]:
        template = req.path if req.bare else self.prefix + req.path
        headers = req.headers if req.keyless else self.key + req.headers
        target = self.resolve(template)
        sent = tuple((k, self.resolve(v)) for k, v in headers)
        status, got, body = self.send(req.method, target, sent)
        answer: dict[str, Any] = {"method": req.method, "url": template,
                                  "request_headers": [list(h) for h in headers]}
        if target != template or sent != headers:
            answer["sent"] = {"url": target, "headers": [list(h) for h in sent]}
        kept = [[k, _sorted(v) if k in SORTED else v] for k, v in got if k not in DROPPED]
        volatile = self.volatile(req, target, status, dict(got), body)
        if volatile:
            kept = [[k, VOLATILE if k in volatile["headers"] else v] for k, v in kept]
        answer |= {"status": status, "headers": kept,
                   "body_blake2b": hashlib.blake2b(body).hexdigest(), "body_length": len(body),
                   "body_head": body[:HEAD_BYTES].decode("utf-8", "backslashreplace")}
        if volatile:
            answer["volatile"] = volatile
        if req.label:
            self.answers[req.label] = dict(got)
        return answer

    def volatile(self, req: Req, target: str, status: int, headers: dict[str, str],
                 body: bytes) -> dict[str, Any] | None:
        """Which parts of this answer vary with the clock, and why; None: none."""
        if req.volatile:
            return {"why": req.volatile, "headers": ["Location"], "body": True}
        if "Last-Modified" in headers:  # a file served (favicon, docs): its checkout's date
            return {"why": "a file's modification time, the checkout's",
                    "headers": ["Last-Modified", "ETag"], "body": False}
        if status != 200 or "X-Bookmark" not in headers:
            return None
        parts = urlsplit(target)
        collection = parts.path.removeprefix(self.prefix).split("/")[1]
        args = dict(parse_qsl(parts.query, keep_blank_values=True))
        on = args.get("on", self.facts.feed_on[collection])
        if self.facts.ahead[collection, on]:
            return {"why": f"the feed's stamps ({on}) reach the present: what has settled "
                           f"moves with the clock", "headers": ["X-Bookmark", "Link"],
                    "body": True}
        limit = int(args.get("limit", self.facts.feed_limit))
        new = self.records(req, target, headers, body) - int(
            headers.get("X-Bookmark-Repeats", 0))
        if new < limit:
            return {"why": "the feed read up to the database clock: its bookmark holds it",
                    "headers": ["X-Bookmark", "Link"], "body": False}
        return None

    def records(self, req: Req, target: str, headers: dict[str, str], body: bytes) -> int:
        """How many records a feed answer sent (asked again as JSON when it is not)."""
        kind = headers.get("Content-Type", "")
        if req.method == "GET" and kind.startswith("application/json"):
            return len(json.loads(body))
        if req.method == "GET" and kind.startswith("text/csv"):
            return len(list(csv.reader(io.StringIO(body.decode(), newline="")))) - 1
        parts = urlsplit(target)
        args = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                if k != "format"]
        sent = tuple(h for h in (self.key if not req.keyless else ()) + req.headers
                     if h[0] != "Accept")
        _, _, again = self.send("GET", url(parts.path, *args, ("format", "json")),
                                tuple((k, self.resolve(v)) for k, v in sent))
        return len(json.loads(again))


def record(out: Path, quiet: bool = False) -> dict[str, dict[str, Any]]:
    """Record every setting's answers into `out`; returns them by setting."""
    out.mkdir(parents=True, exist_ok=True)
    recorded: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="jembatan-answers-") as tmp:
        database = Path(tmp) / "demo.sqlite3"
        build_demo_database(database, seed=SEED)
        here = Path.cwd()
        os.chdir(tmp)  # no config.toml of the working directory
        try:
            document = _document(database)
            known = facts(document, database)
            for setting in SETTINGS:
                recorded[setting] = _record_setting(setting, database, known, out)
                if not quiet:
                    print(f"  {setting}: {len(recorded[setting]['answers'])} answers",
                          file=sys.stderr)
        finally:
            os.chdir(here)
    (out / "COMMIT").write_text(commit() + "\n")
    return recorded


def _document(database: Path) -> dict[str, Any]:
    client = create_app({"database": {"sqlite": str(database)}}).test_client()
    return json.loads(client.get("/openapi.json").get_data())


def _record_setting(setting: str, database: Path, known: Facts, out: Path) -> dict[str, Any]:
    recorder = Recorder(setting, database, known)
    _, _, document = recorder.send("GET", recorder.prefix + "/openapi.json", recorder.key)
    (out / f"{setting}.openapi.json").write_bytes(document)
    answers = [recorder.ask(req) for req in plan(setting, known)]
    data = {"setting": setting, "overrides": SETTINGS[setting],
            "openapi": {"file": f"{setting}.openapi.json",
                        "blake2b": hashlib.blake2b(document).hexdigest()},
            "answers": answers}
    (out / f"{setting}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return data


def commit() -> str:
    """The commit of the code imported as `app`, marked when app/ or sql/ has changes."""
    root = Path(sys.modules["app"].__file__ or ".").resolve().parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                              text=True, check=False).stdout.strip()
    head = git("rev-parse", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "app", "sql")
    return head + (" (with uncommitted changes in app/ or sql/)" if dirty else "")


# -- comparing -----------------------------------------------------------------------------

def keyed(answers: Iterable[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Answers by request (method, URL template, headers, and which repeat of it)."""
    seen: Counter[tuple[Any, ...]] = Counter()
    out = {}
    for a in answers:
        key = (a["method"], a["url"], json.dumps(a["request_headers"]))
        seen[key] += 1
        out[(*key, seen[key])] = a
    return out


def differences(old: dict[str, Any], new: dict[str, Any]) -> Iterator[str]:
    """What differs between two answers to the same request."""
    if old["status"] != new["status"]:
        yield f"status {old['status']} -> {new['status']}"
    if old.get("volatile") != new.get("volatile"):
        yield f"volatile {old.get('volatile')} -> {new.get('volatile')}"
    if old["headers"] != new["headers"]:
        a, b = dict(map(tuple, old["headers"])), dict(map(tuple, new["headers"]))
        for name in dict.fromkeys([*a, *b]):
            if a.get(name) != b.get(name):
                yield f"header {name}: {a.get(name)!r} -> {b.get(name)!r}"
        if a == b:
            yield "headers in another order or repeated otherwise"
    if old["body_blake2b"] != new["body_blake2b"] and not (old.get("volatile") or {}).get(
            "body"):
        yield f"body {old['body_length']} -> {new['body_length']} bytes" + _first_change(
            old["body_head"], new["body_head"])


def _first_change(a: str, b: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    if at is None:
        return f" (the first {min(len(a), len(b))} characters alike)"
    return f", from character {at}: {a[at:at + 60]!r} -> {b[at:at + 60]!r}"


def compare(baseline: Path) -> int:
    """Record again and report every difference from `baseline`; the exit status."""
    found: list[str] = []
    notes: list[str] = []
    identical = 0
    with tempfile.TemporaryDirectory(prefix="jembatan-answers-now-") as tmp:
        now = record(Path(tmp), quiet=True)
        stored = [p.name.removesuffix(".json") for p in sorted(baseline.glob("*.json"))
                  if not p.name.endswith(".openapi.json")]
        for setting in dict.fromkeys([*SETTINGS, *stored]):
            if setting not in now or setting not in stored:
                found.append(f"{setting}: a setting recorded only "
                             f"{'now' if setting in now else 'in the baseline'}")
                continue
            old = json.loads((baseline / f"{setting}.json").read_text())
            found += _compare_documents(setting, baseline / old["openapi"]["file"],
                                        Path(tmp) / f"{setting}.openapi.json")
            same, volatile = _compare_answers(setting, old["answers"],
                                              now[setting]["answers"], found)
            identical += same
            notes += volatile
    print(f"baseline {baseline}: {_read_commit(baseline)}; this run: {commit()}")
    if notes:
        print(f"{len(notes)} volatile answers, compared on status and their other headers:")
        print("\n".join(notes))
    if found:
        print("\n".join(found))
        print(f"{len(found)} differences; {identical} answers identical")
        return 1
    print(f"{identical} answers identical, openapi.json the same document under {len(now)} "
          f"settings")
    return 0


def _compare_documents(setting: str, before: Path, after: Path) -> list[str]:
    """The document's difference, its first changed lines."""
    a, b = before.read_bytes(), after.read_bytes()
    if a == b:
        return []
    if json.loads(a) == json.loads(b):  # the same document, an object's keys reordered
        print(f"{setting}: GET /openapi.json: the same document, its keys in another order "
              f"(not counted as a difference)")
        return []
    diff = list(difflib.unified_diff(a.decode().splitlines(), b.decode().splitlines(),
                                     "before", "now", n=0, lineterm=""))
    shown = "\n".join("    " + line for line in diff[2:14])
    return [f"{setting}: GET /openapi.json differs ({len(a)} -> {len(b)} bytes):\n{shown}"]


def _compare_answers(setting: str, before: list[dict[str, Any]], after: list[dict[str, Any]],
                     found: list[str]) -> tuple[int, list[str]]:
    """Append the differences to `found`; the number of identical answers and a line for
    each volatile one."""
    a, b = keyed(before), keyed(after)
    identical, notes = 0, []
    for key in dict.fromkeys([*a, *b]):
        method, template, headers, repeat = key
        where = (f"{setting}: {method} {template}" + (f" {headers}" if headers != "[]" else "")
                 + (f" (#{repeat})" if repeat > 1 else ""))
        if key not in a or key not in b:
            found.append(f"{where}: asked only {'now' if key not in a else 'in the baseline'}")
            continue
        changes = list(differences(a[key], b[key]))
        found += [f"{where}: {c}" for c in changes]
        identical += not changes
        volatile = b[key].get("volatile")
        if volatile:
            skipped = (["body"] if volatile["body"] else []) + volatile["headers"]
            notes.append(f"  {where}: {volatile['why']} ({', '.join(skipped)} not compared)")
    return identical, notes


def _read_commit(baseline: Path) -> str:
    path = baseline / "COMMIT"
    return path.read_text().strip() if path.is_file() else "an unknown commit"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("record", "record the answers into OUT_DIR"),
                       ("compare", "record again and compare with OUT_DIR")):
        commands.add_parser(name, help=text).add_argument("out_dir", type=Path,
                                                          metavar="OUT_DIR")
    args = parser.parse_args(argv)
    for name in [k for k in os.environ if k.startswith("JEMBATAN_")]:
        del os.environ[name]  # the settings are SETTINGS' alone
    logging.getLogger("jembatan").setLevel(logging.ERROR)  # no access lines; errors shown
    started = time.perf_counter()
    args.out_dir = args.out_dir.resolve()  # record works in a temporary directory
    if args.command == "record":
        recorded = record(args.out_dir)
        total = sum(len(r["answers"]) for r in recorded.values())
        marked = sum(1 for r in recorded.values() for a in r["answers"] if "volatile" in a)
        print(f"recorded {total} answers ({marked} volatile) under {len(recorded)} settings "
              f"into {args.out_dir} in {time.perf_counter() - started:.1f} s")
        return 0
    status = compare(args.out_dir)
    print(f"compared in {time.perf_counter() - started:.1f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
