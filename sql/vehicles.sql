-- vehicles: every query Jembatan runs on table "vehicles".
-- Canonical order: id (ascending, NULLs first); key: id.
-- Each main text is T-SQL for SQL Server 2008 R2 and later. A `-- dialect: sqlite` variant
-- under the same name replaces it on SQLite, where ROW_NUMBER() paging and CASE ordering
-- cost a sort of the whole table. A site whose columns are named differently edits the
-- left-hand side of each AS; the names after AS are the API's field names.

-- name: all
-- Every record, in canonical order (id).
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
ORDER BY CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: all
-- dialect: sqlite
-- Plain ORDER BY: SQLite puts NULLs first and walks the index instead of sorting.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
ORDER BY "id";

-- name: count
-- How many records there are, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "vehicles";

-- name: page
-- Records at positions first_row..last_row (1-based) of the canonical order.
SELECT
    "id", "Number", "BeingWeighed", "Capacity", "CapacityUnit", "Tare", "TareUnit", "TransCode",
    "UseTare", "Opt1", "Opt2", "tgl_create", "jam_create", "tgl_expired", "jam_expired"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "Number" AS "Number",
        "BeingWeighed" AS "BeingWeighed",
        "Capacity" AS "Capacity",
        "CapacityUnit" AS "CapacityUnit",
        "Tare" AS "Tare",
        "TareUnit" AS "TareUnit",
        "TransCode" AS "TransCode",
        "UseTare" AS "UseTare",
        "Opt1" AS "Opt1",
        "Opt2" AS "Opt2",
        "tgl_create" AS "tgl_create",
        "jam_create" AS "jam_create",
        "tgl_expired" AS "tgl_expired",
        "jam_expired" AS "jam_expired"
    FROM "vehicles"
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: page
-- dialect: sqlite
-- LIMIT/OFFSET: ROW_NUMBER() takes seconds per page on a million SQLite rows.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
ORDER BY "id"
LIMIT :row_count OFFSET :skip;

-- name: by_key
-- The record with this id (the first one, should the legacy table repeat it).
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "id" = :key;

-- name: range_create
-- Records whose tgl_create + jam_create (NULL time = 00:00:00) lies in the inclusive range, ordered by tgl_create, jam_create, id.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
ORDER BY "tgl_create", CASE WHEN "jam_create" IS NULL THEN 0 ELSE 1 END, "jam_create", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: range_create
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
ORDER BY "tgl_create", "jam_create", "id";

-- name: range_create_count
-- How many records range_create returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "vehicles"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time);

-- name: range_create_page
-- Positions first_row..last_row (1-based) of range_create.
SELECT
    "id", "Number", "BeingWeighed", "Capacity", "CapacityUnit", "Tare", "TareUnit", "TransCode",
    "UseTare", "Opt1", "Opt2", "tgl_create", "jam_create", "tgl_expired", "jam_expired"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tgl_create", CASE WHEN "jam_create" IS NULL THEN 0 ELSE 1 END, "jam_create", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "Number" AS "Number",
        "BeingWeighed" AS "BeingWeighed",
        "Capacity" AS "Capacity",
        "CapacityUnit" AS "CapacityUnit",
        "Tare" AS "Tare",
        "TareUnit" AS "TareUnit",
        "TransCode" AS "TransCode",
        "UseTare" AS "UseTare",
        "Opt1" AS "Opt1",
        "Opt2" AS "Opt2",
        "tgl_create" AS "tgl_create",
        "jam_create" AS "jam_create",
        "tgl_expired" AS "tgl_expired",
        "jam_expired" AS "jam_expired"
    FROM "vehicles"
    WHERE "tgl_create" BETWEEN :start_date AND :end_date
      AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
      AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_create_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
ORDER BY "tgl_create", "jam_create", "id"
LIMIT :row_count OFFSET :skip;

-- name: range_expired
-- Records whose tgl_expired + jam_expired (NULL time = 00:00:00) lies in the inclusive range, ordered by tgl_expired, jam_expired, id.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "tgl_expired" BETWEEN :start_date AND :end_date
  AND ("tgl_expired" > :start_date OR COALESCE("jam_expired", :midnight) >= :start_time)
  AND ("tgl_expired" < :end_date OR COALESCE("jam_expired", :midnight) <= :end_time)
ORDER BY "tgl_expired", CASE WHEN "jam_expired" IS NULL THEN 0 ELSE 1 END, "jam_expired", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: range_expired
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "tgl_expired" BETWEEN :start_date AND :end_date
  AND ("tgl_expired" > :start_date OR COALESCE("jam_expired", :midnight) >= :start_time)
  AND ("tgl_expired" < :end_date OR COALESCE("jam_expired", :midnight) <= :end_time)
ORDER BY "tgl_expired", "jam_expired", "id";

-- name: range_expired_count
-- How many records range_expired returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "vehicles"
WHERE "tgl_expired" BETWEEN :start_date AND :end_date
  AND ("tgl_expired" > :start_date OR COALESCE("jam_expired", :midnight) >= :start_time)
  AND ("tgl_expired" < :end_date OR COALESCE("jam_expired", :midnight) <= :end_time);

-- name: range_expired_page
-- Positions first_row..last_row (1-based) of range_expired.
SELECT
    "id", "Number", "BeingWeighed", "Capacity", "CapacityUnit", "Tare", "TareUnit", "TransCode",
    "UseTare", "Opt1", "Opt2", "tgl_create", "jam_create", "tgl_expired", "jam_expired"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tgl_expired", CASE WHEN "jam_expired" IS NULL THEN 0 ELSE 1 END, "jam_expired", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "Number" AS "Number",
        "BeingWeighed" AS "BeingWeighed",
        "Capacity" AS "Capacity",
        "CapacityUnit" AS "CapacityUnit",
        "Tare" AS "Tare",
        "TareUnit" AS "TareUnit",
        "TransCode" AS "TransCode",
        "UseTare" AS "UseTare",
        "Opt1" AS "Opt1",
        "Opt2" AS "Opt2",
        "tgl_create" AS "tgl_create",
        "jam_create" AS "jam_create",
        "tgl_expired" AS "tgl_expired",
        "jam_expired" AS "jam_expired"
    FROM "vehicles"
    WHERE "tgl_expired" BETWEEN :start_date AND :end_date
      AND ("tgl_expired" > :start_date OR COALESCE("jam_expired", :midnight) >= :start_time)
      AND ("tgl_expired" < :end_date OR COALESCE("jam_expired", :midnight) <= :end_time)
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_expired_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles"
WHERE "tgl_expired" BETWEEN :start_date AND :end_date
  AND ("tgl_expired" > :start_date OR COALESCE("jam_expired", :midnight) >= :start_time)
  AND ("tgl_expired" < :end_date OR COALESCE("jam_expired", :midnight) <= :end_time)
ORDER BY "tgl_expired", "jam_expired", "id"
LIMIT :row_count OFFSET :skip;
