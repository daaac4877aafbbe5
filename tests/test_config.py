"""Settings (docs/api.md §12): defaults, the TOML file, the environment, and loud errors."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.ops.config import (
    KNOWN_KEYS,
    SECRET_FILE,
    SETTINGS,
    SHIPPED_SQL_DIR,
    SPEC,
    ApiKey,
    ConfigError,
    Setting,
    kept_secret,
    load_settings,
    with_secrets,
)
from app.ops.settings_files import example_file, settings_table, written

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config.example.toml"

API_DOC = ROOT / "docs" / "api.md"


def documented_keys() -> list[str]:
    """The keys of docs/api.md §12's table, `section.key`, in its order."""
    text = API_DOC.read_text(encoding="utf-8")
    section = text[text.index("## 12. Configuration"):text.index("\n## 13.")]
    return re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \|", section, re.M)


# A value other than the default for every key, each valid on its own: the settings it
# reaches must differ from the defaults (test_every_key_reaches_the_settings).
SAMPLES = {
    "database.sqlite": "other.sqlite3", "database.odbc": "DSN=plant",
    "database.query_timeout": 7, "database.connect_timeout": 3, "database.sql_dir": "mine",
    "database.prove_on_first_read": False, "database.proof_dir": "/var/lib/proofs",
    "database.proof_wait": 0.5, "database.mapping_check": 300, "database.ping_keep": 5,
    "api.page_size": 50, "api.max_page_size": 500, "api.url_prefix": "/api",
    "api.cors_origins": ["https://erp.example"], "api.metrics_key": "a-scrape-secret-0001",
    "api.public_url": "https://weighbridge.plant.local/api",
    "api.allowed_hosts": ["weighbridge.plant.local"], "api.trusted_proxies": ["127.0.0.1"],
    "auth.api_keys": ["key-one-0123456789"],
    "auth.keys": {"reader": {"key": "reader-key-0123456789"}},
    "log.format": "json", "log.slow_query": 5,
    "collections.serve": ["vehicles"], "collections.text_keys": ["products"],
    "feed.settle_seconds": 10, "feed.lookback_seconds": 60,
    "feed.bookmark_secrets": ["a secret of the plant's own"],
    "site.name": "Plant", "site.timezone": "Asia/Jakarta",
    "site.collections": {"timbangan1": "North gate"}, "site.dates": {"dt1": "masuk"},
    "site.fields": {"weigh1": "Bruto (kg)"},
    "mcp.enabled": False, "mcp.allowed_origins": ["https://assistant.example"],
}


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory (no config.toml), so nothing leaks in from the checkout."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def write_config(directory: Path, text: str, name: str = "jembatan.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults(workdir: Path) -> None:
    s = load_settings(None, {})
    assert s.api.page_size == 100
    assert s.api.max_page_size == 1000
    assert s.api.url_prefix == ""
    assert s.database.query_timeout == 30
    assert s.database.connect_timeout == 5
    assert s.database.odbc == ""
    assert s.database.sqlite == workdir / "instance" / "demo.sqlite3"
    assert s.database.sql_dir == SHIPPED_SQL_DIR
    assert SHIPPED_SQL_DIR == ROOT / "sql"
    assert s.auth.api_keys == ()


def test_where_the_proofs_verdicts_are_kept(workdir: Path, tmp_path: Path) -> None:
    """database.proof_dir (docs/operations.md, "The proof of the mapping"): as given (relative
    to the file); else $STATE_DIRECTORY/proofs (the first of several, as systemd lists
    them); else instance/proofs under the working directory. proof_wait: 2 s, 0 or more."""
    assert load_settings(None, {}).database.proof_dir == workdir / "instance" / "proofs"
    state = {"STATE_DIRECTORY": "/var/lib/jembatan:/var/lib/other"}
    assert load_settings(None, state).database.proof_dir == Path("/var/lib/jembatan/proofs")
    config = write_config(tmp_path / "etc", '[database]\nproof_dir = "kept"\n')
    assert load_settings(None, state | {"JEMBATAN_CONFIG": str(config)}
                         ).database.proof_dir == tmp_path / "etc" / "kept"
    assert load_settings(None, {}).database.proof_wait == 2
    assert load_settings({"database": {"proof_wait": 0}}, {}).database.proof_wait == 0
    with pytest.raises(ConfigError) as exc:
        load_settings({"database": {"proof_wait": -1}}, {})
    assert str(exc.value) == "database.proof_wait must be a number of seconds, 0 or more"


