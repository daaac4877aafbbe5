"""Every query loaded at start: the files read and checked, and every read of every
collection filled in from its shape and the site's `records` (app/database/queries.py says
what the kinds of file hold). Anything malformed, missing or unknown is a QueryFileError
naming the file and line."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..model.collections import NAMINGS, Collection, Naming
from .queries import (
    DATABASE_FILE,
    DATABASE_OPTIONAL,
    DATABASE_QUERIES,
    MAPPED,
    NAME_FROM,
    NAME_OF,
    NAMES_FILE,
    RANGE_ROWS,
    SHAPES,
    SHAPES_FILE,
    Queries,
    Query,
    check_params,
)
from .sqlfiles import DIALECTS, Block, Served, SqlFile, own_or_shipped, served
from .sqltext import (
    QueryFileError,
    bracketed,
    check_statement,
    code,
    convert,
    named,
    quote,
    without_comments,
)
from .templates import (
    DEFAULT_BY,
    FILTER_PLACEHOLDERS,
    IN_RANGE,
    TABLE,
    Statement,
    Template,
    described,
    lookup,
    placeholders,
)

SQLITE = "sqlite"  # the dialect whose mapping is sent with its names [bracketed]
LOADED_KEPT = 8  # the loads a process keeps (a test run builds apps over a few sql dirs)
LOADED: OrderedDict[tuple[object, ...], Queries] = OrderedDict()


def load_queries(sql_dir: Path, collections: Sequence[Collection],
                 shipped_dir: Path | None = None) -> Queries:
    """Read and check every file, and fill in every read of every collection.

    The collections' files come from `sql_dir`; shapes.sql and database.sql from there too
    when present, else from `shipped_dir` (Jembatan's own sql/). Anything malformed, missing
    or unknown is a QueryFileError naming the file and line. A second load of the same
    files' contents for the same collections in one process reuses the first's queries
    (never changed after loading) in a Queries of its own (its filled texts its own)."""
    shipped_dir = shipped_dir or sql_dir
    key = _load_key(sql_dir, collections, shipped_dir)
    loaded = LOADED.get(key)
    if loaded is None:
        loaded = _load(sql_dir, collections, shipped_dir)
        LOADED[key] = loaded
        if len(LOADED) > LOADED_KEPT:
            LOADED.popitem(last=False)
    return loaded.fresh()


def _load_key(sql_dir: Path, collections: Sequence[Collection],
              shipped_dir: Path) -> tuple[object, ...]:
    """What a load depends on: the directories' .sql files (names and contents) and the
    collections served."""
    contents = tuple((path, path.read_bytes()) for folder in dict.fromkeys((sql_dir,
                                                                            shipped_dir))
                     for path in sorted(Path(folder).glob("*.sql")) if path.is_file())
    return (str(sql_dir), str(shipped_dir), repr(tuple(collections)), contents)


def _load(sql_dir: Path, collections: Sequence[Collection], shipped_dir: Path) -> Queries:
    """load_queries' work, done once per key."""
    queries = Queries()
    database = SqlFile(own_or_shipped(sql_dir, shipped_dir, DATABASE_FILE),
                     DATABASE_QUERIES + DATABASE_OPTIONAL)
    database.require(DATABASE_QUERIES)
    queries.files[DATABASE_FILE] = database.path
    for block in database.blocks:
        text = without_comments(block.text)
        sql, params, _ = convert(text)
        check_params(block.name, params, block.source)
        check_statement(text, block.source)
        template = Template.parse(text, block.source)
        queries.add(DATABASE_FILE, Query(block.name, block.dialect, sql, params, block.source,
                                         block.description,
                                         Statement((), template) if template.takes(TABLE)
                                         else None))
    shapes = SqlFile(own_or_shipped(sql_dir, shipped_dir, SHAPES_FILE), SHAPES)
    shapes.require([s for s in SHAPES if s != NAME_FROM])
    queries.files[SHAPES_FILE] = shapes.path
    _lookup(queries.name_of, shapes, NAME_OF)
    if collections:  # draft-mapping loads Jembatan's own files alone
        _load_names(queries, sql_dir / f"{NAMES_FILE}.sql", shapes)
    mapped = _mapped(database, shipped_dir)
    files = mapping_files(sql_dir, collections)
    for c in collections:
        path, table = files[c.name]
        queries.files[c.name] = path
        if table is not None:
            queries.tables[c.name] = table
        queries.namings[c.name] = c.namings
        queries.texts[c.name] = c.texts
        names = [n for name, shape in c.reads() for n in (str(name), shape)]
        own = SqlFile(path, ["records", *dict.fromkeys(names)])
        first = own.blocks[0]
        if first.name != "records" or first.dialect is not None:
            raise QueryFileError(f"{first.source}: {path.name} must start with '-- name: "
                                 f"records', the query that says where each field of a "
                                 f"{c.name} record comes from")
        # An engine none of whose texts differ reads the main ones (Queries.get); SQLite's
        # differ always: its mapping's names are sent [bracketed] (sqltext.bracketed).
        for dialect in (None, *sorted(own.dialects() | shapes.dialects() | {SQLITE})):
            records = own.get("records", dialect)
            mapping = _mapping(records, c, table)
            if dialect == SQLITE:  # a name the table lacks is refused, never read as text
                mapping, records = bracketed(mapping), replace(records, dialect=SQLITE)
            _fill_collection(queries, c, own, shapes, dialect, records, mapping)
            queries.add(c.name, Query(
                MAPPED, records.dialect, convert(_with_records(mapping, mapped))[0], (),
                f"{mapped.source} with records at {records.source}", mapped.description))
    return queries


def mapping_files(sql_dir: Path, collections: Sequence[Collection]
                  ) -> dict[str, tuple[Path, Served | None]]:
    """Each collection's mapping file: its own sql/<name>.sql, else the file whose `-- serves:`
    lines name it (sqlfiles.served); with how that file names it where it serves several
    (None: the file is that collection's alone)."""
    declared: dict[str, Served] = {}
    serving: set[Path] = set()
    # draft-mapping (no collections) reads none: a site's files may be half written then.
    for path in sorted(sql_dir.glob("*.sql")) if collections else ():
        if path.stem in (SHAPES_FILE, DATABASE_FILE, NAMES_FILE):
            continue
        for s in served(path):
            first = declared.setdefault(s.collection, s)
            if first is not s:
                raise QueryFileError(f"{path}:{s.line}: {s.collection} is served already "
                                     f"by {first.path}:{first.line}")
            serving.add(path)
    files: dict[str, tuple[Path, Served | None]] = {}
    for c in collections:
        path, found = sql_dir / f"{c.name}.sql", declared.get(c.name)
        if path.is_file():  # its own file, whatever another says
            if found is None or found.path != path:
                found = Served(c.name, None, path, 0, 0) if path in serving else None
        elif found is not None:
            path = found.path
        else:
            raise QueryFileError(f"{path}: missing (database.sql_dir is {sql_dir}); a site "
                                 f"without {c.name} leaves it out of collections.serve")
        files[c.name] = path, found
    return files


def _mapped(database: SqlFile, shipped_dir: Path) -> Block:
    """database.sql's query that tries a mapping without reading a row: the site's, else
    the shipped one (a copy of database.sql made before it existed)."""
    if not database.has(MAPPED):
        database = SqlFile(shipped_dir / f"{DATABASE_FILE}.sql",
                           DATABASE_QUERIES + DATABASE_OPTIONAL)
    return database.get(MAPPED, None)


def _with_records(mapping: str, query: Block) -> str:
    """`query`, which reads "records", with the collection's records in front."""
    return Statement((("records", Template.verbatim(mapping)),),
                     Template.verbatim(without_comments(query.text))).sql(None)


def _mapping(records: Block, c: Collection, served: Served | None) -> str:
    """The records query as sent: as written, or in a file that serves several collections
    with {table} filled in with `c`'s table."""
    text = without_comments(records.text)
    if served is None:
        return text
    template = Template.parse(text, records.source)
    if not template.takes(TABLE):
        raise QueryFileError(f"{records.source}: {records.source.rpartition(':')[0]} serves "
                             f"several collections (its `-- serves:` lines): its records "
                             f"read FROM {{table}}, each collection's table")
    return template.fill({TABLE: served.table or quote(c.name)}, records.source,
                         keep=()).text()


def _lookup(into: dict[str | None, Template], shapes: SqlFile, name: str) -> None:
    """A name lookup of shapes.sql (name_of, name_from), as written, for every engine."""
    for dialect in (None, *DIALECTS):
        block = shapes.get(name, dialect)
        check_statement(block.text, block.source, first=("select",))
        into[dialect] = lookup(without_comments(block.text), block.source)


def _load_names(queries: Queries, path: Path, shapes: SqlFile) -> None:
    """The site's names.sql, where it has one: its queries, checked, as the names of the
    masters they are named after, and the shape name_from that reads them."""
    if not path.is_file():
        return
    masters = {n.master: n for shape in NAMINGS.values() for n in shape}
    own = SqlFile(path, list(masters))
    if not shapes.has(NAME_FROM):
        raise QueryFileError(f"{shapes.path}: missing query {NAME_FROM}, which {path.name} "
                             f"needs (copy it from Jembatan's sql/shapes.sql)")
    _lookup(queries.name_from, shapes, NAME_FROM)
    queries.files[NAMES_FILE] = path
    for block in own.blocks:
        _check_names(block, masters[block.name])
        queries.add(NAMES_FILE, Query(block.name, block.dialect,
                                      convert(without_comments(block.text))[0], (),
                                      block.source, block.description))


def _fill_collection(queries: Queries, c: Collection, own: SqlFile, shapes: SqlFile,
                     dialect: str | None, records: Block, mapping: str) -> None:
    """Every read of `c` on `dialect`: its own text of a read where its file has one, else
    the shape, with the placeholders filled in and its records query (`records`, as sent:
    `mapping`) in front."""
    _check_records(records, c)
    queries.add(c.name, Query("records", records.dialect, convert(mapping)[0], (),
                              records.source, records.description))
    for query_name, shape in c.reads():
        name, on = str(query_name), query_name.on
        source = own if own.has(name) or own.has(shape) else shapes
        written = name if source.has(name) else shape
        block, main = source.get(written, dialect), source.get(written, None)
        values = placeholders(c, on)
        where = f"{block.source} ({c.name}.{name})"
        check_statement(block.text, where, first=("select",))  # "records" comes first
        text = Template.parse(without_comments(block.text), where).fill(values, where)
        ctes = [("records", Template.verbatim(mapping))]
        variant = block.dialect or records.dialect  # the dialect whose own text this is
        if text.reads(IN_RANGE):  # the range's records, written once for every range read
            rows = shapes.get(RANGE_ROWS, dialect)
            check_statement(rows.text, rows.source, first=("select",))
            ctes.append((IN_RANGE, Template.parse(without_comments(rows.text), rows.source)
                         .fill(values, rows.source)))
            variant = variant or rows.dialect
        statement = Statement(tuple(ctes), text)
        if query_name.kind == "summary" and not text.names_after("groups", 'AS "grouped"'):
            raise QueryFileError(
                f'{where}: a summary selects {{groups}} (its groups, each code of master data '
                f'with its name) and reads its rows as "grouped" (FROM "in_range" AS '
                f'"grouped"), which the names look their codes up in; see summary_vehicle in '
                f"sql/shapes.sql")
        # A summary's base text (what check-sql runs and shows) groups by the day.
        base = (queries.grouped(c.name, statement, DEFAULT_BY, dialect, where)
                if statement.grouped else statement)
        sql, params, _ = convert(base.sql(None))
        check_params(name, params, where)
        note = (f" ({block.dialect}: {block.description})"
                if block is not main and block.description else "")
        queries.add(c.name, Query(name, variant, sql, params,
                                  f"{block.source} with records at {records.source}",
                                  described(main.description, values) + note,
                                  statement if statement.takes(*FILTER_PLACEHOLDERS)
                                  or statement.grouped else None))


def _check_records(block: Block, c: Collection) -> None:
    """A records query: one SELECT with no parameters that names every stored field."""
    check_statement(block.text, block.source, first=("select",))
    _, params, _ = convert(block.text)
    if params:
        raise QueryFileError(f"{block.source}: records takes no parameters (found "
                             f":{params[0]}); the shapes in sql/shapes.sql bind them")
    missing = [f for f in c.fields if f not in named(block.text)]
    if missing:
        raise QueryFileError(
            f"{block.source}: records gives no {', '.join(missing)}: write each field as "
            f'"column" AS "field" or an expression AS "field" (NULL AS "{missing[0]}" where '
            f"the site has none; on SQL Server a NULL of the field's type, CAST(NULL AS "
            f"date), time, int, float or varchar(n))")
    _refuse_order(block, "each read orders it")




def _refuse_order(block: Block, why: str) -> None:
    """A query put in front of others as a common table expression is not ordered."""
    depth = 0
    for piece in re.split(r"([()])", code(block.text)):
        depth += {"(": 1, ")": -1}.get(piece, 0)
        if depth == 0 and re.search(r"(?i)\bORDER\s+BY\b", piece):
            raise QueryFileError(f"{block.source}: {block.name} may not be ordered (ORDER "
                                 f"BY): {why}, and SQL Server refuses ORDER BY in a common "
                                 f"table expression")


def _check_names(block: Block, naming: Naming) -> None:
    """A query of names.sql: one SELECT with no parameters that gives the master record's
    code and name fields."""
    check_statement(block.text, block.source, first=("select",))
    _, params, _ = convert(block.text)
    if params:
        raise QueryFileError(f"{block.source}: {block.name} takes no parameters (found "
                             f":{params[0]}); the summaries look each code up themselves")
    wanted = (naming.master_code, naming.master_name)
    missing = [f for f in wanted if f not in named(block.text)]
    if missing:
        raise QueryFileError(
            f'{block.source}: {block.name} gives no "{missing[0]}": write the code column '
            f'as ... AS "{wanted[0]}" and the name column as ... AS "{wanted[1]}", e.g. '
            f'SELECT "KODE" AS "{wanted[0]}", "NAMA" AS "{wanted[1]}" FROM "TABLE"')
    _refuse_order(block, "the summaries pick one name per code themselves")


