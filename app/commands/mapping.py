"""`jembatan draft-mapping TABLE [--collection C] [--names]`: a first `records`
query for a site's table, drafted from the table's own columns as the configured connection
sees them (INFORMATION_SCHEMA on SQL Server and PostgreSQL, the table info on SQLite) and a
sample of its rows (database.sql `sample`, SAMPLE_ROWS of them); with --names, the
names.sql of the name columns beside its code columns.

A field is matched (app/commands/matching.py) to a column of the same name; else to one whose name
is the same but for case; else but for case, underscores, spaces and hyphens (`TGL_DT1`,
`TglDt1`, `tgl dt1` for `tgl_dt1`); else to a column named by one of the trade's words for
it (`NOPOL` for vehno, `BERAT_MASUK` or `BRUTO` for weigh1): the table of
`draft-words.toml` (app/commands/words.py), shipped in sql/ and extended by a file of that name in
the site's sql_dir; else by the parts of its name (`WaktuTimbang1`: waktu, timbang, 1);
else by its values (a registration for vehno). A column's declared type decides before its
name's parts: a moment (datetime, date, time) is never a weight and a number never a date
(matching.by_type; dTimbang1, a DATETIME, is the moment of `timbang 1`), and a column fills a
field only where its type and sampled values can hold it. A date kept as text in a plant's
form (`24/11/2026`) is read as that date in the engine's words (app/commands/dates.py);
numbered pairs go together (UserID2 with UserID1); a plant's code (KdSite) is offered for
location on its TODO line only; the direction and the status that voids a ticket are read
from their values (app/commands/codes.py) and said in the header, the status (else a void
flag or stamp: IS_DEL 'Y', DEL_DATE) as the `cancelled` condition, a TODO line where the
record has that field. A deduction kept as a percent (POT_PERSEN, or values that read as
one) is drafted as the kilograms it means of the net (app/commands/deduction.py), and a
line the draft is not sure of (two columns fitting by the same parts, a gross or a tare
alone) is a TODO even where it writes a column. Each column serves one
field, but for a datetime (or text holding date-times) that fills the date of a pair: it
fills the pair's time too, cast to each part in the engine's text
(`CAST("TGL_MASUK" AS date)`, on SQLite `date("TGL_MASUK")`). A gross and a tare are
ordered by weighing where the table says how; a text key's digits give the integer id
(app/commands/sampling.py); a master listed in collections.text_keys (read from the same
configuration) gets its code column as id.

Every line ends with how sure the draft is of it: `-- exact name`, `-- same name but for
case`, `-- trade word (NOPOL)`, `-- site word (...)`, `-- parts (waktu+timbang+1)`, and
`CHECK ...` where a person must make sure of something. A field left unmatched is written
as a NULL of the field's type, `CAST(NULL AS date) AS "tgl_dt2", -- TODO` (plain `NULL` on
SQLite), with the columns named for it that cannot hold it and the nearest columns no word
claims, for a person to finish; `check-sql` reports the fields still marked TODO.

The table is written as the engine names it: SCHEMA.TABLE on the servers (the schema given,
else the one the catalog found it in); on SQLite, which has no schemas, the table alone: a
`dbo.` or `main.` given is dropped and any other schema refused.
"""

from __future__ import annotations

import decimal
import re
import textwrap
from collections.abc import Sequence

import click
from flask.cli import ScriptInfo

from ..core.services import services
from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.loading import load_queries
from ..database.sqltext import QueryFileError, qualified, quote
from ..model.collections import CANCELLED, COLLECTIONS, NAMINGS, Collection
from ..model.schemas import Boolean, Date, Integer, Number, String, Time
from ..ops.config import SHIPPED_SQL_DIR, ConfigError, load_settings
from ..ops.config_option import FROM_SETTINGS
from .codes import Way, cancelled, direction, named_for_void, void_hint
from .dates import NO_INDEX, text_date_sql, text_time_sql
from .deduction import FIELD as DEDUCTION
from .deduction import beside, kilograms_of, percent_column
from .matching import (
    Column,
    Named,
    Pick,
    Refused,
    by_parts,
    by_values,
    by_word,
    codes_that_are_names,
    date_from_time,
    descriptions,
    fits,
    fitting,
    gross_and_tare,
    hints,
    is_datetime,
    is_epoch,
    is_text,
    kind_of,
    match,
    names_beside,
    numbered_pairs,
    one_date,
    plant_codes,
    split_pairs,
    text_key_id,
    unix_time,
)
from .sampling import SAMPLE_ROWS, profiles
from .words import (
    NO_FIELD,
    WORDS_FILE,
    Word,
    Words,
    load_words,
    normalized,
    read_words,
    section_of,
)

