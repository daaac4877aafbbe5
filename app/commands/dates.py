"""Dates a plant writes as text (`24/11/2026`, `24-11-26`, `20261124`), read as dates in each
engine's words for draft-mapping: the forms app/commands/sampling.py recognises in a sample of
the values (TEXT_DATE_FORMS), and for each the SQL that converts it.

On SQL Server (the main text) the parts are cut out into yyyymmdd and read with CONVERT's
style 112, the form SQL Server reads alike whatever the login's language or DATEFORMAT. Not
CONVERT(date, col, 103) (dd/mm/yyyy), 105 or 3: SQL Server documents those styles, but
Babelfish (the T-SQL server of the tests) ignores a style when it reads a date from text and
reads '05/01/2026' as 1 May, refusing '24/11/2026'; the cut-out form is right on both
(tests/test_draft_mapping.py, test_text_dates_on_each_engine). Two-digit years are put in
this century ('20' before them), not left to the server's `two digit year cutoff` (SQL
Server's 1950 to 2049, Babelfish's otherwise). On PostgreSQL to_date with the pattern; on
SQLite, which has no date type, the same cut-out into ISO order.

A date and a time of day in one text ('24/11/2026 07:05:00') give the date as above and the
time from the text after it (SUBSTRING, substr on SQLite), cast to time.

A date read from text is computed for every row a range reads: no index on the column serves
it. The draft says so on its line.
"""

from __future__ import annotations

from typing import NamedTuple


class TextDate(NamedTuple):
    style: int  # SQL Server's CONVERT style for the form (documented; not used: see above)
    postgresql: str  # to_date's pattern
    day: int  # where the day, month and year start (1-based) and the year's length
    month: int
    year: int
    year_digits: int
    length: int  # the date's characters (a time of day may follow after a space)


TEXT_DATES: dict[str, TextDate] = {
    "dd/mm/yyyy": TextDate(103, "DD/MM/YYYY", 1, 4, 7, 4, 10),
    "dd-mm-yyyy": TextDate(105, "DD-MM-YYYY", 1, 4, 7, 4, 10),
    "dd/mm/yy": TextDate(3, "DD/MM/YY", 1, 4, 7, 2, 8),
    "dd-mm-yy": TextDate(5, "DD-MM-YY", 1, 4, 7, 2, 8),
    "yyyymmdd": TextDate(112, "YYYYMMDD", 7, 5, 1, 4, 8),
}
NO_INDEX = "no index serves a date read from text (docs/adapting.md \"Dates kept as text\")"


def text_time_sql(form: str, column: str, dialect: str | None) -> str:
    """The SQL that reads the time of day after the date of a text in `form`
    ('24/11/2026 07:05:00': from the 12th character), as a time."""
    start = TEXT_DATES[form].length + 2
    if dialect == "sqlite":
        return f"time(substr({column}, {start}, 8))"
    return f"CAST(SUBSTRING({column}, {start}, 8) AS time)"


def text_date_sql(form: str, column: str, dialect: str | None, full_text: bool = False
                  ) -> str:
    """The SQL that reads the quoted `column`, text in `form`, as a date on the engine whose
    `-- dialect:` is `dialect` (None: SQL Server); `full_text`: a time follows the date."""
    d = TEXT_DATES[form]
    if dialect == "postgresql":  # the date's characters alone: to_date reads no time
        return f"to_date(SUBSTRING({column}, 1, {d.length}), '{d.postgresql}')" \
            if full_text else f"to_date({column}, '{d.postgresql}')"
    cut, join, sep = ("substr", " || ", " || '-' || ") if dialect == "sqlite" else (
        "SUBSTRING", " + ", " + ")
    century = f"'20'{join}" if d.year_digits == 2 else ""
    ordered = (f"{century}{cut}({column}, {d.year}, {d.year_digits}){sep}"
               f"{cut}({column}, {d.month}, 2){sep}{cut}({column}, {d.day}, 2)")
    return f"date({ordered})" if dialect == "sqlite" else f"CONVERT(date, {ordered}, 112)"
