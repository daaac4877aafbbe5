"""The WSGI entry point: `gunicorn wsgi:app`, `flask --app wsgi ...`."""

import sys

from app import create_app
from app.database.queries import QueryFileError
from app.ops.config import ConfigError

try:
    app = create_app()
except (ConfigError, QueryFileError) as exc:
    # A setting or a mapping file for the operator to mend: its words, not a traceback.
    sys.exit(f"jembatan: {exc}")
