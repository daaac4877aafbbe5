"""The query arguments of each route kind as one marshmallow schema, which both reads a
request (through the parser here, with the rules of app/http/arguments.py applied first) and
feeds the OpenAPI document: `format`, `fields`, `page`, `page_size`, `on`, `by`, `limit`,
`after`, `since`, and a list's filters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flask_smorest
import marshmallow as ma
from marshmallow import fields, validate
from webargs.fields import DelimitedList

from ..core import feed, summaries
from ..core.filtering import accepted_filters
from ..core.plan import Planner
from ..core.question import NAMED_TWICE
from ..formats import registry as formats
from ..model import params
from ..model.collections import DATE_PAIRS, Collection
from ..model.kinds import ReadKind
from ..ops.config import ApiSettings
from .arguments import Accepted
from .patches import ArgumentsParser, CopiedAsItself, DefaultsLoadedOnce, DocsStoredOnFirstUse

# A query argument's metadata key: the route takes it, the OpenAPI document does not list it
# (app/http/openapi.py's Api leaves such fields out of the parameters): `format` (the formats'
# own paragraphs say how to ask, app/formats/registry.py).
UNDOCUMENTED = "undocumented"


class Arguments(DefaultsLoadedOnce, CopiedAsItself, ma.Schema):
    """A route's query-argument schema that also knows what else its route takes (its
    filters, app/http/arguments.py) and keeps what a request without a query string loads
    (patches.DefaultsLoadedOnce)."""


class Blueprint(DocsStoredOnFirstUse, flask_smorest.Blueprint):
    ARGUMENTS_PARSER = ArgumentsParser()


class QueryInteger(fields.Integer):
    """An integer query argument in ASCII digits (int() would take '١٢٣' and '１２３')."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not params.INTEGER.fullmatch(value):
            raise ma.ValidationError("Not a valid integer: write it in digits, e.g. 50.")
        return params.bounded_int(value)



_SINCE_PATTERN = ("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
                  "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$")
# /<c>/changes' headers (docs/api.md §5.11), documented so that generated clients read them.

def route_arguments(plan: Planner, api: ApiSettings, kind: ReadKind,
                    paged_by_path: bool = False) -> ma.Schema:
    """The argument schema of a read kind's route on the planner's collection, with the
    fields its row of app/model/kinds.py names, knowing what else it takes (its filters:
    app/http/arguments.py); `paged_by_path`: its pages are paths (a list's)."""
    c = plan.collection
    own = tuple(name for name in kind.arguments if name != FILTERS)
    key = (kind, repr(c), c.schema, plan.groupable, tuple(plan.encoder.output), api.page_size,
           api.max_page_size)
    schema = ARGUMENT_CLASSES.get(key)
    if schema is None:  # built once per process: a second app takes the first's class
        schema = Arguments.from_dict({name: ARGUMENT_FIELDS[name](plan, api, kind)
                                      for name in own}, name=f"{c.name}{kind.name.title()}Args")
        if len(ARGUMENT_CLASSES) >= ARGUMENT_CLASSES_KEPT:
            ARGUMENT_CLASSES.clear()
        ARGUMENT_CLASSES[key] = schema
    filters = accepted_filters(c.schema, c.fields) if kind.filtered else None
    return schema(Accepted(own, filters, paged_by_path))  # its own instance: defaults kept per app


def _page_size(plan: Planner, api: ApiSettings, kind: ReadKind) -> QueryInteger:
    """Records per page: a page's (with its default), or a range's (given alone, page 1)."""
    if kind.paged and "page" not in kind.arguments:  # the page is in the path
        return QueryInteger(
            load_default=api.page_size, validate=validate.Range(1, api.max_page_size),
            metadata={"description": f"Records per page, 1 to {api.max_page_size} "
                                     f"(default {api.page_size})."})
    return QueryInteger(
        validate=validate.Range(1, api.max_page_size),
        metadata={"description": f"Records per page, 1 to {api.max_page_size} (default "
                                 f"{api.page_size}); given alone, it asks for page 1."})


def _page(plan: Planner, api: ApiSettings, kind: ReadKind) -> QueryInteger:
    return QueryInteger(validate=validate.Range(min=1), metadata={
        "description": "Return only this page (1 is the first) of the range, with the "
                       "pagination headers; without page and page_size the whole range "
                       "is streamed."})


def _on(plan: Planner, api: ApiSettings, kind: ReadKind) -> fields.String:
    c = plan.collection
    return _on_field(c, c.feed_on if kind.name == "changes" else None)


def _after(plan: Planner, api: ApiSettings, kind: ReadKind) -> fields.String:
    return fields.String(metadata={
        "description": "The X-Bookmark of the last answer; without it the feed starts at "
                       "the oldest stamp.", "pattern": "^[A-Za-z0-9_-]+$"})


