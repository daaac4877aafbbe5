"""The limits that the servers and the proxy in front of them agree on (docs/deploy.md,
"Which server may face the network").

MAX_BODY is the largest request body Jembatan reads: an MCP message POSTed to /mcp
(app/mcp/protocol.py MAX_MESSAGE; every other route takes no body). waitress refuses a
larger body with its own 413 as soon as it has read the headers that announce it, instead of
spooling it to disk first (app/ops/waitress_serving.py), and the shipped nginx site takes as
much at `location = /mcp` (`client_max_body_size 1m`; tests/test_nginx.py holds the two
equal) and 1 KB anywhere else.
"""

from __future__ import annotations

MAX_BODY = 1024 * 1024  # bytes: 1 MiB
