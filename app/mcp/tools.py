"""The tools an AI assistant calls over MCP (app/mcp/protocol.py speaks the protocol): one table of
them, each a read of the same core the HTTP API uses (app/core/plan.py plans it, app/core/reads.py
runs it), with an input and an output schema written from the same tables that drive the
routes (the collections, the filter operators, the summary groups and measures, the
glossary). Every tool only reads.

A tool answers a dict (the structured content). Its records are the HTTP API's JSON records,
written by the same format; each answer stays within a row limit and a byte budget, and says
`truncated` (with a cursor where one can go on) when it holds less than was asked. Arguments
a tool cannot take raise `ToolRefused`, whose message says what to fix. This module imports
nothing from Flask.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..core import feed, leftout, report, summaries
from ..core.clock import plant_today
from ..core.filtering import (
    OPERATORS,
    Filter,
    accepted_filters,
    doc_groups,
    for_kind,
)
from ..core.plan import Planner
from ..core.question import NAMED_TWICE, Asked, Question, Sent, ask, read_filters
from ..core.reads import Read, RowEncoder, Runner
from ..core.unmapped import NotMapped
from ..formats.registry import FORMATS
from ..model import glossary, params
from ..model.collections import DATE_PAIRS, Collection
from ..ops.config import Settings

__all__ = ["BUDGET", "DEFAULT_LIMIT", "MAX_LIMIT", "Tool", "ToolRefused", "Tools",
           "make_tools"]

DEFAULT_LIMIT = 20  # records a read answers when the model names no limit
MAX_LIMIT = 500  # records a read answers at most
BUDGET = 60_000  # bytes of records (compact JSON) in one answer: about 15,000 tokens
_JSON = FORMATS["json"]
# How this face words what a filter's value lacks (app/core/question.py).
_ASKED = Asked("call", "{argument}: {op} takes true or false")
_MOMENT = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[T ]([0-9:]{5,8}))?", re.ASCII)


class ToolRefused(Exception):
    """A tool's arguments it cannot take: the message says what was wrong and what is
    accepted (an MCP tool error, never a protocol error)."""


@dataclass(frozen=True)
class Tool:
    """One MCP tool."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    call: Callable[[Mapping[str, Any]], dict[str, Any]]  # arguments -> structured content


