-- The embedded database: the plant's ten tables as SQLite holds them, for the demo and the tests.
-- Dates are stored as ISO text 'YYYY-MM-DD', times as 'HH:MM:SS[.ffffff]', numbers as REAL.
-- One index per canonical order and per date/time pair, so that pages walk an index and date
-- ranges seek one instead of scanning the table.

CREATE TABLE "customers" (
    "id" INTEGER,
    "CustCode" VARCHAR(255),
    "CustName" VARCHAR(255),
    "Address" VARCHAR(255),
    "City" VARCHAR(255),
    "Phone" VARCHAR(255),
    "Contact" VARCHAR(255),
    "Remark" VARCHAR(255)
);
CREATE INDEX "customers_order" ON "customers" ("id");

CREATE TABLE "products" (
    "id" INTEGER,
    "ProductCode" VARCHAR(255),
    "ProductName" VARCHAR(255),
    "Unit" VARCHAR(255),
    "Remark" VARCHAR(255)
);
CREATE INDEX "products_order" ON "products" ("id");

CREATE TABLE "transporters" (
    "id" INTEGER,
    "TransCode" VARCHAR(255),
    "TransName" VARCHAR(255),
    "Address" VARCHAR(255),
    "Phone" VARCHAR(255),
    "Contact" VARCHAR(255),
    "Remark" VARCHAR(255)
);
CREATE INDEX "transporters_order" ON "transporters" ("id");

CREATE TABLE "transactions" (
    "id" INTEGER,
    "accessedbyanother" VARCHAR(255),
    "beingaccessedbyuser" VARCHAR(255),
    "adjustunit" REAL,
    "adjustweigh" REAL,
    "custcode" VARCHAR(255),
    "detctid" REAL,
    "dono" VARCHAR(255),
    "drivername" VARCHAR(255),
    "editedby" VARCHAR(255),
    "ffa" VARCHAR(255),
    "jam_create" TIME,
    "jam_dt1" TIME,
    "jam_dt2" TIME,
    "jam_update" TIME,
    "location" VARCHAR(255),
    "lot" VARCHAR(255),
    "mai" VARCHAR(255),
    "noct" VARCHAR(255),
    "operator1" VARCHAR(255),
    "operator2" VARCHAR(255),
    "opt1" VARCHAR(255),
    "opt2" VARCHAR(255),
    "pending" VARCHAR(255),
    "pl3no" VARCHAR(255),
    "productcode" VARCHAR(255),
    "recno" VARCHAR(255),
    "remark" VARCHAR(255),
    "sealno" VARCHAR(255),
    "tgl_create" DATE,
    "tgl_dt1" DATE,
    "tgl_dt2" DATE,
    "tgl_update" DATE,
    "transcode" VARCHAR(255),
    "vehno" VARCHAR(255),
    "wbname1" VARCHAR(255),
    "wbname2" VARCHAR(255),
    "weigh1" REAL,
    "weigh2" REAL,
    "weighsource1" REAL,
    "weighsource2" REAL,
    "weighunit1" REAL,
    "weighunit2" REAL
);
CREATE INDEX "transactions_order" ON "transactions" ("id");
CREATE INDEX "transactions_dt1" ON "transactions" ("tgl_dt1", "jam_dt1", "id");
CREATE INDEX "transactions_dt2" ON "transactions" ("tgl_dt2", "jam_dt2", "id");
CREATE INDEX "transactions_create" ON "transactions" ("tgl_create", "jam_create", "id");
CREATE INDEX "transactions_update" ON "transactions" ("tgl_update", "jam_update", "id");

