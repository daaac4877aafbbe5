"""The Model Context Protocol face (app/mcp/protocol.py), the protocol part: the official `mcp`
SDK's client in each of its modes (legacy: the initialize handshake at 2025-11-25; auto: the
server/discover probe; "2026-07-28": the version pinned, no probe) through a real gunicorn
and through `jembatan mcp` on stdio; then raw HTTP for what a client of another
make, or a hostile one, may send; then the tool errors, with tools put into the table of a
Flask test app (the database's own failures among them). One engine (sqlite3) is enough for
the protocol: the tools' answers are compared on every engine where the tools are tested."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import requests

from app import create_app
from app.core.services import services
from app.database.db import DatabaseUnavailable, QueryFailed
from app.mcp.protocol import MAX_MESSAGE, schema_problem, serve_stdio
from app.mcp.tools import Tool, ToolRefused
from tests.conftest import build_database
from tests.servers import JEMBATAN, ROOT, Running, gunicorn

KEY = "mcp-test-key-0123456789"
KEYED = {"X-API-Key": KEY}  # /metrics with keys configured (docs/api.md §11)
ALLOWED_ORIGIN = "https://assistant.plant.local"
ROWS = {"customers": [{"id": i, "CustCode": f"C{i}", "CustName": f"PT {i}"} for i in (1, 2)]}
MODES = ("legacy", "auto", "2026-07-28")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("mcp")
    (work / "none.toml").write_text("")  # the stdio processes' settings: the environment's
    return work


@pytest.fixture(scope="module")
def database(work: Path) -> Path:
    return build_database(work / "plant.sqlite3", ROWS)


@pytest.fixture(scope="module")
def server(work: Path, database: Path) -> Iterator[Running]:
    """One gunicorn for the module: an API key, and one origin admitted at /mcp."""
    config = work / "mcp.toml"
    config.write_text(f'[mcp]\nallowed_origins = ["{ALLOWED_ORIGIN}"]\n')
    env = {"JEMBATAN_SQLITE": str(database), "JEMBATAN_API_KEYS": KEY,
           "JEMBATAN_CONFIG": str(config)}
    with gunicorn(work, env) as running:
        yield running


@pytest.fixture(scope="module")
def table(database: Path) -> tuple[Tool, ...]:
    """The tools the factory builds for this database, as the server has them."""
    return services(create_app({"database": {"sqlite": str(database)}})).mcp.tools


def index(server: Running) -> list[dict[str, Any]]:
    response = requests.get(server.base + "/", headers={"X-API-Key": KEY}, timeout=10)
    assert response.status_code == 200
    return [{k: c[k] for k in ("name", "key", "order")} for c in response.json()["collections"]]


def check_describe(result: Any, collections: list[dict[str, Any]]) -> None:
    """describe's answer: its collections' names, keys and orders those of the index, in
    its order, and the text content the same structure as compact JSON."""
    assert not result.is_error
    structured = result.structured_content
    assert [{k: c[k] for k in ("name", "key", "order")} for c in structured["collections"]] \
        == collections
    assert [c.type for c in result.content] == ["text"]
    assert result.content[0].text == json.dumps(structured, separators=(",", ":"),
                                                ensure_ascii=False)


def check_listing(listing: Any, table: tuple[Tool, ...]) -> None:
    assert [t.name for t in listing.tools] == [t.name for t in table]
    for listed, tool in zip(listing.tools, table, strict=True):
        assert listed.title == tool.title and listed.description == tool.description
        assert listed.input_schema == tool.input_schema
        assert listed.output_schema == tool.output_schema
        assert listed.annotations.read_only_hint is True
        assert listed.annotations.destructive_hint is False


# -- the SDK's client, in each of its modes -------------------------------------------------

async def sdk_session(url: str, mode: str, seen: list[tuple[str, dict[str, str], Any]],
                      answers: list[tuple[int, dict[str, str]]], headers: dict[str, str]
                      ) -> tuple[str | None, Any, Any]:
    """Connect in `mode`, list the tools, call describe; every request and every answer's
    status and headers are recorded."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def on_request(sent: Any) -> None:
        body = json.loads(sent.content) if sent.content else None
        seen.append((sent.method, {k.lower(): v for k, v in sent.headers.items()}, body))

    async def on_response(got: Any) -> None:
        answers.append((got.status_code, {k.lower(): v for k, v in got.headers.items()}))

    http = create_mcp_http_client(headers=headers)
    http.event_hooks = {"request": [on_request], "response": [on_response]}
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        listing = await client.list_tools()
        described = await client.call_tool("describe", {})
        # a read, its answer checked by the client against the tool's outputSchema
        read = await client.call_tool("read_records", {"collection": "customers", "limit": 1})
        assert not read.is_error, read.content
        assert (read.structured_content["total"], len(read.structured_content["records"])) \
            == (2, 1)
        return client.session.protocol_version, listing, described


