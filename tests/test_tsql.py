"""SQL Server 2008 R2 fidelity without a SQL Server: every main text the shipped sql/ gives
(each shape filled in for each collection, with its records in front, exactly as sent) is
parsed as T-SQL by sqlglot, and the parsed tree may hold nothing that 2008 R2 lacks.

The check walks the tree (node types, and the name a function was written with), so a
banned word inside a string, a quoted name or a comment is no violation, and a construct
that sqlglot normalises (STRING_AGG becomes GroupConcat, IIF an If) is still caught. The
negative tests prove that each rule fires on a small query that uses its construct, and the
positive one that what 2008 R2 has (TOP, FOR XML, CASE, ROW_NUMBER, DATENAME...) passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot

from app.database.filters import Filter
from app.database.loading import load_queries
from app.database.queries import DATABASE_OPTIONAL, DATABASE_QUERIES, Query
from app.database.templates import Where
from app.model.collections import COLLECTIONS
from tests.tsql_rules import RULES, Rule, broken_rules, violations

SHIPPED_SQL = Path(__file__).resolve().parent.parent / "sql"


def every_operator(field: str) -> Where | None:
    """Filters on `field` with each operator of docs/api.md §6.1 once."""
    return Where.of([Filter(field, "", (1,)), Filter(field, "not", (1,)),
                     Filter(field, "gte", (1,)), Filter(field, "lt", (9,)),
                     Filter(field, "in", (1, 2, 3)), Filter(field, "isnull", (False,)),
                     Filter(field, "isnull", (True,))])


def shipped_main_texts() -> dict[str, Query]:
    """Every query a SQL Server is sent, by collection.name (database.name for the others);
    a read that takes filters also with filters of every operator (name+filters)."""
    queries = load_queries(SHIPPED_SQL, COLLECTIONS)
    # a query of a site's table (draft-mapping's sample) as sent for one
    out = {f"database.{name}": queries.get(
        "database", name, None,
        table=("dbo", "TBL_TIMBANG") if queries.get("database", name, None).template else ())
        for name in queries.names("database")}
    for c in COLLECTIONS:
        for name in ["records", *c.query_names()]:
            query = out[f"{c.name}.{name}"] = queries.get(c.name, name, None)
            if query.filtered:
                out[f"{c.name}.{name}+filters"] = queries.get(
                    c.name, name, None, every_operator(c.fields[0]))
    return out


MAIN_TEXTS = shipped_main_texts()


def test_every_read_of_every_collection_is_checked() -> None:
    assert {key.split(".")[0] for key in MAIN_TEXTS} == {c.name for c in COLLECTIONS} | {
        "database"}
    # database.sql's queries (ping, version, clock, columns, sample), then per collection:
    # every read but by_key takes filters (the numberrow lookup is `page` without them).
    assert len(MAIN_TEXTS) == len(DATABASE_QUERIES + DATABASE_OPTIONAL) + sum(
        1 + 2 * len(c.query_names()) - (not c.numbered) for c in COLLECTIONS)
    for key, query in MAIN_TEXTS.items():
        if key.endswith("+filters"):
            assert query.sql.count("?") == MAIN_TEXTS[key[:-8]].sql.count("?") + 7, key
    assert all(q.dialect is None for q in MAIN_TEXTS.values())


@pytest.mark.parametrize("name", list(MAIN_TEXTS))
def test_main_text_is_sql_server_2008_r2(name: str) -> None:
    """The text the runner sends to SQL Server (`?` placeholders) parses as T-SQL, as one
    statement, and uses nothing SQL Server 2008 R2 lacks."""
    query = MAIN_TEXTS[name]
    assert violations(query.sql) == [], query.source


NEGATIVE = [(rule, sample) for rule in RULES for sample in rule.samples]


@pytest.mark.parametrize(("rule", "sample"), NEGATIVE,
                         ids=[f"{rule.construct}-{n}" for n, (rule, _) in enumerate(NEGATIVE)])
def test_each_rule_rejects_a_query_that_uses_it(rule: Rule, sample: str) -> None:
    assert rule in broken_rules(sample), violations(sample)


@pytest.mark.parametrize("sql", [
    # A banned word inside a string, a quoted name or a comment is not code.
    """SELECT 'LIMIT 5 || CONCAT(a) IIF FOR JSON' AS "x" FROM "t\"""",
    'SELECT "CONCAT" AS "FORMAT", "LIMIT" AS "IIF" FROM "t" -- FOR JSON',
    # What SQL Server 2008 R2 has, some of it parsed into the same nodes as what it lacks.
    'SELECT TOP 1 "id" FROM "t" ORDER BY "id"',
    'SELECT TOP (?) "id" FROM "t" ORDER BY "id"',
    'SELECT "id" FROM "t" FOR XML PATH',
    'SELECT CASE WHEN "jam" IS NULL THEN 0 ELSE 1 END, CASE "a" WHEN 1 THEN 2 END FROM "t"',
    """SELECT DATENAME(month, "tgl"), DATEPART(year, "tgl"), CONVERT(varchar(10), "tgl", 120)
       FROM "t\"""",
    'SELECT LTRIM(RTRIM("a")), ISNULL("a", \'\') + \'-\' + "b", COALESCE("jam", ?) FROM "t"',
    'SELECT ROW_NUMBER() OVER (ORDER BY "id"), SUM("a") OVER (PARTITION BY "b") FROM "t"',
    'SELECT CAST("tgl" AS date), CAST(? AS time(0)) FROM "t" WHERE "id" BETWEEN ? AND ?',
])
def test_what_2008_r2_has_passes(sql: str) -> None:
    assert violations(sql) == []


def test_a_text_that_is_not_t_sql_fails() -> None:
    with pytest.raises(sqlglot.errors.ParseError):
        violations('SELECT "id" FROM "t" WHERE')
