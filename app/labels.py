"""What the dashboard calls the collections and their date fields (issue 22, item 4).

The plant office knows "Weighbridge 1" and "entry weighing", not `timbangan1` and `dt1`. The
defaults are here; a site renames any of them in the `[dashboard]` table of its TOML file
(app/config.py checks it and lays it over these). The labels reach the page without an API
change: the server writes them once at start into the dashboard's
`<script type="application/json" id="labels">` block. That block is data, never run: the
browser executes no script of a non-JavaScript type, so the page's Content-Security-Policy
(by the hash of its one real inline script) stays as it is, and a label is JSON with `<`,
`>` and `&` escaped, so that not even `</script>` in a label can end the block.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from .dashboard import PAGE, Page, content_security_policy

COLLECTION_LABELS: dict[str, str] = {
    "customers": "Customers",
    "products": "Products",
    "transporters": "Transporters",
    "transactions": "All weighings",
    "vehicles": "Vehicles",
    "bricon2": "Batching plant — Bricon",
    "weighing": "Weighing log",
    "timbangan1": "Weighbridge 1",
    "timbangan2": "Weighbridge 2",
    "biao1": "Batching plant — Biao",
}

# By `on` value (app/collections.py DATE_PAIRS): the same pair means the same moment in
# every collection that has it.
DATE_LABELS: dict[str, str] = {
    "dt1": "entry weighing",
    "dt2": "exit weighing",
    "create": "created",
    "update": "last change",
    "expired": "expiry",
    "tanggal": "batch date",
}

# The page's empty block, as app/static/dashboard.html has it; replaced at start.
PLACEHOLDER = '<script type="application/json" id="labels">{}</script>'


def script_json(value: object) -> str:
    """`value` as JSON that is safe between <script> tags: no `<`, `>` or `&` left raw (a
    JSON string may hold them escaped as \\u003c... and means the same)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def labelled_page(collections: Mapping[str, str], dates: Mapping[str, str]) -> Page:
    """The dashboard with these labels written into it, with its ETag and policy."""
    html = PAGE.read_text(encoding="utf-8")
    if html.count(PLACEHOLDER) != 1:
        raise ValueError(f"{PAGE} must hold {PLACEHOLDER} once")
    block = PLACEHOLDER.replace(
        "{}", script_json({"collections": dict(collections), "dates": dict(dates)}))
    html = html.replace(PLACEHOLDER, block)
    body = html.encode()
    return Page(body, hashlib.sha256(body).hexdigest()[:32], content_security_policy(html))
