"""Where Jembatan departs from Flask's and flask-smorest's own ways, each for a figure
measured (the figure and how it was measured beside each): a mixin per departure, which the
app's classes (app/http/application.py `Application`, app/http/openapi.py `Api`,
app/http/argument_schemas.py `Blueprint` and `Arguments`) take on, and the parser of query
arguments (`ArgumentsParser`).
Anything else in the HTTP face uses the frameworks as they are documented."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import flask
import marshmallow as ma
from apispec import APISpec
from flask import Flask
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from .arguments import Accepted

__all__ = ["ArgumentsParser", "CopiedAsItself", "DefaultsLoadedOnce", "DocsStoredOnFirstUse",
           "DocumentedOnFirstUse", "SyncCached"]


class SyncCached(Flask):
    """Flask, remembering which functions are sync: it asks inspect about every handler and
    view on every request (a dozen calls, the cost of a whole SQLite lookup).

    Figure (CPU time, Python 3.11, Flask 3): Flask's ensure_sync costs 0.46 µs a call, a
    dict look-up 0.02 µs, and a request makes about a dozen; GET /customers/page/1 through
    the test client over the demo database, min of 5 rounds of 2,000 requests, 513 µs a
    request without the cache, 504 µs with it (1 to 2 %)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync[func]
        except KeyError:
            sync = super().ensure_sync(func)
            if len(self._sync) < 1024:  # bounded: a per-request closure is not kept
                self._sync[func] = sync
            return sync
        except TypeError:  # an unhashable callable: as Flask does it
            return super().ensure_sync(func)


class DocumentedOnFirstUse:
    """flask-smorest's Api.register_blueprint, its views written into the OpenAPI document
    when the document is first asked for (`document()`), in the order they were registered,
    rather than as each blueprint is registered: most of what it costs (a deepcopy of every
    operation's documentation, apispec resolving each schema) is then not paid by an app that
    never serves /openapi.json (a gunicorn worker until its first request for it, an app a
    test builds).

    Figure (CPU time, the same run as DocsStoredOnFirstUse's): create_app over the demo
    database (default settings), min of 5 builds, 205 ms with every view documented as it
    is registered, 168 ms with them documented on first use; the first /openapi.json then
    takes 71 ms instead of 22 ms."""

    _app: Flask
    spec: APISpec

    def __init__(self, *args: Any, **kwargs: Any):
        self._pending: list[tuple[Any, str, Any]] = []
        self._documenting = threading.Lock()
        super().__init__(*args, **kwargs)

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """The blueprint registered now (its routes answer at once), documented later."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._pending.append((blp, name, parameters))

    def document(self) -> APISpec:
        """The OpenAPI document, every blueprint registered so far written into it."""
        if self._pending:
            with self._documenting:
                while self._pending:
                    blp, name, parameters = self._pending[0]
                    blp.register_views_in_doc(self, self._app, self.spec, name=name,
                                              parameters=parameters)
                    self.spec.tag({"name": name, "description": blp.description})
                    self._pending.pop(0)
        return self.spec


class DocsStoredOnFirstUse:
    """flask-smorest's Blueprint, each view's documentation (a deepcopy of what its
    decorators wrote) taken when the document is first asked for (`DocumentedOnFirstUse`),
    in the order the views were registered, rather than as each is registered.

    Figure (CPU time, the same run as DocumentedOnFirstUse's): create_app over the demo
    database (default settings), min of 5 builds, 168 ms with each view's documentation
    taken as it is registered, 137 ms with it taken on first use; the first /openapi.json
    then takes 82 ms instead of 71 ms."""

    def __init__(self, *args: Any, **kwargs: Any):
        self._unstored: list[tuple[Any, ...]] = []
        super().__init__(*args, **kwargs)

    def _store_endpoint_docs(self, endpoint: str, obj: Any, parameters: Any, tags: Any,
                             **options: Any) -> None:
        self._unstored.append((endpoint, obj, parameters, tags, options))

    def register_views_in_doc(self, *args: Any, **kwargs: Any) -> None:
        """flask-smorest's, every view's documentation taken first."""
        while self._unstored:
            endpoint, obj, parameters, tags, options = self._unstored.pop(0)
            super()._store_endpoint_docs(  # type: ignore[misc]
                endpoint, obj, parameters, tags, **options)
        super().register_views_in_doc(*args, **kwargs)  # type: ignore[misc]


class CopiedAsItself:
    """A schema that flask-smorest's decorators take as it is: each of them deep-copies the
    documentation the ones before it wrote (so as not to change theirs), and a route's
    argument schema is in it; the schema is built for its route alone and never changed
    after, so a copy of it would only cost.

    Figure (CPU time, the same run): create_app over the demo database (default settings),
    min of 20 builds, 122 ms with the argument schemas copied (the response
    documented last already, app/http/routes.py), 113 ms with them taken as they are; main's
    order of decorators and copies, 132 ms."""

    def __deepcopy__(self, memo: dict[int, Any]) -> CopiedAsItself:
        return self


class DefaultsLoadedOnce(ma.Schema):
    """A route's argument schema that knows what else its route takes (`accepted`: its
    filters, app/http/arguments.py; None: the query string as it came) and keeps what a
    request without a query string loads (`defaults`, filled by ArgumentsParser)."""

    def __init__(self, accepted: Accepted | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.accepted = accepted
        self.defaults: dict[str, Any] | None = None


class ArgumentsParser(FlaskParser):
    """webargs' parser of a route's query arguments, with three departures.

    Behaviour: malformed input is a 400, not webargs' 422 (docs/api.md §9); the query string
    is read with the rules of docs/api.md §6.2 first (`load_querystring`, app/http/arguments.py:
    a 400 for an argument the route does not take or one given twice, `fields` given twice
    joined, `_` arguments dropped, a list's filters read; webargs alone would read the first
    value); and where an argument's value is refused, a filter's fault is named first
    (tests/test_errors.py test_a_request_with_several_faults_names_the_first_in_order).

    Speed: a request without a query string takes its route's defaults, loaded once per route
    (kept by its DefaultsLoadedOnce schema). Figure (CPU time, Python 3.11, webargs 8): the
    parse alone, over the demo database, request context of /customers/1 (format, fields) and
    /customers/page/1 (page_size too), min of 5 rounds of 20,000: 8.1 and 9.8 µs parsed every
    time, 0.9 µs with the defaults kept; whole GETs through the test client (220 and 390 µs a
    request, min of 5 rounds of 2,000) do not show the difference above their noise (2 %)."""

    DEFAULT_VALIDATION_STATUS = 400

    def parse(self, argmap: Any, req: Any = None, *, location: str | None = None,
              **kwargs: Any) -> Any:
        """webargs' parse; a request without a query string takes the route's defaults."""
        if (location != "query" or req is None or req.query_string
                or not isinstance(argmap, DefaultsLoadedOnce)):
            try:
                return super().parse(argmap, req, location=location, **kwargs)
            except HTTPException:  # an argument's value: a filter's fault is named first
                if isinstance(argmap, DefaultsLoadedOnce) and argmap.accepted is not None:
                    argmap.accepted.read_filters((req or flask.request).args)
                raise
        if argmap.defaults is None:
            argmap.defaults = super().parse(argmap, req, location=location, **kwargs)
        return dict(argmap.defaults)

    def load_querystring(self, req: Any, schema: ma.Schema) -> Any:
        """The query string with the rules of docs/api.md §6.2 applied first."""
        accepted = schema.accepted if isinstance(schema, DefaultsLoadedOnce) else None
        args = req.args if accepted is None else accepted.parse(req.args)
        return self._makeproxy(args, schema)
