"""The fields a site maps to NULL: those it has no column for (`NULL AS "lot"`,
`CAST(NULL AS float) AS "adjustweigh"` in its `sql/<collection>.sql`, without a `-- TODO`).

Read once at start from the mapping files. The workbooks leave those fields out and the
pages leave out what reads them (the net after deduction where `adjustweigh` is NULL): a
clerk need not read a column that is always empty (docs/api.md §5.8, §8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..database.sqlfiles import parse_file
from ..database.sqltext import null_fields, todo_fields
from ..model.collections import Collection


def mapped_as_null(path: Path, c: Collection) -> tuple[str, ...]:
    """The fields of `c` that every `records` query of its file (each dialect's text) gives
    as NULL and does not mark `-- TODO`, in the record's order."""
    blocks = [b for b in parse_file(path) if b.name == "records"]
    nulls = set.intersection(*(set(null_fields(b.text)) for b in blocks)) if blocks else set()
    todo = {f for b in blocks for f in todo_fields(b.text)}
    return tuple(f for f in c.fields if f in nulls and f not in todo)


def absent_fields(files: Mapping[str, Path],
                  collections: Sequence[Collection]) -> dict[str, tuple[str, ...]]:
    """Each served collection's fields mapped to NULL (none: an empty tuple)."""
    return {c.name: mapped_as_null(files[c.name], c) for c in collections}
