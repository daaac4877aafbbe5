-- name: records
-- Where each field of a transporters record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of transporters reads this query (sql/shapes.sql).
SELECT
    "id" AS "id",
    "TransCode" AS "TransCode",
    "TransName" AS "TransName",
    "Address" AS "Address",
    "Phone" AS "Phone",
    "Contact" AS "Contact",
    "Remark" AS "Remark"
FROM "transporters";
