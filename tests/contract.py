"""The record shapes of docs/api.md §3, written out again here so that tests do not take their
expected answers from the code under test."""

from __future__ import annotations

from typing import Any

WEIGHING = (
    "id accessedbyanother beingaccessedbyuser adjustunit adjustweigh custcode detctid dono "
    "drivername editedby ffa jam_create jam_dt1 jam_dt2 jam_update location lot mai noct "
    "operator1 operator2 opt1 opt2 pending pl3no productcode recno remark sealno tgl_create "
    "tgl_dt1 tgl_dt2 tgl_update transcode vehno wbname1 wbname2 weigh1 weigh2 weighsource1 "
    "weighsource2 weighunit1 weighunit2 cancelled").split()
VEHICLE_COLUMNS = (
    "id Number BeingWeighed Capacity CapacityUnit Tare TareUnit TransCode UseTare Opt1 Opt2 "
    "tgl_create jam_create tgl_expired jam_expired").split()
VEHICLE = VEHICLE_COLUMNS + ["CreatedDate", "ExpireDate"]
# The production shape's material groups, each with before_add, corr, note, pv and sv.
MATERIALS = ("adonan", "afalan", "air", "aluminium", "kapur", "silo_1", "silo_2")
PRODUCTION = (
    "no_produksi no_produksi_ tanggal jam operator_name mode_operator recipe level_change "
    "isproses temperature_sv temperature_pv temperature_corr temperature_note").split() + [
    f"{g}_{s}" for g in MATERIALS for s in ("before_add", "corr", "note", "pv", "sv")]
CUSTOMER = "id CustCode CustName Address City Phone Contact Remark".split()
PRODUCT = "id ProductCode ProductName Unit Remark".split()
TRANSPORTER = "id TransCode TransName Address Phone Contact Remark".split()

# collection -> (fields as sent, key kind, `on` values with the default first)
COLLECTIONS: dict[str, tuple[list[str], str, list[str]]] = {
    "customers": (CUSTOMER, "id", []),
    "products": (PRODUCT, "id", []),
    "transporters": (TRANSPORTER, "id", []),
    "transactions": (WEIGHING, "id", ["dt1", "dt2", "create", "update"]),
    "vehicles": (VEHICLE, "id", ["create", "expired"]),
    "bricon2": (["numberrow"] + PRODUCTION, "numberrow", ["tanggal"]),
    "weighing": (["numberrow"] + WEIGHING, "numberrow", ["dt1", "dt2", "create", "update"]),
    "timbangan1": (["numberrow"] + WEIGHING, "numberrow", ["dt1", "dt2", "create", "update"]),
    "timbangan2": (["numberrow"] + WEIGHING, "numberrow", ["dt1", "dt2", "create", "update"]),
    "biao1": (["id"] + PRODUCTION, "id", ["tanggal"]),
}
PAIRS = {"dt1": ("tgl_dt1", "jam_dt1"), "dt2": ("tgl_dt2", "jam_dt2"),
         "create": ("tgl_create", "jam_create"), "update": ("tgl_update", "jam_update"),
         "expired": ("tgl_expired", "jam_expired"), "tanggal": ("tanggal", "jam")}


def columns(collection: str) -> list[str]:
    """The table's columns, the service description's fields: the record's fields less
    numberrow, vehicles' two datetimes and the weighings' `cancelled`, a condition the
    mapping derives (the demo's tables add a column of that name, which a test that voids
    tickets puts in its rows)."""
    return [f for f in COLLECTIONS[collection][0]
            if f not in ("numberrow", "CreatedDate", "ExpireDate", "cancelled")]


def expected(collection: str, row: dict[str, Any], numberrow: int | None = None
             ) -> dict[str, Any]:
    """The JSON object docs/api.md §3-§4 promise for a row inserted as `row` (ISO text dates)."""
    out: dict[str, Any] = {}
    for name in COLLECTIONS[collection][0]:
        if name == "numberrow":
            out[name] = numberrow
        elif name in ("CreatedDate", "ExpireDate"):
            day, clock = (("tgl_create", "jam_create") if name == "CreatedDate"
                          else ("tgl_expired", "jam_expired"))
            time_of_day = row.get(clock) or "00:00:00"
            out[name] = None if row.get(day) is None else f"{row[day]}T{time_of_day}"
        elif name == "cancelled":  # a condition: 1 is true; 0, NULL or no value false
            out[name] = row.get(name) == 1
        else:  # text without its trailing blanks (docs/api.md §4)
            value = row.get(name)
            out[name] = value.rstrip(" ") if isinstance(value, str) else value
    return out


def same_text(engine: str) -> Any:
    """How `engine` decides that two strings are equal (docs/api.md §6.1: "Strings compare
    by the database's collation"). SQL Server's default collation
    (SQL_Latin1_General_CP1_CI_AS) ignores case, and its `=` ignores trailing blanks (the ANSI
    padding rule: the shorter string is padded with blanks before comparing); SQLite and
    PostgreSQL compare exactly."""
    if engine == "mssql":
        return lambda a, b: a.rstrip(" ").casefold() == b.rstrip(" ").casefold()
    return lambda a, b: a == b
