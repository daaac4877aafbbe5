"""Excel workbooks (docs/api.md §5.8): a small streaming writer of .xlsx.

A workbook is a zip of XML parts. `Workbook` writes it as a stream that never goes back: the
zip module writes to a sink that cannot seek, so each entry's sizes and CRC follow its data
(a data descriptor) and nothing is rewritten. The sheets come first, one row after another
as the batches arrive; the parts that list the sheets (workbook.xml, its relationships,
[Content_Types].xml) and the styles come last, once the number of sheets is known. Memory
holds one batch and the deflater's window, whatever the size.

Cells are typed by their column's kind (the encoders' `kinds`): integers and numbers as
numbers, booleans as Excel's TRUE and FALSE (a cell of type b), dates, times and date-times
as Excel serial numbers with a display format, text as
inline strings (never a formula: a cell only holds a formula in an <f> element, which is
never written), NULL as no cell at all. The values arrive as JSON sends them (docs/api.md §4),
so a date is ISO text here and is converted.

The row XML is built column by column, each column by one list comprehension of its kind
(see _column), with no function call per cell for integers, numbers and plain text; a
column's texts are checked for what needs escaping in one search over them all. Dates and
times are converted once per distinct value of a batch (a batch holds a day or two).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import zipfile
from collections.abc import Callable, Sequence
from decimal import Decimal
from itertools import chain, repeat
from typing import Any
from xml.sax.saxutils import quoteattr

from .encoding import decimal_text

__all__ = ["MAX_ROWS", "MAX_SHEET_BYTES", "NOTE_HEADINGS", "NOTE_SHEET", "Workbook"]

MAX_ROWS = 1_048_576  # Excel's rows in a sheet, its header row included
# A sheet's XML stays under the 4 GiB a zip entry holds without ZIP64 (whose extra fields in
# a streamed entry make Excel offer to repair the file): past it the records go on in the
# next sheet, as they do past MAX_ROWS. A batch is far smaller than the margin.
MAX_SHEET_BYTES = 0xFFFF_FFFF - (256 << 20)
# zlib's fastest: 100,000 weighings' 195 MB of XML still shrink to 22 MB, and deflating
# them costs 0.4 s of the 2.5 s the workbook takes to write.
COMPRESS_LEVEL = 1
# Fixed zip timestamps: the same rows give the same bytes, so a whole body's ETag holds.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_EPOCH = dt.date(1899, 12, 30).toordinal()  # Excel's (1900 date system) day 0, in effect
# Before March 1900 Excel counts a 29 February 1900 that never was, and LibreOffice does
# not; before 1900 Excel has no dates at all. Such dates are sent as their ISO text.
_FIRST_DATE = dt.date(1900, 3, 1)
_NONE = type(None)
_NUMBERS = frozenset({int, float, _NONE})
_TEXTS = frozenset({str, _NONE})

# Cell styles (styles.xml cellXfs): their index is a cell's s="..".
_BOLD, _DATE, _TIME, _DATETIME, _TIME_MS, _DATETIME_MS = 1, 2, 3, 4, 5, 6
_NUMBER_FORMATS = ("yyyy-mm-dd", "hh:mm:ss", "yyyy-mm-dd hh:mm:ss", "hh:mm:ss.000",
                   "yyyy-mm-dd hh:mm:ss.000")  # numFmtId 164.., styles 2..6
# Column widths in characters: the values are not known when the columns are declared (at
# the top of a sheet), so a kind's usual width, or its name's with room for the filter button.
_WIDTHS = {"integer": 10, "count": 10, "number": 12, "boolean": 9, "date": 11, "time": 10,
           "datetime": 19, "text": 16}
_MAX_WIDTH = 40
# The sheet after the records that says what the figures leave out and why (docs/api.md §7,
# "What a summary leaves out"): one row per reason, under these headings.
NOTE_SHEET = "left out"
NOTE_HEADINGS = ("reason", "records", "left out of", "why", "list them")
_NOTE_KINDS = ("text", "integer", "text", "text", "text")

# Text that needs more than being put between <t> and </t>: XML's specials; \r (which an
# XML reader turns into \n); characters XML 1.0 cannot hold even as a reference, sent in
# ECMA-376's _xHHHH_ form (ST_Xstring), which Excel reads back as the character, so a
# literal _xHHHH_ is escaped too (its _ as _x005F_); and leading or trailing white space,
# which Excel strips unless the element says xml:space="preserve".
_CARE = re.compile(r"[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
                   r"|_x[0-9A-Fa-f]{4}_|^\s|\s\Z")
# The same looked for in a whole column at once, its texts joined by _JOIN (a character XML
# holds as it is; a text that has it only takes the slower way).
_JOIN = "\ue000"
_CARE_IN_JOINED = re.compile(r"[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
                             r"|_x[0-9A-Fa-f]{4}_|(?:^|\ue000)\s|\s(?:\ue000|\Z)")
_UNWRITABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
                         r"|_(?=x[0-9A-Fa-f]{4}_)")


def _xstring(match: re.Match[str]) -> str:
    return f"_x{ord(match.group()):04X}_"


def _t(text: str) -> str:
    """A text's <t> element, escaped (see _CARE)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
        "\r", "&#13;")
    text = _UNWRITABLE.sub(_xstring, text)
    if text[:1].isspace() or text[-1:].isspace():
        return f'<t xml:space="preserve">{text}</t>'
    return f"<t>{text}</t>"