def _since(plan: Planner, api: ApiSettings, kind: ReadKind) -> fields.String:
    return fields.String(metadata={
        "description": "Start at this time instead, YYYY-MM-DDTHH:MM:SS (plant local time); "
                       "not with after.",
        "pattern": _SINCE_PATTERN, "example": "2026-11-01T07:00:00"})


FILTERS = "filters"  # in a read kind's arguments: it takes the filters (no field of its own)
# The field of each query argument a read kind may name (app/model/kinds.py ReadKind.arguments).
ARGUMENT_FIELDS: dict[str, Callable[[Planner, ApiSettings, ReadKind], fields.Field]] = {
    "on": _on,
    "by": lambda plan, api, kind: _by_field(plan.collection, plan.groupable),
    "limit": lambda plan, api, kind: _limit_field(),
    "after": _after,
    "since": _since,
    "page": _page,
    "page_size": _page_size,
    "format": lambda plan, api, kind: _format_field(),
    "fields": lambda plan, api, kind: _fields_field(plan.collection.name,
                                                    plan.encoder.output),
}


# Each route's argument schema class, by what its fields are made from (route_arguments): the
# same for every app of a process with the same settings, so built once.
ARGUMENT_CLASSES: dict[tuple[object, ...], type[Arguments]] = {}
ARGUMENT_CLASSES_KEPT = 512  # a test run's apps, with all their settings, make far fewer


def _format_field() -> fields.String:
    # Not a documented parameter: each format's paragraph in the descriptions says it all.
    return fields.String(validate=validate.OneOf(list(formats.FORMATS)),
                         metadata={UNDOCUMENTED: True})


class _KnownFields(ma.validate.Validator):
    """`fields` names fields of the record, at least one, each once."""

    def __init__(self, name: str, output: list[str]):
        self.name, self.output = name, output

    def __call__(self, value: list[str]) -> list[str]:
        output = self.output
        if not value or "" in value:
            raise ma.ValidationError(f"name the fields, comma-separated, e.g. "
                                     f"fields={','.join(output[:2])}")
        unknown = [f for f in value if f not in output]
        if unknown:
            raise ma.ValidationError(
                f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                f"the fields of {self.name} are: {', '.join(output)}")
        if len(set(value)) != len(value):
            raise ma.ValidationError(NAMED_TWICE)
        return value


def _fields_field(name: str, output: list[str]) -> DelimitedList:
    return DelimitedList(fields.String(metadata={"enum": output}),
                         validate=_KnownFields(name, output),
                         metadata={"description": "Only these fields, in this order, "
                                                  "comma-separated (or the argument repeated: "
                                                  "fields=id&fields=vehno).",
                                   "minItems": 1, "uniqueItems": True})


def _on_field(c: Collection, default: str | None = None) -> fields.String:
    default = default or c.dates[0]
    pairs = "; ".join(f"{on} = {DATE_PAIRS[on][0]} + {DATE_PAIRS[on][1]}" for on in c.dates)
    return fields.String(load_default=default, validate=validate.OneOf(c.dates),
                         metadata={"description": f"Which date/time pair the range applies "
                                                  f"to: {pairs}. Default {default}."})


def _limit_field() -> QueryInteger:
    return QueryInteger(load_default=feed.DEFAULT_LIMIT, validate=validate.Range(
        1, feed.MAX_LIMIT), metadata={"description": f"At most this many records, 1 to "
                                                     f"{feed.MAX_LIMIT} (default "
                                                     f"{feed.DEFAULT_LIMIT})."})


_DIRECTION = ('direction ("in" when weigh1 > weigh2, a delivery; "out" when weigh2 > '
              'weigh1, a dispatch; null otherwise), ')


def _names_note(c: Collection) -> str:
    """What the description of `by` says of the names beside codes, where it has them."""
    if not c.namings:
        return ""
    pairs = ", ".join(f"{n.code} by {n.name}" for n in c.namings.values())
    return (f" A code of master data is followed by its name: {pairs} (the master record "
            f"whose code equals it as the database compares strings, the smallest id of "
            f"several; null when none).")


def _by_field(c: Collection, groupable: tuple[str, ...]) -> DelimitedList:
    return DelimitedList(
        fields.String(metadata={"enum": [*summaries.named_groups(c), *groupable]}),
        metadata={
            "description": f"The groups, comma-separated, in order, at most "
                           f"{summaries.MAX_GROUPS}: day (the `on` date), month (YYYY-MM), "
                           f"hour (0-23 of the `on` time, a NULL time counting as 0), "
                           f"{_DIRECTION if c.summary == 'weighing' else ''}or a "
                           f"text or integer field: {', '.join(groupable)}. Default day."
                           f"{_names_note(c)}",
            "minItems": 1, "maxItems": summaries.MAX_GROUPS, "uniqueItems": True,
            "example": ["day", summaries.sample_field(c)]})


