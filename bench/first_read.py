"""The proof at the first read (app/core/unmapped.py Proving): the first request of a collection,
which waits up to `proof_wait` seconds for the proof of its reads on three of its records
(started then, in the background, with no verdict kept: a fresh `proof_dir`), against the
next one and against the same first request with `prove_on_first_read = false`, on one
SQLite file.

    .venv/bin/python bench/first_read.py PATH   # e.g. a `jembatan demo-db --rows
                                                # 1000000 --path PATH` file
"""

from __future__ import annotations

import sys
import tempfile
import time

from app import create_app

COLLECTIONS = ("transactions", "bricon2", "vehicles")


def main(path: str) -> None:
    for prove in (True, False):
        client = create_app({"database": {"sqlite": path, "prove_on_first_read": prove,
                                          "proof_dir": tempfile.mkdtemp()}}).test_client()
        for name in COLLECTIONS:
            times, statuses = [], []
            for _ in range(2):
                start = time.perf_counter()
                statuses.append(client.get(f"/{name}/1").status_code)
                times.append((time.perf_counter() - start) * 1000)
            print(f"prove_on_first_read={str(prove).lower():<5} {name:<12} first "
                  f"{times[0]:7.1f} ms ({statuses[0]}), next {times[1]:5.1f} ms ({statuses[1]})")


if __name__ == "__main__":
    main(sys.argv[1])