CREATE TABLE "vehicles" (
    "id" INTEGER,
    "Number" VARCHAR(255),
    "BeingWeighed" VARCHAR(255),
    "Capacity" REAL,
    "CapacityUnit" REAL,
    "Tare" REAL,
    "TareUnit" REAL,
    "TransCode" VARCHAR(255),
    "UseTare" VARCHAR(255),
    "Opt1" VARCHAR(255),
    "Opt2" VARCHAR(255),
    "tgl_create" DATE,
    "jam_create" TIME,
    "tgl_expired" DATE,
    "jam_expired" TIME
);
CREATE INDEX "vehicles_order" ON "vehicles" ("id");
CREATE INDEX "vehicles_create" ON "vehicles" ("tgl_create", "jam_create", "id");
CREATE INDEX "vehicles_expired" ON "vehicles" ("tgl_expired", "jam_expired", "id");

CREATE TABLE "bricon2" (
    "no_produksi" INTEGER,
    "no_produksi_" INTEGER,
    "tanggal" DATE,
    "jam" TIME,
    "operator_name" VARCHAR(50),
    "mode_operator" VARCHAR(50),
    "recipe" INTEGER,
    "level_change" INTEGER,
    "isproses" INTEGER,
    "temperature_sv" INTEGER,
    "temperature_pv" INTEGER,
    "temperature_corr" INTEGER,
    "temperature_note" VARCHAR(50),
    "adonan_before_add" INTEGER,
    "adonan_corr" INTEGER,
    "adonan_note" VARCHAR(50),
    "adonan_pv" INTEGER,
    "adonan_sv" INTEGER,
    "afalan_before_add" INTEGER,
    "afalan_corr" INTEGER,
    "afalan_note" VARCHAR(50),
    "afalan_pv" INTEGER,
    "afalan_sv" INTEGER,
    "air_before_add" INTEGER,
    "air_corr" INTEGER,
    "air_note" VARCHAR(50),
    "air_pv" INTEGER,
    "air_sv" INTEGER,
    "aluminium_before_add" INTEGER,
    "aluminium_corr" INTEGER,
    "aluminium_note" VARCHAR(50),
    "aluminium_pv" INTEGER,
    "aluminium_sv" INTEGER,
    "kapur_before_add" INTEGER,
    "kapur_corr" INTEGER,
    "kapur_note" VARCHAR(50),
    "kapur_pv" INTEGER,
    "kapur_sv" INTEGER,
    "silo_1_before_add" INTEGER,
    "silo_1_corr" INTEGER,
    "silo_1_note" VARCHAR(50),
    "silo_1_pv" INTEGER,
    "silo_1_sv" INTEGER,
    "silo_2_before_add" INTEGER,
    "silo_2_corr" INTEGER,
    "silo_2_note" VARCHAR(50),
    "silo_2_pv" INTEGER,
    "silo_2_sv" INTEGER
);
CREATE INDEX "bricon2_order" ON "bricon2" ("tanggal", "jam", "no_produksi", "no_produksi_");
CREATE INDEX "bricon2_tanggal" ON "bricon2" ("tanggal", "jam", "no_produksi", "no_produksi_");

