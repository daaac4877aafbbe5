-- Source: github.com/tranminhieu10/canoto
--   azure-functions/TramCanFunctions/Database/schema.sql, commit 991493f4bda449c4e56a29d7bb2982f4dfb03078
--   (Azure SQL Database, i.e. SQL Server, schema of a weighing station, trạm cân: table
--   WeighingTickets, one row per ticket, the first and second weighing each with its DATETIME2).
-- The column names and declared types are the source's; NVARCHAR(MAX) is written NVARCHAR(4000),
-- the DEFAULTs and the IF NOT EXISTS are left out. Its keys are NEWID() texts (GUIDs), as the
-- source's own sample rows make them.
-- The rows are ours: fish bought at a processing plant (the loaded truck weighed first), one
-- truck still on the scale (SecondWeight 0, no second time), one ticket deleted.
CREATE TABLE "WeighingTickets" (
    "Id" NVARCHAR(50) PRIMARY KEY,
    "TicketNumber" NVARCHAR(50) NOT NULL,
    "VehiclePlate" NVARCHAR(20) NOT NULL,
    "VehicleId" NVARCHAR(50) NULL,
    "CustomerId" NVARCHAR(50) NULL,
    "CustomerName" NVARCHAR(200) NULL,
    "ProductId" NVARCHAR(50) NULL,
    "ProductName" NVARCHAR(200) NULL,
    "FirstWeight" FLOAT NOT NULL,
    "SecondWeight" FLOAT NOT NULL,
    "NetWeight" FLOAT NOT NULL,
    "UnitPrice" FLOAT NULL,
    "TotalAmount" FLOAT NULL,
    "FirstWeighTime" DATETIME2 NOT NULL,
    "SecondWeighTime" DATETIME2 NULL,
    "Status" NVARCHAR(20) NOT NULL,
    "Notes" NVARCHAR(4000) NULL,
    "FirstWeighImageUrl" NVARCHAR(500) NULL,
    "SecondWeighImageUrl" NVARCHAR(500) NULL,
    "OperatorId" NVARCHAR(50) NULL,
    "OperatorName" NVARCHAR(200) NULL,
    "StationId" NVARCHAR(50) NOT NULL,
    "CreatedAt" DATETIME2 NOT NULL,
    "UpdatedAt" DATETIME2 NOT NULL,
    "IsDeleted" BIT NOT NULL,
    "IsSynced" BIT NOT NULL
);
INSERT INTO "WeighingTickets" VALUES ('6f1c2a0e-8d3b-4e6a-9b1f-2c4d5e6f7a81', 'PC-260115-001', '51C-12345',
  'a3e5c7d9-1b2f-4a6c-8e0d-2f4a6c8e0b13', '0d9b7f5e-3c1a-4e8b-9d6f-4b2e0c8a6d25', 'Công ty TNHH Thủy Sản ABC',
  'b7d9f1a3-5c7e-4b9d-8f1a-3c5e7b9d1f37', 'Cá Tra', 12450, 3520, 8930, 25000, 223250000,
  '2026-01-15 07:05:12', '2026-01-15 07:31:40', 'completed', NULL, '/img/pc001-1.jpg', '/img/pc001-2.jpg',
  'c1e3a5b7-9d1f-4c3e-8a5b-7d9f1b3d5e49', 'Nguyễn Thị Lan', 'scale-station-01', '2026-01-15 07:05:12',
  '2026-01-15 07:31:40', 0, 1);
INSERT INTO "WeighingTickets" VALUES ('7a2d3b1f-9e4c-4f7b-8c2a-3d5e6f7a8b92', 'PC-260115-002', '51C-67890',
  'b4f6d8e0-2c3a-4b7d-9f1e-3a5b7d9f1c24', '0d9b7f5e-3c1a-4e8b-9d6f-4b2e0c8a6d25', 'Công ty TNHH Thủy Sản ABC',
  'c8e0a2b4-6d8f-4cae-9a2b-4d6f8a0c2e48', 'Cá Basa', 15820, 5010, 10810, 28000, 302680000,
  '2026-01-15 09:12:30', '2026-01-15 09:40:05', 'completed', 'ướt, trừ 2%', NULL, NULL,
  'c1e3a5b7-9d1f-4c3e-8a5b-7d9f1b3d5e49', 'Nguyễn Thị Lan', 'scale-station-01', '2026-01-15 09:12:30',
  '2026-01-15 09:41:10', 0, 1);
INSERT INTO "WeighingTickets" VALUES ('8b3e4c2a-0f5d-4a8c-9d3b-4e6f7a8b9ca3', 'PC-260115-003', '62C-11111',
  'c5a7e9f1-3d4b-4c8e-8a2f-4b6c8e0a2d35', '1e0c8a6f-4d2b-4f9c-8e7a-5c3f1d9b7e36', 'Nguyễn Văn A',
  'b7d9f1a3-5c7e-4b9d-8f1a-3c5e7b9d1f37', 'Cá Tra', 6240, 2010, 4230, 25000, 105750000,
  '2026-01-15 23:48:00', '2026-01-16 00:12:25', 'completed', NULL, NULL, NULL,
  'd2f4b6c8-0e2a-4d4f-9b6c-8e0a2c4e6f5a', 'Trần Văn Minh', 'scale-station-01', '2026-01-15 23:48:00',
  '2026-01-16 00:12:25', 0, 1);
INSERT INTO "WeighingTickets" VALUES ('9c4f5d3b-1a6e-4b9d-8e4c-5f7a8b9cadb4', 'PC-260116-001', '51C-12345',
  'a3e5c7d9-1b2f-4a6c-8e0d-2f4a6c8e0b13', '0d9b7f5e-3c1a-4e8b-9d6f-4b2e0c8a6d25', 'Công ty TNHH Thủy Sản ABC',
  'd9f1b3c5-7e9a-4dbf-8b3c-5e7a9b1d3f59', 'Tôm Sú', 8120, 3525, 4595, 150000, 689250000,
  '2026-01-16 08:20:00', '2026-01-16 08:44:10', 'cancelled', 'cân nhầm xe', NULL, NULL,
  'd2f4b6c8-0e2a-4d4f-9b6c-8e0a2c4e6f5a', 'Trần Văn Minh', 'scale-station-01', '2026-01-16 08:20:00',
  '2026-01-16 08:50:00', 1, 1);
INSERT INTO "WeighingTickets" VALUES ('ad5a6e4c-2b7f-4cae-9f5d-6a8b9cadbec5', 'PC-260116-002', '51C-67890',
  'b4f6d8e0-2c3a-4b7d-9f1e-3a5b7d9f1c24', '1e0c8a6f-4d2b-4f9c-8e7a-5c3f1d9b7e36', 'Nguyễn Văn A',
  'c8e0a2b4-6d8f-4cae-9a2b-4d6f8a0c2e48', 'Cá Basa', 14960, 0, 0, 28000, NULL,
  '2026-01-16 10:15:00', NULL, 'pending', NULL, NULL, NULL,
  'c1e3a5b7-9d1f-4c3e-8a5b-7d9f1b3d5e49', 'Nguyễn Thị Lan', 'scale-station-01', '2026-01-16 10:15:00',
  '2026-01-16 10:15:00', 0, 0);