__all__ = ["WORDS_FILE", "Column", "draft", "fits", "load_words", "read_words"]

# The type of the NULL given for a field the site has no column for, named alike on SQL
# Server 2008 and PostgreSQL. SQL Server types a bare NULL in a SELECT list as int, which it
# refuses to CAST to date or time or compare with one (every date range reads its date and
# time that way) and to which it converts a text filter's value ('SUP-007': conversion
# failed); PostgreSQL's bare NULL is text there.
# A condition (the weighings' cancelled) is an int, 1 or 0, which its filter compares with 1.
_NULL_TYPES: dict[type, str] = {Integer: "int", Number: "float", Date: "date", Time: "time",
                                Boolean: "int"}
# SQLite has one schema, main; `dbo` is what docs/adapting.md's SQL Server example names.
SQLITE_SCHEMAS = ("dbo", "main")


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


# -- the plan ---------------------------------------------------------------------------

class Plan:
    """Every field the draft fills with its pick; per field left open, the columns named
    for it that cannot hold it, and why `id` is left open where the key is text."""

    def __init__(self, c: Collection, columns: Sequence[Column], words: Words | None = None,
                 dialect: str | None = None, sampled: int = 0):
        words = words or Words()
        section = words.section(section_of(c))
        refused: Refused = {}
        self.found = fitting(c, match(c.fields, columns), refused)
        by_word(c, columns, section, self.found, refused)
        by_parts(c, columns, words, self.found, refused)
        claimed = {normalized(w.text) for listed in section.values() for w in listed}
        by_values(c, columns, self.found,
                  {col.name for col in columns if normalized(col.name) not in claimed})
        numbered_pairs(c, columns, self.found)
        plant_codes(c, columns, self.found, refused, words)
        gross_and_tare(c, columns, self.found, words, dialect)
        split_pairs(c, self.found)
        date_from_time(c, self.found)
        one_date(c, self.found)
        if dialect != "sqlite":
            unix_time(c, self.found, refused)
        self.key_advice = text_key_id(c, self.found, dialect, sampled) or master_code_id(
            c, self.found, dialect, sampled)
        codes_that_are_names(c, self.found)
        descriptions(c, self.found, refused)
        if DEDUCTION in c.fields:
            _percent(c, columns, self.found, refused, words, dialect)
        for field in ("weigh1", "weigh2"):
            if field in self.found:
                self.found[field] = _unweighed(c, field, self.found[field], dialect)
        self.refused = {f: r for f, r in refused.items() if f not in self.found}
        self.names: list[Named] = names_beside(c, self.found, columns, words)
        used = {p.column.name for p in self.found.values()} | {
            name for p in self.found.values() for name in p.uses}
        self.way = direction(columns, used)
        # A weighing's condition of a void ticket; no other record has the field.
        self.cancelled = cancelled(columns, used, words) if CANCELLED in c.fields else None
        self.void_hint = void_hint(columns, used, words) if CANCELLED in c.fields \
            and not self.cancelled else ""


def _weight(c: Collection, field: str, pick: Pick, dialect: str | None) -> str:
    """A weight as a percent's net reads it: its column (the gross or the tare where the
    pick orders a pair: the net is the same either way), cast where it is text."""
    return _source(c, field, pick._replace(sql=""), dialect)


WEIGHED = 1000  # a sampled weight this heavy beside zeros: the zeros are no weighing


