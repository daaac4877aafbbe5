"""The .sql loader (app/database/loading.py, with sqlfiles, sqltext and templates), the
shipped sql/ files, and parameter binding (app/database/db.py).

The loader must refuse a malformed file at start, naming the file and the line, rather than
let a site's edited copy run something unexpected against the plant's database; and it fills
each shape of sql/shapes.sql in for each collection, with the collection's `records` in front.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from app.core.summaries import MEASURES
from app.database.db import FREETDS_TYPED_DATES_FROM, bind, mask_password
from app.database.loading import load_queries
from app.database.sqlfiles import parse_file
from app.database.sqltext import QueryFileError, convert, quote, without_comments
from app.database.templates import Slot, Statement, Template, Where, described, fill
from app.model.collections import COLLECTIONS, Collection
from app.model.schemas import shape
from app.model.tables import script
from app.ops.config import SHIPPED_SQL_DIR
from tests.contract import COLLECTIONS as DOCUMENTED
from tests.contract import PRODUCTION, WEIGHING, columns
from tests.test_read_kinds import spelt_reads

# A collection of the tests' own: its table names every column differently from its fields.
THING = shape("Thing", "id:int name:str tanggal:date jam:time", "A thing.")
THINGS = Collection("things", THING, "id", ("id",), ("tanggal",))
RECORDS = """\
-- name: records
-- Where each field of a thing comes from.
SELECT "ID" AS "id", "Nama" AS "name", "Tgl" AS "tanggal", "Jam" AS "jam"
FROM "Barang";
"""
# The reads of things (unnumbered, on tanggal, no summary), from the table of read kinds.
THING_READS = spelt_reads(("tanggal",), summary=False, numbered=False)


def write(tmp_path: Path, text: str, stem: str = "things") -> Path:
    path = tmp_path / f"{stem}.sql"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str = RECORDS):
    """The queries of things.sql holding `text`, with Jembatan's own shapes."""
    write(tmp_path, text)
    return load_queries(tmp_path, [THINGS], SHIPPED_SQL_DIR)


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based number of the line holding the n-th occurrence of `needle`."""
    seen = 0
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in the text")


def load_error(tmp_path: Path, text: str, stem: str = "things") -> str:
    path = write(tmp_path, text, stem)
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [THINGS], SHIPPED_SQL_DIR)
    message = str(info.value)
    assert str(path) in message, f"the message does not name the file: {message}"
    return message


# -- a collection's file: records, and the reads filled in from the shapes -------------------


def test_every_read_is_a_shape_reading_the_records(tmp_path: Path) -> None:
    queries = load(tmp_path)
    records = 'SELECT "ID" AS "id", "Nama" AS "name", "Tgl" AS "tanggal", "Jam" AS "jam"\n' \
              'FROM "Barang"'
    assert queries.get("things", "records", None).sql == records
    by_key = queries.get("things", "by_key", None)
    assert by_key.sql == (f'WITH "records" AS (\n{records}\n)\n'
                          'SELECT "id", "name", "tanggal", "jam"\nFROM "records"\n'
                          'WHERE "id" = ?')
    assert by_key.params == ("key",)
    assert by_key.source.startswith(f"{SHIPPED_SQL_DIR / 'shapes.sql'}:")
    assert f"records at {tmp_path / 'things.sql'}:1" in by_key.source
    # and the mapping tried without reading a row (database.sql's mapped, app/core/mapped.py)
    assert queries.names("things") == ["records", *THING_READS, "mapped"]
    assert queries.get("things", "mapped", None).sql == (
        f'WITH "records" AS (\n{records}\n)\nSELECT * FROM "records" WHERE 1 = 0')
    # SQLite's mapping names each column [bracketed]: a name the table lacks is refused, not
    # read as a string (docs/adapting.md, "When the database refuses the mapping").
    sqlite = 'SELECT [ID] AS [id], [Nama] AS [name], [Tgl] AS [tanggal], [Jam] AS [jam]\n' \
             'FROM [Barang]'
    assert queries.get("things", "records", "sqlite").sql == sqlite
    assert queries.get("things", "mapped", "sqlite").sql == (
        f'WITH "records" AS (\n{sqlite}\n)\nSELECT * FROM "records" WHERE 1 = 0')
    for name in THING_READS:
        for dialect, mapping in ((None, records), ("sqlite", sqlite)):
            sql = queries.get("things", name, dialect).sql
            front = f'WITH "records" AS (\n{mapping}\n)'
            assert sql.startswith(front), (name, dialect)
            # A range read has the range's records next, as "in_range" (range_rows).
            assert sql.startswith(f'{front},\n"in_range" AS (\n') == name.startswith(
                ("range", "summary")), (name, dialect)
            # Nothing after the records names the site's table or columns.
            rest = sql[len(front):]
            assert not {'"Barang"', '"ID"', '"Nama"', '"Tgl"', '"Jam"'} & set(
                re.findall(r'"[^"]*"', rest)), (name, dialect)


def test_each_engine_gets_its_text_of_each_shape(tmp_path: Path) -> None:
    queries = load(tmp_path)
    main = queries.get("things", "page", None)
    variant = queries.get("things", "page", "sqlite")
    assert main.dialect is None and main.params == ("first_row", "last_row")
    assert "ROW_NUMBER() OVER (ORDER BY CASE WHEN \"id\" IS NULL THEN 0 ELSE 1 END, \"id\")" \
        in main.sql
    assert variant.dialect == "sqlite" and variant.params == ("row_count", "skip")
    assert variant.sql.endswith('ORDER BY "id"\nLIMIT ? OFFSET ?')
    # No variant: the main text serves that dialect too, with SQLite's text of the mapping.
    assert queries.get("things", "by_key", "sqlite").sql == queries.get(
        "things", "by_key", None).sql.replace(
        '"ID" AS "id", "Nama" AS "name", "Tgl" AS "tanggal", "Jam" AS "jam"\nFROM "Barang"',
        '[ID] AS [id], [Nama] AS [name], [Tgl] AS [tanggal], [Jam] AS [jam]\nFROM [Barang]')
    # A range orders by its date and time, then the canonical order.
    assert queries.get("things", "range_tanggal", "sqlite").sql.endswith(
        'ORDER BY "tanggal", "jam", "id"')
    assert queries.get("things", "range_tanggal", None).params == (
        "start_date", "end_date", "start_date", "midnight", "start_time", "end_date",
        "midnight", "end_time")


def test_descriptions_name_the_fields(tmp_path: Path) -> None:
    queries = load(tmp_path)
    assert queries.get("things", "records", None).description == (
        "Where each field of a thing comes from.")
    described = queries.get("things", "range_tanggal", "sqlite").description
    assert described.startswith('Records whose "tanggal" + "jam" ')
    assert "(sqlite: Plain ORDER BY" in described


def test_a_records_query_for_another_engine(tmp_path: Path) -> None:
    text = RECORDS + ('\n-- name: records\n-- dialect: sqlite\n'
                      'SELECT "ID" AS "id", "Nama" AS "name", date("Waktu") AS "tanggal", '
                      'time("Waktu") AS "jam" FROM "Barang";\n')
    queries = load(tmp_path, text)
    assert "date([Waktu])" in queries.get("things", "all", "sqlite").sql
    assert 'date("Waktu")' not in queries.get("things", "all", None).sql
    # The SQLite text of a shape goes with the SQLite records, and the main with the main.
    assert queries.get("things", "all", "sqlite").sql.endswith('ORDER BY "id"')


def test_a_collection_overrides_a_shape_by_name(tmp_path: Path) -> None:
    text = RECORDS + '\n-- name: page\n-- A site\'s own paging.\nSELECT {fields} FROM ' \
                     '"records" WHERE "id" BETWEEN :first_row AND :last_row ORDER BY {order};\n'
    queries = load(tmp_path, text)
    for dialect in (None, "sqlite"):  # the site's text, on every engine
        page = queries.get("things", "page", dialect)
        assert page.sql.endswith('SELECT "id", "name", "tanggal", "jam" FROM "records" '
                                 'WHERE "id" BETWEEN ? AND ? ORDER BY "id"')
        assert page.source.startswith(f"{tmp_path / 'things.sql'}:")
    assert "LIMIT" in queries.get("things", "range_tanggal_page", "sqlite").sql


def test_a_collection_overrides_one_range_by_its_name(tmp_path: Path) -> None:
    text = RECORDS + ('\n-- name: range_tanggal_count\nSELECT COUNT(*) AS "total" FROM '
                      '"records" WHERE {date} BETWEEN :start_date AND :end_date;\n')
    queries = load(tmp_path, text)
    assert queries.get("things", "range_tanggal_count", "sqlite").sql.endswith(
        'SELECT COUNT(*) AS "total" FROM "records" WHERE "tanggal" BETWEEN ? AND ?')


def test_a_site_shapes_file_replaces_jembatans(tmp_path: Path) -> None:
    shapes = (SHIPPED_SQL_DIR / "shapes.sql").read_text().replace(
        "-- Every record, in canonical order.\n", "-- Every record, the site's way.\n")
    write(tmp_path, shapes, "shapes")
    queries = load(tmp_path)
    assert queries.get("things", "all", None).description == "Every record, the site's way."
    assert queries.files["shapes"] == tmp_path / "shapes.sql"
    (tmp_path / "shapes.sql").unlink()
    assert load(tmp_path).files["shapes"] == SHIPPED_SQL_DIR / "shapes.sql"


def test_records_must_come_first(tmp_path: Path) -> None:
    text = '-- name: all\nSELECT {fields} FROM "records" ORDER BY {order};\n\n' + RECORDS
    message = load_error(tmp_path, text)
    assert "must start with '-- name: records'" in message
    assert "things.sql:1:" in message


def test_records_missing_is_refused(tmp_path: Path) -> None:
    message = load_error(tmp_path, '-- name: all\nSELECT {fields} FROM "records";\n')
    assert "records" in message


def test_records_that_gives_no_field_is_refused(tmp_path: Path) -> None:
    message = load_error(tmp_path, RECORDS.replace('"Tgl" AS "tanggal"', '"Tgl" AS "tgl"'))
    assert "records gives no tanggal" in message
    assert 'NULL AS "tanggal"' in message and 'CAST(NULL AS date)' in message
    assert "things.sql:1:" in message


@pytest.mark.parametrize(("old", "new", "words"), [
    ('FROM "Barang"', 'FROM "Barang" WHERE "ID" > :key', "no parameters"),
    ('FROM "Barang"', 'FROM "Barang" ORDER BY "ID"', "ORDER BY"),
    ('SELECT "ID"', 'WITH "x" AS (SELECT 1 AS "y") SELECT "ID"', "must start with SELECT"),
    ('SELECT "ID" AS "id"', 'SELECT "ID" AS "id" INTO "copy"', "into"),
])
def test_records_is_one_plain_select(tmp_path: Path, old: str, new: str, words: str) -> None:
    message = load_error(tmp_path, RECORDS.replace(old, new))
    assert words in message
    assert "things.sql:1:" in message


def test_an_ordered_subquery_inside_records_is_fine(tmp_path: Path) -> None:
    text = RECORDS.replace('FROM "Barang"', 'FROM (SELECT TOP 100 PERCENT * FROM "Barang" '
                                            'ORDER BY "ID") AS "b"')
    assert "ORDER BY" in load(tmp_path, text).get("things", "records", None).sql


def test_comments_inside_a_query_are_not_sent(tmp_path: Path) -> None:
    text = RECORDS.replace('"Nama" AS "name",', '"Nama" AS "name", -- TODO; check it\n   ')
    sql = load(tmp_path, text).get("things", "all", "sqlite").sql
    assert "TODO" not in sql and ";" not in sql
    assert "[Nama] AS [name],\n    [Tgl] AS [tanggal]" in sql


# -- what every file is refused for ---------------------------------------------------------


def test_empty_query(tmp_path: Path) -> None:
    text = RECORDS + "\n-- name: count\n-- nothing here yet\n"
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: count')}:" in message


def test_empty_query_of_only_a_semicolon(tmp_path: Path) -> None:
    text = RECORDS + "\n-- name: count\n;\n"
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: count')}:" in message


def test_duplicate_name(tmp_path: Path) -> None:
    text = RECORDS + '\n' + RECORDS
    message = load_error(tmp_path, text)
    assert "duplicate query 'records'" in message
    assert f"things.sql:{line_of(text, '-- name: records', 2)}:" in message


def test_duplicate_name_of_the_same_dialect(tmp_path: Path) -> None:
    page = '-- name: page\n-- dialect: sqlite\nSELECT {fields} FROM "records" LIMIT :row_count;\n'
    text = RECORDS + '\n-- name: page\nSELECT {fields} FROM "records";\n\n' + page + "\n" + page
    message = load_error(tmp_path, text)
    assert "page" in message and "dialect sqlite" in message
    assert f"things.sql:{line_of(text, '-- name: page', 3)}:" in message


def test_a_dialect_variant_alone_is_refused(tmp_path: Path) -> None:
    text = RECORDS + ('\n-- name: page\n-- dialect: sqlite\n'
                      'SELECT {fields} FROM "records" LIMIT :row_count OFFSET :skip;\n')
    message = load_error(tmp_path, text)
    assert "needs a main text" in message
    assert f"things.sql:{line_of(text, '-- name: page')}:" in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [THINGS], SHIPPED_SQL_DIR)
    assert str(tmp_path / "things.sql") in str(info.value)


def test_unknown_name(tmp_path: Path) -> None:
    text = RECORDS + '\n-- name: everything\nSELECT {fields} FROM "records";\n'
    message = load_error(tmp_path, text)
    assert "everything" in message and "range_tanggal_page" in message
    assert f"things.sql:{line_of(text, '-- name: everything')}:" in message


def test_a_range_of_another_on_is_an_unknown_name(tmp_path: Path) -> None:
    text = RECORDS + '\n-- name: range_dt1\nSELECT {fields} FROM "records";\n'
    assert "range_dt1" in load_error(tmp_path, text)


def test_unknown_dialect(tmp_path: Path) -> None:
    text = RECORDS + ('\n-- name: all\nSELECT {fields} FROM "records";\n\n-- name: all\n'
                      '-- dialect: mssql\nSELECT {fields} FROM "records";\n')
    message = load_error(tmp_path, text)
    assert "mssql" in message
    assert f"things.sql:{line_of(text, '-- name: all', 2)}:" in message


@pytest.mark.parametrize("statement", [
    'INSERT INTO "Barang" ("ID") VALUES (1)',
    'UPDATE "Barang" SET "ID" = 2',
    'DELETE FROM "Barang"',
    "EXEC sp_who",
    "EXECUTE sp_who",
    'CREATE TABLE "other" ("id" INTEGER)',
    'DROP TABLE "Barang"',
    'ALTER TABLE "Barang" ADD "x" INTEGER',
    'TRUNCATE TABLE "Barang"',
    'MERGE INTO "Barang" USING "other" ON 1 = 1 WHEN MATCHED THEN DELETE',
    "PRAGMA writable_schema = 1",
    "ATTACH DATABASE 'other.db' AS other",
    'WITH x AS (SELECT 1 AS "id") DELETE FROM "Barang"',
    "insert into Barang values (1)",
])
@pytest.mark.parametrize("where", ["records", "override"])
def test_statement_that_is_not_a_select(tmp_path: Path, statement: str, where: str) -> None:
    if where == "records":
        text = f"-- name: records\n{statement};\n"
        block = "-- name: records"
    else:
        text = RECORDS + f"\n-- name: all\n{statement};\n"
        block = "-- name: all"
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, block)}:" in message


def test_select_into_in_an_override(tmp_path: Path) -> None:
    text = RECORDS + '\n-- name: all\nSELECT {fields} INTO "backup" FROM "records";\n'
    message = load_error(tmp_path, text)
    assert f"things.sql:{line_of(text, '-- name: all')}:" in message


@pytest.mark.parametrize("second", ['SELECT 2 AS "id"', 'DROP TABLE "Barang"'])
def test_two_statements_in_one_block(tmp_path: Path, second: str) -> None:
    text = RECORDS.replace('FROM "Barang";', f'FROM "Barang";\n{second};')
    message = load_error(tmp_path, text)
    assert message == (f"{tmp_path / 'things.sql'} line 5, column 1 (the query records of "
                       f"line 1): text after the ';' that ends the query; one statement per "
                       f"name, and nothing after its ';' but a comment")


@pytest.mark.parametrize("after", ["  -- the end of the mapping", " /* the end */",
                                   "\n-- a comment line\n"])
def test_a_comment_after_the_semicolon_ends_the_query_too(tmp_path: Path, after: str) -> None:
    """A `;` and a comment after it on the same line: the query is the same as
    with the `;` alone, and every read of it runs."""
    plain = load(tmp_path).get("things", "by_key", None).sql
    ended = load(tmp_path, RECORDS.replace('FROM "Barang";', f'FROM "Barang";{after}'))
    assert ended.get("things", "by_key", None).sql == plain


def test_a_word_after_the_semicolon_is_refused_where_it_is(tmp_path: Path) -> None:
    text = RECORDS.replace('FROM "Barang";', 'FROM "Barang"; -- the end\n  WHERE 1 = 1')
    assert load_error(tmp_path, text) == (
        f"{tmp_path / 'things.sql'} line 5, column 3 (the query records of line 1): text "
        f"after the ';' that ends the query; one statement per name, and nothing after its "
        f"';' but a comment")


def test_sql_before_the_first_name(tmp_path: Path) -> None:
    message = load_error(tmp_path, 'SELECT 1 AS "id";\n' + RECORDS)
    assert f"{tmp_path / 'things.sql'}:1:" in message


@pytest.mark.parametrize(("name", "body", "param"), [
    ("all", 'SELECT {fields} FROM "records" WHERE "id" = :key', "key"),
    ("count", 'SELECT COUNT(*) AS "total" FROM "records" WHERE "id" > :first_row', "first_row"),
    ("by_key", 'SELECT {fields} FROM "records" WHERE {key} = :id', "id"),
    ("page", 'SELECT {fields} FROM "records" LIMIT :row_count OFFSET :offset', "offset"),
    ("range_tanggal_count", 'SELECT COUNT(*) AS "total" FROM "records" WHERE "id" = :key',
     "key"),
])
def test_unknown_parameter_for_that_kind_of_query(tmp_path: Path, name: str, body: str,
                                                  param: str) -> None:
    text = RECORDS + f"\n-- name: {name}\n{body};\n"
    message = load_error(tmp_path, text)
    assert f"unknown parameter :{param}" in message
    assert f"things.sql:{line_of(text, f'-- name: {name}')}" in message


def test_a_read_that_does_not_start_with_select(tmp_path: Path) -> None:
    text = RECORDS + '\n-- name: all\nWITH "x" AS (SELECT 1 AS "y") SELECT {fields} FROM "x";\n'
    message = load_error(tmp_path, text)
    assert "must start with SELECT" in message
    assert f"things.sql:{line_of(text, '-- name: all')}" in message


@pytest.mark.parametrize(("name", "body", "placeholder"), [
    ("all", 'SELECT {fields} FROM "records" ORDER BY {date}', "{date}"),
    ("all", 'SELECT {columns} FROM "records"', "{columns}"),
    ("range_tanggal", 'SELECT {fields} FROM "records" ORDER BY {order:{} DESC', "{order:"),
])
def test_a_placeholder_it_cannot_fill(tmp_path: Path, name: str, body: str,
                                      placeholder: str) -> None:
    text = RECORDS + f"\n-- name: {name}\n{body};\n"
    message = load_error(tmp_path, text)
    assert placeholder in message
    assert f"things.sql:{line_of(text, f'-- name: {name}')}" in message


def test_a_site_shapes_file_that_lacks_a_shape(tmp_path: Path) -> None:
    write(tmp_path, RECORDS)
    shapes = write(tmp_path, '-- name: all\nSELECT {fields} FROM "records";\n', "shapes")
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [THINGS], SHIPPED_SQL_DIR)
    assert str(shapes) in str(info.value) and "range_page" in str(info.value)


def test_forbidden_words_inside_strings_and_quoted_names_are_fine(tmp_path: Path) -> None:
    text = RECORDS.replace('"Nama" AS "name"',
                           '\'insert; delete\' AS "update", "Nama" /* drop */ AS "name"')
    query = load(tmp_path, text).get("things", "records", None)
    assert "'insert; delete'" in query.sql and "drop" not in query.sql


# -- filling in ------------------------------------------------------------------------------


def test_fill_quotes_and_joins_the_names() -> None:
    values = {"order": ("tanggal", "no"), "fields": ("a",), "date": ()}
    assert fill("ORDER BY {order}", values, "here") == 'ORDER BY "tanggal", "no"'
    filled = fill("ORDER BY {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}", values,
                  "here")
    assert " ".join(filled.split()) == ('ORDER BY CASE WHEN "tanggal" IS NULL THEN 0 ELSE 1 END, '
                            '"tanggal", CASE WHEN "no" IS NULL THEN 0 ELSE 1 END, "no"')
    # Nothing to list: the ", " before it goes too.
    assert fill('ORDER BY "x", {date}', values, "here") == 'ORDER BY "x"'
    assert quote('a"b') == '"a""b"'


def test_fill_wraps_a_long_list_between_names() -> None:
    names = tuple(f"field_number_{n}" for n in range(12))
    text = fill("    SELECT {fields}", {"fields": names}, "here")
    lines = text.split("\n")
    assert len(lines) > 1 and all(len(line) <= 96 for line in lines)
    assert all(line.startswith("        ") for line in lines[1:])
    assert re.findall(r'"(\w+)"', text) == list(names)


def test_a_template_is_parsed_once_and_filled_in_stages() -> None:
    text = ('SELECT {fields}\nFROM "in_range"\n    {where_filters}\n'
            'ORDER BY {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}')
    template = Template.parse(text, "here")
    assert [n.source for n in template.nodes if isinstance(n, Slot)] == [
        "{fields}", "{where_filters}", "{order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}"]
    assert template.text() == text and template.reads("in_range")
    filled = template.fill({"fields": ("a", "b"), "order": ("a",)}, "here")
    assert filled.takes("where_filters") and not filled.takes("fields", "order")
    assert filled.finish(None) == ('SELECT "a", "b"\nFROM "in_range"\n'
                                   'ORDER BY CASE WHEN "a" IS NULL THEN 0 ELSE 1 END, "a"')
    where = Where(('"a" = :filter_0', '"b" IS NULL'), (), {})
    assert filled.finish(where) == (
        'SELECT "a", "b"\nFROM "in_range"\n    WHERE "a" = :filter_0\n      AND "b" IS NULL\n'
        'ORDER BY CASE WHEN "a" IS NULL THEN 0 ELSE 1 END, "a"')
    # A placeholder this query may not use, and one never closed, name where they stand.
    with pytest.raises(QueryFileError, match=r"^here: no placeholder \{key\} here"):
        Template.parse("SELECT {key}", "here").fill({"fields": ()}, "here")
    with pytest.raises(QueryFileError, match=r"^there: \{order: is never closed"):
        Template.parse("ORDER BY {order:{} DESC", "there")
    # Prose keeps what it cannot read as written.
    assert described("By {order}, {order:x, then {date}.", {"order": ("id",)}) == (
        'By "id", {order:x, then {date}.')


def test_a_read_is_composed_with_its_common_table_expressions() -> None:
    statement = Statement((("records", Template.verbatim('SELECT 1 AS "a"')),
                           ("in_range", Template.parse('SELECT "a" FROM "records"\n'
                                                       '{and_filters}', "here"))),
                          Template.parse('SELECT {fields} FROM "in_range"', "here"))
    statement = statement.fill({"fields": ("a",)}, "here")
    assert statement.takes("and_filters") and not statement.grouped
    assert statement.sql(None) == ('WITH "records" AS (\nSELECT 1 AS "a"\n),\n'
                                   '"in_range" AS (\nSELECT "a" FROM "records"\n)\n'
                                   'SELECT "a" FROM "in_range"')
    alone = Statement((), Template.parse("SELECT * FROM {table}", "here"))
    assert alone.fill({"table": '"dbo"."T"'}, "here").sql(None) == 'SELECT * FROM "dbo"."T"'
    with pytest.raises(ValueError, match="never filled in"):
        alone.sql(None)  # a placeholder left is a fault of Jembatan's, never sent


# One file serving two collections alike but for their table (docs/adapting.md, "One file for
# several tables alike").
OTHERS = replace(THINGS, name="others")
SERVING = """\
-- Things and others, alike but for their tables.
-- serves: things = "dbo"."Barang", others
-- name: records
SELECT "ID" AS "id", "Nama" AS "name", "Tgl" AS "tanggal", "Jam" AS "jam"
FROM {table};
"""


def test_one_file_serves_several_collections_each_from_its_table(tmp_path: Path) -> None:
    path = write(tmp_path, SERVING, "alike")
    queries = load_queries(tmp_path, [THINGS, OTHERS], SHIPPED_SQL_DIR)
    select = 'SELECT "ID" AS "id", "Nama" AS "name", "Tgl" AS "tanggal", "Jam" AS "jam"\n'
    assert queries.get("things", "records", None).sql == select + 'FROM "dbo"."Barang"'
    assert queries.get("others", "records", None).sql == select + 'FROM "others"'
    assert queries.get("others", "by_key", None).sql == (
        f'WITH "records" AS (\n{select}FROM "others"\n)\nSELECT "id", "name", "tanggal", "jam"'
        '\nFROM "records"\nWHERE "id" = ?')
    assert queries.files == {"database": SHIPPED_SQL_DIR / "database.sql",
                             "shapes": SHIPPED_SQL_DIR / "shapes.sql",
                             "things": path, "others": path}
    # A table the database does not have is placed at the line that names it.
    assert queries.place("things", '"Barang"', None) == (str(path), 2, 12, None)
    assert queries.place("others", "others", None) == (str(path), 2, 37, None)
    # A collection's own file wins over the file that serves it with others.
    own = write(tmp_path, RECORDS)
    queries = load_queries(tmp_path, [THINGS, OTHERS], SHIPPED_SQL_DIR)
    assert queries.files["things"] == own and queries.files["others"] == path
    assert queries.get("things", "records", None).sql.endswith('FROM "Barang"')


@pytest.mark.parametrize(("text", "line", "said"), [
    (SERVING.replace("FROM {table}", 'FROM "Barang"'), 3, "its records read FROM {table}"),
    (SERVING.replace("FROM {table}", "FROM {table} {order}"), 3, "no placeholder {order}"),
    (SERVING.replace(", others", " others"), 2, "`-- serves:` lists collections"),
    (SERVING.replace('"dbo"."Barang"', "Barang; DROP"), 2, "`-- serves:` lists collections"),
])
def test_a_file_that_serves_several_is_checked(tmp_path: Path, text: str, line: int,
                                               said: str) -> None:
    path = write(tmp_path, text, "alike")
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [THINGS, OTHERS], SHIPPED_SQL_DIR)
    assert str(info.value).startswith(f"{path}:{line}") and said in str(info.value)


def test_a_collection_served_by_two_files_is_refused(tmp_path: Path) -> None:
    first = write(tmp_path, SERVING, "alike")
    second = write(tmp_path, SERVING.replace("things = ", "something = "), "twice")
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [THINGS, OTHERS], SHIPPED_SQL_DIR)
    assert str(info.value) == f"{second}:2: others is served already by {first}:2"


def test_a_collection_no_file_serves_is_missing(tmp_path: Path) -> None:
    write(tmp_path, SERVING.replace(", others", ""), "alike")
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [THINGS, OTHERS], SHIPPED_SQL_DIR)
    assert str(info.value) == (f"{tmp_path / 'others.sql'}: missing (database.sql_dir is "
                               f"{tmp_path}); a site without others leaves it out of "
                               f"collections.serve")


def test_without_comments() -> None:
    sql = ('SELECT "a", -- one; two\n  \'--not\' AS "b" /* three */\n-- four\nFROM "t"  \n\n'
           'WHERE 1 = 1')
    assert without_comments(sql) == ('SELECT "a",\n  \'--not\' AS "b"\nFROM "t"\nWHERE 1 = 1')


# -- convert ---------------------------------------------------------------------------------


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


# -- the shipped sql/ ------------------------------------------------------------------------


def _strip(sql: str) -> str:
    """The SQL with comments removed and string literals emptied; quoted names stay."""
    pattern = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.S)
    return pattern.sub(lambda m: "''" if m.group().startswith("'") else " ", sql)


def _without_names(sql: str) -> str:
    """Also blank out "quoted" and [bracketed] names."""
    return re.sub(r'"(?:[^"]|"")*"|\[[^\]]*\]', '""', _strip(sql))


SHIPPED = load_queries(SHIPPED_SQL_DIR, COLLECTIONS)
READS = [(c.name, name, dialect) for c in COLLECTIONS for name in c.query_names()
         for dialect in (None, "sqlite")]


def ids(item: tuple[str, str, str | None]) -> str:
    stem, name, dialect = item
    return f"{stem}.{name}" + (f"[{dialect}]" if dialect else "")


def test_shipped_sql_holds_the_mappings_the_shapes_and_the_database_queries() -> None:
    assert {p.stem for p in SHIPPED_SQL_DIR.glob("*.sql")} == {
        c.name for c in COLLECTIONS} | {"shapes", "database"}
    assert set(DOCUMENTED) == {c.name for c in COLLECTIONS}


@pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.name)
def test_each_collection_file_is_its_records_query_alone(c: Collection) -> None:
    """The shipped mapping: the table of the collection's name, each column as its field,
    and a weighing's `cancelled` 0 (the service description's tables have no void marker)."""
    [block] = parse_file(SHIPPED_SQL_DIR / f"{c.name}.sql")
    assert block.name == "records" and block.dialect is None
    lines = [f'    "{f}" AS "{f}"' for f in columns(c.name)]
    if "cancelled" in DOCUMENTED[c.name][0]:
        lines.append('    0 AS "cancelled"')
    assert block.text == "SELECT\n" + ",\n".join(lines) + f'\nFROM "{c.name}"'


def test_no_query_but_records_names_a_site_table_or_column() -> None:
    """The shapes speak of "records" and of the names they make; a field name they use comes
    from a placeholder, or is one of the API's own fields that a summary measures (weigh1,
    adonan_sv...: docs/api.md §7 names them), never a site's column."""
    measured = {f for shape in (WEIGHING, PRODUCTION) for f in shape
                if f.startswith(("weigh1", "weigh2", "temperature_sv", "temperature_pv"))
                or f == "adjustweigh"
                or f.endswith(("_sv", "_pv"))}
    summaries = {"in_range", "grouped", "day", "month", "hour", "direction", "records",
                 "weighed", "net", "net_min", "net_max", "deduction", "batches",
                 "net_g", "deduction_g",  # SQLite's weights in whole grams
                 "temperature_sv_sum", "temperature_sv_count", "temperature_pv_sum",
                 "temperature_pv_count",
                 # name_of: the master's records as the lookup's two aliases, and their id
                 "named", "earlier", "id"}
    for stem, own in (("shapes", {"records", "numbered", "position", "total", *summaries,
                                  *measured, "clock", "feed_now"}),
                      ("database", {"ok", "sqlite_master", "version", "data_version",
                                    "table_schema", "name", "type", "cid",
                                    "local_now", "utc_now",
                                    # sample: its own aliases around the site's {table}
                                    "sampled", "numbered", "jembatan_sample_row",
                                    # mapped: the collection's records put in front of it
                                    "records"})):
        for block in parse_file(SHIPPED_SQL_DIR / f"{stem}.sql"):
            names = set(re.findall(r'"([^"]*)"', _strip(block.text)))
            assert names <= own, (block.source, names - own)


