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

from collections.abc import Callable
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from app.database.filters import Filter
from app.database.queries import DATABASE_OPTIONAL, DATABASE_QUERIES, Query, Where, load_queries
from app.model.collections import COLLECTIONS

SHIPPED_SQL = Path(__file__).resolve().parent.parent / "sql"


def function_name(node: exp.Expr, sql: str) -> str | None:
    """The name a function call was written with: sqlglot keeps it for an unknown function,
    and records the span of the name token on a known one built from its argument list."""
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    if isinstance(node, exp.Func) and {"start", "end"} <= node.meta.keys():
        return sql[node.meta["start"]:node.meta["end"] + 1].upper()
    return None


def called(*names: str) -> Callable[[exp.Expr, str], bool]:
    return lambda node, sql: function_name(node, sql) in names


def node_is(*types: type[exp.Expr]) -> Callable[[exp.Expr, str], bool]:
    return lambda node, sql: isinstance(node, types)


def either(*tests: Callable[[exp.Expr, str], bool]) -> Callable[[exp.Expr, str], bool]:
    return lambda node, sql: any(test(node, sql) for test in tests)


def _limit_clause(node: exp.Expr, sql: str) -> bool:
    # TOP n parses into the same Limit node; sqlglot marks the TOP one in its meta.
    return isinstance(node, exp.Limit) and not node.meta.get("top")


def _for_json(node: exp.Expr, sql: str) -> bool:
    return isinstance(node, exp.ForClause) and node.text("kind").upper() == "JSON"


def _iif(node: exp.Expr, sql: str) -> bool:
    # CASE WHEN ... THEN parses into If nodes too, but only ever under a Case.
    return isinstance(node, exp.If) and not isinstance(node.parent, exp.Case)


def _format(node: exp.Expr, sql: str) -> bool:
    # FORMAT(number, ...) is NumberToStr; FORMAT(date, ...) is TimeToStr, as is DATENAME,
    # which 2008 R2 has: tell them apart by the name written.
    return isinstance(node, exp.NumberToStr) or (
        isinstance(node, exp.TimeToStr) and function_name(node, sql) == "FORMAT")


def _trim(node: exp.Expr, sql: str) -> bool:
    # LTRIM and RTRIM parse into Trim with a LEADING or TRAILING position; TRIM() has none.
    return isinstance(node, exp.Trim) and not node.args.get("position")


def _window_frame(node: exp.Expr, sql: str) -> bool:
    return isinstance(node, exp.WindowSpec) and node.args.get("kind") is not None


def _try_convert(node: exp.Expr, sql: str) -> bool:
    return isinstance(node, exp.Convert) and bool(node.args.get("safe"))


class Rule:
    """A construct SQL Server 2008 R2 lacks: how to find it in a parsed tree, and small
    queries that use it, for the negative test."""

    def __init__(self, construct: str, since: str, matches: Callable[[exp.Expr, str], bool],
                 *samples: str):
        self.construct = construct
        self.since = since  # the first SQL Server version that has it
        self.matches = matches
        self.samples = samples


