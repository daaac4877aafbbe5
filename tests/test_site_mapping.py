"""A site's mapping (docs/api.md §2 "The site's mapping"; docs/adapting.md "Adapting to your
database"): the two worked examples of docs/examples, each served over a database named the way that
site names it.

- docs/examples/renamed: every table and column renamed (mixed case, spaces). Its files
  (one of them serving the four collections of weighbridge tickets, each from its own
  table) differ from sql/ only inside the `records` queries, and over a copy of a demo database
  renamed the same way every endpoint answers byte for byte what the shipped sql/ answers
  over the original.
- docs/examples/datetime: transactions keeping each weighing in one datetime column, split
  into the contract's date and time; ranges are exact to the second across midnight.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote as urlquote

import pytest

from app import create_app
from app.commands.demo import build_demo_database
from app.database.loading import mapping_files
from app.database.sqlfiles import Served, parse_file
from app.database.sqltext import quote
from app.model.collections import COLLECTIONS, DATE_PAIRS
from app.model.tables import column_types
from app.ops.config import SHIPPED_SQL_DIR
from tests import mssql
from tests.conftest import FILE_ENGINES, database_settings
from tests.contract import expected
from tests.postgres import READER, Cluster, insert_rows

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
RENAMED = EXAMPLES / "renamed"
DATETIME = EXAMPLES / "datetime" / "transactions.sql"
HEADERS = ("Content-Type", "Content-Length", "X-Pagination", "Link", "ETag",
           "Content-Disposition")


def mapping(path: Path, served: Served | None = None) -> tuple[str, dict[str, str]]:
    """(the site's table, {field: the site's column}) of a records query written one
    `"column" AS "field"` a line, from a table of its own or, in a file that serves several
    collections, the one its `-- serves:` line names."""
    [block] = [b for b in parse_file(path) if b.name == "records" and b.dialect is None]
    pairs = re.findall(r'^\s*"([^"]+)" AS "([^"]+)",?$', block.text, re.M)
    table = re.search(r'^FROM (?:"([^"]+)"|\{table\})$', block.text, re.M)
    assert table and (table.group(1) or served), path
    return table.group(1) or served.name, {field: column for column, field in pairs}


FILES = mapping_files(RENAMED, COLLECTIONS)
RENAMES = {c.name: mapping(*FILES[c.name]) for c in COLLECTIONS}


# -- the renamed site ------------------------------------------------------------------------


def test_the_renamed_site_differs_only_inside_records() -> None:
    assert {path for path, _ in FILES.values()} == set(RENAMED.glob("*.sql"))
    assert sorted(c for c, (_, served) in FILES.items() if served) == [
        "timbangan1", "timbangan2", "transactions", "weighing"]
    for c in COLLECTIONS:
        path, served = FILES[c.name]
        shipped = (SHIPPED_SQL_DIR / f"{c.name}.sql").read_text().splitlines()
        site = path.read_text().splitlines()
        [records] = [b for b in parse_file(path) if b.name == "records"]
        first = int(records.source.rsplit(":", 1)[1])
        if served:  # what stands before its records is the `-- serves:` lines and their note
            site, first = site[first - 1:], 1
        last = first + len(site)  # records is the file's only query: it runs to the end
        changed = [n for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            a=shipped, b=site, autojunk=False).get_opcodes() if tag != "equal"
            for n in range(j1, max(j2, j1 + 1))]
        assert changed and all(first < n + 1 <= last for n in changed), c.name
        # Every name is the site's own: the table and each field's column.
        table, columns = RENAMES[c.name]
        assert table != c.name and " " in table
        assert sorted(columns) == sorted(c.fields)
        for field, column in columns.items():
            assert column.lower().replace(" ", "_") != field.lower(), (c.name, field)
            assert " " in column or column != column.lower(), (c.name, field)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small demo database: every collection, NULLs where a plant has them."""
    path = tmp_path_factory.mktemp("demo") / "plant.sqlite3"
    build_demo_database(path, rows=40)
    return path


def demo_rows(path: Path) -> dict[str, list[dict[str, Any]]]:
    with sqlite3.connect(path) as con:
        con.row_factory = sqlite3.Row
        out = {c.name: [dict(r) for r in con.execute(
            f'SELECT * FROM {quote(c.name)} ORDER BY rowid')] for c in COLLECTIONS}
    con.close()
    return out


