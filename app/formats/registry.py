"""The output formats (docs/api.md §4, §5.8): one registry, an entry each.

An entry says what a client asks for (`?format=` and the media type of `Accept:`), the file
extension of a download, and how records and summaries are written: by a writer made for
each response, as the head, the parts and the tail of a stream, or whole (the same three
joined). Records (app/formats/encoding.py RecordEncoder) and summaries
(app/core/summaries.py SummaryEncoder) offer the same encoder methods, so one entry writes both.
Adding a format is one entry here, its encoder methods, its tests and its docs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Protocol

from . import xlsx
from .headings import Headings

__all__ = ["DEFAULT", "FORMATS", "FORMULA_STARTS", "Encoder", "Format", "Writer", "descriptions",
           "inert", "noted"]

Values = list[tuple[Any, ...]]
Fields = Sequence[str] | None


class Encoder(Protocol):
    """What RecordEncoder and SummaryEncoder both offer."""

    output: list[str]  # every column as sent, in order
    headings: Headings  # a workbook's headings and the columns it leaves out

    def json(self, values: Values, fields: Fields = None) -> bytes: ...
    def csv(self, values: Values, fields: Fields = None) -> str: ...
    def csv_header(self, fields: Fields = None) -> str: ...
    def kinds(self, fields: Fields = None) -> list[str]: ...


class Writer(Protocol):
    """One response's body in a format: what comes before the records, each batch of them
    (first: True for the first), and what ends it, asked for only when every batch was read.
    A writer may keep state from batch to batch (an Excel workbook's row count and zip
    offsets), so each response gets its own."""

    def head(self) -> bytes: ...
    def part(self, values: Values, first: bool) -> bytes: ...
    def tail(self) -> bytes: ...


@dataclass(frozen=True)
class Format:
    name: str  # the ?format= value
    media_type: str  # Content-Type, and what Accept: names to ask for it
    extension: str | None  # a download's file name ends .<extension>; None: shown inline
    doc: str  # what each operation's description says of it ("" for the default)
    # A new writer for one response: (encoder, fields, the records' name: the collection,
    # or "summary") -> its writer.
    writer: Callable[[Encoder, Fields, str], Writer]
    bare_one: bool = False  # a record by key is one part alone (JSON: the object, no array)
    # A clerk's figures (a workbook): a list or a range leaves cancelled records out unless
    # a filter names them (docs/api.md §6.3), as summaries do in every format.
    figures: bool = False
    # Asked for by Accept: as well as by ?format= (False: by name only, as its media type is
    # another entry's).
    negotiated: bool = True

    def filename(self, stem: str) -> str:
        return f"{stem}.{self.extension}"

    def whole(self, encoder: Encoder, values: Values, fields: Fields, name: str,
              notes: Sequence[tuple[Any, ...]] = ()) -> bytes:
        """A whole body of records, by the same writer as a stream (`notes`: as `noted`)."""
        writer = noted(self.writer(encoder, fields, name), notes)
        return b"".join((writer.head(), writer.part(values, True), writer.tail()))

    def one(self, encoder: Encoder, values: Values, fields: Fields, name: str) -> bytes:
        """The body of one record by key."""
        if self.bare_one:
            return self.writer(encoder, fields, name).part(values, True)
        return self.whole(encoder, values, fields, name)


class _JsonWriter:
    """A JSON array: `[`, the records' objects joined by commas, `]`."""

    def __init__(self, encoder: Encoder, fields: Fields, name: str):
        self.encoder, self.fields = encoder, fields

    def head(self) -> bytes:
        return b"["

    def part(self, values: Values, first: bool) -> bytes:
        items = self.encoder.json(values, self.fields)[1:-1]
        return items if first else b"," + items

    def tail(self) -> bytes:
        return b"]"


class _CsvWriter:
    """A header row of the field names, then each record's line."""

    def __init__(self, encoder: Encoder, fields: Fields, name: str):
        self.encoder, self.fields = encoder, fields

    def head(self) -> bytes:
        return self.encoder.csv_header(self.fields).encode()

    def part(self, values: Values, first: bool) -> bytes:
        return self.encoder.csv(values, self.fields).encode()

    def tail(self) -> bytes:
        return b""


