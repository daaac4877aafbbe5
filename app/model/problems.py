"""What a read can answer instead of records, whoever asked: `Invalid` (the read was asked
wrongly: the message says what was wrong and what is accepted) and `Absent` (no such
record). The HTTP face answers them 400 and 404, the MCP face as tool errors, both from the
table of app/core/outcomes.py. This module imports nothing.
"""

from __future__ import annotations

__all__ = ["Absent", "Invalid"]


class Invalid(ValueError):
    """A read asked wrongly; `argument` names the query argument at fault, when one is."""

    def __init__(self, message: str, argument: str | None = None):
        super().__init__(message)
        self.message, self.argument = message, argument


class Absent(LookupError):
    """No record with the key asked for."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