def _unweighed(c: Collection, field: str, pick: Pick, dialect: str | None) -> Pick:
    """A weight column whose sampled values hold zeros beside weights in the thousands: a
    program that writes 0 for a weighing not made yet. Its line reads such a 0 as NULL
    (NULLIF), or the ticket would count as weighed, its net the whole other weight."""
    numbers = [float(v) for v in pick.column.profile.values
               if isinstance(v, int | float | decimal.Decimal)
               or (isinstance(v, str) and re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", v))]
    zeros = sum(n == 0 for n in numbers)
    if pick.sql or not zeros or max(numbers) < WEIGHED:
        return pick
    return pick._replace(
        sql=f"NULLIF({_source(c, field, pick, dialect)}, 0)",
        note=f"{pick.note}; NULLIF: {zeros} of {len(numbers)} sampled values are 0 beside "
             f"weights up to {max(numbers):g}: a weighing not made yet, written as 0, is "
             f"read as NULL (docs/adapting.md \"A weighing not made, written as 0\")")


def _percent(c: Collection, columns: Sequence[Column], found: dict[str, Pick],
             refused: Refused, words: Words, dialect: str | None) -> None:
    """A deduction kept as a percent is drafted as the kilograms it means, on a TODO line
    (or, without both weights, named on adjustweigh's TODO line); a percent beside the
    kilograms is said on their line."""
    seen = percent_column(columns, found, words)
    if seen is None:
        pick, other = found.get(DEDUCTION), beside(columns, found, words)
        if pick and other and not pick.check:
            found[DEDUCTION] = pick._replace(check=(
                f"{quote(other.name)} beside it is a deduction in percent: where the program "
                f"deducts both, add the kilograms that percent means of the net"))
        return
    column, why = seen
    if "weigh1" not in found or "weigh2" not in found:
        found.pop(DEDUCTION, None)
        refused.setdefault(DEDUCTION, []).append((column, (
            f"{quote(column.name)} holds a percent ({why}): map the kilograms it means, "
            f"ROUND(ABS(<weigh1> - <weigh2>) * {quote(column.name)} / 100.0, 0)")))
        return
    net = "ABS({} - {})".format(*(_weight(c, f, found[f], dialect)
                                  for f in ("weigh1", "weigh2")))
    sql, todo = kilograms_of(column, net, why, dialect)
    uses = tuple(found[f].column.name for f in ("weigh1", "weigh2"))
    found[DEDUCTION] = Pick(column, "", sql, "", uses, todo)


def plan(c: Collection, columns: Sequence[Column], words: Words | None = None
         ) -> tuple[dict[str, Pick], Refused]:
    """The column of every field the draft fills, and per field left to finish the columns
    named for it whose type cannot hold it."""
    drafted = Plan(c, columns, words)
    return drafted.found, drafted.refused


def master_code_id(c: Collection, found: dict[str, Pick], dialect: str | None,
                   sampled: int) -> str:
    """A master keyed by its text code (collections.text_keys lists it: docs/adapting.md
    "A master keyed by a code"): `id` is the column of its code field (KD_BARANG for
    ProductCode), on a CHECK line that it is the table's key; on SQLite and PostgreSQL,
    which compare a code with its blanks, both RTRIM a code sampled with blanks after it
    (a CHAR column). Where the master may be keyed so but is not listed, and its code column
    is text, why `id` is left open."""
    code = next((n.master_code for names in NAMINGS.values() for n in names
                 if n.master == c.name), "")
    pick = found.get(code)
    if "id" in found or not pick or pick.sql or not c.keyable_by_text:
        return ""
    name = quote(pick.column.name)
    if c.text_key:
        values = pick.column.profile.values
        unique = (f", unique on a sample of {sampled} rows" if values
                  and len(set(values)) == len(values) else "")
        padded = dialect is not None and any(
            isinstance(v, str) and v != v.rstrip() for v in values)
        if padded:
            pick = found[code] = pick._replace(
                sql=f"RTRIM({name})", note=f"{pick.note}, its blanks after the code trimmed "
                                           f"(docs/adapting.md \"Codes with blanks after them\")")
        found["id"] = pick._replace(
            note=f"the master's code, as {code} (collections.text_keys){unique}"
                 + (", its blanks after it trimmed" if padded else ""),
            check=f"{name} is the table's key (its primary key): each code once")
        return ""
    if not is_text(pick.column):
        return ""
    return (f"{c.name} is keyed by its code {name}, text: list {c.name} in "
            f"collections.text_keys and map {name} as id too (docs/adapting.md \"A master "
            f"keyed by a code\")")


# -- the draft ------------------------------------------------------------------------

def _source(c: Collection, field: str, pick: Pick, dialect: str | None) -> str:
    """What the SELECT says for `field`: the column, its date or time part, the value of
    its text as the field's type, or the pick's own SQL."""
    if pick.sql:
        return pick.sql
    column, kind = pick.column, kind_of(c, field)
    name = quote(column.name)
    if kind in (Date, Time):
        part = "date" if kind is Date else "time"
        if is_epoch(column):  # only on SQLite (unix_time): the servers share no text
            return f"{part}({name}, 'unixepoch', 'localtime')"
        form = column.profile.date_form if is_text(column) else ""
        if form and kind is Date:
            return text_date_sql(form, name, dialect, is_datetime(column))
        if form:
            return text_time_sql(form, name, dialect)
        if is_datetime(column):
            if dialect == "sqlite":  # SQLite's CAST(... AS date) would make a number of it
                return f"{part}({name})"
            return f"CAST({name} AS {part})"
        if is_text(column) and (dialect != "sqlite" or _short_time(column)):
            return f"{part}({name})" if dialect == "sqlite" else f"CAST({name} AS {part})"
    if kind in (Integer, Number) and is_text(column):
        sql_type = {Integer: "int", Number: "float"}[kind]
        if dialect == "sqlite":
            sql_type = {Integer: "INTEGER", Number: "REAL"}[kind]
        return f"CAST({name} AS {sql_type})"
    return name


def _short_time(column: Column) -> bool:
    """Text times without their seconds (07:41), which SQLite's time() completes."""
    return column.profile.kind == "time" and all(
        len(str(v).strip()) == 5 for v in column.profile.values)


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
    """How sure the draft is of a filled field, with its part of a datetime (or what its
    text holds) and the other columns a word names for it (the draft took the first)."""
    note = pick.note
    kind, column = kind_of(c, field), pick.column
    if not pick.sql and kind in (Date, Time) and not note.startswith("time part"):
        part = "date" if kind is Date else "time"
        if is_datetime(column):
            note += f", its {part} part"
        if is_text(column) and column.profile.kind:
            note += f" (text: '{column.profile.example}', sampled)"
        if is_text(column) and kind is Date and column.profile.date_form:
            note += f", read as {column.profile.date_form}; {NO_INDEX}"
    elif not pick.sql and kind in (Integer, Number) and is_text(column):
        note += f" (text holding numbers: '{column.profile.example}', sampled)"
    known = {normalized(w.text) for w in words}
    also = [quote(col.name) for col in spare if normalized(col.name) in known]
    note += f"; also a word for it: {', '.join(also)}" if also else ""
    return note + (f"; CHECK {pick.check}" if pick.check else "")


def _todo_note(c: Collection, field: str, plan: Plan, free: Sequence[Column],
               words: Words) -> str:
    """What a TODO line says: why `id` is open where the key is text; the columns named
    for it whose type or values do not fit; then the nearest columns no word claims."""
    parts = [plan.key_advice] if field == "id" and plan.key_advice else []
    parts += [plan.void_hint] if field == CANCELLED and plan.void_hint else []
    parts += [said for _, said in plan.refused.get(field, [])]
    named = {col.name for col, _ in plan.refused.get(field, [])}
    near = [n for n in hints(c, field, free, words) if n not in named]
    if near:
        parts.append(f"nearest: {', '.join(map(quote, near))}")
    return "; ".join(parts) or "no column near it"


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, 92, initial_indent="-- ", subsequent_indent="-- ",
                         break_on_hyphens=False)


def _by_values(way: Way | None) -> list[str]:
    """The header's lines on the direction, read by its values (a record has no field of
    it)."""
    if not way:
        return []
    name = quote(way.column.name)
    return _wrapped(f"Direction: {name} says which way each truck went ('{way.way_in}' "
                    f"in, '{way.way_out}' out, sampled). A record has no direction "
                    f"field: Jembatan works it out from the weights (weigh1 > weigh2 "
                    f"came in loaded); check that {name} agrees on your rows.")


def _header(c: Collection, target: str, todo: int, unused: Sequence[str],
            sampled: int | None, unsampled: str, names: Sequence[Named]) -> list[str]:
    lines = [
        "-- name: records",
        f"-- Where each field of a {c.name} record comes from at this site: drafted by",
        f"-- `jembatan draft-mapping` from the columns of {target}. Each line says how",
        f"-- it was found: its name, or a trade word of {WORDS_FILE} (a site word: your own).",
    ]
    if sampled:
        lines += _wrapped(f"Types and values read from a sample of {sampled} rows: what "
                          f"a line says of the values holds for those rows; a line with "
                          f"CHECK says what to make sure of.")
    elif sampled == 0:
        lines += ["-- The table has no rows: drafted from its names and types alone."]
    elif unsampled:
        lines += _wrapped(f"No sample of the rows ({unsampled}): drafted from names and "
                          f"types alone.")
    if todo:
        plural = "s" if todo > 1 else ""
        lines += [f"-- {todo} field{plural} to finish: each `... AS ... -- TODO` line "
                  f"names the nearest",
                  "-- columns not used. Write the column or an expression, or keep NULL and drop "
                  "the TODO",
                  f"-- where the site has none; then run `jembatan check-sql {c.name}`."]
    for n in names:
        lines += _wrapped(f"Names: {quote(n.name.name)} beside {quote(n.code.name)} "
                          f"({n.naming.code}) names the {n.naming.master}; draft-mapping "
                          f"--names prints the names.sql that gives them to the summaries.")
    if unused:
        lines += _wrapped(f"Columns not used: {', '.join(unused)}.")
    return lines


def draft(c: Collection, schema: str, table: str, columns: Sequence[Column],
          dialect: str | None = None, words: Words | None = None,
          sampled: int | None = None, unsampled: str = "") -> str:
    """The text of sql/<c>.sql: its records query, drafted from the table's columns (and
    a sample of `sampled` rows of their values), for the engine whose `-- dialect:` is
    `dialect` (None: SQL Server and PostgreSQL)."""
    words = words or Words()
    section = words.section(section_of(c))
    drafted = Plan(c, columns, words, dialect, sampled or 0)
    found = drafted.found
    taken = {p.column.name for p in found.values()} | {
        name for p in found.values() for name in p.uses}
    if drafted.cancelled:
        taken.add(drafted.cancelled.column.name)
    unused = [col for col in columns if col.name not in taken]
    word_of = {normalized(w.text): f.replace("_", " ") if f == NO_FIELD else f
               for f, listed in section.items() for w in listed}
    # Hints name only columns no word claims, none named for a field it cannot fill (its own
    # TODO line names it) and none named for a void (cancelled's): one that means another
    # field never misleads.
    refused = {col.name for listed in drafted.refused.values() for col, _ in listed}
    free = [col for col in unused if normalized(col.name) not in word_of
            and col.name not in refused and not named_for_void(col, words)]
    target = qualified((schema, table))
    todo = [f for f in c.fields if f not in found or found[f].todo]
    named = [quote(col.name) + (f" (a word for {word_of[normalized(col.name)]})"
                                if normalized(col.name) in word_of else "") for col in unused]
    lines = [*_header(c, target, len(todo), named, sampled, unsampled, drafted.names),
             *_by_values(drafted.way), "SELECT"]
    for n, field in enumerate(c.fields):
        comma = "," if n < len(c.fields) - 1 else ""
        if field == CANCELLED and field not in found and drafted.cancelled:
            proposal = drafted.cancelled
            lines.append(f"    {proposal.sql} AS {quote(field)}{comma} -- TODO confirm the "
                         f"void code with the plant: {proposal.note}")
        elif field in found and found[field].todo:
            pick = found[field]
            lines.append(f"    {_source(c, field, pick, dialect)} AS {quote(field)}{comma} "
                         f"-- TODO {pick.todo}")
        elif field in found:
            pick = found[field]
            note = _filled_note(c, field, pick, unused, section.get(field, []))
            lines.append(f"    {_source(c, field, pick, dialect)} AS {quote(field)}"
                         f"{comma} -- {note}")
        else:
            note = _todo_note(c, field, drafted, free, words)
            lines.append(f"    {_null(c, field, dialect)} AS {quote(field)}{comma} -- TODO "
                         f"{note}")
    lines.append(f"FROM {target};")
    return "\n".join(lines) + "\n"


def names_draft(c: Collection, schema: str, table: str, columns: Sequence[Column],
                words: Words) -> str:
    """The text of names.sql for the name columns beside the code columns of `table`: one
    query per master collection, its code and name under the master's field names."""
    drafted = Plan(c, columns, words)
    target = qualified((schema, table))
    blocks = []
    for n in drafted.names:
        blocks.append("\n".join([
            f"-- name: {n.naming.master}",
            f"-- The name of each {n.naming.code} of {target}: its {quote(n.name.name)} "
            f"beside {quote(n.code.name)}.",
            f"SELECT {quote(n.code.name)} AS {quote(n.naming.master_code)}, "
            f"{quote(n.name.name)} AS {quote(n.naming.master_name)}",
            f"FROM {target};"]))
    return "\n\n".join(blocks) + "\n" if blocks else ""


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


def _catalog() -> tuple[Database, tuple[str, ...]]:
    """The configured database with Jembatan's own queries only, and the collections keyed
    by a text code (collections.text_keys): a draft needs no mapping file, so it runs while
    the site's are missing, empty or half written (the shell creates the file a draft is
    redirected into before the draft starts)."""
    try:
        # Under `jembatan` and `flask --app wsgi` no app is built (building it reads the
        # mapping files); an app handed to the CLI as built (the tests'
        # create_app(overrides).test_cli_runner()) has its settings at hand.
        info = click.get_current_context().find_object(ScriptInfo)
        built = (info is not None and info.create_app is not None
                 and not info.data.get(FROM_SETTINGS))
        settings = (services(info.load_app()).settings if built
                    else load_settings())
        queries = load_queries(settings.database.sql_dir, (), SHIPPED_SQL_DIR)
    except (ConfigError, QueryFileError) as exc:
        raise click.ClickException(str(exc)) from None
    return Database(settings.database, queries), settings.collections.text_keys


def sampled_columns(db: Database, schema: str, table: str, columns: Sequence[Column]
                    ) -> tuple[list[Column], int | None, str]:
    """The columns with a profile of their values, from up to SAMPLE_ROWS rows of the
    table, and how many rows were read; else None and why not (the site's own copy of
    database.sql has no `sample` query, or the login may not read the rows)."""
    if "sample" not in db.queries.names("database"):
        return list(columns), None, f"{db.queries.files['database']} has no sample query"
    try:
        result = db.execute("database", "sample", {"row_count": SAMPLE_ROWS},
                            table=(schema, table))
        try:
            rows = result.all()
        finally:
            result.close()
    except QueryFailed as exc:
        return list(columns), None, f"the rows could not be read: {exc.detail or exc}"
    seen = profiles(result.columns, rows)
    return [col._replace(profile=seen[col.name]) if col.name in seen else col
            for col in columns], len(rows), ""


def _collection(bare: str, name: str | None) -> Collection:
    by_name = {c.name: c for c in COLLECTIONS}
    chosen = name or next((c.name for c in COLLECTIONS if c.name == bare.lower()), None)
    if chosen not in by_name:
        what = f"no collection {chosen!r}" if chosen else f"{bare!r} is no collection's name"
        raise click.BadParameter(f"{what}; give --collection, one of: {', '.join(by_name)}",
                                 param_hint="--collection")
    return by_name[chosen]


@click.command("draft-mapping")
@click.argument("table")
@click.option("--collection", "name", metavar="COLLECTION",
              help="The collection the table holds; by default the one named like TABLE.")
@click.option("--names", "names", is_flag=True,
              help="Print names.sql instead: the names of the codes, from the name columns "
                   "beside the code columns of TABLE.")
def draft_mapping_command(table: str, name: str | None, names: bool) -> None:
    """Print a draft of a collection's `records` query for the site's TABLE.

    TABLE is read through the configured database (SCHEMA.TABLE or TABLE): its columns
    and a sample of its rows. Redirect the output into your sql_dir as <collection>.sql,
    finish its TODO lines, then run check-sql.
    """
    db, text_keys = _catalog()
    schema, bare = split_table(table)
    c = _collection(bare, name)
    c = c.keyed_by_text() if c.name in text_keys else c
    words = load_words(db.settings.sql_dir)
    try:
        found, columns = table_columns(db, schema, bare)
        dialect = db.dialect()
        written = _written_schema(schema, found, bare, dialect)
        sampled, unsampled = None, ""
        if columns:
            columns, sampled, unsampled = sampled_columns(db, written, bare, columns)
    except (DatabaseUnavailable, QueryFailed) as exc:
        raise click.ClickException(f"cannot read the columns of {table} from {db.describe}: "
                                   f"{getattr(exc, 'detail', None) or exc}") from None
    if not columns:
        raise click.ClickException(f"{db.describe} shows no table or view {table} to this "
                                   f"login (names are compared as the database compares them)")
    if names:
        text = names_draft(c, written, bare, columns, words)
        if not text:
            raise click.ClickException(f"{table}: no name column beside a code column of "
                                       f"{c.name} ({', '.join(c.namings) or 'none'})")
        click.echo(text, nl=False)
        return
    click.echo(draft(c, written, bare, columns, dialect, words, sampled, unsampled),
               nl=False)
