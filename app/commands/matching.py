"""Which column of a site's table fills which field of a record, for draft-mapping: by the
column's name, whole (the field's own name, a word of the trade) or in parts; by its
declared type; and by a sample of its values (a date-time written as text, a
registration, a text key whose digits make the integer id, a direction that orders a gross
and a tare by weighing).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import NamedTuple

from ..database.sqltext import quote
from ..model.collections import DATE_PAIRS, Collection, Naming
from ..model.schemas import Boolean, Date, Integer, Number, String, Time
from .sampling import Profile, any_plate, key_expression, text_key
from .words import NO_FIELD, Pattern, Word, Words, normalized, section_of, split_name

# Catalog types that hold a date and a time of day in one value (SQL Server, PostgreSQL,
# SQLite's declared types): a date or time field matched to one is cast to its part.
DATETIME_TYPES = re.compile(r"(?i)^(datetime|datetime2|smalldatetime|datetimeoffset|"
                            r"timestamptz|timestamp(\s*\(\d+\))?( .*)?)$")
# A GUID is a key of text, never a number, whatever its column is named (id uuid).
_GUID_TYPE = re.compile(r"(?i)^(uuid|uniqueidentifier)$")
_DATE_TYPE = re.compile(r"(?i)^date$")
_TIME_TYPE = re.compile(r"(?i)^time\b")  # time, time(0), time without time zone
_TEXT_TYPE = re.compile(r"(?i)^(n?(var)?char|n?text|character|varchar2|string|clob)\b")
# A flag: true or false, never a text, a measure or a moment (has_empty_weight_ticket).
_FLAG_TYPE = re.compile(r"(?i)^(bool|boolean|bit)$")
_INTEGER_TYPE = re.compile(r"(?i)^(int|integer|bigint|smallint|tinyint|int[248])\b")
# Declared types of numbers (SQL Server's, PostgreSQL's, SQLite's): never a date, unless its
# sampled values are seconds since 1970.
_NUMBER_TYPE = re.compile(r"(?i)^(int|integer|bigint|smallint|tinyint|int[248]|numeric|"
                          r"decimal|float[48]?|real|double|money|smallmoney|number|bit)\b")
CLOSEST = 3  # columns named after each TODO
# Concepts that say what kind of value a column holds, not what it is of: a column that
# shares only these with a field's patterns (KendaraanID with "id relasi") is no hint.
GENERIC = {"id", "nama"}
HINT_CUTOFF = 0.6  # how alike (difflib's ratio) a column must be to a field's name or word
# A column that says which way a truck went: its values, the way in first. Upper case; a
# site's values are compared without case.
DIRECTIONS = {
    "MASUK": "KELUAR", "IN": "OUT", "BELI": "JUAL", "PEMBELIAN": "PENJUALAN",
    "PENERIMAAN": "PENGIRIMAN", "TERIMA": "KIRIM", "BONGKAR": "MUAT", "INCOMING": "OUTGOING",
    "RECEIVE": "DISPATCH", "RECEIVING": "DISPATCHING", "PURCHASE": "SALE",
}
# The way in and the way out coded in one letter (terima/kirim, masuk/keluar, in/out,
# beli/jual, receive/dispatch): a column says a direction only where its sample holds both
# letters of one pair (a column of `I` alone, or `I`/`S`/`X`, is no direction).
WAY_LETTERS = (("T", "K"), ("M", "K"), ("I", "O"), ("B", "J"), ("R", "D"))


class Column(NamedTuple):
    name: str
    type: str
    profile: Profile = Profile("")  # what a sample of its values is (kind '': unknown)


class Pick(NamedTuple):
    """The column that fills a field, how sure the draft is of it, and the SQL that reads
    it where that is not the column (or its date or time part)."""
    column: Column
    note: str
    sql: str = ""
    check: str = ""  # what a person must check on this line (said after the note)
    uses: tuple[str, ...] = ()  # other columns its SQL reads
    todo: str = ""  # what a person must confirm before it is served: the line is a TODO


Refused = dict[str, list[tuple[Column, str]]]  # field -> (column, what the TODO says of it)


def misfit(column: Column, why: str) -> str:
    """What a TODO line says of a column named for its field that cannot hold it."""
    values = f" and values ('{column.profile.example}')" if column.profile.example else ""
    return (f"{quote(column.name)} is {why}, but its type {column.type or '(none)'}{values} "
            f"may not fit: check its values")


def kind_of(c: Collection, field: str) -> type:
    return type(c.schema._declared_fields[field])


def is_text(column: Column) -> bool:
    """A text column, or one of no declared type (SQLite) whose values are text."""
    declared = column.type.strip()
    if declared:
        return bool(_TEXT_TYPE.match(declared))
    return any(isinstance(v, str) for v in column.profile.values)


def is_datetime(column: Column) -> bool:
    """A date and a time of day in one value: so declared, text holding both, or a
    number of seconds since 1970 (is_epoch)."""
    t = column.type.strip()
    return bool(DATETIME_TYPES.match(t)) or is_epoch(column) or (
        column.profile.kind == "datetime" and not (_DATE_TYPE.match(t) or _TIME_TYPE.match(t)))


def is_epoch(column: Column) -> bool:
    """A number column whose sampled values are all seconds since 1970 (Unix time)."""
    return not is_text(column) and bool(column.profile.values) and column.profile.epoch


def is_dated(column: Column) -> bool:
    """A date, a time or both: so declared, or text holding them."""
    t = column.type.strip()
    return bool(_DATE_TYPE.match(t) or _TIME_TYPE.match(t) or DATETIME_TYPES.match(t)) or (
        is_text(column) and column.profile.kind in ("datetime", "date", "time"))


def is_time_only(column: Column) -> bool:
    return bool(_TIME_TYPE.match(column.type.strip())) or (
        is_text(column) and column.profile.kind == "time")


def fits(kind: type, column: Column) -> bool:
    """Whether a column can fill a field of this kind: a time is no date, a date no time,
    a date no number nor text; text only as its sampled values say (dates for a date,
    numbers for a number), a number for a date only where its values are Unix time. Text
    with no value sampled fits a date or time, never a number."""
    t = column.type.strip()
    if _FLAG_TYPE.match(t):
        return kind in (Boolean, Integer)
    if kind is String:
        return not is_dated(column)
    if kind in (Integer, Number) and (_GUID_TYPE.match(t) or column.profile.kind == "guid"):
        return False
    if is_text(column):
        held = column.profile.kind
        if kind is Date:
            return held in ("", "datetime", "date")
        if kind is Time:
            return held in ("", "datetime", "time")
        return held == "number"
    dated = bool(_DATE_TYPE.match(t) or _TIME_TYPE.match(t) or DATETIME_TYPES.match(t))
    numbers = column.profile.kind == "number" or bool(_NUMBER_TYPE.match(t))
    if kind is Date:
        return not _TIME_TYPE.match(t) and (not numbers or is_epoch(column))
    if kind is Time:
        return not _DATE_TYPE.match(t) and (not numbers or is_epoch(column))
    return not dated


# -- by name ------------------------------------------------------------------------------

_BY_NAME = ((lambda n: n, "exact name"), (str.lower, "same name but for case"),
            (normalized, "same name but for case and separators"))


def fitting(c: Collection, found: dict[str, Pick], refused: Refused) -> dict[str, Pick]:
    """The picks by name whose column can hold their field; the others noted in `refused`
    (an `id uuid` is named like the integer id, but holds no number)."""
    for field, pick in found.items():
        if not fits(kind_of(c, field), pick.column):
            refused.setdefault(field, []).append((pick.column, misfit(pick.column,
                                                                      "named like it")))
    return {f: p for f, p in found.items() if f not in refused}


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


def by_word(c: Collection, columns: Sequence[Column], words: dict[str, list[Word]],
            found: dict[str, Pick], refused: Refused) -> None:
    """Fill `found` with the columns named by a field's words, earlier words first; note
    per field the columns a word named but which cannot hold it."""
    used = {p.column.name for p in found.values()}
    for field in c.fields:
        for word in words.get(field, []) if field not in found else []:
            origin = "site" if word.site else "trade"
            for column in columns:
                if column.name in used or normalized(column.name) != normalized(word.text):
                    continue
                if not fits(kind_of(c, field), column):
                    refused.setdefault(field, []).append(
                        (column, misfit(column, f"a {origin} word for it")))
                    continue
                found[field] = Pick(column, f"{origin} word ({word.text})")
                used.add(column.name)
                break
            if field in found:
                break


# -- by the parts of a name -------------------------------------------------------------

def is_number(column: Column) -> bool:
    """A number by its declared type or its sampled values, not seconds since 1970."""
    return (bool(_NUMBER_TYPE.match(column.type.strip())) or column.profile.kind == "number") \
        and not is_dated(column) and not is_epoch(column)


def by_type(kind: type, column: Column) -> bool:
    """Whether a column's type rules a field of this kind out before its name is read: a
    moment is never a number, a number never a moment."""
    if kind in (Integer, Number):
        return is_dated(column)
    return kind in (Date, Time) and is_number(column)


def type_concept(column: Column) -> str | None:
    """The concept a column's type says its name holds: a moment's (tanggal; jam for a time
    alone), whatever its parts say (dTimbang1, a DATETIME, is the moment of `timbang 1`)."""
    if is_time_only(column):
        return "jam"
    return "tanggal" if is_dated(column) else None


def pattern_fits(pattern: Pattern, concepts: Sequence[str | None]) -> bool:
    held = set(concepts)
    return set(pattern.present) <= held and not set(pattern.absent) & held


def part_candidates(fields: Sequence[str], columns: Sequence[Column], words: Words,
                    section: str) -> list[tuple[tuple[int, ...], str, Column, Pattern]]:
    """Every (rank, field, column, pattern) where the column's name holds the pattern's
    concepts, the best first: more concepts named, fewer other parts, earlier pattern,
    earlier field and column."""
    patterns = words.section_patterns(section)
    out = []
    for c_pos, column in enumerate(columns):
        parts = split_name(column.name, words.concepts)
        concepts = [words.concepts.get(p) for p in parts]
        implied = type_concept(column)
        if implied and implied not in concepts:
            concepts.append(implied)
        for f_pos, field in enumerate(fields):
            for p_pos, pattern in enumerate(patterns.get(field, [])):
                if pattern_fits(pattern, concepts):
                    others = sum(1 for x in concepts if x not in pattern.present)
                    rank = (-len(pattern.present), others, p_pos, f_pos, c_pos)
                    out.append((rank, field, column, pattern))
    return sorted(out, key=lambda x: x[0])


def by_parts(c: Collection, columns: Sequence[Column], words: Words,
             found: dict[str, Pick], refused: Refused) -> None:
    """Fill `found` from the parts of the names no whole word holds, the best match first;
    a column whose best match is no_field fills nothing."""
    section = section_of(c)
    claimed = {normalized(w.text) for listed in words.section(section).values()
               for w in listed}
    # A column a whole word names is that word's, unless its type cannot hold the word's
    # field (WB_IN, a datetime): then its parts may say what it is.
    misfits = {col.name for listed in refused.values() for col, _ in listed}
    used = {p.column.name for p in found.values()} | {
        col.name for col in columns if normalized(col.name) in claimed
        and col.name not in misfits}
    candidates = part_candidates([*c.fields, NO_FIELD], columns, words, section)
    for rank, named, column, pattern in candidates:
        field = _time_of_pair(c, named, column)
        if column.name in used or field in found or column.profile.kind == "guid":
            continue  # a GUID identifies a row to a program, not to a person: no field's
        if field == NO_FIELD:
            used.add(column.name)
            continue
        if by_type(kind_of(c, field), column):
            continue  # its type says what it is: its name's parts do not overrule it
        parts = "+".join(split_name(column.name, words.concepts))
        if not fits(kind_of(c, field), column):
            refused.setdefault(field, []).append(
                (column, misfit(column, f"named for it by its parts ({parts})")))
            continue
        origin = "site parts" if pattern.site else "parts"
        typed = f" of a {column.type}" if not is_text(column) \
            and type_concept(column) in pattern.present \
            and type_concept(column) not in _concepts(column, words) else ""
        rivals = [quote(col.name) for r, f, col, _ in candidates
                  if f == named and r[:3] == rank[:3] and col != column
                  and col.name not in used and fits(kind_of(c, field), col)
                  and not by_type(kind_of(c, field), col) and col.profile.kind != "guid"]
        todo = (f"confirm: {', '.join(rivals)} fit{'s' if len(rivals) == 1 else ''} it as "
                f"well, by the same parts: keep the one it is") if rivals else ""
        found[field] = Pick(column, f"{origin} ({parts}){typed}", todo=todo)
        used.add(column.name)


_PAIR_OF = {date: (date, time) for date, time in DATE_PAIRS.values()} | {
    time: (date, time) for date, time in DATE_PAIRS.values()}


def _time_of_pair(c: Collection, field: str, column: Column) -> str:
    """A column that holds only times, named for the date of a pair, fills its time; a
    datetime on days of its own named for the time of a pair (weight_in_time) fills its
    date, and so its time too (split_pairs)."""
    pair = _PAIR_OF.get(field)
    if not pair or pair[0] not in c.fields or pair[1] not in c.fields:
        return field
    if field == pair[0] and is_time_only(column):
        return pair[1]
    if field == pair[1] and is_datetime(column) and (column.profile.real_days
                                                     or is_epoch(column)):
        return pair[0]
    return field


def split_pairs(c: Collection, found: dict[str, Pick]) -> None:
    """A datetime column (or text holding date-times) that fills the date of a pair
    fills its time too, where no column of its own does. Not the other way: a datetime
    that fills a time may hold only the time of day, on a day such as 1900-01-01."""
    for date_field, time_field in DATE_PAIRS.values():
        if date_field not in c.fields or time_field not in c.fields or time_field in found:
            continue
        pick = found.get(date_field)
        if pick and not pick.sql and is_datetime(pick.column):
            found[time_field] = Pick(pick.column, f"time part of {quote(pick.column.name)}, "
                                                  f"the datetime of {date_field}")


def date_from_time(c: Collection, found: dict[str, Pick]) -> None:
    """A datetime that fills the time of a pair fills its date too, where no column does
    and its sampled values are on days of their own (JAM_MASUK holding 2026-11-24 07:05,
    not 1900-01-01 07:05)."""
    for date_field, time_field in DATE_PAIRS.values():
        pick = found.get(time_field)
        if date_field not in c.fields or date_field in found or not pick or pick.sql:
            continue
        if is_datetime(pick.column) and (pick.column.profile.real_days
                                         or is_epoch(pick.column)):
            found[date_field] = Pick(pick.column, f"date part of {quote(pick.column.name)}, "
                                                  f"the datetime of {time_field} (on days "
                                                  f"of their own, sampled)")


def one_date(c: Collection, found: dict[str, Pick]) -> None:
    """A table with one date and a time for each weighing (tanggal, waktu_timbangan1,
    waktu_timbangan2): the date serves the second weighing too; so does a datetime column
    kept for the date (TANGGAL SMALLDATETIME, at midnight) where another column gives the
    first weighing's time (its date part, as for tgl_dt1)."""
    first, second = found.get("tgl_dt1"), found.get("tgl_dt2")
    clock = found.get("jam_dt1")
    own_time = clock is not None and clock.column.name != first.column.name \
        and not clock.sql and not is_datetime(clock.column) if first else False
    if first and not second and "jam_dt2" in found \
            and (not is_datetime(first.column) or own_time) \
            and not first.sql and not found["jam_dt2"].sql \
            and not is_datetime(found["jam_dt2"].column):
        found["tgl_dt2"] = first._replace(note="the one date of the table, as for tgl_dt1",
                                          check="a second weighing after midnight is dated "
                                                "the day before")


