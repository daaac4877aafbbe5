"""The trade's words for draft-mapping (sql/draft-words.toml, extended by a site's file of
that name in its sql_dir): whole column names per field, and the parts of a name.

A whole name (`NO_POLISI`) is compared without case and separators. A name that no whole
word holds is split into its parts (`WaktuTimbang1` -> waktu, timbang, 1; `kode_stok` ->
kode, stok; `NOPOL` -> no, pol where each piece is a part word), each part looked up in
`[part_words]` (a part word stands for one concept: timbang for `berat`, 1 for `masuk`), and
a field's `[<section>.parts]` patterns say which concepts its column's name holds
(`productcode = ["kode barang"]`) or must not hold (`"barang -nama"`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import click

from ..model.collections import COLLECTIONS, Collection
from ..ops.config import SHIPPED_SQL_DIR

WORDS_FILE = "draft-words.toml"
NO_FIELD = "no_field"  # the words file's key for columns known to fill no field (NETTO)
PART_WORDS = "part_words"  # the table of concepts and their part words
PARTS = "parts"  # a section's table of patterns of concepts, per field
_PART_WORD = re.compile(r"[A-Za-z0-9]+")
_CONCEPT = re.compile(r"[a-z][a-z0-9_]*")


class Word(NamedTuple):
    text: str  # as the words file writes it
    site: bool  # from the site's own file, not the shipped one


class Pattern(NamedTuple):
    """The concepts a column's name must hold (and those it must not) to fill a field."""
    present: tuple[str, ...]
    absent: tuple[str, ...]
    text: str  # as the words file writes it
    site: bool


WordTable = dict[str, dict[str, list[Word]]]  # section -> field (or no_field) -> its words
PatternTable = dict[str, dict[str, list[Pattern]]]  # section -> field -> its patterns


@dataclass
class Words:
    """Everything a words file says: whole names, part words and patterns."""
    whole: WordTable = field(default_factory=dict)
    concepts: dict[str, str] = field(default_factory=dict)  # part word (lower) -> concept
    patterns: PatternTable = field(default_factory=dict)

    def section(self, name: str) -> dict[str, list[Word]]:
        return self.whole.get(name, {})

    def section_patterns(self, name: str) -> dict[str, list[Pattern]]:
        return self.patterns.get(name, {})


def normalized(name: str) -> str:
    """The name as compared last: lower case, without underscores, spaces or hyphens."""
    return re.sub(r"[\s_\-]+", "", name).lower()


def section_of(c: Collection) -> str:
    """The words file's section for a collection: its record shape (docs/api.md §3), the
    name its summaries go by, or for the master data its schema's: the shipped one, so that
    a master keyed by a text code (collections.text_keys) has the words of its shape."""
    shipped = next((x for x in COLLECTIONS if x.name == c.name), c)
    return shipped.summary or shipped.schema.__name__.lower()


def section_fields() -> dict[str, set[str]]:
    """The fields each section may name: those of every collection of that shape."""
    out: dict[str, set[str]] = {}
    for c in COLLECTIONS:
        out.setdefault(section_of(c), set()).update(c.fields)
    return out


# -- a column's name in parts -----------------------------------------------------------

_RUNS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _segmented(run: str, known: dict[str, str]) -> list[str]:
    """A lower-case run that is no part word, as part words that spell it whole
    (`nopol` -> no, pol), else as part words and one piece of three letters or more that
    is none (`sitecode` -> site, code; `sabno` -> sab, no); the fewest unknown letters,
    then the fewest pieces; else the run itself."""
    if run in known or len(run) > 40:
        return [run]
    # best[end]: (unknown letters, pieces, unknown pieces, the pieces) spelling run[:end]
    best: list[tuple[int, int, int, list[str]] | None] = [(0, 0, 0, [])] + [None] * len(run)
    for end in range(1, len(run) + 1):
        for start in range(end):
            head, piece = best[start], run[start:end]
            if head is None:
                continue
            if piece in known and len(piece) > 1:
                step = (head[0], head[1] + 1, head[2], [*head[3], piece])
            elif len(piece) >= 3 and head[2] == 0:
                step = (head[0] + len(piece), head[1] + 1, 1, [*head[3], piece])
            else:
                continue
            if best[end] is None or step[:2] < best[end][:2]:  # type: ignore[index]
                best[end] = step
    found = best[-1]
    if not found or found[0] == len(run):
        return [run]
    # With a piece no part word spells, a part word short enough to be chance (loc in
    # locked) counts only as the last piece (no in sabno).
    if found[2] and any(p in known and len(p) < 4 for p in found[3][:-1]):
        return [run]
    return found[3]


def split_name(name: str, known: dict[str, str] | None = None) -> list[str]:
    """A column's name in its parts, lower case: snake_case, camelCase and digits
    (`WaktuTimbang1` -> waktu, timbang, 1; `KDBarang` -> kd, barang); a run of one case
    that is no part word is split into part words where they spell it whole."""
    parts: list[str] = []
    for run in _RUNS.findall(name):
        parts += _segmented(run.lower(), known or {})
    return parts


# -- reading a file -----------------------------------------------------------------------

def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise click.ClickException(f"{path}: cannot read the words: {exc}") from None


def _names(path: Path, where: str, names: Any, check: re.Pattern[str] | None = None
           ) -> list[str]:
    ok = isinstance(names, list) and all(
        isinstance(n, str) and normalized(n) and "\n" not in n
        and (check is None or check.fullmatch(n)) for n in names)
    if not ok:
        what = ("part words, letters and digits only, e.g. [\"KODE\", \"KD\"]" if check
                else "column names, e.g. [\"NOPOL\", \"NO_POLISI\"]")
        raise click.ClickException(f"{path}: {where} must be a list of {what}")
    return names


