-- Source: github.com/jtrajano/SQL_i21
--   i21DatabaseTable/dbo/Tables/tblSCTicket.sql, commit 78c710a87f5334f92638f95b0793d30c164c0a76
--   (SQL Server table of an agribusiness ERP's scale module: one row per scale ticket, the gross
--   and the tare each with the DATETIME it was weighed, a one-letter status, the moment a
--   ticket was voided).
-- The column names and declared types are the source's; of its 140 columns, the 53 kept are
-- those of the ticket, the truck, the weighings, the parties, the item and the places (the
-- contract, freight, currency, settlement and document keys are left out). COLLATE clauses,
-- DEFAULTs and constraints are left out; a bare NVARCHAR is one character, as on SQL Server.
-- The rows are ours: grain received (inbound 'I': the loaded truck weighed first, gross then
-- tare), grain shipped (outbound 'O': the empty truck first), a truck still on the scale
-- (status 'O', open), one ticket voided ('V', with its void moment); the others completed ('C').
CREATE TABLE "tblSCTicket" (
    "intTicketId" INT NOT NULL PRIMARY KEY,
    "strTicketStatus" NVARCHAR NOT NULL,
    "strTicketNumber" NVARCHAR(40) NOT NULL,
    "intScaleSetupId" INT NOT NULL,
    "intTicketPoolId" INT NOT NULL,
    "intTicketLocationId" INT NOT NULL,
    "intTicketType" INT NOT NULL,
    "strInOutFlag" NVARCHAR NOT NULL,
    "dtmTicketDateTime" DATETIME NULL,
    "dtmTicketTransferDateTime" DATETIME NULL,
    "dtmTicketVoidDateTime" DATETIME NULL,
    "dtmTransactionDateTime" DATETIME NULL,
    "intProcessingLocationId" INT NULL,
    "strScaleOperatorUser" NVARCHAR(40) NOT NULL,
    "intEntityScaleOperatorId" INT NULL,
    "strTruckName" NVARCHAR(40) NULL,
    "strDriverName" NVARCHAR(40) NULL,
    "ysnDriverOff" BIT NULL,
    "ysnGrossManual" BIT NULL,
    "dblGrossWeight" DECIMAL(13, 3) NULL,
    "dblGrossWeight1" DECIMAL(13, 3) NULL,
    "dblGrossWeight2" DECIMAL(13, 3) NULL,
    "dtmGrossDateTime" DATETIME NULL,
    "intGrossUserId" INT NULL,
    "ysnTareManual" BIT NULL,
    "dblTareWeight" DECIMAL(13, 3) NULL,
    "dtmTareDateTime" DATETIME NULL,
    "intTareUserId" INT NULL,
    "dblGrossUnits" NUMERIC(38, 20) NULL,
    "dblShrink" NUMERIC(38, 20) NULL,
    "dblNetUnits" NUMERIC(38, 20) NULL,
    "strItemUOM" NVARCHAR(50) NULL,
    "intCustomerId" INT NULL,
    "strDistributionOption" NVARCHAR(30) NULL,
    "strContractNumber" NVARCHAR(50) NULL,
    "dblUnitPrice" NUMERIC(38, 20) NULL,
    "strTicketComment" NVARCHAR(80) NULL,
    "strCustomerReference" NVARCHAR(20) NULL,
    "intHaulerId" INT NULL,
    "strLoadNumber" NVARCHAR(8) NULL,
    "intAxleCount" INT NULL,
    "strPitNumber" NVARCHAR(100) NULL,
    "intCommodityId" INT NULL,
    "intDiscountId" INT NULL,
    "intItemId" INT NULL,
    "intEntityId" INT NULL,
    "intSubLocationId" INT NULL,
    "intStorageLocationId" INT NULL,
    "intConcurrencyId" INT NULL,
    "strElevatorReceiptNumber" NVARCHAR(50) NULL,
    "strLotNumber" NVARCHAR(50) NULL,
    "strPlateNumber" NVARCHAR(50) NULL,
    "ysnRailCar" BIT NOT NULL
);
INSERT INTO "tblSCTicket" VALUES (101, 'C', '0000101', 1, 1, 3, 1, 'I', '2026-11-24 07:02:00', NULL, NULL,
  '2026-11-24 07:02:11', 3, 'mwalker', 41, 'TRK-07', 'Dale Hughes', 0, 0, 36280, NULL, NULL,
  '2026-11-24 07:03:40', 41, 0, 14660, '2026-11-24 07:31:05', 41, 21620, 108.1, 21511.9, 'KG', NULL,
  'SPT', NULL, 0.21, NULL, NULL, 12, 'L-1101', 5, 'PIT-2', 2, 7, 88, 205, 4, 17, 3, 'ER-0101', NULL,
  'KX 4410', 0);
