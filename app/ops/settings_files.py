"""The files written from the settings' declarations (SETTINGS of app/ops/config.py):
config.example.toml and the table of keys in docs/api.md §12.

`python -m app.ops.settings_files` (`make settings-files`) writes both in the checkout;
tests/test_config.py fails while either differs from what the declarations give.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .config import SETTINGS, UNSET, Setting

ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout, above app/
EXAMPLE = ROOT / "config.example.toml"
API_DOC = ROOT / "docs" / "api.md"
TABLE_HEAD = "| key | type | default | meaning |\n|---|---|---|---|\n"
WIDTH = 94  # columns of the example's comments
# A line of a note kept whole, as written: a quoted string (a connection string to copy) or
# a line of TOML (a commented example).
VERBATIM = re.compile(r'"|\[|[a-z_]+ = ')

HEAD = ("Jembatan's configuration. Copy to config.toml (read from the working directory) or "
        "point JEMBATAN_CONFIG at your copy. Every key is optional; the values below are the "
        "defaults. Relative paths resolve against this file's directory. {envs} override the "
        "file. An unknown key is an error at start. This file is written from the settings' "
        "declarations in app/ops/config.py: `make settings-files`.")


def toml_value(value: Any) -> str:
    """A value as TOML writes it on one line: a string, number, boolean or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def comment(text: str) -> list[str]:
    """`text` as comment lines: each line of it wrapped to WIDTH, long words kept whole, a
    VERBATIM one as it is."""
    return [f"# {part}" if part else "#" for line in text.split("\n")
            for part in ([line] if VERBATIM.match(line) else textwrap.wrap(
                line, WIDTH - 2, break_long_words=False, break_on_hyphens=False)) or [""]]


def example_lines(setting: Setting) -> list[str]:
    """One setting in config.example.toml: its note, then its value (a table: a header and
    a line per entry)."""
    value = setting.default if setting.example is UNSET else setting.example
    if setting.kind is dict:
        entries = [f"{key} = {toml_value(v)}" for key, v in dict(value).items()]
        return ["", *comment(setting.note), f"[{setting.name}]", *entries]
    return [*comment(setting.note), f"{setting.key} = {toml_value(value)}"]


def example_file(settings: tuple[Setting, ...] = SETTINGS) -> str:
    """config.example.toml: every key with its note, in the order declared, table by table."""
    envs = [s.env for s in settings if s.env]
    lines = comment(HEAD.format(envs=", ".join(envs[:-1]) + f" and {envs[-1]} (lists "
                                "comma-separated)"))
    section = ""
    for setting in settings:
        if setting.section != section:
            section = setting.section
            lines += ["", f"[{section}]"]
        lines += example_lines(setting)
    return "\n".join(lines) + "\n"


def shown(setting: Setting) -> str:
    """A setting's default in docs/api.md §12: as declared, else its TOML in backticks."""
    return setting.shown or f"`{toml_value(setting.default)}`"


def settings_table(settings: tuple[Setting, ...] = SETTINGS) -> str:
    """The table of keys in docs/api.md §12: a row per setting, in the order declared."""
    return TABLE_HEAD + "".join(f"| `{s.name}` | {s.typed} | {shown(s)} | {s.help} |\n"
                                for s in settings)


def with_table(document: str, table: str) -> str:
    """docs/api.md with `table` in place of its table of keys (from its head to the first
    blank line after it)."""
    start = document.index(TABLE_HEAD)
    end = document.index("\n\n", start) + 1
    return document[:start] + table + document[end:]


def written() -> Mapping[Path, str]:
    """Each file written from the declarations, and what it should hold."""
    return {EXAMPLE: example_file(),
            API_DOC: with_table(API_DOC.read_text(encoding="utf-8"), settings_table())}


def main() -> int:
    """Write config.example.toml and docs/api.md §12's table; say which changed."""
    for path, text in written().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
