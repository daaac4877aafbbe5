-- Source: github.com/ferryseptiansusanto/jembatan_timbang
--   database/database.db.sql, commit 1774f164d268e3bbf054adfe1e2807f16cbb01ce
--   (a PySide weighbridge program on SQLite: `db_transaksi_pemasok`, the weighings of suppliers'
--   deliveries; its twin db_transaksi_pelanggan holds the dispatches to customers).
-- The column names and declared types are the source's (SQLite already). The program keeps each
-- moment as seconds since 1970 in an INTEGER and shows it in local time
-- (modules/helper/konversidatetime.py). The rows are ours: deliveries come in loaded, so the gross
-- is the first weighing here; one truck is still on the bridge.
CREATE TABLE "db_transaksi_pemasok" (
    "id" INTEGER,
    "no_tiket" TEXT,
    "no_polisi" TEXT,
    "no_po_do" TEXT,
    "id_pemasok" INTEGER,
    "id_barang" INTEGER,
    "nama_sopir" TEXT,
    "gross" NUMERIC,
    "tare" NUMERIC,
    "netto" NUMERIC,
    "tanggal_masuk" INTEGER,
    "tanggal_keluar" INTEGER,
    "keterangan" TEXT,
    "operator_timbang_masuk" INTEGER,
    "operator_timbang_keluar" INTEGER,
    "is_timbang" INTEGER,
    PRIMARY KEY("id" AUTOINCREMENT)
);
-- 1795478700 = 2026-11-24 07:05:00 WIB, and so on.
INSERT INTO "db_transaksi_pemasok" VALUES (1, 'PMS-2611-0001', 'L 1234 AB', 'PO-2611-015', 3, 1, 'Slamet',
  30120, 11040, 19080, 1795478700, 1795480880, NULL, 2, 2, 1);
INSERT INTO "db_transaksi_pemasok" VALUES (2, 'PMS-2611-0002', 'W 8104 SW', 'PO-2611-015', 3, 1, 'Bambang',
  28760, 10890, 17870, 1795486350, 1795489085, 'bak bocor sedikit', 2, 3, 1);
INSERT INTO "db_transaksi_pemasok" VALUES (3, 'PMS-2611-0003', 'S 9021 KL', 'PO-2611-022', 5, 2, 'Joko',
  24300, 8650, 15650, 1795539010, 1795540845, NULL, 3, 3, 1);
INSERT INTO "db_transaksi_pemasok" VALUES (4, 'PMS-2611-0004', 'L 8866 UT', NULL, 7, 4, 'Hadi',
  17980, 6420, 11560, 1795563000, 1795576500, 'antri bongkar', 3, 2, 1);
INSERT INTO "db_transaksi_pemasok" VALUES (5, 'PMS-2611-0005', 'AG 1507 RA', 'PO-2611-022', 5, 2, 'Wahyu',
  25110, NULL, NULL, 1795578760, NULL, NULL, 2, NULL, 0);
