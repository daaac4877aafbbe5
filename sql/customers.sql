-- customers: every query Jembatan runs on table "customers".
-- Canonical order: id (ascending, NULLs first); key: id.
-- Each main text is T-SQL for SQL Server 2008 R2 and later. A `-- dialect: sqlite` variant
-- under the same name replaces it on SQLite, where ROW_NUMBER() paging and CASE ordering
-- cost a sort of the whole table. A site whose columns are named differently edits the
-- left-hand side of each AS; the names after AS are the API's field names.

-- name: all
-- Every record, in canonical order (id).
SELECT
    "id" AS "id",
    "CustCode" AS "CustCode",
    "CustName" AS "CustName",
    "Address" AS "Address",
    "City" AS "City",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "customers"
ORDER BY CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: all
-- dialect: sqlite
-- Plain ORDER BY: SQLite puts NULLs first and walks the index instead of sorting.
SELECT
    "id" AS "id",
    "CustCode" AS "CustCode",
    "CustName" AS "CustName",
    "Address" AS "Address",
    "City" AS "City",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "customers"
ORDER BY "id";

-- name: count
-- How many records there are, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "customers";

-- name: page
-- Records at positions first_row..last_row (1-based) of the canonical order.
SELECT
    "id", "CustCode", "CustName", "Address", "City", "Phone", "Contact", "Remark"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "CustCode" AS "CustCode",
        "CustName" AS "CustName",
        "Address" AS "Address",
        "City" AS "City",
        "Phone" AS "Phone",
        "Contact" AS "Contact",
        "Remark" AS "Remark"
    FROM "customers"
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: page
-- dialect: sqlite
-- LIMIT/OFFSET: ROW_NUMBER() takes seconds per page on a million SQLite rows.
SELECT
    "id" AS "id",
    "CustCode" AS "CustCode",
    "CustName" AS "CustName",
    "Address" AS "Address",
    "City" AS "City",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "customers"
ORDER BY "id"
LIMIT :row_count OFFSET :skip;

-- name: by_key
-- The record with this id (the first one, should the legacy table repeat it).
SELECT
    "id" AS "id",
    "CustCode" AS "CustCode",
    "CustName" AS "CustName",
    "Address" AS "Address",
    "City" AS "City",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "customers"
WHERE "id" = :key;
