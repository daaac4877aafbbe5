-- health: the round trip behind GET /health.

-- name: ping
-- One row from the server, proving the connection works; touches no table.
SELECT 1 AS "ok";

-- name: ping
-- dialect: sqlite
-- SQLite answers SELECT 1 without reading the file; the schema table proves it is readable.
SELECT COUNT(*) AS "ok" FROM "sqlite_master";
