"""The demo database: a SQLite file of realistic plant data (docs/api.md §12, "The embedded
default").

`jembatan demo-db` writes it to the configured SQLite path; the tests and benchmarks call
`build_demo_database` directly. The tables come from app/model/tables.py (generated from the record
shapes): this module holds no DDL, it fills what that creates.

The plant is an AAC (bata ringan) factory in East Java: trucks bring sand, lime, cement and
aluminium paste over two weighbridges and carry blocks away; two batching lines (bricon2 and
biao1) record per batch what the program asked for (sv) and what the load cells measured (pv).
"""

from __future__ import annotations

import math
import os
import random
import sqlite3
import subprocess
import sys
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import click

from ..model import tables
from ..ops.config import SHIPPED_SQL_DIR

END_DATE = date(2026, 11, 20)  # the last day of weighing and production in the demo
DEFAULT_SPAN_DAYS = 183  # about six months of weighing ending on END_DATE
MAX_SPAN_DAYS = 3653  # a big --rows is spread over at most ten years (~275 rows a day at 1M)
DEFAULT_WEIGHING = {"transactions": 3000, "weighing": 2500, "timbangan1": 1500, "timbangan2": 1500}
DEFAULT_PRODUCTION = 400  # batches in each of bricon2 and biao1
TABLES = ("customers", "products", "transporters", "transactions", "vehicles", "bricon2",
          "weighing", "timbangan1", "timbangan2", "biao1")
MATERIAL_GROUPS = ("adonan", "afalan", "air", "aluminium", "kapur", "silo_1", "silo_2")

# The weighbridge office works 05:00-23:00; entry weighings fall in that window.
_OPEN_FROM = 5 * 3600
_OPEN_SECONDS = 18 * 3600
_DAY = 86400

# Which weighbridge a table's entry and exit weighings are made on (None: either of them).
_BRIDGES = {"transactions": None, "weighing": None, "timbangan1": "WB-01",
            "timbangan2": "WB-02"}
# Ticket numbers (recno) differ per table so that rows of two tables are told apart.
_TICKET_PREFIX = {"transactions": "TRX", "weighing": "WGH", "timbangan1": "WB1",
                  "timbangan2": "WB2"}
# The columns every weighing-shaped row is generated in; checked against the schema at build
# time, so a changed record shape fails loudly instead of filling the wrong columns.
WEIGHING_COLUMNS = (
    "id", "accessedbyanother", "beingaccessedbyuser", "adjustunit", "adjustweigh", "custcode",
    "detctid", "dono", "drivername", "editedby", "ffa", "jam_create", "jam_dt1", "jam_dt2",
    "jam_update", "location", "lot", "mai", "noct", "operator1", "operator2", "opt1", "opt2",
    "pending", "pl3no", "productcode", "recno", "remark", "sealno", "tgl_create", "tgl_dt1",
    "tgl_dt2", "tgl_update", "transcode", "vehno", "wbname1", "wbname2", "weigh1", "weigh2",
    "weighsource1", "weighsource2", "weighunit1", "weighunit2", "cancelled",
)
# About one ticket in 120 is voided by the weighbridge program (cancelled = 1), chosen by a
# multiplicative hash of its row number rather than drawn, so that every other value of the
# demo stays as it was: those whose hash's low 16 bits fall under _CANCELLED (546 / 65536).
_HASH, _CANCELLED = 2654435761, 546
# A weighing collection's line in the shipped mapping (the plant's tables have no void
# marker), and the line that reads the demo's void flag instead (docs/adapting.md).
NO_VOIDS, VOID_FLAG = '0 AS "cancelled"', '"cancelled" AS "cancelled"'

# --- master data ------------------------------------------------------------------------------

# City: telephone area code.
_CITIES = {
    "Surabaya": "31", "Sidoarjo": "31", "Gresik": "31", "Mojokerto": "321", "Malang": "341",
    "Pasuruan": "343", "Probolinggo": "335", "Lumajang": "334", "Jember": "331", "Tuban": "356",
    "Kediri": "354", "Bojonegoro": "353", "Denpasar": "361", "Mataram": "370", "Semarang": "24",
    "Jakarta Utara": "21",
}