def unix_time(c: Collection, found: dict[str, Pick], refused: Refused) -> None:
    """On SQL Server and PostgreSQL, which share no text that reads Unix time, a date or
    time from seconds since 1970 is left to a person, told what to write on each."""
    for field, pick in list(found.items()):
        if kind_of(c, field) in (Date, Time) and not pick.sql and is_epoch(pick.column):
            del found[field]
            name = quote(pick.column.name)
            refused.setdefault(field, []).append((pick.column, (
                f"{name} ({pick.note}) holds seconds since 1970 (its values, sampled): on SQL "
                f"Server write DATEADD(second, {name}, '19700101'), on PostgreSQL "
                f"to_timestamp({name}), each in UTC, cast to date or time")))


# -- by the values ------------------------------------------------------------------------

def by_values(c: Collection, columns: Sequence[Column], found: dict[str, Pick],
              unclaimed: set[str]) -> None:
    """A vehicle number from a column no name claims whose values are registrations."""
    field = "vehno" if "vehno" in c.fields else "Number" if "Number" in c.fields else ""
    if not field or field in found:
        return
    used = {p.column.name for p in found.values()}
    for column in columns:
        if column.name in unclaimed and column.name not in used and \
                column.profile.kind == "plate":
            found[field] = Pick(column, f"its values are registrations "
                                        f"('{column.profile.example}', sampled)")
            return


