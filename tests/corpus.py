"""The draft corpus (tests/draft_corpus/README.md): weighbridge and batching tables from
public projects, each with the mapping a person wrote for it by hand; how much of it
`draft-mapping` gets right.

Shared by tests/test_draft_corpus.py (which asserts the figures) and bench/draft_corpus.py
(which prints them for any checkout). A table is built as a real SQLite file from its .sql,
drafted through the real command, and each line of the drafted `records` query is compared
with the expected source: a column, or the SQLite expression the expected form stands for
(whitespace outside quotes aside); a `digits_of` key is judged on the table's rows.
"""

from __future__ import annotations

import re
import sqlite3
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app import create_app
from app.model.collections import COLLECTIONS

CORPUS = Path(__file__).resolve().parent / "draft_corpus"
TOTAL_AT_LEAST = 80.0  # per cent of the mappable fields, over the corpus
TABLE_AT_LEAST = 60.0  # per cent, every table

Form = str | dict[str, Any]  # a source as the expected file writes it
# A date written as text in a plant's format (`{ date_of = "X", text = "dd/mm/yyyy" }`), as
# SQLite reads it: its parts cut out into ISO order (two-digit years are of this century).
TEXT_DATES = {
    "dd/mm/yyyy": "date(substr({0}, 7, 4) || '-' || substr({0}, 4, 2) || '-' || substr({0}, 1, 2))",
    "dd-mm-yyyy": "date(substr({0}, 7, 4) || '-' || substr({0}, 4, 2) || '-' || substr({0}, 1, 2))",
    "yyyymmdd": "date(substr({0}, 1, 4) || '-' || substr({0}, 5, 2) || '-' || substr({0}, 7, 2))",
    "dd/mm/yy": "date('20' || substr({0}, 7, 2) || '-' || substr({0}, 4, 2) || '-' || "
                "substr({0}, 1, 2))",
    "dd-mm-yy": "date('20' || substr({0}, 7, 2) || '-' || substr({0}, 4, 2) || '-' || "
                "substr({0}, 1, 2))",
}


@dataclass(frozen=True)
class Case:
    name: str  # the file's stem
    directory: Path  # where its .sql and .expected.toml are
    table: str
    collection: str
    expected: dict[str, Form]  # the mappable fields and their sources
    unmapped: tuple[str, ...]


@dataclass
class Line:
    """One field of the drafted SELECT list: its source and the comments on its lines."""
    source: str
    note: str


@dataclass
class Score:
    case: Case
    right: list[str] = field(default_factory=list)
    # per field missed: the drafted source, the expected one, whether a TODO names its column
    misses: dict[str, tuple[str, Form, bool]] = field(default_factory=dict)
    filled: dict[str, str] = field(default_factory=dict)  # unmapped fields drafted from a column
    # the fields whose drafted line is wrong and says nothing (no `-- TODO`): silently wrong
    wrong: list[str] = field(default_factory=list)

    @property
    def percent(self) -> float:
        return 100.0 * len(self.right) / len(self.case.expected)


def cases(directory: Path = CORPUS) -> list[Case]:
    """Every table of a corpus directory, in name order."""
    out = []
    for path in sorted(directory.glob("*.expected.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        out.append(Case(path.name.removesuffix(".expected.toml"), directory, data["table"],
                        data["collection"], dict(data["fields"]),
                        tuple(data["unmapped"]["fields"])))
    return out


def fields_of(collection: str) -> tuple[str, ...]:
    return next(c.fields for c in COLLECTIONS if c.name == collection)


def build(case: Case, directory: Path) -> Path:
    """The case's table as a SQLite file, rows and all."""
    path = directory / f"{case.name}.sqlite3"
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    con.executescript((case.directory / f"{case.name}.sql").read_text(encoding="utf-8"))
    con.commit()
    con.close()
    return path


def draft(case: Case, database: Path) -> str:
    """The draft-mapping command's output for the case's table (raises on a failed run)."""
    app = create_app({"database": {"sqlite": str(database)}})
    done = app.test_cli_runner().invoke(
        args=["draft-mapping", case.table, "--collection", case.collection])
    if done.exit_code != 0:
        raise RuntimeError(f"draft-mapping {case.table} failed: {done.output}")
    return done.output