def _text_cell(value: Any) -> str:
    """A cell's text after its r="..": a value as an inline string."""
    text = value if type(value) is str else str(value)
    body = _t(text) if _CARE.search(text) else f"<t>{text}</t>"
    return f' t="inlineStr"><is>{body}</is></c>'


def _number_cell(value: Any) -> str:
    if type(value) in (int, float) and math.isfinite(value):
        return f"><v>{value}</v></c>"
    if type(value) is Decimal and value.is_finite():  # a summary's weight, digit for digit
        return f"><v>{decimal_text(value)}</v></c>"
    return _text_cell(value)


def _date_cell(value: Any) -> str:
    try:
        day = dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        return _text_cell(value)
    if day < _FIRST_DATE:
        return _text_cell(value)
    return f' s="{_DATE}"><v>{day.toordinal() - _EPOCH}</v></c>'


def _seconds(clock: dt.time | dt.datetime) -> float:
    return clock.hour * 3600 + clock.minute * 60 + clock.second + clock.microsecond / 1e6


def _time_cell(value: Any) -> str:
    try:
        clock = dt.time.fromisoformat(value)
    except (TypeError, ValueError):
        return _text_cell(value)
    style = _TIME_MS if clock.microsecond else _TIME
    return f' s="{style}"><v>{_seconds(clock) / 86400!r}</v></c>'


def _datetime_cell(value: Any) -> str:
    try:
        moment = dt.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return _text_cell(value)
    if moment.date() < _FIRST_DATE or moment.tzinfo is not None:
        return _text_cell(value)
    style = _DATETIME_MS if moment.microsecond else _DATETIME
    serial = moment.toordinal() - _EPOCH + _seconds(moment) / 86400
    return f' s="{style}"><v>{serial!r}</v></c>'


_BY_VALUE = {"date": _date_cell, "time": _time_cell, "datetime": _datetime_cell}
# A whole second's "HH:MM:SS" (most times) in seconds from two small tables, of "HH:MM" and
# ":SS" (a text of any other form is in neither): the same figure as parsing it, and a time
# column's cells in two thirds of the time.
_MINUTES = {f"{h:02d}:{m:02d}": (h * 60 + m) * 60 for h in range(24) for m in range(60)}
_SECONDS = {f":{s:02d}": s for s in range(60)}


def _time_cells(values: set[Any]) -> dict[Any, str]:
    """_time_cell of each of these values."""
    try:
        return {v: f' s="{_TIME}"><v>{(_MINUTES[v[:5]] + _SECONDS[v[5:]]) / 86400!r}</v></c>'
                for v in values}
    except (KeyError, TypeError):  # a fraction of a second, or not a time: one by one
        return {v: _time_cell(v) for v in values}


