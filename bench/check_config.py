"""What the start's check of the mapping and `jembatan serve --check-config` cost, on a demo
SQLite database, for this checkout or others side by side (`--tree DIR`, each with its own
.venv): the mapping files loaded as the start loads them (every cache emptied first: what
each new worker pays once), the mapping tried on the database (`mapped` of every served
collection, no row read), and check-config's whole run, first with no verdict of the proof
kept (it proves every collection) and then with the verdicts it kept.

    .venv/bin/python bench/check_config.py --rows 100000 --tree /work/main --tree .
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a tree's own python: the load and the trial, each `repeat` times, in ms.
PROBE = """
import json, statistics, sys, time
from app.console.serving import built
from app.core.mapped import tried
from app.core.services import services
from app.core.unmapped import Unmapped
from app.database import loading, sqltext
from app.model.collections import COLLECTIONS
from app.ops.config import SHIPPED_SQL_DIR

repeat = int(sys.argv[1])
kept = services(built())
loads, trials = [], []
for _ in range(repeat):
    loading.LOADED.clear()
    for cached in (sqltext.convert, sqltext.without_comments,
                   getattr(sqltext, "bracketed", None)):
        if cached is not None and hasattr(cached, "cache_clear"):
            cached.cache_clear()
    begun = time.perf_counter()
    loading.load_queries(SHIPPED_SQL_DIR, COLLECTIONS, SHIPPED_SQL_DIR)
    loads.append((time.perf_counter() - begun) * 1000)
    begun = time.perf_counter()
    refused = tried(kept.db, kept.collections, Unmapped(), say=False)
    trials.append((time.perf_counter() - begun) * 1000)
    assert not refused, refused
print(json.dumps({"load_ms": statistics.median(loads), "trial_ms": statistics.median(trials)}))
"""


def jembatan(tree: Path, *args: str, env: dict[str, str]) -> float:
    """Seconds `jembatan ARGS` took in `tree` (its exit status must be 0)."""
    begun = time.perf_counter()
    done = subprocess.run([str(tree / ".venv/bin/jembatan"), *args], cwd=tree, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - begun
    if done.returncode != 0:
        sys.exit(f"{tree}: jembatan {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return seconds


def measure(tree: Path, database: Path, work: Path, repeat: int) -> dict[str, float]:
    config = work / f"config-{abs(hash(str(tree)))}.toml"
    proofs = work / f"proofs-{abs(hash(str(tree)))}"
    config.write_text(f'[database]\nsqlite = "{database}"\nproof_dir = "{proofs}"\n')
    env = {"JEMBATAN_CONFIG": str(config), "PATH": "/usr/bin:/bin", "HOME": str(work)}
    probe = subprocess.run([str(tree / ".venv/bin/python"), "-c", PROBE, str(repeat)],
                           cwd=tree, env=env, capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit(f"{tree}: the probe failed:\n{probe.stderr[-2000:]}")
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    found["check_config_first_s"] = jembatan(tree, "serve", "--check-config", env=env)
    found["check_config_kept_s"] = statistics.median(
        jembatan(tree, "serve", "--check-config", env=env) for _ in range(3))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000, help="demo rows (transactions)")
    parser.add_argument("--tree", action="append", type=Path,
                        help="a checkout with its .venv (repeatable); default: this one")
    parser.add_argument("--repeat", type=int, default=20, help="loads and trials per tree")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    with tempfile.TemporaryDirectory(prefix="jembatan-check-config-") as folder:
        work = Path(folder)
        database = work / "demo.sqlite3"
        subprocess.run([str(trees[-1] / ".venv/bin/jembatan"), "demo-db", "--rows",
                        str(args.rows), "--path", str(database)], cwd=work, check=True,
                       capture_output=True, env={"PATH": "/usr/bin:/bin", "HOME": folder,
                                                 "JEMBATAN_CONFIG": "/dev/null"})
        print(f"demo database of {args.rows} transactions; medians of {args.repeat} loads "
              f"and trials, of 3 kept check-configs")
        print(f"{'tree':40} {'load ms':>8} {'trial ms':>9} {'check 1st s':>12} "
              f"{'check kept s':>13}")
        for tree in trees:
            m = measure(tree, database, work, args.repeat)
            print(f"{str(tree)[-40:]:40} {m['load_ms']:8.1f} {m['trial_ms']:9.2f} "
                  f"{m['check_config_first_s']:12.2f} {m['check_config_kept_s']:13.2f}")


if __name__ == "__main__":
    main()
