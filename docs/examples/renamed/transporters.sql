-- name: records
-- Where each field of a transporters record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of transporters reads this query (sql/shapes.sql).
SELECT
    "ID Ekspedisi" AS "id",
    "Kode" AS "TransCode",
    "Nama Ekspedisi" AS "TransName",
    "Alamat" AS "Address",
    "Telepon" AS "Phone",
    "Kontak" AS "Contact",
    "Catatan" AS "Remark"
FROM "Master Ekspedisi";
