-- The four collections of weighbridge tickets (docs/api.md §3): this site keeps them in four
-- tables alike but for their names, so one file serves them all. Each `-- serves:` line
-- names a collection and its table, which {table} in the records query below stands for
-- (docs/adapting.md, "One file for several tables alike").
-- serves: weighing = "Timbang Harian"
-- serves: timbangan1 = "Timbangan WB1"
-- serves: timbangan2 = "Timbangan WB2"
-- serves: transactions = "Transaksi Timbang"

-- name: records
-- Where each field of a weighbridge ticket comes from at this site: the site's table after
-- FROM, and before each AS its column or an expression (the names after AS are the
-- API's and stay). Every read of the four collections reads this query (sql/shapes.sql).
SELECT
    "No Urut" AS "id",
    "Diakses Lain" AS "accessedbyanother",
    "Diakses User" AS "beingaccessedbyuser",
    "Satuan Koreksi" AS "adjustunit",
    "Berat Koreksi" AS "adjustweigh",
    "Kode Pelanggan" AS "custcode",
    "ID Detektor" AS "detctid",
    "No DO" AS "dono",
    "Nama Sopir" AS "drivername",
    "Diedit Oleh" AS "editedby",
    "Kadar FFA" AS "ffa",
    "Jam Buat" AS "jam_create",
    "Jam Masuk" AS "jam_dt1",
    "Jam Keluar" AS "jam_dt2",
    "Jam Ubah" AS "jam_update",
    "Lokasi" AS "location",
    "No Lot" AS "lot",
    "Kadar MAI" AS "mai",
    "No CT" AS "noct",
    "Operator Masuk" AS "operator1",
    "Operator Keluar" AS "operator2",
    "Opsi 1" AS "opt1",
    "Opsi 2" AS "opt2",
    "Tertunda" AS "pending",
    "No PL3" AS "pl3no",
    "Kode Barang" AS "productcode",
    "No Rekam" AS "recno",
    "Keterangan" AS "remark",
    "No Segel" AS "sealno",
    "Tgl Buat" AS "tgl_create",
    "Tgl Masuk" AS "tgl_dt1",
    "Tgl Keluar" AS "tgl_dt2",
    "Tgl Ubah" AS "tgl_update",
    "Kode Ekspedisi" AS "transcode",
    "No Polisi" AS "vehno",
    "Timbangan Masuk" AS "wbname1",
    "Timbangan Keluar" AS "wbname2",
    "Berat Masuk" AS "weigh1",
    "Berat Keluar" AS "weigh2",
    "Sumber Berat Masuk" AS "weighsource1",
    "Sumber Berat Keluar" AS "weighsource2",
    "Satuan Masuk" AS "weighunit1",
    "Satuan Keluar" AS "weighunit2",
    "Dibatalkan" AS "cancelled"
FROM {table};
