-- bricon2: every query Jembatan runs on table "bricon2".
-- Canonical order: tanggal, jam, no_produksi, no_produksi_ (ascending, NULLs first); key: row number.
-- Each main text is T-SQL for SQL Server 2008 R2 and later. A `-- dialect: sqlite` variant
-- under the same name replaces it on SQLite, where ROW_NUMBER() paging and CASE ordering
-- cost a sort of the whole table. A site whose columns are named differently edits the
-- left-hand side of each AS; the names after AS are the API's field names.
-- GET /bricon2/{numberrow} runs `page` with first_row = last_row = numberrow;
-- the API numbers rows itself from each query's first position, so no query returns it.

-- name: all
-- Every record, in canonical order (tanggal, jam, no_produksi, no_produksi_).
SELECT
    "no_produksi" AS "no_produksi",
    "no_produksi_" AS "no_produksi_",
    "tanggal" AS "tanggal",
    "jam" AS "jam",
    "operator_name" AS "operator_name",
    "mode_operator" AS "mode_operator",
    "recipe" AS "recipe",
    "level_change" AS "level_change",
    "isproses" AS "isproses",
    "temperature_sv" AS "temperature_sv",
    "temperature_pv" AS "temperature_pv",
    "temperature_corr" AS "temperature_corr",
    "temperature_note" AS "temperature_note",
    "adonan_before_add" AS "adonan_before_add",
    "adonan_corr" AS "adonan_corr",
    "adonan_note" AS "adonan_note",
    "adonan_pv" AS "adonan_pv",
    "adonan_sv" AS "adonan_sv",
    "afalan_before_add" AS "afalan_before_add",
    "afalan_corr" AS "afalan_corr",
    "afalan_note" AS "afalan_note",
    "afalan_pv" AS "afalan_pv",
    "afalan_sv" AS "afalan_sv",
    "air_before_add" AS "air_before_add",
    "air_corr" AS "air_corr",
    "air_note" AS "air_note",
    "air_pv" AS "air_pv",
    "air_sv" AS "air_sv",
    "aluminium_before_add" AS "aluminium_before_add",
    "aluminium_corr" AS "aluminium_corr",
    "aluminium_note" AS "aluminium_note",
    "aluminium_pv" AS "aluminium_pv",
    "aluminium_sv" AS "aluminium_sv",
    "kapur_before_add" AS "kapur_before_add",
    "kapur_corr" AS "kapur_corr",
    "kapur_note" AS "kapur_note",
    "kapur_pv" AS "kapur_pv",
    "kapur_sv" AS "kapur_sv",
    "silo_1_before_add" AS "silo_1_before_add",
    "silo_1_corr" AS "silo_1_corr",
    "silo_1_note" AS "silo_1_note",
    "silo_1_pv" AS "silo_1_pv",
    "silo_1_sv" AS "silo_1_sv",
    "silo_2_before_add" AS "silo_2_before_add",
    "silo_2_corr" AS "silo_2_corr",
    "silo_2_note" AS "silo_2_note",
    "silo_2_pv" AS "silo_2_pv",
    "silo_2_sv" AS "silo_2_sv"
FROM "bricon2"
ORDER BY CASE WHEN "tanggal" IS NULL THEN 0 ELSE 1 END, "tanggal", CASE WHEN "jam" IS NULL THEN 0 ELSE 1 END, "jam", CASE WHEN "no_produksi" IS NULL THEN 0 ELSE 1 END, "no_produksi", CASE WHEN "no_produksi_" IS NULL THEN 0 ELSE 1 END, "no_produksi_";

