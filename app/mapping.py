"""`flask --app wsgi draft-mapping TABLE [--collection C]`: a first `records` query for a
site's table, drafted from the table's own columns as the configured connection sees them
(INFORMATION_SCHEMA on SQL Server and PostgreSQL, the table info on SQLite).

A field is matched to a column of the same name; else to one whose name is the same but for
case; else but for case, underscores, spaces and hyphens (`TGL_DT1`, `TglDt1`, `tgl dt1` for
`tgl_dt1`); else to a column named by one of the trade's words for it (`NOPOL` for vehno,
`BERAT_MASUK` or `BRUTO` for weigh1, `TGL_MASUK` for tgl_dt1): the table of
`draft-words.toml`, shipped in sql/ and extended by a file of that name in the site's
sql_dir (its words come first and take a word from any other field). A trade word fills a
field only with a column whose type can hold it. Each column serves one field, but for a
datetime column that fills the date of a pair (tgl_dt1): it fills the pair's time too
(jam_dt1) where no column of its own does, cast to each part in the engine's text
(`CAST("TGL_MASUK" AS date)`, on SQLite `date("TGL_MASUK")`).

Every line ends with how sure the draft is of it: `-- exact name`, `-- same name but for
case`, `-- trade word (NOPOL)`, `-- site word (...)`. A field left unmatched is written as a
NULL of the field's type, `CAST(NULL AS date) AS "tgl_dt2", -- TODO` (plain `NULL` on
SQLite), with a trade word whose column's type does not fit and the nearest columns no word
claims, for a person to finish; `check-sql` reports the fields still marked TODO.

The table is written as the engine names it: SCHEMA.TABLE on the servers (the schema given,
else the one the catalog found it in); on SQLite, which has no schemas, the table alone: a
`dbo.` or `main.` given is dropped and any other schema refused.
"""

from __future__ import annotations

import difflib
import re
import textwrap
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import click
from flask.cli import ScriptInfo

from .collections import COLLECTIONS, DATE_PAIRS, Collection
from .config import SHIPPED_SQL_DIR, ConfigError, load_settings
from .db import Database, DatabaseUnavailable, QueryFailed
from .queries import QueryFileError, load_queries, quote
from .schemas import Date, Integer, Number, String, Time

WORDS_FILE = "draft-words.toml"
NO_FIELD = "no_field"  # the words file's key for columns known to fill no field (NETTO)
# Catalog types that hold a date and a time of day in one value (SQL Server, PostgreSQL,
# SQLite's declared types): a date or time field matched to one is cast to its part.
_DATETIME_TYPES = re.compile(r"(?i)^(datetime|datetime2|smalldatetime|datetimeoffset|"
                             r"timestamp( .*)?)$")
_DATE_TYPE = re.compile(r"(?i)^date$")
_TIME_TYPE = re.compile(r"(?i)^time\b")  # time, time(0), time without time zone
_TEXT_TYPE = re.compile(r"(?i)^(n?(var)?char|n?text|character|varchar2|string|clob)\b")
CLOSEST = 3  # columns named after each TODO
HINT_CUTOFF = 0.6  # how alike (difflib's ratio) a column must be to a field's name or word
# The type of the NULL given for a field the site has no column for, named alike on SQL
# Server 2008 and PostgreSQL. SQL Server types a bare NULL in a SELECT list as int, which it
# refuses to CAST to date or time or compare with one (every date range reads its date and
# time that way) and to which it converts a text filter's value ('SUP-007': conversion
# failed); PostgreSQL's bare NULL is text there.
_NULL_TYPES: dict[type, str] = {Integer: "int", Number: "float", Date: "date", Time: "time"}
# SQLite has one schema, main; `dbo` is what the README's SQL Server example names.
SQLITE_SCHEMAS = ("dbo", "main")


class Column(NamedTuple):
    name: str
    type: str


class Word(NamedTuple):
    text: str  # as the words file writes it
    site: bool  # from the site's own file, not the shipped one


class Pick(NamedTuple):
    """The column that fills a field, and how sure the draft is of it."""
    column: Column
    note: str


Words = dict[str, dict[str, list[Word]]]  # section -> field (or no_field) -> its words


