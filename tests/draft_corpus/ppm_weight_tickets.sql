-- Source: github.com/transcom/mymove
--   migrations/app/schema/20220622225529_create_weight_tickets_table.up.sql,
--   commit 7534886208fa8c216044e4d23f2a14d459c31987
--   (PostgreSQL table of a moving program's weight tickets: the vehicle weighed empty and full
--   at a public scale for one shipment, kept as two weights, and soft-deleted by a deleted_at
--   stamp).
-- The column names and declared types are the source's (uuid, varchar, int, bool, timestamp,
-- timestamptz); the constraints, foreign keys and indexes are left out.
-- The rows are ours: five tickets, each weighed empty then full (the mover loads between the
-- weighings), one deleted (its deleted_at set), one with the full weighing not made yet.
CREATE TABLE "weight_tickets" (
    "id" uuid PRIMARY KEY,
    "ppm_shipment_id" uuid NOT NULL,
    "vehicle_description" varchar,
    "empty_weight" int,
    "has_empty_weight_ticket" bool,
    "empty_document_id" uuid,
    "full_weight" int,
    "has_full_weight_ticket" bool,
    "full_document_id" uuid,
    "owns_trailer" bool,
    "trailer_meets_criteria" bool,
    "proof_of_trailer_ownership_document_id" uuid,
    "created_at" timestamp NOT NULL,
    "updated_at" timestamp NOT NULL,
    "deleted_at" timestamptz
);
INSERT INTO "weight_tickets" VALUES ('3f1e2d4c-5b6a-4798-8a1b-2c3d4e5f6071', '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c51',
  '2019 Ford F-150, blue', 2410, 1, 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d61', 3880, 1,
  'c2d3e4f5-a6b7-4c8d-9e0f-1a2b3c4d5e72', 0, 0, NULL, '2026-11-02 09:14:05', '2026-11-02 09:14:05', NULL);
INSERT INTO "weight_tickets" VALUES ('4a2f3e5d-6c7b-48a9-9b2c-3d4e5f607182', '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c51',
  '2019 Ford F-150 with a 6x12 trailer', 3120, 1, 'd3e4f5a6-b7c8-4d9e-8f0a-2b3c4d5e6f83', 5290, 1,
  'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a94', 1, 1, 'f5a6b7c8-d9e0-4f1a-8b2c-4d5e6f7a8ba5', '2026-11-03 16:40:21',
  '2026-11-04 08:02:10', NULL);
INSERT INTO "weight_tickets" VALUES ('5b304f6e-7d8c-49ba-8c3d-4e5f60718293', '7c6d5e4f-3a2b-4c1d-8e9f-0a1b2c3d4e62',
  '2017 Honda Odyssey', 2010, 1, 'a6b7c8d9-e0f1-4a2b-9c3d-5e6f7a8b9cb6', 2655, 1,
  'b7c8d9e0-f1a2-4b3c-8d4e-6f7a8b9c0dc7', 0, 0, NULL, '2026-11-05 11:05:00', '2026-11-06 10:00:00',
  '2026-11-06 10:00:00+00');
INSERT INTO "weight_tickets" VALUES ('6c41506f-8e9d-4acb-9d4e-5f60718293a4', '7c6d5e4f-3a2b-4c1d-8e9f-0a1b2c3d4e62',
  '2017 Honda Odyssey', 2015, 1, 'c8d9e0f1-a2b3-4c4d-9e5f-7a8b9c0d1ed8', 2702, 1,
  'd9e0f1a2-b3c4-4d5e-8f6a-8b9c0d1e2fe9', 0, 0, NULL, '2026-11-06 10:02:33', '2026-11-06 10:02:33', NULL);
INSERT INTO "weight_tickets" VALUES ('7d526170-9fae-4bdc-8e5f-60718293a4b5', '5e4f3a2b-1c0d-4e9f-9a8b-7c6d5e4f3a73',
  '2021 RAM 2500', 3345, 1, 'e0f1a2b3-c4d5-4e6f-9a7b-9c0d1e2f3afa', NULL, 0, NULL, 0, 0, NULL,
  '2026-11-08 13:30:00', '2026-11-08 13:30:00', NULL);
