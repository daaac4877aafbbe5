"""The deduction (docs/adapting.md "Net after deduction"): `adjustweigh` is the kilograms
deducted from a ticket's net, a positive number (docs/api.md §7).

check-sql reads the sampled records' deductions against their nets: a mapping that cannot be
right (every deduction negative, or every one larger than its net, or a column named for a
percent given as it is) is an error, one that may be wrong (a few negative or larger than
the net, or values that look like a percent) a warning.

draft-mapping asks `percent_column` whether the table keeps its deduction as a percent (a
column named so, POT_PERSEN, or a deduction column whose sampled values look like one) and
then drafts the kilograms it means, on a line marked TODO.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..database.sqltext import quote
from ..ops.config import SHIPPED_SQL_DIR
from .matching import Column, Pick
from .words import Words, load_words, split_name

FIELD = "adjustweigh"
PERCENT = "persen"  # the words file's concept of a percent (PERSEN, PCT, PERCENT)
DEDUCTION = "potongan"  # ... of a deduction (POTONGAN, POT, SORTASI, REFRAKSI)
KILOGRAMS = "berat"  # ... of a weight (BERAT, KG): POT_KG is kilograms, whatever else it says
# A percent hint needs this many sampled deductions: one small value tells nothing.
PERCENT_EVIDENCE = 3
PERCENT_CEILING = 100.0  # a percent of a load is at most this
THOUSANDS = 1000.0  # nets of trucks (kg): the percent hint only where the median net is more


@dataclass
class Findings:
    """What check-sql says of a collection's deductions: errors (exit 1) and warnings."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _kg(value: float) -> str:
    return f"{value:,.10g}"


def _some(pairs: Sequence[tuple[str, float, float]]) -> str:
    """The first few (record, deduction, net) as words: "300 on id 7 (net 12,000 kg)"."""
    shown = [f"{_kg(cut)} on {who} (net {_kg(net)} kg)" for who, net, cut in pairs[:3]]
    return ", ".join(shown) + (", ..." if len(pairs) > 3 else "")


def deduction_findings(columns: Sequence[str], rows: Sequence[Sequence[Any]], key: str,
                       line: str, words: Words | None = None) -> Findings:
    """The findings on the sampled `rows` (with `columns`) of a weighing collection whose
    records carry the deduction; `key` names a record ("id"), `line` is where the mapping
    gives adjustweigh ('file:line: text'); `words` read a column's name (the shipped ones
    by default)."""
    found = Findings()
    if not {FIELD, "weigh1", "weigh2"} <= set(columns):
        return found
    percent = _percent_as_is(line, words or shipped_words())
    if percent:
        found.errors.append(
            f"{FIELD}: {percent} is a percent by its name, given as it is: {FIELD} is the "
            f"kilograms deducted, so every summary's deduction and net_after_deduction would "
            f"take its percents for kilograms; map the kilograms it means, ABS(<weigh1's "
            f"column> - <weigh2's column>) * {percent} / 100.0 AS \"{FIELD}\" "
            f"(docs/adapting.md, \"Net after deduction\"); it comes from {line}")
    at = {name: columns.index(name) for name in (FIELD, "weigh1", "weigh2")}
    named = columns.index(key) if key in columns else None
    pairs = []  # (record, net, deduction) of each weighed record with a deduction
    for row in rows:
        w1, w2, cut = (row[at["weigh1"]], row[at["weigh2"]], row[at[FIELD]])
        if None in (w1, w2, cut) or not _number(w1, w2, cut) or float(cut) == 0:
            continue
        who = f"{key} {row[named]}" if named is not None else "a record"
        pairs.append((who, abs(float(w1) - float(w2)), float(cut)))
    if not pairs:
        return found
    negative = [p for p in pairs if p[2] < 0]
    larger = [p for p in pairs if p[2] > p[1]]
    said = f"it comes from {line}"
    if len(negative) == len(pairs):
        found.errors.append(
            f"{FIELD}: every sampled deduction is negative ({_some(negative)}); {FIELD} is "
            f"the kilograms deducted, a positive number, so net_after_deduction would be "
            f"more than net: where the program stores deductions negative, write "
            f"-(its column) AS \"{FIELD}\"; {said}")
    elif negative:
        found.warnings.append(
            f"{FIELD}: {len(negative)} of {len(pairs)} sampled deductions are negative "
            f"({_some(negative)}), and each adds to its net after deduction; {FIELD} is the "
            f"kilograms deducted, a positive number; {said}")
    if larger and len(larger) == len(pairs):
        found.errors.append(
            f"{FIELD}: every sampled deduction is more than its ticket's net ({_some(larger)}): "
            f"not kilograms deducted from this ticket (grams? a weight?); {said}")
    elif larger:
        found.warnings.append(
            f"{FIELD}: {len(larger)} of {len(pairs)} sampled deductions are more than their "
            f"ticket's net ({_some(larger)}), so its net after deduction is negative; {said}")
    found.warnings += [] if percent else _percent_hint(pairs, said)
    return found


# A mapping line's source given as one column: "X", [X] or X, before AS "adjustweigh".
_AS_IS = re.compile(r'^\s*(?:"((?:[^"]|"")+)"|\[([^\]]+)\]|(\w+))\s+AS\s+"?' + FIELD + r'\b',
                    re.IGNORECASE)


