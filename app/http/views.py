"""The views, one short function per read kind: each asks the collection's planner
(app/core/plan.py) for the read and hands it to the HTTP face (app/http/answers.py).
app/http/routes.py registers them from its table of routes, once per collection, with the
collection's `CollectionViews` as the first argument; a view's docstring is its operation's
summary and description in the OpenAPI document.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from flask import Response, redirect, request, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path
from werkzeug.exceptions import Unauthorized

from ..core.clock import plant_today
from ..core.plan import Planner
from ..core.unmapped import Unmapped
from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.filters import Filter
from ..model import params
from ..model.collections import Collection
from ..ops.config import FeedSettings
from ..ops.metrics import Metrics
from .answers import Answers, Paging
from .pages import Page, Script


class CollectionViews:
    """One collection as its views need it, built once when the app is made."""

    def __init__(self, planner: Planner, answers: Answers, page_size: int,
                 feed: FeedSettings | None = None):
        self.plan, self.answers = planner, answers
        self.collection = planner.collection
        self.page_size = page_size  # api.page_size: a page's size when the client names none
        self.feed = feed or FeedSettings()  # /<c>/changes' windows


@dataclass(frozen=True)
class ServiceViews:
    """What the index and health views need: the collections served and the database."""

    collections: tuple[Collection, ...]
    db: Database
    site: str = ""  # site.name: the plant's name on the report; "" when none is configured
    unmapped: Unmapped = field(default_factory=Unmapped)  # the collections not mapped yet


def get_all(s: CollectionViews, filters: tuple[Filter, ...] = (), format: str | None = None,
            fields: list[str] | None = None) -> Response:
    """gets all

    Every record of the collection in canonical order, sent as the database returns it
    (a chunked JSON array or CSV; the table may hold millions of rows). A collection of
    fewer than 2,000 records is read whole and sent with a Content-Length.
    """
    return s.answers.answer(s.plan.all(filters, fields), format, s.collection.name)


def get_page(s: CollectionViews, pagenumber: str, page_size: int, filters: tuple[Filter, ...] = (),
             format: str | None = None, fields: list[str] | None = None) -> Response:
    """gets by page

    Page `pagenumber` (1 is the first) of the collection in canonical order.
    A page beyond the last is an empty array.
    """
    page = params.integer(pagenumber, "pagenumber", minimum=1)
    read = s.plan.part((page - 1) * page_size, page_size, filters, fields)
    return s.answers.answer(read, format, f"{s.collection.name}-page-{page}",
                            Paging(page, page_size))


def get_one(s: CollectionViews, format: str | None = None, fields: list[str] | None = None,
            **path: str) -> Response:
    """finds by key

    One record: by its integer ID, or in the collections without a usable key by its
    1-based position (numberrow) in the canonical order.
    """
    key = path[s.plan.key_name]
    return s.answers.answer(s.plan.one(key, fields), format, f"{s.collection.name}-{key}")


def get_range(s: CollectionViews, tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str,
              on: str, filters: tuple[Filter, ...] = (), page: int | None = None,
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
    bounds = params.date_range(tglawal, jam_awal, tglakhir, jam_akhir)
    filename = f"{s.collection.name}-{tglawal}_{tglakhir}"
    if page is None and page_size is None:
        return s.answers.answer(s.plan.range(on, bounds, filters, fields), format, filename)
    page, page_size = page or 1, page_size or s.page_size
    read = s.plan.range(on, bounds, filters, fields, ((page - 1) * page_size, page_size))
    paging = Paging(page, page_size, "page", {"on": on, "page": page, "page_size": page_size})
    return s.answers.answer(read, format, filename, paging)


def get_summary(s: CollectionViews, tglawal: str, jam_awal: str, tglakhir: str, jam_akhir: str,
                on: str, filters: tuple[Filter, ...] = (), by: list[str] | None = None,
                format: str | None = None) -> Response:
    """sums by date

    Plant figures over the records the same date range (and filters) would return,
    computed by the database: per group of ?by= (day, month, hour or fields), what
    the record shape measures (the answer's schema names each). Sent whole when small,
    streamed when not.
    """
    bounds = params.date_range(tglawal, jam_awal, tglakhir, jam_akhir)
    return s.answers.answer(s.plan.summary(on, bounds, by, filters), format,
                            f"{s.collection.name}-summary-{tglawal}_{tglakhir}")


def get_changes(s: CollectionViews, on: str, limit: int, after: str | None = None,
                since: str | None = None, filters: tuple[Filter, ...] = (),
                format: str | None = None, fields: list[str] | None = None) -> Response:
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
    return s.answers.changes(s.plan, s.feed, on, limit, after, since, filters, format,
                             fields)


def index(service: ServiceViews) -> Any:
    """lists the collections

    Each collection with its URL, record shape, key, canonical order and date-range `on`
    values (and, for one not mapped yet, the fields left to map), and the links to the
    documentation.
    """
    unmapped = service.unmapped
    return {
        "name": "Jembatan",
        "collections": [{
            "name": c.name,
            "url": url_for(f"{c.name}.get_all", _external=True),
            "record": c.schema.__name__,  # its schema in /openapi.json
            "key": c.key,
            "order": list(c.order),
            "date_range": list(c.dates),
            **({"unmapped": unmapped.fields(c.name)} if c.name in unmapped else {}),
        } for c in service.collections],
        "docs": url_for("api-docs.openapi_swagger_ui", _external=True),
        "openapi": url_for("api-docs.openapi_json", _external=True),
        "dashboard": url_for("dashboard.dashboard", _external=True),
        "report": url_for("report.report_today", _external=True),
        "site": service.site or None,
    }


def health(service: ServiceViews) -> Any:
    """checks the database

    {"status": "ok", "database": "ok"} when a query reaches the database; otherwise 503
    with a short reason and Retry-After. "degraded" (still 200: the database answers)
    with a `mapping` list when a site's mapping has given a field a value that cannot be
    of its type since the service started: those reads answer 500 until the mapping is
    corrected and the service restarted; and with an `unmapped` object, each collection
    not mapped yet with the fields left to map: its routes answer 503 until they are
    mapped and the service restarted.
    """
    db = service.db
    unmapped = ({"unmapped": service.unmapped.by_collection()} if service.unmapped
                else {})
    try:
        db.ping()
    except (DatabaseUnavailable, QueryFailed) as exc:
        reason = exc.reason if isinstance(exc, DatabaseUnavailable) else "query failed"
        return ({"status": "unavailable", "database": reason, **unmapped}, 503,
                {"Retry-After": str(DatabaseUnavailable.retry_after)})
    misfits = db.metrics.mapping_errors() if db.metrics is not None else {}
    mapping = {"mapping": [
        f"{c}.{f}: a value that is not {expected}, {n} time{'s' if n > 1 else ''} "
        f"since start (the log has each one; run check-sql {c})"
        for (c, f, expected), n in sorted(misfits.items())]} if misfits else {}
    # The database answers, but a mapping is unfinished or gives values never sent.
    status = "degraded" if mapping or unmapped else "ok"
    return {"status": status, "database": "ok", **mapping, **unmapped}


def dashboard(page: Page) -> Response:
    """The dashboard (docs/api.md §8): one page, as read at start."""
    return page.response(request)


def report(page: Page, day: str) -> Response:
    """The daily report of `day` (docs/api.md §8, "The daily report"): the same page for every
    day, which reads its day from its own URL; a day that is not one of the calendar is a 400
    here, as in the API's ranges, before any page is sent."""
    params.date(day, "the report's date")
    return page.response(request)


def script(shared: Script) -> Response:
    """`/jembatan.js`: the script the dashboard and the daily report share (app/http/pages.py),
    open like them."""
    return shared.response(request)


def report_today(zone: ZoneInfo | None) -> Response:
    """`/report` without a date: today's report, the date in the plant's zone ([site]
    timezone), or, without one, the date of the host's clock."""
    today = plant_today(zone).isoformat()
    response = redirect(url_for("report.report", day=today))
    response.headers["Cache-Control"] = "no-store"  # tomorrow it points elsewhere
    return response  # type: ignore[return-value]


def metrics(figures: Metrics, key: bytes) -> Response:
    """GET /metrics (docs/api.md §11): open, or behind api.metrics_key alone (API keys do not
    apply: a Prometheus server holds the metrics key, not a client's)."""
    if key:
        auth = request.headers.get("Authorization", "")
        sent = auth[7:].strip().encode() if auth[:7].lower() == "bearer " else b""
        if not hmac.compare_digest(sent, key):
            raise Unauthorized("/metrics needs the metrics key: send Authorization: "
                               "Bearer <api.metrics_key>")
    body, content_type = figures.render()
    return Response(body, content_type=content_type, headers={"Cache-Control": "no-store"})


def docs_static(filename: str) -> Response:
    """Swagger UI's files, as the swagger-ui-bundle package holds them."""
    return send_from_directory(swagger_ui_path, filename, max_age=3600)


def favicon() -> Response:
    return docs_static("favicon-32x32.png")


def docs_slash() -> Response:
    return redirect(url_for("api-docs.openapi_swagger_ui"))  # type: ignore[return-value]
