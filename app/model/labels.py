"""What the dashboard and the daily report call the collections and their date fields.

The plant office knows "Weighbridge 1" and "entry weighing", not `timbangan1` and `dt1`. The
defaults are here; a site renames any of them in the `[site.collections]` and `[site.dates]`
tables of its TOML file (app/ops/config.py checks them and lays them over these). They reach the
pages without an API change: app/http/pages.py writes them once at start into each page's
`<script type="application/json" id="labels">` block, data the browser never runs.
"""

from __future__ import annotations

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

# By `on` value (app/model/collections.py DATE_PAIRS): the same pair means the same moment in
# every collection that has it.
DATE_LABELS: dict[str, str] = {
    "dt1": "entry weighing",
    "dt2": "exit weighing",
    "create": "created",
    "update": "last change",
    "expired": "expiry",
    "tanggal": "batch date",
}
