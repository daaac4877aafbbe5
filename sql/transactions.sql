-- transactions: every query Jembatan runs on table "transactions".
-- Canonical order: id (ascending, NULLs first); key: id.
-- Each main text is T-SQL for SQL Server 2008 R2 and later. A `-- dialect: sqlite` variant
-- under the same name replaces it on SQLite, where ROW_NUMBER() paging and CASE ordering
-- cost a sort of the whole table. A site whose columns are named differently edits the
-- left-hand side of each AS; the names after AS are the API's field names.

-- name: all
-- Every record, in canonical order (id).
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
ORDER BY CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: all
-- dialect: sqlite
-- Plain ORDER BY: SQLite puts NULLs first and walks the index instead of sorting.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
ORDER BY "id";

-- name: count
-- How many records there are, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "transactions";

-- name: page
-- Records at positions first_row..last_row (1-based) of the canonical order.
SELECT
    "id", "accessedbyanother", "beingaccessedbyuser", "adjustunit", "adjustweigh", "custcode",
    "detctid", "dono", "drivername", "editedby", "ffa", "jam_create", "jam_dt1", "jam_dt2",
    "jam_update", "location", "lot", "mai", "noct", "operator1", "operator2", "opt1", "opt2",
    "pending", "pl3no", "productcode", "recno", "remark", "sealno", "tgl_create", "tgl_dt1",
    "tgl_dt2", "tgl_update", "transcode", "vehno", "wbname1", "wbname2", "weigh1", "weigh2",
    "weighsource1", "weighsource2", "weighunit1", "weighunit2"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "accessedbyanother" AS "accessedbyanother",
        "beingaccessedbyuser" AS "beingaccessedbyuser",
        "adjustunit" AS "adjustunit",
        "adjustweigh" AS "adjustweigh",
        "custcode" AS "custcode",
        "detctid" AS "detctid",
        "dono" AS "dono",
        "drivername" AS "drivername",
        "editedby" AS "editedby",
        "ffa" AS "ffa",
        "jam_create" AS "jam_create",
        "jam_dt1" AS "jam_dt1",
        "jam_dt2" AS "jam_dt2",
        "jam_update" AS "jam_update",
        "location" AS "location",
        "lot" AS "lot",
        "mai" AS "mai",
        "noct" AS "noct",
        "operator1" AS "operator1",
        "operator2" AS "operator2",
        "opt1" AS "opt1",
        "opt2" AS "opt2",
        "pending" AS "pending",
        "pl3no" AS "pl3no",
        "productcode" AS "productcode",
        "recno" AS "recno",
        "remark" AS "remark",
        "sealno" AS "sealno",
        "tgl_create" AS "tgl_create",
        "tgl_dt1" AS "tgl_dt1",
        "tgl_dt2" AS "tgl_dt2",
        "tgl_update" AS "tgl_update",
        "transcode" AS "transcode",
        "vehno" AS "vehno",
        "wbname1" AS "wbname1",
        "wbname2" AS "wbname2",
        "weigh1" AS "weigh1",
        "weigh2" AS "weigh2",
        "weighsource1" AS "weighsource1",
        "weighsource2" AS "weighsource2",
        "weighunit1" AS "weighunit1",
        "weighunit2" AS "weighunit2"
    FROM "transactions"
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: page
-- dialect: sqlite
-- LIMIT/OFFSET: ROW_NUMBER() takes seconds per page on a million SQLite rows.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
ORDER BY "id"
LIMIT :row_count OFFSET :skip;

-- name: by_key
-- The record with this id (the first one, should the legacy table repeat it).
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "id" = :key;

-- name: range_dt1
-- Records whose tgl_dt1 + jam_dt1 (NULL time = 00:00:00) lies in the inclusive range, ordered by tgl_dt1, jam_dt1, id.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_dt1" BETWEEN :start_date AND :end_date
  AND ("tgl_dt1" > :start_date OR COALESCE("jam_dt1", :midnight) >= :start_time)
  AND ("tgl_dt1" < :end_date OR COALESCE("jam_dt1", :midnight) <= :end_time)
ORDER BY "tgl_dt1", CASE WHEN "jam_dt1" IS NULL THEN 0 ELSE 1 END, "jam_dt1", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: range_dt1
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_dt1" BETWEEN :start_date AND :end_date
  AND ("tgl_dt1" > :start_date OR COALESCE("jam_dt1", :midnight) >= :start_time)
  AND ("tgl_dt1" < :end_date OR COALESCE("jam_dt1", :midnight) <= :end_time)
ORDER BY "tgl_dt1", "jam_dt1", "id";