_NOT_IN_MAIN = ["LIMIT", "OFFSET", "FETCH", "FOR JSON", "STRING_AGG", "TRY_CONVERT", "IIF",
                "CONCAT", "FORMAT"]


@pytest.mark.parametrize("item", [r for r in READS if r[2] is None], ids=ids)
def test_main_texts_run_on_old_sql_server(item: tuple[str, str, str | None]) -> None:
    """SQL Server 2008 R2 has none of these; `||` is not concatenation in T-SQL."""
    q = SHIPPED.get(*item)
    code = _without_names(q.sql)
    for word in _NOT_IN_MAIN:
        pattern = r"\b" + r"\s+".join(word.split()) + r"\b"
        assert not re.search(pattern, code, re.I), f"{word} in {q.source}"
    assert "||" not in code, f"|| in {q.source}"
    if item[1].endswith("page"):
        assert re.search(r"\bROW_NUMBER\s*\(\s*\)\s*OVER\s*\(", code, re.I), q.source


@pytest.mark.parametrize("item", READS, ids=ids)
def test_no_select_star(item: tuple[str, str, str | None]) -> None:
    code = _without_names(SHIPPED.get(*item).sql)
    assert not re.search(r"\bSELECT\s+(DISTINCT\s+|ALL\s+)?(TOP\s*\(?\s*\d+\s*\)?\s+)?\*",
                         code, re.I)
    assert not re.search(r'(\w|""|\])\s*\.\s*\*', code)


