"""The Flask application class Jembatan runs: its JSON (keys in the record shape's order,
UTF-8, compact) and its cache of sync functions."""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider

from .patches import SyncCached


class JsonProvider(DefaultJSONProvider):
    sort_keys = False  # keys in the record shape's order (docs/api.md §4)
    ensure_ascii = False  # UTF-8 text as it is, not \\u escapes
    compact = True

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("separators", (",", ":"))
        return super().dumps(obj, **kwargs)


class Application(SyncCached):
    """The Flask application of Jembatan (its departures from Flask: app/http/patches.py)."""
