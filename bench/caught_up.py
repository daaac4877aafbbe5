"""What a caught-up warehouse run costs each plant: after a busy spell (`--busy` weighings
updated within the last ten minutes, more than a bookmark remembers one by one), each of
`--plants` pipelines (one bookmark each, as the warehouse keeps one per plant; the plants
simulated by one database, whose cost per plant is the same) catches up, then runs again as
a scheduler would a minute later with nothing new. Per run: the polls each plant sent per
feed, the records they carried, how many the plant said came again (X-Bookmark-Repeats),
and the time the service took per poll.

    .venv/bin/python bench/caught_up.py [--plants 100] [--busy 2300]

The app runs in this process (Flask's test client, the shipped mapping, SQLite), feed
windows as shipped (settle 30 s, lookback 600 s); each pipeline polls as the warehouse's
client does (app/warehouse/source.py): `limit=page_size` (1,000) until an answer holds fewer
new records than that. No target is asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import create_app  # noqa: E402
from app.model import tables  # noqa: E402

PAGE_SIZE = 1000


def database(path: Path, busy: int) -> None:
    """The plant's transactions: `busy` weighings updated over the last ten minutes (settled:
    at least a minute ago), each with its creation stamp an hour earlier."""
    con = sqlite3.connect(path)
    con.executescript(tables.script("sqlite"))
    now = dt.datetime.now().replace(microsecond=0)
    rows = []
    for k in range(1, busy + 1):
        updated = now - dt.timedelta(seconds=60 + (busy - k) * 540 // busy)
        created = updated - dt.timedelta(hours=1)
        rows.append((k, updated.date().isoformat(), updated.time().isoformat(),
                     created.date().isoformat(), created.time().isoformat()))
    con.executemany('INSERT INTO "transactions" ("id", "tgl_update", "jam_update", '
                    '"tgl_create", "jam_create") VALUES (?, ?, ?, ?, ?)', rows)
    con.commit()
    con.close()


def run(client, bookmarks: dict[tuple[int, str], str], plants: int) -> dict[str, float]:
    """One run of every plant's pipeline over both transactions feeds."""
    polls = records = repeats = 0
    took = 0.0
    for plant in range(plants):
        for on in ("update", "create"):
            while True:
                after = bookmarks.get((plant, on))
                query = f"on={on}&limit={PAGE_SIZE}" + (f"&after={after}" if after else "")
                start = time.perf_counter()
                answer = client.get(f"/transactions/changes?{query}&fields=id")
                took += time.perf_counter() - start
                assert answer.status_code == 200, answer.get_data(as_text=True)
                polls += 1
                sent = len(answer.get_json())
                again = int(answer.headers.get("X-Bookmark-Repeats", "0"))
                records, repeats = records + sent, repeats + again
                bookmarks[plant, on] = answer.headers["X-Bookmark"]
                if sent - again < PAGE_SIZE:
                    break
    return {"polls per plant": polls / plants, "records per plant": records / plants,
            "again per plant": repeats / plants, "ms per poll": 1000 * took / polls}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plants", type=int, default=100)
    parser.add_argument("--busy", type=int, default=2300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "plant.sqlite3"
        database(path, args.busy)
        app = create_app({"database": {"sqlite": str(path), "prove_on_first_read": False,
                                       "proof_dir": work},
                          "feed": {"bookmark_secrets": ["the caught-up benchmark's secret"]},
                          "collections": {"serve": ["transactions"]}})
        client = app.test_client()
        bookmarks: dict[tuple[int, str], str] = {}
        print(f"{args.plants} plants, {args.busy} weighings updated in the last 10 minutes "
              f"(the transactions feeds on=update and on=create, page size {PAGE_SIZE})")
        for name in ("catching up", "caught up", "caught up again"):
            figures = run(client, bookmarks, args.plants)
            print(f"{name:>16}: " + ", ".join(f"{k} {v:,.1f}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