-- name: all
-- dialect: sqlite
-- Plain ORDER BY: SQLite puts NULLs first and walks the index instead of sorting.
SELECT
    "no_produksi" AS "no_produksi",
    "no_produksi_" AS "no_produksi_",
    "tanggal" AS "tanggal",
    "jam" AS "jam",
    "operator_name" AS "operator_name",
    "mode_operator" AS "mode_operator",
    "recipe" AS "recipe",
    "level_change" AS "level_change",
    "isproses" AS "isproses",
    "temperature_sv" AS "temperature_sv",
    "temperature_pv" AS "temperature_pv",
    "temperature_corr" AS "temperature_corr",
    "temperature_note" AS "temperature_note",
    "adonan_before_add" AS "adonan_before_add",
    "adonan_corr" AS "adonan_corr",
    "adonan_note" AS "adonan_note",
    "adonan_pv" AS "adonan_pv",
    "adonan_sv" AS "adonan_sv",
    "afalan_before_add" AS "afalan_before_add",
    "afalan_corr" AS "afalan_corr",
    "afalan_note" AS "afalan_note",
    "afalan_pv" AS "afalan_pv",
    "afalan_sv" AS "afalan_sv",
    "air_before_add" AS "air_before_add",
    "air_corr" AS "air_corr",
    "air_note" AS "air_note",
    "air_pv" AS "air_pv",
    "air_sv" AS "air_sv",
    "aluminium_before_add" AS "aluminium_before_add",
    "aluminium_corr" AS "aluminium_corr",
    "aluminium_note" AS "aluminium_note",
    "aluminium_pv" AS "aluminium_pv",
    "aluminium_sv" AS "aluminium_sv",
    "kapur_before_add" AS "kapur_before_add",
    "kapur_corr" AS "kapur_corr",
    "kapur_note" AS "kapur_note",
    "kapur_pv" AS "kapur_pv",
    "kapur_sv" AS "kapur_sv",
    "silo_1_before_add" AS "silo_1_before_add",
    "silo_1_corr" AS "silo_1_corr",
    "silo_1_note" AS "silo_1_note",
    "silo_1_pv" AS "silo_1_pv",
    "silo_1_sv" AS "silo_1_sv",
    "silo_2_before_add" AS "silo_2_before_add",
    "silo_2_corr" AS "silo_2_corr",
    "silo_2_note" AS "silo_2_note",
    "silo_2_pv" AS "silo_2_pv",
    "silo_2_sv" AS "silo_2_sv"
FROM "bricon2"
ORDER BY "tanggal", "jam", "no_produksi", "no_produksi_";

-- name: count
-- How many records there are, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "bricon2";

