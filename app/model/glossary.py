"""What each field of a record shape holds, as data: app/model/glossary.toml, read from the package,
gives per shape (by the name app/model/schemas.py gives its schema, as the index's `record` does:
`Weighing`, `NumberedProduction`, ...) every field's type and unit and a short meaning, in the
record's order. It is docs/api.md's "Field glossary" in short (tests/test_glossary.py holds
the two to each other and to the schemas): the first sentence of a field's "what it holds",
without markdown or the demo's values. A derived shape (app/model/schemas.py numbered, with_first)
lists only the fields it puts first and reads the rest from its base shape; the production
shape's five fields per raw-material group are written once, as `<group>_<suffix>`, and
given here per group with the group's material.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "glossary.toml"
GROUP = "<group>"  # in a field's name: once per raw-material group ([groups])


@functools.cache
def _data() -> dict[str, Any]:
    with DATA.open("rb") as file:
        return tomllib.load(file)


def shapes() -> tuple[str, ...]:
    """Every shape the glossary describes, base and derived."""
    return tuple(_data()["shapes"])


@functools.cache
def _fields(shape: str) -> dict[str, dict[str, str]]:
    data = _data()
    try:
        own = data["shapes"][shape]
    except KeyError:
        raise KeyError(f"the glossary has no shape {shape!r}: it has "
                       f"{', '.join(shapes())}") from None
    out = {name: dict(entry) for name, entry in own.items() if GROUP not in name}
    grouped = {name: entry for name, entry in own.items() if GROUP in name}
    for group, material in data["groups"].items() if grouped else ():
        for name, entry in grouped.items():
            out[name.replace(GROUP, group)] = {
                "type": entry["type"], "meaning": f"{entry['meaning']} Material: {material}."}
    base = data["derived"].get(shape)
    return out | _fields(base) if base else out


def fields(shape: str) -> dict[str, dict[str, str]]:
    """Field -> {"type": its type and unit, "meaning": what it holds}, for every field of a
    record of `shape` in the record's order. KeyError for a shape the glossary lacks."""
    return {name: dict(entry) for name, entry in _fields(shape).items()}


def meaning(shape: str, field: str) -> str:
    """What `field` of a `shape` record holds, in a sentence or two. KeyError for a shape or
    field the glossary lacks."""
    return _entry(shape, field)["meaning"]


def field_type(shape: str, field: str) -> str:
    """The type (and unit) of `field` of a `shape` record: "integer", "number, kg", ..."""
    return _entry(shape, field)["type"]


def _entry(shape: str, field: str) -> dict[str, str]:
    try:
        return _fields(shape)[field]
    except KeyError:
        if shape not in _data()["shapes"]:
            raise
        raise KeyError(f"the glossary's {shape} has no field {field!r}") from None
