"""gunicorn's settings for Jembatan: read by `gunicorn wsgi:app` from the working directory
(or given with `-c /path/to/gunicorn.conf.py`). The hooks are in app/ops/gunicorn_hooks.py:
gunicorn's own error pages (414, 431, 400 for a request that is not HTTP) answered as JSON, and one
metrics directory for all workers, made here before any worker starts and removed at exit.
Flags on the command line (--workers, --threads, --bind, --timeout) still apply;
`--threads 1` gives gunicorn's sync worker back.
"""

from app.ops.gunicorn_hooks import (  # noqa: F401 (gunicorn reads these names as its hooks)
    child_exit,
    metrics_directory,
    on_exit,
    on_starting,
    post_worker_init,
)

metrics_directory()  # PROMETHEUS_MULTIPROC_DIR, before a worker imports prometheus_client

# The shape `make run` and docs/deploy.md use: 2 worker processes of 4 threads each (more than
# one thread makes gunicorn use its gthread worker). Measured against 1, 2 and 4 sync workers
# and 1 x 8 and 2 x 8 threads by `make bench-shape` (bench/RESULTS.md, "Production shape";
# 2 cores, sqlite3 and pyodbc, 1 to 64 clients): one sync worker answered nobody while one
# client downloaded the whole table; at 64 clients 2 x 4 answered more rows by id than any
# sync shape; 2 x 8 was not consistently better and opens twice the database sessions. Deep
# pages went the other way (2 or 4 sync workers answered more of them), and a sync worker's
# --timeout covers a whole export. The trade-off, and when to change it: docs/deploy.md,
# section 2.
workers = 2
threads = 4