@pytest.mark.parametrize("mode", MODES)
def test_the_sdk_client_in_each_mode(server: Running, table: tuple[Tool, ...],
                                     mode: str) -> None:
    seen: list[tuple[str, dict[str, str], Any]] = []
    answers: list[tuple[int, dict[str, str]]] = []
    version, listing, described = anyio.run(sdk_session, server.base + "/mcp", mode, seen,
                                            answers, {"X-API-Key": KEY})
    check_listing(listing, table)
    check_describe(described, index(server))
    methods = [body["method"] for _, _, body in seen][:-1]  # the read last
    seen = seen[:-1]
    versions = [headers.get("mcp-protocol-version") for _, headers, _ in seen]
    if mode == "legacy":  # the handshake at 2025-11-25, the version header after it
        assert version == "2025-11-25"
        assert methods == ["initialize", "notifications/initialized", "tools/list",
                           "tools/call"]
        assert seen[0][2]["params"]["protocolVersion"] == "2025-11-25"
        assert versions == [None] + ["2025-11-25"] * 3
    else:  # per request: the version in _meta and in the headers, no handshake
        assert version == "2026-07-28"
        assert methods == (["server/discover"] if mode == "auto" else []) + [
            "tools/list", "tools/call"]
        assert versions == ["2026-07-28"] * len(methods)
        for _, headers, body in seen:
            assert body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] \
                == "2026-07-28"
            assert headers["mcp-method"] == body["method"]
        assert seen[-1][1]["mcp-name"] == "describe"
    assert {method for method, _, _ in seen} == {"POST"}  # no GET stream, no DELETE
    assert all(a["content-type"] == "application/json" for status, a in answers
               if status != 202)
    assert not any("mcp-session-id" in a for _, a in answers)
    assert sorted({status for status, _ in answers}) == ([200, 202] if mode == "legacy"
                                                         else [200])