def normalized(name: str) -> str:
    """The name as compared last: lower case, without underscores, spaces or hyphens."""
    return re.sub(r"[\s_\-]+", "", name).lower()


_PART = r'"(?:[^"]|"")+"|\[[^\]]+\]|[^."\[\]]+'
_TABLE = re.compile(f"({_PART})(?:\\.({_PART}))?")


def _unquoted(part: str) -> str:
    if part.startswith('"'):
        return part[1:-1].replace('""', '"')
    return part[1:-1] if part.startswith("[") else part.strip()


def split_table(text: str) -> tuple[str, str]:
    """'dbo.TBL_TIMBANG' -> ('dbo', 'TBL_TIMBANG'); 'TBL' -> ('', 'TBL'). A part may be
    quoted "..." or [...], and then hold dots and spaces."""
    m = _TABLE.fullmatch(text.strip())
    if not m or not all(_unquoted(p) for p in m.groups() if p is not None):
        raise click.BadParameter(f"{text!r}: give the table as TABLE or SCHEMA.TABLE, e.g. "
                                 f"dbo.TBL_TIMBANG", param_hint="TABLE")
    first, second = m.groups()
    return ("", _unquoted(first)) if second is None else (_unquoted(first), _unquoted(second))


# -- the words file -------------------------------------------------------------------

def section_of(c: Collection) -> str:
    """The words file's section for a collection: its record shape (CONTRACT §1), the
    name its summaries go by, or for the master data its schema's."""
    return c.summary or c.schema.__name__.lower()


def _section_fields() -> dict[str, set[str]]:
    """The fields each section may name: those of every collection of that shape."""
    out: dict[str, set[str]] = {}
    for c in COLLECTIONS:
        out.setdefault(section_of(c), set()).update(c.fields)
    return out


def read_words(path: Path, site: bool) -> Words:
    """One words file, checked: a section per record shape, each key a field of it (or
    no_field), each value a list of names, and no name under two fields of a section."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise click.ClickException(f"{path}: cannot read the words: {exc}") from None
    sections = _section_fields()
    words: Words = {}
    for section, table in data.items():
        if section not in sections or not isinstance(table, dict):
            raise click.ClickException(f"{path}: [{section}] is no record shape; the sections "
                                       f"are {', '.join(sections)}")
        seen: dict[str, str] = {}
        for field, names in table.items():
            if field not in sections[section] and field != NO_FIELD:
                raise click.ClickException(f"{path}: [{section}] {field}: no such field of a "
                                           f"{section} record (nor {NO_FIELD})")
            if not isinstance(names, list) or not all(
                    isinstance(n, str) and normalized(n) and "\n" not in n for n in names):
                raise click.ClickException(f"{path}: [{section}] {field} must be a list of "
                                           f"column names, e.g. [\"NOPOL\", \"NO_POLISI\"]")
            for name in names:
                other = seen.setdefault(normalized(name), field)
                if other != field:
                    raise click.ClickException(f"{path}: [{section}] {name!r} is a word for "
                                               f"both {other} and {field}: keep it in one")
            words.setdefault(section, {})[field] = [Word(n, site) for n in names]
    return words


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:  # read_words says what is wrong with it
        return False


def load_words(sql_dir: Path, shipped_dir: Path = SHIPPED_SQL_DIR) -> Words:
    """The shipped words, extended by the site's file of the same name in its sql_dir: a
    site's words for a field come first and are taken from every other field."""
    shipped_file = shipped_dir / WORDS_FILE
    words = read_words(shipped_file, site=False)
    own = sql_dir / WORDS_FILE
    if not own.is_file() or _same_bytes(own, shipped_file):
        return words  # a copy of the shipped file (sql/ copied whole) adds nothing
    for section, fields in read_words(own, site=True).items():
        shipped = words.setdefault(section, {})
        for field, site_words in fields.items():
            taken = {normalized(w.text) for w in site_words}
            for other, listed in shipped.items():
                shipped[other] = [w for w in listed if normalized(w.text) not in taken]
            shipped[field] = site_words + shipped.get(field, [])
    return words


# -- matching -------------------------------------------------------------------------

_BY_NAME = ((lambda n: n, "exact name"), (str.lower, "same name but for case"),
            (normalized, "same name but for case and separators"))


