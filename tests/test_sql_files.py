"""The .sql loader (app/queries.py), the shipped sql/ files, and parameter binding (app/db.py).

The loader must refuse a malformed file at start, naming the file and the line, rather than
let a site's edited copy run something unexpected against the plant's database.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path

import pytest

from app.collections import required_queries
from app.config import SHIPPED_SQL_DIR
from app.db import bind, mask_password
from app.queries import Query, QueryFileError, convert, load_queries, parse_file
from tests.contract import COLLECTIONS, columns

SCHEMA = Path(__file__).resolve().parent.parent / "app" / "schema.sql"

# A file that a test edits: `things.sql`, holding the four queries of a keyed collection.
REQUIRED = {"things": ["all", "count", "page", "by_key"]}
HEADER = "-- things: a small table for the loader's tests.\n"
ALL = """\
-- name: all
-- Every record.
SELECT "id" AS "id" FROM "things" ORDER BY "id";
"""
COUNT = """\
-- name: count
SELECT COUNT(*) AS "total" FROM "things";
"""
PAGE_SQLITE = """\
-- name: page
-- dialect: sqlite
SELECT "id" AS "id" FROM "things" ORDER BY "id" LIMIT :row_count OFFSET :skip;
"""
PAGE = """\
-- name: page
SELECT "id" FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY "id") AS "position", "id" AS "id" FROM "things"
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";
"""
BY_KEY = """\
-- name: by_key
SELECT "id" AS "id" FROM "things" WHERE "id" = :key;
"""
BLOCKS = [HEADER, ALL, COUNT, PAGE_SQLITE, PAGE, BY_KEY]
GOOD = "\n".join(BLOCKS)


def without(*blocks: str) -> str:
    return "\n".join(b for b in BLOCKS if b not in blocks)


def write(tmp_path: Path, text: str, stem: str = "things") -> Path:
    path = tmp_path / f"{stem}.sql"
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based number of the line holding the n-th occurrence of `needle`."""
    seen = 0
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in the text")


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, REQUIRED)
    message = str(info.value)
    assert str(path) in message, f"the message does not name the file: {message}"
    return message


# -- the loader ----------------------------------------------------------------------------


def test_good_file_loads(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    queries = load_queries(tmp_path, REQUIRED)
    main = queries.get("things", "page", None)
    variant = queries.get("things", "page", "sqlite")
    assert main.dialect is None and main.params == ("first_row", "last_row")
    assert variant.dialect == "sqlite" and variant.params == ("row_count", "skip")
    assert "LIMIT ? OFFSET ?" in variant.sql
    # No variant: the main text serves that dialect too.
    assert queries.get("things", "by_key", "sqlite").sql == queries.get(
        "things", "by_key", None).sql
    # The comment lines under the name describe the query and are not sent.
    assert queries.get("things", "all", None).description == "Every record."
    assert "Every record" not in queries.get("things", "all", None).sql


def test_empty_query(tmp_path: Path) -> None:
    text = GOOD.replace('-- name: count\nSELECT COUNT(*) AS "total" FROM "things";',
                        "-- name: count\n-- nothing here yet\n")
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: count')}:" in message


def test_empty_query_of_only_a_semicolon(tmp_path: Path) -> None:
    text = GOOD.replace('SELECT COUNT(*) AS "total" FROM "things";', ";")
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: count')}:" in message


def test_duplicate_name(tmp_path: Path) -> None:
    text = GOOD + '\n-- name: all\nSELECT "id" AS "id" FROM "things";\n'
    message = load_error(tmp_path, text)
    assert "all" in message
    assert f"things.sql:{line_of(text, '-- name: all', 2)}:" in message


def test_duplicate_name_of_the_same_dialect(tmp_path: Path) -> None:
    text = GOOD + ('\n-- name: page\n-- dialect: sqlite\n'
                   'SELECT "id" AS "id" FROM "things" LIMIT :row_count;\n')
    message = load_error(tmp_path, text)
    assert "page" in message
    assert f"things.sql:{line_of(text, '-- name: page', 3)}:" in message


def test_same_name_in_another_dialect_is_no_duplicate(tmp_path: Path) -> None:
    write(tmp_path, GOOD + '\n-- name: all\n-- dialect: sqlite\nSELECT "id" AS "id" '
                           'FROM "things";\n')
    queries = load_queries(tmp_path, REQUIRED)
    assert queries.get("things", "all", "sqlite").dialect == "sqlite"


def test_missing_required_name(tmp_path: Path) -> None:
    message = load_error(tmp_path, without(BY_KEY))
    assert "by_key" in message


def test_a_dialect_variant_alone_does_not_count_as_the_query(tmp_path: Path) -> None:
    message = load_error(tmp_path, without(PAGE))
    assert "page" in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, REQUIRED)
    assert str(tmp_path / "things.sql") in str(info.value)


