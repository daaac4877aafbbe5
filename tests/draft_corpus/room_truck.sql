-- Source: github.com/yongkimayongga/TruckWeighbridge
--   app/src/main/java/com/truck/weighbridge/persistence/Truck.kt, commit 2fdbee8f5b2e2c4576d6d7d898b50b18ee3089e3
--   (an Android weighbridge app: the Room entity `tbl_truck`).
-- The column names are the entity's fields and the types those Room declares on SQLite for
-- them (Int: INTEGER NOT NULL, String?: TEXT), as Room writes the table. Every value but the key
-- is text, weights too. The rows are ours (dates written YYYY-MM-DD, times HH:MM): deliveries
-- come in loaded, one dispatch comes in empty, one truck has not left yet.
CREATE TABLE "tbl_truck" (
    "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    "driverName" TEXT,
    "licenseNumber" TEXT,
    "date" TEXT,
    "time" TEXT,
    "inboundTonnage" TEXT,
    "outboundTonnage" TEXT,
    "netWeight" TEXT
);
INSERT INTO "tbl_truck" VALUES (1, 'Slamet', 'L 1234 AB', '2026-11-24', '07:05', '30120', '11040', '19080');
INSERT INTO "tbl_truck" VALUES (2, 'Bambang', 'W 8104 SW', '2026-11-24', '09:12', '28760', '10890', '17870');
INSERT INTO "tbl_truck" VALUES (3, 'Joko', 'S 9021 KL', '2026-11-24', '23:50', '9650', '27480', '17830');
INSERT INTO "tbl_truck" VALUES (4, 'Hadi', 'L 8866 UT', '2026-11-25', '06:30', '17980', '6420', '11560');
INSERT INTO "tbl_truck" VALUES (5, 'Wahyu', 'AG 1507 RA', '2026-11-25', '10:15', '25110', NULL, NULL);
