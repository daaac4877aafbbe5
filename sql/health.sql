-- health: the round trip behind GET /health.

-- name: ping
-- One row from the server, proving the connection works; touches no table.
SELECT 1 AS "ok";
