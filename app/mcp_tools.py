"""The tools an AI assistant calls over MCP (app/mcp.py speaks the protocol): one table of
them, each a read of the same core the HTTP API uses, with an input and an output schema
written from the same tables that drive the routes (collections, filter operators, summary
groups and measures). Every tool only reads.

A tool answers a dict (the structured content); arguments it cannot take raise
`ToolRefused`, whose message says what to fix. This module imports nothing from Flask.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import summaries
from .collections import DATE_PAIRS, Collection
from .filters import OPERATORS, for_kind

__all__ = ["Tool", "ToolRefused", "make_tools"]


class ToolRefused(Exception):
    """A tool's arguments it cannot take: the message says what was wrong and what is
    accepted (an MCP tool error, never a protocol error)."""


@dataclass(frozen=True)
class Tool:
    """One MCP tool."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    call: Callable[[Mapping[str, Any]], dict[str, Any]]  # arguments -> structured content


def _object(properties: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """A JSON Schema object that takes only these properties."""
    out: dict[str, Any] = {"type": "object", "properties": dict(properties),
                           "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


def describe_collection(c: Collection, kinds: Mapping[str, str]) -> dict[str, Any]:
    """One collection as `describe` tells it: fields, key, order, date pairs, filters and
    summary groups and measures."""
    declared = c.schema._declared_fields
    out: dict[str, Any] = {
        "name": c.name,
        "record": c.schema.__name__,
        "key": c.key,
        "order": list(c.order),
        "fields": [{"name": name, "type": kinds.get(name, "string"),
                    "nullable": bool(f.allow_none)} for name, f in declared.items()],
        "date_pairs": {on: list(DATE_PAIRS[on]) for on in c.dates},
        "filters": {field: [op.suffix or "eq" for op in for_kind(kind)]
                    for field, kind in kinds.items() if field in c.fields},
    }
    if c.summary:
        out["summary"] = {
            "by": [*summaries.named_groups(c), *summaries.groupable(c)],
            "measures": list(summaries.MEASURES[c.summary].names),
        }
    return out


def operator_names() -> list[str]:
    """The operators as a tool's filters name them: `eq` for equality, else the suffix."""
    return [op.suffix or "eq" for op in OPERATORS.values()]


def make_tools(describe: Callable[[], dict[str, Any]]) -> tuple[Tool, ...]:
    """The tools of one app."""
    return (
        Tool("describe", "Describe the plant's data",
             "What Jembatan serves: each collection with its fields (type, meaning), key, "
             "canonical order, date pairs to read ranges on, the filters each field takes, "
             "and the groups and measures of its summaries. Call it first.",
             _object({}), _object({"collections": {"type": "array",
                                                   "items": {"type": "object"}}},
                                  ["collections"]),
             lambda arguments: describe()),
    )