def match(fields: Sequence[str], columns: Sequence[Column]) -> dict[str, Pick]:
    """{field: pick} for the fields a column is named after, each column used once: exact
    names first, then names equal but for case, then but for case and separators."""
    found: dict[str, Pick] = {}
    used: set[str] = set()
    for key, note in _BY_NAME:
        for field in fields:
            if field in found:
                continue
            for column in columns:
                if column.name not in used and key(column.name) == key(field):
                    found[field] = Pick(column, note)
                    used.add(column.name)
                    break
    return found


def _kind(c: Collection, field: str) -> type:
    return type(c.schema._declared_fields[field])


def fits(kind: type, column_type: str) -> bool:
    """Whether a column of this catalog type can fill a field of this kind: a time is no
    date, a date no time, text or a date no number. An unknown type fits."""
    t = column_type.strip()
    dated = bool(_DATE_TYPE.match(t) or _TIME_TYPE.match(t) or _DATETIME_TYPES.match(t))
    if kind is Date:
        return not _TIME_TYPE.match(t)
    if kind is Time:
        return not _DATE_TYPE.match(t)
    if kind in (Integer, Number):
        return not (_TEXT_TYPE.match(t) or dated)
    return True


def _by_word(c: Collection, columns: Sequence[Column], words: dict[str, list[Word]],
             found: dict[str, Pick]) -> dict[str, list[tuple[Column, Word]]]:
    """Fill `found` with the columns named by a field's words, earlier words first; return
    per field the columns a word named but whose type cannot hold it."""
    used = {p.column.name for p in found.values()}
    refused: dict[str, list[tuple[Column, Word]]] = {}
    for field in c.fields:
        if field in found:
            continue
        for word in words.get(field, []):
            named = [col for col in columns if col.name not in used
                     and normalized(col.name) == normalized(word.text)]
            for column in named:
                if not fits(_kind(c, field), column.type):
                    refused.setdefault(field, []).append((column, word))
                    continue
                origin = "site" if word.site else "trade"
                found[field] = Pick(column, f"{origin} word ({word.text})")
                used.add(column.name)
                break
            if field in found:
                break
    return refused


def _split_pairs(c: Collection, found: dict[str, Pick]) -> None:
    """A datetime column that fills the date of a pair fills its time too, where no column
    of its own does. Not the other way: a datetime that fills a time may hold only the
    time of day, on a day such as 1900-01-01."""
    for date_field, time_field in DATE_PAIRS.values():
        if date_field not in c.fields or time_field not in c.fields or time_field in found:
            continue
        pick = found.get(date_field)
        if pick and _DATETIME_TYPES.match(pick.column.type.strip()):
            found[time_field] = Pick(pick.column, f"time part of {quote(pick.column.name)}, "
                                                  f"the datetime of {date_field}")


def plan(c: Collection, columns: Sequence[Column], words: Words | None = None
         ) -> tuple[dict[str, Pick], dict[str, list[tuple[Column, Word]]]]:
    """The column of every field the draft fills, and per field left to finish the columns
    a word named for it whose type cannot hold it."""
    section = (words or {}).get(section_of(c), {})
    found = match(c.fields, columns)
    refused = _by_word(c, columns, section, found)
    _split_pairs(c, found)
    return found, {f: r for f, r in refused.items() if f not in found}


def closest(field: str, columns: Sequence[Column], words: Sequence[Word] = (),
            n: int = CLOSEST) -> list[str]:
    """The names of up to n columns nearest to `field` or one of its words, nearest first."""
    targets = [normalized(field), *(normalized(w.text) for w in words)]
    scored = []
    for position, column in enumerate(columns):
        name = normalized(column.name)
        score = max(difflib.SequenceMatcher(None, t, name).ratio() for t in targets)
        if score >= HINT_CUTOFF:
            scored.append((-score, position, column.name))
    return [name for *_, name in sorted(scored)[:n]]


# -- the draft ------------------------------------------------------------------------

def _source(c: Collection, field: str, column: Column, dialect: str | None) -> str:
    """What the SELECT says for `field`: the column, or its date or time part."""
    kind = _kind(c, field)
    if kind in (Date, Time) and _DATETIME_TYPES.match(column.type.strip()):
        part = "date" if kind is Date else "time"
        if dialect == "sqlite":  # SQLite's CAST(... AS date) would make a number of it
            return f"{part}({quote(column.name)})"
        return f"CAST({quote(column.name)} AS {part})"
    return quote(column.name)


