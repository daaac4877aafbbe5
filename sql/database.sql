-- database: queries about the database itself rather than a collection: the round trip
-- behind GET /health, the version that tells whether a count still holds, the server's
-- clock, the mapping tried without reading a row, and the columns of a site's table and a
-- sample of its rows for `flask --app wsgi draft-mapping`.

-- name: ping
-- One row from the server, proving the connection works; touches no table.
SELECT 1 AS "ok";

-- name: ping
-- dialect: sqlite
-- SQLite answers SELECT 1 without reading the file; the schema table proves it is readable.
SELECT COUNT(*) AS "ok" FROM "sqlite_master";

-- name: version
-- A number that changes whenever the data may have; NULL: none here, so counts run each time.
SELECT NULL AS "version";

-- name: version
-- dialect: sqlite
-- SQLite's data_version changes whenever another connection commits to the file.
SELECT "data_version" AS "version" FROM pragma_data_version();

-- name: clock
-- The database server's clock: in its own local time (as the feed's "feed_now") and in UTC, which the feed turns into the plant's time when [site] timezone is set.
SELECT CURRENT_TIMESTAMP AS "local_now", GETUTCDATE() AS "utc_now";

-- name: clock
-- dialect: sqlite
-- SQLite's clock is UTC; 'localtime' is the zone of the host that runs the query.
SELECT datetime('now', 'localtime') AS "local_now", datetime('now') AS "utc_now";

-- name: clock
-- dialect: postgresql
-- PostgreSQL has no GETUTCDATE(); its local time is the session's TimeZone.
SELECT LOCALTIMESTAMP AS "local_now", CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS "utc_now";

-- name: mapped
-- No row of a collection's "records" (its mapping in front, as every read has it): the database still compiles the mapping, so a column, table or syntax it refuses fails here, at start and in the mapping check (app/core/mapped.py).
SELECT * FROM "records" WHERE 1 = 0;

-- name: columns
-- A table's (or view's) columns in their order, by schema; table_schema '' means any schema.
-- Unquoted upper case: SQL Server's catalog is upper case, PostgreSQL folds it to lower.
SELECT TABLE_SCHEMA AS "table_schema", COLUMN_NAME AS "name", DATA_TYPE AS "type"
FROM INFORMATION_SCHEMA.COLUMNS
WHERE TABLE_NAME = :table_name AND (TABLE_SCHEMA = :table_schema OR :table_schema = '')
ORDER BY TABLE_SCHEMA, ORDINAL_POSITION;

-- name: columns
-- dialect: sqlite
-- SQLite has no INFORMATION_SCHEMA: its table_info, in column order (one schema, "main").
SELECT 'main' AS "table_schema", "name" AS "name", "type" AS "type"
FROM pragma_table_info(:table_name)
ORDER BY "cid";

-- name: sample
-- Up to :row_count rows of a site's table {table}, in no order, for draft-mapping to read its values. SQL Server 2008 and PostgreSQL share no TOP or LIMIT: a row number over no order, cut.
SELECT *
FROM (
    SELECT "sampled".*, ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS "jembatan_sample_row"
    FROM {table} AS "sampled"
) AS "numbered"
WHERE "jembatan_sample_row" <= :row_count;

-- name: sample
-- dialect: sqlite
-- SQLite: the first :row_count rows of {table} as stored.
SELECT * FROM {table} LIMIT :row_count;
