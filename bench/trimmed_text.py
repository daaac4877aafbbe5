"""What sending text without its trailing blanks (docs/api.md §4) costs the encoder.

    .venv/bin/python bench/trimmed_text.py [DB] [--rounds N]

Reads every transactions row of a demo database (DB, default a 100,000-row one built with
`jembatan demo-db --rows 100000` in bench/data/trimmed-text.sqlite3 when missing) through
sqlite3 in batches of 1,000, as the runner fetches them, and times
RecordEncoder.values + csv over all of them, three ways, in paired rounds:

- before: the encoder as it was, a text column taken unchanged without looking at its ends
  (its check in _UNCHANGED put back to the types alone);
- after: the encoder as it is, each text column also checked for a value ending in a blank
  (the fast path still taken: the demo writes no padded text);
- padded: as after, on the same rows with every text value padded to 10 characters (a
  CHAR(10) column's), so that every batch's text columns are converted.

Prints each way's best round in rows/s and after / before as the median of the rounds'
ratios with the lowest and highest.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.formats import encoding  # noqa: E402
from app.formats.encoding import RecordEncoder  # noqa: E402
from app.model.collections import COLLECTIONS  # noqa: E402
from app.model.schemas import String  # noqa: E402

BATCH = 1000
DEFAULT_DB = ROOT / "bench" / "data" / "trimmed-text.sqlite3"


def rows_of(db: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    c = next(c for c in COLLECTIONS if c.name == "transactions")
    con = sqlite3.connect(db)
    names = [f for f in c.fields if f != "cancelled"]
    cursor = con.execute("SELECT " + ", ".join(f'"{f}"' for f in names) + ', 0 FROM "transactions"')
    return [*names, "cancelled"], cursor.fetchall()


def encode_all(encoder: RecordEncoder, columns: list[str], rows: list[tuple[Any, ...]]) -> float:
    started = time.perf_counter()
    for i in range(0, len(rows), BATCH):
        encoder.csv(encoder.values(columns, rows[i:i + BATCH], None))
    return time.perf_counter() - started


def encoder(before: bool) -> RecordEncoder:
    """The transactions encoder with the text check as it is, or as it was (`before`)."""
    schema = next(c for c in COLLECTIONS if c.name == "transactions").schema
    saved = encoding._UNCHANGED[String]
    if before:
        encoding._UNCHANGED[String] = (saved[0], None)
    try:
        return RecordEncoder(schema)
    finally:
        encoding._UNCHANGED[String] = saved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("db", nargs="?", type=Path, default=DEFAULT_DB)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not args.db.exists():
        args.db.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(ROOT / ".venv" / "bin" / "jembatan"), "demo-db", "--rows",
                        "100000", "--path", str(args.db)], check=True)
    columns, rows = rows_of(args.db)
    schema = next(c for c in COLLECTIONS if c.name == "transactions").schema
    texts = {i for i, name in enumerate(columns)
             if isinstance(schema._declared_fields[name], String)}
    padded = [tuple(v.ljust(10) if i in texts and isinstance(v, str) else v
                    for i, v in enumerate(row)) for row in rows]
    ways = {"before": (encoder(True), rows), "after": (encoder(False), rows),
            "padded": (encoder(False), padded)}
    seconds: dict[str, list[float]] = {w: [] for w in ways}
    for n in range(args.rounds):
        order = list(ways) if n % 2 == 0 else list(reversed(ways))
        for way in order:
            coder, data = ways[way]
            seconds[way].append(encode_all(coder, columns, data))
    print(f"{len(rows):,} transactions rows, batches of {BATCH}, {args.rounds} rounds")
    for way, times in seconds.items():
        print(f"  {way:<7} {len(rows) / min(times):>12,.0f} rows/s (best round)")
    for way in ("after", "padded"):
        ratios = [b / a for a, b in zip(seconds[way], seconds["before"], strict=True)]
        print(f"  {way} / before (rows/s): median {statistics.median(ratios):.3f}, "
              f"lowest {min(ratios):.3f}, highest {max(ratios):.3f}")


if __name__ == "__main__":
    main()