_NUMBERED_FIELD = re.compile(r"(.+\D)([12])")


def _other(number: str) -> str:
    return "2" if number == "1" else "1"


def numbered_pairs(c: Collection, columns: Sequence[Column], found: dict[str, Pick]) -> None:
    """Numbered pairs are taken together: a field of a pair (operator1) filled from a column
    numbered alike (UserID1, Petugas_1) gives the other field (operator2) that column's
    sibling (UserID2), where no column fills it yet and the sibling can hold it."""
    used = {p.column.name for p in found.values()} | {
        name for p in found.values() for name in p.uses}
    by_name = {col.name: col for col in columns}
    for field in c.fields:
        m = _NUMBERED_FIELD.fullmatch(field)
        pick = found.get(field)
        if not m or not pick or pick.sql:
            continue
        other = m.group(1) + _other(m.group(2))
        named = _NUMBERED_FIELD.fullmatch(pick.column.name)
        if other not in c.fields or other in found or not named \
                or named.group(2) != m.group(2):
            continue
        sibling = by_name.get(named.group(1) + _other(m.group(2)))
        if sibling and sibling.name not in used and fits(kind_of(c, other), sibling):
            found[other] = Pick(sibling, f"numbered pair of {quote(pick.column.name)} "
                                         f"({field})")
            used.add(sibling.name)


