"""Planning a read from plain values, the same for every face.

The HTTP views (app/http/views.py) and the MCP tools (app/mcp/tools.py) ask a collection's
`Planner` for what a client asked: all records, a part of them, one record by key, a date
range, a summary or the feed's read. It checks what it is given (`Invalid`, `Absent`:
app/model/problems.py) and answers a `Read` (app/core/reads.py), which the runner runs. Filters are
data here (app/database/filters.py `Filter`); the SQL layer composes them. Nothing here knows HTTP.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..database.filters import Filter
from ..formats.encoding import RecordEncoder
from ..formats.headings import Headings
from ..model import params
from ..model.collections import CANCELLED, DATE_PAIRS, Collection, QueryName
from ..model.problems import Absent, Invalid
from ..ops.config import ApiKey
from . import summaries
from .reads import Read, Window

__all__ = ["CLOCK", "Planner"]

# The column of sql/shapes.sql's changes that holds the server's local clock, which the feed
# compares the stamps with when [site] timezone is not set (app/core/clock.py).
CLOCK = "feed_now"


class Planner:
    """Plans the reads of one collection (one per collection, built with the app)."""

    def __init__(self, collection: Collection, headings: Headings | None = None):
        """`headings`: what its workbooks head their columns with and leave out (the site's
        labels and the fields it maps to NULL); a summary's leave out none."""
        self.collection = collection
        self.key_name = "numberrow" if collection.numbered else "ID"
        headings = headings or Headings()
        self.encoder = RecordEncoder(collection.schema, headings)
        self.groupable = tuple(summaries.groupable(collection)) if collection.summary else ()
        # A summary's encoder, made once per `by` asked (a handful in practice).
        self.summary_encoder: Callable[[tuple[str, ...]], summaries.SummaryEncoder] = (
            functools.lru_cache(maxsize=64)(
                functools.partial(summaries.SummaryEncoder, collection,
                                  headings=Headings(headings.labels))))
        # A key's row condition (docs/api.md §10), added to every read this planner plans;
        # none on the app's own planners, which read everything.
        self.scope: tuple[Filter, ...] = ()
        # A key's fields: the only ones its records send, filter on and group by (None: all).
        self.allowed: tuple[str, ...] | None = None
        # The `on` pairs it may read: the collection's, less those a key's fields hide.
        self.dates: tuple[str, ...] = collection.dates
        self.scoped: dict[str, Planner] = {}  # by key name: this planner within that key
        self.scoped_to = ""  # the name of the key this planner is scoped to ("": none)

    def within(self, key: ApiKey | None) -> Planner:
        """This planner as `key` may use it: every read it plans holds the key's row
        condition as filters (one value: equality; several: IN), bound like any filter's,
        and sends only the key's fields. Made once per key; no key, or one without a
        condition or fields: this planner itself."""
        if key is None or not (key.where or key.fields):
            return self
        found = self.scoped.get(key.name)
        if found is None:
            found = copy.copy(self)  # the same encoders and caches
            found.scope = tuple(Filter(name, "" if len(values) == 1 else "in", values)
                                for name, values in key.where)
            found.allowed = (None if key.fields is None else
                             tuple(f for f in self.encoder.output
                                   if f in key.fields or f == "numberrow"))
            found.dates = tuple(on for on in self.dates if found.reads(*DATE_PAIRS[on]))
            found.scoped, found.scoped_to = {}, key.name
            self.scoped[key.name] = found
        return found

    def shown(self, fields: Sequence[str] | None) -> Sequence[str] | None:
        """The fields a read sends: those asked (None: every one), within the key's."""
        if self.allowed is None:
            return fields
        if fields is None:
            return list(self.allowed)
        self.refuse_outside(fields, "fields")
        return fields

    def reads(self, *names: str) -> bool:
        """Whether the key may read every one of these fields (no key's fields: all)."""
        return self.allowed is None or all(f in self.allowed for f in names)

    def refuse_outside(self, names: Sequence[str], argument: str) -> None:
        """Fields outside the key's (auth.keys.<name>.fields) are not its to read."""
        outside = [f for f in names if self.allowed is not None and f not in self.allowed]
        if outside:
            raise Invalid(f"this key reads only {', '.join(self.allowed or ())} of "
                          f"{self.collection.name}, not {', '.join(outside)}", argument)

    def _read(self, query: QueryName, **read: Any) -> Read:
        return Read(self.collection.name, query, read.pop("encoder", self.encoder), **read)

    def as_run(self, filters: Sequence[Filter], leave_out: bool = False
               ) -> tuple[Filter, ...]:
        """The filters a read runs: the client's (`asked`), then the key's row condition."""
        return self.asked(filters, leave_out) + self.scope

    def asked(self, filters: Sequence[Filter], leave_out: bool = False
              ) -> tuple[Filter, ...]:
        """The client's filters as run (docs/api.md §6.3): `cancelled=all` dropped, and with
        `leave_out` (summaries, workbooks), where no filter names cancelled, cancelled=false
        added; unchanged on a collection without the field."""
        self.refuse_outside([f.field for f in filters if f not in self.scope], "filters")
        if not self.collection.cancellable:
            return tuple(filters)
        # A key that may not read cancelled reads the voided records in every format: to
        # leave them out of one would tell them apart (docs/keys.md §3).
        leave_out = leave_out and self.reads(CANCELLED)
        named = any(f.field == CANCELLED for f in filters)
        kept = tuple(f for f in filters if f.field != CANCELLED or f.values != (None,))
        return kept + ((Filter(CANCELLED, "", (False,)),) if leave_out and not named else ())

    def all(self, filters: Sequence[Filter] = (), fields: Sequence[str] | None = None,
            leave_out: bool = False) -> Read:
        """Every record in canonical order (numbered when the client names no filter: a
        key's records are numbered as the whole table is for a key without a condition);
        `leave_out`: the cancelled ones left out unless a filter names them (a workbook)."""
        asked = self.asked(filters, leave_out)
        return self._read(QueryName("all"), filters=asked + self.scope,
                          fields=self.shown(fields), numbered=not asked)

    def part(self, skip: int, size: int, filters: Sequence[Filter] = (),
             fields: Sequence[str] | None = None, leave_out: bool = False) -> Read:
        """`size` records after the first `skip` in canonical order, counted."""
        asked = self.asked(filters, leave_out)
        return self._read(QueryName("page"), filters=asked + self.scope,
                          fields=self.shown(fields), numbered=not asked,
                          window=Window(skip, size, QueryName("count")))

    def one(self, key: str, fields: Sequence[str] | None = None) -> Read:
        """One record: by its integer ID (a master keyed by a text code: by that code), or
        where the collection has no usable key by its 1-based position (numberrow) in the
        canonical order."""
        c = self.collection
        absent = f"no {c.name} record with {self.key_name} {key}"
        fields = self.shown(fields)
        if c.numbered:  # the n-th record of the canonical order: a part of one
            n = params.integer(key, "numberrow", minimum=1)
            return self._read(QueryName("page"), fields=fields, absent=absent, numbered=True,
                              filters=self.scope, window=Window(n - 1, 1))
        k = params.text_key(key, "ID") if c.text_key else params.integer(key, "ID")
        if not c.text_key and abs(k) > params.INT64_MAX:  # no stored ID is that large
            raise Absent(absent)
        if self.scope:  # the record only where the key's condition holds: else a 404
            return self._read(QueryName("all"), filters=(Filter(c.key, "", (k,)), *self.scope),
                              fields=fields, absent=absent)
        # A legacy table may repeat an ID: the first record is the answer.
        return self._read(QueryName("by_key"), values={"key": k}, fields=fields,
                          absent=absent)

    def range(self, on: str, bounds: Mapping[str, Any], filters: Sequence[Filter] = (),
              fields: Sequence[str] | None = None,
              part: tuple[int, int] | None = None, leave_out: bool = False) -> Read:
        """The records between `bounds` (params.date_range) on the `on` pair, all of them
        or the `part` (skip, size) of them, counted."""
        self.check_on(on)
        filters, fields = self.as_run(filters, leave_out), self.shown(fields)
        if part is None:
            return self._read(QueryName("range", on), values=bounds, filters=filters,
                              fields=fields)
        return self._read(QueryName("range_page", on), values=bounds,
                          filters=filters, fields=fields,
                          window=Window(*part, QueryName("range_count", on)))

    def summary(self, on: str, bounds: Mapping[str, Any], by: Sequence[str] | None = None,
                filters: Sequence[Filter] = ()) -> Read:
        """The summary of the records a range would read, per group of `by` (day by
        default), cancelled ones left out unless a filter names them."""
        if self.allowed is not None:  # its figures are made of fields the key may not read
            raise Invalid(f"the key {self.scoped_to} reads only some fields of "
                          f"{self.collection.name} (auth.keys.{self.scoped_to}.fields), and a "
                          f"summary's figures are made of others: read its records instead")
        self.check_on(on)
        groups = summaries.read_by(self.collection, by, self.groupable)
        return self._read(QueryName("summary", on), encoder=self.summary_encoder(groups),
                          values=bounds, filters=self.as_run(filters, True), by=groups)

    def changes(self, on: str, values: Mapping[str, Any], filters: Sequence[Filter] = (),
                fields: Sequence[str] | None = None) -> Read:
        """The feed's read (app/core/feed.py): whole, with the server's clock beside it."""
        self.check_on(on)
        return self._read(QueryName("changes", on), values=values,
                          # the feed passes its filters as run (app/core/feed.py, whose
                          # bookmark digests them): the key's condition once, not twice
                          filters=tuple(dict.fromkeys(self.as_run(filters))), fields=fields,
                          whole=True, also=(CLOCK,))

    def changes_within(self, on: str, values: Mapping[str, Any],
                       filters: Sequence[Filter] = (), kind: str = "changes_within") -> Read:
        """The feed's walk of one crowded second by key (app/core/feed.py), as `changes`;
        `changes_walked`: its read once a second is walked, which leaves out what the walk
        sent."""
        self.check_on(on)
        return self._read(QueryName(kind, on), values=values,
                          filters=tuple(dict.fromkeys(self.as_run(filters))),
                          whole=True, also=(CLOCK,))

    def check_on(self, on: str) -> None:
        """`on` must be one of the collection's date pairs, and under a key's fields one
        whose date and time the key reads: a hidden pair is refused as an unknown one is."""
        if on in self.dates:
            return
        accepted = ", ".join(self.dates) or (
            "nothing: it has no dates" if self.allowed is None or not self.collection.dates
            else "nothing: this key reads none of its dates")
        if self.allowed is None:
            raise Invalid(f"{self.collection.name} has no date pair {on!r}; on takes "
                          f"{accepted}", "on")
        raise Invalid(f"{self.collection.name} has no date pair {on!r} that this key reads "
                      f"(auth.keys.{self.scoped_to}.fields); on takes {accepted}", "on")
