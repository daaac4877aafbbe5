"""The named queries of sql/*.sql: loaded and checked once at start.

A file holds blocks in aiosql's style::

    -- name: page
    -- One line saying what the query is for.
    SELECT ... WHERE "position" BETWEEN :first_row AND :last_row;

    -- name: page
    -- dialect: sqlite
    -- Why SQLite needs another text.
    SELECT ... LIMIT :row_count OFFSET :skip;

The first text under a name is the production one (SQL Server); a `-- dialect:` block
replaces it on that engine. `:params` become DB-API `?` placeholders.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

DIALECTS = ("sqlite",)

# What the runner passes to each kind of query; a query may use any subset of these.
_PAGE = ("first_row", "last_row", "row_count", "skip")
_RANGE = ("start_date", "start_time", "end_date", "end_time", "midnight")
PARAMETERS: dict[str, tuple[str, ...]] = {
    "all": (),
    "count": (),
    "page": _PAGE,
    "by_key": ("key",),
    "range": _RANGE,
    "range_count": _RANGE,
    "range_page": _RANGE + _PAGE,
    "ping": (),
    "version": (),
}

# Words that change data or run code; none may appear outside strings and quoted names.
_FORBIDDEN = {"insert", "update", "delete", "merge", "drop", "alter", "create", "truncate",
              "exec", "execute", "grant", "revoke", "deny", "into", "attach", "detach",
              "pragma", "vacuum", "reindex", "declare", "set", "begin", "commit",
              "rollback", "savepoint", "openrowset", "opendatasource", "openquery", "bulk",
              "backup", "restore", "shutdown", "kill", "dbcc", "waitfor", "use"}

_NAME_LINE = re.compile(r"^--\s*name:\s*(.*?)\s*$")
_DIALECT_LINE = re.compile(r"^--\s*dialect:\s*(.*?)\s*$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class QueryFileError(Exception):
    """A .sql file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Query:
    name: str
    dialect: str | None
    sql: str  # with `?` placeholders
    params: tuple[str, ...]  # the parameter name behind each `?`, in order
    source: str  # file:line, for logs
    description: str  # the comment lines under the name


# Strings, quoted names ("x", [x]) and comments: nothing inside them is code.
_SKIPPED = re.compile(r"""'(?:[^']|'')*'?|"(?:[^"]|"")*"?|\[[^\]]*\]?|--[^\n]*|/\*.*?(?:\*/|\Z)""",
                      re.S)
# In code: a PostgreSQL cast, a :parameter, or a word.
_CODE_TOKEN = re.compile(r"::|:([A-Za-z_][A-Za-z0-9_]*)|\b([A-Za-z_][A-Za-z0-9_]*)")


def _scan(sql: str) -> Iterator[tuple[str, str]]:
    """Split SQL into ("code" | "skip", text) pieces; strings, quoted names and comments skip."""
    position = 0
    for m in _SKIPPED.finditer(sql):
        if m.start() > position:
            yield "code", sql[position:m.start()]
        yield "skip", m.group()
        position = m.end()
    if position < len(sql):
        yield "code", sql[position:]


def convert(sql: str) -> tuple[str, tuple[str, ...], list[str]]:
    """Turn `:name` into `?`; return the SQL, the names in order and the bare words seen."""
    out: list[str] = []
    names: list[str] = []
    words: list[str] = []

    def token(m: re.Match[str]) -> str:
        if m.group(1):
            names.append(m.group(1))
            return "?"
        if m.group(2):
            words.append(m.group(2).lower())
        return m.group()

    for kind, text in _scan(sql):
        out.append(text if kind == "skip" else _CODE_TOKEN.sub(token, text))
    return "".join(out), tuple(names), words


def _check_statement(sql: str, where: str) -> None:
    code = "".join(t for k, t in _scan(sql) if k == "code")
    body = code.strip().rstrip(";").strip()
    if not body:
        raise QueryFileError(f"{where}: the query has no SQL text")
    if ";" in body:
        raise QueryFileError(f"{where}: one statement per name (found ';' inside the query)")
    _, _, words = convert(sql)
    if words[0] not in ("select", "with"):
        raise QueryFileError(f"{where}: only SELECT or WITH queries are allowed "
                             f"(Jembatan is read-only), found {words[0].upper()}")
    bad = sorted(set(words) & _FORBIDDEN)
    if bad:
        raise QueryFileError(f"{where}: a read-only query may not contain {', '.join(bad)}")