INSERT INTO "tblSCTicket" VALUES (102, 'C', '0000102', 1, 1, 3, 1, 'O', '2026-11-24 08:15:00', NULL, NULL,
  '2026-11-24 08:15:20', 3, 'mwalker', 41, 'TRK-12', 'Rosa Diaz', 0, 0, 38940, NULL, NULL,
  '2026-11-24 08:52:30', 41, 0, 15020, '2026-11-24 08:16:02', 41, 23920, 0, 23920, 'KG', NULL,
  'CNT', 'S-2026-044', 0.24, 'to Port Elevator', 'PO-7781', 15, 'L-1102', 5, NULL, 2, NULL, 88, 318, 5,
  21, 2, NULL, 'LOT-2611-A', 'KX 9021', 0);
INSERT INTO "tblSCTicket" VALUES (103, 'V', '0000103', 1, 1, 3, 1, 'I', '2026-11-24 09:40:00', NULL,
  '2026-11-24 10:05:44', '2026-11-24 09:40:09', 3, 'jbrooks', 42, 'TRK-07', 'Dale Hughes', 0, 0, 35100,
  NULL, NULL, '2026-11-24 09:41:15', 42, 0, 14655, '2026-11-24 10:02:50', 42, 20445, 102.2, 20342.8, 'KG',
  NULL, 'SPT', NULL, 0.21, 'weighed on the wrong contract', NULL, 12, 'L-1103', 5, 'PIT-2', 2, 7, 88, 205,
  4, 17, 4, NULL, NULL, 'KX 4410', 0);
INSERT INTO "tblSCTicket" VALUES (104, 'C', '0000104', 1, 1, 3, 1, 'I', '2026-11-24 23:48:00', NULL, NULL,
  '2026-11-24 23:48:30', 3, 'jbrooks', 42, 'TRK-03', 'Ali Khan', 0, 0, 31870, NULL, NULL,
  '2026-11-24 23:49:10', 42, 0, 13240, '2026-11-25 00:14:55', 42, 18630, 93.2, 18536.8, 'KG', NULL,
  'DP', NULL, 0.20, NULL, NULL, 14, 'L-1104', 5, 'PIT-1', 2, 7, 88, 207, 4, 16, 3, 'ER-0104', NULL,
  'KX 3307', 0);
INSERT INTO "tblSCTicket" VALUES (105, 'C', '0000105', 1, 1, 3, 1, 'O', '2026-11-25 06:30:00', NULL, NULL,
  '2026-11-25 06:30:12', 3, 'mwalker', 41, 'TRK-12', 'Rosa Diaz', 0, 1, 39120, NULL, NULL,
  '2026-11-25 07:05:40', 41, 0, 15010, '2026-11-25 06:31:00', 41, 24110, 0, 24110, 'KG', NULL,
  'CNT', 'S-2026-044', 0.24, 'manual gross: indicator fault', 'PO-7782', 15, 'L-1105', 5, NULL, 2, NULL,
  88, 318, 5, 21, 2, NULL, 'LOT-2611-B', 'KX 9021', 0);
INSERT INTO "tblSCTicket" VALUES (106, 'C', '0000106', 1, 1, 3, 1, 'I', '2026-11-25 08:10:00', NULL, NULL,
  '2026-11-25 08:10:05', 3, 'mwalker', 41, 'TRK-21', 'Tom Price', 0, 0, 29950, NULL, NULL,
  '2026-11-25 08:11:30', 41, 0, 12480, '2026-11-25 08:36:10', 41, 17470, 87.4, 17382.6, 'KG', NULL,
  'SPT', NULL, 0.21, NULL, NULL, 12, 'L-1106', 5, 'PIT-1', 2, 7, 88, 211, 4, 16, 2, 'ER-0106', NULL,
  'KX 5518', 0);
INSERT INTO "tblSCTicket" VALUES (107, 'O', '0000107', 1, 1, 3, 1, 'I', '2026-11-25 09:20:00', NULL, NULL,
  '2026-11-25 09:20:02', 3, 'jbrooks', 42, 'TRK-03', 'Ali Khan', 0, 0, 32400, NULL, NULL,
  '2026-11-25 09:21:00', 42, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'KG', NULL, 'SPT', NULL, 0.21,
  NULL, NULL, 14, 'L-1107', 5, NULL, 2, 7, 88, 207, 4, 16, 1, NULL, NULL, 'KX 3307', 0);