CREATE TABLE "weighing" (
    "id" INTEGER,
    "accessedbyanother" VARCHAR(255),
    "beingaccessedbyuser" VARCHAR(255),
    "adjustunit" REAL,
    "adjustweigh" REAL,
    "custcode" VARCHAR(255),
    "detctid" REAL,
    "dono" VARCHAR(255),
    "drivername" VARCHAR(255),
    "editedby" VARCHAR(255),
    "ffa" VARCHAR(255),
    "jam_create" TIME,
    "jam_dt1" TIME,
    "jam_dt2" TIME,
    "jam_update" TIME,
    "location" VARCHAR(255),
    "lot" VARCHAR(255),
    "mai" VARCHAR(255),
    "noct" VARCHAR(255),
    "operator1" VARCHAR(255),
    "operator2" VARCHAR(255),
    "opt1" VARCHAR(255),
    "opt2" VARCHAR(255),
    "pending" VARCHAR(255),
    "pl3no" VARCHAR(255),
    "productcode" VARCHAR(255),
    "recno" VARCHAR(255),
    "remark" VARCHAR(255),
    "sealno" VARCHAR(255),
    "tgl_create" DATE,
    "tgl_dt1" DATE,
    "tgl_dt2" DATE,
    "tgl_update" DATE,
    "transcode" VARCHAR(255),
    "vehno" VARCHAR(255),
    "wbname1" VARCHAR(255),
    "wbname2" VARCHAR(255),
    "weigh1" REAL,
    "weigh2" REAL,
    "weighsource1" REAL,
    "weighsource2" REAL,
    "weighunit1" REAL,
    "weighunit2" REAL
);
CREATE INDEX "weighing_order" ON "weighing" ("id");
CREATE INDEX "weighing_dt1" ON "weighing" ("tgl_dt1", "jam_dt1", "id");
CREATE INDEX "weighing_dt2" ON "weighing" ("tgl_dt2", "jam_dt2", "id");
CREATE INDEX "weighing_create" ON "weighing" ("tgl_create", "jam_create", "id");
CREATE INDEX "weighing_update" ON "weighing" ("tgl_update", "jam_update", "id");

CREATE TABLE "timbangan1" (
    "id" INTEGER,
    "accessedbyanother" VARCHAR(255),
    "beingaccessedbyuser" VARCHAR(255),
    "adjustunit" REAL,
    "adjustweigh" REAL,
    "custcode" VARCHAR(255),
    "detctid" REAL,
    "dono" VARCHAR(255),
    "drivername" VARCHAR(255),
    "editedby" VARCHAR(255),
    "ffa" VARCHAR(255),
    "jam_create" TIME,
    "jam_dt1" TIME,
    "jam_dt2" TIME,
    "jam_update" TIME,
    "location" VARCHAR(255),
    "lot" VARCHAR(255),
    "mai" VARCHAR(255),
    "noct" VARCHAR(255),
    "operator1" VARCHAR(255),
    "operator2" VARCHAR(255),
    "opt1" VARCHAR(255),
    "opt2" VARCHAR(255),
    "pending" VARCHAR(255),
    "pl3no" VARCHAR(255),
    "productcode" VARCHAR(255),
    "recno" VARCHAR(255),
    "remark" VARCHAR(255),
    "sealno" VARCHAR(255),
    "tgl_create" DATE,
    "tgl_dt1" DATE,
    "tgl_dt2" DATE,
    "tgl_update" DATE,
    "transcode" VARCHAR(255),
    "vehno" VARCHAR(255),
    "wbname1" VARCHAR(255),
    "wbname2" VARCHAR(255),
    "weigh1" REAL,
    "weigh2" REAL,
    "weighsource1" REAL,
    "weighsource2" REAL,
    "weighunit1" REAL,
    "weighunit2" REAL
);
CREATE INDEX "timbangan1_order" ON "timbangan1" ("id");
CREATE INDEX "timbangan1_dt1" ON "timbangan1" ("tgl_dt1", "jam_dt1", "id");
CREATE INDEX "timbangan1_dt2" ON "timbangan1" ("tgl_dt2", "jam_dt2", "id");
CREATE INDEX "timbangan1_create" ON "timbangan1" ("tgl_create", "jam_create", "id");
CREATE INDEX "timbangan1_update" ON "timbangan1" ("tgl_update", "jam_update", "id");