def test_bookmark_secrets_set_or_kept(workdir: Path, tmp_path: Path) -> None:
    """feed.bookmark_secrets (docs/api.md §12): as given, first signing, from the file or
    JEMBATAN_BOOKMARK_SECRETS; each at least 16 characters, none twice. None given: one
    secret made once in database.proof_dir, mode 0600, which every process reads the same."""
    given = ["this year's secret", "last year's secret"]
    assert load_settings({"feed": {"bookmark_secrets": given}}, {}).feed.secrets == (
        b"this year's secret", b"last year's secret")
    environ = {"JEMBATAN_BOOKMARK_SECRETS": " this year's secret , last year's secret,"}
    assert load_settings(None, environ).feed.secrets == (b"this year's secret",
                                                         b"last year's secret")
    for wrong, says in ((["short"], "feed.bookmark_secrets: each secret must have at least "
                                    "16 characters; make one with: python3 -c \"import "
                                    "secrets; print(secrets.token_urlsafe(32))\""),
                        ([given[0], given[0]], "feed.bookmark_secrets names a secret twice")):
        with pytest.raises(ConfigError) as exc:
            load_settings({"feed": {"bookmark_secrets": wrong}}, {})
        assert str(exc.value) == says
    state = {"STATE_DIRECTORY": str(tmp_path / "state")}
    kept = with_secrets(load_settings(None, state))
    path = tmp_path / "state" / "proofs" / SECRET_FILE
    assert kept.feed.secrets == (path.read_text().strip().encode(),)
    assert len(kept.feed.secrets[0]) >= 32 and path.stat().st_mode & 0o777 == 0o600
    assert with_secrets(load_settings(None, state)).feed.secrets == kept.feed.secrets
    assert sorted(p.name for p in path.parent.iterdir()) == [SECRET_FILE]
    # Set: the file is neither read nor made.
    other = {"STATE_DIRECTORY": str(tmp_path / "other")}
    assert with_secrets(load_settings(None, other | environ)).feed.secrets[0] == \
        b"this year's secret"
    assert not (tmp_path / "other").exists()


