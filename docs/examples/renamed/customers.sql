-- name: records
-- Where each field of a customers record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of customers reads this query (sql/shapes.sql).
SELECT
    "ID Pelanggan" AS "id",
    "Kode" AS "CustCode",
    "Nama Pelanggan" AS "CustName",
    "Alamat" AS "Address",
    "Kota" AS "City",
    "Telepon" AS "Phone",
    "Kontak" AS "Contact",
    "Catatan" AS "Remark"
FROM "Master Pelanggan";