# OWASP's "CSV Injection": a spreadsheet program reads a cell that begins with one of these as
# a formula (or, for a tab or a carriage return, drops what hides the formula behind it); and,
# a precaution beyond OWASP's list, their full-width forms (＝＋－＠), which a program that folds
# full-width input to ASCII would read the same (LibreOffice 7.4 shows them as text).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Where a spreadsheet program may begin a cell inside a text value, besides its start: the
# separators a CSV file is opened with (a semicolon in Excel under a `;` list separator, as in
# Indonesian and most European Windows; a tab or a semicolon ticked in LibreOffice's import),
# and the line ends: split there, the file's quotes no longer hold, so a line break inside a
# quoted value ends a row. A comma is not among them:
# a value holding one is quoted (RFC 4180), which both programs honour whenever a comma
# separates.
CELL_BREAKS = ";\t\r\n"
# A cell's start may be followed by blanks (LibreOffice's "Trim spaces" drops them) and double
# quotes (a quoted cell is read as one unquoted) before its formula.
_FORMULA_AHEAD = "[ \"]*[" + re.escape("".join(FORMULA_STARTS)) + "]"
_FORMULA_CELL = re.compile(f"(^|[{re.escape(CELL_BREAKS)}])(?={_FORMULA_AHEAD})")


def noted(writer: Writer, notes: Sequence[tuple[Any, ...]]) -> Writer:
    """`writer`, told what the figures leave out (a row per reason, xlsx.NOTE_HEADINGS)
    where its format says it in the body: a workbook, on a sheet of its own. JSON and CSV
    say it in a header alone (app/http/answers.py), so that their bodies stay the records."""
    if notes and isinstance(writer, xlsx.Workbook):
        writer.notes = list(notes)
    return writer


def inert(text: str) -> str:
    """Text a spreadsheet program shows as text, whatever separator it opens the CSV with:
    OWASP's single quote at each place a cell may begin (the start, after a CELL_BREAKS
    character) where, after any blanks and double quotes, a formula would begin; the text
    otherwise unchanged."""
    return _FORMULA_CELL.sub(r"\1'", text)


class _SheetCsvWriter(_CsvWriter):
    """CSV for people (docs/api.md §5.8): the CSV above, but every value of a text column
    made inert; numbers, dates and booleans as they are."""

    def __init__(self, encoder: Encoder, fields: Fields, name: str):
        super().__init__(encoder, fields, name)
        # A batch's values are in the order of encoder.output, whatever `fields` picks: the
        # positions there of the text columns sent.
        names = list(fields or encoder.output)
        self.texts = [encoder.output.index(n)
                      for n, kind in zip(names, encoder.kinds(names), strict=True)
                      if kind == "text"]

    def part(self, values: Values, first: bool) -> bytes:
        # Most batches hold no such text: each column is looked at once at C speed, and
        # a batch without one goes to the CSV writer as it came (its fast path).
        hit = [i for i in self.texts if _may_begin_a_formula(map(itemgetter(i), values))]
        if not hit:
            return super().part(values, first)
        made = list(values)
        for i in hit:  # the rows that hold such a text in this column, each made anew
            for j, value in enumerate(map(itemgetter(i), values)):
                if type(value) is str and (_FORMULA_FIRST.match(value)
                                           or _FORMULA_AFTER_BREAK.search(value)):
                    row = list(made[j])
                    row[i] = inert(value)
                    made[j] = tuple(row)
        return super().part(made, first)


def _may_begin_a_formula(column: Iterable[Any]) -> bool:
    """Whether a text column's values (str or None) may hold one in which a cell may begin
    a formula (inert): a search of them joined, at C speed (a NUL inside a value may answer
    True wrongly, which only costs the exact look of part)."""
    try:
        joined = "\0".join(filter(None, column))
    except TypeError:  # a value that is not text: look at each
        return True
    return (_FORMULA_AFTER_BREAK.search(joined) is not None
            or _FORMULA_FIRST.match(joined) is not None)


