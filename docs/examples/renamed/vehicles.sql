-- name: records
-- Where each field of a vehicles record comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of vehicles reads this query (sql/shapes.sql).
SELECT
    "ID Kendaraan" AS "id",
    "No Polisi" AS "Number",
    "Sedang Ditimbang" AS "BeingWeighed",
    "Kapasitas" AS "Capacity",
    "Satuan Kapasitas" AS "CapacityUnit",
    "Berat Kosong" AS "Tare",
    "Satuan Tara" AS "TareUnit",
    "Kode Ekspedisi" AS "TransCode",
    "Pakai Tara" AS "UseTare",
    "Opsi 1" AS "Opt1",
    "Opsi 2" AS "Opt2",
    "Tgl Daftar" AS "tgl_create",
    "Jam Daftar" AS "jam_create",
    "Tgl Habis KIR" AS "tgl_expired",
    "Jam Habis KIR" AS "jam_expired"
FROM "Master Kendaraan";
