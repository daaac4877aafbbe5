"""What a workbook heads its columns with and leaves out (docs/api.md §5.8): the site's label
of each field or summary key (`[site.fields]` over app/model/labels.py's FIELD_LABELS), and
the fields the site maps to NULL (app/core/absent.py), which are not columns unless
`?fields=` names them. CSV and JSON keep the API's names and every field: they are for
programs, which read a column by its name whether or not it is ever filled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Headings:
    """One collection's (or its summaries') workbook headings; none by default: the API's
    names, every column."""

    labels: Mapping[str, str] = field(default_factory=dict)
    absent: frozenset[str] = frozenset()

    def columns(self, output: Sequence[str], fields: Sequence[str] | None) -> list[str]:
        """The columns of a workbook: those `?fields=` asks for, in its order, or every
        column sent (`output`) but those the site maps to NULL."""
        return list(fields) if fields else [n for n in output if n not in self.absent]

    def of(self, names: Sequence[str]) -> list[str]:
        """The heading of each column: the site's label, or the API's name without one."""
        return [self.labels.get(n, n) for n in names]
