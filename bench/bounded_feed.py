"""Reads bounded whatever is asked: the reproductions of unbounded reads, and the most a
bookmark the service signs itself can make one call read, against a real gunicorn worker:
each request's status, time, body size and the worker's RSS before, at its peak and after.

    .venv/bin/jembatan demo-db --path bench/data/rows-200000/bench.sqlite3 --rows 200000
    .venv/bin/python bench/bounded_feed.py [bench/data/rows-200000/bench.sqlite3]

Jembatan serves the file with gunicorn.conf.py's worker class, one worker, pinned to core 0,
its bookmarks signed with a secret of this script's own. The forged requests must answer 400
in milliseconds with the worker's RSS flat; a bookmark signed with the right secret and a
forgotten count of a million reads at most limit + 200 + 10,000 rows (docs/api.md §5.11).
No target is asserted: the figures are printed.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import harness
from forged import MARK, forgotten_body, seen_body, signed, unkeyed
from harness import ROOT, RssSampler, Server

from app.core.bookmarks import Bookmark, encode, filters_digest

SECRET = b"the bounded feed benchmark's secret"
OTHER = b"a secret the service never had"


def bursting(forgotten: int) -> Bookmark:
    """A bookmark of a feed that has read nothing yet but counts `forgotten` records: its
    read starts at the oldest stamp, so every row of the table is a candidate."""
    return Bookmark("transactions", "update", filters_digest(()), forgotten=MARK,
                    forgotten_count=forgotten)


def tool(name: str, arguments: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}).encode()


def works() -> list[tuple[str, str, str, bytes | None]]:
    """(name, method, path, body) of each request measured."""
    elsewhere = encode(bursting(1_000_000), (OTHER,))
    return [
        ("v1 token, forgotten 1,000,000, limit=1", "GET",
         f"/transactions/changes?limit=1&after={unkeyed(forgotten_body(1_000_000))}", None),
        ("token signed elsewhere, forgotten 1,000,000, limit=1", "GET",
         f"/transactions/changes?limit=1&after={elsewhere}", None),
        ("v1 token of 4,000,000 seen entries", "GET",
         f"/transactions/changes?limit=1&after={unkeyed(seen_body(4_000_000))}", None),
        ("MCP changes, token signed elsewhere", "POST", "/mcp",
         tool("changes", {"collection": "transactions", "limit": 1, "after": elsewhere})),
        ("MCP changes, v1 token of 4,000,000 seen entries", "POST", "/mcp",
         tool("changes", {"collection": "transactions", "limit": 1,
                          "after": unkeyed(seen_body(4_000_000))})),
        ("MCP changes, the same signed elsewhere", "POST", "/mcp",
         tool("changes", {"collection": "transactions", "limit": 1,
                          "after": signed(seen_body(4_000_000), OTHER)})),
        ("MCP read_records, fields x 100,000", "POST", "/mcp",
         tool("read_records", {"collection": "transactions", "fields": ["id"] * 100_000})),
        ("own token, forgotten 1,000,000, limit=1 (reads 10,001)", "GET",
         f"/transactions/changes?limit=1&after={encode(bursting(1_000_000), (SECRET,))}", None),
        ("own token, forgotten 1,000,000, limit=10000 (reads 20,000)", "GET",
         f"/transactions/changes?limit=10000&after={encode(bursting(1_000_000), (SECRET,))}",
         None),
    ]


def measure(port: int, pids: list[int], method: str, path: str, body: bytes | None
            ) -> dict[str, float]:
    headers = {"Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25", "Content-Type": "application/json"}
    with RssSampler(pids) as rss:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        started = time.perf_counter()
        conn.request(method, path, body=body, headers=headers if body else {})
        response = conn.getresponse()
        data = response.read()
        seconds = time.perf_counter() - started
        conn.close()
        time.sleep(0.2)  # one more sample after the answer
    after = sum(harness.rss_kib(p) for p in pids)
    error = method == "POST" and json.loads(data)["result"].get("isError", False)
    return {"status": response.status, "error": error, "ms": seconds * 1000,
            "bytes": len(data), "before": rss.baseline_kib / 1024,
            "peak": rss.peak_sum_kib / 1024, "after": after / 1024}


def main(db: Path) -> int:
    if not db.exists():
        print(f"no {db}: build it with the first command of bench/bounded_feed.py's docstring")
        return 2
    config = Path(tempfile.mkdtemp(prefix="jembatan-bounded-")) / "config.toml"
    config.write_text(f'[database]\nsqlite = "{db.resolve()}"\n'
                      f'[feed]\nbookmark_secrets = ["{SECRET.decode()}"]\n')
    port = harness.free_port()
    argv = [".venv/bin/gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
            "--timeout", "600", "wsgi:app"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")}
    print(f"{db} served by one gunicorn worker ({ROOT})")
    print(f"{'request':62} {'status':>6} {'ms':>8} {'bytes':>10} {'RSS MB before':>13} "
          f"{'peak':>6} {'after':>6}")
    with Server("jembatan", argv, port, "/health", env | {"JEMBATAN_CONFIG": str(config)},
                cores=harness.SERVER_CORE, worker_processes=True) as server:
        measure(port, server.pids(), "GET", "/transactions/changes?limit=1", None)  # warm
        for name, method, path, body in works():
            m = measure(port, server.pids(), method, path, body)
            status = f"{m['status']}{' err' if m['error'] else ''}"
            print(f"{name:62} {status:>6} {m['ms']:8.1f} {m['bytes']:10,d} "
                  f"{m['before']:13.1f} {m['peak']:6.1f} {m['after']:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1
                  else ROOT / "bench" / "data" / "rows-200000" / "bench.sqlite3"))