PLANT = "pabrik"  # the concept of a plant's own code (KdSite): offered for location, never taken


def plant_codes(c: Collection, columns: Sequence[Column], found: dict[str, Pick],
                refused: Refused, words: Words) -> None:
    """A plant's code (KdSite, KodeSite, Plant) is not a place in the plant: where no column
    fills `location`, its TODO line offers it with why, never the draft itself."""
    if "location" not in c.fields or "location" in found:
        return
    used = {p.column.name for p in found.values()}
    for column in columns:
        if column.name not in used and PLANT in _concepts(column, words):
            values = f" ('{column.profile.example}', sampled)" if column.profile.example else ""
            refused.setdefault("location", []).append((column, (
                f"{quote(column.name)}{values} names the plant, not a place in it: map it "
                f"only where each of the site's locations is a plant of its own")))


def text_key_id(c: Collection, found: dict[str, Pick], dialect: str | None,
                sampled: int) -> str:
    """Where no column fills `id` and recno's column is a key (unique in the sample):
    `id` from it, itself if it is an integer, else the integer of its digits. Returns
    why not, for the TODO line, when recno's column is text that cannot give one."""
    if "id" not in c.fields or "id" in found or "recno" not in found or found["recno"].sql:
        return ""
    column = found["recno"].column
    values = column.profile.values
    if _INTEGER_TYPE.match(column.type.strip()) and values and len(set(values)) == len(values):
        found["id"] = Pick(column, f"recno's column, an integer, unique on a sample of "
                                   f"{sampled} rows")
        return ""
    key, why = text_key(values)
    name = quote(column.name)
    if key is None:
        return (f"recno's column {name} is text; on a sample of {sampled} rows {why}. "
                f"ROW_NUMBER() is no id: it renumbers the records whenever rows are added "
                f"or removed. Ask your DBA for an integer identity column and map it here "
                f"(docs/adapting.md \"A key that is text\")")
    letters = f"; its letters differ ({', '.join(key.letters)}): check that its digits " \
              f"alone are unique" if len(key.letters) > 1 else ""
    found["id"] = Pick(column, f"digits of the text key {name} ({key.example} -> "
                               f"{key.number}), unique on a sample of {sampled} rows{letters}",
                       key_expression(key, name, dialect),
                       "the whole table: its digits must be unique there (docs/adapting.md "
                       "\"A key that is text\")")
    return ""


