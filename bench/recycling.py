"""Records by key under the shipped systemd unit's recycling, the proof on and off.

`jembatan serve` as the unit runs it (2 workers of 4 threads, `-- --max-requests 1000
--max-requests-jitter 100`: each worker replaced after 1,000 to 1,100 requests), on the
1,000,000-row demo file, both cores, wrk on both (4 connections, 2 threads) asking
/transactions/<random id>. Three contenders, a fresh server each in every round, their
order rotated from round to round:

- `off`: `prove_on_first_read = false`;
- `kept`: the proof on, its verdicts kept in one directory for the whole run (one
  deployment: the first start proves, every later worker and start finds the verdict); its
  first start comes before the rounds, with no load, until the proof at start has kept the
  verdict of transactions (its time is printed: what a deployment pays once);
- `alone`: the proof on with a `proof_dir` that cannot be written (each worker proves in
  the background, as on a read-only filesystem).

It prints each round's req/s, p99 and errors, the workers booted and the proof's log lines
(proven / found kept), then per contender the best round and its ratio to `off` as the
median over the rounds of the ratio within a round (this machine's speed swings from one
spell to the next; a round's contenders are measured minutes apart at most).

    .venv/bin/python bench/recycling.py [--rounds 6] [--seconds 20] [--db PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from harness import ALL_CORES, ROOT, Server, free_port, wrk

CONTENDERS = ("off", "kept", "alone")
COMMAND = ".venv/bin/jembatan serve --bind 127.0.0.1:{port} -- --max-requests 1000 " \
          "--max-requests-jitter 100"


def settings(kind: str, db: Path, work: Path) -> str:
    """The [database] of one contender's config.toml."""
    lines = [f'sqlite = "{db.resolve()}"']
    if kind == "off":
        lines.append("prove_on_first_read = false")
    elif kind == "kept":
        lines.append(f'proof_dir = "{work / "proofs"}"')
    else:
        (work / "file").write_text("not a directory")
        lines.append(f'proof_dir = "{work / "file" / "proofs"}"')
    return "[database]\n" + "\n".join(lines) + "\n"


def start(kind: str, db: Path, work: Path, name: str) -> tuple[Server, Path]:
    """A server of one contender (not yet started) and its log."""
    config = work / f"{kind}.toml"
    config.write_text(settings(kind, db, work))
    log = work / f"{name}.log"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JEMBATAN_")} | {
        "JEMBATAN_CONFIG": str(config)}
    env.pop("STATE_DIRECTORY", None)
    return Server(kind, COMMAND.format(port=port).split(), port, "/health", env=env,
                  cores=ALL_CORES, worker_processes=True, log=log), log


def first_proof(db: Path, work: Path) -> float:
    """The deployment's first start, with no load: seconds until transactions is decided."""
    server, log = start("kept", db, work, "kept-first")
    began = time.monotonic()
    with server:
        while "transactions proven on" not in log.read_text(errors="replace"):
            if time.monotonic() - began > 1800:
                raise RuntimeError(f"no verdict on transactions after 1800 s: {log}")
            time.sleep(0.5)
    return time.monotonic() - began


def measure(kind: str, db: Path, work: Path, seconds: float, n: int) -> dict[str, object]:
    server, log = start(kind, db, work, f"{kind}-{n}")
    port = server.port
    with open(db, "rb") as f:  # the file's pages in the page cache, as every contender's
        while f.read(1 << 24):
            pass
    with server:
        result = wrk(port, "row.lua", ["/transactions/{id}", 1_000_000], seconds, 0,
                     threads=2, cores=ALL_CORES, connections=4)
    text = log.read_text(errors="replace")
    result |= {"booted": text.count("Booting worker"),
               "proven": text.count("transactions proven on"),
               "found kept": text.count("transactions: not proven again")}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--db", type=Path, default=Path(os.environ.get(
        "BENCH_DB", "bench/data/bench.sqlite3")))
    args = parser.parse_args()
    os.chdir(ROOT)
    work = Path(tempfile.mkdtemp(prefix="jembatan-recycling-"))
    print(f"database {args.db}, {args.rounds} rounds of {args.seconds:.0f} s, logs in {work}")
    print(f"server: {COMMAND.format(port='PORT')}")
    print(f"the deployment's first start proved transactions in "
          f"{first_proof(args.db, work):.1f} s (no load)", flush=True)
    rounds: list[dict[str, dict[str, object]]] = []
    for n in range(args.rounds):
        order = CONTENDERS[n % 3:] + CONTENDERS[:n % 3]
        got = {kind: measure(kind, args.db, work, args.seconds, n) for kind in order}
        rounds.append(got)
        for kind in order:
            r = got[kind]
            print(f"round {n + 1} {kind:<5} {r['req_s']:7.1f} req/s  p99 {r['p99_ms']:7.1f} ms"
                  f"  errors {r['errors']}  workers booted {r['booted']}  proven "
                  f"{r['proven']}  verdict found {r['found kept']}", flush=True)
    print()
    for kind in CONTENDERS:
        best = max(float(r[kind]["req_s"]) for r in rounds)  # type: ignore[arg-type]
        ratios = [float(r[kind]["req_s"]) / float(r["off"]["req_s"])  # type: ignore[arg-type]
                  for r in rounds]
        print(f"{kind:<5} best {best:7.1f} req/s; / off: median {statistics.median(ratios):.3f}"
              f" (lowest {min(ratios):.3f}, highest {max(ratios):.3f})")


if __name__ == "__main__":
    main()
