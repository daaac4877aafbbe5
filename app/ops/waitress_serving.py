"""Serving under waitress: one process of threads, where gunicorn cannot run (Windows)."""

from __future__ import annotations

from typing import Any


def serve(application: Any, host: str, port: int, threads: int) -> None:
    """Serve `application` on host:port with `threads` threads until stopped."""
    import waitress

    waitress.serve(application, host=host, port=port, threads=threads)