-- name: page
-- Records at positions first_row..last_row (1-based) of the canonical order.
SELECT
    "no_produksi", "no_produksi_", "tanggal", "jam", "operator_name", "mode_operator", "recipe",
    "level_change", "isproses", "temperature_sv", "temperature_pv", "temperature_corr",
    "temperature_note", "adonan_before_add", "adonan_corr", "adonan_note", "adonan_pv",
    "adonan_sv", "afalan_before_add", "afalan_corr", "afalan_note", "afalan_pv", "afalan_sv",
    "air_before_add", "air_corr", "air_note", "air_pv", "air_sv", "aluminium_before_add",
    "aluminium_corr", "aluminium_note", "aluminium_pv", "aluminium_sv", "kapur_before_add",
    "kapur_corr", "kapur_note", "kapur_pv", "kapur_sv", "silo_1_before_add", "silo_1_corr",
    "silo_1_note", "silo_1_pv", "silo_1_sv", "silo_2_before_add", "silo_2_corr", "silo_2_note",
    "silo_2_pv", "silo_2_sv"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY CASE WHEN "tanggal" IS NULL THEN 0 ELSE 1 END, "tanggal", CASE WHEN "jam" IS NULL THEN 0 ELSE 1 END, "jam", CASE WHEN "no_produksi" IS NULL THEN 0 ELSE 1 END, "no_produksi", CASE WHEN "no_produksi_" IS NULL THEN 0 ELSE 1 END, "no_produksi_") AS "position",
        "no_produksi" AS "no_produksi",
        "no_produksi_" AS "no_produksi_",
        "tanggal" AS "tanggal",
        "jam" AS "jam",
        "operator_name" AS "operator_name",
        "mode_operator" AS "mode_operator",
        "recipe" AS "recipe",
        "level_change" AS "level_change",
        "isproses" AS "isproses",
        "temperature_sv" AS "temperature_sv",
        "temperature_pv" AS "temperature_pv",
        "temperature_corr" AS "temperature_corr",
        "temperature_note" AS "temperature_note",
        "adonan_before_add" AS "adonan_before_add",
        "adonan_corr" AS "adonan_corr",
        "adonan_note" AS "adonan_note",
        "adonan_pv" AS "adonan_pv",
        "adonan_sv" AS "adonan_sv",
        "afalan_before_add" AS "afalan_before_add",
        "afalan_corr" AS "afalan_corr",
        "afalan_note" AS "afalan_note",
        "afalan_pv" AS "afalan_pv",
        "afalan_sv" AS "afalan_sv",
        "air_before_add" AS "air_before_add",
        "air_corr" AS "air_corr",
        "air_note" AS "air_note",
        "air_pv" AS "air_pv",
        "air_sv" AS "air_sv",
        "aluminium_before_add" AS "aluminium_before_add",
        "aluminium_corr" AS "aluminium_corr",
        "aluminium_note" AS "aluminium_note",
        "aluminium_pv" AS "aluminium_pv",
        "aluminium_sv" AS "aluminium_sv",
        "kapur_before_add" AS "kapur_before_add",
        "kapur_corr" AS "kapur_corr",
        "kapur_note" AS "kapur_note",
        "kapur_pv" AS "kapur_pv",
        "kapur_sv" AS "kapur_sv",
        "silo_1_before_add" AS "silo_1_before_add",
        "silo_1_corr" AS "silo_1_corr",
        "silo_1_note" AS "silo_1_note",
        "silo_1_pv" AS "silo_1_pv",
        "silo_1_sv" AS "silo_1_sv",
        "silo_2_before_add" AS "silo_2_before_add",
        "silo_2_corr" AS "silo_2_corr",
        "silo_2_note" AS "silo_2_note",
        "silo_2_pv" AS "silo_2_pv",
        "silo_2_sv" AS "silo_2_sv"
    FROM "bricon2"
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: page
-- dialect: sqlite
-- LIMIT/OFFSET: ROW_NUMBER() takes seconds per page on a million SQLite rows.
SELECT
    "no_produksi" AS "no_produksi",
    "no_produksi_" AS "no_produksi_",
    "tanggal" AS "tanggal",
    "jam" AS "jam",
    "operator_name" AS "operator_name",
    "mode_operator" AS "mode_operator",
    "recipe" AS "recipe",
    "level_change" AS "level_change",
    "isproses" AS "isproses",
    "temperature_sv" AS "temperature_sv",
    "temperature_pv" AS "temperature_pv",
    "temperature_corr" AS "temperature_corr",
    "temperature_note" AS "temperature_note",
    "adonan_before_add" AS "adonan_before_add",
    "adonan_corr" AS "adonan_corr",
    "adonan_note" AS "adonan_note",
    "adonan_pv" AS "adonan_pv",
    "adonan_sv" AS "adonan_sv",
    "afalan_before_add" AS "afalan_before_add",
    "afalan_corr" AS "afalan_corr",
    "afalan_note" AS "afalan_note",
    "afalan_pv" AS "afalan_pv",
    "afalan_sv" AS "afalan_sv",
    "air_before_add" AS "air_before_add",
    "air_corr" AS "air_corr",
    "air_note" AS "air_note",
    "air_pv" AS "air_pv",
    "air_sv" AS "air_sv",
    "aluminium_before_add" AS "aluminium_before_add",
    "aluminium_corr" AS "aluminium_corr",
    "aluminium_note" AS "aluminium_note",
    "aluminium_pv" AS "aluminium_pv",
    "aluminium_sv" AS "aluminium_sv",
    "kapur_before_add" AS "kapur_before_add",
    "kapur_corr" AS "kapur_corr",
    "kapur_note" AS "kapur_note",
    "kapur_pv" AS "kapur_pv",
    "kapur_sv" AS "kapur_sv",
    "silo_1_before_add" AS "silo_1_before_add",
    "silo_1_corr" AS "silo_1_corr",
    "silo_1_note" AS "silo_1_note",
    "silo_1_pv" AS "silo_1_pv",
    "silo_1_sv" AS "silo_1_sv",
    "silo_2_before_add" AS "silo_2_before_add",
    "silo_2_corr" AS "silo_2_corr",
    "silo_2_note" AS "silo_2_note",
    "silo_2_pv" AS "silo_2_pv",
    "silo_2_sv" AS "silo_2_sv"
FROM "bricon2"
ORDER BY "tanggal", "jam", "no_produksi", "no_produksi_"
LIMIT :row_count OFFSET :skip;

