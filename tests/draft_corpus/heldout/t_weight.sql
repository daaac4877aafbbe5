-- Source: github.com/nnugaoz/AuthenticationDemo
--   Auth/DBScript/T_Weight.sql, commit 608d69062a98cd8f1438dcb97b7f9ea1e5043ef7
--   (SQL Server script of a weighing record table, dbo.T_Weight: 称重记录表; the gross, the tare
--   and the net each with the time it was taken, kept as text in VARCHAR(50) columns).
-- The column names and declared types are the source's; the constraint and the extended
-- properties are left out, the schema dbo. is dropped.
-- The rows are ours, times written as such programs write them (yyyy-MM-dd HH:mm:ss): coal
-- received (the gross weighed first), slag sent out (the empty truck first, its tare before its
-- gross), one truck weighed once, an edit.
CREATE TABLE "T_Weight" (
    "ID" VARCHAR(50) NOT NULL PRIMARY KEY,
    "CarNO" VARCHAR(50) NULL,
    "Gross" DECIMAL(18, 6) NULL,
    "Tare" DECIMAL(18, 6) NULL,
    "Net" DECIMAL(18, 6) NULL,
    "GrossTime" VARCHAR(50) NULL,
    "TareTime" VARCHAR(50) NULL,
    "NetTime" VARCHAR(50) NULL,
    "EditMan" VARCHAR(50) NULL,
    "EditDate" VARCHAR(50) NULL
);
INSERT INTO "T_Weight" VALUES ('W201911130001', 'LU A 12345', 49.36, 15.12, 34.24, '2019-11-13 08:05:12',
  '2019-11-13 08:41:40', '2019-11-13 08:41:40', NULL, NULL);
INSERT INTO "T_Weight" VALUES ('W201911130002', 'LU A 67890', 38.02, 14.88, 23.14, '2019-11-13 09:58:05',
  '2019-11-13 09:12:30', '2019-11-13 09:58:05', NULL, NULL);
INSERT INTO "T_Weight" VALUES ('W201911130003', 'LU B 24680', 47.95, 15.40, 32.55, '2019-11-13 23:50:10',
  '2019-11-14 00:20:45', '2019-11-14 00:20:45', 'admin', '2019-11-14 08:30:00');
INSERT INTO "T_Weight" VALUES ('W201911140001', 'LU A 13579', 50.10, NULL, NULL, '2019-11-14 10:15:00',
  NULL, NULL, NULL, NULL);