# -- the drafted query ----------------------------------------------------------------------

def _split_comment(line: str) -> tuple[str, str]:
    """A line's SQL and its `--` comment, the comment found outside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif line.startswith("--", i):
            return line[:i], line[i + 2:].strip()
    return line, ""


def _top_level_items(text: str) -> list[tuple[int, int]]:
    """(start, end) of each comma-separated item of a SELECT list, commas in parentheses and
    quotes aside."""
    spans, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(text)))
    return spans


_ITEM = re.compile(r'(?s)^\s*(?P<source>.+?)\s+AS\s+"(?P<field>(?:[^"]|"")+)"\s*$')


def parse(output: str) -> dict[str, Line]:
    """The drafted records query's SELECT list, by field: each `<source> AS "<field>"` and
    the comments on the lines it spans."""
    lines = output.splitlines()
    start = lines.index("-- name: records")
    select = next(i for i in range(start, len(lines)) if lines[i].strip().upper() == "SELECT")
    code, notes = [], []  # each line's SQL and its comment
    for line in lines[select + 1:]:
        if line.strip().upper().startswith("FROM"):
            break
        sql, note = _split_comment(line)
        code.append(sql + "\n")
        notes.append(note)
    text = "".join(code)
    starts = [sum(len(c) for c in code[:k]) for k in range(len(code))]
    out = {}
    for begin, end in _top_level_items(text):
        item = text[begin:end]
        m = _ITEM.match(item)
        if not m:
            continue
        first = begin + len(item) - len(item.lstrip())
        last = begin + len(item.rstrip())
        spanned = [note for at, sql, note in zip(starts, code, notes, strict=True)
                   if at < last and first < at + len(sql)]
        out[m.group("field").replace('""', '"')] = Line(m.group("source"), " ".join(spanned))
    return out


# -- the expected forms -----------------------------------------------------------------------

def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _weighing(form: dict[str, Any], first: bool) -> str:
    key = "first_weighing_of" if first else "second_weighing_of"
    gross, tare = form[key]
    gross_at, tare_at = form["by"]
    then, other = (tare, gross) if first else (gross, tare)
    return (f"CASE WHEN {_q(gross_at)} IS NULL OR {_q(tare_at)} < {_q(gross_at)} "
            f"THEN {_q(then)} ELSE {_q(other)} END")


def render(form: Form) -> list[str]:
    """The SQLite text(s) an expected form stands for (several for `any`; none for
    `digits_of`, which is judged on the rows)."""
    if isinstance(form, str):
        return [_q(form)]
    if "any" in form:
        return [text for each in form["any"] for text in render(each)]
    if "digits_of" in form:
        return []
    for part in ("date", "time"):
        inner = form.get(f"{part}_of")
        if inner is not None and "text" in form:
            return [TEXT_DATES[form["text"]].format(text) for text in render(inner)]
        if inner is not None:
            epoch = ", 'unixepoch', 'localtime'" if form.get("epoch") else ""
            return [f"{part}({text}{epoch})" for text in render(inner)]
    if "first_weighing_of" in form or "second_weighing_of" in form:
        return [_weighing(form, "first_weighing_of" in form)]
    if "number_of" in form:
        return [f"CAST({text} AS REAL)" for text in render(form["number_of"])]
    if "weighed_of" in form:
        return [f"NULLIF({text}, 0)" for text in render(form["weighed_of"])]
    if "when" in form:
        return [f"CASE WHEN {form['when']} THEN 1 ELSE 0 END"]
    raise ValueError(f"no such form of source: {form!r}")


_QUOTED = re.compile(r'"((?:[^"]|"")+)"')


def columns_of(form: Form) -> list[str]:
    """The columns an expected form reads."""
    if isinstance(form, str):
        return [form]
    out: list[str] = []
    for key, value in form.items():
        if key == "when":  # a condition: the columns it quotes
            out += [name.replace('""', '"') for name in _QUOTED.findall(value)]
        elif key in ("date_of", "time_of", "digits_of", "number_of"):
            out += columns_of(value)
        elif key in ("first_weighing_of", "second_weighing_of", "by"):
            out += value
        elif key == "any":
            for each in value:
                out += columns_of(each)
    return list(dict.fromkeys(out))


def normalized(sql: str) -> str:
    """SQL without the whitespace outside its quotes."""
    out, quote = [], None
    for ch in sql:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch.isspace():
            continue
        out.append(ch)
    return "".join(out)


def digits(value: Any) -> int | None:
    """The integer a value's digits form, in order; None without any."""
    found = re.sub(r"\D", "", "" if value is None else str(value))
    return int(found) if found else None


