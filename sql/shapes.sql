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
-- Placeholders: {fields}, {key}, {order}, {order:X}, {date}, {time}, {after},
-- {where_filters}, {and_filters}, {by}, {groups}, and in name_of and name_from alone {master},
-- {code}, {name}, {group}. Jembatan fills them in for each collection from its row of
-- app/model/collections.py, and per request with its filters and groups; docs/adapting.md,
-- "The placeholders", says where each may stand and what it becomes. The :parameters are
-- the runner's to bind (dates and times typed on SQL Server).
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

-- A range's records: those whose {date} + {time} (a NULL time counts as 00:00:00) lies in
-- the inclusive range, filters included. Every range read and every summary reads them as
-- "in_range" (range_rows, which Jembatan puts in front of it as a second common table
-- expression, as it puts "records"), so that the range's condition is written once; each
-- record comes with the "day" (its {date}), "month" (YYYY-MM of it) and "hour" (0-23 of its
-- {time}, a NULL time counting as hour 0) a summary groups by. The engines inline it as
-- they inline "records": the (date, time, ...) index still serves the range's order.

-- name: range_rows
-- The records of the range, with the day, month and hour a summary groups by.
SELECT {date} AS "day",
    SUBSTRING(CAST(CAST({date} AS date) AS varchar(10)), 1, 7) AS "month",
    COALESCE(CAST(SUBSTRING(CAST(CAST({time} AS time) AS varchar(16)), 1, 2) AS int), 0)
        AS "hour",
    {fields}
FROM "records"
WHERE {date} BETWEEN :start_date AND :end_date
  AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
  AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
  {and_filters};

-- name: range_rows
-- dialect: sqlite
-- Dates and times are ISO text: substr() cuts the month and the hour out of them.
SELECT {date} AS "day", substr({date}, 1, 7) AS "month",
    COALESCE(CAST(substr({time}, 1, 2) AS INTEGER), 0) AS "hour",
    {fields}
FROM "records"
WHERE {date} BETWEEN :start_date AND :end_date
  AND ({date} > :start_date OR COALESCE({time}, :midnight) >= :start_time)
  AND ({date} < :end_date OR COALESCE({time}, :midnight) <= :end_time)
  {and_filters};

-- name: range
-- Records whose {date} + {time} (a NULL time counts as 00:00:00) lies in the inclusive range ("in_range"), by {date}, {time}, then the canonical order.
SELECT {fields}
FROM "in_range"
ORDER BY {date}, CASE WHEN {time} IS NULL THEN 0 ELSE 1 END, {time},
    {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: range
-- dialect: sqlite
-- Plain ORDER BY, which the (date, time, ...) index of the embedded schema serves without sorting.
SELECT {fields}
FROM "in_range"
ORDER BY {date}, {time}, {order};

-- name: range_count
-- How many records the range holds, for the pagination headers.
SELECT COUNT(*) AS "total"
FROM "in_range";

-- name: range_page
-- Positions first_row..last_row (1-based) of the range, in its order.
SELECT {fields}
FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY {date}, CASE WHEN {time} IS NULL THEN 0 ELSE 1 END, {time},
            {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}) AS "position",
        {fields}
    FROM "in_range"
) AS "numbered"
WHERE "position" BETWEEN :first_row AND :last_row
ORDER BY "position";

-- name: range_page
-- dialect: sqlite
-- LIMIT/OFFSET instead of ROW_NUMBER(), as for `page`.
SELECT {fields}
FROM "in_range"
ORDER BY {date}, {time}, {order}
LIMIT :row_count OFFSET :skip;

-- The summaries (docs/api.md §7): per group of the records a range holds, filters included,
-- what the record shape measures, read from "in_range" (range_rows above) as "grouped".
-- {by} is the request's groups (?by=day,productcode): those names or fields of the record;
-- the groups come ascending, NULLs first (the CASE sorts only the groups, a few rows, on
-- every engine). {groups} is the same groups as selected: each code of master data followed
-- by its name (name_of or name_from below), looked up once per group after grouping. Sums
-- are CAST so that an int column cannot overflow: bigint for kilograms of material. Weights
-- are exact decimals of three places (docs/api.md §7, "Exact figures"): each record's net
-- and deduction is taken as float (a real, a decimal or an int column alike) and CAST to
-- decimal(18, 3), to the gram, before it is summed, so that a sum is exact (decimal(38, 3)
-- on SQL Server) and never a sum of binary floats (0.1 + 0.2); SQLite, which has no
-- decimal, sums whole grams as integers and writes the sum as decimal text (its dialect).
-- Deviations and averages are divided out of these sums by Jembatan (app/core/summaries.py),
-- the same way on every engine.
--
-- The weighing shape has one group more, "direction", worked out here rather than in
-- range_rows: range_rows serves every shape (vehicles and batches have no weights) and the
-- range reads, which never send it.

