"""check-sql's warning of the records that leave the figures for a NULL (docs/api.md §7,
"What a summary leaves out"): per date pair of a collection, those whose date is NULL (in
no range, summary or report day on that pair), and in the weighing shape those missing a
weight (counted in a summary's `records`, in none of its net figures). Each is counted and
its first records named, in canonical order, by the queries a page and its X-Pagination run
(sql/shapes.sql `all` and `count`) with the filter `<field>__isnull=true`, which lists them
over HTTP too. A weight of 0 or less is counted and named the same way (`<weight>__lte=0`):
a weighbridge program that writes 0 for a weighing not made yet makes an open ticket look
weighed, its net the whole other weight, which the mapping reads as NULL with NULLIF(col, 0)
(docs/adapting.md "A weighing not made, written as 0"). A warning: the exit status stays the
queries'. check-sql runs these counts, the service never does: at a site with the weights
indexed nowhere each is one scan of the table (bench/zero_weights.py).
"""

from __future__ import annotations

from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.filters import Filter
from ..model.collections import DATE_PAIRS, Collection

FIRST = 5  # records named of each NULL field


def checked(c: Collection) -> list[tuple[str, str]]:
    """The fields whose NULL leaves a record out of figures, with what it is left out of."""
    found = [(DATE_PAIRS[on][0], f"the main date of on={on}: such a record belongs to no "
                                 f"day, so to no range, summary or report day on={on}")
             for on in c.dates]
    if c.summary == "weighing":
        found += [(w, "a weight: counted in a summary's records, in none of its net figures "
                      "(weighed, net, deduction, net_after_deduction)")
                  for w in ("weigh1", "weigh2")]
    return found


def zero_weights(c: Collection) -> list[str]:
    """The weights a weighing program may write as 0 for a weighing not made."""
    return ["weigh1", "weigh2"] if c.summary == "weighing" else []


ZERO = ("a weighing not made written as 0? Such a ticket counts as weighed, its net the "
        "whole other weight: map it NULLIF(col, 0) (docs/adapting.md \"A weighing not made, "
        "written as 0\")")


def _first(db: Database, c: Collection, only: tuple[Filter, ...]) -> str:
    """The first FIRST records the filter finds, named by the fields of the canonical
    order (`id 4, 9`; `(no_produksi, no_produksi_) (2202611, 4), (2202611, 5)`)."""
    result = db.execute(c.name, "all", {}, only)
    try:
        rows = next(iter(result.batches()), [])[:FIRST]
        places = [result.columns.index(f) for f in c.order]
    finally:
        result.close()
    if len(places) == 1:
        return f"{c.order[0]} " + ", ".join(str(row[places[0]]) for row in rows)
    return (f"({', '.join(c.order)}) "
            + ", ".join(f"({', '.join(str(row[i]) for i in places)})" for row in rows))


def warnings(db: Database, c: Collection, nulls: list[str]) -> list[str]:
    """check-sql's lines: per field that is NULL on some records (those the mapping gives
    as NULL on every record aside, which check-sql reports on their own), how many, the
    first of them and how to list them all."""
    out = []
    for field, what in checked(c):
        if field not in nulls:
            out += _counted(db, c, Filter(field, "isnull", (True,)), f"a NULL {field}", what)
    return out


def zeros(db: Database, c: Collection, nulls: list[str]) -> list[str]:
    """check-sql's lines: per weight that is 0 or less on some records, how many, the first
    of them and how to list them all."""
    return [line for field in zero_weights(c) if field not in nulls
            for line in _counted(db, c, Filter(field, "lte", (0,)), f"{field} 0 or less",
                                 ZERO)]


def _counted(db: Database, c: Collection, only: Filter, found: str, what: str) -> list[str]:
    """The line of the records one filter finds: how many, the first and how to list them
    (none where it finds none)."""
    try:
        total = db.count(c.name, "count", {}, (only,))
        first = _first(db, c, (only,)) if total else ""
    except (QueryFailed, DatabaseUnavailable) as exc:
        return [f"{only.field}: not counted ({getattr(exc, 'detail', None) or exc})"]
    if not total:
        return []
    more = f" and {total - FIRST} more" if total > FIRST else ""
    value = "true" if only.op == "isnull" else only.values[0]
    return [f"{total} record{'s' if total != 1 else ''} with {found} ({what}; cancelled "
            f"ones included): {first}{more}. List them: "
            f"/{c.name}?{only.field}__{only.op}={value}"]