def _digits_right(source: str, column: str, table: str, database: Path) -> bool:
    """Whether a drafted source names the column and gives its digits on every row."""
    if _q(column) not in source:
        return False
    con = sqlite3.connect(database)
    try:
        rows = con.execute(f"SELECT {source}, {_q(column)} FROM {_q(table)}").fetchall()
    except sqlite3.Error:
        return False
    finally:
        con.close()
    return all(type(got) is int and got == digits(text) for got, text in rows)


def is_null(source: str) -> bool:
    """Whether a drafted source is a NULL (of a type or not): no column."""
    text = normalized(source).upper()
    return text == "NULL" or re.fullmatch(r"CAST\(NULLAS[A-Z]+(\([0-9,]+\))?\)", text) is not None


def right(form: Form, source: str, case: Case, database: Path) -> bool:
    """Whether a drafted source is the expected one."""
    if isinstance(form, dict) and "any" in form:
        return any(right(each, source, case, database) for each in form["any"])
    if isinstance(form, dict) and "digits_of" in form:
        return _digits_right(source, form["digits_of"], case.table, database)
    return normalized(source) in {normalized(text) for text in render(form)}


def score(case: Case, directory: Path) -> Score:
    """The case drafted and compared, field by field."""
    database = build(case, directory)
    drafted = parse(draft(case, database))
    result = Score(case)
    for name, form in case.expected.items():
        line = drafted.get(name, Line("NULL", "(no line for it)"))
        if right(form, line.source, case, database):
            result.right.append(name)
        else:
            named = any(_q(c) in line.note for c in columns_of(form))
            result.misses[name] = (line.source, form, "TODO" in line.note and named)
            if "TODO" not in line.note:
                result.wrong.append(name)
    for name in case.unmapped:
        line = drafted.get(name)
        if line is not None and not is_null(line.source):
            result.filled[name] = line.source
            if "TODO" not in line.note:
                result.wrong.append(name)
    return result


def report(scores: list[Score], misses: bool = True) -> str:
    """The figures per table and over the corpus, as text; each miss below its table."""
    out = [f"{'table':<20} {'collection':<13} {'right':>11} {'%':>6}  {'TODO-hinted':>11} "
           f"{'filled-unmapped':>15} {'wrong':>5}"]
    for s in scores:
        hinted = sum(1 for *_, ok in s.misses.values() if ok)
        out.append(f"{s.case.name:<20} {s.case.collection:<13} "
                   f"{len(s.right):>4} / {len(s.case.expected):<4} {s.percent:>6.1f}  "
                   f"{hinted:>4} / {len(s.misses):<4} {len(s.filled):>15} {len(s.wrong):>5}")
        if misses:
            for name, (source, form, ok) in s.misses.items():
                out.append(f"    miss {name}: drafted {source!s} ; expected {form!r}"
                           f"{'' if ok else ' ; NOT a TODO naming it'}")
            for name, source in s.filled.items():
                out.append(f"    filled {name} (no source here): {source}"
                           f"{' ; NOT a TODO' if name in s.wrong else ''}")
    got = sum(len(s.right) for s in scores)
    total = sum(len(s.case.expected) for s in scores)
    out.append(f"{'TOTAL':<34} {got:>4} / {total:<4} {100.0 * got / total:>6.1f}")
    return "\n".join(out)
