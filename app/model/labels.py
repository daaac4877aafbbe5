"""What the dashboard and the daily report call the collections and their date fields, and
what a workbook heads its columns with.

The plant office knows "Weighbridge 1", "entry weighing" and "Entry weight (kg)", not
`timbangan1`, `dt1` and `weigh1`. The defaults are here; a site renames any of them in the
`[site.collections]`, `[site.dates]` and `[site.fields]` tables of its TOML file
(app/ops/config.py checks them and lays them over these). They reach the
pages without an API change: app/http/pages.py writes them once at start into each page's
`<script type="application/json" id="labels">` block, data the browser never runs.
"""

from __future__ import annotations

from .schemas import GROUPS, Customer, Product, Production, Transporter, Vehicle, Weighing

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

# What a workbook (?format=xlsx) heads each column with, by field of a record or key of a
# summary: the office's words, where the API's name is a program's. A name not here is its
# own heading (the batching materials' adonan_sv..., the master data's CustName...). A site
# renames any of them in its `[site.fields]` table (a name of a field, group or measure).
FIELD_LABELS: dict[str, str] = {
    "numberrow": "No.",
    "id": "ID",
    "recno": "Ticket no.",
    "vehno": "Vehicle no.",
    "drivername": "Driver",
    "productcode": "Material code",
    "productname": "Material",
    "custcode": "Supplier / customer code",
    "custname": "Supplier / customer",
    "transcode": "Haulier code",
    "transname": "Haulier",
    "tgl_dt1": "Entry date",
    "jam_dt1": "Entry time",
    "tgl_dt2": "Exit date",
    "jam_dt2": "Exit time",
    "weigh1": "Entry weight (kg)",
    "weigh2": "Exit weight (kg)",
    "adjustweigh": "Deduction (kg)",
    "adjustunit": "Deduction unit",
    "wbname1": "Entry weighbridge",
    "wbname2": "Exit weighbridge",
    "operator1": "Entry operator",
    "operator2": "Exit operator",
    "weighsource1": "Entry weight source",
    "weighsource2": "Exit weight source",
    "weighunit1": "Entry weight unit",
    "weighunit2": "Exit weight unit",
    "pending": "Open",
    "dono": "DO no.",
    "sealno": "Seal no.",
    "noct": "Container no.",
    "pl3no": "PL3 no.",
    "location": "Location",
    "lot": "Lot",
    "remark": "Remark",
    "editedby": "Edited by",
    "tgl_create": "Created (date)",
    "jam_create": "Created (time)",
    "tgl_update": "Last change (date)",
    "jam_update": "Last change (time)",
    "accessedbyanother": "Accessed by another",
    "beingaccessedbyuser": "Being accessed by user",
    "detctid": "Detector ID",
    "opt1": "Option 1",
    "opt2": "Option 2",
    "cancelled": "Cancelled",
    "tanggal": "Batch date",
    "jam": "Batch time",
    "no_produksi": "Batch no.",
    "operator_name": "Operator",
    # The summaries' groups and measures (docs/api.md §7).
    "day": "Day",
    "month": "Month",
    "hour": "Hour",
    "direction": "Direction",
    "records": "Records",
    "weighed": "Weighed in and out",
    "net": "Net (kg)",
    "net_min": "Smallest net (kg)",
    "net_max": "Largest net (kg)",
    "deduction": "Deduction (kg)",
    "net_after_deduction": "Net after deduction (kg)",
    "batches": "Batches",
}


def field_names() -> tuple[str, ...]:
    """Every name `[site.fields]` may label: the fields of every record shape, and the keys
    of the summaries (groups, names beside codes, measures; app/core/summaries.py)."""
    names = [*FIELD_LABELS]
    for shape in (Weighing, Production, Vehicle, Customer, Product, Transporter):
        names += list(shape._declared_fields)
    names += [f"{g}_deviation" for g in GROUPS] + ["temperature_sv_avg", "temperature_pv_avg",
                                                   "TransName"]
    return tuple(dict.fromkeys(names))
