"""The ten collections (CONTRACT §1): one row each drives its routes, queries and docs.

Adding a collection is one row here and one `sql/<name>.sql`; a schema only if its shape
is new.
"""

from __future__ import annotations

from dataclasses import dataclass

import marshmallow as ma

from .schemas import (
    Customer,
    Integer,
    Product,
    Production,
    Transporter,
    Vehicle,
    Weighing,
    numbered,
    with_first,
)

# `on` value -> (date column, time column) of a date range (CONTRACT §1).
DATE_PAIRS: dict[str, tuple[str, str]] = {
    "dt1": ("tgl_dt1", "jam_dt1"),
    "dt2": ("tgl_dt2", "jam_dt2"),
    "create": ("tgl_create", "jam_create"),
    "update": ("tgl_update", "jam_update"),
    "expired": ("tgl_expired", "jam_expired"),
    "tanggal": ("tanggal", "jam"),
}


@dataclass(frozen=True)
class Collection:
    name: str
    schema: type[ma.Schema]  # the record as sent, numberrow first where there is one
    key: str  # "id" or "numberrow"
    order: tuple[str, ...]  # canonical order, ascending, NULLs first
    dates: tuple[str, ...] = ()  # `on` values, the default first; empty: no date range

    @property
    def numbered(self) -> bool:
        return self.key == "numberrow"

    def query_names(self) -> list[str]:
        """The queries sql/<name>.sql must hold (numberrow lookups reuse `page`)."""
        names = ["all", "count", "page"] + ([] if self.numbered else ["by_key"])
        for on in self.dates:
            names += [f"range_{on}", f"range_{on}_count", f"range_{on}_page"]
        return names


_WEIGHING_DATES = ("dt1", "dt2", "create", "update")
_NumberedWeighing = numbered(Weighing)

COLLECTIONS: tuple[Collection, ...] = (
    Collection("customers", Customer, "id", ("id",)),
    Collection("products", Product, "id", ("id",)),
    Collection("transporters", Transporter, "id", ("id",)),
    Collection("transactions", Weighing, "id", ("id",), _WEIGHING_DATES),
    Collection("vehicles", Vehicle, "id", ("id",), ("create", "expired")),
    Collection("bricon2", numbered(Production), "numberrow",
               ("tanggal", "jam", "no_produksi", "no_produksi_"), ("tanggal",)),
    Collection("weighing", _NumberedWeighing, "numberrow", ("id",), _WEIGHING_DATES),
    Collection("timbangan1", _NumberedWeighing, "numberrow", ("id",), _WEIGHING_DATES),
    Collection("timbangan2", _NumberedWeighing, "numberrow", ("id",), _WEIGHING_DATES),
    Collection("biao1", with_first(Production, "ProductionWithId", id=Integer(allow_none=True)),
               "id", ("id",), ("tanggal",)),
)


def required_queries() -> dict[str, list[str]]:
    """Every .sql file the service loads and the names each must hold."""
    return {c.name: c.query_names() for c in COLLECTIONS} | {"health": ["ping", "version"]}
