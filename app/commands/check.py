"""`jembatan check-sql [COLLECTION] [--show]`: for a site adapting sql/, run every
query of each collection once against the configured database and compare what comes back
with the record shape, check the sampled records' values and prove every read on them
(app/core/proof.py), or (--show) print every query exactly as it is sent."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from ..core import proof
from ..core.clock import stamps_ahead
from ..core.mapped import refusal
from ..core.plan import CLOCK
from ..core.services import services
from ..core.summaries import MEASURES, SHAPE_GROUPS, output_of
from ..core.unmapped import NOT_MAPPED, left_to_map, main_date
from ..database.db import Database, DatabaseUnavailable, QueryFailed
from ..database.filters import OPERATORS
from ..database.queries import NAMES_FILE, PARAMETERS, Query, kind_of
from ..database.sqlfiles import parse_file
from ..database.sqltext import null_fields
from ..database.templates import AFTER_PARAMETERS, DEFAULT_BY, FILTER_PLACEHOLDERS
from ..formats.encoding import RecordEncoder
from ..model import params
from ..model.collections import COLLECTIONS, DATE_PAIRS, NAMINGS, Collection
from . import indexes, nulls, printed
from .deduction import FIELD as DEDUCTION
from .deduction import deduction_findings

SAMPLE_ROWS = proof.SAMPLE_ROWS  # rows read from each query: enough to look at


def _harmless(name: str, text_key: bool = False) -> dict[str, Any]:
    """Parameters that make each kind of query return little: a day's range, one page, the
    key 1 (as text where a master is keyed by a text code: an int would be converted to
    compare, and SQL Server fails on a code that is not a number)."""
    today = dt.date.today()
    values: dict[str, Any] = {"key": "1" if text_key else 1, **params.window(1, 1)} | {
        "start_date": today - dt.timedelta(days=1), "start_time": params.MIDNIGHT,
        "end_date": today, "end_time": dt.time(23, 59, 59), "midnight": params.MIDNIGHT,
        "from_date": today - dt.timedelta(days=1), "from_time": params.MIDNIGHT,
        "within_date": today, "within_time": params.MIDNIGHT, "next_date": today,
        "next_time": dt.time(0, 0, 1), **{p: -1 if p.endswith("_set") else 0
                                           for p in AFTER_PARAMETERS}}
    return {k: v for k, v in values.items() if k in PARAMETERS[kind_of(name)]}


def named(c: Collection, name: str) -> tuple[str, ...]:
    """The groups of the one more text check-sql runs and shows of a summary: each code of
    master data its shape has (productcode,custcode,transcode), with the names beside them,
    and the shape's own groups (direction), so that the lookups a site's master mapping or
    names.sql feeds, and a site's own text of a summary, are run and shown grouped as
    requests may."""
    if kind_of(name) != "summary" or c.summary is None:
        return ()
    return (*c.namings, *SHAPE_GROUPS.get(c.summary, ()))


def check_query(db: Database, c: Collection, encoder: RecordEncoder, name: str,
                by: tuple[str, ...] = ()) -> list[str]:
    """The problems of one query: empty when it runs and returns the record's columns (a
    summary's grouped `by`, the groups and names, then the measures)."""
    try:
        result = db.execute(c.name, name, _harmless(name, c.text_key), by=by)
        columns = result.columns
        rows = []
        for batch in result.batches():
            rows.extend(batch)
            if len(rows) >= SAMPLE_ROWS:
                break
        result.close()
    except QueryFailed as exc:  # a mapping the database refuses: where, as the start says it
        found = refusal(db, c.name, exc, db.dialect())
        return [found.said if found else exc.detail]
    except DatabaseUnavailable as exc:
        return [str(exc)]
    if name.endswith("count"):
        return [] if len(columns) == 1 else [f"returns {len(columns)} columns, not one count"]
    if kind_of(name) == "summary":  # by day (or `by`), then the shape's measures
        assert c.summary is not None
        want = (*output_of(c, by or DEFAULT_BY), *MEASURES[c.summary].columns)
        return [] if tuple(columns) == want else [
            f"returns the columns {', '.join(columns)}, not {', '.join(want)}"]
    problems = []
    missing = encoder.columns_missing(columns)
    extra = [col for col in columns if col not in encoder.fields
             and not (kind_of(name).startswith("changes") and col == CLOCK)]  # the feed's own
    for field in missing:
        near = difflib.get_close_matches(field, extra, n=1, cutoff=0.6)
        problems.append(f"no column {field}" + (f' (did you mean "{near[0]}"?)' if near else ""))
    if extra and name != "records":  # records may carry columns no read selects
        problems.append(f"columns the record does not have: {', '.join(extra)}")
    problems += taken_for_strings(db.queries.get(c.name, name, db.dialect()).sql, columns,
                                  rows)
    return list(dict.fromkeys(problems))