def _null(c: Collection, field: str, dialect: str | None) -> str:
    """What the SELECT says for a field with no column: a NULL of the field's type."""
    declared = c.schema._declared_fields[field]
    if dialect == "sqlite":  # no types to match: a NULL is a NULL
        return "NULL"
    if isinstance(declared, String):
        return f"CAST(NULL AS varchar({declared.length}))"
    sql_type = _NULL_TYPES.get(type(declared))
    return f"CAST(NULL AS {sql_type})" if sql_type else "NULL"


def _filled_note(c: Collection, field: str, pick: Pick, spare: Sequence[Column],
                 words: Sequence[Word]) -> str:
    """How sure the draft is of a filled field, with its part of a datetime and the other
    columns a word names for it (the draft took the first)."""
    note = pick.note
    whole = _DATETIME_TYPES.match(pick.column.type.strip())
    if whole and _kind(c, field) in (Date, Time) and not note.startswith("time part"):
        note += f", its {'date' if _kind(c, field) is Date else 'time'} part"
    known = {normalized(w.text) for w in words}
    also = [quote(col.name) for col in spare if normalized(col.name) in known]
    return note + (f"; also a word for it: {', '.join(also)}" if also else "")


def _todo_note(field: str, refused: Sequence[tuple[Column, Word]], free: Sequence[Column],
               words: Sequence[Word]) -> str:
    """What a TODO line says: the columns a word named but whose type does not fit, then
    the nearest columns no word claims."""
    parts = [f"{quote(col.name)} is a {'site' if w.site else 'trade'} word for it, but its "
             f"type {col.type} may not fit: check its values" for col, w in refused]
    near = closest(field, free, words)
    if near:
        parts.append(f"nearest: {', '.join(map(quote, near))}")
    return "; ".join(parts) or "no column near it"


def _header(c: Collection, target: str, todo: int, unused: Sequence[str]) -> list[str]:
    lines = [
        "-- name: records",
        f"-- Where each field of a {c.name} record comes from at this site: drafted by",
        f"-- `flask --app wsgi draft-mapping` from the columns of {target}. Each line says how",
        f"-- it was found: its name, or a trade word of {WORDS_FILE} (a site word: your own).",
    ]
    if todo:
        plural = "s" if todo > 1 else ""
        lines += [f"-- {todo} field{plural} to finish: each `... AS ... -- TODO` line "
                  f"names the nearest",
                  "-- columns not used. Write the column or an expression, or keep NULL and drop "
                  "the TODO",
                  f"-- where the site has none; then run `flask --app wsgi check-sql {c.name}`."]
    if unused:
        lines += textwrap.wrap(f"Columns not used: {', '.join(unused)}.", 92,
                               initial_indent="-- ", subsequent_indent="-- ",
                               break_on_hyphens=False)
    return lines


def draft(c: Collection, schema: str, table: str, columns: Sequence[Column],
          dialect: str | None = None, words: Words | None = None) -> str:
    """The text of sql/<c>.sql: its records query, drafted from the table's columns, for
    the engine whose `-- dialect:` is `dialect` (None: SQL Server and PostgreSQL)."""
    section = (words or {}).get(section_of(c), {})
    found, refused = plan(c, columns, words)
    taken = {p.column.name for p in found.values()}
    unused = [col for col in columns if col.name not in taken]
    word_of = {normalized(w.text): f.replace("_", " ") if f == NO_FIELD else f
               for f, listed in section.items() for w in listed}
    # Hints name only columns no word claims: one that means another field never misleads.
    free = [col for col in unused if normalized(col.name) not in word_of]
    target = f"{quote(schema)}.{quote(table)}" if schema else quote(table)
    todo = [f for f in c.fields if f not in found]
    named = [quote(col.name) + (f" (a word for {word_of[normalized(col.name)]})"
                                if normalized(col.name) in word_of else "") for col in unused]
    lines = [*_header(c, target, len(todo), named), "SELECT"]
    for n, field in enumerate(c.fields):
        comma = "," if n < len(c.fields) - 1 else ""
        listed = section.get(field, [])
        if field in found:
            pick = found[field]
            note = _filled_note(c, field, pick, unused, listed)
            lines.append(f"    {_source(c, field, pick.column, dialect)} AS {quote(field)}"
                         f"{comma} -- {note}")
        else:
            note = _todo_note(field, refused.get(field, []), free, listed)
            lines.append(f"    {_null(c, field, dialect)} AS {quote(field)}{comma} -- TODO "
                         f"{note}")
    lines.append(f"FROM {target};")
    return "\n".join(lines) + "\n"


