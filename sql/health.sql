-- health: queries about the database itself rather than a collection: the round trip
-- behind GET /health, and the version that tells whether a count still holds.

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
