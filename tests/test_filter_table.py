"""The filter table of docs/api.md §6.1 is the operator registry (app/database/filters.py
OPERATORS), read back: one row per operator, or per run of operators that share a row (`__gt`,
`__gte`, ...), in the registry's order, each with its argument's form (`=v`, `=v1,v2,…`,
`=true` / `false`) and the field types that take it. The table stays written by hand, in the
reference's words; this test fails when the registry and the table part.

It is the only filter table of the docs: the guides point to it (docs/integrating.md,
"Filters"), and docs/mcp.md names the same operators as the MCP tools spell them.
"""

from __future__ import annotations

import re
from pathlib import Path

from app.database.filters import BOOLEAN_KIND, KINDS, OPERATORS

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api.md"
HEADER = "| argument | keeps the records whose field"
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n### ", start + 1)
    return text[start:end]


def _table(section: str, header: str) -> list[list[str]]:
    """The rows' cells of the table in `section` whose header line starts with `header`."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _documented() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(suffix, the value as shown after `=`, the whole argument cell, field kinds) of every
    operator the table names, in the table's order."""
    found = []
    for argument, _keeps, types in _table(_section(API.read_text(encoding="utf-8"),
                                                   "### 6.1 Filters"), HEADER):
        kinds = KINDS if types == "all" else tuple(types.split(", "))
        for token in re.findall(r"`([^`]+)`", argument):
            if not token.startswith(("field", "__")):  # `false` after `field__isnull=true`
                continue
            m = re.fullmatch(r"(?:field)?(?:__(\w+))?(?:=(.*))?", token)
            assert m, f"{token!r} in the filter table is no argument"
            found.append((m.group(1) or "", m.group(2) or "", argument, kinds))
    return found


def test_the_table_names_every_operator_in_the_registry_order() -> None:
    assert [suffix for suffix, *_ in _documented()] == list(OPERATORS)


def test_each_row_shows_its_operators_form_and_field_types() -> None:
    for suffix, value, cell, kinds in _documented():
        op = OPERATORS[suffix]
        assert kinds == op.kinds, (suffix, kinds, op.kinds)
        if not value:  # `__gte` beside `field__gt=v`: the row's first shows the form
            continue
        first, *others = op.form.example.removeprefix("=").split("|")
        assert value.startswith(first), (suffix, value, op.form.example)
        assert all(f"`{other}`" in cell for other in others), (suffix, cell)
        assert value.endswith(",…") == op.form.split, (suffix, value)


def test_the_value_table_names_every_kind() -> None:
    section = _section(API.read_text(encoding="utf-8"), "### 6.1 Filters")
    kinds = {row[0] for row in _table(section, "| type | accepted |")}
    assert kinds - {"`__isnull`"} == {*KINDS, BOOLEAN_KIND}


def test_the_filter_table_stands_in_one_place() -> None:
    holding = [p.relative_to(ROOT).as_posix() for p in DOCUMENTS
               if any(line.startswith(HEADER) for line in p.read_text("utf-8").splitlines())]
    assert holding == ["docs/api.md"]


def test_the_mcp_guide_names_the_same_operators() -> None:
    """docs/mcp.md: "`op` is `eq` (the default), `not` (NULL included), ...": the MCP tools'
    names of the registry's operators (`eq` for equality), in its order."""
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    sentence = text[text.index("`op` is "):]
    sentence = sentence[:sentence.index(";")]
    named = re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", sentence.removeprefix("`op` is ")))
    assert named == [suffix or "eq" for suffix in OPERATORS]
