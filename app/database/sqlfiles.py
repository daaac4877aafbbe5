"""The .sql files as written: blocks in aiosql's style (`-- name:`, an optional
`-- dialect:`, leading comment lines that describe the query), read and checked for shape.
Which names a file may hold is the loader's (app/database/loading.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .sqltext import QueryFileError, check_statement, ended, line_and_column

DIALECTS = ("sqlite", "postgresql")

_NAME_LINE = re.compile(r"^--\s*name:\s*(.*?)\s*$")
_DIALECT_LINE = re.compile(r"^--\s*dialect:\s*(.*?)\s*$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Block:
    """One `-- name:` block of a file, as written."""

    name: str
    dialect: str | None
    text: str  # the SQL as written, comments inside it kept, without the final ';'
    source: str  # file:line of its `-- name:` line
    description: str  # the comment lines under the name



def parse_file(path: Path) -> list[Block]:
    """Every block of one file, checked for shape; names are checked by load_queries."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, int, list[str]]] = []
    for number, line in enumerate(lines, 1):
        m = _NAME_LINE.match(line)
        if m:
            if not _IDENT.fullmatch(m.group(1)):
                raise QueryFileError(f"{path}:{number}: bad query name {m.group(1)!r}")
            found.append((m.group(1), number, []))
        elif found:
            found[-1][2].append(line)
        elif line.strip() and not line.lstrip().startswith("--"):
            raise QueryFileError(f"{path}:{number}: SQL before the first '-- name:' line")
    blocks = []
    for name, number, body in found:
        where = f"{path}:{number}"
        dialect = None
        if body and (m := _DIALECT_LINE.match(body[0])):
            dialect = m.group(1)
            if dialect not in DIALECTS:
                raise QueryFileError(f"{where}: unknown dialect {dialect!r} for {name!r}; "
                                     f"known: {', '.join(DIALECTS)}")
            body = body[1:]
        first = number + 1 + (dialect is not None)  # the file's line of body[0]
        notes = []  # the leading comment lines describe the query
        while body and (not body[0].strip() or body[0].lstrip().startswith("--")):
            notes.append(body.pop(0).strip().removeprefix("--").strip())
            first += 1
        # Comment lines after the statement introduce what follows in the file, not this query.
        while body and (not body[-1].strip() or body[-1].lstrip().startswith("--")):
            body.pop()
        text, stray = ended("\n".join(body).strip())
        if stray is not None:
            line, column = line_and_column(text, stray)
            raise QueryFileError(
                f"{path} line {first + line - 1}, column {column} (the query {name} of "
                f"line {number}): text after the ';' that ends the query; one statement per "
                f"name, and nothing after its ';' but a comment")
        check_statement(text, where)
        blocks.append(Block(name, dialect, text, where, " ".join(filter(None, notes))))
    if not blocks:
        raise QueryFileError(f"{path}: no '-- name:' query in the file")
    return blocks


class SqlFile:
    """The blocks of one file by (name, dialect), refusing a name given twice."""

    def __init__(self, path: Path, allowed: Sequence[str]):
        self.path = path
        self.blocks = parse_file(path)
        self.by_key: dict[tuple[str, str | None], Block] = {}
        for b in self.blocks:
            if b.name not in allowed:
                raise QueryFileError(f"{b.source}: unknown query name {b.name!r}; "
                                     f"{path.name} may hold: {', '.join(allowed)}")
            if (b.name, b.dialect) in self.by_key:
                variant = f" (dialect {b.dialect})" if b.dialect else ""
                raise QueryFileError(f"{b.source}: duplicate query {b.name!r}{variant}, "
                                     f"first at {self.by_key[(b.name, b.dialect)].source}")
            self.by_key[(b.name, b.dialect)] = b
        for b in self.blocks:
            if b.dialect and not self.has(b.name):
                raise QueryFileError(f"{b.source}: a '-- dialect: {b.dialect}' text of "
                                     f"{b.name!r} needs a main text of the same name, which "
                                     f"every other engine runs")

    def dialects(self) -> set[str]:
        """The engines some block of the file has a text of its own for."""
        return {d for _, d in self.by_key if d is not None}

    def has(self, name: str) -> bool:
        return (name, None) in self.by_key

    def get(self, name: str, dialect: str | None) -> Block:
        return self.by_key.get((name, dialect)) or self.by_key[(name, None)]

    def require(self, names: Sequence[str]) -> None:
        missing = [n for n in names if not self.has(n)]
        if missing:
            raise QueryFileError(
                f"{self.path}: missing quer{'y' if len(missing) == 1 else 'ies'} "
                f"{', '.join(missing)} (each needs a main text without '-- dialect:')")



# A file that serves several collections alike but for their table says so before its first
# query, one `-- serves:` line or more: "-- serves: timbangan1, timbangan2" ({table} in its
# records is the collection's name, quoted) or "-- serves: timbangan1 = "Timbangan WB1""
# (that table; a schema before it as "dbo"."Timbangan WB1").
_SERVES_LINE = re.compile(r"^--\s*serves:(.*)$")
_NAME = r'(?:"(?:[^"]|"")+"|\[[^\]]+\]|[A-Za-z_][A-Za-z0-9_]*)'
_SERVED = re.compile(rf"\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s*=\s*({_NAME}(?:\.{_NAME})*))?\s*(,|$)")


@dataclass(frozen=True)
class Served:
    """A collection a file serves by its `-- serves:` lines, and its table there."""

    collection: str
    table: str | None  # as written (quoted or not); None: the collection's name
    path: Path
    line: int
    column: int  # where the collection's name stands on that line

    @property
    def name(self) -> str:
        """The table's own name, unquoted, as a database names it in an error."""
        if self.table is None:
            return self.collection
        last = re.findall(_NAME, self.table)[-1]
        return last[1:-1].replace('""', '"') if last[0] in '"[' else last


def served(path: Path) -> list[Served]:
    """The collections a file's `-- serves:` lines (before its first query) name."""
    found: list[Served] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if is_name_line(line):
            break
        m = _SERVES_LINE.match(line)
        position = m.start(1) if m else len(line)
        while position < len(line):
            item = _SERVED.match(line, position)
            if item is None or not item.group(3) and item.end() < len(line):
                raise QueryFileError(
                    f"{path}:{number}: `-- serves:` lists collections, each alone or with "
                    f'its table: -- serves: timbangan1 = "Timbangan WB1", timbangan2')
            found.append(Served(item.group(1), item.group(2), path, number,
                                item.start(1) + 1))
            position = item.end()
    return found


def is_name_line(line: str) -> bool:
    """The line opens a block (`-- name: ...`)."""
    return _NAME_LINE.match(line) is not None


def own_or_shipped(sql_dir: Path, shipped_dir: Path, stem: str) -> Path:
    """Jembatan's own files: the site's copy if it has one, else the shipped file, so that a
    site that copied only its ten mapping files gets the shapes of the version it runs."""
    own = sql_dir / f"{stem}.sql"
    return own if own.is_file() else shipped_dir / f"{stem}.sql"