# (code, name, unit, location at the plant, supplied by, weight among deliveries)
_RAW_MATERIALS = (
    ("RM001", "Pasir Lumajang", "ton", "STOCKPILE PASIR", ("SUP002", "SUP003", "SUP017"), 30),
    ("RM002", "Pasir Silika Tuban", "ton", "STOCKPILE PASIR", ("SUP018",), 10),
    ("RM003", "Pasir Kali Brantas", "ton", "STOCKPILE PASIR", ("SUP004", "SUP013"), 8),
    ("RM004", "Kapur Tohor (Quicklime)", "kg", "GUDANG KAPUR", ("SUP005", "SUP006"), 9),
    ("RM005", "Kapur Padam", "kg", "GUDANG KAPUR", ("SUP006",), 3),
    ("RM006", "Semen PCC Curah", "ton", "SILO 2", ("SUP001",), 10),
    ("RM007", "Semen OPC Zak 40 kg", "kg", "GUDANG SEMEN", ("SUP001", "SUP011"), 3),
    ("RM008", "Aluminium Paste", "kg", "GUDANG KIMIA", ("SUP008",), 2),
    ("RM009", "Aluminium Powder", "kg", "GUDANG KIMIA", ("SUP008",), 1),
    ("RM010", "Gypsum", "kg", "GUDANG KAPUR", ("SUP007",), 3),
    ("RM011", "Fly Ash", "ton", "SILO 1", ("SUP009",), 5),
    ("RM012", "EPP (bahan tambah semen)", "kg", "SILO 1", ("SUP009", "SUP014"), 2),
    ("RM013", "Solar (BBM boiler)", "kg", "TANGKI SOLAR", ("SUP010",), 2),
    ("RM014", "Oli Cetakan", "kg", "GUDANG KIMIA", ("SUP012",), 1),
    ("RM015", "Besi Wiremesh M6", "kg", "GUDANG BESI", ("SUP015",), 1),
    ("RM016", "Palet Kayu", "kg", "GUDANG PALET", ("SUP016", "SUP011"), 2),
    ("RM017", "Plastik Wrapping", "kg", "GUDANG PALET", ("SUP016",), 1),
)
# (code, name, unit, location, weight among shipments)
_PRODUCTS_OUT = (
    ("FG001", "Bata Ringan 60x20x7,5 cm", "ton", "GUDANG JADI A", 8),
    ("FG002", "Bata Ringan 60x20x10 cm", "ton", "GUDANG JADI A", 10),
    ("FG003", "Bata Ringan 60x20x12,5 cm", "ton", "GUDANG JADI B", 4),
    ("FG004", "Bata Ringan 60x20x15 cm", "ton", "GUDANG JADI B", 2),
    ("FG005", "Panel Lantai AAC 10 cm", "ton", "GUDANG PANEL", 2),
    ("FG006", "Mortar Perekat Bata Ringan 40 kg", "kg", "GUDANG MORTAR", 3),
    ("FG007", "Afalan / Limbah Potong", "ton", "LAHAN AFALAN", 1),
    ("FG008", "Bata Ringan Grade B", "ton", "GUDANG JADI B", 1),
)
_SUPPLIERS = (  # (name, address, city); codes SUP001...
    ("PT Semen Gresik", "Jl. Veteran No. 1", "Gresik"),
    ("CV Sumber Makmur", "Jl. Raya Pasirian Km 3", "Lumajang"),
    ("UD Pasir Lumajang Jaya", "Dusun Krajan RT 02/RW 05, Candipuro", "Lumajang"),
    ("CV Tambang Pasir Brantas", "Jl. Raya Jetis No. 88", "Mojokerto"),
    ("PT Kapur Tuban Sentosa", "Jl. Raya Tuban–Semarang Km 12", "Tuban"),
    ("CV Batu Kapur Puger", "Jl. Puger Kulon No. 17", "Jember"),
    ("PT Gipsum Nusantara", "Kawasan Industri Gresik Blok C-7", "Gresik"),
    ("PT Alumindo Pasta Kimia", "Jl. Rungkut Industri III No. 21", "Surabaya"),
    ("PT Abu Terbang Paiton", "Jl. Raya Paiton Km 141", "Probolinggo"),
    ("CV Solar Mandiri", "Jl. Raya Porong Km 5 – Sidoarjo", "Sidoarjo"),
    ("UD Sinar Jaya", "Jl. Raya Bangil No. 45", "Pasuruan"),
    ("CV Karya Kimia Makmur", "Jl. Tenaga Utara No. 9", "Malang"),
    ("CV Mitra Pasir Sejahtera", "Jl. Raya Trowulan No. 102", "Mojokerto"),
    ("UD Berkah Abadi", "Jl. Raya Gempol No. 3", "Pasuruan"),
    ("PT Jaya Makmur Logam", "Jl. Margomulyo Indah Blok B-12", "Surabaya"),
    ("PT Indo Palet Kemasan", "Jl. Raya Krian Km 28", "Sidoarjo"),
    ("CV Sumber Rejeki Pasir", "Jl. Raya Tempeh No. 60", "Lumajang"),
    ("CV Anugrah Silika", "Jl. Raya Jenu No. 14", "Tuban"),
)
_BUYERS = (  # (name, address, city); codes CUS001...
    ("PT Karya Beton Mandiri", "Jl. Ahmad Yani No. 288", "Surabaya"),
    ("CV Bangun Persada", "Jl. Soekarno–Hatta No. 77", "Malang"),
    ("Toko Bangunan Sumber Rejeki", "Jl. Raya Buduran No. 15", "Sidoarjo"),
    ("Café Sumber Rejeki", "Jl. Kertajaya Indah No. 5", "Surabaya"),
    ("PT Graha Properti Surabaya", "Jl. Mayjen Sungkono No. 120", "Surabaya"),
    ("UD Maju Jaya Bangunan", "Jl. Raya Kepanjen No. 31", "Malang"),
    ("PT Griya Delta Sari Indah", "Perum Delta Sari Blok AK-1", "Sidoarjo"),
    ("CV Konstruksi Prima", "Jl. Panglima Sudirman No. 64", "Gresik"),
    ("Toko Bangunan Makmur Sejati", "Jl. Hayam Wuruk No. 210", "Jember"),
    ("UD Sinar Bangunan", "Jl. Panglima Polim No. 8", "Kediri"),
    ("PT Adhi Konstruksi Jatim", "Jl. Raya Darmo No. 99", "Surabaya"),
    ("CV Rumah Idaman", "Jl. Gajayana No. 41", "Malang"),
    ("PT Malang Residence", "Jl. Raya Tlogomas No. 200", "Malang"),
    ("TB Sumber Bangunan Kediri", "Jl. Dhoho No. 150", "Kediri"),
    ("PT Bali Beton Nusa", "Jl. Bypass Ngurah Rai No. 18", "Denpasar"),
    ("CV Lombok Bangun Sarana", "Jl. Langko No. 33", "Mataram"),
    ("PT Semarang Griya Mas", "Jl. Setiabudi No. 170", "Semarang"),
    ("Koperasi Karyawan Bersatu", None, "Sidoarjo"),
    ("PT Jember Property", "Jl. Kalimantan No. 27", "Jember"),
    ("Toko Besi & Bangunan Sido Muncul", "Jl. Veteran No. 12", "Bojonegoro"),
    ("CV Kurnia Abadi", "Jl. Raya Tanjung Priok No. 55", "Jakarta Utara"),
    ("H. Mansur (perorangan)", "Desa Wonoayu RT 03/RW 01", "Sidoarjo"),
)
_TRANSPORTERS = (  # (name, city); codes TR01...; the last is the plant's own fleet
    ("CV Berkah Logistik", "Sidoarjo"), ("PT Trans Jatim Sejahtera", "Surabaya"),
    ("CV Armada Pasir Lumajang", "Lumajang"), ("UD Angkutan Sumber Jaya", "Pasuruan"),
    ("PT Kargo Nusantara Ekspres", "Surabaya"), ("CV Dump Truck Makmur", "Mojokerto"),
    ("PT Bulk Semen Logistik", "Gresik"), ("CV Sinar Transport", "Malang"),
    ("PT Ekspedisi Jaya Abadi", "Surabaya"), ("CV Tronton Mandiri", "Tuban"),
    ("UD Truk Rakyat", "Jember"), ("PT Lintas Timur Logistik", "Probolinggo"),
    ("CV Putra Brantas Trans", "Kediri"), ("PT Armada Kapur Tuban", "Tuban"),
    ("Armada Sendiri (milik pabrik)", "Sidoarjo"),
)
_PEOPLE = (
    "Slamet Riyadi", "Agus Santoso", "Budi Hartono", "Joko Susilo", "Eko Prasetyo",
    "Bambang Wijaya", "Sugeng Raharjo", "Didik Purnomo", "Heru Setiawan", "Wahyu Hidayat",
    "Imam Syafi'i", "Teguh Wibowo", "Yudi Kurniawan", "Rudi Hermawan", "Sutrisno", "Suparman",
    "Mulyadi", "Ahmad Fauzi", "Moch. Ridwan", "Nur Cahyo", "Andik Wijayanto", "Samsul Arifin",
    "Fajar Nugroho", "Hadi Susanto", "Rahmat Hidayat", "Dwi Cahyono", "Arif Rahman", "Suwarno",
    "Kusnadi", "Ponidi", "Tarmuji", "Sukirno", "Abdul Rohman", "M. Khoirul Anam", "Supriyadi",
    "Gunawan", "Puji Santoso", "Edi Susanto", "Yusuf Efendi", "Choirul Huda",
)
_STREETS = ("Jl. Raya Industri", "Jl. Diponegoro", "Jl. Gatot Subroto", "Jl. Ahmad Yani",
            "Jl. Raya Bypass", "Jl. Pahlawan", "Jl. Kenjeran", "Jl. Raya Waru",
            "Jl. Brigjen Katamso")