RULES = [
    Rule("LIMIT", "never", _limit_clause,
         'SELECT "id" FROM "t" ORDER BY "id" LIMIT ?'),
    Rule("OFFSET ... FETCH", "2012", node_is(exp.Offset, exp.Fetch),
         'SELECT "id" FROM "t" ORDER BY "id" OFFSET ? ROWS FETCH NEXT ? ROWS ONLY'),
    Rule("FOR JSON", "2016", _for_json,
         'SELECT "id" FROM "t" FOR JSON PATH'),
    Rule("STRING_AGG", "2017", either(node_is(exp.GroupConcat), called("STRING_AGG")),
         """SELECT STRING_AGG("vehno", ',') FROM "t\""""),
    Rule("TRY_CONVERT", "2012", _try_convert,
         'SELECT TRY_CONVERT(date, "tgl") FROM "t"'),
    Rule("TRY_CAST", "2012", either(node_is(exp.TryCast), called("TRY_CAST")),
         'SELECT TRY_CAST("tgl" AS date) FROM "t"'),
    Rule("IIF", "2012", either(_iif, called("IIF")),
         'SELECT IIF("jam" IS NULL, 0, 1) FROM "t"'),
    Rule("CONCAT", "2012", either(node_is(exp.Concat), called("CONCAT")),
         """SELECT CONCAT("tgl", ' ', "jam") FROM "t\""""),
    Rule("CONCAT_WS", "2017", either(node_is(exp.ConcatWs), called("CONCAT_WS")),
         """SELECT CONCAT_WS(' ', "tgl", "jam") FROM "t\""""),
    Rule("FORMAT", "2012", _format,
         """SELECT FORMAT("tgl", 'yyyy-MM-dd') FROM "t\"""",
         """SELECT FORMAT("weigh1", 'N2', 'id-ID') FROM "t\""""),
    Rule("||", "never", node_is(exp.DPipe),
         """SELECT "a" FROM "t" WHERE "a" || 'x' = ?"""),
    Rule("CHOOSE", "2012", called("CHOOSE"),
         'SELECT CHOOSE(?, "a", "b") FROM "t"'),
    Rule("TRY_PARSE", "2012", called("TRY_PARSE", "PARSE"),
         'SELECT TRY_PARSE("a" AS int) FROM "t"'),
    Rule("EOMONTH", "2012", called("EOMONTH"),
         'SELECT EOMONTH("tgl") FROM "t"'),
    Rule("DATEFROMPARTS", "2012",
         called("DATEFROMPARTS", "TIMEFROMPARTS", "DATETIMEFROMPARTS", "DATETIME2FROMPARTS",
                "SMALLDATETIMEFROMPARTS", "DATETIMEOFFSETFROMPARTS"),
         'SELECT DATEFROMPARTS(2026, 1, 1) FROM "t"'),
    Rule("LAG/LEAD/FIRST_VALUE/LAST_VALUE", "2012",
         either(node_is(exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue),
                called("LAG", "LEAD", "FIRST_VALUE", "LAST_VALUE")),
         'SELECT LAG("id") OVER (ORDER BY "id") FROM "t"'),
    Rule("ROWS/RANGE window frame", "2012", _window_frame,
         'SELECT SUM("a") OVER (ORDER BY "id" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)'
         ' FROM "t"'),
    Rule("STRING_SPLIT", "2016", called("STRING_SPLIT"),
         """SELECT "value" FROM STRING_SPLIT(?, ',')"""),
    Rule("JSON functions", "2016",
         either(node_is(exp.JSONExtract, exp.JSONExtractScalar),
                called("JSON_VALUE", "JSON_QUERY", "ISJSON", "OPENJSON", "JSON_MODIFY")),
         """SELECT JSON_VALUE("a", '$.x') FROM "t\""""),
    Rule("TRIM", "2017", _trim,
         'SELECT TRIM("a") FROM "t"'),
    Rule("GREATEST/LEAST", "2022",
         either(node_is(exp.Greatest, exp.Least), called("GREATEST", "LEAST")),
         'SELECT GREATEST("a", "b") FROM "t"'),
]


def broken_rules(sql: str) -> list[Rule]:
    """The rules this T-SQL text breaks, in RULES order; a text that is not T-SQL raises."""
    statements = sqlglot.parse(sql, read="tsql")
    assert len(statements) == 1 and statements[0] is not None, "one statement per query"
    nodes = list(statements[0].walk())
    return [rule for rule in RULES if any(rule.matches(node, sql) for node in nodes)]


def violations(sql: str) -> list[str]:
    """What in this T-SQL text SQL Server 2008 R2 lacks, named for the assertion message."""
    return [f"{rule.construct} (SQL Server {rule.since})" for rule in broken_rules(sql)]


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
