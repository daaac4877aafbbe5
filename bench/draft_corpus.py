"""How much of each corpus table `draft-mapping` gets right (tests/draft_corpus/README.md),
printed without asserting: the figures of tests/test_draft_corpus.py for any checkout.

    .venv/bin/python bench/draft_corpus.py [--code DIR] [--corpus DIR] [--quiet]

--code DIR measures the draft of another checkout (its app/ and sql/) on this checkout's
corpus, e.g. a branch's worktree; --corpus DIR measures it on the tables of another directory
of the same form (tests/draft_corpus/README.md), e.g. tables held out of the tests.

Each line: the table, its collection, the fields drafted right of those it has a source for,
the misses that are a `-- TODO` naming the expected column, and the fields it has no source
for that the draft filled anyway; below it, each miss (--quiet leaves them out). Exits 0
whatever the figures.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, help="the checkout whose draft is measured")
    parser.add_argument("--corpus", type=Path, help="a directory of tables and expected files")
    parser.add_argument("--quiet", action="store_true", help="the figures only")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.code:
        sys.path.insert(0, str(args.code.resolve()))
    import app  # noqa: PLC0415  (after the path says which checkout's)
    from tests import corpus  # noqa: PLC0415

    logging.disable(logging.WARNING)  # each draft's app says it serves an open API

    tables = (args.corpus or corpus.CORPUS).resolve()
    print(f"draft of {Path(app.__file__).resolve().parent.parent}, corpus of {tables}")
    with tempfile.TemporaryDirectory(prefix="jembatan-corpus-") as directory:
        scores = [corpus.score(case, Path(directory)) for case in corpus.cases(tables)]
    print(corpus.report(scores, misses=not args.quiet))


if __name__ == "__main__":
    main()