_WB_OPERATORS = ("Rina Wulandari", "Dewi Lestari", "Siti Aminah", "Hendra Gunawan", "Yanto",
                 "Lukman Hakim")
_EDITORS = ("spv.hendra", "spv.anik", "admin", "qc.lina")
_PLANT_OPERATORS = ("Sholeh", "Mardi", "Karyono", "Wawan Setiadi", "Priyo Utomo", "Ali Mustofa")
_WB_REMARKS = (
    "Muatan basah", "Timbang ulang – indikator error", "Sopir ganti di pos",
    "Potongan kadar air 2 %", "Retur barang pecah", "Titip timbang", "Segel rusak, dicatat",
    "Surat jalan menyusul", "Muatan tumpah sedikit di jalan", "Plat sementara – kendaraan pinjaman",
    "Bongkar di gudang B", "Antre bongkar > 2 jam", "Sampel QC diambil",
)
_BATCH_NOTES = ("koreksi manual", "tambah air – adonan kental", "silo 1 kosong, pakai silo 2",
                "load cell dikalibrasi", "ganti operator", "suhu rendah – tunggu pemanas")
_PLATE_AREAS = ("L", "L", "L", "W", "W", "W", "S", "S", "N", "N", "P", "AG", "AE", "B", "DK")
_PLATE_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
# (body type, capacity range kg, tare range kg)
_TRUCK_TYPES = (
    ("Colt Diesel", (4000, 5000), (2400, 3000)),
    ("Dump Truck", (8000, 10000), (5400, 6600)),
    ("Dump Truck", (8000, 10000), (5400, 6600)),
    ("Tronton", (18000, 22000), (9000, 10500)),
    ("Trailer", (28000, 32000), (13000, 15000)),
    ("Bulk Truck Semen", (25000, 30000), (12000, 13500)),
)

# Per recipe: set points of temperature (°C) and each group (kg; aluminium in grams).
_RECIPES = {
    1: (45, {"adonan": 2100, "afalan": 250, "air": 380, "aluminium": 550, "kapur": 210,
             "silo_1": 260, "silo_2": 160}),
    2: (46, {"adonan": 2250, "afalan": 300, "air": 400, "aluminium": 600, "kapur": 230,
             "silo_1": 280, "silo_2": 170}),
    3: (44, {"adonan": 1950, "afalan": 200, "air": 350, "aluminium": 480, "kapur": 190,
             "silo_1": 240, "silo_2": 150}),
    4: (47, {"adonan": 2400, "afalan": 320, "air": 430, "aluminium": 650, "kapur": 250,
             "silo_1": 300, "silo_2": 190}),
}


# --- helpers ----------------------------------------------------------------------------------

def _insert(conn: sqlite3.Connection, table: str, columns: Sequence[str],
            rows: Iterable[Sequence[Any]]) -> None:
    """The one place INSERTs are written: one statement, executemany over a generator."""
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" * len(columns))
    conn.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)