-- name: range_tanggal
-- Records whose tanggal + jam (NULL time = 00:00:00) lies in the inclusive range, ordered by tanggal, jam, no_produksi, no_produksi_.
SELECT
    "no_produksi" AS "no_produksi",
    "no_produksi_" AS "no_produksi_",
    "tanggal" AS "tanggal",
    "jam" AS "jam",
    "operator_name" AS "operator_name",
    "mode_operator" AS "mode_operator",
    "recipe" AS "recipe",
    "level_change" AS "level_change",
    "isproses" AS "isproses",
    "temperature_sv" AS "temperature_sv",
    "temperature_pv" AS "temperature_pv",
    "temperature_corr" AS "temperature_corr",
    "temperature_note" AS "temperature_note",
    "adonan_before_add" AS "adonan_before_add",
    "adonan_corr" AS "adonan_corr",
    "adonan_note" AS "adonan_note",
    "adonan_pv" AS "adonan_pv",
    "adonan_sv" AS "adonan_sv",
    "afalan_before_add" AS "afalan_before_add",
    "afalan_corr" AS "afalan_corr",
    "afalan_note" AS "afalan_note",
    "afalan_pv" AS "afalan_pv",
    "afalan_sv" AS "afalan_sv",
    "air_before_add" AS "air_before_add",
    "air_corr" AS "air_corr",
    "air_note" AS "air_note",
    "air_pv" AS "air_pv",
    "air_sv" AS "air_sv",
    "aluminium_before_add" AS "aluminium_before_add",
    "aluminium_corr" AS "aluminium_corr",
    "aluminium_note" AS "aluminium_note",
    "aluminium_pv" AS "aluminium_pv",
    "aluminium_sv" AS "aluminium_sv",
    "kapur_before_add" AS "kapur_before_add",
    "kapur_corr" AS "kapur_corr",
    "kapur_note" AS "kapur_note",
    "kapur_pv" AS "kapur_pv",
    "kapur_sv" AS "kapur_sv",
    "silo_1_before_add" AS "silo_1_before_add",
    "silo_1_corr" AS "silo_1_corr",
    "silo_1_note" AS "silo_1_note",
    "silo_1_pv" AS "silo_1_pv",
    "silo_1_sv" AS "silo_1_sv",
    "silo_2_before_add" AS "silo_2_before_add",
    "silo_2_corr" AS "silo_2_corr",
    "silo_2_note" AS "silo_2_note",
    "silo_2_pv" AS "silo_2_pv",
    "silo_2_sv" AS "silo_2_sv"
FROM "bricon2"
WHERE "tanggal" BETWEEN :start_date AND :end_date
  AND ("tanggal" > :start_date OR COALESCE("jam", :midnight) >= :start_time)
  AND ("tanggal" < :end_date OR COALESCE("jam", :midnight) <= :end_time)
ORDER BY "tanggal", CASE WHEN "jam" IS NULL THEN 0 ELSE 1 END, "jam", CASE WHEN "no_produksi" IS NULL THEN 0 ELSE 1 END, "no_produksi", CASE WHEN "no_produksi_" IS NULL THEN 0 ELSE 1 END, "no_produksi_";

-- name: range_tanggal
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT
    "no_produksi" AS "no_produksi",
    "no_produksi_" AS "no_produksi_",
    "tanggal" AS "tanggal",
    "jam" AS "jam",
    "operator_name" AS "operator_name",
    "mode_operator" AS "mode_operator",
    "recipe" AS "recipe",
    "level_change" AS "level_change",
    "isproses" AS "isproses",
    "temperature_sv" AS "temperature_sv",
    "temperature_pv" AS "temperature_pv",
    "temperature_corr" AS "temperature_corr",
    "temperature_note" AS "temperature_note",
    "adonan_before_add" AS "adonan_before_add",
    "adonan_corr" AS "adonan_corr",
    "adonan_note" AS "adonan_note",
    "adonan_pv" AS "adonan_pv",
    "adonan_sv" AS "adonan_sv",
    "afalan_before_add" AS "afalan_before_add",
    "afalan_corr" AS "afalan_corr",
    "afalan_note" AS "afalan_note",
    "afalan_pv" AS "afalan_pv",
    "afalan_sv" AS "afalan_sv",
    "air_before_add" AS "air_before_add",
    "air_corr" AS "air_corr",
    "air_note" AS "air_note",
    "air_pv" AS "air_pv",
    "air_sv" AS "air_sv",
    "aluminium_before_add" AS "aluminium_before_add",
    "aluminium_corr" AS "aluminium_corr",
    "aluminium_note" AS "aluminium_note",
    "aluminium_pv" AS "aluminium_pv",
    "aluminium_sv" AS "aluminium_sv",
    "kapur_before_add" AS "kapur_before_add",
    "kapur_corr" AS "kapur_corr",
    "kapur_note" AS "kapur_note",
    "kapur_pv" AS "kapur_pv",
    "kapur_sv" AS "kapur_sv",
    "silo_1_before_add" AS "silo_1_before_add",
    "silo_1_corr" AS "silo_1_corr",
    "silo_1_note" AS "silo_1_note",
    "silo_1_pv" AS "silo_1_pv",
    "silo_1_sv" AS "silo_1_sv",
    "silo_2_before_add" AS "silo_2_before_add",
    "silo_2_corr" AS "silo_2_corr",
    "silo_2_note" AS "silo_2_note",
    "silo_2_pv" AS "silo_2_pv",
    "silo_2_sv" AS "silo_2_sv"
