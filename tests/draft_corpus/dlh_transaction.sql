-- Source: github.com/itdinaslh/Timbangan
--   Migrations/20230508052245_InitialCreatePostgres.cs, commit 5efce4059e03e52b5e95f662f4bd63b319a35ac4
--   (EF Core migration, PostgreSQL, of a city sanitation office's weighbridge: table "Transaction";
--   the entity is Domain/Entities/Transaction.cs).
-- The column names and declared types are the migration's (PostgreSQL's names, which SQLite
-- reads as declared types); the identity annotation and the keys are left out. The rows are
-- ours: refuse trucks come in loaded and leave empty (BeratMasuk > BeratKeluar), one still on
-- the bridge; the timestamps are written without an offset, as the plant's local time.
CREATE TABLE "Transaction" (
    "TransactionID" bigint NOT NULL,
    "TransactionGUID" uuid NOT NULL,
    "KendaraanID" integer NOT NULL,
    "NoPolisi" character varying(20),
    "NoPintu" character varying(30),
    "BeratMasuk" integer NOT NULL,
    "TglMasuk" date NOT NULL,
    "JamMasuk" time without time zone NOT NULL,
    "InDateTime" timestamp with time zone NOT NULL,
    "StatusID" integer,
    "IsPasar" boolean,
    "RFID" character varying(15),
    "BeratKeluar" integer,
    "PenugasanName" character varying(75),
    "AreaKerjaName" character varying(50),
    "EkspenditurName" character varying(150),
    "TglKeluar" date,
    "JamKeluar" time without time zone,
    "OutDateTime" timestamp with time zone,
    "CreatedBy" character varying(75),
    "UpdatedBy" text,
    "UpdatedAt" timestamp with time zone
);
INSERT INTO "Transaction" VALUES (5301, '3f2c6a1e-8d4b-4c1a-9e7f-2b5d8c0a1e11', 41, 'B 9123 PQA', 'DLH-041',
  12840, '2026-11-24', '07:05:00', '2026-11-24 07:05:00', 2, 0, 'E200341201', 7310, 'Angkut Sampah',
  'Jakarta Timur', 'UPS Cakung', '2026-11-24', '07:41:20', '2026-11-24 07:41:20', 'operator.bantar1',
  'operator.bantar2', '2026-11-24 07:41:20');
INSERT INTO "Transaction" VALUES (5302, 'a9e1d7c4-2b3f-4e8a-b6d1-7c9f0e2a3b44', 57, 'B 9547 PQB', 'DLH-057',
  11920, '2026-11-24', '09:12:30', '2026-11-24 09:12:30', 2, 1, 'E200341377', 6980, 'Angkut Pasar',
  'Jakarta Utara', NULL, '2026-11-24', '09:58:05', '2026-11-24 09:58:05', 'operator.bantar1',
  'operator.bantar1', '2026-11-24 09:58:05');
INSERT INTO "Transaction" VALUES (5303, 'c47b2e90-1f6d-4a35-8e2c-5d0b9a7f6e21', 63, 'B 9602 PQC', 'DLH-063',
  13410, '2026-11-24', '23:50:10', '2026-11-24 23:50:10', 2, 0, 'E200341402', 7425, 'Angkut Sampah',
  'Jakarta Barat', 'UPS Kalideres', '2026-11-25', '00:20:45', '2026-11-25 00:20:45', 'operator.bantar3',
  'operator.bantar3', '2026-11-25 00:20:45');
INSERT INTO "Transaction" VALUES (5304, 'e5d80f13-6a7c-4b92-a1e4-3f2b8d9c0a55', 41, 'B 9123 PQA', 'DLH-041',
  12210, '2026-11-25', '06:30:00', '2026-11-25 06:30:00', 2, 0, 'E200341201', 7305, 'Angkut Sampah',
  'Jakarta Timur', 'UPS Cakung', '2026-11-25', '07:02:15', '2026-11-25 07:02:15', 'operator.bantar1',
  'operator.bantar2', '2026-11-25 07:02:15');
INSERT INTO "Transaction" VALUES (5305, '0b6c3d2e-9f8a-4e71-b5c2-8a1d4e7f3c66', 72, 'B 9718 PQD', 'DLH-072',
  10990, '2026-11-25', '10:15:00', '2026-11-25 10:15:00', 1, 0, 'E200341590', NULL, 'Angkut Sampah',
  'Jakarta Selatan', NULL, NULL, NULL, NULL, 'operator.bantar2', NULL, NULL);