-- name: summary_weighing
-- Per group of the range ({by}, which may be a record's direction): how many records, how many were weighed in and out, and the net weight |weigh1 - weigh2| of those: its sum, least and greatest; and the sum over the same records of their deduction (adjustweigh, kg, NULL as 0), which Jembatan subtracts from the net's.
SELECT {groups},
    COUNT(*) AS "records",
    COUNT(ABS("weigh1" - "weigh2")) AS "weighed",
    SUM(CAST(CAST(ABS("weigh1" - "weigh2") AS float) AS decimal(18, 3))) AS "net",
    MIN(CAST(CAST(ABS("weigh1" - "weigh2") AS float) AS decimal(18, 3))) AS "net_min",
    MAX(CAST(CAST(ABS("weigh1" - "weigh2") AS float) AS decimal(18, 3))) AS "net_max",
    SUM(CASE WHEN "weigh1" - "weigh2" IS NOT NULL
        THEN CAST(CAST(COALESCE("adjustweigh", 0) AS float) AS decimal(18, 3)) END)
        AS "deduction"
FROM (
    -- "in": weighed heavier first, a delivery; "out": a dispatch; NULL when the weights are
    -- equal or one is missing (docs/api.md §7). 'in' sorts before 'out' on every collation.
    SELECT "day", "month", "hour", {fields},
        CASE WHEN "weigh1" > "weigh2" THEN 'in' WHEN "weigh2" > "weigh1" THEN 'out' END
            AS "direction"
    FROM "in_range"
) AS "grouped"
GROUP BY {by}
ORDER BY {by:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: summary_weighing
-- dialect: sqlite
-- SQLite has no decimal: each record's net and deduction in grams (kg * 1000) as written to 15 significant digits (as a float becomes a decimal on the other engines), rounded to a whole gram half away from zero, summed or compared as integers (exact), and the figure written as decimal text with three places; NULL when nothing was weighed.
SELECT {groups},
    COUNT(*) AS "records",
    COUNT(ABS("weigh1" - "weigh2")) AS "weighed",
    CASE WHEN COUNT(ABS("weigh1" - "weigh2")) > 0 THEN printf('%.3f', SUM("net_g") / 1000.0)
        END AS "net",
    CASE WHEN COUNT(ABS("weigh1" - "weigh2")) > 0 THEN printf('%.3f', MIN("net_g") / 1000.0)
        END AS "net_min",
    CASE WHEN COUNT(ABS("weigh1" - "weigh2")) > 0 THEN printf('%.3f', MAX("net_g") / 1000.0)
        END AS "net_max",
    CASE WHEN COUNT(ABS("weigh1" - "weigh2")) > 0 THEN printf('%.3f',
        SUM("deduction_g") / 1000.0) END AS "deduction"
FROM (
    -- "in": weighed heavier first, a delivery; "out": a dispatch; NULL when the weights are
    -- equal or one is missing (docs/api.md §7). 'in' sorts before 'out' on every collation.
    -- "net_g" and "deduction_g": the record's net and deduction in whole grams, NULL
    -- unless both weights are there.
    SELECT "day", "month", "hour", {fields},
        CASE WHEN "weigh1" > "weigh2" THEN 'in' WHEN "weigh2" > "weigh1" THEN 'out' END
            AS "direction",
        CASE WHEN "weigh1" - "weigh2" IS NOT NULL THEN CAST(ROUND(CAST(
            printf('%.15g', ABS("weigh1" - "weigh2") * 1000) AS REAL)) AS INTEGER) END
            AS "net_g",
        CASE WHEN "weigh1" - "weigh2" IS NOT NULL THEN CAST(ROUND(CAST(
            printf('%.15g', COALESCE("adjustweigh", 0) * 1000) AS REAL)) AS INTEGER) END
            AS "deduction_g"
    FROM "in_range"
) AS "grouped"
GROUP BY {by}
ORDER BY {by:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: summary_production
-- Per group of the range ({by}): how many batches; per raw material the sums of sv and pv over the batches that have both; the temperatures' sums and counts, for their averages.
SELECT {groups},
    COUNT(*) AS "batches",
    SUM(CASE WHEN "adonan_pv" IS NOT NULL THEN CAST("adonan_sv" AS bigint) END) AS "adonan_sv",
    SUM(CASE WHEN "adonan_sv" IS NOT NULL THEN CAST("adonan_pv" AS bigint) END) AS "adonan_pv",
    SUM(CASE WHEN "afalan_pv" IS NOT NULL THEN CAST("afalan_sv" AS bigint) END) AS "afalan_sv",
    SUM(CASE WHEN "afalan_sv" IS NOT NULL THEN CAST("afalan_pv" AS bigint) END) AS "afalan_pv",
    SUM(CASE WHEN "air_pv" IS NOT NULL THEN CAST("air_sv" AS bigint) END) AS "air_sv",
    SUM(CASE WHEN "air_sv" IS NOT NULL THEN CAST("air_pv" AS bigint) END) AS "air_pv",
    SUM(CASE WHEN "aluminium_pv" IS NOT NULL THEN CAST("aluminium_sv" AS bigint) END)
        AS "aluminium_sv",
    SUM(CASE WHEN "aluminium_sv" IS NOT NULL THEN CAST("aluminium_pv" AS bigint) END)
        AS "aluminium_pv",
    SUM(CASE WHEN "kapur_pv" IS NOT NULL THEN CAST("kapur_sv" AS bigint) END) AS "kapur_sv",
    SUM(CASE WHEN "kapur_sv" IS NOT NULL THEN CAST("kapur_pv" AS bigint) END) AS "kapur_pv",
    SUM(CASE WHEN "silo_1_pv" IS NOT NULL THEN CAST("silo_1_sv" AS bigint) END) AS "silo_1_sv",
    SUM(CASE WHEN "silo_1_sv" IS NOT NULL THEN CAST("silo_1_pv" AS bigint) END) AS "silo_1_pv",
    SUM(CASE WHEN "silo_2_pv" IS NOT NULL THEN CAST("silo_2_sv" AS bigint) END) AS "silo_2_sv",
    SUM(CASE WHEN "silo_2_sv" IS NOT NULL THEN CAST("silo_2_pv" AS bigint) END) AS "silo_2_pv",
    SUM(CAST("temperature_sv" AS bigint)) AS "temperature_sv_sum",
    COUNT("temperature_sv") AS "temperature_sv_count",
    SUM(CAST("temperature_pv" AS bigint)) AS "temperature_pv_sum",
    COUNT("temperature_pv") AS "temperature_pv_count"
FROM "in_range" AS "grouped"
GROUP BY {by}
ORDER BY {by:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: summary_vehicle
-- Per group of the range ({by}): how many vehicles.
SELECT {groups},
    COUNT(*) AS "records"
FROM "in_range" AS "grouped"
GROUP BY {by}
ORDER BY {by:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}};

-- name: name_of
-- The name beside a summary's group (docs/api.md §7 "Names beside codes"; {group}: its value as grouped, a text group without its trailing blanks): the {name} of the master collection's records ({master}, its own `records` query, so the site's mapping applies) whose {code} equals the group's value as the database compares strings (SQL Server: under the collation, so trailing blanks and, case-insensitive by default, case do not count; PostgreSQL and SQLite: exactly); of several, the one with the smallest "id" as the database orders it (a master keyed by a text code: under the collation; one with a NULL id only when none has an id; the least name among equal ids); NULL when none has it or the code is NULL. Looked up per group after grouping, and one value whatever the master holds (MIN over the chosen records), so a name never splits, merges or drops a group.
SELECT MIN("named".{name})
FROM {master} AS "named"
WHERE "named".{code} = {group}
  AND NOT EXISTS (
      SELECT 1
      FROM {master} AS "earlier"
      WHERE "earlier".{code} = "named".{code}
        AND ("earlier"."id" < "named"."id"
             OR "named"."id" IS NULL AND "earlier"."id" IS NOT NULL));

-- name: name_from
-- The name beside a summary's group ({group}, as name_of's) where the site's names.sql has a query for its master ({master}: that query, which may read the ticket table itself, every row of a code carrying its name): the least of the non-null {name} of its rows whose {code} equals the group's value, matched as name_of matches codes; NULL when no row has a name for it or the code is NULL. One value however many rows a code has, looked up per group after grouping: a seek per group where an index leads with the code column (best with the name column after it).
SELECT MIN("named".{name})
FROM {master} AS "named"
WHERE "named".{code} = {group};

-- The feed (docs/api.md §5.11, GET /<c>/changes): the records whose {date} + {time} (a NULL time
-- counting as 00:00:00) is at or after the bookmark less the lookback, in stamp order then
-- {order}, the first :row_count of them, each with the database server's clock read in the
-- same statement ("feed_now", the server's own local time), which the feed compares with
-- each stamp to hold back the records still inside the settle delay. With [site] timezone
-- set, the feed compares them instead with the server's UTC clock in the plant's zone
-- (`clock` in sql/database.sql, read just before). The WHERE on {date} is a seek on the
-- (date, time, ...) index, which also gives the order.

-- name: changes
-- The first :row_count records whose {date} + {time} is at or after :from_date :from_time, by stamp then the canonical order, each with the server's clock.
SELECT {fields}, "clock"."feed_now"
FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY {date}, CASE WHEN {time} IS NULL THEN 0 ELSE 1 END, {time},
            {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}) AS "position",
        {fields}
    FROM "records"
    WHERE {date} >= :from_date
      AND ({date} > :from_date OR COALESCE({time}, :midnight) >= :from_time)
      {and_filters}
) AS "numbered"
CROSS JOIN (SELECT CURRENT_TIMESTAMP AS "feed_now") AS "clock"
WHERE "position" <= :row_count
ORDER BY "position";

-- name: changes
-- dialect: sqlite
-- LIMIT, as for `page`; CURRENT_TIMESTAMP is UTC on SQLite: the local time, as on SQL Server, is datetime('now', 'localtime'), in the zone of the host that runs the query.
SELECT {fields}, datetime('now', 'localtime') AS "feed_now"
FROM "records"
WHERE {date} >= :from_date
  AND ({date} > :from_date OR COALESCE({time}, :midnight) >= :from_time)
  {and_filters}
ORDER BY {date}, {time}, {order}
LIMIT :row_count;

-- A second that holds more records than a bookmark remembers (an UPDATE that stamped a
-- table alike) is walked by key (app/core/feed.py): the records of that one second,
-- :within_date :within_time up to (not including) :next_date :next_time, whose {order}
-- comes after the key the bookmark holds ({after}; from the second's first with every
-- :after_N_set -1), in {order} alone, whatever fraction of the second each stamp carries
-- (every time parameter is a whole second). The seek on the (date, time, ...) index reads
-- that second's rows; the first :row_count of them come back.

-- name: changes_within
-- The first :row_count records of the one second from :within_date :within_time whose {order} comes after the key in :after_N, in {order}, each with the server's clock.
SELECT {fields}, "clock"."feed_now"
FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}})
            AS "position",
        {fields}
    FROM "records"
    WHERE {date} = :within_date
      AND COALESCE({time}, :midnight) >= :within_time
      AND ({date} < :next_date OR COALESCE({time}, :midnight) < :next_time)
      AND {after}
      {and_filters}
) AS "numbered"
CROSS JOIN (SELECT CURRENT_TIMESTAMP AS "feed_now") AS "clock"
WHERE "position" <= :row_count
ORDER BY "position";

