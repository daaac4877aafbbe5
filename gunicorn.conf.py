"""gunicorn's settings for Jembatan: read by `gunicorn wsgi:app` from the working directory
(or given with `-c /path/to/gunicorn.conf.py`). The hooks are in app/serving.py: gunicorn's
own error pages (414, 431, 400 for a request that is not HTTP) answered as JSON, and one
metrics directory for all workers, made here before any worker starts and removed at exit.
Flags on the command line (--workers, --threads, --bind, --timeout) still apply.
"""

from app.serving import (  # noqa: F401 (gunicorn reads these names as its hooks)
    child_exit,
    metrics_directory,
    on_exit,
    on_starting,
    post_worker_init,
)

metrics_directory()  # PROMETHEUS_MULTIPROC_DIR, before a worker imports prometheus_client
