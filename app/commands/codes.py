"""Columns draft-mapping recognises by their sampled values rather than their names: the
code of the way a truck went (`T`/`K`, `M`/`K`, `I`/`O`, `IN`/`OUT`) and what voids a
ticket: a status's void code (`X` among `I`/`S`/`X`, `BATAL`, `VOID`), a flag named for a
void (`IS_DEL` 'Y'/'N', `FLAG_BATAL` 'Y'/'T' as Indonesian writes ya/tidak, `IsDeleted` a bit,
a boolean) or a stamp (`DeletedAt`, `DEL_DATE`).

The weighing record has no direction field (the summaries work it out from weigh1 > weigh2,
docs/api.md §7): the draft names the direction column in its header for a person to check
against the weights. A void marker gives the `cancelled` condition, proposed as
`CASE WHEN "cStatus" = 'X' THEN 1 ELSE 0 END` (`UPPER("IS_DEL") = 'Y'`, `"DEL_DATE" IS NOT
NULL`), a letter flag compared without case (a plant's 'y' voids as its 'Y' does, and SQLite
and PostgreSQL compare case),
always for the plant to confirm (`-- TODO`): the void code is the rare value that reads as
one, and the sample may hold none; where none is found, the status columns and their codes
are named on cancelled's TODO line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..database.sqltext import quote
from .matching import DIRECTIONS, WAY_LETTERS, Column, is_dated, is_number, is_text
from .words import Words, split_name

# The way in and the way out, as weighbridge programs code them: one letter (matching's
# WAY_LETTERS) or a word (matching's DIRECTIONS, which also orders a gross and a tare).
WAY_CODES = WAY_LETTERS + tuple(DIRECTIONS.items())
# The values a status column voids a ticket with (compared without case); of single letters
# only X and V (C and D are as often closed and done).
VOID_CODES = ("X", "V", "BATAL", "DIBATALKAN", "BTL", "VOID", "VOIDED", "CANCEL",
              "CANCELED", "CANCELLED", "CNL", "DEL", "DELETED", "HAPUS", "DIHAPUS")
VOID = "batal"  # the concept of a name that says a row is void (IsDeleted, TglBatal, VoidDate)
STATUS = "status"  # the concept of a status column's name
MAX_CODES = 6  # a code column holds a few distinct values
# A flag's two values, the one that sets it first, as programs write them (compared without
# case): a void flag is 'Y' on a void ticket, a bit or a number 1, a boolean TRUE. 'Y'/'T' is
# Indonesian ya/tidak: T is "no" there, "true" only beside F. The first pair holding the
# sampled values is taken, so a flag sampled with one value reads it as the unset one where a
# pair has it so (only 'T' sampled: ya/tidak, every sampled ticket valid; a void is rare).
# Blank text is the unset flag too, as NULL is.
FLAGS = (("Y", "N"), ("Y", "T"), ("T", "F"), ("1", "0"), ("YES", "NO"), ("TRUE", "FALSE"))
BOOLEAN_TYPES = ("bool", "boolean")


class Way(NamedTuple):
    column: Column
    way_in: str  # as the site writes it
    way_out: str


class Proposal(NamedTuple):
    """The `cancelled` condition a draft proposes, and what it read it from."""
    column: Column
    sql: str
    note: str


def _codes(column: Column) -> list[str]:
    """The distinct sampled values of a short-code text column, as written (stripped)."""
    values = list(dict.fromkeys(str(v).strip() for v in column.profile.values))
    if not is_text(column) or not values or len(values) > MAX_CODES \
            or any(len(v) > 12 or not v for v in values):
        return []
    return values


def direction(columns: Sequence[Column], used: set[str]) -> Way | None:
    """A column whose sampled codes are the two of one pair of WAY_CODES: which way each
    truck went."""
    for column in columns:
        codes = {v.upper(): v for v in _codes(column)} if column.name not in used else {}
        for way_in, way_out in WAY_CODES:
            if set(codes) == {way_in, way_out}:
                return Way(column, codes[way_in], codes[way_out])
    return None


def _void_code(column: Column, words: Words) -> str:
    """The sampled value that voids a ticket: a void code, rarer than the others; a single
    letter only in a column whose name says status."""
    codes = _codes(column)
    if len(codes) < 2:
        return ""
    named = {words.concepts.get(p) for p in split_name(column.name, words.concepts)}
    counts = {v: sum(1 for x in column.profile.values if str(x).strip() == v) for v in codes}
    for code in codes:
        if code.upper() in VOID_CODES and counts[code] < max(counts.values()) \
                and (len(code) > 1 or named & {STATUS, VOID}):
            return code
    return ""


def _flag(column: Column) -> tuple[str, str]:
    """How a flag that is set on a void ticket is tested: (the SQL of the value compared,
    the value it is set to). Text holding one of FLAGS' pairs (blanks aside) gives
    (`UPPER("X")`, `'Y'`) for letters, compared without case, and ("X", `'1'`) for digits;
    a boolean ("X", `TRUE`); a bit or a number holding 0 and 1 ("X", `1`); anything else
    ('', '')."""
    name = quote(column.name)
    values = {str(v).strip().upper() for v in column.profile.values} - {""}
    declared = column.type.strip().lower()
    if declared in BOOLEAN_TYPES:
        return name, "TRUE"
    if is_text(column) and values:
        on = next((on for on, off in FLAGS if values <= {on, off}), "")
        if not on:
            return "", ""
        return (name, f"'{on}'") if on.isdigit() else (f"UPPER({name})", f"'{on}'")
    if is_number(column) and values <= {"0", "1", "TRUE", "FALSE"}:
        return name, "1"
    return "", ""


def named_for_void(column: Column, words: Words) -> bool:
    """Whether a column's name says void (IsDeleted, IS_DEL, DEL_DATE, TglBatal): it is
    cancelled's, never another field's hint."""
    return VOID in {words.concepts.get(p) for p in split_name(column.name, words.concepts)}


def _named_void(column: Column, words: Words) -> Proposal | None:
    """The condition of a flag (IsDeleted, IS_DEL 'Y'/'N', a bit) or a stamp (DeletedAt,
    DEL_DATE, TglBatal) whose name says void."""
    if not named_for_void(column, words):
        return None
    name = quote(column.name)
    if is_dated(column):
        return Proposal(column, f"CASE WHEN {name} IS NOT NULL THEN 1 ELSE 0 END",
                        f"{name}, a stamp named for a void, is set on a void ticket")
    tested, value = _flag(column)
    if not tested:
        return None
    held = "', '".join(dict.fromkeys(str(v).strip() for v in column.profile.values))
    seen = f" (holds '{held}', sampled)" if held else " (no value sampled)"
    either = " in either case" if tested.startswith("UPPER(") else ""
    return Proposal(column, f"CASE WHEN {tested} = {value} THEN 1 ELSE 0 END",
                    f"{name}, a flag named for a void{seen}, is {value}{either} on a void "
                    f"ticket")


def cancelled(columns: Sequence[Column], used: set[str], words: Words) -> Proposal | None:
    """The condition of a void ticket: a status column's void code, else a flag whose name
    says void (IsDeleted = 1, IS_DEL = 'Y'), else a stamp whose name says so (DeletedAt IS
    NOT NULL); the other columns named for a void are said beside it."""
    free = [col for col in columns if col.name not in used]
    for column in free:
        code = _void_code(column, words)
        if code:
            name, listed = quote(column.name), "', '".join(_codes(column))
            return Proposal(column, f"CASE WHEN {name} = '{code}' THEN 1 ELSE 0 END",
                            f"{name} holds '{listed}' (sampled): '{code}', the rare one, "
                            f"reads as a void code")
    found = [p for p in (_named_void(col, words) for col in free) if p]
    found.sort(key=lambda p: is_dated(p.column))  # a flag first, then a stamp
    if not found:
        return None
    others = [quote(p.column.name) for p in found[1:]]
    also = f"; also named for a void: {', '.join(others)}" if others else ""
    return found[0]._replace(note=found[0].note + also)


def void_hint(columns: Sequence[Column], used: set[str], words: Words) -> str:
    """Where no condition is proposed: the status columns and what they hold, for the TODO
    line of `cancelled` (a person knows which code voids a ticket)."""
    said = []
    for column in columns:
        named = {words.concepts.get(p) for p in split_name(column.name, words.concepts)}
        if column.name in used or STATUS not in named:
            continue
        held = "', '".join(_codes(column))
        said.append(f"{quote(column.name)} holds '{held}' (sampled)" if held
                    else quote(column.name))
    if not said:
        return ""
    return (f"{'; '.join(said)}: if one of its codes voids a ticket, write CASE WHEN "
            f"<column> = '<code>' THEN 1 ELSE 0 END; else 0 where the program deletes "
            f"a void ticket's row")