def taken_for_strings(sql: str, columns: list[str], rows: list[Any]) -> list[str]:
    """SQLite reads an unknown "name" as the string 'name': a field whose every sampled
    value is the text of the column named for it."""
    problems = []
    for source, field in re.findall(r'"([^"]+)"\s+AS\s+"([^"]+)"', sql):
        if rows and field in columns:
            index = columns.index(field)
            if all(row[index] == source for row in rows):
                problems.append(f'every {field} is the text "{source}": no such column, '
                                f"which SQLite takes for a string")
    return problems


def value_problems(db: Database, c: Collection, encoder: RecordEncoder,
                   dialect: str | None, sampled: proof.Sample) -> list[str]:
    """A line for each field whose sampled values do not fit its type, with the value and
    the line of `records` that gives it: what the service would refuse to send."""
    problems = []
    for field, misfit in encoder.misfits(sampled.columns, sampled.rows).items():
        line = db.queries.field_line(c.name, field, dialect)
        problem = f"{field}: {misfit}; it comes from {line}"
        if dialect == "sqlite" and re.search(r"(?i)\bAS\s+(date|time)\s*\)", line):
            problem += (" (SQLite's CAST(... AS date) or AS time makes a number of it: "
                        "write date(column) or time(column))")
        problems.append(problem)
    return problems


def mapping_notes(db: Database, c: Collection, dialect: str | None) -> tuple[list[str], list[str]]:
    """The fields of a collection's `records` still marked `-- TODO` (a draft-mapping left
    them; in any dialect's text, as the service finds them), and those given as a NULL,
    plain or CAST (the site has no such column)."""
    path = db.queries.files[c.name]
    blocks = [b for b in parse_file(path) if b.name == "records"]
    block = next((b for b in blocks if b.dialect == dialect), blocks[0])
    todo = list(left_to_map(path, c))
    nulls = [f for f in null_fields(block.text) if f in c.fields and f not in todo]
    return todo, nulls


def main_date_said(c: Collection, main: str) -> str:
    """What check-sql says of a dated collection whose main date is given as NULL."""
    on = c.dates[0]
    return (f"{main} is given as NULL, but it is the main date of {c.name} (on={on}, the "
            f"default of its ranges and summaries, and the dashboard's and the report's): "
            f"every range, summary and report day would find nothing. Map {main} and "
            f"{DATE_PAIRS[on][1]} to the columns of its date and time; until then every route "
            f"of {c.name} answers 503 ({NOT_MAPPED})")


def _selected(collection: str | None, served: tuple[Collection, ...]) -> list[Collection]:
    """The collections to check: those this site serves (collections.serve), or the one
    named, which must be one of them (an unserved one has no queries loaded to run)."""
    if collection is None:
        return list(served)
    chosen = [c for c in served if c.name == collection]
    if not chosen:
        names = ", ".join(c.name for c in served)
        if any(c.name == collection for c in COLLECTIONS):
            raise click.BadParameter(f"this site does not serve {collection!r} (it is not in "
                                     f"collections.serve); it serves: {names}",
                                     param_hint="COLLECTION")
        raise click.BadParameter(f"no collection {collection!r}; the collections are: "
                                 f"{', '.join(c.name for c in COLLECTIONS)}",
                                 param_hint="COLLECTION")
    return chosen


