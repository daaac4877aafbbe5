"""check-sql's warning of a printed net the mapping leaves unused (docs/adapting.md "A printed
net beside the weights"): Jembatan's net is |weigh1 - weigh2|; a program that prints its own
net (NETTO, NET_WEIGHT, BERAT_BERSIH), which an operator may correct by hand, keeps figures
the plant's books may add up instead. Where the table that `records` reads FROM has such a
column, unused by the mapping, and weigh1 and weigh2 are its columns as they are (or read
NULLIF(col, 0)), the first PRINTED_ROWS rows of the table (database.sql `sample`, in no
order) are compared, and the rows where the printed net differs from the weights' are named.
A warning: the exit status stays the queries'. Run by check-sql only, never by the service.
"""

from __future__ import annotations

import re
from typing import Any

from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.sqltext import written_as
from ..model.collections import Collection
from .indexes import _table

PRINTED_ROWS = 1000  # rows of the table compared: a plant's weeks, never a whole table
FIRST = 5  # rows named
# A printed net's name, lower case without separators.
NET_NAMES = ("netto", "nett", "net", "netweight", "netwt", "nettoweight", "beratnetto",
             "beratbersih", "bersih", "nettokg", "netkg")
_PLAIN = re.compile(r'^(?:NULLIF\(\s*)?"([^"]+)"(?:\s*,\s*0\s*\))?$', re.I)


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def _number(value: Any) -> float | None:
    try:
        return None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


def _sources(db: Database, c: Collection, dialect: str | None) -> dict[str, str] | None:
    """The columns weigh1, weigh2 and the key name read, where each is a column as it is
    (or a weight NULLIF(col, 0)); None where a weight is anything else."""
    out = {}
    for field in ("weigh1", "weigh2", "id", "recno"):
        given = written_as(db.queries.field_line(c.name, field, dialect), field) or ""
        m = _PLAIN.match(given.strip())
        if m:
            out[field] = m.group(1)
        elif field.startswith("weigh"):
            return None
    return out


def warnings(db: Database, c: Collection, dialect: str | None) -> list[str]:
    """The line of the rows whose printed net is not |weigh1 - weigh2|, per such column;
    none where the table has none, the mapping uses it, or every row agrees."""
    table = _table(db, c, dialect) if c.summary == "weighing" else None
    sources = _sources(db, c, dialect) if table else None
    if table is None or sources is None:
        return []
    text = db.queries.get(c.name, "records", dialect).sql
    try:
        result = db.execute("database", "sample", {"row_count": PRINTED_ROWS}, table=table)
        try:
            columns, rows = list(result.columns), result.all()
        finally:
            result.close()
    except (QueryFailed, DatabaseUnavailable):
        return []
    nets = [col for col in columns if _norm(col) in NET_NAMES and f'"{col}"' not in text]
    if not nets or not {sources["weigh1"], sources["weigh2"]} <= set(columns):
        return []
    name = next((sources[f] for f in ("recno", "id") if sources.get(f) in columns), None)
    at = {col: columns.index(col) for col in columns}
    out = []
    for net in nets:
        differ, compared = [], 0
        for n, row in enumerate(rows, 1):
            w1, w2, printed = (_number(row[at[col]]) for col in
                               (sources["weigh1"], sources["weigh2"], net))
            if not w1 or not w2 or printed is None:  # a weighing not made: nothing to compare
                continue
            compared += 1
            if abs(abs(w1 - w2) - printed) > 1e-6:
                differ.append(f"{row[at[name]]} ({printed:g}, not {abs(w1 - w2):g})" if name
                              else f"row {n} ({printed:g}, not {abs(w1 - w2):g})")
        if differ:
            more = f" and {len(differ) - FIRST} more" if len(differ) > FIRST else ""
            out.append(f'"{net}", a net the program prints, unused by the mapping, is not '
                       f"|weigh1 - weigh2| (Jembatan's net) on {len(differ)} of {compared} "
                       f"rows weighed twice of the first {PRINTED_ROWS} of the table"
                       f"{f' (by {name})' if name else ''}: {', '.join(differ[:FIRST])}{more}. "
                       f"Where the plant's books add up the printed net, reconcile these "
                       f'tickets (docs/adapting.md "A printed net beside the weights")')
    return out
