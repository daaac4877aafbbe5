-- name: records
-- Where each field of a vehicles record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of vehicles reads this query (sql/shapes.sql).
SELECT
    "id" AS "id",
    "Number" AS "Number",
    "BeingWeighed" AS "BeingWeighed",
    "Capacity" AS "Capacity",
    "CapacityUnit" AS "CapacityUnit",
    "Tare" AS "Tare",
    "TareUnit" AS "TareUnit",
    "TransCode" AS "TransCode",
    "UseTare" AS "UseTare",
    "Opt1" AS "Opt1",
    "Opt2" AS "Opt2",
    "tgl_create" AS "tgl_create",
    "jam_create" AS "jam_create",
    "tgl_expired" AS "tgl_expired",
    "jam_expired" AS "jam_expired"
FROM "vehicles";
