-- Source: github.com/Yudhaaa1712/jembatantimbangan-V1
--   electron-app/server/config/schema.sql, commit 71d08d52520a1374967fc4f6a29460bcddecac52
--   (SQLite schema of a fruit collector's weighbridge, the desktop edition: table
--   `pengiriman_pabrik`, the loads it sends to the mill).
-- The column names and declared types are the source's (SQLite already); the CHECK and the
-- DEFAULTs are left out. The rows are ours: a truck comes in empty (berat_timbangan1, the tare)
-- and leaves loaded for the mill (berat_timbangan2); berat_bruto/berat_tara keep the heavier and
-- the lighter; the day in `tanggal`, each weighing's time of day in its waktu_ column.
CREATE TABLE "pengiriman_pabrik" (
    "id" INTEGER PRIMARY KEY AUTOINCREMENT,
    "no_surat_jalan" TEXT NOT NULL UNIQUE,
    "tanggal" TEXT NOT NULL,
    "no_polisi" TEXT NOT NULL,
    "nama_supir" TEXT NOT NULL,
    "nama_pabrik" TEXT NOT NULL,
    "jenis_material" TEXT,
    "berat_timbangan1" REAL,
    "waktu_timbangan1" TEXT,
    "berat_timbangan2" REAL,
    "waktu_timbangan2" TEXT,
    "berat_bruto" REAL,
    "berat_tara" REAL,
    "netto_ram" REAL,
    "netto_pabrik" REAL,
    "susut" REAL,
    "persen_susut" REAL,
    "keterangan" TEXT,
    "status" TEXT,
    "operator_id" INTEGER,
    "created_at" TEXT,
    "updated_at" TEXT
);
INSERT INTO "pengiriman_pabrik" VALUES (1, 'SJ-RAM-2611-001', '2026-11-24', 'BK 8123 LA', 'Sarno', 'PKS Aek Nabara',
  'tbs', 7020, '07:05:00', 21450, '07:41:20', 21450, 7020, 14430, 14310, 120, 0.83, NULL, 'selesai', 1,
  '2026-11-24 07:05:00', '2026-11-24 13:10:00');
INSERT INTO "pengiriman_pabrik" VALUES (2, 'SJ-RAM-2611-002', '2026-11-24', 'BK 8244 LB', 'Paijo', 'PKS Aek Nabara',
  'tbs', 6980, '09:12:30', 20980, '09:58:05', 20980, 6980, 14000, 13890, 110, 0.79, 'hujan', 'selesai', 1,
  '2026-11-24 09:12:30', '2026-11-24 15:02:00');
INSERT INTO "pengiriman_pabrik" VALUES (3, 'SJ-RAM-2611-003', '2026-11-25', 'BK 8390 LC', 'Karyo', 'PKS Sei Mangkei',
  'brondolan', 5110, '06:30:00', 11870, '07:02:15', 11870, 5110, 6760, NULL, NULL, NULL, NULL, 'pending', 2,
  '2026-11-25 06:30:00', '2026-11-25 07:02:15');
INSERT INTO "pengiriman_pabrik" VALUES (4, 'SJ-RAM-2611-004', '2026-11-25', 'BK 8015 LD', 'Mardi', 'PKS Sei Mangkei',
  'tbs', 7105, '10:15:00', NULL, NULL, NULL, 7105, NULL, NULL, NULL, NULL, NULL, 'timbang_1', 2,
  '2026-11-25 10:15:00', NULL);