def _object(properties: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """A JSON Schema object that takes only these properties."""
    out: dict[str, Any] = {"type": "object", "properties": dict(properties),
                           "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


_RECORDS = {"type": "array", "items": {"type": "object"},
            "description": "The records as the HTTP API's JSON sends them."}
_MOMENT_DOC = ("YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], plant local time; a date alone is the "
               "start of that day in `from`, its end (23:59:59) in `to`.")


def operator_name(suffix: str) -> str:
    """An operator as a tool's filters name it: `eq` for equality, else its suffix."""
    return suffix or "eq"


class Tools:
    """The tools of one app: its planners and runner, its settings and its guard (a
    collection not mapped yet, or not proven yet, is refused or proven first)."""

    def __init__(self, planners: Mapping[str, Planner], runner: Runner, settings: Settings,
                 guard: Callable[[str], None]):
        self.planners, self.runner, self.settings, self.guard = (
            planners, runner, settings, guard)
        self.kinds = {name: accepted_filters(p.collection.schema, p.collection.fields)
                      for name, p in planners.items()}

    # -- the arguments -------------------------------------------------------------------

    def planner(self, arguments: Mapping[str, Any]) -> Planner:
        name = arguments.get("collection")
        planner = self.planners.get(name) if isinstance(name, str) else None
        if planner is None:
            raise ToolRefused(f"collection: {str(name)[:40]!r} is not a collection here; "
                              f"it takes one of {', '.join(self.planners)} (describe lists "
                              f"them)")
        try:
            self.guard(planner.collection.name)
        except NotMapped as exc:
            raise ToolRefused(exc.message) from None
        return planner

    def filters(self, c: Collection, raw: Any) -> tuple[Filter, ...]:
        """The `filters` argument: [{field, op, value}], each value read as its field's
        type (the HTTP API's rules, app/core/question.py)."""
        return read_filters(self.kinds[c.name], self._sent(c, raw), _ASKED)

    def _sent(self, c: Collection, raw: Any) -> Iterator[Sent]:
        """Each filter's field and operator checked, in turn, as it is read."""
        kinds = self.kinds[c.name]
        for i, item in enumerate(raw or ()):
            where = f"filters[{i}]"
            field, op = item.get("field"), item.get("op", "eq")
            if field not in kinds:
                raise ToolRefused(f"{where}.field: {str(field)[:40]!r} is not a field of "
                                  f"{c.name} that filters; it takes {', '.join(kinds)}")
            taken = [operator_name(o.suffix) for o in for_kind(kinds[field])]
            if op not in taken:
                raise ToolRefused(f"{where}.op: {field} takes {', '.join(taken)}; got "
                                  f"{str(op)[:20]!r}")
            suffix = "" if op == "eq" else op
            value = item.get("value")
            values = value if OPERATORS[suffix].form.split else [value]
            if not isinstance(values, list) or not values:
                raise ToolRefused(f"{where}.value: {op} takes a list of values")
            yield field, suffix, values, f"{where}.value"

    @staticmethod
    def dates(arguments: Mapping[str, Any]) -> tuple[str, str, str, str]:
        """`from` and `to` as a range's dates and times (both inclusive; app/core/question.py
        reads them as bounds)."""
        texts = []
        for name, default in (("from", "00:00:00"), ("to", "23:59:59")):
            text = arguments.get(name)
            m = _MOMENT.fullmatch(text) if isinstance(text, str) else None
            if m is None:
                raise ToolRefused(f"{name} takes {_MOMENT_DOC} Got {str(text)[:40]!r}")
            texts += [params.date(m.group(1), name).isoformat(),
                      params.time(m.group(2) or default, name).isoformat()]
        return texts[0], texts[1], texts[2], texts[3]

    def fields(self, planner: Planner, raw: Any) -> list[str] | None:
        """`fields` checked as the HTTP API checks it (docs/api.md §5.9), in one pass over
        what was sent: a list of known fields, none named twice."""
        if raw is None:
            return None
        output = planner.encoder.output
        known = set(output)
        names = raw if isinstance(raw, list) else [raw]
        unknown = list(dict.fromkeys(f if isinstance(f, str) else json.dumps(f)[:40]
                                     for f in names if not isinstance(f, str) or f not in known))
        if not isinstance(raw, list) or not raw or unknown:
            shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more"
                                              if len(unknown) > 5 else "")
            raise ToolRefused(f"fields: name fields of {planner.collection.name}: "
                              f"{', '.join(output)}" + (f"; not {shown}" if unknown else ""))
        if len(set(raw)) != len(raw):
            raise ToolRefused(f"fields: {NAMED_TWICE}")
        return list(raw)

    # -- the reads -------------------------------------------------------------------------

    def records(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """read_records: a part of a collection or of a date range, with a cursor."""
        planner = self.planner(arguments)
        c = planner.collection
        fields = self.fields(planner, arguments.get("fields"))
        limit = _limit(arguments, DEFAULT_LIMIT, MAX_LIMIT)
        on = arguments.get("on") or (c.dates[0] if c.dates else None)
        ranged = "from" in arguments or "to" in arguments
        if ranged and on is None:
            raise ToolRefused(f"{c.name} has no dates: read it without from and to")
        asked = json.dumps([c.name, arguments.get("filters"), fields, ranged and on,
                            arguments.get("from"), arguments.get("to")], sort_keys=True,
                           default=str)
        skip = _skip(arguments.get("cursor"), asked, self.settings.feed.secrets)
        sent = self._sent(c, arguments.get("filters"))
        question = (Question("range", sent, fields, on, self.dates(arguments),
                             window=(skip, limit)) if ranged
                    else Question("page", sent, fields, window=(skip, limit)))
        read = ask(planner, self.kinds[c.name], question, _ASKED)
        rows = self.runner.run(read)
        records, truncated = _fitted(read, rows.values)
        total = rows.total or 0
        following = skip + len(records)
        return {"collection": c.name, "records": records, "count": len(records),
                "total": total, "truncated": truncated,
                "cursor": (_cursor(following, asked, self.settings.feed.secrets[0])
                           if following < total else None)}

    def record(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """get_record: one record by its key."""
        planner = self.planner(arguments)
        key = arguments.get("key")
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            raise ToolRefused(f"key: the record's {planner.key_name}, "
                              f"{'its code' if planner.collection.text_key else 'an integer'}")
        read = planner.one(str(key), self.fields(planner, arguments.get("fields")))
        rows = self.runner.run(read)
        return {"collection": planner.collection.name,
                "record": json.loads(_JSON.one(read.encoder, rows.values, read.fields,
                                               read.name))}

    def summary(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """summarize: the summary of a date range per group, with names beside codes."""
        planner = self.planner(arguments)
        c = planner.collection
        if not c.summary:
            raise ToolRefused(f"{c.name} has no summary; these have: "
                              + ", ".join(n for n, p in self.planners.items()
                                          if p.collection.summary))
        measures = arguments.get("measures")
        known = summaries.MEASURES[c.summary].names
        if measures is not None and (not measures or set(measures) - set(known)):
            raise ToolRefused(f"measures: name some of {', '.join(known)}")
        by = arguments.get("by")
        read = ask(planner, self.kinds[c.name], Question(
            "summary", self._sent(c, arguments.get("filters")),
            on=arguments.get("on") or c.dates[0], dates=self.dates(arguments),
            by=by.split(",") if isinstance(by, str) else by), _ASKED)
        left = leftout.of_read(self.runner, planner, read)
        rows = report.summary_rows(self.runner, read)
        groups, truncated = _fitted(read, rows.values)
        if measures is not None:
            dropped = set(known) - set(measures)
            groups = [{k: v for k, v in g.items() if k not in dropped} for g in groups]
        return {"collection": c.name, "by": list(read.by), "groups": groups,
                "count": len(groups), "truncated": truncated,
                "left_out": [_left_out(item, c, arguments, read.query.on or "")
                             for item in left]}

    def changes(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """changes: the bookmark feed."""
        planner = self.planner(arguments)
        c = planner.collection
        if not c.dates:
            raise ToolRefused(f"{c.name} has no dates, so no feed")
        on = arguments.get("on") or c.feed_on
        planner.check_on(on)
        filters = self.filters(c, arguments.get("filters"))
        fields = planner.shown(self.fields(planner, arguments.get("fields")))
        limit = _limit(arguments, DEFAULT_LIMIT, MAX_LIMIT)
        # Each record encoded once (kept by the identity of its values, held here), and the
        # answer fitted to the budget from that: one read of the database.
        parts: dict[int, tuple[tuple[Any, ...], bytes]] = {}
        fits: list[bool] = []  # whether the records first found all fit

        def encoded(values: list[tuple[Any, ...]]) -> list[bytes]:
            fresh = [v for v in values if id(v) not in parts]
            for v, part in zip(fresh, _encoded(planner.encoder, fields, c.name, fresh),
                               strict=True):
                parts[id(v)] = (v, part)
            return [parts[id(v)][1] for v in values]

        def fit(values: list[tuple[Any, ...]]) -> int:
            kept = _fit(encoded(values))
            fits.append(kept == len(values))
            return kept

        found = feed.read(self.runner, planner, self.settings.feed, on, limit,
                          arguments.get("after"), arguments.get("since"), filters, fit)
        sent = encoded(found.values)
        records = _parsed(sent[:_fit(sent)])
        truncated = not fits[0]
        return {"collection": c.name, "on": on, "records": records, "count": len(records),
                "bookmark": found.bookmark, "repeats": found.repeats, "truncated": truncated}

    def report(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """daily_report: the figures of /report/{date} (app/core/report.py)."""
        text = arguments.get("date")
        if text is not None and not isinstance(text, str):
            raise ToolRefused("date takes a date YYYY-MM-DD, or nothing for today")
        day = (plant_today(self.settings.site.timezone) if text is None
               else params.date(text, "date"))
        return report.daily(self.planners, self.runner, self.guard, day,
                            self.settings.site.name or None)


def _left_out(item: leftout.LeftOut, c: Collection, arguments: Mapping[str, Any],
              on: str) -> dict[str, Any]:
    """What a summary leaves out for one reason (docs/api.md §7), and the read_records call
    that lists them: the summary's filters as sent, the reason's in place of any of the
    same field and operator (None where the summary's filters say the opposite of the
    reason's: none is left out for it)."""
    own = [{"field": f.field, "op": operator_name(f.op), "value": f.values[0]}
           for f in item.filters]
    taken = {(f["field"], f["op"]) for f in own}
    kept = [f for f in arguments.get("filters") or ()
            if (f.get("field"), f.get("op", "eq")) not in taken]
    call: dict[str, Any] = {"collection": c.name, "filters": [*kept, *own]}
    if item.read == "range":
        call |= {"on": on, "from": arguments.get("from"), "to": arguments.get("to")}
    return {**item.said(), "list": {"tool": "read_records", "arguments": call}
            if item.listed else None}


def _limit(arguments: Mapping[str, Any], default: int, cap: int) -> int:
    limit = arguments.get("limit", default)
    if type(limit) is not int or not 1 <= limit <= cap:
        raise ToolRefused(f"limit takes an integer from 1 to {cap} (default {default}); "
                          f"got {json.dumps(limit)[:20]}")
    return limit


def _fitted(read: Read, values: list[tuple[Any, ...]]) -> tuple[list[Any], bool]:
    """The records of `read` as the HTTP API's JSON sends them, as many as fit the byte
    budget (at least one), and whether some were left out."""
    return _fitted_as(read.encoder, read.fields, read.name, values)


def _fitted_as(encoder: RowEncoder, fields: Sequence[str] | None, name: str,
               values: list[tuple[Any, ...]]) -> tuple[list[Any], bool]:
    """_fitted, for records that no Read of their own describes (the feed's)."""
    parts = _encoded(encoder, fields, name, values)
    kept = _fit(parts)
    return _parsed(parts[:kept]), kept < len(parts)


def _encoded(encoder: RowEncoder, fields: Sequence[str] | None, name: str,
             values: Sequence[tuple[Any, ...]]) -> list[bytes]:
    """Each record as the JSON format writes it (app/formats): encoded once, here."""
    writer = _JSON.writer(encoder, fields, name)
    return [writer.part([v], True) for v in values]


def _fit(parts: Sequence[bytes]) -> int:
    """How many of these encoded records fit the byte budget (at least one), counted in
    characters of compact JSON: the array's brackets, each record and its comma."""
    size = 2
    for i, part in enumerate(parts):
        size += (len(part) if part.isascii() else len(part.decode())) + 1
        if size > BUDGET and i:
            return i
    return len(parts)


def _parsed(parts: Sequence[bytes]) -> list[Any]:
    """The encoded records as the structured content holds them: parsed once."""
    return orjson.loads(b"[" + b",".join(parts) + b"]")


def _digest(skip: int, asked: str, secret: bytes) -> str:
    """The MAC of a cursor (HMAC-SHA-256 under a bookmark secret, as the feed's bookmarks):
    only the service makes a cursor, for one read and one place in it."""
    data = f"{skip}\n{asked}".encode()
    return hmac.new(secret, b"jembatan-cursor\0" + data, hashlib.sha256).hexdigest()[:24]


def _cursor(skip: int, asked: str, secret: bytes) -> str:
    """Where the next call goes on, and of which read (a cursor of another is refused)."""
    data = json.dumps({"skip": skip, "read": _digest(skip, asked, secret)},
                      separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def _skip(cursor: Any, asked: str, secrets: Sequence[bytes]) -> int:
    if cursor is None:
        return 0
    wrong = ("cursor: not a cursor of this read; pass the cursor of the last answer with "
             "the same collection, filters, fields and range, or none to start again")
    try:
        text = str(cursor)
        if len(text) > 200:
            raise ToolRefused(wrong)
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        skip, given = data["skip"], data["read"]
        if type(skip) is not int or not 0 <= skip < 2**62 or not isinstance(given, str) or \
                not any(hmac.compare_digest(_digest(skip, asked, s), given) for s in secrets):
            raise ToolRefused(wrong)
        return skip
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise ToolRefused(wrong) from None


def _described(tools: Tools, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """describe: every collection (or the one named: key, order, date pairs, summary groups
    and measures), and once per record shape its fields with their type, meaning and the
    filter operators they take."""
    collections, records = [], {}
    named = arguments.get("collection")
    chosen = tools.planners if named is None else {
        named: tools.planner(arguments)}  # a collection that is not there: refused
    for name, planner in chosen.items():
        c = planner.collection
        shape = c.schema.__name__
        entry: dict[str, Any] = {"name": name, "record": shape,
                                 "description": c.schema.Meta.description, "key": c.key,
                                 "order": list(c.order),
                                 "date_pairs": {on: list(DATE_PAIRS[on]) for on in planner.dates}}
        if c.summary and planner.allowed is None:  # a key's fields: no summaries
            entry["summary"] = {
                "by": [*summaries.named_groups(c), "a text or integer field"],
                "names_beside": {g: n.name for g, n in c.namings.items()},
                "measures": list(summaries.MEASURES[c.summary].names)}
        collections.append(entry)
        if shape not in records:
            meanings, kinds = glossary.fields(shape), tools.kinds[name]
            records[shape] = [{"name": f, "type": meanings[f]["type"],
                               "meaning": meanings[f]["meaning"],
                               **({"filters": kinds[f]} if f in kinds else {})}
                              for f in planner.allowed or planner.encoder.output]
    operators = {kind: [operator_name(o.suffix) for o in for_kind(kind)]
                 for kind in sorted({k for ks in tools.kinds.values() for k in ks.values()})}
    return {"collections": collections, "records": records, "operators": operators}


def _operators_doc() -> str:
    """The operators as the tools name them, from the table (app/database/filters.py):
    `eq (equals), ..., in (one of, a list), isnull (true or false)`."""
    parts = []
    for group in doc_groups():
        form = group[0].form
        what = [group[0].doc] if group[0].doc else []
        what += ["a list"] if form.split else ["true or false"] if form.boolean else []
        parts.append(", ".join(operator_name(op.suffix) for op in group)
                     + (f" ({', '.join(what)})" if what else ""))
    return ", ".join(parts)


def _schemas(tools: Tools) -> dict[str, dict[str, Any]]:
    """The arguments the tools share, as JSON Schema."""
    pairs = sorted({on for p in tools.planners.values() for on in p.collection.dates})
    return {
        "collection": {"type": "string", "enum": list(tools.planners),
                       "description": "A collection (describe lists them)."},
        "filters": {"type": "array", "maxItems": 50, "description": (
            f"Conditions on stored fields, all ANDed; op is {_operators_doc()}. Values in "
            f"the field's type: dates YYYY-MM-DD, times HH:MM[:SS]; a condition (cancelled) "
            f"true, false or \"all\" (summarize leaves cancelled records out without it)."),
            "items": _object({"field": {"type": "string"},
                              "op": {"type": "string", "enum": [
                                  operator_name(s) for s in OPERATORS]},
                              "value": {"type": ["string", "number", "boolean", "array"]}},
                             ["field", "value"])},
        "on": {"type": "string", "enum": pairs, "description": (
            "The date pair a range reads (describe: date_pairs); default the collection's "
            "first.")},
        "from": {"type": "string", "description": f"The range's start. {_MOMENT_DOC}"},
        "to": {"type": "string", "description": f"The range's end. {_MOMENT_DOC}"},
        # No more than the widest record has: a longer list names one twice (refused before
        # its items are read).
        "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                   "maxItems": max(len(p.encoder.output) for p in tools.planners.values()),
                   "uniqueItems": True, "description": "Only these fields, in this order."},
    }


# name -> (title, description): what tools/list tells the model of each tool.
_TOOLS = {
    "describe": (
        "Describe the plant's data",
        "What Jembatan serves: each collection with its key, canonical order, the date pairs "
        "ranges read on, and the groups and measures of its summaries; each record shape's "
        "fields with their type, unit and meaning, and the filter operators each field "
        "takes. Call it first (all of it is about 36 kB; name a collection for less)."),
    "read_records": (
        "Read records",
        f"Records of a collection in canonical order, or those whose date and time on a date "
        f"pair lie between from and to (both inclusive, ordered by that date and time), "
        f"filtered, at most `limit` (default {DEFAULT_LIMIT}, at most {MAX_LIMIT}) and about "
        f"{BUDGET // 1000} kB; `total` counts them all, and `cursor`, passed back with the "
        f"same arguments, reads the next ones. For totals use summarize, not many reads."),
    "get_record": (
        "Get one record",
        "One record by its key: the integer id (of a master keyed by a text code: that code), "
        "or in a collection whose key is numberrow, its 1-based position in the canonical "
        "order."),
    "summarize": (
        "Summarize a date range",
        "Plant figures computed by the database over the records between from and to, per "
        "group of `by` (day by default; also month, hour, direction of a weighing: in or "
        "out, or text and integer fields; up to 4), each code of master data with its name "
        "beside it. The measures, by the collection's record shape (describe says which): "
        + "; ".join(f"{m.shape}: {m.doc}" for m in summaries.MEASURES.values())
        + ". `measures` keeps only some. `left_out` says what the figures leave out and why "
        "(cancelled, no date on the `on` pair, a weight missing), with the read_records "
        "call that lists them."),
    "changes": (
        "Read what changed",
        "Records new or changed since a bookmark (the last answer's `bookmark`; without it "
        "from the oldest, or from `since` YYYY-MM-DDTHH:MM:SS), in stamp order, each once. "
        "Keep the bookmark and pass it as `after` next time."),
    "daily_report": (
        "The daily report",
        "The figures of one day's report (the page /report/{date}): per weighbridge the "
        "totals (weighings, open ones, and apart for in and out the net and the net after "
        "deduction, kg; in and out are never added) and per direction its materials and "
        "parties by net, with their net after deduction; per batching plant its batches "
        "and sv/pv per material; each with `left_out`, what its figures leave out and why "
        "(cancelled, no main date, a weight missing). The date is plant local; default "
        "today."),
}


def _inputs(s: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each tool's inputSchema, from the shared argument schemas `s` (_schemas)."""
    limit = {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}
    words = {"type": "array", "items": {"type": "string"}, "minItems": 1}
    return {
        "describe": _object({"collection": s["collection"] | {
            "description": "Only this collection (and its record's fields)."}}),
        "read_records": _object(
            {k: s[k] for k in ("collection", "filters", "on", "from", "to", "fields")}
            | {"limit": limit, "cursor": {"type": "string"}}, ["collection"]),
        "get_record": _object({"collection": s["collection"],
                               "key": {"type": ["integer", "string"]}, "fields": s["fields"]},
                              ["collection", "key"]),
        "summarize": _object(
            {k: s[k] for k in ("collection", "on", "from", "to", "filters")}
            | {"by": words | {"maxItems": summaries.MAX_GROUPS}, "measures": words},
            ["collection", "from", "to"]),
        "changes": _object({k: s[k] for k in ("collection", "on", "filters", "fields")}
                           | {"after": {"type": "string"}, "since": {"type": "string"},
                              "limit": limit}, ["collection"]),
        "daily_report": _object({"date": {"type": "string", "format": "date"}}),
    }


# What a summary leaves out (app/core/leftout.py): one object per reason.
_LEFT_OUT = {"type": "array", "items": {"type": "object"}, "description": (
    "What the figures leave out, one object per reason: `reason` (voided: cancelled "
    "tickets; no_main_date: records whose `on` date is NULL, in no range; not_weighed_out "
    "and not_weighed_in: records of the range missing a weight, counted in `records` but "
    "in no net figure), `records` (how many), `left_out_of` (the figures) and `list`: the "
    "read_records call that lists them.")}


def _outputs() -> dict[str, dict[str, Any]]:
    """Each tool's outputSchema."""
    objects = {"type": "array", "items": {"type": "object"}}
    integer, text = {"type": "integer"}, {"type": "string"}
    part = {"truncated": {"type": "boolean", "description": (
        "Some records were left out to keep the answer small: go on with the cursor, or "
        "narrow the read.")}}
    return {
        "describe": _object({"collections": objects, "records": {
            "type": "object", "description": (
                "Each record shape's fields: name, type and unit, meaning, and the kind of "
                "filter it takes (see operators); none where it takes none.")},
            "operators": {"type": "object"}}, ["collections", "records", "operators"]),
        "read_records": _object({"collection": text, "records": _RECORDS, "count": integer,
                                 "total": integer, **part,
                                 "cursor": {"type": ["string", "null"]}},
                                ["collection", "records", "count", "total", "truncated",
                                 "cursor"]),
        "get_record": _object({"collection": text, "record": {"type": "object"}},
                              ["collection", "record"]),
        "summarize": _object({"collection": text, "by": {"type": "array", "items": text},
                              "groups": objects, "count": integer, **part,
                              "left_out": _LEFT_OUT},
                             ["collection", "by", "groups", "count", "truncated",
                              "left_out"]),
        "changes": _object({"collection": text, "on": text, "records": _RECORDS,
                            "count": integer, "bookmark": text, "repeats": integer, **part},
                           ["collection", "on", "records", "count", "bookmark", "repeats",
                            "truncated"]),
        "daily_report": _object({"date": text, "site": {"type": ["string", "null"]},
                                 "weighbridges": objects, "batching": objects,
                                 "unmapped": {"type": "array", "items": text}},
                                ["date", "weighbridges", "batching", "unmapped"]),
    }


def make_tools(tools: Tools) -> tuple[Tool, ...]:
    """The table of tools of one app."""
    inputs, outputs = _inputs(_schemas(tools)), _outputs()
    calls = {"describe": functools.partial(_described, tools),
             "read_records": tools.records, "get_record": tools.record,
             "summarize": tools.summary, "changes": tools.changes,
             "daily_report": tools.report}
    return tuple(Tool(name, title, description, inputs[name], outputs[name], calls[name])
                 for name, (title, description) in _TOOLS.items())