def _column(kind: str, letter: str) -> Callable[[Sequence[Any], list[str]], list[str]]:
    """The cells of one column of a batch ('' for a NULL), given its rows' numbers."""
    if kind in _BY_VALUE:
        convert = _BY_VALUE[kind]

        def by_value(column: Sequence[Any], rows: list[str]) -> list[str]:
            given = set(column)
            given.discard(None)
            cells = _time_cells(given) if kind == "time" else {v: convert(v) for v in given}
            return [f'<c r="{letter}{n}"{cells[v]}' if v is not None else ""
                    for v, n in zip(column, rows, strict=True)]
        return by_value
    if kind == "boolean":
        def booleans(column: Sequence[Any], rows: list[str]) -> list[str]:
            return [f'<c r="{letter}{n}" t="b"><v>{1 if v else 0}</v></c>' if v is not None
                    else "" for v, n in zip(column, rows, strict=True)]
        return booleans
    if kind in ("integer", "count", "number"):
        def numbers(column: Sequence[Any], rows: list[str]) -> list[str]:
            if set(map(type, column)) <= _NUMBERS and _finite(column):
                return [f'<c r="{letter}{n}"><v>{v}</v></c>' if v is not None else ""
                        for v, n in zip(column, rows, strict=True)]
            return [f'<c r="{letter}{n}"{_number_cell(v)}' if v is not None else ""
                    for v, n in zip(column, rows, strict=True)]
        return numbers

    def texts(column: Sequence[Any], rows: list[str]) -> list[str]:
        if set(map(type, column)) <= _TEXTS and not _CARE_IN_JOINED.search(
                _JOIN.join(filter(None, column))):
            return [f'<c r="{letter}{n}" t="inlineStr"><is><t>{v}</t></is></c>'
                    if v is not None else "" for v, n in zip(column, rows, strict=True)]
        return [f'<c r="{letter}{n}"{_text_cell(v)}' if v is not None else ""
                for v, n in zip(column, rows, strict=True)]
    return texts


def _finite(column: Sequence[Any]) -> bool:
    """Whether a column of numbers and None holds no NaN or infinity (at C speed)."""
    try:
        return math.isfinite(math.fsum(filter(None, column)))
    except OverflowError:  # a sum beyond a float's range: each value is looked at
        return False


def column_letter(index: int) -> str:
    """A, B, ..., Z, AA, ... for 0, 1, ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def sheet_name(name: str, number: int) -> str:
    """The name of the workbook's `number`th sheet (from 1): `name`, then `name (2)`...,
    within Excel's 31 characters and without the characters it refuses in one."""
    name = re.sub(r"[\[\]:*?/\\]", "_", name).strip("'") or "sheet"
    suffix = f" ({number})" if number > 1 else ""
    return name[:31 - len(suffix)] + suffix


