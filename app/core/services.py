"""What the factory builds once per app and every part of it reads: the settings, the
database and its runner, the metrics, the collections served and what is known of their
mapping, and the MCP face's server. One frozen object, kept on the app by create_app and
read through `services(app)`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..database.db import Database
from ..model.collections import Collection
from ..ops.config import Settings
from ..ops.metrics import Metrics
from .mapped import Checks
from .reads import Runner
from .unmapped import Proving, Unmapped

__all__ = ["KEY", "Services", "services"]

KEY = "jembatan"  # the app's extensions entry that holds its Services


class HasExtensions(Protocol):
    """An app (a Flask one; the core does not import Flask): its extensions."""

    extensions: dict[str, Any]


@dataclass(frozen=True)
class Services:
    """The app's parts, built by create_app (app/__init__.py)."""

    settings: Settings
    db: Database  # for the commands; the faces read through the runner
    runner: Runner
    metrics: Metrics
    collections: tuple[Collection, ...]  # those served (collections.serve)
    unmapped: Unmapped
    proving: Proving | None  # None: database.prove_on_first_read = false
    mcp: Any  # the MCP face's server (app/mcp/protocol.py `Server`), above the core
    checks: Checks | None = None  # the mapping's check at its pace (app/core/mapped.py)


def services(app: HasExtensions) -> Services:
    """The Services create_app kept on `app`."""
    found = app.extensions[KEY]
    if not isinstance(found, Services):
        raise TypeError(f"app.extensions[{KEY!r}] is not a Services")
    return found