@pytest.mark.parametrize("mode", MODES)
def test_the_sdk_client_on_stdio(work: Path, database: Path, table: tuple[Tool, ...],
                                 server: Running, mode: str) -> None:
    """`jembatan mcp` started by the SDK's stdio client, the database named in the
    environment; its log lines go to stderr, stdout carries the messages alone."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(JEMBATAN), args=["mcp"], cwd=str(work),
        env={"JEMBATAN_CONFIG": str(work / "none.toml"), "JEMBATAN_SQLITE": str(database),
             "PYTHONPATH": str(ROOT)})
    stderr_path = work / f"stdio-{mode}.log"

    async def session() -> tuple[str | None, Any, Any]:
        with open(stderr_path, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                return (client.session.protocol_version, await client.list_tools(),
                        await client.call_tool("describe", {}))

    version, listing, described = anyio.run(session)
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    check_listing(listing, table)
    check_describe(described, index(server))
    logged = stderr_path.read_text()
    assert "MCP on stdio: tools describe" in logged
    assert "mcp=tools/call:describe:ok" in logged


def test_stdio_answers_each_line_and_nothing_else(work: Path, database: Path) -> None:
    """Raw lines on stdin: every stdout line one JSON-RPC response, in order; nothing for a
    notification or a blank line; an unreadable line, a batch, a line over the limit each
    an error that names no id; the process ends when stdin closes."""
    lines = [b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
             b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}', b"   ", b"{nope",
             b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]', b"x" * (MAX_MESSAGE + 10),
             b'{"jsonrpc":"2.0","id":3,"method":"ping"}',
             b'{"jsonrpc":"2.0","id":"4","method":"ping","params":{"_meta":'
             + json.dumps(META).encode() + b"}}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")} | {
        "JEMBATAN_CONFIG": str(work / "none.toml"), "JEMBATAN_SQLITE": str(database),
        "PYTHONPATH": str(ROOT)}
    done = subprocess.run([str(JEMBATAN), "mcp"], input=b"\n".join(lines)
                          + b"\n", capture_output=True, cwd=work, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a.get("id"), a.get("error", {}).get("code")) for a in answers] == [
        (1, None), (None, -32700), (None, -32600), (None, -32600), (3, None),
        ("4", -32601)]  # ping is gone at 2026-07-28
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[4]["result"] == {}
    assert b"Jembatan serves" in done.stderr


# -- raw HTTP ---------------------------------------------------------------------------------

def post(server: Running, body: Any, *, key: str | None = KEY, raw: bytes | None = None,
         **headers: str) -> requests.Response:
    sent = {"Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"} | headers
    if key is not None:
        sent["X-API-Key"] = key
    data = raw if raw is not None else json.dumps(body).encode()
    return requests.post(server.base + "/mcp", data=data, headers=sent, timeout=30)


def rpc(method: str, params: dict[str, Any] | None = None, ident: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method,
            **({"params": params} if params is not None else {})}


def modern(server: Running, method: str, params: dict[str, Any] | None = None,
           **headers: str) -> requests.Response:
    sent = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method} | headers
    return post(server, rpc(method, {**(params or {}), "_meta": META}), **sent)


def legacy(server: Running, method: str, params: dict[str, Any] | None = None,
           **headers: str) -> requests.Response:
    return post(server, rpc(method, params), **{"MCP-Protocol-Version": "2025-11-25"} | headers)


def error_of(response: requests.Response, status: int, code: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json"
    assert "Mcp-Session-Id" not in response.headers
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == code, body
    return str(body["error"]["message"])


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "OPTIONS"])
def test_any_method_but_post_is_405(server: Running, method: str) -> None:
    for headers in ({}, {"X-API-Key": KEY}):  # a 405 before the key, as on every route
        response = requests.request(method, server.base + "/mcp", headers=headers,
                                    timeout=10)
        assert response.status_code == 405 and response.headers["Allow"] == "POST"
        assert response.json()["code"] == 405 and "POST" in response.json()["message"]


def test_the_key_is_asked_as_on_every_route(server: Running) -> None:
    assert post(server, rpc("tools/list"), key=None).status_code == 401
    assert post(server, rpc("tools/list"), key="wrong").status_code == 401
    assert legacy(server, "tools/list").status_code == 200
    bearer = post(server, rpc("tools/list"), key=None, Authorization=f"Bearer {KEY}",
                  **{"MCP-Protocol-Version": "2025-11-25"})
    assert bearer.status_code == 200 and bearer.json()["result"]["tools"]


def test_what_cannot_be_read(server: Running) -> None:
    error_of(post(server, None, raw=b"{nope"), 400, -32700)
    error_of(post(server, None, raw=b"\xff\xfe"), 400, -32700)
    error_of(post(server, None, raw=b""), 400, -32700)
    assert "batch" in error_of(post(server, [rpc("ping"), rpc("ping", ident=2)]), 400, -32600)
    for bad in ({"id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": None, "method": "ping"},
                {"jsonrpc": "2.0", "id": True, "method": "ping"}, {"jsonrpc": "2.0", "id": 1},
                {"jsonrpc": "2.0", "id": 1, "result": {}}, "ping", 7):
        error_of(post(server, bad), 400, -32600)
    error_of(post(server, rpc("tools/list", [1]), **{"MCP-Protocol-Version": "2025-11-25"}),
             200, -32602)


def test_transport_refusals(server: Running) -> None:
    assert post(server, rpc("ping"), Accept="text/html").status_code == 406
    assert post(server, rpc("ping"), Accept="application/json;q=0").status_code == 406
    for accept in ("application/json", "*/*", ""):  # SSE not asked for: JSON is all we send
        assert post(server, rpc("ping"), Accept=accept).status_code == 200
    refused = post(server, rpc("ping"), **{"Content-Type": "text/plain"})
    assert refused.status_code == 415 and refused.json()["error"]["code"] == -32600
    too_big = post(server, None, raw=b" " * (MAX_MESSAGE + 1))
    assert too_big.status_code == 413
    query = requests.post(server.base + "/mcp?x=1", json=rpc("ping"), timeout=10,
                          headers={"X-API-Key": KEY})
    assert query.status_code == 400  # no query argument, as on every route that takes none


def test_origin(server: Running) -> None:
    """Only requests without Origin, or from an origin in mcp.allowed_origins (the DNS
    rebinding check of the transport): a local page's origin is not admitted either."""
    for origin in ("https://evil.example", "http://localhost:3000", "null",
                   ALLOWED_ORIGIN + ".evil.example"):
        response = post(server, rpc("ping"), Origin=origin)
        assert error_of(response, 403, -32600).startswith("Origin ")
        assert response.json()["id"] is None
    assert post(server, rpc("ping"), Origin=ALLOWED_ORIGIN).status_code == 200
    assert post(server, rpc("ping"), Origin=ALLOWED_ORIGIN.upper()).status_code == 200