def parse_file(path: Path) -> list[Query]:
    """Every block of one file, checked for shape; names are checked by load_queries."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[tuple[str, int, list[str]]] = []
    for number, line in enumerate(lines, 1):
        m = _NAME_LINE.match(line)
        if m:
            if not _IDENT.fullmatch(m.group(1)):
                raise QueryFileError(f"{path}:{number}: bad query name {m.group(1)!r}")
            blocks.append((m.group(1), number, []))
        elif blocks:
            blocks[-1][2].append(line)
        elif line.strip() and not line.lstrip().startswith("--"):
            raise QueryFileError(f"{path}:{number}: SQL before the first '-- name:' line")
    queries = []
    for name, number, body in blocks:
        where = f"{path}:{number}"
        dialect = None
        if body and (m := _DIALECT_LINE.match(body[0])):
            dialect = m.group(1)
            if dialect not in DIALECTS:
                raise QueryFileError(f"{where}: unknown dialect {dialect!r} for {name!r}; "
                                     f"known: {', '.join(DIALECTS)}")
            body = body[1:]
        # The leading comment lines describe the query; they are not sent to the server
        # (some drivers, SQLite's ODBC one among them, trip over a ';' in a comment).
        notes = []
        while body and (not body[0].strip() or body[0].lstrip().startswith("--")):
            notes.append(body.pop(0).strip().removeprefix("--").strip())
        text = "\n".join(body).strip()
        _check_statement(text, where)
        sql, params, _ = convert(text.rstrip().rstrip(";").rstrip())
        queries.append(Query(name, dialect, sql, params, where, " ".join(filter(None, notes))))
    if not queries:
        raise QueryFileError(f"{path}: no '-- name:' query in the file")
    return queries


def kind_of(name: str) -> str:
    """range_dt1_page -> range_page; all -> all."""
    if name.startswith("range_"):
        for suffix in ("_count", "_page"):
            if name.endswith(suffix):
                return "range" + suffix
        return "range"
    return name


class Queries:
    """Every query of every file, by (file stem, name, dialect)."""

    def __init__(self, files: Mapping[str, Iterable[Query]]):
        self._by_key: dict[tuple[str, str, str | None], Query] = {}
        for stem, queries in files.items():
            for q in queries:
                key = (stem, q.name, q.dialect)
                if key in self._by_key:
                    variant = f" (dialect {q.dialect})" if q.dialect else ""
                    raise QueryFileError(f"{q.source}: duplicate query {q.name!r}{variant}, "
                                         f"first at {self._by_key[key].source}")
                self._by_key[key] = q

    def get(self, stem: str, name: str, dialect: str | None) -> Query:
        return self._by_key.get((stem, name, dialect)) or self._by_key[(stem, name, None)]


def load_queries(sql_dir: Path, required: Mapping[str, Iterable[str]]) -> Queries:
    """Load `<stem>.sql` for each stem of `required`; fail on anything missing or unknown."""
    files: dict[str, list[Query]] = {}
    for stem, names in required.items():
        path = sql_dir / f"{stem}.sql"
        if not path.is_file():
            raise QueryFileError(f"{path}: missing (database.sql_dir is {sql_dir})")
        queries = parse_file(path)
        wanted = set(names)
        for q in queries:
            if q.name not in wanted:
                raise QueryFileError(f"{q.source}: unknown query name {q.name!r}; "
                                     f"{stem}.sql holds: {', '.join(sorted(wanted))}")
            allowed = PARAMETERS[kind_of(q.name)]
            unknown = [p for p in q.params if p not in allowed]
            if unknown:
                raise QueryFileError(f"{q.source}: unknown parameter :{unknown[0]} in "
                                     f"{q.name!r}; it may use {', '.join(allowed) or 'none'}")
        mains = {q.name for q in queries if q.dialect is None}
        missing = sorted(wanted - mains)
        if missing:
            raise QueryFileError(f"{path}: missing quer{'y' if len(missing) == 1 else 'ies'} "
                                 f"{', '.join(missing)} (each needs a main text without "
                                 f"'-- dialect:')")
        files[stem] = queries
    return Queries(files)
