"""The ten collections (docs/api.md §2): one row each drives its routes, queries and docs.

Adding a collection is one row here and one `sql/<name>.sql`; a schema only if its shape
is new.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import marshmallow as ma

from .kinds import DATED, QUERY_KINDS
from .schemas import (
    Customer,
    Integer,
    Product,
    Production,
    String,
    Transporter,
    Vehicle,
    Weighing,
    numbered,
    with_first,
    with_text_id,
)

# The field of a record shape that says its record was voided at the source (the weighings'
# cancelled, docs/api.md §6.3): summaries and workbooks leave such records out by default.
CANCELLED = "cancelled"

# `on` value -> (date column, time column) of a date range (docs/api.md §2).
DATE_PAIRS: dict[str, tuple[str, str]] = {
    "dt1": ("tgl_dt1", "jam_dt1"),
    "dt2": ("tgl_dt2", "jam_dt2"),
    "create": ("tgl_create", "jam_create"),
    "update": ("tgl_update", "jam_update"),
    "expired": ("tgl_expired", "jam_expired"),
    "tanggal": ("tanggal", "jam"),
}


@dataclass(frozen=True)
class Naming:
    """A code of master data that a summary may group by, and the master record's name sent
    right after it (docs/api.md §7 "Names beside codes")."""

    code: str  # the group: a field of the summarised record (productcode)
    name: str  # the key sent right after it (productname)
    master: str  # the master collection whose records name it (products)
    master_code: str  # the master record's field the code is matched to (ProductCode)
    master_name: str  # the master record's field sent as the name (ProductName)


# By summary shape (Collection.summary): the groups that carry a name, in no order of their
# own (a summary sends them in the order of ?by=).
NAMINGS: dict[str, tuple[Naming, ...]] = {
    "weighing": (
        Naming("productcode", "productname", "products", "ProductCode", "ProductName"),
        Naming("custcode", "custname", "customers", "CustCode", "CustName"),
        Naming("transcode", "transname", "transporters", "TransCode", "TransName"),
    ),
    "vehicle": (Naming("TransCode", "TransName", "transporters", "TransCode", "TransName"),),
}


@dataclass(frozen=True)
class QueryName:
    """One of a collection's queries, as a value: its kind (a query kind of
    app/model/kinds.py, or another query's own name) and, for a dated kind, the `on` pair
    it reads (`range_page` on dt1 is the query range_dt1_page)."""

    kind: str
    on: str | None = None

    def __str__(self) -> str:
        if self.on is None:
            return self.kind
        head, _, tail = self.kind.partition("_")
        return f"{head}_{self.on}" + (f"_{tail}" if tail else "")

    @classmethod
    def parse(cls, name: str) -> QueryName:
        """range_dt1_page -> QueryName("range_page", "dt1"); any other name is its own kind."""
        for kind in DATED:
            head, _, tail = kind.partition("_")
            end = len(name) - len(tail) - 1 if tail else len(name)
            if name.startswith(head + "_") and (not tail or name.endswith("_" + tail)):
                on = name[len(head) + 1:end]
                if on in DATE_PAIRS:
                    return cls(kind, on)
        return cls(name)


@dataclass(frozen=True)
class Collection:
    name: str
    schema: type[ma.Schema]  # the record as sent, numberrow first where there is one
    key: str  # "id" or "numberrow"
    order: tuple[str, ...]  # canonical order, ascending, NULLs first
    dates: tuple[str, ...] = ()  # `on` values, the default first; empty: no date range
    summary: str | None = None  # its measures (sql/shapes.sql summary_<summary>, docs/api.md §7)
    text_key: bool = False  # its id is a text code (keyed_by_text), not an integer

    @property
    def keyable_by_text(self) -> bool:
        """Whether a site may key it by a text code (collections.text_keys): a master keyed
        by "id" with no dates, so no feed whose bookmark and walk compare keys as numbers."""
        return self.key == "id" and not self.dates

    def keyed_by_text(self) -> Collection:
        """This collection where the site's mapping gives its id as a text code, as a master
        keyed by KD_CUST varchar(10) is (docs/adapting.md, "A master keyed by a code"): its
        id is sent as text, and GET /<name>/{ID} takes the code."""
        if not self.keyable_by_text:
            raise ValueError(f"{self.name} cannot be keyed by a text code")
        return replace(self, schema=with_text_id(self.schema), text_key=True)

    @property
    def numbered(self) -> bool:
        return self.key == "numberrow"

    @property
    def fields(self) -> tuple[str, ...]:
        """The stored fields, in the record's order: what `records` gives (numberrow and
        computed fields such as vehicles' CreatedDate are Jembatan's own)."""
        return tuple(name for name, f in self.schema._declared_fields.items()
                     if name != "numberrow" and not f.dump_only)

    @property
    def texts(self) -> frozenset[str]:
        """Its stored text fields: sent, and grouped, without their trailing blanks."""
        declared = self.schema._declared_fields
        return frozenset(f for f in self.fields if isinstance(declared[f], String))

    @property
    def cancellable(self) -> bool:
        """Whether its records say whether they were cancelled (the CANCELLED field)."""
        return CANCELLED in self.fields

    @property
    def feed_on(self) -> str:
        """The default `on` of /<c>/changes (docs/api.md §5.11): the pair a change moves."""
        return next(on for on in ("update", "create", "tanggal") if on in self.dates)

    @property
    def namings(self) -> dict[str, Naming]:
        """The groups of its summary that carry a master record's name, by group."""
        return {n.code: n for n in NAMINGS.get(self.summary or "", ())}

    @property
    def identity(self) -> tuple[str, ...]:
        """The stored fields that tell its records apart, whatever their position: the key
        order of its changes feed (docs/api.md §5.11; bricon2: no_produksi, no_produksi_),
        the canonical order of one without dates. What a copy keeps each record once by."""
        return self.range_order(self.feed_on) if self.dates else self.order

    def range_order(self, on: str) -> tuple[str, ...]:
        """What orders a range after its date and time: the canonical order less those."""
        return tuple(f for f in self.order if f not in DATE_PAIRS[on])

    def reads(self) -> list[tuple[QueryName, str]]:
        """Every query its read kinds (app/model/kinds.py READ_KINDS) run on this collection,
        with its shape in sql/shapes.sql: the undated ones, then the dated ones per `on`."""
        undated = [(QueryName(q.name), q.shape(self)) for q in QUERY_KINDS
                   if not q.dated and q.runs_on(self)]
        return undated + [(QueryName(q.name, on), q.shape(self)) for on in self.dates
                          for q in QUERY_KINDS if q.dated and q.runs_on(self)]

    def query_names(self) -> list[str]:
        """The names of its queries (reads) as sql/<collection>.sql may write them."""
        return [str(name) for name, _ in self.reads()]


_WEIGHING_DATES = ("dt1", "dt2", "create", "update")
_NumberedWeighing = numbered(Weighing)

COLLECTIONS: tuple[Collection, ...] = (
    Collection("customers", Customer, "id", ("id",)),
    Collection("products", Product, "id", ("id",)),
    Collection("transporters", Transporter, "id", ("id",)),
    Collection("transactions", Weighing, "id", ("id",), _WEIGHING_DATES, "weighing"),
    Collection("vehicles", Vehicle, "id", ("id",), ("create", "expired"), "vehicle"),
    Collection("bricon2", numbered(Production), "numberrow",
               ("tanggal", "jam", "no_produksi", "no_produksi_"), ("tanggal",), "production"),
    Collection("weighing", _NumberedWeighing, "numberrow", ("id",), _WEIGHING_DATES,
               "weighing"),
    Collection("timbangan1", _NumberedWeighing, "numberrow", ("id",), _WEIGHING_DATES,
               "weighing"),
    Collection("timbangan2", _NumberedWeighing, "numberrow", ("id",), _WEIGHING_DATES,
               "weighing"),
    Collection("biao1", with_first(Production, "ProductionWithId", id=Integer(allow_none=True)),
               "id", ("id",), ("tanggal",), "production"),
)
