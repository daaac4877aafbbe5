-- name: records
-- Where each field of a customers record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of customers reads this query (sql/shapes.sql).
SELECT
    "id" AS "id",
    "CustCode" AS "CustCode",
    "CustName" AS "CustName",
    "Address" AS "Address",
    "City" AS "City",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "customers";