def test_unknown_name(tmp_path: Path) -> None:
    text = GOOD + '\n-- name: everything\nSELECT "id" AS "id" FROM "things";\n'
    message = load_error(tmp_path, text)
    assert "everything" in message
    assert f"things.sql:{line_of(text, '-- name: everything')}:" in message


def test_unknown_dialect(tmp_path: Path) -> None:
    text = GOOD + ('\n-- name: all\n-- dialect: mssql\n'
                   'SELECT "id" AS "id" FROM "things";\n')
    message = load_error(tmp_path, text)
    assert "mssql" in message
    assert f"things.sql:{line_of(text, '-- name: all', 2)}:" in message


@pytest.mark.parametrize("statement", [
    "INSERT INTO \"things\" (\"id\") VALUES (1)",
    "UPDATE \"things\" SET \"id\" = 2",
    "DELETE FROM \"things\"",
    "EXEC sp_who",
    "EXECUTE sp_who",
    "CREATE TABLE \"other\" (\"id\" INTEGER)",
    "DROP TABLE \"things\"",
    "ALTER TABLE \"things\" ADD \"x\" INTEGER",
    "TRUNCATE TABLE \"things\"",
    "MERGE INTO \"things\" USING \"other\" ON 1 = 1 WHEN MATCHED THEN DELETE",
    "PRAGMA writable_schema = 1",
    "ATTACH DATABASE 'other.db' AS other",
    "WITH x AS (SELECT 1 AS \"id\") DELETE FROM \"things\"",
    "insert into things values (1)",
])
def test_statement_that_is_not_a_select(tmp_path: Path, statement: str) -> None:
    text = GOOD.replace('SELECT "id" AS "id" FROM "things" ORDER BY "id";', statement + ";")
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: all')}:" in message


def test_select_into(tmp_path: Path) -> None:
    text = GOOD.replace('SELECT "id" AS "id" FROM "things" ORDER BY "id";',
                        'SELECT "id" AS "id" INTO "backup" FROM "things";')
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: all')}:" in message


@pytest.mark.parametrize("second", ['SELECT 2 AS "id"', 'DROP TABLE "things"'])
def test_two_statements_in_one_block(tmp_path: Path, second: str) -> None:
    text = GOOD.replace('SELECT "id" AS "id" FROM "things" ORDER BY "id";',
                        f'SELECT "id" AS "id" FROM "things";\n{second};')
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: all')}:" in message


def test_sql_before_the_first_name(tmp_path: Path) -> None:
    text = 'SELECT 1 AS "id";\n' + GOOD
    message = load_error(tmp_path, text)
    assert f"{tmp_path / 'things.sql'}:1:" in message


@pytest.mark.parametrize(("name", "old", "new", "param"), [
    ("all", 'ORDER BY "id";', 'WHERE "id" = :key ORDER BY "id";', "key"),
    ("count", 'FROM "things";', 'FROM "things" WHERE "id" > :first_row;', "first_row"),
    ("by_key", '"id" = :key;', '"id" = :id;', "id"),
    ("page", "OFFSET :skip;", "OFFSET :offset;", "offset"),
    ("page", "AND :last_row", "AND :end_date", "end_date"),
])
def test_unknown_parameter_for_that_kind_of_query(tmp_path: Path, name: str, old: str,
                                                  new: str, param: str) -> None:
    assert GOOD.count(old) == 1
    text = GOOD.replace(old, new)
    message = load_error(tmp_path, text)
    assert param in message
    # The line of the block's `-- name:` (the sqlite page comes first in the file).
    block_start = text.rfind("-- name:", 0, text.index(new))
    assert f"things.sql:{text.count(chr(10), 0, block_start) + 1}:" in message


