-- Source: none public. The weighbridge table a plant described (a small weighbridge program
-- on SQLite: one TEXT column per weighing moment, the ticket number as the key, names beside
-- codes, a stock code after `kode_`, `DiubahPada`); its column names are ours, after the plant's description.
-- The rows are ours too: receipts (the first weighing is the loaded truck) and a dispatch (the
-- first weighing is the empty truck), one weighing across midnight, one truck still on the bridge.
CREATE TABLE "Timbang" (
    "NoTiket" TEXT PRIMARY KEY,
    "NoPolisi" TEXT,
    "NamaSopir" TEXT,
    "KodeRelasi" TEXT,
    "NamaRelasi" TEXT,
    "kode_stok" TEXT,
    "NamaBarang" TEXT,
    "Timbang1" REAL,
    "Timbang2" REAL,
    "Potongan" REAL,
    "Netto" REAL,
    "WaktuTimbang1" TEXT,
    "WaktuTimbang2" TEXT,
    "Operator1" TEXT,
    "Operator2" TEXT,
    "DibuatPada" TEXT,
    "DiubahPada" TEXT,
    "DiubahOleh" TEXT,
    "Keterangan" TEXT
);
INSERT INTO "Timbang" VALUES ('TB-2611-0001', 'L 1234 AB', 'Slamet', 'SUP-007', 'UD Maju Jaya', 'BB-001',
  'Jagung Pipil', 30120, 11040, 150, 18930, '2026-11-24 07:05:00', '2026-11-24 07:41:20', 'Rina', 'Rina',
  '2026-11-24 07:05:02', '2026-11-24 07:41:22', 'Rina', NULL);
INSERT INTO "Timbang" VALUES ('TB-2611-0002', 'W 8104 SW', 'Bambang', 'SUP-012', 'CV Tani Makmur', 'BB-002',
  'Bungkil Kedelai', 28760, 10890, 0, 17870, '2026-11-24 09:12:30', '2026-11-24 09:58:05', 'Rina', 'Agus',
  '2026-11-24 09:12:31', '2026-11-24 09:58:06', 'Agus', 'kadar air 14%');
INSERT INTO "Timbang" VALUES ('TB-2611-0003', 'S 9021 KL', 'Joko', 'CUS-031', 'PT Ternak Sentosa', 'PJ-010',
  'Pakan Layer 50kg', 9650, 27480, 0, 17830, '2026-11-24 23:50:10', '2026-11-25 00:20:45', 'Agus', 'Agus',
  '2026-11-24 23:50:11', '2026-11-25 00:20:46', 'Agus', 'kirim');
INSERT INTO "Timbang" VALUES ('TB-2611-0004', 'L 8866 UT', 'Hadi', 'SUP-007', 'UD Maju Jaya', 'BB-001',
  'Jagung Pipil', 17980, 6420, 80, 11480, '2026-11-25 06:30:00', '2026-11-25 07:02:15', 'Rina', 'Rina',
  '2026-11-25 06:30:01', '2026-11-25 07:10:00', 'Dewi', 'potongan diubah');
INSERT INTO "Timbang" VALUES ('TB-2611-0005', 'AG 1507 RA', 'Wahyu', 'SUP-012', 'CV Tani Makmur', 'BB-002',
  'Bungkil Kedelai', 25110, NULL, NULL, NULL, '2026-11-25 10:15:00', NULL, 'Rina', NULL,
  '2026-11-25 10:15:01', NULL, NULL, NULL);
