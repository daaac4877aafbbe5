"""The Model Context Protocol face of Jembatan: the protocol, over two transports, serving
every tool of the table app/mcp/tools.py builds, which the factory hands to its `Server`
(a key with a scope has a table of its own).

- `POST <url_prefix>/mcp`: the streamable HTTP transport, answering each request with one
  `application/json` body (never an SSE stream) and holding no session (no `Mcp-Session-Id`
  is ever issued); GET, DELETE and the other methods answer 405 with `Allow: POST`. The API
  keys apply as on every other route (app/http/access.py); `[mcp] allowed_origins` says which
  `Origin` headers are admitted (none by default: a request carrying one is a 403).
- `jembatan mcp`: the stdio transport, newline-delimited JSON-RPC on stdin and
  stdout, every log line on stderr.

Both eras of the protocol are served, message by message, as the 2026-07-28 revision's
"dual-era server" does (its basic/versioning page):

- modern (2026-07-28): no handshake; every request carries its version and the client's
  capabilities in `params._meta`, and over HTTP the `MCP-Protocol-Version`, `Mcp-Method` and
  (tools/call) `Mcp-Name` headers, which must match the body. `server/discover` tells the
  versions; `ping` is gone. Results carry `resultType` and the server's identity in `_meta`.
- legacy (2025-06-18, 2025-11-25): `initialize` negotiates the version (the client's when
  supported, else 2025-11-25), then `ping`, `tools/list`, `tools/call`, each over HTTP with
  the `MCP-Protocol-Version` header of the version agreed (a request without one is served
  as the 2025-11-25 transport page allows for an older client).

A message is modern when its `params._meta` names a protocol version (or, over HTTP, its
`MCP-Protocol-Version` header names a modern one); else legacy. Neither era takes a JSON-RPC
batch (removed in 2025-06-18): an array is an invalid request. A tool's answer is a
`structuredContent` and the same as compact JSON text; what goes wrong inside a tool call (its
arguments against the tool's inputSchema, `ToolRefused`, the database) is a result with
`isError`, never a protocol error, and never a stack trace, SQL text or connection string.
"""

from __future__ import annotations

import base64
import binascii
import functools
import logging
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, BinaryIO

import click
import orjson
from flask import Flask, Response, current_app, request
from flask.cli import with_appcontext

from ..core.outcomes import OUTCOMES, answer_of, said
from ..core.reads import QueryFailed, ValueRefused
from ..core.services import services
from ..http.access import current_key
from ..http.errors import error_response
from ..http.logged import outcome, request_id
from ..ops import logs
from ..ops.config import ApiKey, McpSettings
from ..ops.limits import MAX_BODY
from ..ops.metrics import Metrics
from .tools import Tool, ToolRefused

log = logging.getLogger("jembatan")
access = logging.getLogger("jembatan.access")

__all__ = ["LEGACY_VERSIONS", "MODERN_VERSIONS", "Server", "mcp_command", "register",
           "schema_problem", "serve_stdio"]

ENDPOINT = "mcp"  # the endpoint of POST <prefix>/mcp (also its requests' metrics kind)
LEGACY_VERSIONS = ("2025-06-18", "2025-11-25")  # negotiated by `initialize`
MODERN_VERSIONS = ("2026-07-28",)  # declared by each request
SUPPORTED_VERSIONS = (*MODERN_VERSIONS, *reversed(LEGACY_VERSIONS))  # newest first
LEGACY, MODERN = "legacy", "modern"

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH, UNSUPPORTED_VERSION = -32020, -32022  # the 2026-07-28 schema's codes

MAX_MESSAGE = MAX_BODY  # bytes of one message (a POST body, a stdio line): 1 MiB
TOOLS_TTL_MS = 300_000  # tools/list and server/discover may be cached this long (2026-07-28)
# The HTTP status of an error, by its code (the 2026-07-28 transport page); a legacy request
# gets 400 only for what cannot be read at all, its other errors travel in a 200.
_MODERN_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400,
                  HEADER_MISMATCH: 400, UNSUPPORTED_VERSION: 400, METHOD_NOT_FOUND: 404}
_LEGACY_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, HEADER_MISMATCH: 400,
                  UNSUPPORTED_VERSION: 400}
