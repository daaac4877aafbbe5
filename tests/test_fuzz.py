"""Property-based fuzzing of the whole API with schemathesis, from the service's own
/openapi.json, through the WSGI app, over a small real SQLite database.

Every operation of the document is tested, with data that fits its schema (positive) and data
that does not (negative: a malformed input must be a documented 400, never a 5xx). A fixed
seed and a bounded number of examples per operation keep the run reproducible and short.
"""

from __future__ import annotations

import atexit
import collections
import datetime as dt
import logging
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import schemathesis
from conftest import build_database
from schemathesis import GenerationMode
from schemathesis.core.result import Ok
from schemathesis.generation.feedback import FeedbackSources
from schemathesis.pytest._test_builder import build_operation_test
from schemathesis.python._constants.orchestrator import make_constants_value_source

from app import create_app
from tests.contract import COLLECTIONS

SEED = 20261122
MAX_EXAMPLES = 40  # Hypothesis examples per operation; the coverage phase adds its own

# A NULL in every kind of column, and text beyond ASCII: Latin, Indonesian, CJK, an emoji,
# a right-to-left script, quotes and a backslash.
UNICODE = ["Ünïcødé — «Jembatan»", "東京セメント", "Šuma 🚚", "شركة", "O'Brien \"\\\""]


def _weighing(key: int | None, day: str | None, clock: str | None, text: str | None
              ) -> dict[str, Any]:
    return {"id": key, "accessedbyanother": "N", "beingaccessedbyuser": None,
            "adjustunit": 1.0, "adjustweigh": None, "custcode": "C001", "detctid": 3.25,
            "dono": text, "drivername": text, "jam_create": clock, "jam_dt1": clock,
            "jam_dt2": None, "jam_update": "23:59:59.999999", "tgl_create": day,
            "tgl_dt1": day, "tgl_dt2": None, "tgl_update": "2026-11-02", "vehno": "B 1234 XY",
            "weigh1": 31250.5, "weigh2": None, "weighsource1": 0.0, "weighunit1": -1.5}


def _production(n: int | None, day: str | None, clock: str | None, text: str | None
                ) -> dict[str, Any]:
    return {"no_produksi": n, "no_produksi_": None if n is None else n * 10, "tanggal": day,
            "jam": clock, "operator_name": text, "mode_operator": "AUTO", "recipe": 7,
            "temperature_sv": 80, "temperature_pv": None, "temperature_note": text,
            "adonan_sv": 1200, "adonan_pv": 1198, "air_note": None, "silo_2_sv": -3}


_WEIGHINGS = [_weighing(1, "2026-11-01", "07:05:00", UNICODE[0]),
              _weighing(2, "2026-11-01", None, UNICODE[1]),
              _weighing(3, None, "08:00:00", None),
              _weighing(4, "2026-12-31", "07:05:00.5", UNICODE[3])]
_PRODUCTIONS = [_production(1, "2026-11-01", "06:00:00", UNICODE[2]),
                _production(2, "2026-11-01", None, None),
                _production(None, None, None, UNICODE[4])]

TABLES: dict[str, list[dict[str, Any]]] = {
    "customers": [
        {"id": 1, "CustCode": "C001", "CustName": "PT Sinar Jaya", "Address": "Jl. Merdeka 5",
         "City": "Bekasi", "Phone": "021-555", "Contact": "Budi", "Remark": ""},
        {"id": 2, "CustCode": "C002", "CustName": UNICODE[1], "City": UNICODE[0]},
        {"id": 3},  # every other column NULL
    ],
    "products": [
        {"id": 1, "ProductCode": "P001", "ProductName": "Semen", "Unit": "kg", "Remark": None},
        {"id": 2, "ProductCode": "P002", "ProductName": UNICODE[2], "Unit": None},
    ],
    "transporters": [
        {"id": 1, "TransCode": "T001", "TransName": "CV Angkut", "Phone": "0812"},
        {"id": 2, "TransCode": None, "TransName": UNICODE[3], "Remark": UNICODE[4]},
    ],
    "transactions": _WEIGHINGS,
    "vehicles": [
        {"id": 1, "Number": "B 1234 XY", "Capacity": 30000.0, "Tare": 9500.25,
         "TransCode": "T001", "tgl_create": "2026-11-01", "jam_create": "07:05:00",
         "tgl_expired": "2027-11-01", "jam_expired": None},
        {"id": 2, "Number": UNICODE[0], "tgl_create": None, "jam_create": "08:00:00",
         "tgl_expired": "2026-12-31", "jam_expired": "23:59:59.5"},
    ],
    "bricon2": _PRODUCTIONS,
    "weighing": _WEIGHINGS,
    "timbangan1": _WEIGHINGS[:2],
    "timbangan2": _WEIGHINGS[2:],
    "biao1": [{"id": k, **row} for k, row in zip((1, 2, None), _PRODUCTIONS, strict=True)],
}

# The checks this test must run; schemathesis runs every enabled built-in check (these, plus
# negative_data_rejection, positive_data_acceptance, unsupported_method, ...).
REQUIRED_CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance",
                   "response_schema_conformance", "response_headers_conformance",
                   "negative_data_rejection", "positive_data_acceptance")

# operation label -> examples sent, reported at the end of the module (`pytest -s` shows it)
SENT: collections.Counter[str] = collections.Counter()

