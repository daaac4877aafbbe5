-- Source: github.com/novryanda/ht-group
--   prisma/schema.prisma, commit 8340a8614245bb97848d3f292cb05242d3d652d1
--   (Prisma model WeighbridgeTicket of a palm-oil mill's supplier weighbridge, PostgreSQL: the
--   fresh fruit bunches each supplier brings, weighed in and out, the grader's deduction kept as
--   a fraction potPercent (0.05 for 5 %) beside the kilograms it takes, potKg).
-- The column names are the model's fields (Prisma names a column after its field); the types
-- are those Prisma gives them on PostgreSQL: String as TEXT, DateTime as TIMESTAMP(3),
-- Decimal as its @db.Decimal, the enum DocStatus (DRAFT, APPROVED, POSTED) as TEXT; keys are
-- cuid() texts. The relations (company, vehicle, supplier, item) are the id columns.
-- The rows are ours: fruit received from three suppliers, the loaded truck weighed first,
-- one ticket approved and posted, one truck still on the bridge (no jamKeluar; timbang2 0).
CREATE TABLE "WeighbridgeTicket" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "companyId" TEXT NOT NULL,
    "noSeri" TEXT NOT NULL,
    "vehicleId" TEXT NOT NULL,
    "supplierId" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "tanggal" TIMESTAMP(3) NOT NULL,
    "jamMasuk" TIMESTAMP(3) NOT NULL,
    "jamKeluar" TIMESTAMP(3),
    "timbang1" DECIMAL(12, 2) NOT NULL,
    "timbang2" DECIMAL(12, 2) NOT NULL,
    "netto1" DECIMAL(12, 2) NOT NULL,
    "potPercent" DECIMAL(5, 4) NOT NULL,
    "potKg" DECIMAL(12, 2) NOT NULL,
    "beratTerima" DECIMAL(12, 2) NOT NULL,
    "lokasiKebun" TEXT,
    "penimbang" TEXT,
    "hargaPerKg" DECIMAL(12, 2) NOT NULL,
    "pphRate" DECIMAL(5, 4) NOT NULL,
    "upahBongkarPerKg" DECIMAL(12, 2) NOT NULL,
    "total" DECIMAL(14, 2) NOT NULL,
    "totalPph" DECIMAL(14, 2) NOT NULL,
    "totalUpahBongkar" DECIMAL(14, 2) NOT NULL,
    "totalPembayaranSupplier" DECIMAL(14, 2) NOT NULL,
    "status" TEXT NOT NULL,
    "purchaseJeId" TEXT,
    "unloadJeId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "createdById" TEXT NOT NULL
);
INSERT INTO "WeighbridgeTicket" VALUES ('cmf1a0b2c0001qz8x7k3w9d1e', 'cmc0pks000001', '20261124-001',
  'cmv0veh00000017', 'cms0sup00000003', 'cmi0tbs00000001', '2026-11-24 00:00:00', '2026-11-24 07:05:12',
  '2026-11-24 07:41:30', 18420, 6110, 12310, 0.02, 246.2, 12063.8, 'Kebun Sei Rampah', 'rina', 2150, 0.0025,
  25, 25937170, 64842.93, 301595, 25872327.07, 'POSTED', 'cmj0je000000101', 'cmj0je000000102',
  '2026-11-24 07:05:12', '2026-11-24 16:20:00', 'cmu0usr00000002');
INSERT INTO "WeighbridgeTicket" VALUES ('cmf1a0b2c0002qz8x7k3w9d1f', 'cmc0pks000001', '20261124-002',
  'cmv0veh00000021', 'cms0sup00000005', 'cmi0tbs00000001', '2026-11-24 00:00:00', '2026-11-24 08:20:00',
  '2026-11-24 08:51:10', 16960, 5980, 10980, 0.035, 384.3, 10595.7, 'Desa Bandar Setia', 'rina', 2150, 0.0025,
  25, 22780755, 56951.89, 264892.5, 22723803.11, 'APPROVED', NULL, NULL, '2026-11-24 08:20:00',
  '2026-11-24 15:02:41', 'cmu0usr00000002');
INSERT INTO "WeighbridgeTicket" VALUES ('cmf1a0b2c0003qz8x7k3w9d1g', 'cmc0pks000001', '20261124-003',
  'cmv0veh00000009', 'cms0sup00000003', 'cmi0tbs00000002', '2026-11-24 00:00:00', '2026-11-24 10:02:45',
  '2026-11-24 10:30:00', 9120, 4210, 4910, 0.015, 73.65, 4836.35, 'Kebun Sei Rampah', 'budi', 1900, 0.0025,
  25, 9189065, 22972.66, 120908.75, 9166092.34, 'DRAFT', NULL, NULL, '2026-11-24 10:02:45',
  '2026-11-24 10:30:00', 'cmu0usr00000004');
INSERT INTO "WeighbridgeTicket" VALUES ('cmf1a0b2c0004qz8x7k3w9d1h', 'cmc0pks000001', '20261125-001',
  'cmv0veh00000017', 'cms0sup00000008', 'cmi0tbs00000001', '2026-11-25 00:00:00', '2026-11-25 06:48:00',
  '2026-11-25 07:20:35', 17780, 6105, 11675, 0.05, 583.75, 11091.25, 'Kebun Pantai Cermin', 'budi', 2150,
  0.0025, 25, 23846187.5, 59615.47, 277281.25, 23786572.03, 'DRAFT', NULL, NULL, '2026-11-25 06:48:00',
  '2026-11-25 07:20:35', 'cmu0usr00000004');
INSERT INTO "WeighbridgeTicket" VALUES ('cmf1a0b2c0005qz8x7k3w9d1i', 'cmc0pks000001', '20261125-002',
  'cmv0veh00000021', 'cms0sup00000005', 'cmi0tbs00000001', '2026-11-25 00:00:00', '2026-11-25 09:15:00',
  NULL, 17210, 0, 0, 0, 0, 0, 'Desa Bandar Setia', 'rina', 0, 0, 0, 0, 0, 0, 0, 'DRAFT', NULL, NULL,
  '2026-11-25 09:15:00', '2026-11-25 09:15:00', 'cmu0usr00000002');