# The methods named in the access log as sent; any other is "other" (a client's text).
_KNOWN_METHODS = frozenset({"initialize", "ping", "tools/list", "tools/call", "server/discover",
                            "notifications/initialized", "notifications/cancelled"})
_ANNOTATIONS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                "openWorldHint": False}
_INSTRUCTIONS = ("Read-only access to a plant's weighbridge and batching database (Jembatan). "
                 "Call `describe` first: it names the collections, their fields, keys, date "
                 "pairs, filters and summary groups that the other tools take.")


class RpcError(Exception):
    """A JSON-RPC error response; `status` overrides the HTTP status its code gets."""

    def __init__(self, code: int, message: str, data: Any = None, status: int | None = None):
        super().__init__(message)
        self.code, self.message, self.data, self.status = code, message, data, status


@dataclass(frozen=True)
class Reply:
    """What one message gets: a JSON-RPC response (None for a notification: HTTP 202 and
    nothing on stdio), its HTTP status, and the note for the access log."""

    body: dict[str, Any] | None
    status: int
    note: str


def shown(value: Any, limit: int = 60) -> str:
    """A client's value quoted for a message, cut short: never a whole hostile string."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"


def _server_info() -> dict[str, str]:
    try:
        version = metadata.version("jembatan")
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    return {"name": "jembatan", "title": "Jembatan", "version": version}


def _unsupported(requested: str) -> RpcError:
    return RpcError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                    {"supported": list(SUPPORTED_VERSIONS), "requested": requested[:100]},
                    status=400)


def _decoded(value: str | None) -> str | None:
    """A header value, with the 2026-07-28 Base64 sentinel (=?base64?...?=) undone."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