def _sample(name: str) -> object:
    return {"first_row": 1, "last_row": 10, "row_count": 10, "skip": 0, "key": 1,
            "start_date": "2026-01-01", "end_date": "2026-12-31", "start_time": "00:00:00",
            "end_time": "23:59:59", "midnight": "00:00:00", "from_date": "2026-01-01",
            "from_time": "00:00:00", "within_date": "2026-01-01", "within_time": "00:00:00",
            "next_date": "2026-01-01", "next_time": "00:00:01"}.get(
                name, -1 if name.endswith("_set") else 0)  # {after}: from the second's first


@pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.name)
def test_sqlite_texts_run_and_return_the_columns(c: Collection) -> None:
    """What the embedded engine runs (the sqlite variant, else the main text) executes
    against the embedded schema, returns the record's columns in order, and is served by an
    index without a sort: the records CTE is inlined, as the table's own query would be."""
    con = sqlite3.connect(":memory:")
    con.executescript(script("sqlite"))
    fields = [f for f in DOCUMENTED[c.name][0] if f in c.fields]  # the columns, cancelled too
    for name in c.query_names():
        q = SHIPPED.get(c.name, name, "sqlite")
        values = [_sample(p) for p in q.params]
        cursor = con.execute(q.sql, values)
        names = [d[0] for d in cursor.description]
        if name.endswith("count"):
            assert len(names) == 1 and cursor.fetchall() == [(0,)], q.source
        elif name.startswith("summary_"):  # by day: the day, then what app/summaries reads
            assert names == ["day", *MEASURES[c.summary].columns], q.source
        elif name.startswith("changes_"):  # the feed's records and the server's clock
            assert names == [*fields, "feed_now"], q.source
        else:
            assert names == fields, q.source
        plan = " / ".join(r[3] for r in con.execute("EXPLAIN QUERY PLAN " + q.sql, values))
        if name.startswith("summary_"):  # the range by its index; then the groups are sorted
            plan = plan.removesuffix(" / USE TEMP B-TREE FOR ORDER BY")
        if name.endswith("_within"):  # one second by its index, its records sorted by key
            plan = plan.removesuffix(" / USE TEMP B-TREE FOR ORDER BY")
        assert re.fullmatch(r"(SCAN|SEARCH) \w+ USING (COVERING )?INDEX \w+( \(.*\))?", plan), \
            (name, plan)
    con.close()


