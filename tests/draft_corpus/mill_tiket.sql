-- Source: none public. The palm-oil mill's SQL Server table, as the mill described it (a vendor's
-- schema: an INT identity, a blank-padded CHAR(12) ticket number, a direction code T/K, the
-- supplier's or customer's code and name on the ticket, first and second weight, net, a sortasi
-- deduction in % and kg, the weigh-in as one DATETIME, the weigh-out as two text columns
-- dd/mm/yyyy and hh:mm, a status I/S/X, the operator of each weighing, the plant's code). The
-- names the issue gives are kept (dTimbang1, nBrt1, cTglKeluar, UserID1, UserID2, KdSite, cStatus);
-- the others are ours in the same vendor style (c text, n number, d date). Declared types as
-- SQL Server's: INT, CHAR(n), VARCHAR(n), NUMERIC(p,s), DATETIME.
-- The rows are ours: fruit received (T, terima: loaded first), CPO dispatched (K, kirim: the
-- tanker empty first), one weighing out after midnight, one truck still on the bridge (I), one
-- ticket voided (X).
CREATE TABLE "TIKET" (
    "nID" INT NOT NULL PRIMARY KEY,
    "cNoTiket" CHAR(12) NOT NULL,
    "KdSite" CHAR(4) NOT NULL,
    "cArah" CHAR(1) NOT NULL,
    "cNoPol" VARCHAR(12) NULL,
    "cSopir" VARCHAR(30) NULL,
    "cKdRelasi" VARCHAR(10) NULL,
    "cNmRelasi" VARCHAR(50) NULL,
    "cKdBarang" VARCHAR(10) NULL,
    "cNmBarang" VARCHAR(30) NULL,
    "nBrt1" NUMERIC(10,0) NULL,
    "nBrt2" NUMERIC(10,0) NULL,
    "nNetto" NUMERIC(10,0) NULL,
    "nSortasiPersen" NUMERIC(5,2) NULL,
    "nSortasiKg" NUMERIC(10,0) NULL,
    "dTimbang1" DATETIME NULL,
    "cTglKeluar" CHAR(10) NULL,
    "cJamKeluar" CHAR(5) NULL,
    "UserID1" VARCHAR(10) NULL,
    "UserID2" VARCHAR(10) NULL,
    "cNoDO" VARCHAR(20) NULL,
    "cKet" VARCHAR(100) NULL,
    "cStatus" CHAR(1) NOT NULL
);
INSERT INTO "TIKET" VALUES (1, 'T26110001   ', 'PKS1', 'T', 'BK 1234 ABC', 'Ahmad', 'S0015', 'KUD Sawit Jaya',
  'TBS', 'Tandan Buah Segar', 18420, 6110, 12310, 2.00, 246, '2026-11-24 07:05:12', '24/11/2026', '07:41',
  'rina', 'rina', NULL, 'buah mentah 2%', 'S');
INSERT INTO "TIKET" VALUES (2, 'K26110001   ', 'PKS1', 'K', 'BK 9017 XA', 'Rudi', 'C0012', 'PT Minyak Nabati',
  'CPO', 'Crude Palm Oil', 9840, 33650, 23810, 0, 0, '2026-11-24 09:12:30', '24/11/2026', '09:58',
  'budi', 'rina', 'DO-CPO-2611-07', NULL, 'S');
INSERT INTO "TIKET" VALUES (3, 'T26110002   ', 'PKS1', 'T', 'BK 5678 DEF', 'Budi', 'S0018', 'Pak Sinaga',
  'TBS', 'Tandan Buah Segar', 17960, 6020, 11940, 3.50, 418, '2026-11-24 10:15:00', '24/11/2026', '10:49',
  'rina', 'budi', NULL, NULL, 'S');
INSERT INTO "TIKET" VALUES (4, 'K26110002   ', 'PKS1', 'K', 'BK 8823 XB', 'Darto', 'C0012', 'PT Minyak Nabati',
  'CPO', 'Crude Palm Oil', 9910, 34120, 24210, 0, 0, '2026-11-24 23:50:10', '25/11/2026', '00:20',
  'budi', 'budi', 'DO-CPO-2611-08', NULL, 'S');
INSERT INTO "TIKET" VALUES (5, 'T26110003   ', 'PKS1', 'T', 'BK 4410 AE', 'Slamet', 'S0021', 'Kebun Rakyat Maju',
  'TBS', 'Tandan Buah Segar', 15200, 5900, 9300, 1.50, 140, '2026-11-25 06:40:00', '25/11/2026', '07:12',
  'rina', 'rina', NULL, NULL, 'S');
INSERT INTO "TIKET" VALUES (6, 'T26110004   ', 'PKS1', 'T', 'BK 1234 ABC', 'Ahmad', 'S0015', 'KUD Sawit Jaya',
  'TBS', 'Tandan Buah Segar', 18100, 6110, 11990, 2.00, 240, '2026-11-25 08:02:45', '25/11/2026', '08:37',
  'rina', 'budi', NULL, 'salah input: dibatalkan', 'X');
INSERT INTO "TIKET" VALUES (7, 'K26110003   ', 'PKS1', 'K', 'BK 7001 KA', 'Yusuf', 'C0030', 'PT Kernel Indo',
  'PK', 'Palm Kernel', 8120, 29400, 21280, 0, 0, '2026-11-25 11:20:00', '25/11/2026', '12:05',
  'budi', 'budi', 'DO-PK-2611-02', NULL, 'S');
INSERT INTO "TIKET" VALUES (8, 'T26110005   ', 'PKS1', 'T', 'BK 3390 AF', 'Hasan', 'S0024', 'CV Tani Makmur',
  'TBS', 'Tandan Buah Segar', 16780, 6005, 10775, 2.50, 269, '2026-11-25 13:30:20', '25/11/2026', '14:01',
  'rina', 'rina', NULL, NULL, 'S');
INSERT INTO "TIKET" VALUES (9, 'T26110006   ', 'PKS1', 'T', 'BK 2207 AG', 'Joko', 'S0018', 'Pak Sinaga',
  'TBS', 'Tandan Buah Segar', 17350, NULL, NULL, NULL, NULL, '2026-11-25 15:45:00', NULL, NULL,
  'budi', NULL, NULL, NULL, 'I');