def _direction(columns: Sequence[Column], used: set[str]) -> tuple[Column, list[str]] | None:
    """A text column whose sampled values all say which way a truck went, and the values
    (as the site writes them) that mean out: those sampled, else the counterparts of the
    ways in sampled."""
    outs = {v: k for k, v in DIRECTIONS.items()}
    for column in columns:
        values = {str(v).strip() for v in column.profile.values}
        if column.name in used or not values or not is_text(column):
            continue
        if all(v.upper() in DIRECTIONS or v.upper() in outs for v in values):
            out = sorted(v for v in values if v.upper() in outs)
            if not out:
                out = sorted({_like(DIRECTIONS[v.upper()], v) for v in values})
            return column, out
        letters = {v.upper(): v for v in values}
        for way_in, way_out in WAY_LETTERS:
            if set(letters) == {way_in, way_out}:
                return column, [letters[way_out]]
    return None


def _like(word: str, model: str) -> str:
    """`word` in the case `model` is written in (OUT, out, Out)."""
    if model.islower():
        return word.lower()
    return word.capitalize() if model.istitle() and not model.isupper() else word


def _concepts(column: Column, words: Words) -> set[str | None]:
    return {words.concepts.get(p) for p in split_name(column.name, words.concepts)}


def _weighings(c: Collection, columns: Sequence[Column], found: dict[str, Pick],
               words: Words, used: set[str]) -> bool:
    """Columns of the first and second weighing (berat_timbangan1, berat_timbangan2) take
    weigh1 and weigh2 from a gross and a tare."""
    free = [col for col in columns if col.name not in used]
    picks: dict[str, Pick] = {}
    for _, field, column, pattern in part_candidates(["weigh1", "weigh2"], free, words,
                                                     section_of(c)):
        if {"bruto", "tara"} & set(pattern.present) or field in picks \
                or column in (p.column for p in picks.values()) \
                or not fits(Number, column):
            continue
        parts = "+".join(split_name(column.name, words.concepts))
        nth, instead = ("first", "gross") if field == "weigh1" else ("second", "tare")
        picks[field] = Pick(column, f"parts ({parts}): the {nth} weighing, not the "
                                    f"{instead} {quote(found[field].column.name)}")
    if len(picks) < 2:
        return False
    found.update(picks)
    return True


