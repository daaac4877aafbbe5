"""What making CSV for people inert wherever a cell may begin (docs/api.md §5.8) costs.

    .venv/bin/python bench/sheet_csv.py [DB] [--rounds N]

Reads every transactions row of a demo database (DB, default a 100,000-row one built with
`jembatan demo-db --rows 100000` in bench/data/sheet-csv.sqlite3 when missing) through
sqlite3 in batches of 1,000, as the runner fetches them, turns each batch into the encoder's
values once (not timed), and times the writers' `part` over all of them, in paired rounds:

- csv: format=csv's writer, the floor (no text looked at);
- before: format=csv-sheet's writer as it was, looking at each text value's first character
  alone (its patterns put back to that);
- after: format=csv-sheet's writer as it is, also looking after each `;`, tab and line break
  and past blanks and double quotes;
- before hostile, after hostile: the same on the same rows, the first row of each batch with
  `=1+1` in every text column, so that every batch's text columns take the slow path (a
  value made inert), which both versions then take alike.

Prints each way's best round in rows/s and each csv-sheet way's time over csv's and after
over before, as the median of the rounds' ratios with the lowest and highest.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.formats import registry  # noqa: E402
from app.formats.encoding import RecordEncoder  # noqa: E402
from app.model.collections import COLLECTIONS  # noqa: E402
from app.model.schemas import String  # noqa: E402

BATCH = 1000
DEFAULT_DB = ROOT / "bench" / "data" / "sheet-csv.sqlite3"
_OLD_STARTS = "[" + re.escape("=+-@\t\r") + "]"
# The patterns as they were: a formula only at a value's start (inert: a quote before it).
# (_FORMULA_AFTER_BREAK: the old search; _FORMULA_FIRST: a pattern that never matches.)
BEFORE = {"_FORMULA_CELL": re.compile(f"(^)(?={_OLD_STARTS})"),
          "_FORMULA_AFTER_BREAK": re.compile(f"(?:^|\0){_OLD_STARTS}"),
          "_FORMULA_FIRST": re.compile("(?!)")}


def batches(db: Path) -> tuple[RecordEncoder, list[str], list[list[tuple[Any, ...]]]]:
    """The transactions encoder, its text columns and every batch's values."""
    c = next(c for c in COLLECTIONS if c.name == "transactions")
    con = sqlite3.connect(db)
    names = [f for f in c.fields if f != "cancelled"]
    rows = con.execute("SELECT " + ", ".join(f'"{f}"' for f in names)
                       + ', 0 FROM "transactions"').fetchall()
    encoder = RecordEncoder(c.schema)
    columns = [*names, "cancelled"]
    texts = [n for n in encoder.output if isinstance(c.schema._declared_fields[n], String)]
    return encoder, texts, [encoder.values(columns, rows[i:i + BATCH], None)
                            for i in range(0, len(rows), BATCH)]


def hostile(encoder: RecordEncoder, texts: list[str],
            values: list[list[tuple[Any, ...]]]) -> list[list[tuple[Any, ...]]]:
    """`values` with the first row of each batch `=1+1` in every text column."""
    at = {encoder.output.index(n) for n in texts}
    return [[tuple("=1+1" if i in at else v for i, v in enumerate(b[0])), *b[1:]]
            for b in values]


def timed(make: Callable[[], Any], values: list[list[tuple[Any, ...]]],
          patterns: dict[str, Any]) -> float:
    """Seconds for one writer (with these registry patterns) to write every batch."""
    saved = {name: getattr(registry, name) for name in patterns}
    for name, pattern in patterns.items():
        setattr(registry, name, pattern)
    try:
        writer = make()
        started = time.perf_counter()
        for n, batch in enumerate(values):
            writer.part(batch, n == 0)
        return time.perf_counter() - started
    finally:
        for name, pattern in saved.items():
            setattr(registry, name, pattern)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("db", nargs="?", type=Path, default=DEFAULT_DB)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    if not args.db.exists():
        args.db.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(ROOT / ".venv" / "bin" / "jembatan"), "demo-db", "--rows",
                        "100000", "--path", str(args.db)], check=True)
    encoder, texts, values = batches(args.db)
    bad = hostile(encoder, texts, values)
    csv_w = registry.FORMATS["csv"].writer
    sheet_w = registry.FORMATS["csv-sheet"].writer
    ways: dict[str, tuple[Callable[[], Any], list[list[tuple[Any, ...]]], dict[str, Any]]] = {
        "csv": (lambda: csv_w(encoder, None, "transactions"), values, {}),
        "before": (lambda: sheet_w(encoder, None, "transactions"), values, BEFORE),
        "after": (lambda: sheet_w(encoder, None, "transactions"), values, {}),
        "before hostile": (lambda: sheet_w(encoder, None, "transactions"), bad, BEFORE),
        "after hostile": (lambda: sheet_w(encoder, None, "transactions"), bad, {})}
    seconds: dict[str, list[float]] = {w: [] for w in ways}
    for n in range(args.rounds):
        for way in (list(ways) if n % 2 == 0 else list(reversed(ways))):
            seconds[way].append(timed(*ways[way]))
    rows = sum(map(len, values))
    print(f"{rows:,} transactions rows ({len(texts)} text columns), batches of {BATCH}, "
          f"{args.rounds} rounds")
    for way, times in seconds.items():
        print(f"  {way:<15} {rows / min(times):>12,.0f} rows/s (best round)")
    for way, base in (("before", "csv"), ("after", "csv"), ("after", "before"),
                      ("after hostile", "before hostile")):
        ratios = [a / b for a, b in zip(seconds[way], seconds[base], strict=True)]
        print(f"  time {way} / {base}: median {statistics.median(ratios):.3f}, "
              f"lowest {min(ratios):.3f}, highest {max(ratios):.3f}")


if __name__ == "__main__":
    main()
