"""The table of filter operators (app/database/filters.py) as the faces use it: a face reads
it from here, and imports nothing of app/database/ (the runner is its one door to the
database)."""

from __future__ import annotations

from ..database.filters import (
    BOOLEAN_KIND,
    KIND_TEXTS,
    MAX_VALUES,
    OPERATORS,
    ORDERED_DOC,
    Filter,
    Operator,
    accepted_filters,
    and_list,
    boolean,
    doc_groups,
    doc_list,
    for_kind,
    read_value,
    usage,
)

__all__ = ["BOOLEAN_KIND", "KIND_TEXTS", "MAX_VALUES", "OPERATORS", "ORDERED_DOC", "Filter",
           "Operator", "accepted_filters", "and_list", "boolean", "doc_groups", "doc_list",
           "for_kind", "read_value", "usage"]