-- name: range_dt1_count
-- How many records range_dt1 returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "transactions"
WHERE "tgl_dt1" BETWEEN :start_date AND :end_date
  AND ("tgl_dt1" > :start_date OR COALESCE("jam_dt1", :midnight) >= :start_time)
  AND ("tgl_dt1" < :end_date OR COALESCE("jam_dt1", :midnight) <= :end_time);

-- name: range_dt1_page
-- Positions first_row..last_row (1-based) of range_dt1.
SELECT
    "id", "accessedbyanother", "beingaccessedbyuser", "adjustunit", "adjustweigh", "custcode",
    "detctid", "dono", "drivername", "editedby", "ffa", "jam_create", "jam_dt1", "jam_dt2",
    "jam_update", "location", "lot", "mai", "noct", "operator1", "operator2", "opt1", "opt2",
    "pending", "pl3no", "productcode", "recno", "remark", "sealno", "tgl_create", "tgl_dt1",
    "tgl_dt2", "tgl_update", "transcode", "vehno", "wbname1", "wbname2", "weigh1", "weigh2",
    "weighsource1", "weighsource2", "weighunit1", "weighunit2"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tgl_dt1", CASE WHEN "jam_dt1" IS NULL THEN 0 ELSE 1 END, "jam_dt1", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "accessedbyanother" AS "accessedbyanother",
        "beingaccessedbyuser" AS "beingaccessedbyuser",
        "adjustunit" AS "adjustunit",
        "adjustweigh" AS "adjustweigh",
        "custcode" AS "custcode",
        "detctid" AS "detctid",
        "dono" AS "dono",
        "drivername" AS "drivername",
        "editedby" AS "editedby",
        "ffa" AS "ffa",
        "jam_create" AS "jam_create",
        "jam_dt1" AS "jam_dt1",
        "jam_dt2" AS "jam_dt2",
        "jam_update" AS "jam_update",
        "location" AS "location",
        "lot" AS "lot",
        "mai" AS "mai",
        "noct" AS "noct",
        "operator1" AS "operator1",
        "operator2" AS "operator2",
        "opt1" AS "opt1",
        "opt2" AS "opt2",
        "pending" AS "pending",
        "pl3no" AS "pl3no",
        "productcode" AS "productcode",
        "recno" AS "recno",
        "remark" AS "remark",
        "sealno" AS "sealno",
        "tgl_create" AS "tgl_create",
        "tgl_dt1" AS "tgl_dt1",
        "tgl_dt2" AS "tgl_dt2",
        "tgl_update" AS "tgl_update",
        "transcode" AS "transcode",
        "vehno" AS "vehno",
        "wbname1" AS "wbname1",
        "wbname2" AS "wbname2",
        "weigh1" AS "weigh1",
        "weigh2" AS "weigh2",
        "weighsource1" AS "weighsource1",
        "weighsource2" AS "weighsource2",
        "weighunit1" AS "weighunit1",
        "weighunit2" AS "weighunit2"
    FROM "transactions"
    WHERE "tgl_dt1" BETWEEN :start_date AND :end_date
      AND ("tgl_dt1" > :start_date OR COALESCE("jam_dt1", :midnight) >= :start_time)
      AND ("tgl_dt1" < :end_date OR COALESCE("jam_dt1", :midnight) <= :end_time)
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_dt1_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_dt1" BETWEEN :start_date AND :end_date
  AND ("tgl_dt1" > :start_date OR COALESCE("jam_dt1", :midnight) >= :start_time)
  AND ("tgl_dt1" < :end_date OR COALESCE("jam_dt1", :midnight) <= :end_time)
ORDER BY "tgl_dt1", "jam_dt1", "id"
LIMIT :row_count OFFSET :skip;

-- name: range_dt2
-- Records whose tgl_dt2 + jam_dt2 (NULL time = 00:00:00) lies in the inclusive range, ordered by tgl_dt2, jam_dt2, id.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_dt2" BETWEEN :start_date AND :end_date
  AND ("tgl_dt2" > :start_date OR COALESCE("jam_dt2", :midnight) >= :start_time)
  AND ("tgl_dt2" < :end_date OR COALESCE("jam_dt2", :midnight) <= :end_time)
ORDER BY "tgl_dt2", CASE WHEN "jam_dt2" IS NULL THEN 0 ELSE 1 END, "jam_dt2", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: range_dt2
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_dt2" BETWEEN :start_date AND :end_date
  AND ("tgl_dt2" > :start_date OR COALESCE("jam_dt2", :midnight) >= :start_time)
  AND ("tgl_dt2" < :end_date OR COALESCE("jam_dt2", :midnight) <= :end_time)