def _moment(columns: Sequence[Column], words: Words, which: str, weight: Column
            ) -> Column | None:
    """The column of the moment a gross (or a tare) was weighed: waktu_bruto, TglTara."""
    for column in columns:
        held = _concepts(column, words)
        if column != weight and which in held and held & {"tanggal", "jam"} \
                and is_datetime(column):
            return column
    return None


def _by_moments(c: Collection, found: dict[str, Pick], gross: Column, tare: Column,
                moments: tuple[Column, Column], dialect: str | None, words: Words) -> None:
    """weigh1 is the weight weighed first: the tare where it was weighed before the gross
    or the gross is not weighed yet; dt1 and dt2 the moments of the two weighings, unless a
    column named for that weighing (TGL_MASUK, WaktuTimbang2) gives them: a date of the
    ticket alone (dtmTicketDateTime) is no weighing's moment."""
    g, t, sg, st = (quote(col.name) for col in (gross, tare, *moments))
    first = f"{sg} IS NULL OR {st} < {sg}"
    uses = (gross.name, tare.name, *(m.name for m in moments))
    by = f"by their moments {sg}, {st}: a tare weighed first came in empty"
    found["weigh1"] = Pick(gross, f"the first weighing of gross {g} and tare {t}, {by}",
                           f"CASE WHEN {first} THEN {t} ELSE {g} END", "", uses)
    found["weigh2"] = Pick(tare, f"the second weighing of gross {g} and tare {t}",
                           f"CASE WHEN {first} THEN {g} ELSE {t} END", "", uses)
    for pair, (a, b), nth in (("dt1", (st, sg), "first"), ("dt2", (sg, st), "second")):
        date_field, time_field = DATE_PAIRS[pair]
        weighing = "masuk" if pair == "dt1" else "keluar"
        if any(found[f].column not in moments and weighing in _concepts(found[f].column, words)
               for f in (date_field, time_field) if f in found):
            continue  # the pair has a column of its own
        moment = f"CASE WHEN {first} THEN {a} ELSE {b} END"
        for field, part in ((date_field, "date"), (time_field, "time")):
            sql = f"{part}({moment})" if dialect == "sqlite" else f"CAST({moment} AS {part})"
            found[field] = Pick(moments[0], f"the moment of the {nth} weighing ({sg} or "
                                            f"{st}), its {part} part", sql, "", uses)


