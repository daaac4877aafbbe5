"""Prometheus metrics (docs/api.md §11), at GET /metrics in the text format.

Under gunicorn every worker is a process of its own, and a scrape reaches one of them: so
with PROMETHEUS_MULTIPROC_DIR set (gunicorn.conf.py creates the directory before the workers
start and removes it at exit) every worker writes its figures to files there and /metrics
adds up the files of all of them: one view of the whole service. Without the variable (the
Flask test client, `flask run`) the figures are this process's own.

Each app (create_app) has its own registry, so that several apps in one process (the tests)
never share or clash; the metric objects are made per app too.

prometheus_client decides when it is first imported whether values go to files, by
PROMETHEUS_MULTIPROC_DIR: it is imported here only when an app is made, so that importing
`app` (as gunicorn.conf.py does, before it sets the variable) cannot decide it too early.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR"
# The classic text format, which every Prometheus server reads (the names are all plain).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Request latency: from a record by id (a few ms) to a summary of a year or a stream.
_REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
# How far a record's stamp was behind the database clock when the feed first sent it: at
# least feed.settle_seconds; the tail says how large feed.lookback_seconds must be.
_LATENESS_BUCKETS = (1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 900, 1800,
                     3600, 7200, 86400)
_QUERY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


def route_kind(endpoint: str | None, kinds: Mapping[str, str]) -> str:
    """The kind of an endpoint's requests (`kinds`, by endpoint: list, page, key, range,
    summary, changes for the record routes, from the table of read kinds, and mcp); meta
    for everything else."""
    return kinds.get(endpoint or "", "meta")


class Metrics:
    """The series of one app; `render` answers GET /metrics."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter("jembatan_requests", "Requests answered, by route kind and "
                                "HTTP status.", ["kind", "status"], registry=r)
        self.latency = Histogram("jembatan_request_duration_seconds", "Time from the "
                                 "request to its last byte sent, by route kind.", ["kind"],
                                 buckets=_REQUEST_BUCKETS, registry=r)
        self.by_key = Counter("jembatan_key_requests", "Requests that came in with an API "
                              "key, by the key's name (never the key: docs/api.md §10) and "
                              "HTTP status.", ["key", "status"], registry=r)
        self.rows = Counter("jembatan_rows_sent", "Records (or summary groups) sent, by "
                            "route kind.", ["kind"], registry=r)
        self.broken = Counter("jembatan_streams_broken", "Streamed answers that broke off "
                              "because reading the database failed midway.", registry=r)
        self.db_errors = Counter("jembatan_database_errors", "Database errors by kind: "
                                 "unreachable (cannot connect, connection lost, busy, login "
                                 "failed...), timeout, query_failed (a query the database "
                                 "refused); and by reason, the words of the 503 "
                                 "(app/database/failures.py).",
                                 ["kind", "reason"], registry=r)
        self.misfits = Counter("jembatan_mapping_errors", "Values that a site's mapping "
                               "gives a field and that cannot be of its type (a date that is "
                               "not a date): never sent, each an error (docs/adapting.md, "
                               "check-sql).",
                               ["collection", "field", "expected"], registry=r)
        self.queries = Histogram("jembatan_query_duration_seconds", "Time from sending a "
                                 "query to its last row read, by kind of query.", ["query"],
                                 buckets=_QUERY_BUCKETS, registry=r)
        self.lateness = Histogram("jembatan_feed_lateness_seconds", "How far each record's "
                                  "stamp was behind the database clock when /<c>/changes "
                                  "first sent it, by collection: a record that commits "
                                  "later than feed.settle_seconds + feed.lookback_seconds "
                                  "can be missed.", ["collection"],
                                  buckets=_LATENESS_BUCKETS, registry=r)
        self.ahead = Gauge("jembatan_feed_ahead_seconds", "How far the newest stamp the "
                           "last /<c>/changes call read lay ahead of the database clock, "
                           "beyond feed.settle_seconds (0: none), by collection and on: the "
                           "feed holds those records back until the clock passes them (a "
                           "time zone not set, a PC's clock ahead).", ["collection", "on"],
                           multiprocess_mode="mostrecent", registry=r)
        self._ahead: dict[tuple[str, str], float] = {}  # this process's last value of each
        self.tool_calls = Counter("jembatan_mcp_tool_calls", "MCP tool calls "
                                  "(app/mcp/protocol.py), "
                                  "by tool and outcome: ok, refused (arguments the tool cannot "
                                  "take), unmapped (a collection not mapped yet), unavailable "
                                  "(the database), failed (a query the database refused), "
                                  "error (unexpected), unknown_tool.",
                                  ["tool", "outcome"], registry=r)
        # The series each request touches, by their labels: `labels()` checks and joins the
        # label values and takes a lock on every call (about 1.8 µs, four times a request);
        # the child it returns is the same each time, so it is looked up once.
        # (A series appears in /metrics once it is made: each is made when first used, as
        # before, so that none shows a zero it never had.)
        self._per_request: dict[tuple[str, int], tuple[Any, Any]] = {}
        self._rows_sent: dict[str, Any] = {}
        self._per_key: dict[tuple[str, int], Any] = {}
        self._per_query: dict[str, Any] = {}

    def request(self, kind: str, status: int, seconds: float, rows: int | None,
                broken: bool, key: str | None = None) -> None:
        series = self._per_request.get((kind, status))
        if series is None:
            series = self._per_request.setdefault((kind, status), (
                self.requests.labels(kind, str(status)), self.latency.labels(kind)))
        requests, latency = series
        requests.inc()
        latency.observe(seconds)
        if rows:
            sent = self._rows_sent.get(kind)
            if sent is None:
                sent = self._rows_sent.setdefault(kind, self.rows.labels(kind))
            sent.inc(rows)
        if broken:
            self.broken.inc()
        if key is not None:  # the names are the settings' own: a bounded set of series
            keyed = self._per_key.get((key, status))
            if keyed is None:
                keyed = self._per_key.setdefault((key, status),
                                                 self.by_key.labels(key, str(status)))
            keyed.inc()

    def database_error(self, reason: str | None) -> None:
        """A failure as app/database/failures.py classifies it: None is a query the
        database refused."""
        kind = ("query_failed" if reason is None else "timeout" if reason == "query timed out"
                else "unreachable")
        self.db_errors.labels(kind, reason or "query failed").inc()

    def tool_call(self, tool: str, outcome: str) -> None:
        """One MCP tool call and how it ended (`tool` one of the table's names)."""
        self.tool_calls.labels(tool, outcome).inc()

    def mapping_error(self, collection: str, field: str, expected: str) -> None:
        self.misfits.labels(collection, field, expected).inc()

    def mapping_errors(self) -> dict[tuple[str, str, str], int]:
        """{(collection, field, expected): how often}, of every worker where they are kept
        in files: what /health reports."""
        found: dict[tuple[str, str, str], int] = {}
        for metric in self._registry().collect():
            for sample in metric.samples:
                if sample.name == "jembatan_mapping_errors_total" and sample.value:
                    labels = sample.labels
                    key = (labels["collection"], labels["field"], labels["expected"])
                    found[key] = found.get(key, 0) + int(sample.value)
        return found

    def query(self, kind: str, seconds: float) -> None:
        series = self._per_query.get(kind)
        if series is None:
            series = self._per_query.setdefault(kind, self.queries.labels(kind))
        series.observe(seconds)

    def feed_lateness(self, collection: str, seconds: list[float]) -> None:
        series = self.lateness.labels(collection)
        for s in seconds:
            series.observe(s)

    def feed_ahead(self, collection: str, on: str, seconds: float) -> bool:
        """What a /<c>/changes call found ahead of the clock (0: nothing); True when this
        process had not seen that collection's stamps ahead before (to say it once)."""
        before = self._ahead.get((collection, on), 0)
        self._ahead[(collection, on)] = seconds
        self.ahead.labels(collection, on).set(seconds)
        return seconds > 0 and before <= 0

    def feeds_ahead(self) -> dict[tuple[str, str], float]:
        """{(collection, on): seconds ahead} where the last call of any worker found stamps
        ahead of the clock: what /health reports."""
        return {(s.labels["collection"], s.labels["on"]): s.value
                for metric in self._registry().collect() for s in metric.samples
                if s.name == "jembatan_feed_ahead_seconds" and s.value > 0}

    def render(self) -> tuple[bytes, str]:
        """The text format: every worker's figures added up where they are kept in files."""
        from prometheus_client import generate_latest

        return generate_latest(self._registry()), CONTENT_TYPE

    def _registry(self) -> Any:
        """This app's registry, or one that reads every worker's files."""
        from prometheus_client import CollectorRegistry, multiprocess

        if not os.environ.get(MULTIPROCESS):
            return self.registry
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