ORDER BY "tgl_dt2", "jam_dt2", "id";

-- name: range_dt2_count
-- How many records range_dt2 returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "transactions"
WHERE "tgl_dt2" BETWEEN :start_date AND :end_date
  AND ("tgl_dt2" > :start_date OR COALESCE("jam_dt2", :midnight) >= :start_time)
  AND ("tgl_dt2" < :end_date OR COALESCE("jam_dt2", :midnight) <= :end_time);

-- name: range_dt2_page
-- Positions first_row..last_row (1-based) of range_dt2.
SELECT
    "id", "accessedbyanother", "beingaccessedbyuser", "adjustunit", "adjustweigh", "custcode",
    "detctid", "dono", "drivername", "editedby", "ffa", "jam_create", "jam_dt1", "jam_dt2",
    "jam_update", "location", "lot", "mai", "noct", "operator1", "operator2", "opt1", "opt2",
    "pending", "pl3no", "productcode", "recno", "remark", "sealno", "tgl_create", "tgl_dt1",
    "tgl_dt2", "tgl_update", "transcode", "vehno", "wbname1", "wbname2", "weigh1", "weigh2",
    "weighsource1", "weighsource2", "weighunit1", "weighunit2"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tgl_dt2", CASE WHEN "jam_dt2" IS NULL THEN 0 ELSE 1 END, "jam_dt2", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "accessedbyanother" AS "accessedbyanother",
        "beingaccessedbyuser" AS "beingaccessedbyuser",
        "adjustunit" AS "adjustunit",
        "adjustweigh" AS "adjustweigh",
        "custcode" AS "custcode",
        "detctid" AS "detctid",
        "dono" AS "dono",
        "drivername" AS "drivername",
        "editedby" AS "editedby",
        "ffa" AS "ffa",
        "jam_create" AS "jam_create",
        "jam_dt1" AS "jam_dt1",
        "jam_dt2" AS "jam_dt2",
        "jam_update" AS "jam_update",
        "location" AS "location",
        "lot" AS "lot",
        "mai" AS "mai",
        "noct" AS "noct",
        "operator1" AS "operator1",
        "operator2" AS "operator2",
        "opt1" AS "opt1",
        "opt2" AS "opt2",
        "pending" AS "pending",
        "pl3no" AS "pl3no",
        "productcode" AS "productcode",
        "recno" AS "recno",
        "remark" AS "remark",
        "sealno" AS "sealno",
        "tgl_create" AS "tgl_create",
        "tgl_dt1" AS "tgl_dt1",
        "tgl_dt2" AS "tgl_dt2",
        "tgl_update" AS "tgl_update",
        "transcode" AS "transcode",
        "vehno" AS "vehno",
        "wbname1" AS "wbname1",
        "wbname2" AS "wbname2",
        "weigh1" AS "weigh1",
        "weigh2" AS "weigh2",
        "weighsource1" AS "weighsource1",
        "weighsource2" AS "weighsource2",
        "weighunit1" AS "weighunit1",
        "weighunit2" AS "weighunit2"
    FROM "transactions"
    WHERE "tgl_dt2" BETWEEN :start_date AND :end_date
      AND ("tgl_dt2" > :start_date OR COALESCE("jam_dt2", :midnight) >= :start_time)
      AND ("tgl_dt2" < :end_date OR COALESCE("jam_dt2", :midnight) <= :end_time)
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_dt2_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_dt2" BETWEEN :start_date AND :end_date
  AND ("tgl_dt2" > :start_date OR COALESCE("jam_dt2", :midnight) >= :start_time)
  AND ("tgl_dt2" < :end_date OR COALESCE("jam_dt2", :midnight) <= :end_time)
ORDER BY "tgl_dt2", "jam_dt2", "id"
LIMIT :row_count OFFSET :skip;

-- name: range_create
-- Records whose tgl_create + jam_create (NULL time = 00:00:00) lies in the inclusive range, ordered by tgl_create, jam_create, id.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
ORDER BY "tgl_create", CASE WHEN "jam_create" IS NULL THEN 0 ELSE 1 END, "jam_create", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: range_create
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
ORDER BY "tgl_create", "jam_create", "id";

-- name: range_create_count
-- How many records range_create returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "transactions"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time);

