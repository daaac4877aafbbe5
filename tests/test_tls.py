"""TLS between Jembatan and SQL Server through both drivers: a T-SQL server
of ../shared/tsql started with TSQL_TLS=1 on free ports for this module (a fresh self-signed
certificate naming IP:127.0.0.1, DNS:127.0.0.1 and DNS:localhost; TLS as SQL Server offers
it), and a plain one for a server without TLS.

Microsoft's ODBC Driver 18 encrypts by default (Encrypt mandatory) and checks the certificate
against OpenSSL's store, which SSL_CERT_FILE replaces; TrustServerCertificate=yes, the
documented last resort, skips the check. FreeTDS encrypts with `Encryption=require` in the
string, but checks a certificate only from freetds.conf (`ca file`, `check certificate
hostname`, default yes), which it reads for a `Servername=` section (FREETDSCONF names the
file): given in the string, `ca file` is ignored. A connection that works is proven
encrypted by the server's own view of it (sys.dm_exec_connections.encrypt_option) and by
/health; one that fails is a 503 whose reason says what to change, the same in /health, the
log and check-sql, never with the password.

Not tested, because Babelfish cannot do it: `Encrypt=strict` (TDS 8.0, where TLS comes
before any TDS and the driver checks `ServerCertificate=`): Babelfish resets the connection
after 60 s (`08001 TCP Provider: Error code 0x2746 (10054)`, "cannot connect to the
database"). SQL Server 2022 and later accept it; older ones refuse it as Babelfish does.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from click.testing import Result
from flask import Flask

from app import create_app
from app.model.tables import table_statements
from app.ops.config import SHIPPED_SQL_DIR
from tests.mssql import FREETDS, MSODBC18, Kit, odbc_string, parts, started
from tests.servers import ROOT

PUBLIC_CAS = Path(requests.certs.where())  # a CA file without the kit's certificate
PASSWORD = "Jembatan-test-1"  # ../shared/tsql/start's; never in a reason, a body or a log
# 127.0.0.1 spelt as inet_aton also reads it: the same server by a name its certificate lacks
# (as a plant's "wb01" is when the certificate names "wb01.plant.local").
OTHER_NAME = "127.1"

# The reasons, as a plant's IT person reads them in /health, the log and check-sql.
UNTRUSTED = ("the server's certificate is not trusted: install its CA on this host or set "
             "TrustServerCertificate=yes")
NAME_LACKING = ("the server's certificate is for other names: connect by a name it holds or "
                "set HostNameInCertificate to one")
NO_TLS = "the server does not support encryption: set Encrypt=no or enable TLS on the server"
OLD_TLS = ("the server speaks only TLS older than 1.2: give it its TLS 1.2 update (KB3135244), "
           "or allow TLS 1.0 for Jembatan with OPENSSL_CONF")
LEGACY_CONF = ROOT / "docs" / "examples" / "openssl-legacy-tls.cnf"  # what docs/deploy.md ships
FREETDS_HANDSHAKE = ("FreeTDS could not connect: check Server= (a name this host resolves, "
                     "the port in Port=) and its encryption settings (encryption, ca file, "
                     "host name)")


class TlsServer(Kit):
    """The kit's server with TLS on, and the certificate it made."""

    def __init__(self) -> None:
        super().__init__()
        self.env["TSQL_TLS"] = "1"

    @property
    def certificate(self) -> Path:
        """The self-signed certificate ../shared/tsql/start names on stderr."""
        return Path(f"/tmp/jembatan-tsql-{self.port}/server.crt")


@pytest.fixture(scope="module")
def tls() -> Iterator[TlsServer]:
    with started(TlsServer(), lambda kit: None) as kit:
        assert kit.certificate.is_file(), kit.certificate
        yield kit