class _Sink:
    """What the zip module writes to: it cannot seek, so entries get data descriptors."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._chunks.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self._chunks)
        self._chunks.clear()
        return data


class _StreamedZip(zipfile.ZipFile):
    def __del__(self) -> None:
        """A workbook left midway (the client went away, or reading failed) is dropped as it
        is: closing it would complain of its open sheet, and write a directory nobody reads."""


class Workbook:
    """One response's workbook (app/formats/registry.py Writer): `head`, then `part` per batch of
    records (their values as sent, each a tuple in the encoder's output order), then `tail`;
    each returns the bytes of the zip written since the last call."""

    def __init__(self, names: Sequence[str], kinds: Sequence[str], title: str,
                 positions: Sequence[int] | None = None,
                 headings: Sequence[str] | None = None):
        """`names`: the columns (`positions`: where each is in a record's values, None when
        they are all of them in order); `headings`: what row 1 says of each, the names by
        default."""
        self.names, self.title = list(names), title
        self.positions = list(positions) if positions is not None else None
        letters = [column_letter(i) for i in range(len(self.names))]
        self._last_column = letters[-1] if letters else "A"
        self._columns = [_column(kind, letter) for kind, letter in zip(kinds, letters,
                                                                         strict=True)]
        self._top = _sheet_top(list(headings or self.names), kinds, letters)
        self._sink = _Sink()
        self._zip = _StreamedZip(self._sink, "w", zipfile.ZIP_DEFLATED)  # type: ignore[arg-type]
        self._sheet: Any = None  # the open sheet's zip entry
        self._rows: list[int] = []  # each sheet's rows so far, the header's included
        self._size = 0  # bytes of the open sheet's XML
        # What the figures leave out, a row per reason (NOTE_HEADINGS): written at the tail
        # on a sheet of their own, NOTE_SHEET, where there are any.
        self.notes: list[tuple[Any, ...]] = []

    def head(self) -> bytes:
        self._open_sheet()
        return self._sink.take()

    def part(self, values: Sequence[tuple[Any, ...]], first: bool) -> bytes:
        done = 0
        while done < len(values):
            room = MAX_ROWS - self._rows[-1]
            if room == 0:
                self._next_sheet()
                continue
            chunk = values[done:done + room]
            data = self._xml(chunk, self._rows[-1] + 1).encode("utf-8", "surrogatepass")
            if self._size + len(data) > MAX_SHEET_BYTES and self._rows[-1] > 1:
                self._next_sheet()  # its rows are numbered anew there
                continue
            self._write(data)
            self._rows[-1] += len(chunk)
            done += len(chunk)
        return self._sink.take()

    def tail(self) -> bytes:
        self._close_sheet()
        names = [sheet_name(self.title, n) for n in range(1, len(self._rows) + 1)]
        if self.notes:
            names.append(NOTE_SHEET)
            self._write_notes(len(names))
        for path, xml in _package(names, self._rows, self._last_column):
            with self._zip.open(_entry(path), "w") as entry:
                entry.write(xml.encode())
        self._zip.close()
        return self._sink.take()

    def _write_notes(self, number: int) -> None:
        """The sheet of what the figures leave out: its headings, then a row per reason."""
        letters = [column_letter(i) for i in range(len(NOTE_HEADINGS))]
        rows = list(map(str, range(2, len(self.notes) + 2)))
        cells = [_column(kind, letter)(column, rows) for kind, letter, column in
                 zip(_NOTE_KINDS, letters, zip(*self.notes, strict=True), strict=True)]
        body = "".join(chain.from_iterable(zip((f'<row r="{n}">' for n in rows), *cells,
                                               repeat("</row>"))))
        top = _sheet_top(NOTE_HEADINGS, _NOTE_KINDS, letters)(False)
        with self._zip.open(_entry(f"xl/worksheets/sheet{number}.xml"), "w") as entry:
            entry.write(f"{top}{body}</sheetData></worksheet>".encode("utf-8",
                                                                      "surrogatepass"))

    def _xml(self, values: Sequence[tuple[Any, ...]], first_row: int) -> str:
        """The <row> elements of these records, the first numbered `first_row`."""
        rows = list(map(str, range(first_row, first_row + len(values))))
        columns = list(zip(*values, strict=True))
        if self.positions is not None:
            columns = [columns[i] for i in self.positions]
        cells = [build(column, rows) for build, column in zip(self._columns, columns,
                                                                strict=True)]
        starts = [f'<row r="{n}">' for n in rows]
        return "".join(chain.from_iterable(zip(starts, *cells, repeat("</row>"))))

    def _open_sheet(self) -> None:
        self._rows.append(1)
        number = len(self._rows)
        self._sheet = self._zip.open(_entry(f"xl/worksheets/sheet{number}.xml"), "w")
        self._size = 0
        self._write(self._top(number == 1).encode())

    def _close_sheet(self) -> None:
        self._write(f'</sheetData><autoFilter ref="A1:{self._last_column}{self._rows[-1]}"/>'
                    "</worksheet>".encode())
        self._sheet.close()

    def _next_sheet(self) -> None:
        self._close_sheet()
        self._open_sheet()

    def _write(self, data: bytes) -> None:
        self._sheet.write(data)
        self._size += len(data)


def _entry(path: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info._compresslevel = COMPRESS_LEVEL  # type: ignore[attr-defined]  # (3.11: no setter)
    return info


_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def _sheet_top(names: Sequence[str], kinds: Sequence[str],
               letters: Sequence[str]) -> Callable[[bool], str]:
    """A sheet's XML up to its first record: the frozen first row, the column widths and the
    header row (each column's heading, bold); the first sheet is the one shown."""
    widths = "".join(
        f'<col min="{i}" max="{i}" width="{_width(name, kind)}" customWidth="1"/>'
        for i, (name, kind) in enumerate(zip(names, kinds, strict=True), 1))
    cols = f"<cols>{widths}</cols>" if widths else ""
    header = "".join(f'<c r="{letter}1" s="{_BOLD}"{_text_cell(name)}'
                     for letter, name in zip(letters, names, strict=True))

    def top(first: bool) -> str:
        selected = ' tabSelected="1"' if first else ""
        return (f'{_XML}<worksheet xmlns="{_MAIN}" xmlns:r="{_RELATIONSHIPS}"><sheetViews>'
                f'<sheetView{selected} workbookViewId="0">'
                '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
                '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView>'
                f'</sheetViews><sheetFormatPr defaultRowHeight="15"/>{cols}<sheetData>'
                f'<row r="1">{header}</row>')
    return top


def _width(name: str, kind: str) -> int:
    return min(max(_WIDTHS.get(kind, _WIDTHS["text"]), len(name) + 3), _MAX_WIDTH)


def _package(names: Sequence[str], rows: Sequence[int],
             last_column: str) -> list[tuple[str, str]]:
    """The parts written after the sheets: (path, XML) of the styles, the workbook (its
    sheets `names`, and the filters' ranges of the record sheets, whose rows are `rows`)
    and the package's relationships and content types."""
    count = len(names)
    sheets = "".join(f'<sheet name={quoteattr(name)} sheetId="{n}" r:id="rId{n}"/>'
                     for n, name in enumerate(names, 1))
    filters = "".join(
        f'<definedName name="_xlnm._FilterDatabase" localSheetId="{n}" hidden="1">'
        f"{_escape(_quoted(name))}!$A$1:${last_column}${last}</definedName>"
        for n, (name, last) in enumerate(zip(names[:len(rows)], rows, strict=True)))
    workbook = (f'{_XML}<workbook xmlns="{_MAIN}" xmlns:r="{_RELATIONSHIPS}"><bookViews>'
                f'<workbookView activeTab="0"/></bookViews><sheets>{sheets}</sheets>'
                f"<definedNames>{filters}</definedNames></workbook>")
    sheet_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
    relationship = f"{_RELATIONSHIPS}/worksheet"
    workbook_rels = "".join(
        f'<Relationship Id="rId{n}" Type="{relationship}" Target="worksheets/sheet{n}.xml"/>'
        for n in range(1, count + 1))
    overrides = "".join(f'<Override PartName="/xl/worksheets/sheet{n}.xml" '
                        f'ContentType="{sheet_type}"/>' for n in range(1, count + 1))
    return [
        ("xl/styles.xml", _STYLES),
        ("xl/workbook.xml", workbook),
        ("xl/_rels/workbook.xml.rels", f'{_XML}<Relationships xmlns="{_PACKAGE}">'
         f'{workbook_rels}<Relationship Id="rId{count + 1}" Type="{_RELATIONSHIPS}/styles" '
         'Target="styles.xml"/></Relationships>'),
        ("_rels/.rels", f'{_XML}<Relationships xmlns="{_PACKAGE}"><Relationship Id="rId1" '
         f'Type="{_RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>'),
        ("[Content_Types].xml", f'{_XML}<Types xmlns="{_CONTENT_TYPES}">'
         '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
         'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
         '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
         'officedocument.spreadsheetml.sheet.main+xml"/>'
         '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-'
         f'officedocument.spreadsheetml.styles+xml"/>{overrides}</Types>'),
    ]


def _quoted(name: str) -> str:
    """A sheet's name in a formula's reference: 'name', an apostrophe doubled."""
    return "'" + name.replace("'", "''") + "'"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_PACKAGE = "http://schemas.openxmlformats.org/package/2006/relationships"
_CONTENT_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
_FONT = '<sz val="11"/><name val="Calibri"/><family val="2"/>'
_STYLES = (
    f'{_XML}<styleSheet xmlns="{_MAIN}"><numFmts count="{len(_NUMBER_FORMATS)}">'
    + "".join(f'<numFmt numFmtId="{164 + i}" formatCode="{code}"/>'
              for i, code in enumerate(_NUMBER_FORMATS))
    + f'</numFmts><fonts count="2"><font>{_FONT}</font><font><b/>{_FONT}</font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>'
    f'</cellStyleXfs><cellXfs count="{2 + len(_NUMBER_FORMATS)}">'
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>'
    + "".join(f'<xf numFmtId="{164 + i}" fontId="0" fillId="0" borderId="0" xfId="0" '
              'applyNumberFormat="1"/>' for i in range(len(_NUMBER_FORMATS)))
    + '</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/>'
    "</cellStyles></styleSheet>")