-- name: range_create_page
-- Positions first_row..last_row (1-based) of range_create.
SELECT
    "id", "accessedbyanother", "beingaccessedbyuser", "adjustunit", "adjustweigh", "custcode",
    "detctid", "dono", "drivername", "editedby", "ffa", "jam_create", "jam_dt1", "jam_dt2",
    "jam_update", "location", "lot", "mai", "noct", "operator1", "operator2", "opt1", "opt2",
    "pending", "pl3no", "productcode", "recno", "remark", "sealno", "tgl_create", "tgl_dt1",
    "tgl_dt2", "tgl_update", "transcode", "vehno", "wbname1", "wbname2", "weigh1", "weigh2",
    "weighsource1", "weighsource2", "weighunit1", "weighunit2"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tgl_create", CASE WHEN "jam_create" IS NULL THEN 0 ELSE 1 END, "jam_create", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "accessedbyanother" AS "accessedbyanother",
        "beingaccessedbyuser" AS "beingaccessedbyuser",
        "adjustunit" AS "adjustunit",
        "adjustweigh" AS "adjustweigh",
        "custcode" AS "custcode",
        "detctid" AS "detctid",
        "dono" AS "dono",
        "drivername" AS "drivername",
        "editedby" AS "editedby",
        "ffa" AS "ffa",
        "jam_create" AS "jam_create",
        "jam_dt1" AS "jam_dt1",
        "jam_dt2" AS "jam_dt2",
        "jam_update" AS "jam_update",
        "location" AS "location",
        "lot" AS "lot",
        "mai" AS "mai",
        "noct" AS "noct",
        "operator1" AS "operator1",
        "operator2" AS "operator2",
        "opt1" AS "opt1",
        "opt2" AS "opt2",
        "pending" AS "pending",
        "pl3no" AS "pl3no",
        "productcode" AS "productcode",
        "recno" AS "recno",
        "remark" AS "remark",
        "sealno" AS "sealno",
        "tgl_create" AS "tgl_create",
        "tgl_dt1" AS "tgl_dt1",
        "tgl_dt2" AS "tgl_dt2",
        "tgl_update" AS "tgl_update",
        "transcode" AS "transcode",
        "vehno" AS "vehno",
        "wbname1" AS "wbname1",
        "wbname2" AS "wbname2",
        "weigh1" AS "weigh1",
        "weigh2" AS "weigh2",
        "weighsource1" AS "weighsource1",
        "weighsource2" AS "weighsource2",
        "weighunit1" AS "weighunit1",
        "weighunit2" AS "weighunit2"
    FROM "transactions"
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
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_create" BETWEEN :start_date AND :end_date
  AND ("tgl_create" > :start_date OR COALESCE("jam_create", :midnight) >= :start_time)
  AND ("tgl_create" < :end_date OR COALESCE("jam_create", :midnight) <= :end_time)
ORDER BY "tgl_create", "jam_create", "id"
LIMIT :row_count OFFSET :skip;

-- name: range_update
-- Records whose tgl_update + jam_update (NULL time = 00:00:00) lies in the inclusive range, ordered by tgl_update, jam_update, id.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_update" BETWEEN :start_date AND :end_date
  AND ("tgl_update" > :start_date OR COALESCE("jam_update", :midnight) >= :start_time)
  AND ("tgl_update" < :end_date OR COALESCE("jam_update", :midnight) <= :end_time)
ORDER BY "tgl_update", CASE WHEN "jam_update" IS NULL THEN 0 ELSE 1 END, "jam_update", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id";

-- name: range_update
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_update" BETWEEN :start_date AND :end_date
  AND ("tgl_update" > :start_date OR COALESCE("jam_update", :midnight) >= :start_time)
  AND ("tgl_update" < :end_date OR COALESCE("jam_update", :midnight) <= :end_time)
ORDER BY "tgl_update", "jam_update", "id";

-- name: range_update_count
-- How many records range_update returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "transactions"
WHERE "tgl_update" BETWEEN :start_date AND :end_date
  AND ("tgl_update" > :start_date OR COALESCE("jam_update", :midnight) >= :start_time)
  AND ("tgl_update" < :end_date OR COALESCE("jam_update", :midnight) <= :end_time);