def test_range_queries_take_the_range_parameters(tmp_path: Path) -> None:
    text = """\
-- name: range_dt1
SELECT "id" AS "id" FROM "t" WHERE "d" BETWEEN :start_date AND :end_date
  AND COALESCE("t", :midnight) >= :start_time AND COALESCE("t", :midnight) <= :end_time;

-- name: range_dt1_count
SELECT COUNT(*) AS "total" FROM "t" WHERE "d" BETWEEN :start_date AND :end_date;

-- name: range_dt1_page
SELECT "id" AS "id" FROM "t" WHERE "d" BETWEEN :start_date AND :end_date
LIMIT :row_count OFFSET :skip;
"""
    write(tmp_path, text, "t")
    queries = load_queries(tmp_path, {"t": ["range_dt1", "range_dt1_count", "range_dt1_page"]})
    assert queries.get("t", "range_dt1", None).params == (
        "start_date", "end_date", "midnight", "start_time", "midnight", "end_time")
    bad = text.replace("SELECT COUNT(*) AS \"total\" FROM \"t\" WHERE",
                       "SELECT COUNT(*) AS \"total\" FROM \"t\" WHERE \"id\" = :key AND")
    path = write(tmp_path, bad, "t")
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, {"t": ["range_dt1", "range_dt1_count", "range_dt1_page"]})
    assert f"{path}:{line_of(bad, '-- name: range_dt1_count')}" in str(info.value)
    assert "key" in str(info.value)


def test_forbidden_words_inside_strings_and_quoted_names_are_fine(tmp_path: Path) -> None:
    text = GOOD.replace(
        'SELECT "id" AS "id" FROM "things" ORDER BY "id";',
        "-- A comment may say DELETE; it is not sent.\n"
        'SELECT "id" AS "id", \'insert; delete\' AS "update" FROM "things" '
        "/* drop */ ORDER BY \"id\";")
    write(tmp_path, text)
    query = load_queries(tmp_path, REQUIRED).get("things", "all", None)
    assert "'insert; delete'" in query.sql


# -- convert -------------------------------------------------------------------------------


def test_convert_turns_names_into_placeholders_in_order() -> None:
    sql, names, _ = convert("SELECT :a, :b FROM t WHERE x = :a AND y = :c_2")
    assert sql == "SELECT ?, ? FROM t WHERE x = ? AND y = ?"
    assert names == ("a", "b", "a", "c_2")


@pytest.mark.parametrize("text", [
    "SELECT ':x' FROM t",
    "SELECT 'it''s :x' FROM t",
    "SELECT '07:30:00' FROM t",
    'SELECT "a:b" FROM t',
    'SELECT "a"":b" FROM t',
    "SELECT [a:b] FROM t",
    "SELECT 1 -- :x\nFROM t",
    "SELECT 1 /* :x */ FROM t",
    "SELECT 1 /* a\n :x \n*/ FROM t",
    "SELECT x::int FROM t",
    "SELECT CAST(x AS text)::varchar FROM t",
])
def test_convert_leaves_strings_names_comments_and_casts_alone(text: str) -> None:
    sql, names, _ = convert(text)
    assert sql == text
    assert names == ()


def test_convert_mixed() -> None:
    sql, names, _ = convert("SELECT ':x', \"a:b\", :y::int -- :z\nFROM t /* :w */ WHERE k = :k")
    assert sql == "SELECT ':x', \"a:b\", ?::int -- :z\nFROM t /* :w */ WHERE k = ?"
    assert names == ("y", "k")


# -- the shipped sql/ ----------------------------------------------------------------------


def _strip(sql: str) -> str:
    """The SQL with comments removed and string literals emptied; quoted names stay."""
    pattern = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.S)
    return pattern.sub(lambda m: "''" if m.group().startswith("'") else " ", sql)


def _without_names(sql: str) -> str:
    """Also blank out "quoted" and [bracketed] names."""
    return re.sub(r'"(?:[^"]|"")*"|\[[^\]]*\]', '""', _strip(sql))


def shipped() -> list[tuple[str, Query]]:
    out = []
    for stem in required_queries():
        for q in parse_file(SHIPPED_SQL_DIR / f"{stem}.sql"):
            out.append((stem, q))
    return out


SHIPPED = shipped()


def ids(item: tuple[str, Query]) -> str:
    stem, q = item
    return f"{stem}.{q.name}" + (f"[{q.dialect}]" if q.dialect else "")


def test_shipped_sql_loads() -> None:
    queries = load_queries(SHIPPED_SQL_DIR, required_queries())
    for stem, names in required_queries().items():
        for name in names:
            assert queries.get(stem, name, None).dialect is None
    assert set(required_queries()) == set(COLLECTIONS) | {"health"}


_NOT_IN_MAIN = ["LIMIT", "OFFSET", "FETCH", "FOR JSON", "STRING_AGG", "TRY_CONVERT", "IIF",
                "CONCAT", "FORMAT"]


