"""Every error as JSON in the shape of docs/api.md §9; nothing internal reaches a client."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed, NotFound

from ..core.outcomes import answer_of, said
from ..core.reads import DatabaseUnavailable, ValueRefused
from ..core.services import services
from ..core.unmapped import NotMapped
from ..model.collections import COLLECTIONS
from ..model.problems import Absent, Invalid
from ..model.schemas import ValueMisfit
from . import logged
from .access import bound_collection, current_key
from .logged import outcome

log = logging.getLogger("jembatan")


def error_response(code: int, message: str, **extra: Any) -> Response:
    body = {"code": code, "status": HTTPStatus(code).phrase, "message": message, **extra}
    response = jsonify(body)
    response.status_code = code
    return response


def _validation_message(messages: dict[str, Any]) -> str:
    """webargs' {"query": {"page_size": ["Must be ..."]}} as one readable sentence."""
    parts = []
    for location, per_field in messages.items():
        for name, problems in per_field.items():
            text = " ".join(problems) if isinstance(problems, list) else str(problems)
            parts.append(f"{location} parameter {name}: {text}")
    return "Invalid " + "; ".join(parts)


RANGE_FORMAT = "{YYYY-MM-DD}/{HH:MM[:SS]}/{YYYY-MM-DD}/{HH:MM[:SS]}"


def _malformed_range(path: str) -> str | None:
    """What is wrong with a /<c>/date/... or /<c>/summary/... path that no route took (a
    wrong number of parts: /date/24/11/2026/..., a day without its times), else None."""
    prefix = services(current_app).settings.api.url_prefix
    parts = path.removeprefix(prefix).strip("/").split("/")
    if len(parts) < 2 or parts[1] not in ("date", "summary"):
        return None
    served = services(current_app).collections
    found = next((c for c in served if c.name == parts[0] and c.dates), None)
    if found is None:
        return None
    given = parts[2:]
    return (f"A {'date range' if parts[1] == 'date' else 'summary'} is "
            f"{prefix}/{found.name}/{parts[1]}/{RANGE_FORMAT}: four parts, the start date and "
            f"time, then the end date and time (both inclusive; HH:MM means HH:MM:00), such as "
            f"{prefix}/{found.name}/{parts[1]}/2026-11-01/00:00/2026-11-30/23:59:59. This path "
            f"has {len(given)} part{'s' if len(given) != 1 else ''} after /{parts[1]}"
            f"{' (an empty one among them)' if '' in given else ''}: "
            f"{'/'.join(given) or 'none'}.")


def _not_served(path: str) -> str | None:
    """What to say of a path under one of the ten collections that this site does not serve
    (collections.serve), else None: it has no routes, so any path under it is a 404."""
    prefix = services(current_app).settings.api.url_prefix
    if prefix and not (path == prefix or path.startswith(prefix + "/")):
        return None
    name = path.removeprefix(prefix).lstrip("/").split("/", 1)[0]
    key = current_key()  # a key reads only its own collections: the others are not served
    served = [c for c in services(current_app).collections
              if key is None or key.reads(c.name)]
    if name not in {c.name for c in COLLECTIONS} or name in {c.name for c in served}:
        return None
    return (f"This site does not serve {name}: it serves {', '.join(c.name for c in served)}. "
            f"The collections and their URLs are listed at the index ({prefix}/).")


def handle_http(exc: HTTPException) -> Response:
    code = exc.code or 500
    data = getattr(exc, "data", None) or {}
    if "messages" in data:  # webargs validation
        response = error_response(code, _validation_message(data["messages"]),
                                  errors=data["messages"])
    elif isinstance(exc, MethodNotAllowed):
        response = error_response(code, f"Jembatan is read-only: {request.method} is not "
                                        f"allowed here; use GET or HEAD.")
        response.headers["Allow"] = ", ".join(exc.valid_methods or ("GET", "HEAD"))
    elif isinstance(exc, NotFound) and (absent := _not_served(request.path)):
        response = error_response(code, absent)
    elif isinstance(exc, NotFound) and (wrong := _malformed_range(request.path)):
        response = error_response(400, wrong)
    elif isinstance(exc, NotFound) and exc.description == NotFound.description:
        path = request.path
        hint = (f" Without the trailing slash: {path.rstrip('/')} ."
                if len(path) > 1 and path.endswith("/") else "")
        response = error_response(code, f"Nothing at {path}.{hint} The collections and "
                                        f"their URLs are listed at the index (/); the API "
                                        f"is described at /docs.")
    elif isinstance(exc, InternalServerError):
        return handle_unexpected(exc.original_exception or exc)
    else:
        response = error_response(code, exc.description or "")
    if code == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    for name, value in exc.get_headers():
        if name == "Retry-After":  # a key past its max_concurrent (app/http/access.py)
            response.headers[name] = value
    return response


def _answer(exc: Exception, **extra: Any) -> Response:
    """An exception of the table of outcomes (app/core/outcomes.py): its status, its sentence."""
    found = answer_of(exc)
    assert found is not None and found.status is not None, type(exc)
    return error_response(found.status, said(exc), **extra)


def handle_invalid(exc: Invalid) -> Response:
    """A read asked wrongly: a 400 naming the argument at fault, when one is."""
    if exc.argument is None:
        return _answer(exc)
    messages = {"query": {exc.argument: [said(exc)]}}
    return error_response(400, _validation_message(messages), errors=messages)


def handle_absent(exc: Absent) -> Response:
    """No such record: a 404, the read having sent no record."""
    outcome().rows = 0
    return _answer(exc)


def handle_unavailable(exc: DatabaseUnavailable) -> Response:
    """The database out of reach: a 503 with Retry-After."""
    response = _answer(exc)
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


def handle_not_mapped(exc: NotMapped) -> Response:
    """A read of a collection not mapped yet: 503 with the fields left to map, and no
    Retry-After, since waiting does not help (the operator must map them and restart)."""
    return _answer(exc, unmapped=list(exc.fields))


def handle_refused(exc: ValueRefused) -> Response:
    """A filter value the database cannot compare with its column: a 400."""
    log.info("%s (answered 400)", exc)
    return _answer(exc)


def handle_misfit(exc: ValueMisfit) -> Response:
    """A site's mapping gave a field a value of another type: an error, never the value."""
    bound = bound_collection(current_app)
    collection = "" if bound is None else bound.name
    request_id = logged.request_id()
    services(current_app).runner.report_misfit(collection, exc, request_id)
    return error_response(500, f"This site's mapping of {collection} gives "
                               f"{exc.field or 'a field'} a value that is not "
                               f"{exc.expected}, so no record is sent. The operator can find "
                               f"it in the log under request id {request_id}.",
                          request_id=request_id)


def handle_unexpected(exc: BaseException) -> Response:
    request_id = logged.request_id()
    log.error("request %s %s %s failed", request_id, request.method, request.path,
              exc_info=(type(exc), exc, exc.__traceback__))
    return error_response(500, f"An unexpected error; the operator can find it in the log "
                               f"under request id {request_id}.", request_id=request_id)


def register(app: Flask) -> None:
    app.register_error_handler(HTTPException, handle_http)
    app.register_error_handler(Invalid, handle_invalid)
    app.register_error_handler(Absent, handle_absent)
    app.register_error_handler(DatabaseUnavailable, handle_unavailable)
    app.register_error_handler(ValueRefused, handle_refused)
    app.register_error_handler(NotMapped, handle_not_mapped)
    app.register_error_handler(ValueMisfit, handle_misfit)
    app.register_error_handler(Exception, handle_unexpected)
