"""SQL text read as code: what is code and what is a string, a quoted name or a comment;
the read-only check every query passes; `:params` turned into DB-API `?`; field names
quoted. Nothing here knows of files, collections or requests."""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import re
from collections.abc import Iterator, Sequence


class QueryFileError(Exception):
    """A .sql file is malformed; the message names the file and line."""


# Words that change data or run code; none may appear outside strings and quoted names.
_FORBIDDEN = {"insert", "update", "delete", "merge", "drop", "alter", "create", "truncate",
              "exec", "execute", "grant", "revoke", "deny", "into", "attach", "detach",
              "pragma", "vacuum", "reindex", "declare", "set", "begin", "commit",
              "rollback", "savepoint", "openrowset", "opendatasource", "openquery", "bulk",
              "backup", "restore", "shutdown", "kill", "dbcc", "waitfor", "use"}

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


# convert() and without_comments() are pure functions of a query's text, and each app (every
# test's, every worker's) reads the same texts again: remembered per process (a third of
# create_app's time went to them).
@functools.lru_cache(maxsize=16384)
def convert(sql: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
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
    return "".join(out), tuple(names), tuple(words)


# A query's `?` as sp_executesql numbers its parameters, per text sent (app/database/db.py).
@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """The DB-API text with each `?` in code (not in a string, a quoted name or a comment)
    turned into @P1, @P2, ... in order: the statement as sp_executesql takes it."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"@P{count}"

    return "".join(text if kind == "skip" else re.sub(r"\?", number, text)
                   for kind, text in _scan(sql))


# Text longer than this goes to an RPC as a long type (SQL_WLONGVARCHAR, nvarchar(max)):
# pyodbc sends longer text data-at-execution, which FreeTDS cannot put in an RPC, and FreeTDS
# cuts an nvarchar RPC argument off at 4,000 characters.
LONG_TEXT = 2000
# The SQL Server type that holds each kind of value as pyodbc binds it (bool before int, a
# datetime before a date: each is the other's subclass).
_DECLARED: tuple[tuple[type, str], ...] = (
    (bool, "bit"), (int, "bigint"), (float, "float"), (dt.datetime, "datetime2"),
    (dt.date, "date"), (dt.time, "time"), (bytes, "varbinary(max)"))


def declared(values: Sequence[object]) -> str:
    """sp_executesql's parameter list for `values` in order: "@P1 bigint, @P2 date"."""
    return ", ".join(f"@P{n} {_declared_type(v)}" for n, v in enumerate(values, 1))


def _declared_type(value: object) -> str:
    if isinstance(value, str):
        return "nvarchar(4000)" if len(value) <= LONG_TEXT else "nvarchar(max)"
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        scale = min(max(-exponent, 0), 38) if isinstance(exponent, int) else 0
        return f"decimal(38, {scale})"
    if value is None:
        return "nvarchar(1)"  # NULL compares as NULL whatever its type
    return next(name for kind, name in _DECLARED if isinstance(value, kind))


@functools.lru_cache(maxsize=16384)
def without_comments(sql: str) -> str:
    """The SQL less its comments and the blank lines and trailing blanks they leave.

    Not sent to the server: some drivers (SQLite's ODBC one) trip over a ';' in a comment."""
    pieces: list[list[str]] = []  # [kind, text], adjacent code merged
    for kind, text in _scan(sql):
        if kind == "skip" and text.startswith(("--", "/*")):
            continue
        if kind == "code" and pieces and pieces[-1][0] == "code":
            pieces[-1][1] += text
        else:
            pieces.append([kind, text])
    out = []
    for kind, text in pieces:
        if kind == "code":
            text = re.sub(r"[ \t]+(?=\n)", "", text)
            text = re.sub(r"\n(?:[ \t]*\n)+", "\n", text)
        out.append(text)
    return "".join(out).strip()


def code(sql: str) -> str:
    return "".join(t for k, t in _scan(sql) if k == "code")


def ended(sql: str) -> tuple[str, int | None]:
    """The statement without the `;` that ends it and the comments after it (a `;` then
    `-- a note` ends a query as well as a `;` alone), and the offset in `sql` of the first
    code after a `;` (another statement, or a stray word), None when there is none."""
    position, end, stray = 0, None, None
    for kind, text in _scan(sql):
        if kind == "code":
            for m in re.finditer(r";|\S", text):
                if m.group() == ";" and end is None:
                    end = position + m.start()
                elif m.group() != ";" and end is not None and stray is None:
                    stray = position + m.start()
        elif end is not None and stray is None and not text.startswith(("--", "/*")):
            stray = position  # a string or a quoted name after the end
        position += len(text)
    if end is None or stray is not None:
        return sql, stray
    return sql[:end].rstrip(), None


def joins(sql: str) -> bool:
    """Whether a query's own FROM reads more than one table: a JOIN, an APPLY, or tables
    after FROM separated by commas (subqueries set aside), so that one row of its table may
    come out more than once."""
    text = code(sql)
    if re.search(r"(?i)\b(?:JOIN|APPLY)\b", text):
        return True
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\([^()]*\)", " ", text)
    found = re.search(r"(?is)\bFROM\b(.*?)(?:\b(?:WHERE|GROUP|HAVING|UNION|ORDER)\b|$)", text)
    return bool(found and "," in found.group(1))


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of `offset` in `text`."""
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


_TODO_COMMENT = re.compile(r"--\s*TODO\b", re.I)
_TODO_MARK = "\0"  # stands for a `-- TODO` comment in the text todo_fields reads
_NAMED_FIELD = re.compile(r'(?i)\bAS\s*"((?:[^"]|"")*)"')


def todo_fields(sql: str) -> list[str]:
    """The fields a query names (`... AS "field"`) on a line that ends in a comment starting
    `-- TODO`, as draft-mapping marks a field left to map, in order. A TODO in a comment line
    of its own, or inside a `/* */` block, marks nothing: only a select-list line counts."""
    masked = []  # the text with comments and strings emptied, each TODO comment marked
    for kind, text in _scan(sql):
        if kind == "code" or text.startswith('"'):
            masked.append(text)
        elif text.startswith("--"):
            masked.append(_TODO_MARK if _TODO_COMMENT.match(text) else "")
        else:  # a /* */ comment, a string, a [name]: only its line breaks are kept
            masked.append("''" + "\n" * text.count("\n"))
    fields = [name.replace('""', '"') for line in "".join(masked).split("\n")
              if _TODO_MARK in line for name in _NAMED_FIELD.findall(line)]
    return list(dict.fromkeys(fields))


# A select-list item that is NULL itself: `NULL AS "f"`, `CAST(NULL AS decimal(12, 3)) AS "f"`.
_NULL_FIELD = re.compile(r'(?is)(?:\bSELECT\b|,)\s*(?:NULL|CAST\s*\(\s*NULL\s+AS\s+\w+'
                         r'(?:\s*\(\s*\w+(?:\s*,\s*\w+)?\s*\))?\s*\))\s+AS\s*"((?:[^"]|"")*)"')


def null_fields(sql: str) -> list[str]:
    """The fields a query gives as NULL itself (`NULL AS "lot"`, `CAST(NULL AS date) AS
    "tgl_dt2"`): those the site has no column for, in order. Comments do not count."""
    return list(dict.fromkeys(n.replace('""', '"')
                              for n in _NULL_FIELD.findall(without_comments(sql))))


def check_statement(sql: str, where: str, first: tuple[str, ...] = ("select", "with")) -> None:
    """One read-only statement, starting with one of `first`; else a QueryFileError."""
    body = code(sql).strip().rstrip(";").strip()
    if not body:
        raise QueryFileError(f"{where}: the query has no SQL text")
    if ";" in body:
        raise QueryFileError(f"{where}: one statement per name (found ';' inside the query)")
    _, _, words = convert(sql)
    if not words or words[0] not in first:
        found = words[0].upper() if words else body[:20]
        raise QueryFileError(f"{where}: this query must start with "
                             f"{' or '.join(w.upper() for w in first)} (Jembatan is "
                             f"read-only), found {found}")
    bad = sorted(set(words) & _FORBIDDEN)
    if bad:
        raise QueryFileError(f"{where}: a read-only query may not contain {', '.join(bad)}")


def named(sql: str) -> set[str]:
    """The names a query gives its columns (`... AS "name"`)."""
    return set(re.findall(r'(?i)\bAS\s*"((?:[^"]|"")*)"', sql))


def quote(name: str) -> str:
    """A field name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


@functools.lru_cache(maxsize=1024)
def bracketed(sql: str) -> str:
    """`sql` with each double-quoted name written as a [bracketed] one, outside strings and
    comments: SQLite's text of a site's mapping. SQLite reads a double-quoted name that is
    no column as a string ("cancelled" becomes the text 'cancelled', its legacy
    double-quoted string literals), never a [bracketed] one, which is a column or an error.
    A name holding a ] cannot be bracketed, and stays as written."""
    out = []
    for kind, text in _scan(sql):
        if kind == "skip" and len(text) > 1 and text[0] == text[-1] == '"':
            name = text[1:-1].replace('""', '"')
            if "]" not in name:
                text = f"[{name}]"
        out.append(text)
    return "".join(out)


def qualified(table: Sequence[str]) -> str:
    """A table's name as SQL: its quoted parts joined by dots, an empty schema left out
    ("dbo"."TBL_TIMBANG"; "TBL_TIMBANG" on SQLite)."""
    return ".".join(quote(part) for part in table if part)


def written_as(line: str, field: str) -> str | None:
    """What a `records` line, as Queries.field_line gives it ('file:line: the line'), writes
    before AS "field"; None where it does not name the field."""
    m = re.search(rf':\d+: (.*?)\s+AS\s+"?{re.escape(field)}"?\s*,?\s*(?:--.*)?$', line,
                  re.I)
    return m.group(1) if m else None