def test_workers_starting_together_keep_one_secret(tmp_path: Path) -> None:
    """Workers that make the kept secret at the same moment all read the one that won (each
    writes a file of its own and links it to the name: the first link wins)."""
    import threading

    start, said = threading.Barrier(8), []

    def worker() -> None:
        start.wait()
        said.append(kept_secret(tmp_path / "proofs"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(said) == {(tmp_path / "proofs" / SECRET_FILE).read_text().strip().encode()}
    assert len(said) == 8 and [p.name for p in (tmp_path / "proofs").iterdir()] == [SECRET_FILE]


def test_a_secret_that_cannot_be_kept_is_said_and_the_process_signs_alone(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """As the proof's verdicts (docs/operations.md): a proof_dir that cannot be written does
    not stop the start; the process signs with a secret of its own and says so."""
    (tmp_path / "file").write_text("not a directory")  # as a read-only filesystem is
    caplog.set_level("WARNING", logger="jembatan")
    state = {"STATE_DIRECTORY": str(tmp_path / "file")}
    secrets = [with_secrets(load_settings(None, state)).feed.secrets for _ in range(2)]
    assert secrets[0] != secrets[1] and all(len(s) == 1 for s in secrets)
    path = tmp_path / "file" / "proofs" / SECRET_FILE
    assert [r.getMessage() for r in caplog.records] == [
        f"cannot keep the bookmark secret in {path} (Not a directory): set [feed] "
        f"bookmark_secrets, or database.proof_dir to a directory the service may write; "
        f"until then this process signs the feed's bookmarks with a secret of its own, which "
        f"its sibling workers and the next start refuse"] * 2
    with pytest.raises(ConfigError):
        kept_secret(tmp_path / "file" / "proofs")


def test_feed_windows(workdir: Path) -> None:
    """[feed] (docs/api.md §5.11): 30 s and 600 s by default; seconds from 0 to a day, else an
    error at start that names the key."""
    s = load_settings(None, {})
    assert (s.feed.settle_seconds, s.feed.lookback_seconds) == (30, 600)
    s = load_settings({"feed": {"settle_seconds": 2.5, "lookback_seconds": 0}}, {})
    assert (s.feed.settle_seconds, s.feed.lookback_seconds) == (2.5, 0)
    for value, message in ((-1, "feed.lookback_seconds must be a number of seconds from 0 to "
                                "86400, not -1"),
                           (86401, "feed.lookback_seconds must be a number of seconds from 0 "
                                   "to 86400, not 86401"),
                           ("600", "overrides: feed.lookback_seconds must be int or float, "
                                   "not str '600'")):
        with pytest.raises(ConfigError) as exc:
            load_settings({"feed": {"lookback_seconds": value}}, {})
        assert str(exc.value) == message
    with pytest.raises(ConfigError, match=r"unknown key feed\.settle; known keys of \[feed\]: "
                                          r"settle_seconds, lookback_seconds"):
        load_settings({"feed": {"settle": 1}}, {})


def test_file_named_by_jembatan_config(workdir: Path, tmp_path: Path) -> None:
    path = write_config(tmp_path / "etc", """
[database]
sqlite = "data/plant.sqlite3"
sql_dir = "site-sql"
query_timeout = 12.5
connect_timeout = 2

[api]
page_size = 50
max_page_size = 200
url_prefix = "/api"

[auth]
api_keys = ["alpha-0123456789ab", "beta-0123456789abc"]
""")
    s = load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    # Relative paths resolve against the file's directory, not the working directory.
    assert s.database.sqlite == tmp_path / "etc" / "data" / "plant.sqlite3"
    assert s.database.sql_dir == tmp_path / "etc" / "site-sql"
    assert s.database.query_timeout == 12.5
    assert s.database.connect_timeout == 2
    assert (s.api.page_size, s.api.max_page_size, s.api.url_prefix) == (50, 200, "/api")
    assert s.auth.api_keys == ("alpha-0123456789ab", "beta-0123456789abc")


def test_relative_jembatan_config_path(workdir: Path) -> None:
    write_config(workdir / "conf", '[database]\nsqlite = "plant.sqlite3"\n')
    s = load_settings(None, {"JEMBATAN_CONFIG": "conf/jembatan.toml"})
    assert s.database.sqlite.resolve() == (workdir / "conf" / "plant.sqlite3").resolve()


def test_absolute_paths_in_the_file_stay(workdir: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "x.sqlite3"
    path = write_config(tmp_path / "etc", f'[database]\nsqlite = "{target.as_posix()}"\n')
    s = load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    assert s.database.sqlite == target


def test_config_toml_in_the_working_directory(workdir: Path) -> None:
    write_config(workdir, '[api]\npage_size = 25\n[database]\nsqlite = "db/x.sqlite3"\n',
                 name="config.toml")
    s = load_settings(None, {})
    assert s.api.page_size == 25
    assert s.database.sqlite == workdir / "db" / "x.sqlite3"


def test_jembatan_config_wins_over_config_toml(workdir: Path, tmp_path: Path) -> None:
    write_config(workdir, "[api]\npage_size = 25\n", name="config.toml")
    path = write_config(tmp_path / "etc", "[api]\npage_size = 40\n")
    assert load_settings(None, {"JEMBATAN_CONFIG": str(path)}).api.page_size == 40


def test_environment_overrides_the_file(workdir: Path, tmp_path: Path) -> None:
    path = write_config(tmp_path / "etc", """
[database]
sqlite = "from-file.sqlite3"
odbc = "Driver=FromFile"

[auth]
api_keys = ["from-file-0123456789"]
""")
    env = {"JEMBATAN_CONFIG": str(path), "JEMBATAN_SQLITE": "/srv/env.sqlite3",
           "JEMBATAN_ODBC": "Driver=FromEnv;Server=wb01",
           "JEMBATAN_API_KEYS": " k1-0123456789abc , k2-0123456789abc,k3-0123456789abc "}
    s = load_settings(None, env)
    assert s.database.sqlite == Path("/srv/env.sqlite3")
    assert s.database.odbc == "Driver=FromEnv;Server=wb01"
    assert s.auth.api_keys == ("k1-0123456789abc", "k2-0123456789abc", "k3-0123456789abc")


def test_relative_jembatan_sqlite_resolves_against_the_working_directory(workdir: Path) -> None:
    s = load_settings(None, {"JEMBATAN_SQLITE": "data/x.sqlite3"})
    assert s.database.sqlite.resolve() == (workdir / "data" / "x.sqlite3").resolve()


def test_environment_api_keys_alone(workdir: Path) -> None:
    assert load_settings(None, {"JEMBATAN_API_KEYS": "one-0123456789ab"}).auth.api_keys == (
        "one-0123456789ab",)


def test_overrides_win(workdir: Path) -> None:
    s = load_settings({"api": {"page_size": 7}}, {"JEMBATAN_SQLITE": "/x.sqlite3"})
    assert s.api.page_size == 7
    assert s.database.sqlite == Path("/x.sqlite3")


def config_error(tmp_path: Path, text: str) -> str:
    path = write_config(tmp_path / "etc", text)
    with pytest.raises(ConfigError) as info:
        load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    return str(info.value)


def test_unknown_section(workdir: Path, tmp_path: Path) -> None:
    message = config_error(tmp_path, "[server]\nport = 8000\n")
    assert "server" in message


@pytest.mark.parametrize(("text", "key"), [
    ("[database]\npasword = \"x\"\n", "pasword"),
    ("[api]\npagesize = 10\n", "pagesize"),
    ("[auth]\nkeys = [\"a\"]\n", "keys"),
])
def test_unknown_key(workdir: Path, tmp_path: Path, text: str, key: str) -> None:
    assert key in config_error(tmp_path, text)


@pytest.mark.parametrize(("text", "key"), [
    ('[api]\npage_size = "100"\n', "page_size"),
    ("[api]\npage_size = true\n", "page_size"),
    ("[api]\npage_size = 10.5\n", "page_size"),
    ("[api]\nmax_page_size = false\n", "max_page_size"),
    ("[auth]\napi_keys = [1, 2]\n", "api_keys"),
    ('[auth]\napi_keys = "k1-0123456789abc"\n', "api_keys"),
    ("[database]\nsqlite = 5\n", "sqlite"),
    ('[database]\nquery_timeout = "30"\n', "query_timeout"),
    ("[database]\nconnect_timeout = true\n", "connect_timeout"),
    ("[api]\nurl_prefix = 1\n", "url_prefix"),
])
def test_wrong_type(workdir: Path, tmp_path: Path, text: str, key: str) -> None:
    assert key in config_error(tmp_path, text)


# -- API keys (docs/api.md §10) ---------------------------------------------------------------

GOOD = "a-good-long-key-0001"


@pytest.mark.parametrize(("auth", "message"), [
    ({"api_keys": [""]}, "auth.api_keys entry 1 is empty: an empty key would let anyone in; "
                         "give a long random key (e.g. from `openssl rand -hex 24`) or remove it"),
    ({"api_keys": [GOOD, "   "]}, "auth.api_keys entry 2 is empty: an empty key would let "
                                  "anyone in; give a long random key (e.g. from `openssl rand "
                                  "-hex 24`) or remove it"),
    ({"api_keys": ["short-key"]}, "auth.api_keys entry 1 is 9 characters long: a key must "
                                  "have at least 16 (e.g. from `openssl rand -hex 24`)"),
    ({"keys": {"t": {"key": "tiny"}}}, "auth.keys.t.key is 4 characters long: a key must have "
                                       "at least 16 (e.g. from `openssl rand -hex 24`)"),
    ({"keys": {"t": {"key": GOOD, "key_sha256": "00" * 32}}},
     'auth.keys.t needs key = "..." or key_sha256 = "<hex>", one of them'),
    ({"keys": {"t": {"key_sha256": "abc"}}},
     "auth.keys.t.key_sha256 must be the key's SHA-256 in 64 hex digits, as `printf %s "
     "'the-key' | sha256sum` prints it; got 'abc'"),
    ({"keys": {"t": {"key": GOOD, "colections": ["transactions"]}}},
     "auth.keys.t: unknown key 'colections'; a key's table takes key, key_sha256, "
     "collections, fields, where, max_concurrent"),
    ({"keys": {"t": {"key": GOOD, "collections": ["transaction"]}}},
     "auth.keys.t.collections: 'transaction' is not a collection served here (did you mean "
     "'transactions'?); the collections served are: customers, products, transporters, "
     "transactions, vehicles, bricon2, weighing, timbangan1, timbangan2, biao1"),
    ({"keys": {"t": {"key": GOOD, "collections": ["transactions", "customers"],
                     "where": {"transcode": "T03"}}}},
     "auth.keys.t.where.transcode: customers cannot be scoped by 'transcode' (no such "
     "field); a row condition names a text field (a code) of every collection of the key: "
     "name fewer collections in its `collections`"),
    ({"keys": {"t": {"key": GOOD, "collections": ["transactions"], "where": {"weigh1": "5"}}}},
     "auth.keys.t.where.weigh1: transactions cannot be scoped by 'weigh1' (it is not a text "
     "field); a row condition names a text field (a code) of every collection of the key: "
     "name fewer collections in its `collections`"),
    ({"keys": {"t": {"key": GOOD, "collections": ["transactions"], "where": {"custcode": []}}}},
     "auth.keys.t.where.custcode must be a non-empty string or a non-empty list of non-empty "
     "strings, not []"),
    ({"keys": {"t": {"key": GOOD, "collections": ["transactions", "vehicles"],
                     "fields": ["id", "vehno"]}}},
     "auth.keys.t.fields: 'vehno' is not a field of vehicles; a key's fields are fields of "
     "every collection of the key: name fewer collections in its `collections`"),
    ({"keys": {"t": {"key": GOOD, "max_concurrent": -1}}},
     "auth.keys.t.max_concurrent must be a whole number, 0 (no limit) or more, not -1"),
    ({"keys": {"t o": {"key": GOOD}}},
     "auth.keys.t o: a key's name is letters, digits, '.', '_' and '-' (up to 64), starting "
     "with a letter or digit; it names the key in the access log and /metrics"),
    ({"api_keys": [GOOD], "keys": {"t": {"key": GOOD}}},
     "auth: t is the same key as another; a key must tell who sent it, so give each its own"),
    ({"api_keys": [GOOD], "keys": {"key-1": {"key": GOOD + "x"}}},
     "auth.keys.key-1: the name is the one api_keys' entry 1 goes by; give the key another "
     "name"),
])
def test_a_key_that_cannot_serve_refuses_the_start(workdir: Path, auth: dict[str, Any],
                                                   message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({"auth": auth}, {})
    assert str(info.value) == message


def test_a_short_key_in_the_environment_refuses_the_start(workdir: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(None, {"JEMBATAN_API_KEYS": f"{GOOD},,short"})
    assert str(info.value) == ("auth.api_keys entry 2 is 5 characters long: a key must have "
                               "at least 16 (e.g. from `openssl rand -hex 24`)")


# What a shell prints for a key that is not there: the digests of the empty string and of a
# lone line feed, from the real sha256sum (a variable unset, an `echo` of nothing).
UNSET_DIGESTS = {command: subprocess.run(["sh", "-c", command], capture_output=True,
                                         text=True, check=True, env={}).stdout.split()[0]
                 for command in ('printf %s "$UNSET" | sha256sum', 'echo "$UNSET" | sha256sum')}
ADVICE = ("Make a key of your own with `openssl rand -hex 24`, and write its digest, from "
          "`printf %s 'the-key' | sha256sum`, or remove the key")


@pytest.mark.parametrize("command", UNSET_DIGESTS)
def test_the_digest_of_no_key_refuses_the_start(workdir: Path, command: str) -> None:
    """A key_sha256 of an empty value would let in a request with no key (the old start took
    it, and every route answered 200 without one)."""
    with pytest.raises(ConfigError) as info:
        load_settings({"auth": {"keys": {"x": {"key_sha256": UNSET_DIGESTS[command]}}}}, {})
    what = ("an empty value (what `printf %s \"$VAR\" | sha256sum` prints when the variable "
            "is unset): it would let in a request that sends no key" if "printf" in command
            else "a blank value ('\\n', what `echo | sha256sum` prints for an empty one): "
                 "anyone could send it")
    assert str(info.value) == f"auth.keys.x.key_sha256 is the SHA-256 of {what}. {ADVICE}"


@pytest.mark.parametrize("known", KNOWN_KEYS)
def test_a_key_anyone_knows_refuses_the_start(workdir: Path, known: str) -> None:
    """Every key of the table of known keys, by its digest (in capitals too) and, where it
    is long enough to be taken as a key, as the key itself."""
    digest = hashlib.sha256(known.encode()).hexdigest()
    for key in ({"key_sha256": digest}, {"key_sha256": digest.upper()}):
        with pytest.raises(ConfigError) as info:
            load_settings({"auth": {"keys": {"x": key}}}, {})
        assert str(info.value).startswith("auth.keys.x.key_sha256 is the SHA-256 of ")
        assert str(info.value).endswith(ADVICE)
    if len(known) >= 16:
        with pytest.raises(ConfigError) as info:
            load_settings({"auth": {"api_keys": [known]}}, {})
        assert str(info.value) == (f"auth.api_keys entry 1 is the docs' example key "
                                   f"{known!r}: anyone could send it. {ADVICE}")


def test_the_docs_example_keys_are_known_keys() -> None:
    """The example keys the docs print are in the table of known keys."""
    docs = (ROOT / "docs" / "keys.md").read_text() + (ROOT / "docs" / "api.md").read_text()
    printed = set(re.findall(r"X-API-Key: ([\w-]{16,})'|openssl rand -hex 24 +# e\.g\. "
                             r"(\w+)", docs))
    found = {k for pair in printed for k in pair if k}
    assert len(found) >= 2 and found <= set(KNOWN_KEYS), found


@pytest.mark.parametrize("given", ["", ",", " , ", " ,, "])
def test_keys_from_the_environment_that_give_none_refuse_the_start(workdir: Path,
                                                                   given: str) -> None:
    """JEMBATAN_API_KEYS set but empty was taken for no keys at all: the service started
    open, though someone meant to require a key (a short one there is refused)."""
    with pytest.raises(ConfigError) as info:
        load_settings(None, {"JEMBATAN_API_KEYS": given})
    assert str(info.value) == (
        f"JEMBATAN_API_KEYS is set but gives no api_keys ({given!r}): whoever set it meant "
        f"to require a key, and an empty list would leave every endpoint open; give the "
        f"keys, comma-separated, or unset it (the keys then come from the settings file "
        f"alone)")


def test_keys_from_the_file_when_the_environment_has_none(workdir: Path,
                                                          tmp_path: Path) -> None:
    path = write_config(tmp_path / "etc", f'[auth]\napi_keys = ["{GOOD}"]\n')
    assert load_settings(None, {"JEMBATAN_CONFIG": str(path)}).auth.api_keys == (GOOD,)
    assert load_settings(None, {}).auth.api_keys == ()


def test_named_keys_and_their_scopes(workdir: Path, tmp_path: Path) -> None:
    """api_keys' entries read everything under the names key-1, key-2; a named key keeps
    the SHA-256 of its key (given, or worked out from `key`), its collections in the table's
    order, its condition, and 2 reads at once unless it says."""
    import hashlib
    path = write_config(tmp_path / "etc", f"""
[auth]
api_keys = ["{GOOD}"]
[auth.keys.transporter-t03]
key_sha256 = "{hashlib.sha256(b"transporter-secret-03").hexdigest().upper()}"
collections = ["weighing", "transactions"]
where = {{ transcode = "T03", custcode = ["C1", "C2"] }}
[auth.keys.all-of-it]
key = "another-long-key-0002"
max_concurrent = 0
""")
    keys = load_settings(None, {"JEMBATAN_CONFIG": str(path)}).auth.keys
    assert keys == (
        ApiKey("key-1", hashlib.sha256(GOOD.encode()).digest()),
        ApiKey("transporter-t03", hashlib.sha256(b"transporter-secret-03").digest(),
               ("transactions", "weighing"), (("transcode", ("T03",)),
                                               ("custcode", ("C1", "C2"))), 2),
        ApiKey("all-of-it", hashlib.sha256(b"another-long-key-0002").digest(), None, (), 0))


def test_wrong_type_in_overrides(workdir: Path) -> None:
    with pytest.raises(ConfigError, match="page_size"):
        load_settings({"api": {"page_size": "10"}}, {})


def test_page_size_above_max(workdir: Path, tmp_path: Path) -> None:
    message = config_error(tmp_path, "[api]\npage_size = 500\nmax_page_size = 100\n")
    assert "page_size" in message


def test_page_size_above_default_max(workdir: Path, tmp_path: Path) -> None:
    assert "page_size" in config_error(tmp_path, "[api]\npage_size = 1001\n")


def test_page_size_zero(workdir: Path, tmp_path: Path) -> None:
    assert "page_size" in config_error(tmp_path, "[api]\npage_size = 0\n")


@pytest.mark.parametrize("prefix", ["api", "/api/", "/"])
def test_bad_url_prefix(workdir: Path, tmp_path: Path, prefix: str) -> None:
    assert "url_prefix" in config_error(tmp_path, f'[api]\nurl_prefix = "{prefix}"\n')


@pytest.mark.parametrize("prefix", ["/api", "/jembatan/v1"])
def test_good_url_prefix(workdir: Path, prefix: str) -> None:
    assert load_settings({"api": {"url_prefix": prefix}}, {}).api.url_prefix == prefix


def test_missing_config_file(workdir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "jembatan.toml"
    with pytest.raises(ConfigError) as info:
        load_settings(None, {"JEMBATAN_CONFIG": str(missing)})
    assert str(missing) in str(info.value)


def test_malformed_toml(workdir: Path, tmp_path: Path) -> None:
    path = write_config(tmp_path / "etc", "[api\npage_size = \n")
    with pytest.raises(ConfigError) as info:
        load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    assert str(path) in str(info.value)


# -- config.example.toml -------------------------------------------------------------------


@pytest.fixture
def example() -> Path:
    """The shipped example: it must be there (a missing file fails, never skips)."""
    assert EXAMPLE.is_file(), f"{EXAMPLE} is missing"
    return EXAMPLE


def test_example_config_parses_and_loads(example: Path, workdir: Path) -> None:
    with open(example, "rb") as f:
        tomllib.load(f)
    s = load_settings(None, {"JEMBATAN_CONFIG": str(example)})
    assert 1 <= s.api.page_size <= s.api.max_page_size
    # Its relative paths resolve against the project root, where it lives.
    assert s.database.sql_dir.resolve() == SHIPPED_SQL_DIR.resolve()
    assert s.database.sqlite.is_relative_to(ROOT)


def test_example_config_and_the_reference_document_every_key(example: Path) -> None:
    """docs/api.md §12 has a row for each key the service reads, and no other;
    config.example.toml sets each of them (to its default)."""
    keys = [f"{section}.{key}" for section, table in SPEC.items() for key in table]
    assert sorted(documented_keys()) == sorted(keys)
    with open(example, "rb") as f:
        data = tomllib.load(f)
    missing = [k for k in keys if k.split(".")[1] not in data.get(k.split(".")[0], {})]
    assert not missing, f"{example.name} lacks {', '.join(missing)}"


def test_the_files_written_from_the_declarations_are_up_to_date() -> None:
    """config.example.toml and docs/api.md §12's table are what the settings' declarations
    give (`make settings-files` writes them)."""
    for path, text in written().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} differs from the settings' declarations: run `make "
            f"settings-files`")


def test_the_example_holds_each_declared_note_and_value(example: Path) -> None:
    """The example written from a made-up declaration: its note as comment lines (a quoted
    string or a line of TOML whole), then the key, or a table's header and entries."""
    text = example_file((
        Setting("one.a", str, "x", typed="string", help="h", env="JEMBATAN_A",
                note="First line " + "word " * 20 + "end.\n\"Driver=" + "x;" * 60 + "\""),
        Setting("one.b", dict, {}, typed="table", help="h", note="A table.",
                example={"k": "v — w"}),
        Setting("two.c", (int, float), 2, typed="number", help="h", note="A number.",
                env="JEMBATAN_C"),
    ))
    head, body = text.split("\n\n", 1)
    assert " ".join(line[2:] for line in head.split("\n")).startswith(
        "Jembatan's configuration. Copy to config.toml")
    assert "JEMBATAN_A and JEMBATAN_C (lists comma-separated) override the file." in " ".join(
        line[2:] for line in head.split("\n"))
    assert body == (
        "[one]\n"
        f"# First line{' word' * 16}\n# word word word word end.\n"
        f"# \"Driver={'x;' * 60}\"\n"
        'a = "x"\n'
        "\n# A table.\n[one.b]\nk = \"v — w\"\n"
        "\n[two]\n# A number.\nc = 2\n")
    assert settings_table(SETTINGS[:1]) == (
        "| key | type | default | meaning |\n|---|---|---|---|\n"
        "| `database.sqlite` | string (path) | `\"instance/demo.sqlite3\"` | the SQLite file to "
        "serve, opened read-only; it must exist |\n")


def test_each_settings_class_is_its_tables() -> None:
    """Each settings class goes by the name it has in the module, and has an attribute per
    setting of its table: none listed but in the declarations."""
    import dataclasses

    from app.ops import config
    for section, cls in config.CLASSES.items():
        assert getattr(config, cls.__name__) is cls
        assert cls.__name__ == config.SECTIONS[section][0]
        own = [s.attr or s.key for s in SETTINGS if s.section == section]
        assert set(own) <= {f.name for f in dataclasses.fields(cls)}


def test_the_environment_variables_are_those_declared() -> None:
    """docs/api.md §12's table of environment variables names JEMBATAN_CONFIG and each
    setting's variable, which sets it."""
    text = API_DOC.read_text(encoding="utf-8")
    section = text[text.index("**Environment variables**"):text.index("**Relative paths**")]
    rows = re.findall(r"^\| `(JEMBATAN_[A-Z_]+)` \| (?:`([a-z_.]+)`)?", section, re.M)
    assert rows == [("JEMBATAN_CONFIG", "")] + [(s.env, s.name) for s in SETTINGS if s.env]


def test_every_key_reaches_the_settings(workdir: Path) -> None:
    """Each key, set alone to another value, changes its section of the settings: none is
    read and then dropped where its section's settings are built."""
    assert sorted(SAMPLES) == sorted(documented_keys())
    default = load_settings(None, {})
    for name, value in SAMPLES.items():
        section, key = name.split(".")
        changed = load_settings({section: {key: value}}, {})
        assert getattr(changed, section) != getattr(default, section), name


# -- the site's words for the pages (labels) -------------------------------------------


def test_site_labels_default_and_site(workdir: Path, tmp_path: Path) -> None:
    from app.model.collections import COLLECTIONS, DATE_PAIRS
    s = load_settings(None, {})
    # A default label for every collection and every date field there is.
    assert set(s.site.collections) == {c.name for c in COLLECTIONS}
    assert set(s.site.dates) == set(DATE_PAIRS)
    assert s.site.collections["timbangan1"] == "Weighbridge 1"
    assert s.site.dates["dt1"] == "entry weighing"

    path = write_config(tmp_path / "etc", """
[site.collections]
timbangan1 = " North gate "
[site.dates]
dt2 = "keluar"
""")
    s = load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    assert s.site.collections["timbangan1"] == "North gate"
    assert s.site.collections["timbangan2"] == "Weighbridge 2"  # the others stay
    assert s.site.dates == {**load_settings(None, {}).site.dates, "dt2": "keluar"}


@pytest.mark.parametrize(("text", "said"), [
    ('[site.collections]\ntimbangn1 = "WB 1"\n',
     "site.collections: 'timbangn1' is not a collection (did you mean 'timbangan1'?)"),
    ('[site.dates]\ndt3 = "x"\n', "site.dates: 'dt3' is not a date field"),
    ('[site.collections]\nbiao1 = ""\n', "site.collections.biao1 must be"),
    ('[site.collections]\nbiao1 = 1\n', "site.collections.biao1 must be"),
    ('[site.dates]\ndt1 = "a\\nb"\n', "site.dates.dt1 must be"),
    ('[site.fields]\nweight1 = "Bruto"\n',
     "site.fields: 'weight1' is not a field of a record or key of a summary (did you mean "
     "'weigh1'?); give a field of docs/api.md §3 or a group or measure of §7"),
    ('[site.fields]\nnet = " "\n', "site.fields.net must be"),
    ('[site]\ncollections = "x"\n', "site.collections must be a table"),
    ('[site]\ntitle = "x"\n', "unknown key site.title"),
])
def test_site_label_errors(workdir: Path, tmp_path: Path, text: str, said: str) -> None:
    message = config_error(tmp_path, text)
    assert said in message
    assert "\n" not in message.replace("\\n", "")  # one line at start, as the others


def test_the_plants_time_zone(workdir: Path, tmp_path: Path) -> None:
    """Not set by default: each clock stays its own; an IANA name is read into a zone, and
    the feed compares with the database clock in it."""
    s = load_settings(None, {})
    assert s.site.timezone is None and s.feed.zone is None
    path = write_config(tmp_path / "etc", '[site]\ntimezone = " Asia/Jakarta "\n')
    s = load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    assert s.site.timezone == ZoneInfo("Asia/Jakarta") and s.feed.zone is s.site.timezone
    assert s.site.timezone.utcoffset(dt.datetime(2026, 7, 1)) == dt.timedelta(hours=7)


@pytest.mark.parametrize(("name", "said"), [
    ("Asia/Jakata", "site.timezone: 'Asia/Jakata' is not a time zone (did you mean "
                    "'Asia/Jakarta'?); give the plant's IANA name, e.g. \"Asia/Jakarta\" (WIB), "
                    "\"Asia/Makassar\" (WITA), \"Asia/Jayapura\" (WIT)"),
    ("WIB", "site.timezone: 'WIB' is not a time zone; give the plant's IANA name"),
    ("+07:00", "site.timezone: '+07:00' is not a time zone; give"),
    ("../../etc/passwd", "site.timezone: '../../etc/passwd' is not a time zone"),
])
def test_an_unknown_time_zone_is_a_start_error(workdir: Path, tmp_path: Path, name: str,
                                               said: str) -> None:
    message = config_error(tmp_path, f'[site]\ntimezone = "{name}"\n')
    assert message.startswith(said), message
    assert "\n" not in message


def test_example_config_shows_the_default_labels(example: Path, workdir: Path) -> None:
    from app.model.labels import COLLECTION_LABELS, DATE_LABELS, FIELD_LABELS
    s = load_settings(None, {"JEMBATAN_CONFIG": str(example)})
    assert (s.site.collections, s.site.dates) == (COLLECTION_LABELS, DATE_LABELS)
    assert s.site.fields == FIELD_LABELS  # the few it shows are the defaults


def test_site_field_labels_name_every_field_and_measure(workdir: Path, tmp_path: Path) -> None:
    """[site.fields] takes every field of every record and every key a summary sends."""
    from app.core.summaries import MEASURES
    from app.model.collections import COLLECTIONS, NAMINGS
    from app.model.labels import FIELD_LABELS, field_names
    names = set(field_names())
    assert {f for c in COLLECTIONS for f in c.schema._declared_fields} <= names
    assert {m.name for ms in MEASURES.values() for m in ms.entries} <= names
    assert {n.name for ns in NAMINGS.values() for n in ns} <= names
    assert set(FIELD_LABELS) <= names
    path = write_config(tmp_path / "etc", '[site.fields]\nweigh1 = " Bruto (kg) "\n'
                        'adonan_deviation = "Adonan dev. (%)"\n')
    s = load_settings(None, {"JEMBATAN_CONFIG": str(path)})
    assert s.site.fields == {**FIELD_LABELS, "weigh1": "Bruto (kg)",
                             "adonan_deviation": "Adonan dev. (%)"}


@pytest.mark.parametrize(("key", "message"), [
    ("scrape-key", "api.metrics_key is 10 characters long: a key must have at least 16 (e.g. "
                   "from `openssl rand -hex 24`)"),
    ("   ", "api.metrics_key is empty: an empty key would let anyone in; give a long random "
           "key (e.g. from `openssl rand -hex 24`) or remove it"),
    ("a-long-random-key-0001", "api.metrics_key is the docs' example key "
                               "'a-long-random-key-0001': anyone could send it. " + ADVICE),
])
def test_a_metrics_key_is_checked_as_an_api_key(workdir: Path, key: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({"api": {"metrics_key": key}}, {})
    assert str(info.value) == message


# Where the proof's verdicts and the bookmark secret may be kept, made here with real
# directories and modes: (the parent's mode, proof_dir's mode or None where it is not made
# yet, its owner: "me" or "other") and what the start says (None: it starts).
PLACES = [
    (0o755, 0o755, "me", None),
    (0o755, None, "me", None),
    (0o1777, 0o755, "me", None),  # as under /tmp: nobody else may rename the service's own
    (0o755, 0o700, "me", None),
    (0o755, 0o775, "me", "{d} is open to its group (mode 0775)"),
    (0o755, 0o757, "me", "{d} is open to others (mode 0757)"),
    (0o755, 0o1777, "me", "{d} is open to its group and others (mode 1777)"),
    (0o777, 0o755, "me", "{p} is open to its group and others (mode 0777)"),
    (0o1777, None, "me", None),
    (0o775, None, "me", "{p} is open to its group (mode 0775)"),
    (0o755, 0o755, "other", "{d} belongs to user 65534, not to root or the service's ({me})"),
]


@pytest.mark.parametrize(("parent", "mode", "owner", "why"), PLACES)
def test_a_proof_dir_another_user_may_write_refuses_the_start(
        tmp_path: Path, parent: int, mode: int | None, owner: str, why: str | None) -> None:
    """The old start took any proof_dir: a local user who could write there planted a
    bookmark secret (and signed bookmarks) or a verdict of the proof."""
    if owner == "other" and os.geteuid() != 0:
        pytest.skip("giving a directory to another user needs root")
    top, directory = tmp_path / "top", tmp_path / "top" / "proofs"
    top.mkdir()
    if mode is not None:
        directory.mkdir()
        directory.chmod(mode)
        if owner == "other":
            os.chown(directory, 65534, -1)
    top.chmod(parent)
    given = {"database": {"proof_dir": str(directory)}}
    if why is None:
        assert with_secrets(load_settings(given, {})).feed.secrets == (
            (directory / SECRET_FILE).read_text().strip().encode(),)
        return
    with pytest.raises(ConfigError) as info:
        load_settings(given, {})
    said = why.format(d=directory, p=top, me=os.geteuid())
    assert str(info.value) == (
        f"database.proof_dir ({directory}): {said}, so another local user could plant a "
        f"verdict of the proof or the bookmark secret there: make it the service's alone "
        f"(chown and chmod go-w), or set database.proof_dir to a directory that is")


@pytest.mark.parametrize(("mode", "said"), [(0o644, "its group and others (mode 0644)"),
                                            (0o640, "its group (mode 0640)"),
                                            (0o602, "others (mode 0602)")])
def test_a_bookmark_secret_others_may_read_refuses_the_start(tmp_path: Path, mode: int,
                                                             said: str) -> None:
    """A kept secret that others could read (or write) was used as it was: now the start
    stops, whether the secret came from an earlier start or was planted."""
    directory = tmp_path / "proofs"
    directory.mkdir()
    secret = directory / SECRET_FILE
    secret.write_text("a-planted-secret-0123456789\n")
    secret.chmod(mode)
    settings = load_settings({"database": {"proof_dir": str(directory)}}, {})
    with pytest.raises(ConfigError) as info:
        with_secrets(settings)
    assert str(info.value) == (
        f"the bookmark secret {secret}: {secret} is open to {said}, so another local user "
        f"could read or plant it and sign bookmarks: chmod 600 it and make it the service's, "
        f"or delete it (a new one is made)")
    secret.chmod(0o600)
    assert with_secrets(settings).feed.secrets == (b"a-planted-secret-0123456789",)
