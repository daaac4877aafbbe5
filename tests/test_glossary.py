"""app/model/glossary.toml says what docs/api.md's "Field glossary" says, for every field of every
collection's record.

Everything expected is read from the docs and the schemas. Each row of a glossary table
names one or more fields (`tgl_dt1`, `jam_dt1`), perhaps the shape it is for (`Remark`
(product)); it is for the collections of its `####` heading whose record has those fields
(and whose shape, in section 2's table, is the one named). A row of the suffix table
(`_sv`) is for the field of each raw-material group of the group table (`adonan_sv`, ...).
A row's type column is the fields' type, or one type per field when a row of n fields has n
types ("date, time"). The data's meaning must be in the row's "what it holds" without its
markdown, and each field of a record must have exactly one row.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import pytest

from app.model import glossary
from app.model.collections import COLLECTIONS, Collection
from app.model.schemas import (
    GROUPS,
    Boolean,
    Date,
    Integer,
    JoinedDateTime,
    Number,
    String,
    Time,
)
from tests.servers import ROOT

DOCS = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
BY_NAME = {c.name: c for c in COLLECTIONS}


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _tables(section: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """(the #### heading above it, header cells, rows' cells) of every table of `section`."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    heading, block = "", []
    for line in [*section.splitlines(), ""]:
        if line.startswith("#### "):
            heading = line
        if line.startswith("|"):
            block.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        if block:
            header, _, *rows = block
            assert all(len(row) == len(header) for row in rows), (heading, header)
            out.append((heading, header, rows))
            block = []
    return out


def plain(markdown: str) -> str:
    """The text without its markdown: no backticks or asterisks, spaces collapsed."""
    return " ".join(re.sub(r"[`*]", "", markdown).split())


def _shapes_in_section_2() -> dict[str, str]:
    """Collection -> its record shape as section 2's table names it ("production")."""
    [(_, header, rows)] = [t for t in _tables(_section(DOCS, "## 2. Collections"))
                           if t[1][:2] == ["collection", "record shape"]]
    return {row[0].strip("`"): row[1].split(",")[0].split()[0] for row in rows}


@dataclass(frozen=True)
class Claim:
    """What one glossary row says of one field of one collection."""

    collection: Collection
    field: str
    type: str
    holds: str  # "what it holds", without markdown
    suffix: str = ""  # a suffix row's suffix (`_sv`): the field is <group><suffix>
    row: str = ""  # the row's field cell, to name it in a failure


def _glossary() -> tuple[list[Claim], dict[str, str]]:
    """Every row's claims, and the group table's material per group (without markdown)."""
    shape_of = _shapes_in_section_2()
    claims: list[Claim] = []
    materials: dict[str, str] = {}
    suffix_rows: list[tuple[str, list[Collection], list[str]]] = []
    for heading, header, rows in _tables(_section(DOCS, "### 3.1 Field glossary")):
        collections = [BY_NAME[n] for n in re.findall(r"`([^`]+)`", heading)]
        assert collections, f"no collection named in {heading!r}"
        if header[0] == "group":
            materials |= {row[0].strip("`"): plain(row[1]) for row in rows}
            continue
        assert header[:3] in (["field", "type, unit", "what it holds"],
                              ["field", "type", "what it holds"],
                              ["suffix", "type", "what it holds"]), header
        if header[0] == "suffix":
            suffix_rows += [(heading, collections, row) for row in rows]
            continue
        for cell, kind, holds, *_ in rows:
            names = re.findall(r"`([^`]+)`", cell)
            qualifier = re.search(r"\(([^)]*)\)\s*$", cell)
            kinds = kind.split(", ")
            for i, name in enumerate(names):
                its = [c for c in collections if name in c.schema._declared_fields
                       and (not qualifier or shape_of[c.name] == qualifier.group(1))]
                assert its, f"the row {cell} under {heading!r}: no collection there has {name}"
                claims += [Claim(c, name, kinds[i] if len(names) == len(kinds) > 1 else kind,
                                 plain(holds), row=cell) for c in its]
    for heading, collections, (cell, kind, holds) in suffix_rows:
        suffix = cell.strip("`")
        for group in materials:
            its = [c for c in collections if group + suffix in c.schema._declared_fields]
            assert its, f"the row {cell} under {heading!r}: no collection has {group}{suffix}"
            claims += [Claim(c, group + suffix, kind, plain(holds), suffix, cell) for c in its]
    return claims, materials


CLAIMS, MATERIALS = _glossary()
SCHEMA_FIELDS = [(c, name) for c in COLLECTIONS for name in c.schema._declared_fields]


@pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.name)
def test_every_field_of_the_record_has_a_short_meaning(c: Collection) -> None:
    shape = c.schema.__name__
    described = glossary.fields(shape)
    assert list(described) == list(c.schema._declared_fields), "the record's fields, in order"
    for name, entry in described.items():
        assert set(entry) == {"type", "meaning"} and entry["type"], name
        text = entry["meaning"]
        assert text == glossary.meaning(shape, name) and entry["type"] == glossary.field_type(
            shape, name)
        assert 10 <= len(text) <= 200 and text.endswith("."), (name, text)
        assert not re.search(r"[`*]|\bdemo:", text, re.IGNORECASE), (name, text)


def test_each_field_of_each_record_has_one_row_in_the_docs() -> None:
    rows: dict[tuple[str, str], list[str]] = defaultdict(list)
    for claim in CLAIMS:
        rows[claim.collection.name, claim.field].append(claim.row)
    assert {k: v for k, v in rows.items() if len(v) > 1} == {}, "a field with two rows"
    assert [(c.name, name) for c, name in SCHEMA_FIELDS if (c.name, name) not in rows] == []


def test_the_data_says_what_the_docs_say() -> None:
    wrong = []
    for claim in CLAIMS:
        shape = claim.collection.schema.__name__
        text, kind = glossary.meaning(shape, claim.field), glossary.field_type(shape, claim.field)
        if claim.suffix:  # the suffix's meaning, then the group's material
            text, _, material = text.rpartition(" Material: ")
            group = claim.field.removesuffix(claim.suffix)
            if not material or material.removesuffix(".") not in MATERIALS[group]:
                wrong.append((claim.collection.name, claim.field, "material", material))
        if text.removesuffix(".") not in claim.holds:
            wrong.append((claim.collection.name, claim.field, "meaning", text))
        if kind != claim.type:
            wrong.append((claim.collection.name, claim.field, "type", kind, claim.type))
    assert wrong == []


def test_the_groups_are_the_schemas() -> None:
    assert tuple(MATERIALS) == GROUPS


# The type column's first word (or varchar(50)) -> the field's class and String length.
KINDS = {"integer": (Integer, None), "number": (Number, None), "string": (String, 255),
         "boolean": (Boolean, None),
         "varchar(50)": (String, 50), "date": (Date, None), "time": (Time, None),
         "datetime": (JoinedDateTime, None)}


@pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.name)
def test_each_type_is_the_fields_type(c: Collection) -> None:
    for name, field in c.schema._declared_fields.items():
        kind = glossary.field_type(c.schema.__name__, name)
        cls, length = KINDS[re.split(r"[ ,]", kind)[0]]
        assert type(field) is cls and getattr(field, "length", None) == length, (name, kind)


def test_an_unknown_shape_or_field_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="has no shape 'Truck'"):
        glossary.fields("Truck")
    with pytest.raises(KeyError, match="Weighing has no field 'numberrow'"):
        glossary.meaning("Weighing", "numberrow")
    assert set(glossary.shapes()) >= {c.schema.__name__ for c in COLLECTIONS}
