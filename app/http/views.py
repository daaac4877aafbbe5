"""The views, one short function per read kind: each hands its question (the declared
arguments webargs read, the filters as the query string holds them) to the core
(app/core/question.py ask), which plans the read, and the read to the HTTP face
(app/http/answers.py).
app/http/routes.py registers them from its table of routes, once per collection, with the
collection's `CollectionViews` as the first argument; a view's docstring is its operation's
summary and description in the OpenAPI document.
"""

from __future__ import annotations

from flask import Response, request

from ..core.filtering import Filter, accepted_filters
from ..core.plan import Planner
from ..core.question import Question, Sent, ask, query_filters, read_filters
from ..core.reads import Read
from ..model import params
from ..model.kinds import READ_KINDS
from ..ops.config import FeedSettings
from .access import current_key
from .answers import Answers, Paging
from .arguments import ASKED

_KINDS = {kind.name: kind for kind in READ_KINDS}


class CollectionViews:
    """One collection as its views need it, built once when the app is made."""

    def __init__(self, planner: Planner, answers: Answers, page_size: int,
                 feed: FeedSettings | None = None):
        self.planner, self.answers = planner, answers
        self.collection = planner.collection
        self.page_size = page_size  # api.page_size: a page's size when the client names none
        self.feed = feed or FeedSettings()  # /<c>/changes' windows
        self.kinds = accepted_filters(self.collection.schema, self.collection.fields)

    @property
    def plan(self) -> Planner:
        """The planner as the request's key may use it: its row condition in every read."""
        return self.planner.within(current_key())

    def ask(self, question: Question) -> Read:
        """The read of a question whose filters are the request's (app/core/question.py)."""
        return ask(self.plan, self.kinds, question, ASKED)


def _sent(kind: str) -> list[Sent]:
    """The request's filters as a read of `kind` finds them in the query string (its names
    checked by app/http/arguments.py before the view is called)."""
    return query_filters(_KINDS[kind].arguments, request.args.lists()) if request.args else []


def get_all(s: CollectionViews, format: str | None = None,
            fields: list[str] | None = None) -> Response:
    """gets all

    Every record of the collection in canonical order, sent as the database returns it
    (a chunked JSON array or CSV; the table may hold millions of rows). A collection of
    fewer than 2,000 records is read whole and sent with a Content-Length.
    """
    read = s.ask(Question("list", _sent("list"), fields, leave_out=s.answers.figures(format)))
    return s.answers.answer(read, format, s.collection.name, planner=s.plan)


def get_page(s: CollectionViews, pagenumber: str, page_size: int, format: str | None = None,
             fields: list[str] | None = None) -> Response:
    """gets by page

    Page `pagenumber` (1 is the first) of the collection in canonical order.
    A page beyond the last is an empty array.
    """
    read = s.ask(Question("page", _sent("page"), fields, window=(0, page_size),
                          page=pagenumber, leave_out=s.answers.figures(format)))
    page = params.integer(pagenumber, "pagenumber", minimum=1)  # read by ask: a number
    return s.answers.answer(read, format, f"{s.collection.name}-page-{page}",
                            Paging(page, page_size), s.plan)


def get_one(s: CollectionViews, format: str | None = None, fields: list[str] | None = None,
            **path: str) -> Response:
    """finds by key

    One record: by its integer ID, or in the collections without a usable key by its
    1-based position (numberrow) in the canonical order.
    """
    key = path[s.plan.key_name]
    return s.answers.answer(s.plan.one(key, fields), format, f"{s.collection.name}-{key}")


def get_range(s: CollectionViews, tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str,
              on: str, page: int | None = None,
              page_size: int | None = None, format: str | None = None,
              fields: list[str] | None = None) -> Response:
    """gets by date

    The records whose date and time lie between tglawal jam_awal and tglakhir
    jam_akhir, both bounds inclusive, ordered by that date, time, then the canonical
    order. Dates are YYYY-MM-DD; times HH:MM or HH:MM:SS (24-hour, HH:MM means
    HH:MM:00). A record with a NULL date is never in a range; a NULL time counts as
    00:00:00. numberrow is null here. Unpaged, the range is streamed (one of fewer
    than 2,000 records is read whole and sent with a Content-Length).
    """
    dates = (tglawal, jam_awal, tglakhir, jam_akhir)
    filename = f"{s.collection.name}-{tglawal}_{tglakhir}"
    leave_out = s.answers.figures(format)
    if page is None and page_size is None:
        read = s.ask(Question("range", _sent("range"), fields, on, dates,
                              leave_out=leave_out))
        return s.answers.answer(read, format, filename, planner=s.plan)
    page, page_size = page or 1, page_size or s.page_size
    read = s.ask(Question("range", _sent("range"), fields, on, dates,
                          window=((page - 1) * page_size, page_size), leave_out=leave_out))
    paging = Paging(page, page_size, "page", {"on": on, "page": page, "page_size": page_size})
    return s.answers.answer(read, format, filename, paging, s.plan)


def get_summary(s: CollectionViews, tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str,
                on: str, by: list[str] | None = None, format: str | None = None
                ) -> Response:
    """sums by date

    Plant figures over the records the same date range (and filters) would return,
    computed by the database: per group of ?by= (day, month, hour or fields), what
    the record shape measures (the answer's schema names each). Sent whole when small,
    streamed when not. The X-Left-Out header says, per reason, how many records the
    figures leave out (cancelled, no main date, a weight missing) and the URL that lists
    them.
    """
    dates = (tglawal, jam_awal, tglakhir, jam_akhir)
    return s.answers.answer(s.ask(Question("summary", _sent("summary"), on=on, dates=dates,
                                           by=by)), format,
                            f"{s.collection.name}-summary-{tglawal}_{tglakhir}",
                            planner=s.plan)


def get_changes(s: CollectionViews, on: str, limit: int, after: str | None = None,
                since: str | None = None, format: str | None = None,
                fields: list[str] | None = None) -> Response:
    """gets what changed

    Every record that is new or changed since the bookmark `after` (without it, from the
    oldest stamp, or from `since`), in stamp order (the `on` pair; a NULL time counts as
    00:00:00), then key order, at most `limit`; numberrow is null. Store the X-Bookmark
    header of the answer and send it back as `after` (the Link header's next URL does):
    an empty array with a bookmark is the normal answer when nothing changed. A record
    is sent once its stamp is feed.settle_seconds behind the database server's clock (in
    the plant's time zone when the site sets site.timezone); each call looks
    feed.lookback_seconds behind the bookmark for records that committed late, and the
    bookmark remembers those already sent, so an unchanged record comes once. Past 200
    records inside that window some may come again, counted in X-Bookmark-Repeats. A
    bookmark of another collection, `on` or filters is a 400.
    """
    filters: tuple[Filter, ...] = read_filters(s.kinds, _sent("changes"), ASKED)
    return s.answers.changes(s.plan, s.feed, on, limit, after, since, filters, format,
                             fields)