# Loaded at import, for the operations' labels: one test item per operation. Each item builds
# its Hypothesis test (with the coverage phase's cases, some 21,000 in all) when it runs, as
# the schemathesis pytest plugin's own builder (build_operation_test, same seed per operation)
# would at collection: `@schema.parametrize()` built all 53 there, some 50 s of CPU paid by
# every run that collects this module, also `pytest -m mssql`, which runs none of them. A lazy
# schema from a fixture (schemathesis.pytest.from_fixture) fails under pytest 9 ("'Function'
# object has no attribute '_nodeid'"). The directory goes when pytest exits, also when this
# module was only collected.
_DIRECTORY = Path(tempfile.mkdtemp(prefix="jembatan-fuzz-"))
atexit.register(shutil.rmtree, _DIRECTORY, ignore_errors=True)
_DATABASE = build_database(_DIRECTORY / "fuzz.sqlite3", TABLES)
_SERVICE = create_app({"database": {"sqlite": str(_DATABASE)}})
config = schemathesis.Config(seed=SEED)  # explicit: no schemathesis.toml is looked for
config.projects.default.generation.update(
    max_examples=MAX_EXAMPLES, modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    database="none")  # no example database: the same examples on every run
schema = schemathesis.openapi.from_wsgi("/openapi.json", _SERVICE, config=config)


@pytest.fixture(scope="module", autouse=True)
def _quiet() -> Iterator[None]:
    access = logging.getLogger("jembatan.access")
    access.disabled = True  # a line per example would bury an error logged on a 500
    yield
    access.disabled = False
    print(f"\nschemathesis: {len(SENT)} operations, {SENT.total()} examples")


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_CLOCK = re.compile(r"[0-9]{2}:[0-9]{2}(:[0-9]{2})?", re.ASCII)


def _seconds(clock: str) -> str:
    return clock if len(clock) == 8 else f"{clock}:00"  # HH:MM means HH:MM:00


def _bounds_in_order(case: Any) -> None:
    """A range whose start is after its end is a 400 (docs/api.md §5.5), a rule between two
    parameters that OpenAPI cannot state: a positive example gets its bounds in order, so
    that positive_data_acceptance judges the rest of it. Negative examples are left alone."""
    p = case.path_parameters or {}
    names = ("tglawal", "jam_awal", "tglakhir", "jam_akhir")
    if case.meta is None or not case.meta.generation.mode.is_positive or not all(
            isinstance(p.get(n), str) for n in names):
        return
    # schemathesis holds path values percent-encoded: '07%3A30'
    day1, clock1, day2, clock2 = (unquote(p[n]) for n in names)
    if not (_DAY.fullmatch(day1) and _DAY.fullmatch(day2) and _CLOCK.fullmatch(clock1)
            and _CLOCK.fullmatch(clock2)):
        return
    if (day1, _seconds(clock1)) > (day2, _seconds(clock2)):
        # Decoded: schemathesis revalidates an edited value as it stands, and would take
        # '07%3A30' for a value that breaks the pattern, making the example a negative one.
        # Digits, '-' and ':' need no encoding in a path.
        p.update(tglawal=day2, jam_awal=clock2, tglakhir=day1, jam_akhir=clock1)


def _feed_arguments(case: Any) -> None:
    """A bookmark is valid only as the service wrote it, and `after` and `since` exclude each
    other (docs/api.md §5.11), rules OpenAPI cannot state: a positive example of /<c>/changes
    keeps neither a made-up `after` nor a `since` that is no date of the calendar (February
    30th fits the pattern). Malformed bookmarks are tests/test_changes.py's."""
    query = case.query
    if (case.meta is None or not case.meta.generation.mode.is_positive
            or not case.operation.path.endswith("/changes") or not query):
        return
    query.pop("after", None)
    since = query.get("since")
    if isinstance(since, str):
        try:
            dt.datetime.fromisoformat(since)
        except ValueError:
            del query["since"]


OPERATIONS = {(r.ok() if isinstance(r, Ok) else r.err()).label: r
              for r in schema.get_all_operations()}


def _check(case: Any) -> None:
    SENT[case.operation.label] += 1
    _bounds_in_order(case)
    _feed_arguments(case)
    case.call_and_validate()


@pytest.mark.parametrize("label", OPERATIONS)
def test_api(label: str) -> None:
    # An operation the document describes wrongly fails here, with schemathesis' error.
    fuzz = build_operation_test(
        config=schema.config, operation=OPERATIONS[label].ok(), test_func=_check, given_kwargs={},
        feedback=FeedbackSources(constants_value_source=make_constants_value_source(schema)))
    fuzz()


def test_every_operation_was_fuzzed() -> None:
    """Runs after test_api: no operation of the document was left out, and the checks that
    matter were on."""
    checks = config.projects.default.checks
    assert [c for c in REQUIRED_CHECKS if not checks.get_by_name(name=c).enabled] == []
    if not SENT:
        pytest.skip("test_api did not run: nothing to count")
    operations = {result.ok().label for result in schema.get_all_operations()}
    # Each collection: its list, page and record; each dated one also its range, summary
    # and feed; then / and /health (tests/contract.py: every dated collection summarises).
    dated = sum(1 for _, _, dates in COLLECTIONS.values() if dates)
    assert len(operations) == 3 * len(COLLECTIONS) + 3 * dated + 2, sorted(operations)
    assert operations - set(SENT) == set(), "operations not fuzzed (run the whole module)"
