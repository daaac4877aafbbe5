-- shapes: every read Jembatan makes, written once for all ten collections. Each reads from
-- "records": Jembatan puts the collection's `records` query (the site's mapping, first in
-- sql/<collection>.sql) in front of it as `WITH "records" AS (...)`, so a shape speaks only
-- of the record's field names, never of a site's tables or columns. SQL Server, PostgreSQL
-- and SQLite all inline that common table expression: the indexes of the site's table serve
-- it as they would a query on the table itself. `flask --app wsgi check-sql --show
-- <collection>` prints every query of a collection as it is sent.
--
-- The main text of each shape is T-SQL for SQL Server 2008 R2 and later (no LIMIT, no
-- OFFSET/FETCH: ROW_NUMBER() paging; NULLs first spelled out with CASE, since PostgreSQL
-- puts them last). A `-- dialect: sqlite` variant replaces it on SQLite, where that CASE and
-- ROW_NUMBER() cost a sort of the whole table.
--
-- Placeholders, filled in for each collection from its row of app/collections.py:
--   {fields}     its stored fields, quoted, in the record's order: "id", "vehno", ...
--   {key}        the field of /<c>/{key}: "id"
--   {order}      the canonical order: "id" (bricon2: "tanggal", "jam", "no_produksi", ...);
--                in a range, what orders it after the date and time: the order less those
--   {order:X}    X once per field of {order}, with {} standing for the field, joined by ", "
--   {date}       in a range, the date field of ?on= ("tgl_dt1" for on=dt1)
--   {time}       in a range, the time field of ?on= ("jam_dt1" for on=dt1)
--   {where_filters}, {and_filters}
--                the request's filters (?vehno=B 1234 XYZ&weigh2__isnull=true): nothing
--                without filters, else WHERE (or AND) and one condition per filter on a
--                quoted field, each value a bound :parameter ("vehno" = :filter_0 AND ...)
-- and :parameters, which the runner binds (dates and times typed on SQL Server).
--
-- A collection's own file may hold a query of a shape's name (or range_<on>,
-- range_<on>_count, range_<on>_page for one `on` alone): it replaces the shape there.

-- name: all
-- Every record, in canonical order.
SELECT {fields}
FROM "records"
{where_filters}
ORDER BY {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: all
-- dialect: sqlite
-- Plain ORDER BY: SQLite puts NULLs first and walks the index instead of sorting.
SELECT {fields}
FROM "records"
{where_filters}
ORDER BY {order};

-- name: count
-- How many records there are, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "records"
{where_filters};

-- name: page
-- Records at positions first_row..last_row (1-based) of the canonical order.
SELECT {fields}
FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}})
            AS "position",
        {fields}
    FROM "records"
    {where_filters}
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: page
-- dialect: sqlite
-- LIMIT/OFFSET: ROW_NUMBER() takes seconds per page on a million SQLite rows.
SELECT {fields}
FROM "records"
{where_filters}
ORDER BY {order}
LIMIT :row_count OFFSET :skip;

-- name: by_key
-- The record with this key (the first one, should the legacy table repeat it).
SELECT {fields}
FROM "records"
WHERE {key} = :key;

-- name: range
-- Records whose {date} + {time} (a NULL time counts as 00:00:00) lies in the inclusive range, by {date}, {time}, then the canonical order.
SELECT {fields}
FROM "records"
WHERE {date} BETWEEN :start_date AND :end_date
  AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
  AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
  {and_filters}
ORDER BY {date}, CASE WHEN {time} IS NULL THEN 0 ELSE 1 END, {time},
    {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: range
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT {fields}
FROM "records"
WHERE {date} BETWEEN :start_date AND :end_date
  AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
  AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
  {and_filters}
ORDER BY {date}, {time}, {order};

-- name: range_count
-- How many records the range holds, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "records"
WHERE {date} BETWEEN :start_date AND :end_date
  AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
  AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
  {and_filters};

-- name: range_page
-- Positions first_row..last_row (1-based) of the range, in its order.
SELECT {fields}
FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY {date}, CASE WHEN {time} IS NULL THEN 0 ELSE 1 END, {time},
            {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}) AS "position",
        {fields}
    FROM "records"
    WHERE {date} BETWEEN :start_date AND :end_date
      AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
      AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
      {and_filters}
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT {fields}
FROM "records"
WHERE {date} BETWEEN :start_date AND :end_date
  AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
  AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
  {and_filters}
ORDER BY {date}, {time}, {order}
LIMIT :row_count OFFSET :skip;
