"""`flask --app wsgi check-sql`: run every named query once against the configured
database and compare what comes back with the record shapes, for a site adapting sql/."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from . import params
from .collections import COLLECTIONS, Collection
from .db import Database, DatabaseUnavailable, QueryFailed
from .encoding import RecordEncoder
from .queries import PARAMETERS, kind_of

SAMPLE_ROWS = 50  # rows read from each query: enough to look at, never a whole table


def _harmless(name: str) -> dict[str, Any]:
    """Parameters that make each kind of query return little: a day's range, one page."""
    today = dt.date.today()
    values: dict[str, Any] = {"key": 1, **params.window(1, 1)} | {
        "start_date": today - dt.timedelta(days=1), "start_time": params.MIDNIGHT,
        "end_date": today, "end_time": dt.time(23, 59, 59), "midnight": params.MIDNIGHT}
    return {k: v for k, v in values.items() if k in PARAMETERS[kind_of(name)]}


def check_query(db: Database, c: Collection, encoder: RecordEncoder, name: str) -> list[str]:
    """The problems of one query: empty when it runs and returns the record's columns."""
    try:
        result = db.execute(c.name, name, _harmless(name))
        columns = result.columns
        rows = []
        for batch in result.batches():
            rows.extend(batch)
            if len(rows) >= SAMPLE_ROWS:
                break
        result.close()
    except (QueryFailed, DatabaseUnavailable) as exc:
        return [getattr(exc, "detail", None) or str(exc)]
    if name.endswith("count"):
        return [] if len(columns) == 1 else [f"returns {len(columns)} columns, not one count"]
    problems = []
    missing = encoder.columns_missing(columns)
    extra = [col for col in columns if col not in encoder.fields]
    for field in missing:
        near = difflib.get_close_matches(field, extra, n=1, cutoff=0.6)
        problems.append(f"no column {field}" + (f' (did you mean "{near[0]}"?)' if near else ""))
    if extra:
        problems.append(f"columns the record does not have: {', '.join(extra)}")
    # SQLite reads an unknown "name" as the string 'name': every value would be that text.
    sql = db.queries.get(c.name, name, db.dialect()).sql
    for source, field in re.findall(r'"([^"]+)"\s+AS\s+"([^"]+)"', sql):
        if rows and field in columns:
            index = columns.index(field)
            if all(row[index] == source for row in rows):
                problems.append(f'every {field} is the text "{source}": no such column, '
                                f"which SQLite takes for a string")
    return problems


@click.command("check-sql")
@with_appcontext
def check_sql_command() -> None:
    """Run every query once and compare its columns with the record shapes."""
    db: Database = current_app.extensions["jembatan"]["db"]
    click.echo(f"Checking the queries of {db.settings.sql_dir} on {db.describe}")
    failures = 0
    for c in COLLECTIONS:
        click.echo(f"\n{c.name} ({c.schema.__name__})")
        encoder = RecordEncoder(c.schema)
        for name in c.query_names():
            problems = check_query(db, c, encoder, name)
            failures += bool(problems)
            click.echo(f"  {name:<22} {'ERROR' if problems else 'OK'}")
            for problem in problems:
                click.echo(f"      {problem}")
    click.echo(f"\n{failures} quer{'y' if failures == 1 else 'ies'} with problems" if failures
               else "\nEvery query runs and returns its record's columns.")
    if failures:
        raise SystemExit(1)
