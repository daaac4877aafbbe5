"""`draft-mapping` on tables nobody here designed (tests/draft_corpus/README.md): weighbridge
and batching tables from public projects, each with the mapping a person wrote for it before
any draft ran on it. Each table is built as a SQLite file, drafted through the real command,
and its drafted sources compared with the expected ones (tests/corpus.py).

Asserted: at least 80 % of the mappable fields right over the corpus, no table under 60 %,
every miss a `-- TODO` line whose hints name the expected column. `pytest -s` prints the
figures per table; bench/draft_corpus.py prints them for any checkout without asserting.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.corpus import (
    CORPUS,
    TABLE_AT_LEAST,
    TOTAL_AT_LEAST,
    Case,
    Score,
    build,
    cases,
    columns_of,
    digits,
    fields_of,
    render,
    report,
    score,
)

CASES = cases()
# Tables held out of the measure (tests/draft_corpus/README.md): their files are checked here,
# the draft's share on them is bench/draft_corpus.py's to print.
HELD_OUT = cases(CORPUS / "heldout")


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> list[Score]:
    directory = tmp_path_factory.mktemp("draft-corpus")
    measured = [score(case, directory) for case in CASES]
    print("\n" + report(measured))
    return measured


def test_the_corpus_has_ten_tables_two_of_them_batching_and_three_held_out() -> None:
    assert len(CASES) >= 10
    assert len(HELD_OUT) >= 3
    assert sum(1 for c in CASES if c.collection in ("bricon2", "biao1")) >= 2


@pytest.mark.parametrize("case", CASES + HELD_OUT, ids=lambda c: c.name)
def test_each_expected_file_names_every_field_of_its_record_once(case: Case) -> None:
    named = [*case.expected, *case.unmapped]
    assert sorted(named) == sorted(fields_of(case.collection))


def _expected_sources_run(case: Case, database: Path) -> None:
    con = sqlite3.connect(database)
    try:
        columns = {row[1] for row in con.execute(f'PRAGMA table_info("{case.table}")')}
        for name, form in case.expected.items():
            assert set(columns_of(form)) <= columns, name
            for text in render(form):
                con.execute(f'SELECT {text} FROM "{case.table}"').fetchall()
            if isinstance(form, dict) and "digits_of" in form:  # the digits are a key
                keys = [digits(v) for (v,) in con.execute(
                    f'SELECT "{form["digits_of"]}" FROM "{case.table}"')]
                assert None not in keys and len(set(keys)) == len(keys), name
    finally:
        con.close()


@pytest.mark.parametrize("case", CASES + HELD_OUT, ids=lambda c: c.name)
def test_each_expected_source_reads_its_table(case: Case, tmp_path: Path) -> None:
    _expected_sources_run(case, build(case, tmp_path))


def test_the_draft_gets_most_mappable_fields_right_over_the_corpus(scores: list[Score]) -> None:
    got = sum(len(s.right) for s in scores)
    total = sum(len(s.case.expected) for s in scores)
    assert 100.0 * got / total >= TOTAL_AT_LEAST, f"{got} of {total}"


def test_no_table_is_drafted_under_sixty_per_cent(scores: list[Score]) -> None:
    low = {s.case.name: round(s.percent, 1) for s in scores if s.percent < TABLE_AT_LEAST}
    assert low == {}


# The misses whose TODO line does not name the expected column: nothing in their names,
# types or values says what they are to a draft (the cane variety as the product, the
# delivery contractor as the transporter, beside kode_kontraktor, the estate's contractor;
# i21's dtmTransactionDateTime, stamped when the row is written, named for no entry; the
# mover's empty and full weights, a tare and a weight no word calls a gross, in an order
# only the program knows, each on a TODO line), and no word was added for the corpus alone.
# One is drafted as a column and says nothing: pks_pb_harian's createdById for operator1
# (the user who keyed the ticket in, where the person who wrote its mapping chose the
# weighman, penimbang). A new one fails; one mended fails too.
UNHINTED = {"pns_weight_scale.productcode": "NULL", "pns_weight_scale.transcode": "NULL",
            "i21_scale_ticket.tgl_create": "NULL", "i21_scale_ticket.jam_create": "NULL",
            "ppm_weight_tickets.weigh1": "NULL", "ppm_weight_tickets.weigh2": '"empty_weight"',
            "pks_pb_harian.operator1": '"createdById"'}


def test_every_miss_is_a_todo_naming_the_expected_column(scores: list[Score]) -> None:
    silent = {f"{s.case.name}.{name}": source for s in scores
              for name, (source, _, hinted) in s.misses.items() if not hinted}
    assert silent == UNHINTED