def test_versions(server: Running) -> None:
    def initialize(version: Any) -> requests.Response:
        return post(server, rpc("initialize", {"protocolVersion": version, "capabilities": {},
                                               "clientInfo": {"name": "t", "version": "1"}}))

    for asked, agreed in (("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"),
                          ("2025-03-26", "2025-11-25"), ("2099-01-01", "2025-11-25"),
                          ("2026-07-28", "2025-11-25")):  # a modern client does not initialize
        answer = initialize(asked)
        assert answer.status_code == 200 and "Mcp-Session-Id" not in answer.headers
        assert answer.json()["result"]["protocolVersion"] == agreed
        assert answer.json()["result"]["serverInfo"]["name"] == "jembatan"
    error_of(initialize(20251125), 200, -32602)
    for header in ("2099-01-01", "2025-03-26", "garbage"):  # later requests: 400
        message = error_of(legacy(server, "tools/list", **{"MCP-Protocol-Version": header}),
                           400, -32022)
        assert message == "Unsupported protocol version"
        note = post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    **{"MCP-Protocol-Version": header})
        assert note.status_code == 400
    data = legacy(server, "ping", **{"MCP-Protocol-Version": "2099-01-01"}).json()["error"]
    assert data["data"] == {"supported": ["2026-07-28", "2025-11-25", "2025-06-18"],
                            "requested": "2099-01-01"}
    # a request that names no version is served, as the 2025-11-25 transport allows
    assert post(server, rpc("ping")).json()["result"] == {}
    # a modern request at a version this server lacks: -32022, with what it has
    unknown = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    error_of(post(server, rpc("tools/list", {"_meta": unknown}),
                  **{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"}),
             400, -32022)


def test_modern_requests_are_checked_against_their_headers(server: Running) -> None:
    discover = modern(server, "server/discover").json()["result"]
    assert discover["resultType"] == "complete" and "2026-07-28" in discover["supportedVersions"]
    assert discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "jembatan"
    listing = modern(server, "tools/list").json()["result"]
    assert listing["ttlMs"] >= 0 and listing["cacheScope"] in ("public", "private")
    error_of(modern(server, "tools/list", **{"Mcp-Method": "tools/call"}), 400, -32020)
    error_of(modern(server, "tools/list", **{"MCP-Protocol-Version": "2025-11-25"}),
             400, -32020)
    call = {"name": "describe", "arguments": {}}
    error_of(modern(server, "tools/call", call, **{"Mcp-Name": "other"}), 400, -32020)
    error_of(modern(server, "tools/call", call), 400, -32020)  # Mcp-Name missing
    encoded = modern(server, "tools/call", call, **{"Mcp-Name": "=?base64?ZGVzY3JpYmU=?="})
    assert encoded.status_code == 200 and not encoded.json()["result"].get("isError")
    bare = post(server, rpc("tools/list"), **{"MCP-Protocol-Version": "2026-07-28",
                                               "Mcp-Method": "tools/list"})
    assert "_meta" in error_of(bare, 400, -32602)


def test_unknown_methods_and_notifications(server: Running) -> None:
    for method in ("resources/list", "prompts/list", "logging/setLevel", "x" * 5000):
        assert len(error_of(legacy(server, method), 200, -32601)) < 200
        error_of(modern(server, method), 404, -32601)
    error_of(legacy(server, "server/discover"), 200, -32601)  # a modern method
    error_of(modern(server, "ping"), 404, -32601)  # gone at 2026-07-28
    for note in ("notifications/initialized", "notifications/cancelled", "no/such"):
        got = post(server, {"jsonrpc": "2.0", "method": note},
                   **{"MCP-Protocol-Version": "2025-11-25"})
        assert got.status_code == 202 and got.content == b""
        assert "Content-Type" not in got.headers


def test_tools_call_with_hostile_arguments(server: Running) -> None:
    """The call's own shape wrong: a protocol error (-32602); the arguments wrong against
    the tool's inputSchema: a tool error the model can read; never a 500, never the whole
    hostile value sent back."""
    assert "Unknown tool: 'nope'" in error_of(
        legacy(server, "tools/call", {"name": "nope"}), 200, -32602)
    error_of(modern(server, "tools/call", {"name": "nope"}, **{"Mcp-Name": "nope"}),
             400, -32602)
    for params in ({}, {"name": 7}, {"name": "describe", "arguments": "x"},
                   {"name": "describe", "arguments": [1]}, {"name": "describe",
                                                            "arguments": 5}):
        error_of(legacy(server, "tools/call", params), 200, -32602)
    huge = "x" * 300_000
    for arguments in ({"x": 1}, {huge: 1}, {"collection": huge}, {"a": {"b": [None] * 1000}}):
        answer = legacy(server, "tools/call", {"name": "describe", "arguments": arguments})
        assert answer.status_code == 200
        result = answer.json()["result"]
        assert result["isError"] is True and "structuredContent" not in result
        assert len(result["content"][0]["text"]) < 300
        assert result["content"][0]["text"].startswith("Invalid arguments for describe:")
    nested = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"describe",' \
        b'"arguments":{"a":' + b"[" * 500 + b"]" * 500 + b"}}}"
    deep = post(server, None, raw=nested, **{"MCP-Protocol-Version": "2025-11-25"})
    assert deep.status_code == 200 and deep.json()["result"]["isError"] is True
    too_deep = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":' + b"[" * 2000 \
        + b"]" * 2000 + b"}}"
    error_of(post(server, None, raw=too_deep), 400, -32700)


def test_metrics_and_the_access_log(server: Running) -> None:
    def calls(outcome: str) -> float:
        text = requests.get(server.base + "/metrics", timeout=10, headers=KEYED).text
        line = f'jembatan_mcp_tool_calls_total{{outcome="{outcome}",tool="describe"}}'
        return next((float(s.split()[-1]) for s in text.splitlines()
                     if s.startswith(line)), 0.0)

    ok, refused = calls("ok"), calls("refused")
    legacy(server, "tools/call", {"name": "describe"})
    legacy(server, "tools/call", {"name": "describe", "arguments": {"x": 1}})
    legacy(server, "tools/call", {"name": "describe", "arguments": {"y": 1}})
    assert (calls("ok") - ok, calls("refused") - refused) == (1, 2)
    text = requests.get(server.base + "/metrics", timeout=10, headers=KEYED).text
    assert 'jembatan_requests_total{kind="mcp",status="200"}' in text
    log = server.log()
    assert "POST /mcp 200" in log and "mcp=tools/call:describe:refused" in log
    assert "mcp=other" in log and "x" * 100 not in log  # the client's method is not logged


# -- tool errors, with tools put into the table --------------------------------------------

def call_in(app: Any, name: str, arguments: Any = None) -> dict[str, Any]:
    response = app.test_client().post("/mcp", json=rpc("tools/call", {
        "name": name, **({"arguments": arguments} if arguments is not None else {})}))
    assert response.status_code == 200
    return dict(response.get_json()["result"])


def tool(name: str, call: Any, properties: dict[str, Any] | None = None,
         required: tuple[str, ...] = ()) -> Tool:
    schema = {"type": "object", "properties": properties or {}, "additionalProperties": False,
              **({"required": list(required)} if required else {})}
    return Tool(name, name.title(), f"a test tool {name}", schema,
                {"type": "object"}, call)


def test_what_goes_wrong_inside_a_tool_is_a_tool_error(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    path = build_database(tmp_path / "plant.sqlite3", ROWS)
    app = create_app({"database": {"sqlite": str(path), "prove_on_first_read": False}})
    db = services(app).db

    def ping(arguments: Any) -> dict[str, Any]:
        db.ping()
        return {"ok": True}

    def refuse(arguments: Any) -> dict[str, Any]:
        raise ToolRefused("collection 'nope' is not served; the collections are: customers")

    def fail(arguments: Any) -> dict[str, Any]:
        raise QueryFailed("query customers.records failed",
                          "no such column: SECRET (SELECT SECRET FROM t) PWD=hunter2")

    def crash(arguments: Any) -> dict[str, Any]:
        raise RuntimeError("Driver={x};PWD=hunter2 SELECT * FROM secret")

    def odd(arguments: Any) -> dict[str, Any]:
        return {"value": object()}

    services(app).mcp.tools = tuple(
        tool(n, f) for n, f in (("ping", ping), ("refuse", refuse), ("fail", fail),
                                ("crash", crash), ("odd", odd)))
    assert call_in(app, "ping") == {"content": [{"type": "text", "text": '{"ok":true}'}],
                                    "structuredContent": {"ok": True}}
    refused = call_in(app, "refuse")
    assert refused == {"content": [{"type": "text", "text": "collection 'nope' is not served; "
                                    "the collections are: customers"}], "isError": True}
    caplog.set_level(logging.INFO, logger="jembatan")
    for name in ("fail", "crash", "odd"):
        text = call_in(app, name)["content"][0]["text"]
        assert "SECRET" not in text and "hunter2" not in text and "Traceback" not in text
        assert ("request id" in text) and call_in(app, name)["isError"] is True
    assert any(r.exc_info and "hunter2" in str(r.exc_info[1]) for r in caplog.records)
    assert "internal error, request id " in call_in(app, "crash")["content"][0]["text"]
    assert "database refused the query" in call_in(app, "fail")["content"][0]["text"]
    gone = build_database(tmp_path / "gone.sqlite3", ROWS)
    app = create_app({"database": {"sqlite": str(gone), "prove_on_first_read": False}})
    db = services(app).db
    services(app).mcp.tools = (tool("ping", ping),)
    gone.unlink()  # the database gone: the tool's read is unavailable, with its reason
    down = call_in(app, "ping")
    assert down["isError"] is True
    assert down["content"][0]["text"] == (
        f"The database is unavailable (database file unreadable); try again in "
        f"{DatabaseUnavailable.retry_after} seconds.")


def test_the_arguments_against_the_schema(tmp_path: Path) -> None:
    app = create_app({"database": {"sqlite": str(build_database(tmp_path / "p.sqlite3",
                                                                ROWS))}})
    properties = {"collection": {"type": "string", "enum": ["customers", "products"]},
                  "page": {"type": "integer", "minimum": 1},
                  "fields": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                  "on": {"type": ["string", "null"], "pattern": "^[a-z]+$"},
                  "filters": {"type": "object", "additionalProperties": {"type": "string"}}}
    services(app).mcp.tools = (
        tool("echo", lambda a: dict(a), properties, required=("collection",)),)
    good = {"collection": "customers", "page": 2, "fields": ["id"], "on": None,
            "filters": {"CustCode": "C1"}}
    assert call_in(app, "echo", good)["structuredContent"] == good
    cases = [({}, "arguments lacks collection (required)"),
             ({"collection": "vehicles"}, "arguments.collection must be one of"),
             ({"collection": 1}, "arguments.collection must be string, not integer"),
             ({"collection": "customers", "page": 0}, "arguments.page must be at least 1"),
             ({"collection": "customers", "page": 1.0}, "arguments.page must be integer"),
             ({"collection": "customers", "page": True}, "arguments.page must be integer"),
             ({"collection": "customers", "fields": ["a", 2]},
              "arguments.fields[1] must be string"),
             ({"collection": "customers", "fields": ["a"] * 4}, "at most 3 items"),
             ({"collection": "customers", "on": "DT1"}, "arguments.on must match ^[a-z]+$"),
             ({"collection": "customers", "filters": {"x": 1}}, "filters.'x' must be string"),
             ({"collection": "customers", "where": "1=1"}, "takes no property 'where'")]
    for arguments, problem in cases:
        result = call_in(app, "echo", arguments)
        assert result["isError"] is True
        assert problem in result["content"][0]["text"], (arguments, result)
    assert schema_problem({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1.5) \
        == "arguments fits none of the forms it may take (arguments must be string, not number)"
    assert schema_problem({"oneOf": [{"type": "number"}, {"type": "integer"}]}, 1) \
        == "arguments fits more than one of the forms it may take"
    assert schema_problem({"const": 1}, True) == "arguments must be 1"


def test_mcp_can_be_switched_off(tmp_path: Path) -> None:
    path = build_database(tmp_path / "p.sqlite3", ROWS)
    app = create_app({"database": {"sqlite": str(path)}, "mcp": {"enabled": False}})
    assert app.test_client().post("/mcp", json=rpc("ping")).status_code == 404
    prefixed = create_app({"database": {"sqlite": str(path)}, "api": {"url_prefix": "/api"}})
    assert prefixed.test_client().post("/api/mcp", json=rpc("ping")).status_code == 200


def test_serve_stdio_keeps_stdout_for_messages(tmp_path: Path) -> None:
    """What else is printed while serving goes to stderr, not among the messages."""
    import io

    path = build_database(tmp_path / "p.sqlite3", ROWS)
    app = create_app({"database": {"sqlite": str(path)}})

    def chatty(arguments: Any) -> dict[str, Any]:
        print("a library printing to stdout")
        return {}

    services(app).mcp.tools = (tool("chatty", chatty),)
    source = io.BytesIO(json.dumps(rpc("tools/call", {"name": "chatty"})).encode() + b"\n")
    sink = io.BytesIO()
    with app.app_context():
        serve_stdio(services(app).mcp, source, sink)
    assert [json.loads(line)["result"]["structuredContent"]
            for line in sink.getvalue().splitlines()] == [{}]


def test_a_fault_outside_any_tool_is_an_internal_error(tmp_path: Path) -> None:
    app = create_app({"database": {"sqlite": str(build_database(tmp_path / "p.sqlite3",
                                                                ROWS))}})
    services(app).mcp.tools = None  # a broken table: listing it fails
    response = app.test_client().post("/mcp", json=rpc("tools/list", ident="a"))
    assert response.status_code == 500
    body = response.get_json()
    assert body["id"] == "a" and body["error"]["code"] == -32603
    assert body["error"]["message"] == \
        f"Internal error, request id {response.headers['X-Request-ID']}"


def test_a_read_while_the_database_is_gone(tmp_path: Path) -> None:
    """The table's own read_records on a SQLite file removed before the first read: a tool
    error with the reason and when to try again, counted as unavailable."""
    gone = build_database(tmp_path / "gone.sqlite3", ROWS)
    app = create_app({"database": {"sqlite": str(gone)}})
    gone.unlink()
    result = call_in(app, "read_records", {"collection": "customers"})
    assert result == {"content": [{"type": "text", "text": (
        f"The database is unavailable (database file unreadable); try again in "
        f"{DatabaseUnavailable.retry_after} seconds.")}], "isError": True}
    metrics = app.test_client().get("/metrics").text
    assert 'jembatan_mcp_tool_calls_total{outcome="unavailable",tool="read_records"} 1.0' \
        in metrics
