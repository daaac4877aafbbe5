"""What a figure leaves out, and why (docs/api.md §7, "What a summary leaves out").

A summary (hence the dashboard, the daily report and the MCP tools) and a workbook of
records leave some records out of their figures: the cancelled tickets (voided, unless a
filter names `cancelled`), the records whose main date (the range's `on` date) is NULL,
which belong to no day and so to no range, and in the weighing shape the records still
missing a weight, counted in `records` but in none of the net figures. Each reason is
counted here with the same count query a page or a range of the API answers in its
X-Pagination (sql/shapes.sql `count` and `range_count`), over the read's own filters and
the reason's, so that the read which lists them (`LeftOut.args`) finds exactly that many
records. No web imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from ..database.filters import Filter
from ..model.collections import CANCELLED, DATE_PAIRS, QueryName
from .plan import Planner
from .reads import Read, Runner

__all__ = ["REASONS", "LeftOut", "Reason", "of_read"]

_FALSE, _TRUE = (False,), (True,)
_KEPT = Filter(CANCELLED, "", _FALSE)  # what a summary or a workbook adds by default
EVERY_FIGURE = "every figure"
_NET = "weighed, net, net_min, net_max, deduction, net_after_deduction"


@dataclass(frozen=True)
class Reason:
    """One reason a record is left out: its name, what it is left out of, and what it
    means, as the answers and the docs say it."""

    name: str
    left_out_of: str
    why: str


REASONS = {r.name: r for r in (
    Reason("voided", EVERY_FIGURE,
           "cancelled tickets, left out unless a filter names cancelled"),
    Reason("no_main_date", EVERY_FIGURE,
           "records whose main date (the on date) is NULL: they belong to no day, so to "
           "no range"),
    Reason("not_weighed_out", _NET,
           "records of the range with no second weight (weigh2): counted in records, in "
           "no net figure"),
    Reason("not_weighed_in", _NET,
           "records of the range with a second weight but no first (weigh1): counted in "
           "records, in no net figure"),
)}


@dataclass(frozen=True)
class LeftOut:
    """How many records one reason leaves out, and the read that lists them: a range of
    the same bounds or the whole collection (`read`), with the asked filters and the
    reason's `filters` (which replace an asked filter of the same field and operator)."""

    reason: Reason
    records: int
    read: str  # "range" or "list"
    filters: tuple[Filter, ...]  # the reason's: each a true-or-false
    # False where an asked filter says the opposite of one of the reason's (a summary of
    # `weigh2__isnull=false`): none is left out for it, and no read lists them.
    listed: bool = True

    @property
    def args(self) -> tuple[tuple[str, str], ...]:
        """The reason's filters as query arguments (`cancelled=true`)."""
        return tuple(((f"{f.field}__{f.op}" if f.op else f.field),
                      "true" if f.values[0] else "false") for f in self.filters)

    def path(self, collection: str, bounds: Mapping[str, Any], on: str,
             asked: Sequence[tuple[str, str]] = ()) -> str | None:
        """The read that lists them as a path under the API's root, with `asked` (the
        read's own query arguments, as sent) and the reason's: for a range,
        `<c>/date/<from>/<time>/<to>/<time>?on=...`; for the whole collection, `<c>?...`;
        None where no read lists them (`listed`)."""
        if not self.listed:
            return None
        own = dict(self.args)
        kept = [(k, v) for k, v in asked if k not in own and k != "on"]
        if self.read == "list":
            return f"{quote(collection)}?{urlencode([*kept, *self.args])}"
        dates = "/".join(quote(str(bounds[k]), safe=":") for k in
                         ("start_date", "start_time", "end_date", "end_time"))
        return (f"{quote(collection)}/date/{dates}?"
                f"{urlencode([('on', on), *kept, *self.args])}")

    def said(self) -> dict[str, Any]:
        """As the JSON answers carry it (without where to list them)."""
        return {"reason": self.reason.name, "records": self.records,
                "left_out_of": self.reason.left_out_of}


def of_read(runner: Runner, planner: Planner, read: Read) -> tuple[LeftOut, ...]:
    """What a read leaves out: a summary every reason its collection has; a workbook's
    range the cancelled tickets and those with no main date; a workbook's list or page
    the cancelled tickets. The cancelled ones only where the read leaves them out (no
    filter names cancelled, or one keeps them out: cancelled=false)."""
    c = planner.collection
    kind = read.query.kind
    on = read.query.on
    asked = read.filters[:len(read.filters) - len(planner.scope)]
    kept = (_KEPT,) if _KEPT in asked else ()
    others = tuple(f for f in asked if f != _KEPT)
    ranged = on is not None
    checks: list[tuple[str, str, tuple[Filter, ...]]] = []
    if kept:
        checks.append(("voided", "range" if ranged else "list",
                       (Filter(CANCELLED, "", _TRUE),)))
    if ranged:
        checks.append(("no_main_date", "list",
                       (*kept, Filter(DATE_PAIRS[on][0], "isnull", _TRUE))))
    if kind == "summary" and c.summary == "weighing":
        checks += [("not_weighed_out", "range", (*kept, Filter("weigh2", "isnull", _TRUE))),
                   ("not_weighed_in", "range", (*kept, Filter("weigh1", "isnull", _TRUE),
                                                Filter("weigh2", "isnull", _FALSE)))]
    found = []
    for name, where, own in checks:
        if any(f.field == o.field and f.op == o.op and f.values != o.values
               for f in others for o in own):  # asked for the others alone: none left out
            found.append(LeftOut(REASONS[name], 0, where, own, listed=False))
            continue
        query = QueryName("range_count", on) if where == "range" else QueryName("count")
        values = read.values if where == "range" else {}
        total = runner.count(c.name, query, values, (*others, *own, *planner.scope))
        found.append(LeftOut(REASONS[name], total, where, own))
    return tuple(found)