-- name: changes_within
-- dialect: sqlite
-- LIMIT, and the server's local clock, as for `changes`.
SELECT {fields}, datetime('now', 'localtime') AS "feed_now"
FROM "records"
WHERE {date} = :within_date
  AND COALESCE({time}, :midnight) >= :within_time
  AND ({date} < :next_date OR COALESCE({time}, :midnight) < :next_time)
  AND {after}
  {and_filters}
ORDER BY {order}
LIMIT :row_count;

-- Once a crowded second is walked, the feed reads as `changes` does, but leaves out the
-- records of that second the walk sent: those whose {order} is not after the last key it
-- sent (:after_N). The walk's late arrivals after that key, and the window before that
-- second, are read again as ever.

-- name: changes_walked
-- As changes, less the records of the one second from :within_date :within_time whose {order} is not after the key in :after_N.
SELECT {fields}, "clock"."feed_now"
FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY {date}, CASE WHEN {time} IS NULL THEN 0 ELSE 1 END, {time},
            {order:CASE WHEN {} IS NULL THEN 0 ELSE 1 END, {}}) AS "position",
        {fields}
    FROM "records"
    WHERE {date} >= :from_date
      AND ({date} > :from_date OR COALESCE({time}, :midnight) >= :from_time)
      AND NOT ({date} = :within_date
               AND COALESCE({time}, :midnight) >= :within_time
               AND ({date} < :next_date OR COALESCE({time}, :midnight) < :next_time)
               AND NOT {after})
      {and_filters}
) AS "numbered"
CROSS JOIN (SELECT CURRENT_TIMESTAMP AS "feed_now") AS "clock"
WHERE "position" <= :row_count
ORDER BY "position";

-- name: changes_walked
-- dialect: sqlite
-- LIMIT, and the server's local clock, as for `changes`.
SELECT {fields}, datetime('now', 'localtime') AS "feed_now"
FROM "records"
WHERE {date} >= :from_date
  AND ({date} > :from_date OR COALESCE({time}, :midnight) >= :from_time)
  AND NOT ({date} = :within_date
           AND COALESCE({time}, :midnight) >= :within_time
           AND ({date} < :next_date OR COALESCE({time}, :midnight) < :next_time)
           AND NOT {after})
  {and_filters}
ORDER BY {date}, {time}, {order}
LIMIT :row_count;