FROM "bricon2"
WHERE "tanggal" BETWEEN :start_date AND :end_date
  AND ("tanggal" > :start_date OR COALESCE("jam", :midnight) >= :start_time)
  AND ("tanggal" < :end_date OR COALESCE("jam", :midnight) <= :end_time)
ORDER BY "tanggal", "jam", "no_produksi", "no_produksi_";

-- name: range_tanggal_count
-- How many records range_tanggal returns, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "bricon2"
WHERE "tanggal" BETWEEN :start_date AND :end_date
  AND ("tanggal" > :start_date OR COALESCE("jam", :midnight) >= :start_time)
  AND ("tanggal" < :end_date OR COALESCE("jam", :midnight) <= :end_time);

-- name: range_tanggal_page
-- Positions first_row..last_row (1-based) of range_tanggal.
SELECT
    "no_produksi", "no_produksi_", "tanggal", "jam", "operator_name", "mode_operator", "recipe",
    "level_change", "isproses", "temperature_sv", "temperature_pv", "temperature_corr",
    "temperature_note", "adonan_before_add", "adonan_corr", "adonan_note", "adonan_pv",
    "adonan_sv", "afalan_before_add", "afalan_corr", "afalan_note", "afalan_pv", "afalan_sv",
    "air_before_add", "air_corr", "air_note", "air_pv", "air_sv", "aluminium_before_add",
    "aluminium_corr", "aluminium_note", "aluminium_pv", "aluminium_sv", "kapur_before_add",
    "kapur_corr", "kapur_note", "kapur_pv", "kapur_sv", "silo_1_before_add", "silo_1_corr",
    "silo_1_note", "silo_1_pv", "silo_1_sv", "silo_2_before_add", "silo_2_corr", "silo_2_note",
    "silo_2_pv", "silo_2_sv"