class LegacyServer(TlsServer):
    """A TLS server limited to TLS 1.0, as SQL Server 2008 R2 and 2012 are without their
    TLS 1.2 update (KB3135244): the kit's server restarted with Babelfish's TDS protocol
    range at TLSv1 and OpenSSL's security level 0 (which TLS 1.0's SHA-1 signatures need)."""

    def start(self) -> None:
        super().start()
        self.run("stop")
        with open(f"/tmp/jembatan-tsql-{self.port}/data/postgresql.conf", "a") as conf:
            conf.write("babelfishpg_tds.tds_ssl_min_protocol_version = 'TLSv1'\n"
                       "babelfishpg_tds.tds_ssl_max_protocol_version = 'TLSv1'\n"
                       "ssl_ciphers = 'DEFAULT:@SECLEVEL=0'\n")
        self.run("resume")


@pytest.fixture(scope="module")
def legacy() -> Iterator[LegacyServer]:
    with started(LegacyServer(), lambda kit: None) as kit:
        yield kit


@pytest.fixture(scope="module")
def plain() -> Iterator[Kit]:
    with started(Kit(), lambda kit: None) as kit:
        yield kit


def driver18(kit: Kit, host: str = "127.0.0.1", **extra: str) -> str:
    """Driver 18's string for `kit` at `host`, with Driver 18's default Encrypt unless
    `extra` gives one."""
    odbc = kit.printed.replace("Server=127.0.0.1;", f"Server={host};")
    return odbc_string(odbc, MSODBC18, **({"Encrypt": ""} | extra))


def freetds_conf(tmp_path: Path, kit: Kit, host: str, ca_file: Path) -> str:
    """A freetds.conf section `plant` for `kit` at `host`, encryption required and checked
    against `ca_file`; the FreeTDS string that names it."""
    conf = tmp_path / "freetds.conf"
    conf.write_text(f"[plant]\n\thost = {host}\n\tport = {kit.port}\n\ttds version = 7.4\n"
                    f"\tencryption = require\n\tca file = {ca_file}\n"
                    f"\tcheck certificate hostname = yes\n")
    login = parts(kit.printed)
    return (f"Driver=FreeTDS;Servername=plant;UID={login['uid']};PWD={login['pwd']};"
            f"Database={login['database']}")


def encryption(odbc: str) -> str:
    """The server's view of a session of `odbc`: is it encrypted (TRUE / FALSE)?"""
    import pyodbc

    with contextlib.closing(pyodbc.connect(odbc, autocommit=True)) as conn:
        return conn.execute("SELECT encrypt_option FROM sys.dm_exec_connections "
                            "WHERE session_id = @@SPID").fetchone()[0]


def app_for(odbc: str) -> Flask:
    """Jembatan on `odbc` serving customers alone, reads unproven (the kit's database holds
    no other table: /health tries each served collection's mapping)."""
    return create_app({"database": {"odbc": odbc, "sql_dir": str(SHIPPED_SQL_DIR),
                                    "connect_timeout": 5, "prove_on_first_read": False},
                       "collections": {"serve": ["customers"]}})


def assert_served(odbc: str) -> None:
    """`odbc` connects, encrypted, and Jembatan's /health says so."""
    assert encryption(odbc) == "TRUE"
    import pyodbc

    with contextlib.closing(pyodbc.connect(odbc, autocommit=True)) as conn:
        conn.execute("IF OBJECT_ID('customers') IS NULL " + table_statements("mssql")[0])
    response = app_for(odbc).test_client().get("/health")
    assert (response.status_code, response.get_json()) == (200, {"status": "ok",
                                                                 "database": "ok"})


