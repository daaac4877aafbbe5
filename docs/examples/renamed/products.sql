-- name: records
-- Where each field of a products record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of products reads this query (sql/shapes.sql).
SELECT
    "ID Barang" AS "id",
    "Kode Barang" AS "ProductCode",
    "Nama Barang" AS "ProductName",
    "Satuan" AS "Unit",
    "Catatan" AS "Remark"
FROM "Master Barang";
