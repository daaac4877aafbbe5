-- Source: github.com/Yudhaaa1712/jembatantimbangan-V1
--   jembatan_timbangan.sql, commit 083ff17d9c1bf1b3f327bbca9abe17716ca0f3d8
--   (phpMyAdmin dump of a palm-fruit weighbridge: table `transaksi_timbangan`).
-- The column names and declared types are the source's, but for what SQLite cannot read:
-- `jenis_material` enum('tbs','cpo','kernel','brondolan','lainnya') and `status`
-- enum('timbang_1','timbang_2','selesai','batal') are written varchar(10), and the two
-- GENERATED ALWAYS ... STORED columns (berat_netto, total_harga) as their declared decimal types
-- (the rows fill them as the source's expressions would); DEFAULTs are dropped.
-- The rows are ours: fruit received (berat_timbangan1 is the loaded truck), kernel dispatched
-- (berat_timbangan1 is the empty truck), one truck still on the bridge. The program fills
-- berat_bruto/berat_tara (the heavier and the lighter) beside the weighings in order.
CREATE TABLE "transaksi_timbangan" (
    "id" int(11) NOT NULL,
    "no_tiket" varchar(20) NOT NULL,
    "tanggal" date NOT NULL,
    "waktu_masuk" time,
    "waktu_timbangan1" time,
    "waktu_keluar" time,
    "waktu_timbangan2" time,
    "id_kendaraan" int(11),
    "no_polisi" varchar(20) NOT NULL,
    "nama_supir" varchar(100),
    "id_supplier" int(11),
    "id_customer" int(11),
    "jenis_material" varchar(10) NOT NULL,
    "berat_bruto" decimal(10,2),
    "berat_timbangan1" decimal(10,2),
    "timbang1_locked" tinyint(1),
    "berat_tara" decimal(10,2),
    "berat_timbangan2" decimal(10,2),
    "timbang2_locked" tinyint(1),
    "persen_potongan" decimal(5,2),
    "kg_potongan" decimal(10,2),
    "berat_netto" decimal(10,2),
    "harga_per_kg" decimal(10,2),
    "total_harga" decimal(15,2),
    "keterangan" text,
    "foto_masuk" varchar(255),
    "foto_keluar" varchar(255),
    "status" varchar(10),
    "operator_id" int(11),
    "created_at" timestamp NOT NULL,
    "updated_at" timestamp NOT NULL
);
INSERT INTO "transaksi_timbangan" VALUES (101, 'TKT-261124-001', '2026-11-24', '06:58:10', '07:05:00',
  '07:43:00', '07:41:20', 25, 'BK 1234 ABC', 'Ahmad', 11, NULL, 'tbs', 18420.00, 18420.00, 1, 6110.00,
  6110.00, 1, 2.00, 0.00, 12063.80, 2150.00, 25937170.00, NULL, 'foto/101-in.jpg', 'foto/101-out.jpg',
  'selesai', 1, '2026-11-24 06:58:10', '2026-11-24 07:43:00');
INSERT INTO "transaksi_timbangan" VALUES (102, 'TKT-261124-002', '2026-11-24', '08:20:00', '08:24:35',
  '09:01:00', '08:59:50', 26, 'BK 5678 DEF', 'Budi', 13, NULL, 'brondolan', 7250.00, 7250.00, 1, 4980.00,
  4980.00, 1, 0.00, 25.00, 2245.00, 2400.00, 5388000.00, 'brondolan basah', NULL, NULL,
  'selesai', 1, '2026-11-24 08:20:00', '2026-11-24 09:01:00');
INSERT INTO "transaksi_timbangan" VALUES (103, 'TKT-261124-003', '2026-11-24', '10:10:00', '10:12:15',
  '11:20:00', '11:18:40', 28, 'BK 3456 JKL', 'Doni', NULL, 4, 'kernel', 29870.00, 9950.00, 1, 9950.00,
  29870.00, 1, 0.00, 0.00, -19920.00, 0.00, 0.00, 'kirim kernel ke pelabuhan', NULL, NULL,
  'selesai', 2, '2026-11-24 10:10:00', '2026-11-24 11:20:00');
INSERT INTO "transaksi_timbangan" VALUES (104, 'TKT-261125-001', '2026-11-25', '06:40:00', '06:44:05',
  '07:30:00', '07:27:30', 27, 'BK 9012 GHI', 'Chandra', 23, NULL, 'tbs', 8830.00, 8830.00, 1, 3120.00,
  3120.00, 1, 3.00, 0.00, 5538.70, 2150.00, 11908205.00, NULL, NULL, NULL,
  'selesai', 1, '2026-11-25 06:40:00', '2026-11-25 07:30:00');
INSERT INTO "transaksi_timbangan" VALUES (105, 'TKT-261125-002', '2026-11-25', '09:02:00', '09:05:40',
  NULL, NULL, 25, 'BK 1234 ABC', 'Ahmad', 11, NULL, 'tbs', 17960.00, 17960.00, 1, 0.00,
  0.00, 0, 0.00, 0.00, 0.00, 2150.00, 0.00, NULL, 'foto/105-in.jpg', NULL,
  'timbang_1', 1, '2026-11-25 09:02:00', '2026-11-25 09:05:40');
