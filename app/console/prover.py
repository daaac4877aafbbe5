"""The proof at start: a process that gunicorn's master starts once it listens
(app/ops/gunicorn_hooks.py `when_ready`, and again on a reload), which builds the app as a
worker does and proves every served collection in turn, keeping each verdict
(app/core/verdicts.py) for the workers. A worker replaced every thousand requests may not
live long enough to finish a long proof; this process lives as long as the master. While
the database cannot be reached it tries again every RETRY seconds; it ends when every
collection is decided, or when its master is gone.

    python -m app.console.prover     (with the master's environment: JEMBATAN_CONFIG)
"""

from __future__ import annotations

import logging
import os
import time

from ..core.services import services
from ..core.unmapped import Proving
from .serving import application

log = logging.getLogger("jembatan")

RETRY = 30  # seconds between tries while the database cannot be reached


def main() -> None:
    """Prove every served collection and keep the verdicts; log what was decided."""
    master = os.getppid()
    logging.disable(logging.WARNING)  # the start's lines are the workers' to say, not again
    try:
        proving = services(application()).proving
    finally:
        logging.disable(logging.NOTSET)
    if not isinstance(proving, Proving):
        return  # prove_on_first_read = false
    proving.by = "the proof at start"
    log.info("the proof at start (pid %d) proves %s", os.getpid(),
             ", ".join(proving.pending) or "nothing: every collection is decided")
    while True:
        proving.prove_all()
        if not proving.pending or os.getppid() != master:
            return
        time.sleep(RETRY)


if __name__ == "__main__":
    main()
