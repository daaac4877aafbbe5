"""The table of read kinds (app/model/kinds.py READ_KINDS), read back from what is written by
hand: docs/api.md (§5 and §7 name each read's path, §6.2's table lists its arguments, §11
its metrics `kind`) and the tests' own lists of the reads. The docs and the lists stay
written by hand; this test fails when one of them and the table part.

The tests' lists of reads (tests/test_sql_files.py THING_READS, tests/test_check_sql.py's,
tests/test_service.py's count of routes) are spelt here from the table's rows in the test's
own way (a dated kind's name takes its `on` after its first word), not by Collection.reads,
which this test holds to the same spelling.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.http.routes import ROUTES
from app.model.collections import COLLECTIONS, Collection
from app.model.kinds import READ_KINDS

API = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def _section(text: str, number: int) -> str:
    """The text of `## <number>.` up to the next section."""
    start = text.index(f"\n## {number}. ")
    return text[start:text.index("\n## ", start + 1)]


def _named(kind: str, on: str) -> str:
    """range_page on tanggal -> range_tanggal_page; summary -> summary_tanggal."""
    head, _, tail = kind.partition("_")
    return "_".join(p for p in (head, on, tail) if p)


def spelt_reads(dates: tuple[str, ...], summary: bool, numbered: bool) -> list[str]:
    """The query names of a collection with these traits (its `on` pairs, whether it has a
    summary, whether it is numbered), spelt from the rows of READ_KINDS alone: the tests'
    lists of reads (THING_READS, check-sql's) are these."""
    served = [k for k in READ_KINDS if k.needs is None or (dates and (summary or k.name
                                                                       != "summary"))]
    queries = [q for k in served for q in k.queries if not (q.keyless and numbered)]
    return ([q.name for q in queries if not q.dated]
            + [_named(q.name, on) for on in dates for q in queries if q.dated])


def routes_of(dated: bool) -> int:
    """How many routes a collection has, with or without dates (every dated collection of
    the contract has a summary)."""
    return sum(1 for k in READ_KINDS if k.needs is None or dated)


def test_the_arguments_table_is_the_read_kinds() -> None:
    """§6.2: one row per read kind, in the table's order, with its arguments in order."""
    section = _section(API.read_text(encoding="utf-8"), 6).split("\n### 6.2 ", 1)[1]
    section = section.split("\n### ", 1)[0]
    rows = re.findall(r"^\| `(/<c>[^`]*)` \| (.+) \|$", section, re.M)
    assert rows == [(k.path, ", ".join("filters" if a == "filters" else f"`{a}`"
                                       for a in k.arguments)) for k in READ_KINDS]


def test_each_read_kind_has_its_section() -> None:
    """§5 (and §7 for the summary) name each read's path: GET /<c>/page/{n}, ..."""
    text = API.read_text(encoding="utf-8")
    reads = _section(text, 5) + _section(text, 7)
    for kind in READ_KINDS:
        path = kind.path.removesuffix("…")
        ends = "" if path != kind.path else "`"
        assert f"`GET {path}{ends}" in reads, kind.name


def test_the_metrics_kinds_are_the_read_kinds() -> None:
    """§11's request `kind` values: the read kinds, then mcp and meta."""
    section = _section(API.read_text(encoding="utf-8"), 11)
    bullet = section[section.index("- request `kind`:"):].split(";\n", 1)[0]
    values = re.findall(r"(?<![/<{])`([a-z]+)`", bullet)
    assert values == ["kind", *(k.name for k in READ_KINDS), "mcp", "meta"]


@pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.name)
def test_the_reads_of_each_collection(c: Collection) -> None:
    """What Collection.reads runs is what the rows spell, and a collection's routes are
    routes_of (tests/test_service.py counts them so)."""
    assert c.query_names() == spelt_reads(c.dates, bool(c.summary), c.numbered)
    assert sum(1 for k in READ_KINDS if k.served_on(c)) == routes_of(bool(c.dates))


def test_every_read_kind_has_one_route() -> None:
    """ROUTES serves each read kind once, in the table's order."""
    assert [route.kind for route in ROUTES] == list(READ_KINDS)