def _engine(db: Database) -> tuple[str | None, str]:
    """The dialect the configured database runs, and a line saying which texts that is."""
    try:
        dialect = db.dialect()
    except DatabaseUnavailable as exc:
        return None, (f"-- {db.describe} cannot be reached ({exc.reason}): the main texts, "
                      f"which SQL Server and PostgreSQL run")
    texts = "the SQLite texts" if dialect == "sqlite" else "the main texts (SQL Server's)"
    return dialect, f"-- {texts}, as sent to {db.describe}"


def print_queries(db: Database, collections: list[Collection]) -> None:
    """Print every query of these collections exactly as it is sent (`?` placeholders)."""
    dialect, engine = _engine(db)
    click.echo(engine)
    for c in collections:
        for name in ["records", *c.query_names()]:
            q = db.queries.get(c.name, name, dialect)
            click.echo(f"\n-- {c.name}.{name}: {q.description}")
            click.echo(f"-- from {q.source}")
            if name != "records":
                click.echo(f"-- parameters: {', '.join(q.params) or 'none'}")
            if q.filtered:
                click.echo(f"-- with filters: {_filtered_line(q)}")
            click.echo(q.sql + ";")
            if by := named(c, name):
                q = db.queries.get(c.name, name, dialect, by=by)
                click.echo(f"\n-- {c.name}.{name} by={','.join(by)}: the same grouped by its "
                           f"codes of master data, each followed by its name ("
                           f"{_name_sources(db, c, dialect)}), and by the record shape's "
                           f"own groups")
                click.echo(q.sql + ";")
    for master in names_checked(db, collections):
        q = db.queries.get(NAMES_FILE, master, dialect)
        click.echo(f"\n-- {NAMES_FILE}.{master}: {q.description}")
        click.echo(f"-- from {q.source}; the summaries read it as \"names_{master}\"")
        click.echo(q.sql + ";")


def _name_sources(db: Database, c: Collection, dialect: str | None) -> str:
    """Where each of a summary's names is read, in words: 'productname from names.sql by
    name_from, custname from the customers records by name_of, transname from nowhere:
    null'."""
    parts = []
    for naming in c.namings.values():
        source = db.queries.names_of(naming.master, dialect)
        where = ("nowhere: null" if source is None else
                 f"{NAMES_FILE}.sql by name_from" if source[0].startswith("names_") else
                 f"the {naming.master} records by name_of")
        parts.append(f"{naming.name} from {where}")
    return ", ".join(parts)


def names_checked(db: Database, collections: list[Collection]) -> list[str]:
    """The queries of the site's names.sql that these collections' summaries read."""
    used = {n.master for c in collections for n in c.namings.values()}
    return [m for m in db.queries.names(NAMES_FILE) if m in used]


def check_names(db: Database, masters: list[str], dialect: str | None) -> int:
    """Run each query of names.sql once (a sample of its rows) and report it; how many have
    problems: it must return the master's code and name fields, and nothing else."""
    if not masters:
        return 0
    click.echo(f"\n{NAMES_FILE}.sql (the names beside the summaries' codes, "
               f"{db.queries.files[NAMES_FILE]})")
    fields = {n.master: (n.master_code, n.master_name)
              for shape in NAMINGS.values() for n in shape}
    failures = 0
    for master in masters:
        problems = []
        try:
            result = db.execute(NAMES_FILE, master)
            columns = list(result.columns)
            rows = next(result.batches(), [])[:SAMPLE_ROWS]
            result.close()
            if sorted(columns) != sorted(fields[master]):
                problems.append(f"returns the columns {', '.join(columns)}, not "
                                f"{', '.join(fields[master])}")
            problems += taken_for_strings(db.queries.get(NAMES_FILE, master, dialect).sql,
                                          columns, rows)
        except (QueryFailed, DatabaseUnavailable) as exc:
            problems.append(getattr(exc, "detail", None) or str(exc))
        served = "" if master not in db.queries.files else (
            f" (read instead of the {master} records)")
        click.echo(f"  {master:<22} {'ERROR' if problems else 'OK'}{'' if problems else served}")
        for problem in problems:
            click.echo(f"      {problem}")
        failures += bool(problems)
    return failures