def _lone(found: dict[str, Pick], words: Words) -> None:
    """A gross or a tare with no weight beside it (empty_weight, no full one found): nothing
    says which weighing it was, so its line is a TODO."""
    field = "weigh1" if "weigh1" in found else "weigh2"
    pick = found[field]
    held = _concepts(pick.column, words)
    what = "gross" if "bruto" in held else "tare" if "tara" in held else ""
    if what and not pick.sql:
        other = "tare" if what == "gross" else "gross"
        nth = "first" if field == "weigh1" else "second"
        found[field] = pick._replace(todo=(
            f"confirm: {quote(pick.column.name)} is a {what} weight and no {other} was "
            f"found beside it: nothing says it was the {nth} weighing (docs/adapting.md "
            f"\"Gross and tare\")"))


def gross_and_tare(c: Collection, columns: Sequence[Column], found: dict[str, Pick],
                   words: Words, dialect: str | None) -> None:
    """weigh1 and weigh2 are the first and the second weighing; a gross and a tare are
    the heavier and the lighter. Where weigh1 and weigh2 are a gross and a tare: columns
    of the first and second weighing take them; else the moment each was weighed orders
    them, else a column that says which way the truck went; else they are flagged with
    what by=direction then answers."""
    one, two = found.get("weigh1"), found.get("weigh2")
    if bool(one) != bool(two):
        _lone(found, words)
    if not (one and two) or one.sql or two.sql:
        return
    if "bruto" not in _concepts(one.column, words) or "tara" not in _concepts(two.column,
                                                                              words):
        return
    used = {p.column.name for p in found.values()}
    if _weighings(c, columns, found, words, used):
        return
    sg = _moment(columns, words, "bruto", one.column)
    st = _moment(columns, words, "tara", two.column)
    if sg and st:
        _by_moments(c, found, one.column, two.column, (sg, st), dialect, words)
        return
    found_way = _direction(columns, used)
    if found_way is None:
        check = ("a gross and a tare, not the first and second weighing: by=direction "
                 "answers 'in' for every record weighed twice and never 'out' "
                 "(docs/adapting.md \"Gross and tare\")")
        found["weigh1"], found["weigh2"] = one._replace(check=check), two._replace(
            check="the tare: see weigh1")
        return
    way, out = found_way
    gross, tare = quote(one.column.name), quote(two.column.name)
    listed = ", ".join("'" + v.replace("'", "''") + "'" for v in out)
    test = f"{quote(way.name)} IN ({listed})"
    note = (f"gross {gross} and tare {tare} ordered by {quote(way.name)} ({listed}: came "
            f"in empty, the tare weighed first)")
    found["weigh1"] = Pick(one.column, note, f"CASE WHEN {test} THEN {tare} ELSE {gross} END",
                           f"that ({listed}) are all the ways out {quote(way.name)} holds",
                           (way.name,))
    found["weigh2"] = Pick(two.column, f"the other of weigh1's pair ({gross}, {tare})",
                           f"CASE WHEN {test} THEN {gross} ELSE {tare} END", "", (way.name,))