def renamed_sqlite(original: Path, target: Path) -> Path:
    """A copy of `original` whose tables and columns carry the site's names, with the same
    rows in the same order and the same indexes on the renamed columns."""
    types = column_types("sqlite", voids=True)
    con = sqlite3.connect(target)
    con.execute("ATTACH DATABASE ? AS original", (str(original),))
    for c in COLLECTIONS:
        table, columns = RENAMES[c.name]
        con.execute(f"CREATE TABLE main.{quote(table)} (" + ", ".join(
            f"{quote(columns[f])} {types[c.name][f]}" for f in c.fields) + ")")
        con.execute(f"INSERT INTO main.{quote(table)} SELECT "
                    + ", ".join(quote(f) for f in c.fields)
                    + f" FROM original.{quote(c.name)} ORDER BY rowid")
        for (index,) in con.execute("SELECT name FROM original.sqlite_master WHERE "
                                    "type = 'index' AND tbl_name = ?", (c.name,)).fetchall():
            indexed = [r[2] for r in con.execute(f"PRAGMA original.index_info({quote(index)})")]
            con.execute(f"CREATE INDEX main.{quote(index + ' renamed')} ON {quote(table)} ("
                        + ", ".join(quote(columns[f]) for f in indexed) + ")")
    con.commit()
    con.execute("DETACH DATABASE original")
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    con.close()
    assert not names & {c.name for c in COLLECTIONS}  # nothing of the original's is left
    return target


def renamed_postgresql(cluster: Cluster, rows: dict[str, list[dict[str, Any]]],
                       name: str) -> str:
    """A schema holding `rows` in tables and columns named as the renamed site names them."""
    types = column_types("postgresql", voids=True)
    conn = cluster.connect()
    cursor = conn.cursor()
    cursor.execute(f"CREATE SCHEMA {quote(name)}")
    for c in COLLECTIONS:
        table, columns = RENAMES[c.name]
        target = f"{quote(name)}.{quote(table)}"
        cursor.execute(f"CREATE TABLE {target} (" + ", ".join(
            f"{quote(columns[f])} {types[c.name][f]}" for f in c.fields) + ")")
        insert_rows(cursor, target, {columns[f]: types[c.name][f] for f in c.fields},
                    [{columns[f]: row[f] for f in c.fields} for row in rows[c.name]],
                    time_as_text=True)
    cursor.execute(f"GRANT USAGE ON SCHEMA {quote(name)} TO {quote(READER)}")
    cursor.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {quote(name)} TO {quote(READER)}")
    conn.close()
    return cluster.connection_string(schema=name)


def renamed_mssql(request: pytest.FixtureRequest, rows: dict[str, list[dict[str, Any]]]
                  ) -> dict[str, Any]:
    """`rows` in tables and columns of SQL Server types named as the renamed site names
    them, next to the ten tables of the test database; dropped when the test ends."""
    server: mssql.Server = request.getfixturevalue("mssql_server")
    types = column_types("mssql", voids=True)
    for c in COLLECTIONS:
        table, columns = RENAMES[c.name]
        request.addfinalizer(lambda table=table: server.drop_table(table))
        server.create_table(table, {columns[f]: types[c.name][f] for f in c.fields},
                            [{columns[f]: row[f] for f in c.fields} for row in rows[c.name]])
    return {"odbc": server.odbc}


