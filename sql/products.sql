-- name: records
-- Where each field of a products record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of products reads this query (sql/shapes.sql).
SELECT
    "id" AS "id",
    "ProductCode" AS "ProductCode",
    "ProductName" AS "ProductName",
    "Unit" AS "Unit",
    "Remark" AS "Remark"
FROM "products";
