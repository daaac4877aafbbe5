-- Source: github.com/arionsilitonga/web-astra-agro-wb
--   app/Database/Migrations/2021-11-02-234625_TrWb.php, commit 33396bade38983222dd903ca968d7c65515fa0a6
--   (CodeIgniter 4 forge migration of `tr_wb`, the weighbridge transactions of a palm-oil mill).
-- The column names and declared types are the source's; the forge's addPrimaryKey('chitnumber')
-- is written inline. The rows are ours: fresh fruit bunches received (the truck comes in loaded,
-- weight_in > weight_out) and crude palm oil dispatched (weight_in < weight_out), one truck still on
-- the bridge and one weighing across midnight.
CREATE TABLE "tr_wb" (
    "wbsitecode" varchar(20),
    "sitecode" varchar(20),
    "chitnumber" varchar(20) PRIMARY KEY,
    "sabno" varchar(20),
    "customercode" varchar(20),
    "productcode" varchar(50),
    "transactiontype" varchar(50),
    "unitcode" varchar(20),
    "npk_driver" varchar(50),
    "npk_helper1" varchar(50),
    "npk_helper2" varchar(50),
    "boarding" datetime,
    "wb_in" datetime,
    "wb_out" datetime,
    "weight_in" integer,
    "weight_out" integer,
    "kab_type" varchar(20),
    "kabraw" longtext,
    "operator_in" varchar(50),
    "terminal_in" datetime,
    "terminal_out" datetime,
    "operator_out" varchar(50),
    "status" char(1) DEFAULT 0,
    "sent" char(1) DEFAULT 0,
    "created_at" datetime,
    "updated_at" datetime,
    "deleted_at" datetime
);
INSERT INTO "tr_wb" VALUES ('SAI1-WB1', 'SAI1', 'SAI1P2611240001', 'TTBSAI261124001', 'SAI 1', '400012100',
  'TBS Internal', 'XSAIDT001', '9231245', '3234325', NULL, '2026-11-24 06:40:00', '2026-11-24 07:05:00',
  '2026-11-24 07:41:20', 15020, 5010, 'KAB', NULL, 'RUDI', '2026-11-24 07:05:02', '2026-11-24 07:41:22',
  'RUDI', '1', '1', '2026-11-24 07:05:02', '2026-11-24 07:41:22', NULL);
INSERT INTO "tr_wb" VALUES ('SAI1-WB1', 'SAI1', 'SAI1P2611240002', 'TTBSAI261124002', 'SAI 2', '400012100',
  'TBS Internal', 'XSAIDT004', '9231302', NULL, NULL, '2026-11-24 08:55:00', '2026-11-24 09:12:30',
  '2026-11-24 09:58:05', 14380, 4975, 'KAB', NULL, 'RUDI', '2026-11-24 09:12:31', '2026-11-24 09:58:07',
  'SITI', '1', '1', '2026-11-24 09:12:31', '2026-11-24 09:58:07', NULL);
INSERT INTO "tr_wb" VALUES ('SAI1-WB2', 'SAI1', 'SAI1P2611240003', 'DO-CPO-2611-07', 'PKS-BLW', '400011000',
  'CPO Penjualan', 'BK 9017 XA', 'EXT-0451', NULL, NULL, NULL, '2026-11-24 23:50:10',
  '2026-11-25 00:20:45', 9840, 33650, NULL, NULL, 'SITI', '2026-11-24 23:50:11', '2026-11-25 00:20:47',
  'AGUS', '1', '0', '2026-11-24 23:50:11', '2026-11-25 00:20:47', NULL);
INSERT INTO "tr_wb" VALUES ('SAI1-WB1', 'SAI1', 'SAI1P2611250004', 'TTBSAI261125001', 'SAI 1', '400012100',
  'TBS Internal', 'XSAIDT002', '9231288', '3234401', NULL, '2026-11-25 06:05:00', '2026-11-25 06:30:00',
  '2026-11-25 07:02:15', 16110, 5030, 'KAB', NULL, 'AGUS', '2026-11-25 06:30:01', '2026-11-25 07:02:16',
  'AGUS', '1', '1', '2026-11-25 06:30:01', '2026-11-25 07:02:16', NULL);
INSERT INTO "tr_wb" VALUES ('SAI1-WB2', 'SAI1', 'SAI1P2611250005', 'DO-KER-2611-02', 'PKS-BLW', '400013000',
  'Kernel Penjualan', 'BK 8823 XB', 'EXT-0467', NULL, NULL, NULL, '2026-11-25 10:15:00',
  NULL, 8120, NULL, NULL, NULL, 'AGUS', '2026-11-25 10:15:01', NULL,
  NULL, '0', '0', '2026-11-25 10:15:01', NULL, NULL);
