-- Source: github.com/excelpic/Palm-Oil-Weighbridge-System
--   database/schema.sql, commit 1966a72a8888836cc99246352965fe8c7baa1baf
--   (SQL Server schema of a palm-oil mill's weighbridge: table dbo.Timbangan).
-- The column names and declared types are the source's; INT IDENTITY(1,1) is written INT, the
-- constraints and DEFAULTs are left out, the schema dbo. is dropped. The rows are ours: crude
-- palm oil sold (TransType JUAL: the tanker comes in empty, BeratMasuk < BeratKeluar), fruit
-- bought (BELI: BeratMasuk > BeratKeluar), one truck still on the bridge.
CREATE TABLE "Timbangan" (
    "TimbangID" INT NOT NULL PRIMARY KEY,
    "NoTiket" NVARCHAR(30) NOT NULL,
    "NoPolisi" NVARCHAR(20) NOT NULL,
    "NamaSupir" NVARCHAR(100) NULL,
    "NoSIM" NVARCHAR(50) NULL,
    "TransporterID" INT NULL,
    "TransporterNama" NVARCHAR(100) NULL,
    "CustomerID" INT NULL,
    "CustomerNama" NVARCHAR(100) NULL,
    "Alamat" NVARCHAR(255) NULL,
    "ProductID" INT NULL,
    "ProductNama" NVARCHAR(100) NULL,
    "TransType" NVARCHAR(10) NOT NULL,
    "NoDO" NVARCHAR(50) NULL,
    "NoKontrak" NVARCHAR(50) NULL,
    "SegelAtas" NVARCHAR(50) NULL,
    "SegelBawah" NVARCHAR(50) NULL,
    "BeratMasuk" DECIMAL(18,2) NOT NULL,
    "BeratKeluar" DECIMAL(18,2) NULL,
    "BeratNetto" DECIMAL(18,2) NULL,
    "Potongan" DECIMAL(18,2) NOT NULL,
    "PotonganPersen" DECIMAL(8,3) NOT NULL,
    "PotonganCong" DECIMAL(18,2) NOT NULL,
    "TotalPotongan" DECIMAL(18,2) NOT NULL,
    "BeratBersih" DECIMAL(18,2) NOT NULL,
    "IncludeFFA" BIT NOT NULL,
    "FFA" DECIMAL(10,3) NOT NULL,
    "Moisture" DECIMAL(10,3) NOT NULL,
    "Dirt" DECIMAL(10,3) NOT NULL,
    "SuhuMinyak" DECIMAL(10,2) NOT NULL,
    "IncludeKeterangan" BIT NOT NULL,
    "Keterangan" NVARCHAR(255) NULL,
    "Status" NVARCHAR(20) NOT NULL,
    "KraniMasuk" INT NULL,
    "KraniKeluar" INT NULL,
    "PetugasMasukID" INT NULL,
    "PetugasKeluarID" INT NULL,
    "TanggalMasuk" DATETIME NOT NULL,
    "TanggalKeluar" DATETIME NULL,
    "CreatedAt" DATETIME NOT NULL,
    "CreatedBy" INT NULL,
    "UpdatedAt" DATETIME NOT NULL,
    "UpdatedBy" INT NULL,
    "JumlahCetak" INT NOT NULL
);
INSERT INTO "Timbangan" VALUES (1, 'PKS/2611/0001', 'BK 9017 XA', 'Rudi', 'SIM-B2-1122', 4, 'PT Angkut Sawit',
  12, 'PT Minyak Nabati', 'Belawan', 1, 'Crude Palm Oil (CPO)', 'JUAL', 'DO-CPO-2611-07', 'K-2611-03', 'SG-1001',
  'SG-1002', 9840, 33650, 23810, 0, 0, 0, 0, 23810, 1, 3.420, 0.180, 0.020, 48.50, 0, NULL, 'SELESAI', NULL, NULL,
  2, 3, '2026-11-24 07:05:00', '2026-11-24 07:41:20', '2026-11-24 07:05:00', 2, '2026-11-24 07:41:20', 3, 1);
INSERT INTO "Timbangan" VALUES (2, 'PKS/2611/0002', 'BK 1234 ABC', 'Ahmad', NULL, NULL, NULL,
  15, 'KUD Sawit Jaya', 'Labuhan Batu', 2, 'Tandan Buah Segar (TBS)', 'BELI', NULL, NULL, NULL,
  NULL, 18420, 6110, 12310, 246.20, 2.000, 0, 246.20, 12063.80, 0, 0, 0, 0, 0, 1, 'buah mentah 2%', 'SELESAI', 7,
  7, 2, 2, '2026-11-24 09:12:30', '2026-11-24 09:58:05', '2026-11-24 09:12:30', 2, '2026-11-24 09:58:05', 2, 1);
INSERT INTO "Timbangan" VALUES (3, 'PKS/2611/0003', 'BK 8823 XB', 'Darto', 'SIM-B2-3310', 4, 'PT Angkut Sawit',
  12, 'PT Minyak Nabati', 'Belawan', 1, 'Crude Palm Oil (CPO)', 'JUAL', 'DO-CPO-2611-08', 'K-2611-03', 'SG-1003',
  'SG-1004', 9910, 34120, 24210, 0, 0, 0, 0, 24210, 1, 3.510, 0.170, 0.020, 47.90, 0, NULL, 'SELESAI', NULL, NULL,
  3, 3, '2026-11-24 23:50:10', '2026-11-25 00:20:45', '2026-11-24 23:50:10', 3, '2026-11-25 00:20:45', 3, 2);
INSERT INTO "Timbangan" VALUES (4, 'PKS/2611/0004', 'BK 5678 DEF', 'Budi', NULL, NULL, NULL,
  18, 'Pak Sinaga', 'Rantau Prapat', 2, 'Tandan Buah Segar (TBS)', 'BELI', NULL, NULL, NULL,
  NULL, 17960, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 'MASUK', 7,
  NULL, 2, NULL, '2026-11-25 10:15:00', NULL, '2026-11-25 10:15:00', 2, '2026-11-25 10:15:00', NULL, 0);