def _read_section(path: Path, section: str, table: dict[str, Any], allowed: set[str],
                  site: bool, words: Words) -> None:
    seen: dict[str, str] = {}
    for key, names in table.items():
        if key == PARTS and isinstance(names, dict):
            _read_patterns(path, section, names, allowed, site, words)
            continue
        if key not in allowed and key != NO_FIELD:
            raise click.ClickException(f"{path}: [{section}] {key}: no such field of a "
                                       f"{section} record (nor {NO_FIELD})")
        for name in _names(path, f"[{section}] {key}", names):
            other = seen.setdefault(normalized(name), key)
            if other != key:
                raise click.ClickException(f"{path}: [{section}] {name!r} is a word for "
                                           f"both {other} and {key}: keep it in one")
        words.whole.setdefault(section, {})[key] = [Word(n, site) for n in names]


def _read_patterns(path: Path, section: str, table: dict[str, Any], allowed: set[str],
                   site: bool, words: Words) -> None:
    for key, texts in table.items():
        where = f"[{section}.{PARTS}] {key}"
        if key not in allowed and key != NO_FIELD:
            raise click.ClickException(f"{path}: {where}: no such field of a {section} "
                                       f"record (nor {NO_FIELD})")
        patterns = []
        for text in _names(path, where, texts):
            terms = text.split()
            present = tuple(t for t in terms if not t.startswith("-"))
            absent = tuple(t[1:] for t in terms if t.startswith("-"))
            if not present or not all(_CONCEPT.fullmatch(t) for t in present + absent):
                raise click.ClickException(
                    f"{path}: {where}: {text!r} must name concepts of [{PART_WORDS}], "
                    f"separated by spaces, those a name must not hold after a '-', e.g. "
                    f"\"kode barang\", \"barang -nama\"")
            patterns.append(Pattern(present, absent, text, site))
        words.patterns.setdefault(section, {})[key] = patterns


def _read_part_words(path: Path, table: Any, words: Words) -> None:
    if not isinstance(table, dict):
        raise click.ClickException(f"{path}: [{PART_WORDS}] must be a table of concepts")
    for concept, names in table.items():
        if not _CONCEPT.fullmatch(concept):
            raise click.ClickException(f"{path}: [{PART_WORDS}] {concept!r}: a concept is "
                                       f"named in lower case, e.g. kode")
        for name in _names(path, f"[{PART_WORDS}] {concept}", names, _PART_WORD):
            other = words.concepts.setdefault(name.lower(), concept)
            if other != concept:
                raise click.ClickException(f"{path}: [{PART_WORDS}] {name!r} is a part "
                                           f"word of both {other} and {concept}: keep it "
                                           f"in one")


def read_words(path: Path, site: bool) -> Words:
    """One words file, checked: a section per record shape, each key a field of it (or
    no_field), each value a list of names, and no name under two fields of a section;
    [part_words] concepts, each part word in one; a section's patterns of known concepts."""
    data = _load_toml(path)
    sections = section_fields()
    words = Words()
    if PART_WORDS in data:
        _read_part_words(path, data[PART_WORDS], words)
    for section, table in data.items():
        if section == PART_WORDS:
            continue
        if section not in sections or not isinstance(table, dict):
            raise click.ClickException(f"{path}: [{section}] is no record shape; the sections "
                                       f"are {', '.join(sections)}")
        _read_section(path, section, table, sections[section], site, words)
    return words


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:  # read_words says what is wrong with it
        return False


def _extended(shipped: dict[str, list[Any]], own: dict[str, list[Any]],
              key: Any) -> None:
    """A site's entries for a field come first and are taken from every other field."""
    for name, site_entries in own.items():
        taken = {key(e) for e in site_entries}
        for other, listed in shipped.items():
            shipped[other] = [e for e in listed if key(e) not in taken]
        shipped[name] = site_entries + shipped.get(name, [])


def _check_concepts(path: Path, words: Words) -> None:
    known = set(words.concepts.values())
    for section, fields in words.patterns.items():
        for name, patterns in fields.items():
            for p in patterns:
                unknown = [t for t in p.present + p.absent if t not in known]
                if unknown:
                    raise click.ClickException(
                        f"{path}: [{section}.{PARTS}] {name}: {p.text!r} names no concept "
                        f"{unknown[0]!r} of [{PART_WORDS}]")


def load_words(sql_dir: Path, shipped_dir: Path = SHIPPED_SQL_DIR) -> Words:
    """The shipped words, extended by the site's file of the same name in its sql_dir: a
    site's words (and patterns) for a field come first and are taken from every other
    field; its part words join their concept and leave any other."""
    shipped_file = shipped_dir / WORDS_FILE
    words = read_words(shipped_file, site=False)
    own_file = sql_dir / WORDS_FILE
    if own_file.is_file() and not _same_bytes(own_file, shipped_file):
        own = read_words(own_file, site=True)
        for section, fields in own.whole.items():
            _extended(words.whole.setdefault(section, {}), fields,
                      lambda w: normalized(w.text))
        for section, patterns in own.patterns.items():
            _extended(words.patterns.setdefault(section, {}), patterns,
                      lambda p: (tuple(sorted(p.present)), tuple(sorted(p.absent))))
        words.concepts.update(own.concepts)
        _check_concepts(own_file, words)
    else:
        _check_concepts(shipped_file, words)
    return words


def concepts_of(parts: Sequence[str], words: Words) -> list[str | None]:
    """The concept of each part (None: no part word)."""
    return [words.concepts.get(p) for p in parts]