class Server:
    """The protocol over any transport: `handle` takes one message's bytes (and, over HTTP,
    its headers) and gives its Reply."""

    def __init__(self, tools: Sequence[Tool], metrics: Metrics | None, settings: McpSettings,
                 key_tools: Mapping[str, Sequence[Tool]] | None = None):
        self.tools, self.metrics, self.settings = tools, metrics, settings
        self.key_tools = dict(key_tools or {})  # a key with a scope: its own table
        self.info = _server_info()

    def tools_for(self, key: ApiKey | None) -> Sequence[Tool]:
        """The tools `key` may call: the app's own table, or for a key with a scope its table
        of its collections, each read within its row condition (docs/api.md §10)."""
        return self.key_tools.get(key.name, self.tools) if key else self.tools

    def handle(self, data: bytes, headers: Mapping[str, str] | None, request_id: str,
               key: ApiKey | None = None) -> Reply:
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            return Reply(_error(None, RpcError(PARSE_ERROR, "Parse error: the message is "
                                                            "not JSON")), 400, "mcp=unreadable")
        try:
            return self.answer(message, headers, request_id, key)
        except Exception:  # a fault of Jembatan's own, outside any tool: logged, not shown
            log.exception("request %s: MCP message failed", request_id)
            ident = message.get("id") if isinstance(message, dict) else None
            failure = RpcError(INTERNAL_ERROR, f"Internal error, request id {request_id}")
            return Reply(_error(ident if isinstance(ident, str | int) else None, failure),
                         500, "mcp=failed")

    def answer(self, message: Any, headers: Mapping[str, str] | None,
               request_id: str, key: ApiKey | None = None) -> Reply:
        ident = message.get("id") if isinstance(message, dict) else None
        ident = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
        era, note = LEGACY, "mcp=invalid"
        try:
            method, params, is_request = _envelope(message)
            note = f"mcp={method if method in _KNOWN_METHODS else 'other'}"
            if not is_request:  # accepted and dropped; only a version we lack is refused
                header = headers.get("MCP-Protocol-Version") if headers is not None else None
                if header is not None and header not in SUPPORTED_VERSIONS:
                    raise _unsupported(header)
                return Reply(None, 202, note)
            era, _ = _era(method, params, headers)
            result, note = self._dispatch(era, method, params, request_id, note,
                                          self.tools_for(key))
        except RpcError as exc:
            table = _MODERN_STATUS if era == MODERN else _LEGACY_STATUS
            return Reply(_error(ident, exc), exc.status or table.get(exc.code, 200), note)
        if era == MODERN:
            result = {"resultType": "complete", **result, "_meta": {SERVER_INFO_KEY: self.info}}
        return Reply({"jsonrpc": "2.0", "id": ident, "result": result}, 200, note)

    def _dispatch(self, era: str, method: str, params: dict[str, Any], request_id: str,
                  note: str, tools: Sequence[Tool]) -> tuple[dict[str, Any], str]:
        if method == "tools/call":
            return self._call(params, request_id, tools)
        if method == "tools/list":
            if params.get("cursor") is not None:  # no listing here was ever cut into pages
                raise RpcError(INVALID_PARAMS, "Invalid cursor: tools/list has one page")
            listing: dict[str, Any] = {"tools": [_listed(t) for t in tools]}
            if era == MODERN:
                listing |= {"ttlMs": TOOLS_TTL_MS, "cacheScope": "private"}
            return listing, note
        if era == LEGACY and method == "initialize":
            return self._initialize(params), note
        if era == LEGACY and method == "ping":
            return {}, note
        if era == MODERN and method == "server/discover":
            return {"supportedVersions": list(SUPPORTED_VERSIONS),
                    "capabilities": {"tools": {}}, "instructions": _INSTRUCTIONS,
                    "ttlMs": TOOLS_TTL_MS, "cacheScope": "private"}, note
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {shown(method)}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise RpcError(INVALID_PARAMS, "initialize needs params.protocolVersion, a string")
        # The client's version when supported, else the latest this handshake reaches; a
        # modern client does not initialize (it sends server/discover or any request).
        return {"protocolVersion": asked if asked in LEGACY_VERSIONS else LEGACY_VERSIONS[-1],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": self.info, "instructions": _INSTRUCTIONS}

    def _call(self, params: dict[str, Any], request_id: str,
              tools: Sequence[Tool]) -> tuple[dict[str, Any], str]:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "tools/call needs params.name, a tool's name")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "tools/call's params.arguments must be an object")
        tool = next((t for t in tools if t.name == name), None)
        if tool is None:
            self._count("(unknown)", "unknown_tool")
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {shown(name)}; the tools are "
                                           f"{', '.join(t.name for t in tools)}")
        outcome, result = run_tool(tool, arguments, request_id)
        self._count(tool.name, outcome)
        return result, f"mcp=tools/call:{tool.name}:{outcome}"

    def _count(self, tool: str, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.tool_call(tool, outcome)


def _error(ident: str | int | None, exc: RpcError) -> dict[str, Any]:
    error: dict[str, Any] = {"code": exc.code, "message": exc.message}
    if exc.data is not None:
        error["data"] = exc.data
    return {"jsonrpc": "2.0", "id": ident, "error": error}


def _envelope(message: Any) -> tuple[str, dict[str, Any], bool]:
    """(method, params, whether it is a request) of a JSON-RPC 2.0 request or notification."""
    if isinstance(message, list):
        raise RpcError(INVALID_REQUEST, "Invalid Request: a JSON-RPC batch is not accepted "
                                        "(MCP removed batching in 2025-06-18); send each "
                                        "message on its own")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
    method = message.get("method")
    if not isinstance(method, str):
        what = ("a response: Jembatan sends no requests to answer"
                if "result" in message or "error" in message else "no method")
        raise RpcError(INVALID_REQUEST, f"Invalid Request: {what}")
    is_request = "id" in message
    ident = message.get("id")
    if is_request and (not isinstance(ident, str | int) or isinstance(ident, bool)):
        raise RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: params must be an object")
    return method, params, is_request


def _era(method: str, params: dict[str, Any],
         headers: Mapping[str, str] | None) -> tuple[str, str | None]:
    """The era a message is served in, and its protocol version (None: a legacy request
    that names none); an unsupported version is an error, as is a modern request whose
    headers disagree with its body."""
    meta = params.get("_meta")
    header = headers.get("MCP-Protocol-Version") if headers is not None else None
    if method != "initialize" and isinstance(meta, dict) and VERSION_KEY in meta:
        return MODERN, _modern(method, params, meta, headers)
    if header is not None and header not in SUPPORTED_VERSIONS:
        raise _unsupported(header)
    if header in MODERN_VERSIONS and method != "initialize":
        return MODERN, _modern(method, params, meta, headers)  # its envelope is missing
    return LEGACY, header if header in LEGACY_VERSIONS else None


def _modern(method: str, params: dict[str, Any], meta: Any,
            headers: Mapping[str, str] | None) -> str:
    """The version of a modern request, its envelope and (HTTP) its headers checked."""
    if not isinstance(meta, dict) or VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
        raise RpcError(INVALID_PARAMS, f"Invalid params: params._meta must carry "
                                       f"{VERSION_KEY} and {CAPABILITIES_KEY}", status=400)
    version = meta[VERSION_KEY]
    if headers is not None:
        checks = (("MCP-Protocol-Version", headers.get("MCP-Protocol-Version"), version),
                  ("Mcp-Method", headers.get("Mcp-Method"), method))
        if method == "tools/call" and isinstance(params.get("name"), str):
            checks += (("Mcp-Name", _decoded(headers.get("Mcp-Name")), params["name"]),)
        for header, sent, body in checks:
            if sent is None or sent != body:
                raise RpcError(HEADER_MISMATCH, f"Header mismatch: {header} "
                                                f"{'is missing' if sent is None else shown(sent)}"
                                                f" where the body says {shown(body)}",
                               status=400)
    if not isinstance(version, str):
        raise RpcError(INVALID_PARAMS, f"Invalid params: {VERSION_KEY} must be a string",
                       status=400)
    if version not in MODERN_VERSIONS:
        raise _unsupported(version)
    return version


def _listed(tool: Tool) -> dict[str, Any]:
    """A tool as tools/list tells it."""
    return {"name": tool.name, "title": tool.title, "description": tool.description,
            "inputSchema": tool.input_schema, "outputSchema": tool.output_schema,
            "annotations": {"title": tool.title, **_ANNOTATIONS}}


def _tool_error(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def run_tool(tool: Tool, arguments: dict[str, Any], request_id: str
             ) -> tuple[str, dict[str, Any]]:
    """(outcome, CallToolResult) of one call: ok, or refused, unmapped, unavailable, failed,
    error with `isError` and a message for the model (never an internal detail)."""
    problem = schema_problem(tool.input_schema, arguments)
    if problem is not None:
        return "refused", _tool_error(f"Invalid arguments for {tool.name}: {problem}")
    try:
        structured = tool.call(arguments)
        text = orjson.dumps(structured).decode()
    except ToolRefused as exc:
        return "refused", _tool_error(str(exc))
    except tuple(OUTCOMES) as exc:
        found = answer_of(exc)
        assert found is not None
        if isinstance(exc, ValueRefused):
            log.info("request %s: MCP tool %s: %s (a tool error)", request_id, tool.name, exc)
        elif isinstance(exc, QueryFailed):  # its detail is in the log already (app/database/db.py)
            log.error("request %s: MCP tool %s: %s", request_id, tool.name, exc)
        wait = f"{getattr(exc, 'retry_after', 0)} seconds"
        return found.mcp, _tool_error(said(exc, request_id, wait))
    except Exception:
        log.exception("request %s: MCP tool %s failed", request_id, tool.name)
        return "error", _tool_error(f"internal error, request id {request_id}")
    return "ok", {"content": [{"type": "text", "text": text}], "structuredContent": structured}


# -- the arguments against a tool's inputSchema -------------------------------------------
#
# The subset of JSON Schema the tools' schemas are written in: type, enum, const, the string,
# number, array and object keywords, anyOf/oneOf/allOf. Any other keyword is not checked here
# (the tool checks what it takes and raises ToolRefused). Stricter than JSON Schema in one
# place: 1.0 is not an integer, so that a tool's integer argument is a Python int.

_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def _kind(value: Any) -> str:
    return next(k for k in ("null", "boolean", "integer", "number", "string", "array",
                            "object") if _TYPES[k](value))


def schema_problem(schema: Any, value: Any, at: str = "arguments") -> str | None:
    """What is wrong with `value` against `schema` (the first problem), or None."""
    if schema is False:
        return f"{at} is not accepted"
    if not isinstance(schema, Mapping):
        return None
    for check in (_type_problem, _choice_problem, _string_problem, _number_problem,
                  _array_problem, _object_problem, _combined_problem):
        if (problem := check(schema, value, at)) is not None:
            return problem
    return None


def _type_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    if kinds and not any(_TYPES.get(k, lambda v: True)(value) for k in kinds):
        return f"{at} must be {' or '.join(kinds)}, not {_kind(value)}"
    return None


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b  # True is not 1, 1 is not 1.0


def _choice_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    if "const" in schema and not _same(schema["const"], value):
        return f"{at} must be {orjson.dumps(schema['const']).decode()}"
    choices = schema.get("enum")
    if isinstance(choices, list) and not any(_same(c, value) for c in choices):
        listed = ", ".join(orjson.dumps(c).decode() for c in choices[:30])
        return f"{at} must be one of {listed}{', ...' if len(choices) > 30 else ''}"
    return None


@functools.lru_cache(maxsize=256)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _length_problem(schema: Mapping[str, Any], size: int, at: str, keys: tuple[str, str],
                    unit: str) -> str | None:
    """A string's or an array's size against its (maximum, minimum) keywords."""
    most, least = keys
    if size > schema.get(most, size):
        return f"{at} must have at most {schema[most]} {unit} (it has {size})"
    if size < schema.get(least, 0):
        return f"{at} must have at least {schema[least]} {unit}"
    return None


def _string_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    if not isinstance(value, str):
        return None
    problem = _length_problem(schema, len(value), at, ("maxLength", "minLength"), "characters")
    if problem is not None:
        return problem
    if isinstance(schema.get("pattern"), str) and not _pattern(schema["pattern"]).search(value):
        return f"{at} must match {schema['pattern']}"
    return None


def _number_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    if not _TYPES["number"](value):
        return None
    bounds = (("minimum", lambda b: value < b, "at least"),
              ("maximum", lambda b: value > b, "at most"),
              ("exclusiveMinimum", lambda b: value <= b, "more than"),
              ("exclusiveMaximum", lambda b: value >= b, "less than"))
    for key, beyond, words in bounds:
        if _TYPES["number"](bound := schema.get(key)) and beyond(bound):
            return f"{at} must be {words} {bound}"
    return None


def _array_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    if not isinstance(value, list):
        return None
    problem = _length_problem(schema, len(value), at, ("maxItems", "minItems"), "items")
    if problem is not None:
        return problem
    items = schema.get("items")
    if isinstance(items, Mapping | bool):
        for n, item in enumerate(value):
            if (problem := schema_problem(items, item, f"{at}[{n}]")) is not None:
                return problem
    return None


def _object_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    if not isinstance(value, dict):
        return None
    properties = schema.get("properties") or {}
    missing = [name for name in schema.get("required", ()) if name not in value]
    if missing:
        return f"{at} lacks {', '.join(missing)} (required)"
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            problem = schema_problem(properties[name], item, f"{at}.{name}")
        elif extra is False:
            takes = f"it takes: {', '.join(properties)}" if properties else "it takes none"
            problem = f"{at} takes no property {shown(name)}; {takes}"
        else:
            problem = schema_problem(extra, item, f"{at}.{shown(name, 40)}")
        if problem is not None:
            return problem
    return None


def _combined_problem(schema: Mapping[str, Any], value: Any, at: str) -> str | None:
    for sub in schema.get("allOf", ()):
        if (problem := schema_problem(sub, value, at)) is not None:
            return problem
    for key in ("anyOf", "oneOf"):
        forms = schema.get(key)
        if not isinstance(forms, list):
            continue
        problems = [schema_problem(form, value, at) for form in forms]
        passed = problems.count(None)
        if passed == 0:
            return f"{at} fits none of the forms it may take ({problems[0]})"
        if key == "oneOf" and passed > 1:
            return f"{at} fits more than one of the forms it may take"
    return None


# -- HTTP: POST <url_prefix>/mcp --------------------------------------------------------------

def register(app: Flask, prefix: str, server: Server) -> None:
    """The HTTP endpoint of `server`, unless [mcp] enabled = false: `mcp` takes POST, the
    other methods are `mcp_refused` (405)."""
    if not server.settings.enabled:
        return
    rule = f"{prefix}/mcp"
    app.add_url_rule(rule, ENDPOINT, _post, methods=["POST"], provide_automatic_options=False)
    app.add_url_rule(rule, "mcp_refused", _refused, provide_automatic_options=False,
                     methods=["GET", "DELETE", "PUT", "PATCH", "OPTIONS"])


def _refused() -> Response:
    response = error_response(405, f"/mcp takes POST only (MCP's streamable HTTP transport, "
                                   f"without a GET stream or sessions): {request.method} is "
                                   f"not allowed here.")
    response.headers["Allow"] = "POST"
    return response


def _transport_error(status: int, message: str) -> Response:
    body = _error(None, RpcError(INVALID_REQUEST, message))
    return Response(orjson.dumps(body), status, mimetype="application/json")


def _accepts_json(accept: str | None) -> bool:
    """Whether an Accept header admits application/json (no header admits anything)."""
    if accept is None or not accept.strip():
        return True
    for part in accept.split(","):
        kind, *parameters = (p.strip().lower() for p in part.split(";"))
        refused = any(p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000")
                      for p in parameters)
        if kind in ("application/json", "application/*", "*/*") and not refused:
            return True
    return False


def _admission() -> Response | None:
    """The transport's refusals, before the body is read: an Origin not allowed (403), a
    body that is not JSON (415), an Accept without JSON (406), a body too large (413)."""
    server: Server = services(current_app).mcp
    origin = request.headers.get("Origin")
    if origin is not None and origin.lower() not in server.settings.allowed_origins:
        return _transport_error(403, f"Origin {shown(origin)} may not call /mcp "
                                     f"(mcp.allowed_origins)")
    if request.mimetype != "application/json":
        return _transport_error(415, "An MCP message is sent as Content-Type: "
                                     "application/json")
    if not _accepts_json(request.headers.get("Accept")):
        return _transport_error(406, "Jembatan answers MCP with application/json only (no "
                                     "SSE stream): the Accept header must admit it")
    if (request.content_length or 0) > MAX_MESSAGE:
        return _transport_error(413, f"An MCP message is at most {MAX_MESSAGE} bytes")
    return None


def _post() -> Response:
    refusal = _admission()
    if refusal is not None:
        return refusal
    data = request.stream.read(MAX_MESSAGE + 1)
    if len(data) > MAX_MESSAGE:  # a chunked body with no Content-Length
        return _transport_error(413, f"An MCP message is at most {MAX_MESSAGE} bytes")
    server: Server = services(current_app).mcp
    reply = server.handle(data, request.headers, request_id(), current_key())
    outcome().note = reply.note  # the access line names the method and the tool
    if reply.body is None:
        response = Response(status=reply.status)
        del response.headers["Content-Type"]
        return response
    return Response(orjson.dumps(reply.body), reply.status, mimetype="application/json")


# -- stdio: jembatan mcp --------------------------------------------------------------

def _lines(source: BinaryIO) -> Iterator[bytes | None]:
    """The messages of a newline-delimited stream; None for a line over MAX_MESSAGE, which
    is read to its end and dropped."""
    while line := source.readline(MAX_MESSAGE + 1):
        if len(line) > MAX_MESSAGE and not line.endswith(b"\n"):
            while (rest := source.readline(MAX_MESSAGE + 1)) and not rest.endswith(b"\n"):
                pass
            yield None
        else:
            yield line


def serve_stdio(server: Server, source: BinaryIO, sink: BinaryIO) -> None:
    """Answer each message of `source` on `sink` until `source` ends. Anything else written
    to sys.stdout meanwhile goes to stderr, so that `sink` carries MCP messages only."""
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        for line in _lines(source):
            if line is not None and not line.strip():
                continue
            started, request_id = time.monotonic(), logs.new_id()
            if line is None:
                reply = Reply(_error(None, RpcError(INVALID_REQUEST, f"A message is at most "
                                                                     f"{MAX_MESSAGE} bytes")),
                              400, "mcp=too long")
            else:
                reply = server.handle(line, None, request_id)
            if reply.body is not None:
                sink.write(orjson.dumps(reply.body) + b"\n")
                sink.flush()
            access.info("stdio %s %s %.3fs", request_id, reply.note,
                        time.monotonic() - started)
    except BrokenPipeError:  # the client went away: nothing more to answer
        pass
    finally:
        sys.stdout = saved


@click.command("mcp")
@with_appcontext
def mcp_command() -> None:
    """Serve the MCP tools on stdin and stdout (the stdio transport), logging to stderr.

    An assistant starts this command itself; it ends when its stdin closes."""
    server: Server = services(current_app).mcp
    log.info("MCP on stdio: tools %s", ", ".join(t.name for t in server.tools))
    serve_stdio(server, sys.stdin.buffer, sys.stdout.buffer)