CREATE TABLE "timbangan2" (
    "id" INTEGER,
    "accessedbyanother" VARCHAR(255),
    "beingaccessedbyuser" VARCHAR(255),
    "adjustunit" REAL,
    "adjustweigh" REAL,
    "custcode" VARCHAR(255),
    "detctid" REAL,
    "dono" VARCHAR(255),
    "drivername" VARCHAR(255),
    "editedby" VARCHAR(255),
    "ffa" VARCHAR(255),
    "jam_create" TIME,
    "jam_dt1" TIME,
    "jam_dt2" TIME,
    "jam_update" TIME,
    "location" VARCHAR(255),
    "lot" VARCHAR(255),
    "mai" VARCHAR(255),
    "noct" VARCHAR(255),
    "operator1" VARCHAR(255),
    "operator2" VARCHAR(255),
    "opt1" VARCHAR(255),
    "opt2" VARCHAR(255),
    "pending" VARCHAR(255),
    "pl3no" VARCHAR(255),
    "productcode" VARCHAR(255),
    "recno" VARCHAR(255),
    "remark" VARCHAR(255),
    "sealno" VARCHAR(255),
    "tgl_create" DATE,
    "tgl_dt1" DATE,
    "tgl_dt2" DATE,
    "tgl_update" DATE,
    "transcode" VARCHAR(255),
    "vehno" VARCHAR(255),
    "wbname1" VARCHAR(255),
    "wbname2" VARCHAR(255),
    "weigh1" REAL,
    "weigh2" REAL,
    "weighsource1" REAL,
    "weighsource2" REAL,
    "weighunit1" REAL,
    "weighunit2" REAL
);
CREATE INDEX "timbangan2_order" ON "timbangan2" ("id");
CREATE INDEX "timbangan2_dt1" ON "timbangan2" ("tgl_dt1", "jam_dt1", "id");
CREATE INDEX "timbangan2_dt2" ON "timbangan2" ("tgl_dt2", "jam_dt2", "id");
CREATE INDEX "timbangan2_create" ON "timbangan2" ("tgl_create", "jam_create", "id");
CREATE INDEX "timbangan2_update" ON "timbangan2" ("tgl_update", "jam_update", "id");

CREATE TABLE "biao1" (
    "id" INTEGER,
    "no_produksi" INTEGER,
    "no_produksi_" INTEGER,
    "tanggal" DATE,
    "jam" TIME,
    "operator_name" VARCHAR(50),
    "mode_operator" VARCHAR(50),
    "recipe" INTEGER,
    "level_change" INTEGER,
    "isproses" INTEGER,
    "temperature_sv" INTEGER,
    "temperature_pv" INTEGER,
    "temperature_corr" INTEGER,
    "temperature_note" VARCHAR(50),
    "adonan_before_add" INTEGER,
    "adonan_corr" INTEGER,
    "adonan_note" VARCHAR(50),
    "adonan_pv" INTEGER,
    "adonan_sv" INTEGER,
    "afalan_before_add" INTEGER,
    "afalan_corr" INTEGER,
    "afalan_note" VARCHAR(50),
    "afalan_pv" INTEGER,
    "afalan_sv" INTEGER,
    "air_before_add" INTEGER,
    "air_corr" INTEGER,
    "air_note" VARCHAR(50),
    "air_pv" INTEGER,
    "air_sv" INTEGER,
    "aluminium_before_add" INTEGER,
    "aluminium_corr" INTEGER,
    "aluminium_note" VARCHAR(50),
    "aluminium_pv" INTEGER,
    "aluminium_sv" INTEGER,
    "kapur_before_add" INTEGER,
    "kapur_corr" INTEGER,
    "kapur_note" VARCHAR(50),
    "kapur_pv" INTEGER,
    "kapur_sv" INTEGER,
    "silo_1_before_add" INTEGER,
    "silo_1_corr" INTEGER,
    "silo_1_note" VARCHAR(50),
    "silo_1_pv" INTEGER,
    "silo_1_sv" INTEGER,
    "silo_2_before_add" INTEGER,
    "silo_2_corr" INTEGER,
    "silo_2_note" VARCHAR(50),
    "silo_2_pv" INTEGER,
    "silo_2_sv" INTEGER
);
CREATE INDEX "biao1_order" ON "biao1" ("id");
CREATE INDEX "biao1_tanggal" ON "biao1" ("tanggal", "jam", "id");