def _filtered_line(query: Query) -> str:
    """Where a read's filters go, told by the text of one filter on its first field."""
    assert query.template is not None
    marks = [p for p in FILTER_PLACEHOLDERS if query.template.takes(p)]
    # Every operator, from its one entry (a value that binds: a boolean form's true).
    forms = ", ".join(op.condition('"f"', ["?"] * (2 if op.form.split else 1),
                                   (True,) if op.form.boolean else ("v",))
                      for op in OPERATORS.values())
    return (f"{' and '.join('{' + m + '}' for m in marks)} of the shape becomes WHERE (or "
            f"AND) one condition per filter, each value one more parameter: {forms}")


@click.command("check-sql")
@click.argument("collection", required=False)
@click.option("--show", is_flag=True,
              help="Print every query as it is sent to the configured database, run nothing.")
@with_appcontext
def check_sql_command(collection: str | None, show: bool) -> None:
    """Run every query once, compare its columns with the record shapes, check the sampled
    records' values and prove every read on them.

    With COLLECTION, only that collection's; with --show, print the queries instead."""
    kept = services(current_app)
    db = kept.db
    chosen = _selected(collection, kept.collections)
    if show:
        print_queries(db, chosen)
        return
    click.echo(f"Checking the queries of {db.settings.sql_dir} on {db.describe}")
    try:
        dialect = db.dialect()
    except DatabaseUnavailable as exc:  # one line, not the same one for every query
        click.echo(f"\n{db.describe} cannot be reached ({exc.reason}): nothing was checked.")
        raise SystemExit(1) from None
    failures = unproven = 0
    for c in chosen:
        queries, reads = check_collection(db, c, dialect)
        failures, unproven = failures + queries, unproven + reads
    failures += check_names(db, names_checked(db, chosen), dialect)
    feed = kept.settings.feed
    for warning in filter(None, (stamps_ahead(db, c, feed) for c in chosen)):
        click.echo(f"\nWarning: {warning}")  # the exit status stays the queries'
    click.echo(closing(failures, unproven))
    if failures or unproven:
        raise SystemExit(1)


def closing(failures: int, unproven: int) -> str:
    """The last line: what was wrong, or what every query and read was shown to do."""
    if not failures and not unproven:
        return ("\nEvery query runs and returns its record's columns, the sampled records' "
                "values fit their fields, and every read finds each of up to "
                f"{proof.PROVEN} sampled records of a collection exactly once: by key, in "
                "the date ranges at its own moment and across the midnight before it, by "
                "the = filter on each code, in the feed and in the summary of its day.")
    found = [f"{failures} quer{'y' if failures == 1 else 'ies'} with problems"] * bool(failures)
    if unproven:
        found.append(f"{unproven} read{'s' if unproven > 1 else ''} that miss or repeat a "
                     f"sampled record")
    return "\n" + ", ".join(found)