FROM (
    SELECT
        ROW_NUMBER() OVER (ORDER BY "tanggal", CASE WHEN "jam" IS NULL THEN 0 ELSE 1 END, "jam", CASE WHEN "no_produksi" IS NULL THEN 0 ELSE 1 END, "no_produksi", CASE WHEN "no_produksi_" IS NULL THEN 0 ELSE 1 END, "no_produksi_") AS "position",
        "no_produksi" AS "no_produksi",
        "no_produksi_" AS "no_produksi_",
        "tanggal" AS "tanggal",
        "jam" AS "jam",
        "operator_name" AS "operator_name",
        "mode_operator" AS "mode_operator",
        "recipe" AS "recipe",
        "level_change" AS "level_change",
        "isproses" AS "isproses",
        "temperature_sv" AS "temperature_sv",
        "temperature_pv" AS "temperature_pv",
        "temperature_corr" AS "temperature_corr",
        "temperature_note" AS "temperature_note",
        "adonan_before_add" AS "adonan_before_add",
        "adonan_corr" AS "adonan_corr",
        "adonan_note" AS "adonan_note",
        "adonan_pv" AS "adonan_pv",
        "adonan_sv" AS "adonan_sv",
        "afalan_before_add" AS "afalan_before_add",
        "afalan_corr" AS "afalan_corr",
        "afalan_note" AS "afalan_note",
        "afalan_pv" AS "afalan_pv",
        "afalan_sv" AS "afalan_sv",
        "air_before_add" AS "air_before_add",
        "air_corr" AS "air_corr",
        "air_note" AS "air_note",
        "air_pv" AS "air_pv",
        "air_sv" AS "air_sv",
        "aluminium_before_add" AS "aluminium_before_add",
        "aluminium_corr" AS "aluminium_corr",
        "aluminium_note" AS "aluminium_note",
        "aluminium_pv" AS "aluminium_pv",
        "aluminium_sv" AS "aluminium_sv",
        "kapur_before_add" AS "kapur_before_add",
        "kapur_corr" AS "kapur_corr",
        "kapur_note" AS "kapur_note",
        "kapur_pv" AS "kapur_pv",
        "kapur_sv" AS "kapur_sv",
        "silo_1_before_add" AS "silo_1_before_add",
        "silo_1_corr" AS "silo_1_corr",
        "silo_1_note" AS "silo_1_note",
        "silo_1_pv" AS "silo_1_pv",
        "silo_1_sv" AS "silo_1_sv",
        "silo_2_before_add" AS "silo_2_before_add",
        "silo_2_corr" AS "silo_2_corr",
        "silo_2_note" AS "silo_2_note",
        "silo_2_pv" AS "silo_2_pv",
        "silo_2_sv" AS "silo_2_sv"
    FROM "bricon2"
    WHERE "tanggal" BETWEEN :start_date AND :end_date
      AND ("tanggal" > :start_date OR COALESCE("jam", :midnight) >= :start_time)
      AND ("tanggal" < :end_date OR COALESCE("jam", :midnight) <= :end_time)
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_tanggal_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT
    "no_produksi" AS "no_produksi",
    "no_produksi_" AS "no_produksi_",
    "tanggal" AS "tanggal",
    "jam" AS "jam",
    "operator_name" AS "operator_name",
    "mode_operator" AS "mode_operator",
    "recipe" AS "recipe",
    "level_change" AS "level_change",
    "isproses" AS "isproses",
    "temperature_sv" AS "temperature_sv",
    "temperature_pv" AS "temperature_pv",
    "temperature_corr" AS "temperature_corr",
    "temperature_note" AS "temperature_note",
    "adonan_before_add" AS "adonan_before_add",
    "adonan_corr" AS "adonan_corr",
    "adonan_note" AS "adonan_note",
    "adonan_pv" AS "adonan_pv",
    "adonan_sv" AS "adonan_sv",
    "afalan_before_add" AS "afalan_before_add",
    "afalan_corr" AS "afalan_corr",
    "afalan_note" AS "afalan_note",
    "afalan_pv" AS "afalan_pv",
    "afalan_sv" AS "afalan_sv",
    "air_before_add" AS "air_before_add",
    "air_corr" AS "air_corr",
    "air_note" AS "air_note",
    "air_pv" AS "air_pv",
    "air_sv" AS "air_sv",
    "aluminium_before_add" AS "aluminium_before_add",
    "aluminium_corr" AS "aluminium_corr",
    "aluminium_note" AS "aluminium_note",
    "aluminium_pv" AS "aluminium_pv",
    "aluminium_sv" AS "aluminium_sv",
    "kapur_before_add" AS "kapur_before_add",
    "kapur_corr" AS "kapur_corr",
    "kapur_note" AS "kapur_note",
    "kapur_pv" AS "kapur_pv",
    "kapur_sv" AS "kapur_sv",
    "silo_1_before_add" AS "silo_1_before_add",
    "silo_1_corr" AS "silo_1_corr",
    "silo_1_note" AS "silo_1_note",
    "silo_1_pv" AS "silo_1_pv",
    "silo_1_sv" AS "silo_1_sv",
    "silo_2_before_add" AS "silo_2_before_add",
    "silo_2_corr" AS "silo_2_corr",
    "silo_2_note" AS "silo_2_note",
    "silo_2_pv" AS "silo_2_pv",
    "silo_2_sv" AS "silo_2_sv"
FROM "bricon2"
WHERE "tanggal" BETWEEN :start_date AND :end_date
  AND ("tanggal" > :start_date OR COALESCE("jam", :midnight) >= :start_time)
  AND ("tanggal" < :end_date OR COALESCE("jam", :midnight) <= :end_time)
ORDER BY "tanggal", "jam", "no_produksi", "no_produksi_"
LIMIT :row_count OFFSET :skip;