def descriptions(c: Collection, found: dict[str, Pick], refused: Refused) -> None:
    """A vehicle number from a column named for the vehicle whose values read as words, not
    registrations ('2019 Ford F-150, blue'): left on vehno's TODO line, saying so."""
    pick = found.get("vehno")
    if pick and not pick.sql and pick.note.startswith("parts") \
            and pick.column.profile.kind == "name":
        del found["vehno"]
        refused.setdefault("vehno", []).append((pick.column, (
            f"{quote(pick.column.name)} is named for the vehicle, but its values read as a "
            f"description ('{pick.column.profile.example}', sampled), not registrations")))


def codes_that_are_names(c: Collection, found: dict[str, Pick]) -> None:
    """A code of master data (custcode, productcode, transcode) from a column whose values
    read as names ('CV Sumber Rejeki'), not codes: said on its line."""
    for field in c.namings:
        pick = found.get(field)
        if pick and not pick.sql and not pick.check and pick.column.profile.kind == "name":
            found[field] = pick._replace(check=(
                f"its values read as names ('{pick.column.profile.example}', sampled), not "
                f"codes: a code column elsewhere would fit better"))


# -- names beside codes -----------------------------------------------------------------

class Named(NamedTuple):
    naming: Naming
    code: Column
    name: Column


def names_beside(c: Collection, found: dict[str, Pick], columns: Sequence[Column],
                 words: Words) -> list[Named]:
    """The name columns beside the code columns of master data: NamaBarang beside
    KodeBarang (the same parts but nama for kode), SupplierName beside Supplier."""
    out = []
    for field, naming in c.namings.items():
        pick = found.get(field)
        if pick is None or pick.sql:
            continue
        rest = {words.concepts.get(p) for p in split_name(pick.column.name, words.concepts)}
        rest -= {"kode", None}
        for column in columns:
            held = {words.concepts.get(p) for p in split_name(column.name, words.concepts)}
            if rest and "nama" in held and held - {"nama", None} == rest:
                out.append(Named(naming, pick.column, column))
                break
    return out


# -- hints ---------------------------------------------------------------------------------

def closest(field: str, columns: Sequence[Column], words: Sequence[Word] = (),
            n: int = CLOSEST) -> list[str]:
    """The names of up to n columns nearest to `field` or one of its words, nearest first."""
    scored = [(-score, position, column.name)
              for position, column in enumerate(columns)
              if (score := _likeness(field, column, words)) >= HINT_CUTOFF]
    return [name for *_, name in sorted(scored)[:n]]


def _likeness(field: str, column: Column, words: Sequence[Word]) -> float:
    """How alike (difflib's ratio) a column's name is to the field's or one of its words."""
    name = normalized(column.name)
    targets = [normalized(field), *(normalized(w.text) for w in words)]
    return max(difflib.SequenceMatcher(None, t, name).ratio() for t in targets)


def hints(c: Collection, field: str, free: Sequence[Column], words: Words) -> list[str]:
    """The columns a TODO line names, best first: those whose parts match one of the
    field's patterns (whatever their type), then those sharing the most concepts with one,
    those whose values are what the field holds (registrations for a vehicle number),
    then by spelling."""
    section = section_of(c)
    patterns = words.section_patterns(section).get(field, [])
    listed = words.section(section).get(field, [])
    scored = []
    named = {concept for p in patterns for concept in p.present}
    kind = kind_of(c, field)
    for position, column in enumerate(free):
        if by_type(kind, column) or (kind in (Date, Time) and not fits(kind, column)):
            continue  # a weight is never a date's hint, nor a moment a weight's
        held = _concepts(column, words)
        whole = any(pattern_fits(p, list(held)) for p in patterns)
        # a column that shares a concept and holds none the field's patterns do not name
        # (sabno for dono: sab, no; not BeratKeluar2 for tgl_dt1)
        shared = len(held & named - GENERIC) if held - {None} <= named | GENERIC else 0
        valued = field in ("vehno", "Number") and any_plate(column.profile.values)
        alike = _likeness(field, column, listed)
        if whole or shared or valued or alike >= HINT_CUTOFF:
            scored.append(((not whole, -shared, not valued, -alike, position), column.name))
    return [name for _, name in sorted(scored)[:CLOSEST]]
