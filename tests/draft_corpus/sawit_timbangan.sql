-- Source: github.com/aetheriin/timbangan_sawit_v2
--   database/schema_lengkap.sql, commit e5e9f05c8f069e189e5d86d307acd1f24511c49f
--   (T-SQL schema of a palm-oil mill's weighbridge: table dbo.timbangan, one row per ticket with
--   the gross and the tare and when each was weighed).
-- The column names and declared types are the source's; INT IDENTITY(1,1) is written INT, the
-- constraints (unique, foreign keys, default) are left out, the schema dbo. is dropped.
-- The rows are ours. As the source's own code does (migration 011 and the v_timbangan view), a
-- purchase weighs the gross first and a sale (PENJUALAN) the tare first: so which of
-- berat_bruto/berat_tara is the first weighing depends on the row, and the stamps tell.
CREATE TABLE "timbangan" (
    "id_timbangan" INT PRIMARY KEY,
    "no_tiket" VARCHAR(50) NOT NULL,
    "berat_bruto" FLOAT NULL,
    "waktu_bruto" DATETIME NULL,
    "berat_tara" FLOAT NULL,
    "waktu_tara" DATETIME NULL,
    "berat_netto" FLOAT NULL,
    "hash_keamanan" VARCHAR(64) NULL,
    "operator_timbang_id" INT NULL,
    "is_checklist_validated" BIT NOT NULL
);
-- A purchase of fruit: gross at 07:05, tare at 07:41.
INSERT INTO "timbangan" VALUES (1, 'TBS-2611-0001', 18420, '2026-11-24 07:05:00', 6110, '2026-11-24 07:41:20',
  12310, 'b1f0c3e6a9d24f5e8c7b0a1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5', 3, 1);
-- A sale of crude palm oil: tare at 09:12 (the tanker came in empty), gross at 09:58.
INSERT INTO "timbangan" VALUES (2, 'CPO-2611-0001', 33650, '2026-11-24 09:58:05', 9840, '2026-11-24 09:12:30',
  23810, 'c2a1d4f7b0e35a6f9d8c1b2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6', 4, 1);
-- A sale across midnight.
INSERT INTO "timbangan" VALUES (3, 'CPO-2611-0002', 34120, '2026-11-25 00:20:45', 9910, '2026-11-24 23:50:10',
  24210, 'd3b2e5a8c1f46b7a0e9d2c3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7', 4, 1);
-- A purchase still on the bridge (gross only) and a sale still on the bridge (tare only).
INSERT INTO "timbangan" VALUES (4, 'TBS-2611-0002', 17960, '2026-11-25 06:30:00', NULL, NULL,
  NULL, NULL, 3, 0);
INSERT INTO "timbangan" VALUES (5, 'KER-2611-0001', NULL, NULL, 8120, '2026-11-25 10:15:00',
  NULL, NULL, 4, 0);
