-- Source: github.com/UwimanaMuhiziElie/WeighBridgeManagamentSystem
--   migrations/001_initial_schema.sql, commit 1991158ebacac6877daf31dbc7ed88b4ac9c4748
--   (PostgreSQL schema of an English-named weighbridge management system: table `transactions`).
-- The column names and declared types are the source's (PostgreSQL's names, which SQLite reads as
-- declared types); the DEFAULTs, CHECKs and REFERENCES are left out. The rows are ours: the keys
-- are uuids, the transaction number is text; an inbound load (first weight the heavier), two
-- outbound (second the heavier), one truck still on the bridge; timestamps without an offset.
CREATE TABLE "transactions" (
  "id" uuid PRIMARY KEY,
  "branch_id" uuid,
  "transaction_number" text UNIQUE NOT NULL,
  "client_id" uuid,
  "vehicle_id" uuid,
  "operator_id" uuid,
  "transaction_type" text NOT NULL,
  "status" text NOT NULL,
  "first_weight" numeric(10,2),
  "second_weight" numeric(10,2),
  "net_weight" numeric(10,2),
  "first_weight_time" timestamptz,
  "second_weight_time" timestamptz,
  "material_type" text,
  "reference_number" text,
  "notes" text,
  "created_at" timestamptz,
  "updated_at" timestamptz
);
INSERT INTO "transactions" VALUES ('7c1e0f3a-1b2c-4d5e-8f90-a1b2c3d4e5f6', 'b0000000-0000-4000-8000-000000000001',
  'WB-2611-000123', 'c1000000-0000-4000-8000-0000000000a1', 'd1000000-0000-4000-8000-0000000000b1',
  'e1000000-0000-4000-8000-0000000000c1', 'inbound', 'completed', 30120, 11040, 19080,
  '2026-11-24 07:05:00', '2026-11-24 07:41:20', 'maize', 'PO-4471', '', '2026-11-24 07:05:00', '2026-11-24 07:41:20');
INSERT INTO "transactions" VALUES ('8d2f1a4b-2c3d-4e6f-9a01-b2c3d4e5f6a7', 'b0000000-0000-4000-8000-000000000001',
  'WB-2611-000124', 'c1000000-0000-4000-8000-0000000000a2', 'd1000000-0000-4000-8000-0000000000b2',
  'e1000000-0000-4000-8000-0000000000c1', 'outbound', 'completed', 10220, 30640, 20420,
  '2026-11-24 09:12:30', '2026-11-24 09:58:05', 'cement', 'DO-2207', 'two seals', '2026-11-24 09:12:30', '2026-11-24 09:58:05');
INSERT INTO "transactions" VALUES ('9e3a2b5c-3d4e-4f70-8b12-c3d4e5f6a7b8', 'b0000000-0000-4000-8000-000000000001',
  'WB-2611-000125', 'c1000000-0000-4000-8000-0000000000a2', 'd1000000-0000-4000-8000-0000000000b3',
  'e1000000-0000-4000-8000-0000000000c2', 'outbound', 'completed', 9910, 34120, 24210,
  '2026-11-24 23:50:10', '2026-11-25 00:20:45', 'cement', 'DO-2208', '', '2026-11-24 23:50:10', '2026-11-25 00:20:45');
INSERT INTO "transactions" VALUES ('af4b3c6d-4e5f-4a81-9c23-d4e5f6a7b8c9', 'b0000000-0000-4000-8000-000000000001',
  'WB-2611-000126', 'c1000000-0000-4000-8000-0000000000a1', 'd1000000-0000-4000-8000-0000000000b4',
  'e1000000-0000-4000-8000-0000000000c2', 'inbound', 'in_progress', 25110, NULL, NULL,
  '2026-11-25 10:15:00', NULL, 'maize', 'PO-4475', '', '2026-11-25 10:15:00', '2026-11-25 10:15:00');