@pytest.mark.parametrize("item", [s for s in SHIPPED if s[1].dialect is None], ids=ids)
def test_main_texts_run_on_old_sql_server(item: tuple[str, Query]) -> None:
    """SQL Server 2008 R2 has none of these; `||` is not concatenation in T-SQL."""
    _, q = item
    code = _without_names(q.sql)
    for word in _NOT_IN_MAIN:
        pattern = r"\b" + r"\s+".join(word.split()) + r"\b"
        assert not re.search(pattern, code, re.I), f"{word} in {q.source}"
    assert "||" not in code, f"|| in {q.source}"


@pytest.mark.parametrize("item", [s for s in SHIPPED if s[1].dialect is None
                                  and s[1].name.endswith("page")], ids=ids)
def test_main_page_texts_use_row_number(item: tuple[str, Query]) -> None:
    _, q = item
    code = _without_names(q.sql)
    assert re.search(r"\bROW_NUMBER\s*\(\s*\)\s*OVER\s*\(", code, re.I), q.source


@pytest.mark.parametrize("item", SHIPPED, ids=ids)
def test_no_select_star(item: tuple[str, Query]) -> None:
    _, q = item
    code = _without_names(q.sql)
    assert not re.search(r"\bSELECT\s+(DISTINCT\s+|ALL\s+)?(TOP\s*\(?\s*\d+\s*\)?\s+)?\*",
                         code, re.I), q.source
    assert not re.search(r'(\w|""|\])\s*\.\s*\*', code), q.source


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _select_list(sql: str) -> tuple[list[str], str]:
    """The items of the first SELECT list and the text after its FROM (comments/strings out)."""
    m = re.match(r"\s*SELECT\b", sql, re.I)
    assert m, f"does not start with SELECT: {sql[:60]!r}"
    depth, i = 0, m.end()
    while i < len(sql):
        c = sql[i]
        if c == '"':
            i = sql.index('"', i + 1) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and re.match(r"\bFROM\b", sql[i:], re.I) and not re.match(
                r"\w", sql[i - 1]):
            return _split_top(sql[m.end():i]), sql[i + 4:]
        i += 1
    raise AssertionError(f"no FROM in {sql[:60]!r}")


def _subquery(rest: str) -> str | None:
    """The text inside `FROM ( ... )`, if the FROM is a derived table."""
    m = re.match(r"\s*\(", rest)
    if not m:
        return None
    depth = 0
    for i in range(m.end() - 1, len(rest)):
        if rest[i] == "(":
            depth += 1
        elif rest[i] == ")":
            depth -= 1
            if depth == 0:
                return rest[m.end():i]
    raise AssertionError("unbalanced parentheses")


_ALIAS = re.compile(r'\bAS\s+"([^"]+)"\s*$', re.I | re.S)
_BARE = re.compile(r'"([^"]+)"\s*$', re.S)
_ROW_NUMBER = re.compile(r"^ROW_NUMBER\s*\(\s*\)\s*OVER\b", re.I)


@pytest.mark.parametrize("item", [s for s in SHIPPED if s[0] in COLLECTIONS
                                  and not s[1].name.endswith("count")], ids=ids)
def test_queries_select_exactly_the_record_columns(item: tuple[str, Query]) -> None:
    """Each select list names (AS "field") the columns of the record shape, in its order."""
    stem, q = item
    sql = _strip(q.sql)
    expected = columns(stem)
    items, rest = _select_list(sql)
    inner = _subquery(rest)
    if inner is None:
        aliases = []
        for it in items:
            m = _ALIAS.search(it)
            assert m, f'{q.source}: {it!r} has no AS "name"'
            aliases.append(m.group(1))
        assert aliases == expected, q.source
        return
    # A derived table (ROW_NUMBER() paging): the outer list picks the record's columns
    # (bare or aliased), the inner one aliases them and adds the position.
    outer = []
    for it in items:
        m = _ALIAS.search(it) or _BARE.fullmatch(it.strip())
        assert m, f"{q.source}: {it!r} is neither \"name\" nor AS \"name\""
        outer.append(m.group(1))
    assert outer == expected, q.source
    inner_items, _ = _select_list(inner)
    aliases = []
    for it in inner_items:
        if _ROW_NUMBER.match(it):
            continue
        m = _ALIAS.search(it)
        assert m, f'{q.source}: {it!r} has no AS "name"'
        aliases.append(m.group(1))
    assert aliases == expected, q.source


