"""gunicorn's settings for Jembatan: read by `gunicorn wsgi:app` from the working directory
(or given with `-c /path/to/gunicorn.conf.py`). `jembatan serve` gives gunicorn the same
settings itself, from the same table.

The table is app/ops/gunicorn_hooks.py's SETTINGS (2 workers of 4 threads, timeouts, worker
recycling; why those, in docs/deploy.md, section 2); the hooks there answer gunicorn's own
error pages (414, 431, 400 for a request that is not HTTP) as JSON, and keep one metrics
directory for all workers, made here before any worker starts and removed at exit. Flags on
the command line (--workers, --threads, --bind, --timeout) still apply; `--threads 1` gives
gunicorn's sync worker back.
"""

from gunicorn.config import KNOWN_SETTINGS

from app.ops.gunicorn_hooks import metrics_directory, settings

metrics_directory()  # PROMETHEUS_MULTIPROC_DIR, before a worker imports prometheus_client

globals().update(settings({s.name for s in KNOWN_SETTINGS}))
