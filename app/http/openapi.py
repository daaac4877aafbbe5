"""The OpenAPI document: flask-smorest's Api as Jembatan sets it up (its paths relative to
the API's prefix, the one server that is right for each request, the key schemes, the
undocumented arguments left out), and the helpers that document a view's responses."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from typing import Any

import flask_smorest
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import get_fields
from flask import Flask, Response, json, request
from flask_smorest.spec.plugins import FlaskPlugin

from ..model.schemas import ErrorSchema
from ..ops.config import Settings
from .argument_schemas import UNDOCUMENTED, Blueprint
from .converters import CONVERTERS
from .patches import DocumentedOnFirstUse

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

_ERRORS = {400: "BAD_REQUEST", 401: "UNAUTHORIZED", 404: "NOT_FOUND",
           503: "SERVICE_UNAVAILABLE", 500: "INTERNAL_SERVER_ERROR"}


class _Converter(OpenAPIConverter):
    """Leaves out of an operation's parameters the query arguments marked UNDOCUMENTED
    (`format`, `where`: app/http/argument_schemas.py), which the route still takes."""

    def schema2parameters(self, schema: Any, *, location: str,
                          **kwargs: Any) -> list[dict[str, Any]]:
        parameters = super().schema2parameters(schema, location=location, **kwargs)
        if location in ("body", "json"):
            return parameters
        hidden = {field.data_key or name for name, field in get_fields(schema).items()
                  if field.metadata.get(UNDOCUMENTED)}
        return [p for p in parameters if p["name"] not in hidden]


class _MarshmallowPlugin(MarshmallowPlugin):
    Converter = _Converter


class _FlaskPlugin(FlaskPlugin):
    """Paths relative to api.url_prefix, which goes into the server entry instead: the
    index is then "/" (not "/api/", a path with a trailing slash) and a client's base URL is
    the API's root, whatever the prefix."""

    def __init__(self, prefix: str):
        super().__init__()
        self.prefix = prefix

    def path_helper(self, rule: Any, operations: Any, parameters: Any,
                    **kwargs: Any) -> str:
        path: str = super().path_helper(rule, operations, parameters, **kwargs)
        return path.removeprefix(self.prefix) or "/"


class Api(DocumentedOnFirstUse, flask_smorest.Api):
    ERROR_SCHEMA = ErrorSchema
    # Only the error responses each operation documents: a catch-all "default" would let
    # any status pass as documented.
    DEFAULT_ERROR_RESPONSE_NAME = None

    def __init__(self, app: Flask, prefix: str):
        self.prefix = prefix
        super().__init__(app, spec_kwargs={"marshmallow_plugin": _MarshmallowPlugin(),
                                           "flask_plugin": _FlaskPlugin(prefix)})

    def _openapi_json(self) -> Response:
        """The document with the one server that is right for this request, as a path: the
        root a proxy strips and names in X-Forwarded-Prefix, then api.url_prefix ("/" when
        neither). A fixed entry would be wrong behind such a proxy, and an absolute URL would
        trust the Host header."""
        server = request.script_root + self.prefix or "/"
        spec = self.document().to_dict() | {"servers": [{"url": server}]}
        return Response(json.dumps(spec, indent=2, sort_keys=False),
                        mimetype="application/json")


def build_api(app: Flask, settings: Settings) -> Api:
    """flask-smorest's Api of this app: the OpenAPI document's settings, the path
    converters, and the key schemes when keys are configured."""
    prefix = settings.api.url_prefix
    app.config.update(
        API_TITLE="Jembatan",
        API_VERSION="1.0",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX=prefix or "/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        # Relative, so that the page finds its files under any prefix a proxy adds.
        OPENAPI_SWAGGER_UI_URL="docs/static/",
        API_SPEC_OPTIONS={
            "info": {"description": _API_DESCRIPTION,
                     "license": {"name": "MIT", "url": "https://spdx.org/licenses/MIT.html"}},
            # With keys configured every operation but /health needs one (docs/api.md §10);
            # without, none does, and the document says so (an empty requirement) rather
            # than declaring schemes nobody checks. 401 is documented only with keys.
            "security": ([{"ApiKey": []}, {"Bearer": []}] if settings.auth.keys
                         else []),
        },
    )
    for name, converter in CONVERTERS.items():
        app.url_map.converters[name] = converter
    api = Api(app, prefix)
    if settings.auth.keys:
        # Both ways of sending a key, so that Swagger UI's "Authorize" button offers them.
        api.spec.components.security_scheme(
            "ApiKey", {"type": "apiKey", "in": "header", "name": "X-API-Key"})
        api.spec.components.security_scheme("Bearer", {"type": "http", "scheme": "bearer"})
    for converter in CONVERTERS.values():
        api.register_converter(converter, lambda conv: dict(conv.openapi))
    return api


def described(doc: str, paragraphs: tuple[str, ...]) -> str:
    """The docstring with these paragraphs after it, indented as it is, so that
    flask-smorest reads them as one description."""
    if not paragraphs:
        return doc
    lines = [line for line in doc.splitlines()[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return doc.rstrip() + "".join("\n" + textwrap.indent(p, " " * indent)
                                  for p in paragraphs) + "\n"


def document_errors(blp: Blueprint, *codes: int,
                    described: Mapping[int, Any] | None = None) -> Decorator:
    """Document the error responses a view can give (the shape of docs/api.md §9), each by
    its name among the components, or as described (a status: its response object).

    Written as the operation's own documentation (flask-smorest's `doc`) rather than with
    `alt_response`, which wraps the view in a function that calls it through
    current_app.ensure_sync: five of those cost about 10 µs a request."""
    return blp.doc(responses={**{code: _ERRORS[code] for code in codes},
                              **(described or {})})


_API_DESCRIPTION = """\
Read-only access to the plant's weighbridge transactions, vehicles, master data and batching
records. Every collection offers: all records (streamed), a page (`/page/{n}`,
`?page_size=`), one record by key, and where it has dates a date range
(`/date/{tglawal}/{jam_awal}/{tglakhir}/{jam_akhir}`, both bounds inclusive, `?on=` picks the
date/time pair, `?page=&page_size=` pages it). Each also answers CSV (`?format=csv` or
`Accept: text/csv`), told in each operation's description rather than listed as a response,
so that clients generated from this document keep the JSON types.

Values: dates `YYYY-MM-DD`, times `HH:MM:SS` (with `.ffffff` only where the value has a
fraction), datetimes `YYYY-MM-DDTHH:MM:SS` in plant local time; DECIMAL columns are JSON
numbers; a NULL is `null` and every field is always present. Errors are JSON
`{"code", "status", "message"}`; 400 for malformed input, 404 for no such record, 503 with
`Retry-After` when the database cannot be reached, and 503 without it, with an `unmapped`
list of fields, on every route of a collection this site has not finished mapping yet.
"""