def _sample(name: str) -> object:
    return {"first_row": 1, "last_row": 10, "row_count": 10, "skip": 0, "key": 1,
            "start_date": "2026-01-01", "end_date": "2026-12-31", "start_time": "00:00:00",
            "end_time": "23:59:59", "midnight": "00:00:00"}[name]


@pytest.mark.parametrize("stem", list(COLLECTIONS))
def test_sqlite_texts_run_and_return_the_columns(stem: str, tmp_path: Path) -> None:
    """What the embedded engine runs (the sqlite variant, else the main text) executes
    against the embedded schema and returns the record's columns, in order."""
    con = sqlite3.connect(tmp_path / "empty.sqlite3")
    con.executescript(SCHEMA.read_text())
    queries = load_queries(SHIPPED_SQL_DIR, required_queries())
    for name in required_queries()[stem]:
        q = queries.get(stem, name, "sqlite")
        cursor = con.execute(q.sql, [_sample(p) for p in q.params])
        names = [d[0] for d in cursor.description]
        if name.endswith("count"):
            assert len(names) == 1 and cursor.fetchall() == [(0,)], q.source
        else:
            assert names == columns(stem), q.source
    con.close()


# -- binding and masking -------------------------------------------------------------------


def test_bind_typed_keeps_date_and_time_objects() -> None:
    """Over ODBC (SQL Server) dates go as typed parameters: a string '2026-11-05' would be
    read as 11 May under SET DATEFORMAT dmy."""
    values = {"start_date": dt.date(2026, 11, 5), "start_time": dt.time(7, 30),
              "first_row": 1, "midnight": dt.time(0, 0)}
    out = bind(values, ("start_date", "midnight", "start_time", "start_date", "first_row"),
               typed=True)
    assert out == (dt.date(2026, 11, 5), dt.time(0, 0), dt.time(7, 30), dt.date(2026, 11, 5), 1)
    assert type(out[0]) is dt.date and type(out[2]) is dt.time
    assert not any(isinstance(v, str) for v in out)


def test_bind_untyped_gives_iso_text() -> None:
    values = {"start_date": dt.date(2026, 11, 5), "start_time": dt.time(7, 30),
              "end_time": dt.time(23, 59, 59), "first_row": 1}
    out = bind(values, ("start_date", "start_time", "end_time", "first_row"), typed=False)
    assert out == ("2026-11-05", "07:30:00", "23:59:59", 1)


def test_bind_without_parameters() -> None:
    assert bind({"unused": 1}, (), typed=True) == ()


@pytest.mark.parametrize(("text", "secret"), [
    ("Driver={ODBC Driver 18 for SQL Server};Server=wb01;UID=ro;PWD=s3cr3tX;Encrypt=yes",
     "s3cr3tX"),
    ("Driver=x;Server=wb01;UID=ro;Password=s3cr3tX;Encrypt=yes", "s3cr3tX"),
    ("Driver=x;Server=wb01;UID=ro;pwd=s3cr3tX", "s3cr3tX"),
    ("Driver=x;Server=wb01;UID=ro;PASSWORD = s3cr3tX ;Encrypt=yes", "s3cr3tX"),
    ("Driver=x;Server=wb01;UID=ro;PWD={s3c;r3tX=};Encrypt=yes", "r3tX"),
    ("Driver=x;Server=wb01;UID=ro;PWD={s3c;r3tX=};Encrypt=yes", "s3c"),
    ("[Microsoft][ODBC] Login failed (PWD=s3cr3tX)", "s3cr3tX"),
])
def test_mask_password(text: str, secret: str) -> None:
    masked = mask_password(text)
    assert secret not in masked
    assert "wb01" in masked or "Login failed" in masked
    assert "Encrypt=yes" in masked or "Encrypt" not in text


def test_mask_password_braced_with_an_escaped_brace() -> None:
    """ODBC writes a '}' inside a braced value as '}}': PWD={ab}}cd;ef} is 'ab}cd;ef'."""
    masked = mask_password("Driver=x;Server=wb01;UID=ro;PWD={Qa}}Zc;Wf};Encrypt=yes")
    for part in ("Qa", "Zc", "Wf"):
        assert part not in masked
    assert "Server=wb01" in masked and "Encrypt=yes" in masked


def test_mask_password_leaves_other_text_alone() -> None:
    text = "Driver=x;Server=wb01;UID=ro;Database=Timbangan"
    assert mask_password(text) == text
