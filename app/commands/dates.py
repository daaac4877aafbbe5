"""Dates a plant writes as text (`24/11/2026`, `24-11-26`, `20261124`), read as dates in each
engine's words for draft-mapping: the forms app/commands/sampling.py recognises in a sample of
the values (TEXT_DATE_FORMS), and for each the SQL that converts it.

On SQL Server (the main text) CONVERT with the style of the form: 103 dd/mm/yyyy, 105
dd-mm-yyyy, 112 yyyymmdd, 3 dd/mm/yy, 5 dd-mm-yy, documented since SQL Server 2005 and read
alike whatever the login's language or DATEFORMAT (which CAST of such text obeys); Babelfish
reads them alike (tests/test_draft_mapping.py runs each there). Two-digit years follow the
server's `two digit year cutoff` (by default 1950 to 2049). On PostgreSQL to_date with the
pattern; on SQLite, which has no date type, the parts cut out into ISO order (`yy` put in
this century).

A date read from text is computed for every row a range reads: no index on the column serves
it. The draft says so on its line.
"""

from __future__ import annotations

from typing import NamedTuple


class TextDate(NamedTuple):
    style: int  # SQL Server's CONVERT style
    postgresql: str  # to_date's pattern
    day: int  # where the day, month and year start (1-based) and the year's length
    month: int
    year: int
    year_digits: int


TEXT_DATES: dict[str, TextDate] = {
    "dd/mm/yyyy": TextDate(103, "DD/MM/YYYY", 1, 4, 7, 4),
    "dd-mm-yyyy": TextDate(105, "DD-MM-YYYY", 1, 4, 7, 4),
    "dd/mm/yy": TextDate(3, "DD/MM/YY", 1, 4, 7, 2),
    "dd-mm-yy": TextDate(5, "DD-MM-YY", 1, 4, 7, 2),
    "yyyymmdd": TextDate(112, "YYYYMMDD", 7, 5, 1, 4),
}
NO_INDEX = "no index serves a date read from text (docs/adapting.md \"Dates kept as text\")"


def text_date_sql(form: str, column: str, dialect: str | None) -> str:
    """The SQL that reads the quoted `column`, text in `form`, as a date on the engine whose
    `-- dialect:` is `dialect` (None: SQL Server)."""
    d = TEXT_DATES[form]
    if dialect == "sqlite":
        century = "'20' || " if d.year_digits == 2 else ""
        return (f"date({century}substr({column}, {d.year}, {d.year_digits}) || '-' || "
                f"substr({column}, {d.month}, 2) || '-' || substr({column}, {d.day}, 2))")
    if dialect == "postgresql":
        return f"to_date({column}, '{d.postgresql}')"
    return f"CONVERT(date, {column}, {d.style})"
