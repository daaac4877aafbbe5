-- Source: github.com/flashcry3rd/wcs.pns.id
--   wcs_pns.sql, commit 8e1a93cfe65b81d8a18692160d0832a6156aa04e
--   (phpMyAdmin dump of a sugar-cane estate's weight scale program: table `tbl_weight_scale`).
-- The column names and declared types are the source's; DEFAULTs are dropped. The rows are
-- ours: cane trucks come in loaded from the field (weight_in > weight_out), and one truck of
-- filter cake goes out to the field (weight_in < weight_out).
CREATE TABLE "tbl_weight_scale" (
    "wcs_id" bigint(20) NOT NULL,
    "no_transaksi" varchar(50) NOT NULL,
    "tipe" varchar(50) NOT NULL,
    "no_tiket_mobil" varchar(50) NOT NULL,
    "tiket_barge" varchar(30) NOT NULL,
    "no_wo" varchar(50) NOT NULL,
    "kode_petak" varchar(50) NOT NULL,
    "ancak" varchar(50) NOT NULL,
    "jenis_tebu" varchar(50) NOT NULL,
    "tgl_harvesting" date NOT NULL,
    "tgl_muat" datetime NOT NULL,
    "kode_kontraktor" varchar(50) NOT NULL,
    "loading_vehicle_number" varchar(50) NOT NULL,
    "loading_vehicle_operator" varchar(50) NOT NULL,
    "kode_barge" varchar(50) NOT NULL,
    "kode_tugboat" varchar(50) NOT NULL,
    "tugboat_captain" varchar(50) NOT NULL,
    "tujuan_tugboat" varchar(50) NOT NULL,
    "kode_truck" varchar(50) NOT NULL,
    "supir" varchar(50) NOT NULL,
    "kepala_regu" varchar(50) NOT NULL,
    "weight_in" double NOT NULL,
    "weight_in_time" datetime NOT NULL,
    "weight_out" double NOT NULL,
    "weight_out_time" datetime NOT NULL,
    "retase" varchar(50) NOT NULL,
    "kontraktor_delivery" varchar(50) NOT NULL,
    "no_polisi" varchar(50) NOT NULL,
    "tujuan" varchar(50) NOT NULL,
    "no_alat2" varchar(50) NOT NULL,
    "op_alat2" varchar(50) NOT NULL,
    "del" int(11) NOT NULL,
    "createby" varchar(35) NOT NULL,
    "operator_timbang" varchar(250) NOT NULL,
    "sync" datetime
);
INSERT INTO "tbl_weight_scale" VALUES (7001, 'WS/2611/0001', 'TEBU', 'TM-55012', '', 'WO-2611-03', 'P-12A', 'A3',
  'PS 862', '2026-11-23', '2026-11-24 04:40:00', 'KTR-07', 'LD-02', 'Rahmat', '', '', '', '', 'TR-114',
  'Sarno', 'Gimin', 21450, '2026-11-24 07:05:00', 8120, '2026-11-24 07:41:20', '1', 'KTR-DLV-02',
  'BG 8123 LA', 'PABRIK', '', '', 0, 'admin_harvesting', 'Andy Wijaya', '2026-11-24 07:45:00');
INSERT INTO "tbl_weight_scale" VALUES (7002, 'WS/2611/0002', 'TEBU', 'TM-55013', '', 'WO-2611-03', 'P-12A', 'A4',
  'PS 862', '2026-11-23', '2026-11-24 05:10:00', 'KTR-07', 'LD-02', 'Rahmat', '', '', '', '', 'TR-120',
  'Paijo', 'Gimin', 20980, '2026-11-24 09:12:30', 8040, '2026-11-24 09:58:05', '2', 'KTR-DLV-02',
  'BG 8244 LB', 'PABRIK', '', '', 0, 'admin_harvesting', 'Andy Wijaya', '2026-11-24 10:00:00');
INSERT INTO "tbl_weight_scale" VALUES (7003, 'WS/2611/0003', 'TEBU', 'TM-55101', '', 'WO-2611-05', 'P-07C', 'B1',
  'BL', '2026-11-24', '2026-11-24 21:30:00', 'KTR-11', 'LD-05', 'Samsul', '', '', '', '', 'TR-131',
  'Karyo', 'Tono', 22310, '2026-11-24 23:50:10', 8210, '2026-11-25 00:20:45', '1', 'KTR-DLV-04',
  'BG 8390 LC', 'PABRIK', '', '', 0, 'superhero', 'Administrator', NULL);
INSERT INTO "tbl_weight_scale" VALUES (7004, 'WS/2611/0004', 'BLOTONG', 'TM-55140', '', 'WO-2611-06', 'P-03B', '-',
  '-', '2026-11-25', '2026-11-25 06:10:00', 'KTR-02', 'LD-01', 'Udin', '', '', '', '', 'TR-108',
  'Mardi', 'Tono', 7950, '2026-11-25 06:30:00', 19870, '2026-11-25 07:02:15', '1', 'KTR-DLV-01',
  'BG 8015 LD', 'P-03B', '', '', 0, 'andy.wijaya', 'Andy Wijaya', '2026-11-25 07:05:00');
INSERT INTO "tbl_weight_scale" VALUES (7005, 'WS/2611/0005', 'TEBU', 'TM-55177', '', 'WO-2611-05', 'P-07C', 'B2',
  'BL', '2026-11-24', '2026-11-25 08:00:00', 'KTR-11', 'LD-05', 'Samsul', '', '', '', '', 'TR-114',
  'Sarno', 'Tono', 21870, '2026-11-25 10:15:00', 7990, '2026-11-25 10:52:40', '2', 'KTR-DLV-02',
  'BG 8123 LA', 'PABRIK', '', '', 0, 'andy.wijaya', 'Andy Wijaya', NULL);
