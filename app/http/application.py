"""The Flask application class Jembatan runs: its JSON (keys in the record shape's order,
UTF-8, compact) and its cache of sync functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider


class JsonProvider(DefaultJSONProvider):
    sort_keys = False  # keys in the record shape's order (docs/api.md §4)
    ensure_ascii = False  # UTF-8 text as it is, not \\u escapes
    compact = True

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("separators", (",", ":"))
        return super().dumps(obj, **kwargs)


class Application(Flask):
    """Flask, remembering which functions are sync: it asks inspect about every handler and
    view on every request (a dozen calls, the cost of a whole SQLite lookup)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync[func]
        except KeyError:
            sync = super().ensure_sync(func)
            if len(self._sync) < 1024:  # bounded: a per-request closure is not kept
                self._sync[func] = sync
            return sync
        except TypeError:  # an unhashable callable: as Flask does it
            return super().ensure_sync(func)


