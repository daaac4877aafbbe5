"""Every relative link of the repository's markdown (the README, CONTRIBUTING.md, docs/*.md,
bench/RESULTS.md, tests/draft_corpus/README.md, ...) reaches an existing file, and a link with
`#anchor` into a markdown file reaches one of its headings, as GitHub names them: the heading's
text in lower case, every character but letters, digits, `_`, `-` and spaces dropped, spaces
turned to `-`, and `-1`, `-2`, ... after a name already taken in the file. Links inside code
(fenced blocks, `code spans`) are not links; `http:`, `https:` and `mailto:` ones are not
checked.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {"node_modules", "data", "__pycache__"}  # and every directory named .*
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) or [text](target "title"); the text may hold one level of brackets.
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def markdown_files() -> list[Path]:
    """The repository's markdown files, not walking into virtual environments, node modules,
    benchmark data or caches."""
    found = []
    for directory, subdirectories, files in os.walk(ROOT):
        subdirectories[:] = sorted(d for d in subdirectories
                                   if d not in SKIPPED and not d.startswith("."))
        found += [Path(directory) / f for f in files if f.endswith(".md")]
    return sorted(found)


def prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            out.append((number, line))
    return out


def slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.lower())
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of `path`'s headings, a repeated one numbered as github-slugger does."""
    seen: dict[str, int] = {}
    for _, line in prose(path.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if m:
            name = original = slug(m.group(2))
            while name in seen:
                seen[original] += 1
                name = f"{original}-{seen[original]}"
            seen[name] = 0
    return frozenset(seen)


def test_slugs_follow_github() -> None:
    assert slug("12. Configuration") == "12-configuration"
    assert slug("Pointing it at the plant's SQL Server") == "pointing-it-at-the-plants-sql-server"
    assert slug("The bookmark: `/<c>/changes`") == "the-bookmark-cchanges"
    assert slug("READ_COMMITTED_SNAPSHOT: the DBA's alternative") == \
        "read_committed_snapshot-the-dbas-alternative"
    assert slug("5.11 Changes since a bookmark: `GET /<c>/changes`") == \
        "511-changes-since-a-bookmark-get-cchanges"


def test_a_repeated_heading_is_numbered(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A\n\n## Under a sub-path\n\n```\n# not a heading\n```\n\n"
                    "## Under a sub-path\n", encoding="utf-8")
    assert anchors(page) == {"a", "under-a-sub-path", "under-a-sub-path-1"}


def test_the_guides_are_found() -> None:
    found = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "CONTRIBUTING.md", "docs/api.md", "docs/integrating.md",
            "docs/adapting.md", "docs/operations.md", "docs/deploy.md", "docs/mcp.md"} <= found


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path: Path) -> None:
    broken = []
    for number, line in prose(path.read_text(encoding="utf-8")):
        for m in LINK.finditer(CODE_SPAN.sub("", line)):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            where = f"{path.relative_to(ROOT).as_posix()}:{number}: {target}"
            if not linked.exists():
                broken.append(f"{where}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{where}: no heading #{anchor} in {linked.name}")
    assert broken == []