def both_sites(request: pytest.FixtureRequest, engine: str, demo: Path,
               tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `database` settings of the original (the shipped sql/, its weighings' cancelled
    read from the demo's void flag) and of the renamed site."""
    voids = {"sql_dir": str(request.getfixturevalue("void_mapping"))}
    if engine in FILE_ENGINES:
        renamed = renamed_sqlite(demo, tmp_path / "renamed.sqlite3")
        return (database_settings(engine, demo) | voids,
                database_settings(engine, renamed) | {"sql_dir": str(RENAMED)})
    rows = demo_rows(demo)
    if engine == "mssql":
        server: mssql.Server = request.getfixturevalue("mssql_server")
        server.load(rows)  # the ten tables, the shipped sql/'s
        return ({"odbc": server.odbc} | voids,
                renamed_mssql(request, rows) | {"sql_dir": str(RENAMED)})
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    original = cluster.create_schema(rows)
    request.addfinalizer(lambda: cluster.drop_schema(original))
    renamed = f"{original}_renamed"
    settings = renamed_postgresql(cluster, rows, renamed)
    request.addfinalizer(lambda: cluster.drop_schema(renamed))
    return ({"odbc": cluster.connection_string(schema=original)} | voids,
            {"odbc": settings, "sql_dir": str(RENAMED)})


def urls(rows: dict[str, list[dict[str, Any]]]) -> Iterator[str]:
    """Every kind of read of every collection, with keys and ranges taken from the data."""
    yield "/"
    for c in COLLECTIONS:
        base = f"/{c.name}"
        yield from (base, f"{base}?format=csv", f"{base}/page/1?page_size=7",
                    f"{base}/page/3?page_size=7", f"{base}/page/999",
                    f"{base}/page/2?page_size=3&fields={c.fields[-1]},{c.fields[0]}")
        data = rows[c.name]
        keys = [1, len(data), len(data) + 1] if c.numbered else [
            data[0]["id"], data[-1]["id"], -5]
        for key in keys:
            yield f"{base}/{key}"
        yield f"{base}/{keys[0]}?format=csv"
        # Filters name the API's fields; the site's mapping puts its columns under them.
        first = c.fields[0]
        values = sorted({r[first] for r in data if r[first] is not None})
        text = next(f for f in ("vehno", "operator_name", "Number", "CustCode", "ProductCode",
                                "TransCode") if f in c.fields)
        yield from (f"{base}?{first}__in={values[0]},{values[-1]}",
                    f"{base}/page/1?page_size=5&{first}__gte={values[len(values) // 2]}"
                    f"&{text}__not={urlquote(str(data[0][text]))}",
                    f"{base}?{text}__isnull=true&format=csv")
        for on in c.dates:
            day, clock = DATE_PAIRS[on]
            days = sorted(r[day] for r in data if r[day])
            yield (f"{base}/date/2000-01-01/00:00/2099-12-31/23:59:59?on={on}&page=1"
                   f"&page_size=4&{clock}__gte=12:00&{day}__gte={days[len(days) // 2]}")
            stamps = sorted((r[day], r[clock] or "00:00:00") for r in data if r[day])
            start = stamps[len(stamps) // 3]
            end = stamps[2 * len(stamps) // 3]
            window = f"{base}/date/{start[0]}/{start[1][:8]}/{end[0]}/{end[1][:5]}?on={on}"
            yield from (window, f"{window}&format=csv", f"{window}&page=2&page_size=3",
                        f"{base}/date/2000-01-01/00:00/2099-12-31/23:59:59?on={on}",
                        f"{base}/date/2000-01-01/00:00/2099-12-31/23:59:59?on={on}&page=2")


def test_every_endpoint_answers_the_same_over_the_renamed_site(
        request: pytest.FixtureRequest, engine: str, demo: Path, tmp_path: Path) -> None:
    original, renamed = both_sites(request, engine, demo, tmp_path)
    shipped = create_app({"database": original}).test_client()
    site = create_app({"database": renamed}).test_client()
    compared = 0
    for url in urls(demo_rows(demo)):
        want, got = shipped.get(url), site.get(url)
        assert (got.status_code, got.data) == (want.status_code, want.data), url
        assert {h: got.headers.get(h) for h in HEADERS} == {
            h: want.headers.get(h) for h in HEADERS}, url
        compared += want.status_code == 200 and len(want.data) > 2
    assert compared > 100  # the answers compared hold records, not only errors and []


# -- one datetime column ---------------------------------------------------------------------

STAMPS = {"dt1": "WaktuMasuk", "dt2": "WaktuKeluar", "create": "WaktuBuat",
          "update": "WaktuUbah"}
PAIR_FIELDS = {f for on in STAMPS for f in DATE_PAIRS[on]}
TRANSACTIONS = next(c for c in COLLECTIONS if c.name == "transactions")


def datetime_rows() -> list[dict[str, Any]]:
    """Weighings on both sides of midnight, with a tie, a NULL and one a day before."""
    entries = ["2026-11-20 23:58:59", "2026-11-20 23:59:00", "2026-11-20 23:59:59",
               "2026-11-21 00:00:00", "2026-11-21 00:00:30", "2026-11-21 00:00:31", None,
               "2026-11-19 23:59:59", "2026-11-21 00:00:30", "2026-11-21 12:00:00"]
    rows = []
    for n, entry in enumerate(entries, 1):
        exit_ = None if entry is None or n % 4 == 0 else (
            dt.datetime.fromisoformat(entry) + dt.timedelta(minutes=n)).isoformat(" ")
        rows.append({"id": n, "vehno": f"L {8000 + n} UB", "weigh1": 30000.0 + n,
                     "weigh2": None if exit_ is None else 11000.0 + n, "WaktuMasuk": entry,
                     "WaktuKeluar": exit_, "WaktuBuat": entry, "WaktuUbah": exit_ or entry})
    return rows


def as_contract_row(row: dict[str, Any]) -> dict[str, Any]:
    """The row as the contract's table would hold it: each datetime split in two."""
    out = {k: v for k, v in row.items() if k not in STAMPS.values()}
    for on, column in STAMPS.items():
        day, clock = DATE_PAIRS[on]
        out[day], out[clock] = (None, None) if row[column] is None else row[column].split(" ")
    return out


def datetime_site(request: pytest.FixtureRequest, engine: str, tmp_path: Path
                  ) -> dict[str, Any]:
    """The `database` settings of a site whose transactions table has the four datetime
    columns, served with the example's transactions.sql."""
    sql_dir = tmp_path / "site-sql"
    shutil.copytree(SHIPPED_SQL_DIR, sql_dir)
    shutil.copy(DATETIME, sql_dir / "transactions.sql")
    rows = datetime_rows()
    kept = [f for f in TRANSACTIONS.fields if f not in PAIR_FIELDS]
    if engine in FILE_ENGINES:
        types = column_types("sqlite", voids=True)["transactions"]
        path = tmp_path / "site.sqlite3"
        con = sqlite3.connect(path)
        con.execute('CREATE TABLE "transactions" (' + ", ".join(
            [f"{quote(f)} {types[f]}" for f in kept]
            + [f"{quote(c)} DATETIME" for c in STAMPS.values()]) + ")")
        for row in rows:
            con.execute(f'INSERT INTO "transactions" ({", ".join(map(quote, row))}) VALUES '
                        f'({", ".join("?" for _ in row)})', list(row.values()))
        con.commit()
        con.close()
        return database_settings(engine, path) | {"sql_dir": str(sql_dir)}
    if engine == "mssql":
        # SQL Server's own datetime: the type such a weighbridge program's table has.
        server: mssql.Server = request.getfixturevalue("mssql_server")
        types = column_types("mssql", voids=True)["transactions"]
        request.addfinalizer(lambda: server.drop_table("transactions"))
        server.create_table("transactions", {f: types[f] for f in kept}
                            | {c: "datetime" for c in STAMPS.values()}, rows)
        return {"odbc": server.odbc, "sql_dir": str(sql_dir)}
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    types = column_types("postgresql", voids=True)["transactions"]
    columns = {f: types[f] for f in kept} | {c: "TIMESTAMP" for c in STAMPS.values()}
    name = f"jt_datetime_{abs(hash(str(tmp_path))) % 10**8}"
    conn = cluster.connect()
    cursor = conn.cursor()
    cursor.execute(f"CREATE SCHEMA {quote(name)}")
    cursor.execute(f'CREATE TABLE {quote(name)}."transactions" (' + ", ".join(
        f"{quote(c)} {t}" for c, t in columns.items()) + ")")
    insert_rows(cursor, f'{quote(name)}."transactions"', columns, rows, time_as_text=True)
    cursor.execute(f"GRANT USAGE ON SCHEMA {quote(name)} TO {quote(READER)}")
    cursor.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {quote(name)} TO {quote(READER)}")
    conn.close()
    request.addfinalizer(lambda: cluster.drop_schema(name))
    return {"odbc": cluster.connection_string(schema=name), "sql_dir": str(sql_dir)}


# (start, end) of windows around midnight, both bounds inclusive.
WINDOWS = [("2026-11-20T23:59:00", "2026-11-21T00:00:30"),
           ("2026-11-20T00:00:00", "2026-11-20T23:59:59"),
           ("2026-11-21T00:00:00", "2026-11-21T00:00:00"),
           ("2026-11-19T23:59:59", "2026-11-21T00:00:31"),
           ("2026-11-20T23:59:59", "2026-11-21T00:00:29")]


@pytest.mark.parametrize("on", list(STAMPS))
def test_one_datetime_column_ranges_across_midnight(request: pytest.FixtureRequest,
                                                    engine: str, tmp_path: Path,
                                                    on: str) -> None:
    client = create_app({"database": datetime_site(request, engine, tmp_path)}).test_client()
    rows = datetime_rows()
    column = STAMPS[on]
    for start, end in WINDOWS:
        inside = sorted((r for r in rows if r[column] is not None
                         and start <= r[column].replace(" ", "T") <= end),
                        key=lambda r: (r[column], r["id"]))
        want = [expected("transactions", as_contract_row(r)) for r in inside]
        path = (f"/transactions/date/{start[:10]}/{start[11:]}/{end[:10]}/{end[11:]}"
                f"?on={on}")
        response = client.get(path)
        assert response.status_code == 200, response.get_json()
        assert response.get_json() == want, path
        paged = client.get(f"{path}&page=2&page_size=2")
        assert paged.get_json() == want[2:4], path
        assert paged.headers["X-Pagination"].startswith(f'{{"total":{len(want)},'), path
    # Every record by id, its datetime split in two.
    for row in rows:
        answer = client.get(f"/transactions/{row['id']}").get_json()
        assert answer == expected("transactions", as_contract_row(row))