def assert_unavailable(odbc: str, reason: str, caplog: pytest.LogCaptureFixture) -> None:
    """`odbc` fails: /health is a 503 with `reason`, the log gives it with the driver's
    words, check-sql prints it; the password is in none of them."""
    app = app_for(odbc)
    with caplog.at_level(logging.ERROR, logger="jembatan.db"):
        response = app.test_client().get("/health")
    assert (response.status_code, response.headers["Retry-After"], response.get_json()) == (
        503, "5", {"status": "unavailable", "database": reason})
    logged = [r.getMessage() for r in caplog.records if r.name == "jembatan.db"]
    assert len(logged) == 1 and f": {reason} (('08001', '[08001] " in logged[0], logged
    checked: Result = app.test_cli_runner().invoke(args=["check-sql"])
    assert checked.exit_code == 1
    assert checked.output.endswith(f"cannot be reached ({reason}): nothing was checked.\n")
    assert PASSWORD not in response.get_data(as_text=True) + logged[0] + checked.output


# -- Microsoft's ODBC Driver 18 --------------------------------------------------------------


def test_driver18_trusts_the_certificate_in_its_store(tls: TlsServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Driver 18's default, the certificate trusted through SSL_CERT_FILE: encrypted."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls.certificate))
    assert_served(driver18(tls))


def test_driver18_trusting_any_certificate_as_the_last_resort(
        tls: TlsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """TrustServerCertificate=yes: encrypted, the certificate unchecked."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    assert_served(driver18(tls, TrustServerCertificate="yes"))


def test_driver18_refuses_a_certificate_it_does_not_trust(
        tls: TlsServer, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A self-signed certificate this host does not hold: 'certificate verify failed'."""
    monkeypatch.setenv("SSL_CERT_FILE", str(PUBLIC_CAS))
    assert_unavailable(driver18(tls), UNTRUSTED, caplog)


# (host connected to, HostNameInCertificate): Driver 18 18.6 takes the certificate when it
# holds either name (an extra HostNameInCertificate does not undo the server's own name).
NAMES = [(OTHER_NAME, ""), (OTHER_NAME, "wb01.plant.local")]
NAMES_HELD = [("127.0.0.1", "wb01.plant.local"), (OTHER_NAME, "localhost")]


@pytest.mark.parametrize(("host", "in_certificate"), NAMES)
def test_driver18_refuses_a_certificate_for_other_names(
        tls: TlsServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        host: str, in_certificate: str) -> None:
    """A trusted certificate that holds neither name: 'subject name does not match'."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls.certificate))
    odbc = driver18(tls, host, HostNameInCertificate=in_certificate)
    assert_unavailable(odbc, NAME_LACKING, caplog)


@pytest.mark.parametrize(("host", "in_certificate"), NAMES_HELD)
def test_driver18_takes_a_certificate_holding_either_name(
        tls: TlsServer, monkeypatch: pytest.MonkeyPatch, host: str,
        in_certificate: str) -> None:
    """The certificate holds the host connected to or HostNameInCertificate: either does."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls.certificate))
    assert_served(driver18(tls, host, HostNameInCertificate=in_certificate))


@pytest.mark.parametrize("trust", ["", "yes"])
def test_driver18_default_against_a_server_without_tls(
        plain: Kit, caplog: pytest.LogCaptureFixture, trust: str) -> None:
    """Encrypt mandatory and a server that offers none: 'Encryption not supported', whether
    the certificate would be trusted or not."""
    assert_unavailable(driver18(plain, TrustServerCertificate=trust), NO_TLS, caplog)


# -- FreeTDS ---------------------------------------------------------------------------------


def test_freetds_checks_the_certificate_named_in_freetds_conf(
        tls: TlsServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """encryption = require, ca file = the server's certificate, its host name checked."""
    monkeypatch.setenv("FREETDSCONF", str(tmp_path / "freetds.conf"))
    assert_served(freetds_conf(tmp_path, tls, "127.0.0.1", tls.certificate))


def test_freetds_takes_no_certificate_check_from_the_string(tls: TlsServer,
                                                           tmp_path: Path) -> None:
    """Encryption=require in the string encrypts; a `ca file` there (one that does not
    exist) is ignored, so the certificate goes unchecked: freetds.conf it must be."""
    absent = tmp_path / "no-such-ca.pem"
    assert_served(odbc_string(tls.printed, FREETDS, Encryption="require",
                              **{"ca file": str(absent), "check certificate hostname": "yes"}))


@pytest.mark.parametrize("case", ["untrusted", "other name", "no TLS"])
def test_freetds_words_every_failed_handshake_alike(
        tls: TlsServer, plain: Kit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, case: str) -> None:
    """A certificate not trusted, a name it lacks, a server without TLS: FreeTDS says
    'Unable to connect to data source' for each, so the reason points at its settings."""
    kit, host, ca_file = {"untrusted": (tls, "127.0.0.1", PUBLIC_CAS),
                          "other name": (tls, OTHER_NAME, tls.certificate),
                          "no TLS": (plain, "127.0.0.1", tls.certificate)}[case]
    monkeypatch.setenv("FREETDSCONF", str(tmp_path / "freetds.conf"))
    assert_unavailable(freetds_conf(tmp_path, kit, host, ca_file), FREETDS_HANDSHAKE, caplog)


def test_freetds_given_driver18s_server_form(plain: Kit,
                                             caplog: pytest.LogCaptureFixture) -> None:
    """`Server=host,port` (Driver 18's form) is no address to FreeTDS: the same words as a
    failed handshake, and the reason names Server= and Port=."""
    given = parts(plain.printed)
    odbc = (f"Driver=FreeTDS;Server=127.0.0.1,{plain.port};TDS_Version=7.4;"
            f"UID={given['uid']};PWD={given['pwd']};Database={given['database']}")
    assert_unavailable(odbc, FREETDS_HANDSHAKE, caplog)


# -- A server limited to TLS 1.0 (SQL Server 2008 R2 / 2012 without KB3135244) ------------


def health_in_a_process(odbc: str, **env: str) -> tuple[int, dict[str, str]]:
    """/health of Jembatan on `odbc` serving customers alone in a fresh process with `env`
    added (OpenSSL reads OPENSSL_CONF once per process, as a service reads its unit's
    Environment=); the process creates the table first where the server can be reached."""
    script = ("import json, sys, pyodbc; from app import create_app\n"
              "try:\n"
              "    pyodbc.connect(sys.argv[1], autocommit=True).execute(sys.argv[3])\n"
              "except pyodbc.Error:\n"
              "    pass  # not reached: /health says why\n"
              "r = create_app({'database': {'odbc': sys.argv[1], 'sql_dir': sys.argv[2], "
              "'prove_on_first_read': False}, 'collections': {'serve': ['customers']}})"
              ".test_client().get('/health')\n"
              "print(json.dumps([r.status_code, r.get_json()]))")
    create = "IF OBJECT_ID('customers') IS NULL " + table_statements("mssql")[0]
    done = subprocess.run([sys.executable, "-c", script, odbc, str(SHIPPED_SQL_DIR), create],
                          env=os.environ | env, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    status, body = json.loads(done.stdout.strip().splitlines()[-1])
    return status, body


@pytest.mark.parametrize("encrypt", ["no", "yes"])
def test_driver18_refuses_a_server_limited_to_tls_1_0(legacy: LegacyServer,
                                                      encrypt: str) -> None:
    """Debian's OpenSSL and a TLS 1.0 server: refused whatever Encrypt= says (the login is
    encrypted even with Encrypt=no); the reason names the server's update and OPENSSL_CONF."""
    odbc = driver18(legacy, Encrypt=encrypt, TrustServerCertificate="yes")
    assert health_in_a_process(odbc) == (503, {"status": "unavailable", "database": OLD_TLS})


@pytest.mark.parametrize(("encrypt", "encrypted"), [("no", "FALSE"), ("yes", "TRUE")])
def test_driver18_reaches_a_tls_1_0_server_with_the_shipped_openssl_conf(
        legacy: LegacyServer, encrypt: str, encrypted: str) -> None:
    """With docs/examples/openssl-legacy-tls.cnf as OPENSSL_CONF, the same strings connect:
    Encrypt=no encrypts the login only, Encrypt=yes the whole session (TLS 1.0)."""
    odbc = driver18(legacy, Encrypt=encrypt, TrustServerCertificate="yes")
    assert health_in_a_process(odbc, OPENSSL_CONF=str(LEGACY_CONF)) == (
        200, {"status": "ok", "database": "ok"})
    script = ("import sys, pyodbc; print(pyodbc.connect(sys.argv[1]).execute("
              "'SELECT encrypt_option FROM sys.dm_exec_connections "
              "WHERE session_id = @@SPID').fetchone()[0])")
    done = subprocess.run([sys.executable, "-c", script, odbc], capture_output=True,
                          text=True, env=os.environ | {"OPENSSL_CONF": str(LEGACY_CONF)},
                          timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, encrypted), done.stderr[-2000:]


def test_freetds_reaches_a_tls_1_0_server_as_it_is(legacy: LegacyServer) -> None:
    """FreeTDS (GnuTLS) takes TLS 1.0 without a setting: Encryption=require encrypts."""
    odbc = odbc_string(legacy.printed, FREETDS, Encryption="require")
    assert encryption(odbc) == "TRUE"


# -- The strings the docs give -------------------------------------------------------------

# Every document a plant reads: the README, CONTRIBUTING.md, every guide in docs/ (the
# driver strings are in docs/adapting.md, the deployment's in docs/deploy.md) and the example
# configuration.
DOCUMENTS = ("README.md", "CONTRIBUTING.md", "config.example.toml",
             *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")))
DOCUMENTED = re.compile(r"Driver=\{?(?:ODBC Driver 18 for SQL Server|FreeTDS)\}?;[^'\"`\s]+")


def documented_strings() -> list[str]:
    """Every SQL Server connection string of the README, CONTRIBUTING.md, docs/*.md and
    config.example.toml, as written there."""
    found = {m.group(0) for doc in DOCUMENTS
             for m in DOCUMENTED.finditer((ROOT / doc).read_text(encoding="utf-8"))}
    return sorted(found)


def at_the_test_server(documented: str, kit: Kit) -> str:
    """`documented` with the test server's host, port, login and database in place of the
    plant's, every other keyword as written."""
    given, login = parts(documented), parts(kit.printed)
    server = f"127.0.0.1,{kit.port}" if "," in given["server"] else "127.0.0.1"
    place = {"server": server, "port": str(kit.port), "uid": login["uid"],
             "pwd": login["pwd"], "database": login["database"]}
    return ";".join(f"{key}={place[key.lower()]}" if key.lower() in place else f"{key}={value}"
                    for key, value in (item.split("=", 1) for item in documented.split(";")))


def test_the_documents_give_both_drivers_strings() -> None:
    """The docs give Driver 18's strings (host,port; each Encrypt setting) and FreeTDS's."""
    strings = documented_strings()
    drivers18 = [s for s in strings if "ODBC Driver 18" in s]
    assert {parts(s).get("encrypt") for s in drivers18} >= {"yes", "no"}
    assert all("," in parts(s)["server"] and "port" not in parts(s) for s in drivers18)
    assert all("port" in parts(s) and "," not in parts(s)["server"]
               for s in strings if "FreeTDS" in s)
    assert len(strings) >= 8, strings


@pytest.mark.parametrize("documented", documented_strings())
def test_every_documented_string_connects(documented: str, tls: TlsServer,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each string of the docs, at the TLS test server (its certificate in this host's
    store), connects; encrypted where the string asks for encryption."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls.certificate))
    asked = parts(documented)
    encrypts = asked.get("encrypt", "yes") != "no" if "ODBC Driver 18" in documented else \
        asked.get("encryption") == "require"
    assert encryption(at_the_test_server(documented, tls)) == ("TRUE" if encrypts else "FALSE")