# -- binding and masking ---------------------------------------------------------------------


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


def test_bind_sends_dates_a_driver_cannot_carry_as_unseparated_iso_text() -> None:
    """FreeTDS encodes a typed date before 1600-03-01 wrongly (app/database/db.py): such a date goes
    as 'YYYYMMDD', which SQL Server reads alike under every DATEFORMAT; later ones stay typed."""
    values = {"start_date": dt.date(1, 1, 1), "end_date": dt.date(1600, 2, 29),
              "on": dt.date(1600, 3, 1), "start_time": dt.time(0, 0), "first_row": 1}
    out = bind(values, ("start_date", "end_date", "on", "start_time", "first_row"),
               typed=True, typed_dates_from=FREETDS_TYPED_DATES_FROM)
    assert out == ("00010101", "16000229", dt.date(1600, 3, 1), dt.time(0, 0), 1)
    assert bind(values, ("start_date",), typed=True) == (dt.date(1, 1, 1),)


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


# -- names beside codes ----------------------------------------------------------------------

NAMED = [(c, name, dialect) for c in COLLECTIONS if c.namings for name in c.query_names()
         if name.startswith("summary_") for dialect in (None, "sqlite")]


@pytest.mark.parametrize("item", NAMED, ids=lambda i: f"{i[0].name}.{i[1]}-{i[2] or 'main'}")
def test_a_summary_with_names_reads_the_masters_records(item) -> None:
    """Grouped by every code of master data: each master's records query, as its file
    writes it, is one more common table expression, read by name_of of shapes.sql once per
    code, the name right after it; the main text stays within SQL Server 2008 R2 and no
    text selects *."""
    c, name, dialect = item
    q = SHIPPED.get(c.name, name, dialect, by=tuple(c.namings))
    for naming in c.namings.values():
        master = SHIPPED.get(naming.master, "records", dialect).sql
        assert f'"master_{naming.master}" AS (\n{master}\n)' in q.sql
        assert re.search(rf'"{naming.code}",\n    \(SELECT MIN\("named"\."{naming.master_name}"\)'
                         rf'[^;]*?\) AS "{naming.name}",', q.sql), q.sql
    code = _without_names(q.sql)
    assert not re.search(r"\bSELECT\s+\*|\.\s*\*", code)
    if dialect is None:
        for word in _NOT_IN_MAIN:
            assert not re.search(r"\b" + r"\s+".join(word.split()) + r"\b", code, re.I), word
    con = sqlite3.connect(":memory:")
    con.executescript(script("sqlite"))
    cursor = con.execute(q.sql, [_sample(p) for p in q.params])
    assert [d[0] for d in cursor.description] == [
        k for n in c.namings.values() for k in (n.code, n.name)] + list(
        MEASURES[c.summary].columns)
    con.close()