def check_collection(db: Database, c: Collection, dialect: str | None) -> tuple[int, int]:
    """Check and report one collection's queries, then prove its reads on the sampled
    records; how many queries have problems, and how many reads miss or repeat a record.
    Each distinct problem is printed once: the queries that share it say "as above"."""
    click.echo(f"\n{c.name} ({c.schema.__name__})")
    encoder = RecordEncoder(c.schema)
    todo, nulls_given = mapping_notes(db, c, dialect)
    failures = reads_fail = 0
    shown: set[str] = set()
    sampled: proof.Sample | None = None
    deductions = None
    runs = [(name, ()) for name in ["records", *c.query_names()]]
    runs += [(name, by) for name, _ in runs if (by := named(c, name))]
    for name, by in runs:
        problems = check_query(db, c, encoder, name, by)
        broken = bool(problems)  # records itself does not run or lacks fields
        if name == "records":
            if todo:
                problems.append(f"still to map (-- TODO): {', '.join(todo)}")
            if (main := main_date(c)) in nulls_given:
                problems.append(main_date_said(c, main))
            if not broken:
                try:
                    sampled = proof.sample(db, c)
                    problems += value_problems(db, c, encoder, dialect, sampled)
                    deductions = deduction_findings(
                        sampled.columns, sampled.rows, c.key,
                        db.queries.field_line(c.name, DEDUCTION, dialect))
                    problems += deductions.errors
                except (QueryFailed, DatabaseUnavailable) as exc:
                    problems.append(getattr(exc, "detail", None) or str(exc))
        new = [p for p in problems if p not in shown]
        shown.update(problems)
        failures += bool(problems)
        reads_fail += bool(problems) and name != "records"
        same = " (as above)" if problems and not new else ""
        label = f"{name} by={','.join(by)}" if by else name
        click.echo(f"  {label:<22} {'ERROR' if problems else 'OK'}{same}")
        for problem in new:
            click.echo(f"      {problem}")
        if name == "records" and todo:
            click.echo(f"      until they are mapped, every route of {c.name} answers 503 "
                       f"({NOT_MAPPED})")
        if name == "records" and nulls_given:
            click.echo(f"      given as NULL (no such column at this site): "
                       f"{', '.join(nulls_given)}")
        for warning in deductions.warnings if name == "records" and deductions else ():
            click.echo(f"      Warning: {warning}")  # not a failure
        if name == "records" and c.dates and (feed := c.feed_on) != c.dates[0] and \
                DATE_PAIRS[feed][0] in nulls_given:
            click.echo(f"      the feed's default pair (on={feed}) is NULL: "
                       f"/{c.name}/changes finds nothing unless asked with ?on={c.dates[0]}")
        if name == "records" and broken:
            click.echo("  (every read of the collection reads records: fix it first)")
            return failures + len(runs) - 1, 0
    if found := nulls.warnings(db, c, nulls_given):  # a warning: the exit status stays
        click.echo(f"  {'NULL dates, weights':<22} WARNING")
        click.echo("\n".join(f"      {line}" for line in found))
    if found := nulls.zeros(db, c, nulls_given):  # a warning: the exit status stays
        click.echo(f"  {'weights of 0':<22} WARNING")
        click.echo("\n".join(f"      {line}" for line in found))
    if found := printed.warnings(db, c, dialect):  # a warning: the exit status stays
        click.echo(f"  {'printed net':<22} WARNING")
        click.echo("\n".join(f"      {line}" for line in found))
    if found := indexes.notes(db, c, dialect):  # a note: the exit status stays the same
        click.echo(f"  {'indexes':<22} NOTE")
        click.echo("\n".join(f"      {line}" for line in found))
    # The proof asks the reads; one that does not run would fail it for every record.
    return failures, prove_collection(db, c, sampled) if sampled and not reads_fail else 0


def prove_collection(db: Database, c: Collection, sampled: proof.Sample) -> int:
    """Prove every read on the sampled records and print what it found (app/core/proof.py); how
    many reads miss or repeat a record."""
    try:
        found = proof.lines(proof.confirmed(db, c, sampled))
    except (QueryFailed, DatabaseUnavailable) as exc:
        found = [getattr(exc, "detail", None) or str(exc)]
    records = len(proof.chosen(c, sampled))
    label = f"proof on {records} record{'s' if records != 1 else ''}"
    click.echo(f"  {label:<22} {'ERROR' if found else 'OK'}")
    for line in found:
        click.echo(f"      {line}")
    return len(found)