-- name: range_update_page
-- Positions first_row..last_row (1-based) of range_update.
SELECT
    "id", "accessedbyanother", "beingaccessedbyuser", "adjustunit", "adjustweigh", "custcode",
    "detctid", "dono", "drivername", "editedby", "ffa", "jam_create", "jam_dt1", "jam_dt2",
    "jam_update", "location", "lot", "mai", "noct", "operator1", "operator2", "opt1", "opt2",
    "pending", "pl3no", "productcode", "recno", "remark", "sealno", "tgl_create", "tgl_dt1",
    "tgl_dt2", "tgl_update", "transcode", "vehno", "wbname1", "wbname2", "weigh1", "weigh2",
    "weighsource1", "weighsource2", "weighunit1", "weighunit2"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tgl_update", CASE WHEN "jam_update" IS NULL THEN 0 ELSE 1 END, "jam_update", CASE WHEN "id" IS NULL THEN 0 ELSE 1 END, "id") AS "position",
        "id" AS "id",
        "accessedbyanother" AS "accessedbyanother",
        "beingaccessedbyuser" AS "beingaccessedbyuser",
        "adjustunit" AS "adjustunit",
        "adjustweigh" AS "adjustweigh",
        "custcode" AS "custcode",
        "detctid" AS "detctid",
        "dono" AS "dono",
        "drivername" AS "drivername",
        "editedby" AS "editedby",
        "ffa" AS "ffa",
        "jam_create" AS "jam_create",
        "jam_dt1" AS "jam_dt1",
        "jam_dt2" AS "jam_dt2",
        "jam_update" AS "jam_update",
        "location" AS "location",
        "lot" AS "lot",
        "mai" AS "mai",
        "noct" AS "noct",
        "operator1" AS "operator1",
        "operator2" AS "operator2",
        "opt1" AS "opt1",
        "opt2" AS "opt2",
        "pending" AS "pending",
        "pl3no" AS "pl3no",
        "productcode" AS "productcode",
        "recno" AS "recno",
        "remark" AS "remark",
        "sealno" AS "sealno",
        "tgl_create" AS "tgl_create",
        "tgl_dt1" AS "tgl_dt1",
        "tgl_dt2" AS "tgl_dt2",
        "tgl_update" AS "tgl_update",
        "transcode" AS "transcode",
        "vehno" AS "vehno",
        "wbname1" AS "wbname1",
        "wbname2" AS "wbname2",
        "weigh1" AS "weigh1",
        "weigh2" AS "weigh2",
        "weighsource1" AS "weighsource1",
        "weighsource2" AS "weighsource2",
        "weighunit1" AS "weighunit1",
        "weighunit2" AS "weighunit2"
    FROM "transactions"
    WHERE "tgl_update" BETWEEN :start_date AND :end_date
      AND ("tgl_update" > :start_date OR COALESCE("jam_update", :midnight) >= :start_time)
      AND ("tgl_update" < :end_date OR COALESCE("jam_update", :midnight) <= :end_time)
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_update_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT
    "id" AS "id",
    "accessedbyanother" AS "accessedbyanother",
    "beingaccessedbyuser" AS "beingaccessedbyuser",
    "adjustunit" AS "adjustunit",
    "adjustweigh" AS "adjustweigh",
    "custcode" AS "custcode",
    "detctid" AS "detctid",
    "dono" AS "dono",
    "drivername" AS "drivername",
    "editedby" AS "editedby",
    "ffa" AS "ffa",
    "jam_create" AS "jam_create",
    "jam_dt1" AS "jam_dt1",
    "jam_dt2" AS "jam_dt2",
    "jam_update" AS "jam_update",
    "location" AS "location",
    "lot" AS "lot",
    "mai" AS "mai",
    "noct" AS "noct",
    "operator1" AS "operator1",
    "operator2" AS "operator2",
    "opt1" AS "opt1",
    "opt2" AS "opt2",
    "pending" AS "pending",
    "pl3no" AS "pl3no",
    "productcode" AS "productcode",
    "recno" AS "recno",
    "remark" AS "remark",
    "sealno" AS "sealno",
    "tgl_create" AS "tgl_create",
    "tgl_dt1" AS "tgl_dt1",
    "tgl_dt2" AS "tgl_dt2",
    "tgl_update" AS "tgl_update",
    "transcode" AS "transcode",
    "vehno" AS "vehno",
    "wbname1" AS "wbname1",
    "wbname2" AS "wbname2",
    "weigh1" AS "weigh1",
    "weigh2" AS "weigh2",
    "weighsource1" AS "weighsource1",
    "weighsource2" AS "weighsource2",
    "weighunit1" AS "weighunit1",
    "weighunit2" AS "weighunit2"
FROM "transactions"
WHERE "tgl_update" BETWEEN :start_date AND :end_date
  AND ("tgl_update" > :start_date OR COALESCE("jam_update", :midnight) >= :start_time)
  AND ("tgl_update" < :end_date OR COALESCE("jam_update", :midnight) <= :end_time)
ORDER BY "tgl_update", "jam_update", "id"
LIMIT :row_count OFFSET :skip;