def _percent_as_is(line: str, words: Words) -> str:
    """The column a mapping's line gives adjustweigh as it is, quoted, where its name says
    it holds a percent (POT_PERSEN); '' otherwise. `line` is 'file:line: text'."""
    text = line.split(": ", 1)[1] if ": " in line else ""
    m = _AS_IS.match(text)
    if not m:
        return ""
    name = (m.group(1) or "").replace('""', '"') or m.group(2) or m.group(3)
    return quote(name) if percent_name(name, words) else ""


def _number(*values: Any) -> bool:
    return all(isinstance(v, int | float | Decimal) and not isinstance(v, bool)
               for v in values)


def _percent_hint(pairs: list[tuple[str, float, float]], said: str) -> list[str]:
    """A warning when the deductions look like a percent: at least PERCENT_EVIDENCE of them,
    all positive and at most 100, while the nets are thousands of kg."""
    cuts = [cut for _, _, cut in pairs]
    net = statistics.median(n for _, n, _ in pairs)
    if (len(cuts) < PERCENT_EVIDENCE or min(cuts) <= 0 or max(cuts) > PERCENT_CEILING
            or net < THOUSANDS):
        return []
    return [f"{FIELD}: every sampled deduction is between {_kg(min(cuts))} and "
            f"{_kg(max(cuts))} while the nets are thousands of kg (median {_kg(net)} kg): if "
            f"the program stores a percent, map the kilograms it means, e.g. "
            f"ABS(<weigh1's column> - <weigh2's column>) * <its column> / 100.0 AS \"{FIELD}\" "
            f"(docs/adapting.md, \"Net after deduction\"); {said}"]


# -- a percent, by its name or its values ---------------------------------------------

def _concepts(name: str, words: Words) -> set[str | None]:
    return {words.concepts.get(p) for p in split_name(name, words.concepts)}


def percent_name(name: str, words: Words) -> bool:
    """Whether a column's name says it holds a percent (POT_PERSEN, nSortasiPct), not
    kilograms (PERSEN_KG names both: kilograms)."""
    held = _concepts(name, words)
    return PERCENT in held and KILOGRAMS not in held


def _cuts(column: Column) -> list[float]:
    return [float(v) for v in column.profile.values if _number(v) and float(v) != 0]


def percent_values(column: Column, weights: Sequence[Column]) -> str:
    """How a deduction column's sampled values read as a percent: at least PERCENT_EVIDENCE
    of them, all positive and at most 100, while the weights are thousands of kg; '' when
    they do not."""
    cuts = _cuts(column)
    loads = [float(v) for w in weights for v in w.profile.values if _number(v)]
    if (len(cuts) < PERCENT_EVIDENCE or min(cuts) <= 0 or max(cuts) > PERCENT_CEILING
            or not loads or statistics.median(loads) < THOUSANDS):
        return ""
    return (f"its values are {_kg(min(cuts))} to {_kg(max(cuts))} (sampled) while the "
            f"weights are thousands of kg")


def percent_column(columns: Sequence[Column], found: dict[str, Pick], words: Words
                   ) -> tuple[Column, str] | None:
    """The column that keeps the deduction as a percent, and why it reads as one: the
    deduction's own column where its name or its values say percent, else, where no column
    gives the deduction, a column named for a deduction in percent (POT_PERSEN)."""
    weights = [found[f].column for f in ("weigh1", "weigh2") if f in found]
    pick = found.get(FIELD)
    if pick and not pick.sql:
        if percent_name(pick.column.name, words):
            return pick.column, "its name says so"
        said = percent_values(pick.column, weights)
        return (pick.column, said) if said else None
    column = None if pick else beside(columns, found, words)
    return (column, "its name says a deduction in percent") if column else None


def beside(columns: Sequence[Column], found: dict[str, Pick], words: Words) -> Column | None:
    """A column named for a deduction in percent beside the deduction's kilograms
    (nSortasiPersen beside nSortasiKg)."""
    used = {p.column.name for p in found.values()} | {n for p in found.values() for n in p.uses}
    return next((col for col in columns if col.name not in used
                 and percent_name(col.name, words)
                 and DEDUCTION in _concepts(col.name, words)), None)


def kilograms_of(percent: Column, net: str, why: str, dialect: str | None = None
                 ) -> tuple[str, str]:
    """The SQL of the kilograms a percent means of the net, rounded to whole kilograms per
    ticket as a plant's books round them (PostgreSQL rounds to places a numeric only), and
    the TODO that says so."""
    name = quote(percent.name)
    fraction = _cuts(percent) and max(_cuts(percent)) <= 1
    also = ("; its values are at most 1: if they are fractions (0.05 for 5 %), drop the "
            "/ 100.0" if fraction else "")
    kilograms = f"{net} * {name} / 100.0"
    if dialect == "postgresql":
        kilograms = f"CAST({kilograms} AS numeric)"
    return (f"ROUND({kilograms}, 0)",
            f"confirm: {name} holds a percent ({why}), drafted as the kilograms it means of "
            f"the net, rounded to whole kilograms per ticket, "
            f"as adjustweigh is the kilograms deducted (docs/api.md §7); where the books keep "
            f"fractions of a kilogram, drop the ROUND; where it holds kilograms, write "
            f"{name} alone{also}")


def shipped_words() -> Words:
    """The shipped words, for check-sql's reading of a column's name."""
    return load_words(SHIPPED_SQL_DIR)
