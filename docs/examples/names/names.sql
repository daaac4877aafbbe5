-- Where the summaries read the names beside their codes at a plant with no product or
-- customer table: every ticket of TBL_TIMBANG carries them, the material's beside its code
-- (KodeBarang, NamaBarang) and the supplier's or customer's (KodeRelasi, NamaRelasi). A
-- code has as many rows as tickets: the summaries show the least of its names that are not
-- NULL (name_from in sql/shapes.sql), so a name mistyped on some tickets never splits a
-- group. Transporters have no query here: their names stay null, as at a site without them.

-- name: products
-- A material's name, as the tickets carry it beside its code.
SELECT "KodeBarang" AS "ProductCode", "NamaBarang" AS "ProductName"
FROM "TBL_TIMBANG";

-- name: customers
-- A supplier's or customer's name, as the tickets carry it beside its code.
SELECT "KodeRelasi" AS "CustCode", "NamaRelasi" AS "CustName"
FROM "TBL_TIMBANG";
