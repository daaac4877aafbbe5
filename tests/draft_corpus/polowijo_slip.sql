-- Source: github.com/donimuzur/polowijo.gosari.timbangan
--   polowijo.gosari.timbangan.dal/TIMBANGAN.edmx (its storage model, SQL Server) and
--   polowijo.gosari.timbangan.dal/SLIP_TIMBANGAN.cs, commit 5dfb5f6f7f566f22cc373592f1c1f99a4b11ef32
--   (a C# weighbridge program of a fertiliser plant: table SLIP_TIMBANGAN).
-- The column names and declared types are the source's storage model (bigint IDENTITY written
-- bigint). The rows are ours: raw material received (BERAT_MASUK is the loaded truck) and one
-- dispatch (BERAT_MASUK is the empty truck); JAM_MASUK/JAM_KELUAR hold the whole moment of each
-- weighing, TANGGAL the slip's day at midnight, as a DateTime the program fills.
CREATE TABLE "SLIP_TIMBANGAN" (
    "ID" bigint NOT NULL PRIMARY KEY,
    "NO_SURAT_JALAN" nvarchar(100),
    "NO_RECORD" bigint,
    "TANGGAL" datetime NOT NULL,
    "NO_POLISI" nvarchar(50),
    "PERUSAHAAN" nvarchar(255),
    "SUPPLIER" nvarchar(255),
    "PENGEMUDI" nvarchar(255),
    "BERAT_MASUK" decimal(18,2),
    "BERAT_KELUAR" decimal(18,2),
    "BERAT_BRUTTO" decimal(18,2),
    "BERAT_NETTO" decimal(18,2),
    "JAM_MASUK" datetime,
    "JAM_KELUAR" datetime,
    "BAHAN_BAKU" nvarchar(255),
    "KETERANGAN" text,
    "STATUS" tinyint,
    "CREATED_BY" nvarchar(100) NOT NULL,
    "CREATED_DATE" datetime NOT NULL,
    "MODIFIED_BY" nvarchar(100),
    "MODIFIED_DATE" datetime,
    "REMARKS" text
);
INSERT INTO "SLIP_TIMBANGAN" VALUES (1, 'SJ/DLM/2611/0412', 26110001, '2026-11-24 00:00:00', 'W 9612 NB',
  'CV SUMBER MAKMUR', 'SUP-007', 'Supriyadi', 31250.00, 10870.00, 31250.00, 20380.00,
  '2026-11-24 07:05:00', '2026-11-24 07:41:20', 'DOLOMIT', NULL, 2, 'andi', '2026-11-24 07:05:03',
  'dewi', '2026-11-24 07:41:22', NULL);
INSERT INTO "SLIP_TIMBANGAN" VALUES (2, 'SJ/DLM/2611/0418', 26110002, '2026-11-24 00:00:00', 'L 9327 UK',
  'CV SUMBER MAKMUR', 'SUP-007', 'Kusnadi', 29980.00, 10510.00, 29980.00, 19470.00,
  '2026-11-24 09:12:30', '2026-11-24 09:58:05', 'DOLOMIT', 'basah', 2, 'andi', '2026-11-24 09:12:31',
  'andi', '2026-11-24 09:58:06', 'potong 1%');
INSERT INTO "SLIP_TIMBANGAN" VALUES (3, 'SJ/KPR/2611/0077', 26110003, '2026-11-24 00:00:00', 'S 8150 HJ',
  'PT KAPUR JAYA', 'SUP-012', 'Mulyono', 27400.00, 9890.00, 27400.00, 17510.00,
  '2026-11-24 23:50:10', '2026-11-25 00:20:45', 'KAPUR', NULL, 2, 'dewi', '2026-11-24 23:50:12',
  'dewi', '2026-11-25 00:20:46', NULL);
INSERT INTO "SLIP_TIMBANGAN" VALUES (4, 'DO/PPK/2611/0051', 26110004, '2026-11-25 00:00:00', 'W 8823 UA',
  'PT ANGKUT SEJAHTERA', 'KSM-031', 'Hartono', 10220.00, 30640.00, 30640.00, 20420.00,
  '2026-11-25 06:30:00', '2026-11-25 07:12:40', 'PUPUK ORGANIK', 'kirim ke gudang Tuban', 2, 'andi',
  '2026-11-25 06:30:02', 'andi', '2026-11-25 07:12:41', NULL);
INSERT INTO "SLIP_TIMBANGAN" VALUES (5, 'SJ/DLM/2611/0431', 26110005, '2026-11-25 00:00:00', 'W 9612 NB',
  'CV SUMBER MAKMUR', 'SUP-007', 'Supriyadi', 30870.00, NULL, 30870.00, NULL,
  '2026-11-25 10:15:00', NULL, 'DOLOMIT', NULL, 1, 'dewi', '2026-11-25 10:15:01',
  NULL, NULL, NULL);
