"""The WSGI entry point: `gunicorn wsgi:app`, `flask --app wsgi ...` (as `jembatan serve`
builds it: a setting or mapping file to mend ends the start with one line, not a traceback)."""

from app.console.serving import application

app = application()
