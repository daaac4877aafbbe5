"""`--config FILE`, the same option on every command of `jembatan`:
it names the settings file through JEMBATAN_CONFIG, which load_settings reads when the app is
built, in this process and in the processes it starts (gunicorn's workers inherit it)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

CONFIG_VARIABLE = "JEMBATAN_CONFIG"
# Set in a ScriptInfo's `data` when its app would be built from the settings (the `jembatan`
# command), not handed in built (a test's app.test_cli_runner()): a command that needs only
# the settings (draft-mapping) then reads them itself and builds no app.
FROM_SETTINGS = "jembatan.app_from_settings"
F = TypeVar("F", bound=Callable[..., Any])


def _use(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        os.environ[CONFIG_VARIABLE] = str(value.resolve())


def config_option(command: F) -> F:
    """Add --config to a click command (eager: it is set before any other option is read)."""
    return click.option(
        "--config", type=click.Path(exists=True, dir_okay=False, path_type=Path),
        expose_value=False, is_eager=True, callback=_use,
        help="The settings file (TOML). Default: $JEMBATAN_CONFIG, else ./config.toml, "
             "else the built-in defaults (the demo database).")(command)