def _insert_records(conn: sqlite3.Connection, table: str, records: list[dict[str, Any]]) -> None:
    _insert(conn, table, list(records[0]), (tuple(r.values()) for r in records))


def _table_columns(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(row[1] for row in conn.execute(f'PRAGMA table_info("{table}")'))


def _phone(rng: random.Random, city: str) -> str:
    area = _CITIES[city]
    digits = 7 if len(area) == 2 else 6  # big cities have seven-digit local numbers
    return f"+62 {area} {rng.randint(2, 8)}{rng.randrange(10 ** (digits - 1)):0{digits - 1}d}"


def _mobile(rng: random.Random) -> str:
    return (f"+62 8{rng.choice('1235')}{rng.randint(1, 9)}-{rng.randrange(10000):04d}-"
            f"{rng.randrange(10000):04d}")


def _clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


@dataclass(frozen=True)
class _Calendar:
    """Day 0 is the first day of weighing; dates[d] and times[s] are the stored strings."""

    first: date
    days: int
    dates: list[str]
    times: list[str]

    @classmethod
    def ending(cls, last: date, days: int) -> _Calendar:
        first = last - timedelta(days=days - 1)
        # Two days past the end, for exit weighings just after midnight.
        dates = [(first + timedelta(days=d)).isoformat() for d in range(days + 2)]
        return cls(first, days, dates, [_clock(s) for s in range(_DAY)])

    def day(self, offset: int) -> str:
        return (self.first + timedelta(days=offset)).isoformat()


@dataclass(frozen=True)
class _Fleet:
    """Vehicles ordered by registration, so a weighing only uses trucks registered by then."""

    trucks: list[tuple[str, float, float, str]]  # plate, tare, capacity, transporter
    available: list[int]  # per weighing day: how many trucks were registered by that day


# --- master tables ----------------------------------------------------------------------------

def _customers(rng: random.Random) -> list[dict[str, Any]]:
    records = []
    parties = ([(f"SUP{i:03d}", *s, "Pemasok") for i, s in enumerate(_SUPPLIERS, 1)]
               + [(f"CUS{i:03d}", *b, "Pelanggan") for i, b in enumerate(_BUYERS, 1)])
    for n, (code, name, address, city, kind) in enumerate(parties, 1):
        phone = _phone(rng, city) if rng.random() < 0.85 else (
            _mobile(rng) if rng.random() < 0.7 else None)
        remark = rng.choice((kind, kind, None, None, None, "Tempo 30 hari", "COD"))
        records.append({"id": n, "CustCode": code, "CustName": name, "Address": address,
                        "City": city, "Phone": phone,
                        "Contact": rng.choice(_PEOPLE) if rng.random() < 0.8 else None,
                        "Remark": remark})
    return records


def _products() -> list[dict[str, Any]]:
    items = ([(code, name, unit, "Bahan baku") for code, name, unit, *_ in _RAW_MATERIALS]
             + [(code, name, unit, "Produk jadi") for code, name, unit, *_ in _PRODUCTS_OUT])
    return [{"id": n, "ProductCode": code, "ProductName": name, "Unit": unit,
             "Remark": remark if n % 4 else None}
            for n, (code, name, unit, remark) in enumerate(items, 1)]


def _transporters(rng: random.Random) -> list[dict[str, Any]]:
    records = []
    for n, (name, city) in enumerate(_TRANSPORTERS, 1):
        records.append({
            "id": n, "TransCode": f"TR{n:02d}", "TransName": name,
            "Address": f"{rng.choice(_STREETS)} No. {rng.randint(1, 250)}, {city}",
            "Phone": _phone(rng, city) if rng.random() < 0.9 else None,
            "Contact": _mobile(rng) if rng.random() < 0.3 else rng.choice(_PEOPLE),
            "Remark": rng.choice((None, None, None, "Kontrak tahunan", "Borongan per rit")),
        })
    return records


def _vehicles(rng: random.Random, count: int, cal: _Calendar,
              registered_days: int) -> tuple[list[dict[str, Any]], _Fleet]:
    """Trucks registered over `registered_days` days up to the last day; the first dozen
    before weighing starts, so that every weighing day has trucks to weigh."""
    plates: dict[str, None] = {}  # a dict, not a set: its order does not depend on hashing
    while len(plates) < count:
        plates[f"{rng.choice(_PLATE_AREAS)} {rng.randint(8000, 9999)} "
               f"{''.join(rng.choices(_PLATE_LETTERS, k=rng.choice((1, 2, 2, 3))))}"] = None
    # Registration days as offsets from the first weighing day (negative: before it).
    before = registered_days - cal.days
    offsets = sorted([-rng.randint(1, max(1, before)) for _ in range(12)]
                     + [rng.randint(-before, cal.days - 1) for _ in range(count - 12)])
    records = []
    trucks = []
    for n, (plate, offset) in enumerate(zip(plates, offsets, strict=True), 1):
        body, (cap_lo, cap_hi), (tare_lo, tare_hi) = rng.choice(_TRUCK_TYPES)
        capacity = float(rng.randint(cap_lo // 500, cap_hi // 500) * 500)
        tare = float(rng.randint(tare_lo // 10, tare_hi // 10) * 10)
        transcode = f"TR{rng.randint(1, len(_TRANSPORTERS)):02d}"
        created = cal.first + timedelta(days=offset)
        jam_create = _clock(rng.randint(7 * 3600, 16 * 3600))
        # Registration (KIR) runs a year; some trucks have no expiry recorded.
        if rng.random() < 0.05:
            tgl_expired = jam_expired = None
        else:
            tgl_expired = (created + timedelta(days=rng.choice((365, 365, 365, 730)))).isoformat()
            jam_expired = None if rng.random() < 0.3 else jam_create
        records.append({
            "id": n, "Number": plate, "BeingWeighed": "1" if rng.random() < 0.03 else "0",
            "Capacity": capacity, "CapacityUnit": 1.0, "Tare": tare, "TareUnit": 1.0,
            "TransCode": transcode, "UseTare": "Y" if rng.random() < 0.25 else "N",
            "Opt1": body, "Opt2": rng.choice((None, None, None, "GPS", "Terpal", "Sewa")),
            "tgl_create": created.isoformat(), "jam_create": jam_create,
            "tgl_expired": tgl_expired, "jam_expired": jam_expired,
        })
        trucks.append((plate, tare, capacity, transcode))
    available = [max(1, bisect_right(offsets, d)) for d in range(cal.days + 2)]
    return records, _Fleet(trucks, available)


# --- weighing-shaped tables -------------------------------------------------------------------

def _weighted(pairs: Iterable[tuple[Any, int]]) -> list[Any]:
    """A pool to draw from with pool[int(random() * len(pool))]: cheaper than choices()."""
    return [item for item, weight in pairs for _ in range(weight)]


class _LegacyIds:
    """A legacy table's ids: mostly increasing, with gaps (deleted rows) and a few swaps (a
    row saved one late)."""

    def __init__(self, r: Callable[[], float]):
        self.r = r
        self.next_id = 10001 + int(r() * 5000)
        self.held: int | None = None  # an id written one row late

    def take(self) -> int:
        r = self.r
        if self.held is not None:
            row_id, self.held = self.held, None
        elif r() < 0.004:
            row_id, self.held = self.next_id + 1, self.next_id
            self.next_id += 2
        else:
            row_id = self.next_id
            self.next_id += 1
        if r() < 0.01:
            self.next_id += 1 + int(r() * 20)
        return row_id


class _Loads:
    """What a weighing carries, in or out: the trade's lists drawn from, built once."""

    def __init__(self) -> None:
        # Suppliers deliver what they sell; RM001-RM003 are sand, whose moisture is noted.
        self.inbound = _weighted(((sup, code, loc, code <= "RM003"), weight)
                                 for code, _, _, loc, sups, weight in _RAW_MATERIALS
                                 for sup in sups)
        self.outbound = _weighted(((code, loc), weight)
                                  for code, _, _, loc, weight in _PRODUCTS_OUT)
        self.buyers = [f"CUS{i:03d}" for i in range(1, len(_BUYERS) + 1)]

    def draw(self, r: Callable[[], float], i: int, tgl1: str, tare: float, load: float
             ) -> tuple[Any, ...]:
        """(product, location, custcode, weigh1, weigh2, dono, lot, sealno, mai, opt1)."""
        if r() < 0.18:  # a dispatch: enters empty, leaves loaded
            product, location = self.outbound[int(r() * len(self.outbound))]
            custcode = self.buyers[int(r() * len(self.buyers))]
            dono = f"DO/{tgl1[2:4]}{tgl1[5:7]}/{i % 100000:05d}"
            lot = f"LOT{tgl1[2:4]}{tgl1[5:7]}{tgl1[8:10]}-{1 + int(r() * 3)}"
            sealno = f"SG{100000 + int(r() * 900000)}" if r() < 0.4 else None
            return product, location, custcode, tare, tare + load, dono, lot, sealno, None, None
        custcode, product, location, sand = self.inbound[int(r() * len(self.inbound))]
        dono = f"SJ-{int(r() * 90000) + 10000}" if r() < 0.7 else None  # delivery: gross in
        mai = f"{2 + r() * 6:.1f}" if sand else None  # moisture of sand, percent
        opt1 = f"PO-{tgl1[2:4]}{tgl1[5:7]}-{int(r() * 300) + 1:04d}" if r() < 0.5 else None
        return product, location, custcode, tare + load, tare, dono, None, None, mai, opt1


def _exit_weighing(r: Callable[[], float], t1: int, last_second: int,
                   cal: _Calendar) -> tuple[Any, ...] | None:
    """(tgl2, jam2, operator2, source2, unit2, tgl_u, jam_u, editedby) of the exit weighing a
    few minutes to a few hours after `t1`; None if it was not done by the end."""
    t2 = t1 + 300 + int(r() * r() * 10500)
    if r() < 0.03 or t2 > last_second:
        return None
    dates, times = cal.dates, cal.times
    d2 = t2 // _DAY
    tgl2, jam2 = dates[d2], times[t2 - d2 * _DAY]
    operator2 = _WB_OPERATORS[int(r() * len(_WB_OPERATORS))]
    source2 = 1.0 if r() < 0.97 else 2.0
    u, editedby = r(), None
    if u < 0.9:  # saved once at the exit weighing
        tgl_u, jam_u = tgl2, jam2
    elif u < 0.95:  # corrected later by a supervisor
        tu = min(t2 + int(r() * 3 * _DAY), last_second)
        du = tu // _DAY
        tgl_u, jam_u = dates[du], times[tu - du * _DAY]
        editedby = _EDITORS[int(r() * len(_EDITORS))]
    else:  # an older program version that never stamped updates
        tgl_u = jam_u = None
    return tgl2, jam2, operator2, source2, 1.0, tgl_u, jam_u, editedby


def _weighing_rows(rng: random.Random, table: str, count: int, cal: _Calendar,
                   fleet: _Fleet) -> Iterator[tuple[Any, ...]]:
    """`count` weighings in the order they were made, spread evenly over the calendar.

    This runs a million times for a benchmark database, so it draws only random() and indexes
    precomputed lists and strings; the order of the draws is the demo's data.
    """
    r = rng.random
    dates, times, trucks, available = cal.dates, cal.times, fleet.trucks, fleet.available
    loads = _Loads()
    people, operators, remarks = _PEOPLE, _WB_OPERATORS, _WB_REMARKS
    n_people, n_ops, n_rem = len(people), len(operators), len(remarks)
    bridge, prefix = _BRIDGES[table], _TICKET_PREFIX[table]
    ids = _LegacyIds(r) if table != "transactions" else None
    last_second = cal.days * _DAY - 1
    step = cal.days * _OPEN_SECONDS / count
    for i in range(count):
        # Entry weighing: row i falls in its own slot, so dt1 grows with the row.
        w = (i + r() * 0.95) * step
        day = int(w // _OPEN_SECONDS)
        t1 = day * _DAY + _OPEN_FROM + int(w - day * _OPEN_SECONDS)
        row_id = ids.take() if ids is not None else i + 1
        plate, tare, capacity, transcode = trucks[int(r() * available[day])]
        tare_now = tare + 10.0 * int(r() * 11 - 5)  # fuel, driver, mud: +/- 50 kg
        load = 10.0 * int(capacity * (0.55 + 0.5 * r()) / 10)  # some trucks run overloaded
        tgl1, jam1 = dates[day], times[t1 - day * _DAY]
        (product, location, custcode, weigh1, weigh2, dono, lot, sealno, mai,
         opt1) = loads.draw(r, i, tgl1, tare_now, load)
        if bridge is None:
            wb1 = "WB-01" if r() < 0.6 else "WB-02"
            wb2 = wb1 if r() < 0.8 else ("WB-02" if wb1 == "WB-01" else "WB-01")
        else:
            wb1 = wb2 = bridge
        exit_weighing = _exit_weighing(r, t1, last_second, cal)
        if exit_weighing is None:  # still on the bridge: no exit weighing
            pending, weigh2, wb2 = "Y", None, None
            tgl2 = jam2 = operator2 = source2 = unit2 = tgl_u = jam_u = editedby = None
        else:
            pending = "N"
            tgl2, jam2, operator2, source2, unit2, tgl_u, jam_u, editedby = exit_weighing
        yield (
            row_id, "0", "1" if pending == "Y" and r() < 0.3 else "0",
            # A deduction (sortasi) now and then: 1 to 3 % of the net, in kg, positive.
            0.0, (10.0 * int(abs(weigh1 - (weigh1 if weigh2 is None else weigh2))
                             * (0.01 + 0.02 * r()) / 10) if r() < 0.02 else 0.0), custcode,
            1.0 if wb1 == "WB-01" else 2.0, dono, people[int(r() * n_people)], editedby,
            None if r() < 0.98 else "0", jam1, jam1, jam2, jam_u,
            location, lot, mai, None if r() < 0.97 else f"CT{int(r() * 9000) + 1000}",
            operators[int(r() * n_ops)], operator2, opt1, None if r() < 0.95 else "Rit 2",
            pending, None if r() < 0.96 else f"PL3-{int(r() * 9000) + 1000}", product,
            f"{prefix}{i + 1:07d}", remarks[int(r() * n_rem)] if r() < 0.08 else None, sealno,
            tgl1, tgl1, tgl2, tgl_u, transcode if r() < 0.95 else None, plate, wb1, wb2,
            weigh1, weigh2, 1.0 if r() < 0.97 else 2.0, source2, 1.0, unit2,
            1 if i * _HASH & 0xFFFF < _CANCELLED else 0,
        )


# --- production tables ------------------------------------------------------------------------

def _batch_times(rng: random.Random, count: int, cal: _Calendar) -> list[tuple[int, int]]:
    """(day, second) of `count` batches: production days walked back from the last day, a
    batch every 20-40 minutes through the 07:00-15:00 shift, spaced so they span the calendar."""
    per_day = 8 * 60 // 30
    gap = max(1.0, cal.days / math.ceil(count / per_day))
    days: list[list[tuple[int, int]]] = []
    day, total = cal.days - 1, 0
    while total < count:
        second, batches = 7 * 3600 + rng.randint(0, 900), []
        while second < 15 * 3600:
            batches.append((day, second))
            second += rng.randint(20 * 60, 40 * 60)
        days.append(batches)
        total += len(batches)
        day -= max(1, round(gap * (0.5 + rng.random())))
    times = [t for batches in reversed(days) for t in batches]
    return times[len(times) - count:]


def _production(rng: random.Random, count: int, cal: _Calendar, plant: int,
                with_id: bool) -> list[dict[str, Any]]:
    records = []
    month, batch_no, recipe = "", 0, 1
    setpoints = dict(_RECIPES[recipe][1])
    times = _batch_times(rng, count, cal)
    for n, (day, second) in enumerate(times, 1):
        tanggal = cal.day(day)
        if tanggal[:7] != month:  # no_produksi_ counts the batches of each month
            month, batch_no = tanggal[:7], 0
        batch_no += 1
        if rng.random() < 0.03:  # a product change: new recipe, fresh set points
            recipe = rng.choice(list(_RECIPES))
            setpoints = dict(_RECIPES[recipe][1])
        elif rng.random() < 0.05:  # the operator trims one set point by a percent or two
            group = rng.choice(MATERIAL_GROUPS)
            base = _RECIPES[recipe][1][group]
            setpoints[group] = base + round(base * rng.uniform(-0.02, 0.02))
        temp_sv = _RECIPES[recipe][0]
        record: dict[str, Any] = {"id": n} if with_id else {}
        record.update({
            "no_produksi": plant * 1_000_000 + int(month[:4]) * 100 + int(month[5:7]),
            "no_produksi_": batch_no,
            "tanggal": tanggal,
            "jam": _clock(second) if rng.random() > 0.01 else None,
            "operator_name": rng.choice(_PLANT_OPERATORS),
            "mode_operator": "AUTO" if rng.random() < 0.9 else "MANUAL",
            "recipe": recipe,
            "level_change": rng.choice((0, 0, 0, 1, 1, 2, 3)),
            # The ERP pulls batches a few days late; the newest are not pulled yet.
            "isproses": 0 if n > count * 0.97 else 1,
            "temperature_sv": temp_sv,
            "temperature_pv": temp_sv + rng.choice((-1, 0, 0, 0, 1)),
            "temperature_corr": rng.choice((0, 0, 0, 0, 1, -1)),
            "temperature_note": None if rng.random() < 0.98 else "suhu rendah – tunggu pemanas",
        })
        for group in MATERIAL_GROUPS:
            sv = setpoints[group]
            # Load cells land within ~1.5 % of the set point; aluminium is typed in by hand.
            spread = 0.005 if group == "aluminium" else 0.015
            pv = sv + round(sv * spread * (rng.random() + rng.random() - 1))
            record[f"{group}_before_add"] = 0 if group == "aluminium" else rng.randint(0, 25)
            record[f"{group}_corr"] = rng.choice((0, 0, 0, 0, 0, 1, -1, 2, -2, 5))
            record[f"{group}_note"] = None if rng.random() < 0.97 else rng.choice(_BATCH_NOTES)
            record[f"{group}_pv"] = pv
            record[f"{group}_sv"] = sv
        records.append(record)
    return records


# --- building ---------------------------------------------------------------------------------

# From this many weighing rows on, each weighing table is built in a worker process of its own
# and copied in: generating and binding rows in Python is the slow part, and so it runs on every
# core, and each table's indexes are built once after its rows rather than row by row.
PARALLEL_MIN_ROWS = 200_000


def sizes(rows: int | None) -> tuple[dict[str, int], int, int]:
    """Rows per weighing table, batches per production table, and days of weighing."""
    if rows is None:
        return dict(DEFAULT_WEIGHING), DEFAULT_PRODUCTION, DEFAULT_SPAN_DAYS
    if rows < 1:
        raise ValueError(f"rows must be at least 1, not {rows}")
    weighing = {"transactions": rows, "weighing": rows, "timbangan1": max(1, rows // 2),
                "timbangan2": max(1, rows // 2)}
    # Keep the default's rows per day until the span reaches ten years, then grow denser.
    per_day = DEFAULT_WEIGHING["transactions"] / DEFAULT_SPAN_DAYS
    days = min(MAX_SPAN_DAYS, max(DEFAULT_SPAN_DAYS, round(rows / per_day)))
    # Production grows too, more slowly: a plant batches far less often than it weighs.
    return weighing, max(DEFAULT_PRODUCTION, rows // 100), days


def _rng(seed: int, table: str) -> random.Random:
    # One stream per table: the same whichever process builds it, and a change to one table's
    # data leaves the others as they were.
    return random.Random(f"{seed}:{table}")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    # A private file until it is renamed into place: no journal or fsync needed while building.
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-131072")  # 128 MiB: index pages stay in memory
    return conn


def _fill_weighing(conn: sqlite3.Connection, table: str, count: int, seed: int,
                   span_days: int) -> None:
    columns = _table_columns(conn, table)
    if columns != WEIGHING_COLUMNS:
        raise RuntimeError(f"the {table} table's columns differ from WEIGHING_COLUMNS; "
                           "update app/commands/demo.py to match")
    # The fleet is rebuilt from its own seed, so a worker process draws the same trucks.
    cal = _Calendar.ending(END_DATE, span_days)
    _, fleet = _vehicles(_rng(seed, "vehicles"), 120, cal, max(730, span_days + 180))
    conn.execute("BEGIN")
    _insert(conn, table, columns, _weighing_rows(_rng(seed, table), table, count, cal, fleet))
    conn.execute("COMMIT")


def _build_part(part: Path, table: str, count: int, seed: int, span_days: int) -> None:
    """One weighing table, alone in a file of its own (run in a worker process).

    Its indexes are made after the rows are in (a sorted build beats updating five indexes per
    row); they are those of app/model/tables.py, so the copy into the demo file keeps them as they
    are.
    """
    part.unlink(missing_ok=True)
    conn = _connect(part)
    try:
        conn.executescript(";\n".join(tables.table_statements("sqlite", voids=True)) + ";")
        _fill_weighing(conn, table, count, seed, span_days)
        conn.executescript(";\n".join(tables.index_statements("sqlite")) + ";")
    finally:
        conn.close()


def _run_part(part: Path, table: str, count: int, seed: int, span_days: int) -> str:
    # A fresh interpreter rather than multiprocessing: nothing of the caller's __main__ is
    # re-imported (a script without a __main__ guard, stdin, a Flask CLI entry point all work),
    # and the same on Linux and Windows.
    if not sys.executable:  # an embedded interpreter cannot start another: build it here
        _build_part(part, table, count, seed, span_days)
        return table
    code = f"import sys; from {__name__} import _build_part_main; _build_part_main(sys.argv[1:])"
    root = str(Path(__file__).resolve().parents[2])  # where the `app` package is imported from
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    args = [str(part), table, str(count), str(seed), str(span_days)]
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, check=False)
    if done.returncode:
        raise RuntimeError(f"building the demo table {table} failed "
                           f"(worker exit status {done.returncode}; its error is above)")
    return table


def _build_part_main(argv: list[str]) -> None:
    part, table, count, seed, span_days = argv
    _build_part(Path(part), table, int(count), int(seed), int(span_days))


def _copy_part(conn: sqlite3.Connection, part: Path, table: str) -> None:
    # Into an empty table with the same columns and indexes, SQLite copies the records and the
    # index entries as they are (its transfer optimisation), without re-encoding any row.
    # On an error the whole file is thrown away, so there is nothing to roll back or detach.
    conn.execute("ATTACH DATABASE ? AS part", (str(part),))
    conn.execute("BEGIN")
    conn.execute(f'INSERT INTO main."{table}" SELECT * FROM part."{table}"')
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE part")


def _fill(conn: sqlite3.Connection, tmp: Path, rows: int | None, seed: int) -> None:
    weighing_sizes, batches, span_days = sizes(rows)
    cal = _Calendar.ending(END_DATE, span_days)
    in_parts = sum(weighing_sizes.values()) >= PARALLEL_MIN_ROWS
    with ExitStack() as stack:
        futures: list[Future[str]] = []
        parts = {table: tmp.with_name(f"{tmp.stem}.{table}.tmp") for table in weighing_sizes}
        if in_parts:
            for part in parts.values():
                stack.callback(part.unlink, missing_ok=True)
            # The workers are processes, these threads only wait for them.
            pool = ThreadPoolExecutor(min(len(parts), os.cpu_count() or 1))
            # Registered after the clean-up above, so it runs first: no worker writes a part
            # after it was removed. On an error the parts not started yet are cancelled.
            stack.callback(pool.shutdown, wait=True, cancel_futures=True)
            # Biggest first, so that the workers finish at about the same time.
            for table, count in sorted(weighing_sizes.items(), key=lambda item: -item[1]):
                futures.append(pool.submit(_run_part, parts[table], table, count, seed,
                                           span_days))

        # The small tables meanwhile, in this process.
        conn.execute("BEGIN")
        _insert_records(conn, "customers", _customers(_rng(seed, "customers")))
        _insert_records(conn, "products", _products())
        _insert_records(conn, "transporters", _transporters(_rng(seed, "transporters")))
        vehicles, _ = _vehicles(_rng(seed, "vehicles"), 120, cal, max(730, span_days + 180))
        _insert_records(conn, "vehicles", vehicles)
        for table, plant, with_id in (("bricon2", 2, False), ("biao1", 1, True)):
            records = _production(_rng(seed, table), batches, cal, plant, with_id)
            if tuple(records[0]) != _table_columns(conn, table):
                raise RuntimeError(f"the {table} table's columns differ from the generated ones")
            _insert_records(conn, table, records)
        conn.execute("COMMIT")

        if in_parts:
            for future in as_completed(futures):
                table = future.result()
                _copy_part(conn, parts[table], table)
                parts[table].unlink()
        else:
            for table, count in weighing_sizes.items():
                _fill_weighing(conn, table, count, seed, span_days)


def build_demo_database(path: Path, rows: int | None = None, seed: int = 2026) -> dict[str, int]:
    """Create the demo SQLite database at `path` and return the number of rows per table.

    `rows` sets the size of `transactions` for benchmarks (weighing gets as many, timbangan1 and
    timbangan2 half as many); by default the database is a few thousand rows. The same seed
    always gives the same content. The file is built beside `path` and moved into place at the
    end, so a reader never sees a half-built database; an existing file is replaced.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Hidden, in the same directory (os.replace cannot cross file systems), one per process.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        conn = _connect(tmp)
        try:
            conn.executescript(tables.script("sqlite", voids=True))
            _fill(conn, tmp, rows, seed)
            # Statistics, as a DBA keeps them on SQL Server: without them SQLite takes the
            # vehno index for `?vehno=` inside a date range, which reads a truck's every
            # weighing, over the date index, which reads the range. Sampled: seconds at 1M.
            conn.execute("PRAGMA analysis_limit = 2000")
            conn.execute("ANALYZE")
            counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                      for t in TABLES}
        finally:
            conn.close()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return counts


@click.command("demo-db")
@click.option("--rows", type=click.IntRange(min=1), default=None,
              help="Rows in transactions, for benchmarks (weighing gets as many, timbangan1 "
                   "and timbangan2 half as many). Default: a demo of a few thousand rows.")
@click.option("--seed", type=int, default=2026, show_default=True,
              help="Random seed; the same seed gives the same database.")
@click.option("--path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the database. Default: the configured database.sqlite.")
@click.option("--force", is_flag=True, help="Replace the file if it already exists.")
def demo_db(rows: int | None, seed: int, path: Path | None, force: bool) -> None:
    """Create the demo SQLite database with realistic plant data."""
    # No app context on purpose: the app refuses to start until this file exists.
    if path is None:
        from app.ops.config import ConfigError, load_settings

        try:
            path = load_settings().database.sqlite
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
    if path.exists() and not force:
        click.echo(f"{path} already exists; left as it is (use --force to replace it).")
        return
    started = time.perf_counter()
    counts = build_demo_database(path, rows=rows, seed=seed)
    click.echo(f"Wrote the demo database {path} in {time.perf_counter() - started:.1f} s:")
    for table, count in counts.items():
        click.echo(f"  {table:<13} {count:>10,} rows")


def write_void_mapping(out: Path | str, shipped: Path = SHIPPED_SQL_DIR) -> Path:
    """`out`, made a sql_dir that shows the demo's voided tickets: the shipped mapping with
    each weighing collection's `0 AS "cancelled"` read from the demo's flag column instead,
    the one-line change docs/adapting.md gives ("Cancelled tickets")."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for source in sorted(p for p in shipped.iterdir() if p.is_file()):
        text = source.read_text(encoding="utf-8")
        if source.suffix == ".sql" and NO_VOIDS in text:
            if text.count(NO_VOIDS) != 1:
                raise ValueError(f"{source}: {NO_VOIDS} more than once")
            text = text.replace(NO_VOIDS, VOID_FLAG)
        (out / source.name).write_text(text, encoding="utf-8")
    return out
