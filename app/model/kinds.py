"""The table of read kinds: one row per kind of read a client asks of a collection, with
the queries it runs, the parameters each query is given, where it is served under
/<collection> and the arguments it takes (docs/api.md §5, §6.2, §11).

Everything that lists the reads comes from READ_KINDS: the shapes sql/shapes.sql holds and
their parameters (app/database/queries.py SHAPES, PARAMETERS), the queries each collection
runs (Collection.reads, app/model/collections.py), the routes of a collection and their
arguments (app/http/routes.py, app/http/argument_schemas.py) and the metrics' `kind` of
each request (app/ops/metrics.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the table is read by collections.py, which defines them
    from .collections import Collection

# What the runner passes to each kind of query; a query may use any subset of these.
PAGE = ("first_row", "last_row", "row_count", "skip")
RANGE = ("start_date", "start_time", "end_date", "end_time", "midnight")
# One second of the feed's stamps; a kind `keyed` also takes the key of a record in it
# (app/database/templates.py AFTER_PARAMETERS, app/core/feed.py's walk).
WITHIN = ("within_date", "within_time", "next_date", "next_time", "midnight", "row_count")


@dataclass(frozen=True)
class QueryKind:
    """A query a read kind runs, written once in sql/shapes.sql (its shape) and run on each
    collection that has the read (on each of its date pairs, where `dated`)."""

    name: str  # its shape in sql/shapes.sql; the query's name on an undated collection
    params: tuple[str, ...]  # the parameters the runner passes it
    dated: bool = False  # run per `on` pair: range_page on dt1 is range_dt1_page
    keyed: bool = False  # also takes a feed key (AFTER_PARAMETERS)
    per_summary: bool = False  # its shape is the collection's summary_<shape>
    keyless: bool = False  # only on a collection whose records have a usable key (by_key)

    def shape(self, c: Collection) -> str:
        """Its shape in sql/shapes.sql for collection `c`."""
        return f"{self.name}_{c.summary}" if self.per_summary else self.name

    def runs_on(self, c: Collection) -> bool:
        """Whether collection `c` runs it."""
        return not (self.keyless and c.numbered) and not (self.per_summary and not c.summary)


ALL = QueryKind("all", ())
COUNT = QueryKind("count", ())
PAGED = QueryKind("page", PAGE)
BY_KEY = QueryKind("by_key", ("key",), keyless=True)
IN_RANGE = QueryKind("range", RANGE, dated=True)
RANGE_COUNT = QueryKind("range_count", RANGE, dated=True)
RANGE_PAGE = QueryKind("range_page", RANGE + PAGE, dated=True)
SUMMARY = QueryKind("summary", RANGE, dated=True, per_summary=True)
CHANGES = QueryKind("changes", ("from_date", "from_time", "midnight", "row_count"), dated=True)
CHANGES_WITHIN = QueryKind("changes_within", WITHIN, dated=True, keyed=True)
CHANGES_WALKED = QueryKind("changes_walked", ("from_date", "from_time", *WITHIN), dated=True,
                           keyed=True)


def has_dates(c: Collection) -> bool:
    """A collection with a date range (Collection.dates)."""
    return bool(c.dates)


def has_summary(c: Collection) -> bool:
    """A collection with measures (Collection.summary)."""
    return c.summary is not None


@dataclass(frozen=True)
class ReadKind:
    """One kind of read of a collection: its queries, its route and its arguments."""

    name: str  # the metrics' `kind` of its requests (docs/api.md §11)
    rule: str  # its route under /<collection>; {key} is the key's converter and name
    path: str  # its path as docs/api.md §6.2 writes it
    arguments: tuple[str, ...]  # its query arguments, as §6.2 lists them ("filters" last)
    queries: tuple[QueryKind, ...]  # what it runs (sql/shapes.sql)
    needs: Callable[[Collection], bool] | None = None  # only a collection that has it
    paged: bool = False  # answers the pagination headers

    @property
    def filtered(self) -> bool:
        """Whether it takes the filters."""
        return "filters" in self.arguments

    def served_on(self, c: Collection) -> bool:
        """Whether collection `c` has this read (a range only where it has dates...)."""
        return self.needs is None or self.needs(c)


_RANGE_RULE = "<isodate:tglawal>/<clock:jam_awal>/<isodate:tglakhir>/<clock:jam_akhir>"
_SHOWN = ("format", "fields")

LIST = ReadKind("list", "", "/<c>", (*_SHOWN, "filters"), (ALL,))
PAGE_READ = ReadKind("page", "/page/<pagenumber:pagenumber>", "/<c>/page/{n}",
                     ("page_size", *_SHOWN, "filters"), (COUNT, PAGED), paged=True)
KEY = ReadKind("key", "/<{key}>", "/<c>/{key}", _SHOWN, (BY_KEY,))
RANGE_READ = ReadKind("range", f"/date/{_RANGE_RULE}", "/<c>/date/…",
                      ("on", "page", "page_size", *_SHOWN, "filters"),
                      (IN_RANGE, RANGE_COUNT, RANGE_PAGE), has_dates, paged=True)
SUMMARY_READ = ReadKind("summary", f"/summary/{_RANGE_RULE}", "/<c>/summary/…",
                        ("on", "by", "format", "filters"), (SUMMARY,), has_summary)
CHANGES_READ = ReadKind("changes", "/changes", "/<c>/changes",
                        ("on", "limit", "after", "since", *_SHOWN, "filters"),
                        (CHANGES, CHANGES_WITHIN, CHANGES_WALKED), has_dates)

READ_KINDS: tuple[ReadKind, ...] = (LIST, PAGE_READ, KEY, RANGE_READ, SUMMARY_READ,
                                    CHANGES_READ)

# Every query the read kinds run, in the order of the table.
QUERY_KINDS: tuple[QueryKind, ...] = tuple(q for kind in READ_KINDS for q in kind.queries)
UNDATED = tuple(q.name for q in QUERY_KINDS if not q.dated)
DATED = tuple(q.name for q in QUERY_KINDS if q.dated)
