"""What SQL Server 2008 R2 lacks, as rules over sqlglot's parsed T-SQL tree: each rule finds
its construct by node type or by the name a function was written with, so a banned word in a
string, a quoted name or a comment is no violation. tests/test_tsql.py holds every shipped
main text to them (and proves each rule fires); tests/test_engines.py the loader's T-SQL."""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp


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