# Two patterns, not one with `(?:^|…)`: a search that begins with a set of characters scans
# for them at C speed, about three times as fast as one that begins with an alternative
# (bench/sheet_csv.py).
_FORMULA_AFTER_BREAK = re.compile(f"[\0{re.escape(CELL_BREAKS)}]{_FORMULA_AHEAD}")
_FORMULA_FIRST = re.compile(_FORMULA_AHEAD)


JSON = Format(name="json", media_type="application/json", extension=None, doc="",
              writer=_JsonWriter, bare_one=True)

# Every record endpoint also answers CSV and Excel, yet the document lists only JSON under
# 200 and leaves `format` out of the parameters (app/http/routes.py UNDOCUMENTED): a 200 with two
# media types makes generated clients type the body `Weighing[] | string`, and a client that
# can ask for format=csv gets a body it cannot parse as the type it was given. CSV and Excel
# are for spreadsheets and plain HTTP; each operation's description says how to ask.
CSV = Format(
    name="csv", media_type="text/csv", extension="csv",
    doc="""
CSV: `?format=csv` or `Accept: text/csv` gives the same answer as text/csv (a header row of
the field names, then one row per record or group, RFC 4180 quoting, values as in JSON, NULL
as an empty cell; `?format=json` wins over Accept). Not among the responses documented here,
so that generated clients keep the JSON type: fetch CSV over plain HTTP.""",
    writer=_CsvWriter)

SHEET_CSV = Format(
    name="csv-sheet", media_type="text/csv", extension="csv", negotiated=False,
    doc="""
CSV to open in a spreadsheet: `?format=csv-sheet` (by name only; `Accept: text/csv` is the
CSV above) gives that CSV with a single quote in a text value wherever a cell would begin a
formula (`=`, `+`, `-`, `@`, a tab or a carriage return): at its start (`'=1+1`) and after a
`;`, a tab or a line break inside it (`a;'=1+1`), where Excel under a `;` list separator
begins a cell; so that Excel or LibreOffice shows it as text instead of running it as a
formula, with a `,` or a `;` list separator. Numbers, dates and booleans are as in the CSV
above. A program reads `format=csv`, which sends every value exactly as stored.""",
    writer=_SheetCsvWriter)


def _workbook(encoder: Encoder, fields: Fields, name: str) -> Writer:
    """The columns asked for, or all but those the site maps to NULL, headed by the site's
    labels (app/formats/headings.py)."""
    names = encoder.headings.columns(encoder.output, fields)
    positions = None if names == encoder.output else [encoder.output.index(n) for n in names]
    return xlsx.Workbook(names, encoder.kinds(names), name, positions,
                         encoder.headings.of(names))


XLSX = Format(
    name="xlsx", media_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    extension="xlsx",
    doc="""
Excel: `?format=xlsx` or `Accept:
application/vnd.openxmlformats-officedocument.spreadsheetml.sheet` gives the same answer as an
Excel workbook: one sheet named after the collection (or `summary`), row 1 the site's label of
each column (bold, frozen, with an autofilter; the fields the site maps to NULL are left out
unless `fields` names them), then one row per record or group with typed cells:
integers and numbers as numbers; booleans as TRUE and FALSE; dates, times and date-times as
Excel dates shown `yyyy-mm-dd`, `hh:mm:ss`, `yyyy-mm-dd hh:mm:ss` (with `.000` when the value
has a fraction of a second); text exactly as stored, never a formula; NULL as an empty cell.
Past 1,048,575 records a sheet ends and the records go on in the next (`transactions (2)`),
with its own header row. A workbook of weighings leaves cancelled tickets out unless
`?cancelled=` names them (`true` or `all`); what a workbook leaves out (cancelled tickets,
records with no main date, or missing a weight) is counted in its X-Left-Out header and, when
any is, on a last sheet `left out`. Not among the responses documented here: fetch it over
plain HTTP.""",
    writer=_workbook, figures=True)

FORMATS: dict[str, Format] = {f.name: f for f in (JSON, CSV, SHEET_CSV, XLSX)}
DEFAULT = JSON


def descriptions() -> tuple[str, ...]:
    """What the operations' descriptions say of the formats beside the default."""
    return tuple(f.doc for f in FORMATS.values() if f.doc)
