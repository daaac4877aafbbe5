-- Head-office figures over the warehouse that `jembatan warehouse load` fills: tonnes in and
-- out per plant and day, net and net after deduction, counted as each plant's own
-- `GET /transactions/summary/...?by=day,direction&on=dt2` counts them (docs/api.md section 7):
--
-- * cancelled tickets are left out (`cancelled` true);
-- * only tickets with both weights count (`weigh1` and `weigh2` present);
-- * in: `weigh1 > weigh2` (came in loaded, left empty: a delivery to the plant);
--   out: `weigh2 > weigh1` (a dispatch); a ticket with equal weights has no direction and
--   weighs nothing, so it is in none of these figures;
-- * net = |weigh1 - weigh2| in kilograms, deduction = `adjustweigh` (a NULL one as 0),
--   net after deduction = net - deduction; tonnes = kilograms * 0.001;
-- * exactly, as the plants' figures are (docs/api.md section 7, "Exact figures"): each
--   ticket's net and deduction a DECIMAL(18, 3), to the gram, so that every sum, difference
--   and tonnage is an exact decimal, never a sum of binary floats (the warehouse stores the
--   weights as the plants send them, doubles), and equals the plants' own to the gram;
-- * the day is that of the exit weighing (`tgl_dt2`): a delivery is booked when the truck
--   leaves the bridge. (A plant's dashboard counts by the entry weighing unless its date
--   field is set to the exit weighing, `on=dt2`: set it so to compare.)
--
-- Plain SQL, run unchanged on DuckDB and on PostgreSQL (tests/test_warehouse_figures.py runs
-- every query on both, against the plants' own summaries). The table names are unqualified:
-- first make the warehouse's dataset (default `jembatan`) the schema searched, with the same
-- statement on both:
--
--     SET search_path = 'jembatan';
--
-- The rules above are written once, in the view `weighed_tickets` (one row per ticket that
-- counts), which the first statement creates beside the warehouse's tables, again at each
-- run (CREATE OR REPLACE; it needs the right to create in that schema: without it, put the
-- view's SELECT in a WITH clause at the top of each query). The queries are named in
-- aiosql's style (`-- name:`, then one line that says what the query gives; a name that
-- ends in `#` is a statement that returns no rows), so that aiosql, or any reader that
-- splits the file at those lines, can load them by name.

-- name: create_weighed_tickets#
-- The view of the tickets that count, one row each: plant, day and month of exit weighing, direction, kg.
CREATE OR REPLACE VIEW weighed_tickets AS
SELECT plant,
       CAST(tgl_dt2 AS DATE) AS day,
       SUBSTRING(CAST(CAST(tgl_dt2 AS DATE) AS VARCHAR(10)), 1, 7) AS month,
       CASE WHEN weigh1 > weigh2 THEN 'in' ELSE 'out' END AS direction,
       CAST(ABS(weigh1 - weigh2) AS DECIMAL(18, 3)) AS net_kg,
       CAST(COALESCE(adjustweigh, 0) AS DECIMAL(18, 3)) AS deduction_kg
FROM transactions
WHERE cancelled IS NOT TRUE
  AND weigh1 IS NOT NULL AND weigh2 IS NOT NULL AND weigh1 <> weigh2
  AND tgl_dt2 IS NOT NULL;

-- name: tonnes_by_plant_day_direction
-- Per plant, day of exit weighing and direction: tickets, kg and tonnes, net and after deduction.
SELECT plant, day, direction,
       COUNT(*) AS tickets,
       SUM(net_kg) AS net_kg,
       SUM(deduction_kg) AS deduction_kg,
       SUM(net_kg) - SUM(deduction_kg) AS net_after_deduction_kg,
       SUM(net_kg) * 0.001 AS net_tonnes,
       (SUM(net_kg) - SUM(deduction_kg)) * 0.001 AS net_after_deduction_tonnes
FROM weighed_tickets
GROUP BY plant, day, direction
ORDER BY plant, day, direction;

-- name: tonnes_in_out_by_plant_day
-- Per plant and day of exit weighing: tonnes in and out side by side, net and after deduction.
SELECT plant, day,
       SUM(CASE WHEN direction = 'in' THEN net_kg ELSE 0 END) * 0.001 AS tonnes_in,
       SUM(CASE WHEN direction = 'in' THEN net_kg - deduction_kg ELSE 0 END) * 0.001
           AS tonnes_in_after_deduction,
       SUM(CASE WHEN direction = 'out' THEN net_kg ELSE 0 END) * 0.001 AS tonnes_out,
       SUM(CASE WHEN direction = 'out' THEN net_kg - deduction_kg ELSE 0 END) * 0.001
           AS tonnes_out_after_deduction
FROM weighed_tickets
GROUP BY plant, day
ORDER BY plant, day;

-- name: tonnes_by_day
-- The whole company per day of exit weighing and direction: plants that weighed, tickets, tonnes net and after deduction.
SELECT day, direction, COUNT(DISTINCT plant) AS plants, COUNT(*) AS tickets,
       SUM(net_kg) * 0.001 AS net_tonnes,
       SUM(net_kg - deduction_kg) * 0.001 AS net_after_deduction_tonnes
FROM weighed_tickets
GROUP BY day, direction
ORDER BY day, direction;

-- name: tonnes_by_plant_month_direction
-- Per plant, month of exit weighing (YYYY-MM) and direction: tickets, and tonnes net and after deduction.
SELECT plant, month, direction, COUNT(*) AS tickets,
       SUM(net_kg) * 0.001 AS net_tonnes,
       SUM(net_kg - deduction_kg) * 0.001 AS net_after_deduction_tonnes
FROM weighed_tickets
GROUP BY plant, month, direction
ORDER BY plant, month, direction;