def test_a_sites_own_summary_must_select_groups_from_grouped(tmp_path: Path) -> None:
    """A site's text of a summary written before the names (SELECT {by} ... FROM "in_range")
    would send groups without their names: refused at start, saying what to write."""
    [vehicles] = [c for c in COLLECTIONS if c.name == "vehicles"]
    old = ('SELECT {by}, COUNT(*) AS "records" FROM "in_range" GROUP BY {by} '
           'ORDER BY {by:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}')
    mapping = (SHIPPED_SQL_DIR / "vehicles.sql").read_text(encoding="utf-8")
    path = write(tmp_path, f"{mapping}\n-- name: summary_expired\n{old};\n", "vehicles")
    with pytest.raises(QueryFileError) as info:
        load_queries(tmp_path, [vehicles], SHIPPED_SQL_DIR)
    assert str(path) in str(info.value) and "selects {groups}" in str(info.value)
    new = old.replace("SELECT {by}", "SELECT {groups}").replace('"in_range"',
                                                                 '"in_range" AS "grouped"')
    write(tmp_path, f"{mapping}\n-- name: summary_expired\n{new};\n", "vehicles")
    queries = load_queries(tmp_path, [vehicles], SHIPPED_SQL_DIR)
    # transporters is not served here: its name is NULL, the answer keeps its shape
    assert ('SELECT RTRIM("TransCode") AS "TransCode",\n    NULL AS "TransName", COUNT(*)'
            in queries.get("vehicles", "summary_expired", None, by=("TransCode",)).sql)


def test_a_second_load_reuses_the_first_until_a_file_changes(tmp_path: Path) -> None:
    first, second = load(tmp_path), load(tmp_path)
    assert second is not first  # each app its own Queries (its own filled texts)
    assert second.get("things", "by_key", None) is first.get("things", "by_key", None)
    # The same size, written at once (the same modification time, likely): read again.
    changed = load(tmp_path, RECORDS.replace('"Barang"', '"Barong"'))
    assert changed.get("things", "records", None).sql == (
        'SELECT "ID" AS "id", "Nama" AS "name", "Tgl" AS "tanggal", "Jam" AS "jam"\n'
        'FROM "Barong"')
    # Another collection served from the same files: loaded for it.
    assert load_queries(tmp_path, [], SHIPPED_SQL_DIR).files.keys() == {"database", "shapes"}