# -- the command ----------------------------------------------------------------------

def table_columns(db: Database, schema: str, table: str) -> tuple[str, list[Column]]:
    """The schema holding the table and its columns in order, from the catalog of the
    configured database; a table found in more than one schema is refused (the user names
    the schema)."""
    rows = db.execute("database", "columns", {"table_name": table, "table_schema": schema}).all()
    schemas = list(dict.fromkeys(str(r[0]) for r in rows))
    if len(schemas) > 1:
        raise click.UsageError(f"{table!r} is in more than one schema ({', '.join(schemas)}): "
                               f"name one, e.g. {schemas[0]}.{table}")
    return (schemas[0] if schemas else schema), [Column(str(r[1]), str(r[2] or ""))
                                                 for r in rows]


def _written_schema(given: str, found: str, table: str, dialect: str | None) -> str:
    """The schema the draft names: none on SQLite, which has none (a `dbo.` given as on
    SQL Server, or SQLite's own `main.`, is dropped; another is refused); else the one
    given, or the one the catalog found the table in."""
    if dialect != "sqlite":
        return given or found
    if given and given.lower() not in SQLITE_SCHEMAS:
        raise click.UsageError(f"SQLite has no schema {given!r}: name the table alone, e.g. "
                               f"{table}")
    return ""


def _catalog() -> Database:
    """The configured database with Jembatan's own queries only: a draft needs no mapping
    file, so it runs while the site's are missing, empty or half written (the shell creates
    the file a draft is redirected into before the draft starts)."""
    try:
        # Under `flask --app wsgi` the command is a plugin (setup.cfg) and no app is built
        # (building it reads the mapping files); an app handed to the CLI as built (the
        # tests' create_app(overrides).test_cli_runner()) has its settings at hand.
        info = click.get_current_context().find_object(ScriptInfo)
        settings = (info.load_app().extensions["jembatan"]["settings"]
                    if info is not None and info.create_app is not None else load_settings())
        queries = load_queries(settings.database.sql_dir, (), SHIPPED_SQL_DIR)
    except (ConfigError, QueryFileError) as exc:
        raise click.ClickException(str(exc)) from None
    return Database(settings.database, queries)


@click.command("draft-mapping")
@click.argument("table")
@click.option("--collection", "name", metavar="COLLECTION",
              help="The collection the table holds; by default the one named like TABLE.")
def draft_mapping_command(table: str, name: str | None) -> None:
    """Print a draft of a collection's `records` query for the site's TABLE.

    TABLE is read through the configured database (SCHEMA.TABLE or TABLE). Redirect the
    output into your sql_dir as <collection>.sql, finish its TODO lines, then run check-sql.
    """
    db = _catalog()
    schema, bare = split_table(table)
    by_name = {c.name: c for c in COLLECTIONS}
    chosen = name or next((c.name for c in COLLECTIONS if c.name == bare.lower()), None)
    if chosen not in by_name:
        what = f"no collection {chosen!r}" if chosen else f"{bare!r} is no collection's name"
        raise click.BadParameter(f"{what}; give --collection, one of: {', '.join(by_name)}",
                                 param_hint="--collection")
    words = load_words(db.settings.sql_dir)
    try:
        found, columns = table_columns(db, schema, bare)
        dialect = db.dialect()
    except (DatabaseUnavailable, QueryFailed) as exc:
        raise click.ClickException(f"cannot read the columns of {table} from {db.describe}: "
                                   f"{getattr(exc, 'detail', None) or exc}") from None
    if not columns:
        raise click.ClickException(f"{db.describe} shows no table or view {table} to this "
                                   f"login (names are compared as the database compares them)")
    written = _written_schema(schema, found, bare, dialect)
    click.echo(draft(by_name[chosen], written, bare, columns, dialect, words), nl=False)
