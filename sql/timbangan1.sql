-- name: records
-- Where each field of a timbangan1 record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of timbangan1 reads this query (sql/shapes.sql). "cancelled" is a
-- condition, 1 for a ticket the weighbridge program voided and 0 otherwise. These tables have
-- no void marker, so nothing is cancelled (0). Where yours has one, say it here: a status code
-- (CASE WHEN "cStatus" = 'X' THEN 1 ELSE 0 END), a deleted-at stamp (CASE WHEN "dDeleted"
-- IS NOT NULL THEN 1 ELSE 0 END) or a flag column (docs/adapting.md, "Cancelled tickets").
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
    "weighunit2" AS "weighunit2",
    0 AS "cancelled"
FROM "timbangan1";
