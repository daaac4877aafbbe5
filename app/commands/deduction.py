"""check-sql on the deduction (docs/adapting.md "The deduction's sign"): `adjustweigh` is the
kilograms deducted from a ticket's net, a positive number (docs/api.md §7). The sampled
records' deductions are read against their nets; a mapping that cannot be right (every
deduction negative, or every one larger than its net) is an error, one that may be wrong (a
few negative or larger than the net, or values that look like a percent) a warning.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

FIELD = "adjustweigh"
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
                       line: str) -> Findings:
    """The findings on the sampled `rows` (with `columns`) of a weighing collection whose
    records carry the deduction; `key` names a record ("id"), `line` is where the mapping
    gives adjustweigh ('file:line: text')."""
    found = Findings()
    if not {FIELD, "weigh1", "weigh2"} <= set(columns):
        return found
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
    found.warnings += _percent_hint(pairs, said)
    return found


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
