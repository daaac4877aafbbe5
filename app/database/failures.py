"""Why a database error is the database's state (a 503, its reason in /health, the log and
the metrics) rather than the query's own (a 500): the three tables, by the driver's words,
by the native error number and by SQLSTATE, and `unavailable_reason`, which reads them. And
which of the query's own errors are a mapping the database refuses (a column or a table it
lacks, a syntax error: `MappingFault`, read by `mapping_fault` from three tables of the same
kinds), which the service answers as a collection not mapped (503), never a 500."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass


def sqlstate(exc: Exception) -> str:
    """The SQLSTATE of an ODBC error (pyodbc puts it first), else ''."""
    return exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""


def _message(exc: Exception) -> str:
    """The driver's words of an ODBC error (pyodbc puts them second), else ''."""
    return str(exc.args[1]) if len(exc.args) > 1 else ""


def _native_errors(exc: Exception) -> list[int]:
    """The server's (or driver's) native error numbers in a pyodbc message: each diagnostic
    record ends "... (18456) (SQLDriverConnect)"."""
    return [int(n) for n in re.findall(r"\((-?\d+)\)\s*\(SQL\w+\)", _message(exc))]


# Why a database error is the database's state (503, the reason in /health, the log and the
# metrics) rather than the query's own (500), in three tables: first by the driver's words
# where only words tell the cause (MESSAGE_REASONS: TLS), then by the native error number
# (SQL Server's own, which both FreeTDS and Microsoft's ODBC Driver 17/18 pass on, and
# FreeTDS's library numbers), then by SQLSTATE; anything else is the query's. The FreeTDS
# and Driver 18 rows marked in docs/operations.md ("When the database is in trouble") were
# seen on the T-SQL server of the tests; SQL
# Server's other numbers are from its documentation (no SQL Server on these machines).
NATIVE_REASONS: dict[int, str] = {
    18456: "login failed",  # Login failed for user
    18452: "login failed",  # the login is from an untrusted domain
    4060: "cannot open the database",  # the login's database does not exist or is offline
    911: "cannot open the database",  # no database of that name (USE, or Babelfish's login)
    233: "connection lost",  # no process is on the other end of the pipe
    10053: "connection lost", 10054: "connection lost",  # reset by the peer
    10060: "connection lost", 10061: "connection lost",  # timed out, refused
    # FreeTDS's own numbers for a failed link, its EXCOMM class (src/tds/util.c): out of
    # sync, connection failed, read failed, write failed, no socket, unreachable,
    # unexpected EOF (a server stopped under a query), bad token, out-of-band, close failed
    **dict.fromkeys((20001, 20002, 20004, 20006, 20008, 20009, 20017, 20020, 20022, 20056),
                    "connection lost"),
    20003: "query timed out",  # FreeTDS: the server did not answer in time
    -2: "query timed out",  # SQL Server's client-side timeout
    1205: "database busy",  # chosen as a deadlock victim
    701: "database busy", 8645: "database busy",  # out of memory, memory grant timeout
    8628: "database busy",  # a time-out while waiting to optimize the query
    17809: "database busy",  # the server's connection limit
    40613: "database busy", 40197: "database busy", 40501: "database busy",  # unavailable
    49918: "database busy", 49919: "database busy", 49920: "database busy",  # throttled
}
STATE_REASONS: dict[str, str] = {
    "HYT00": "query timed out", "HYT01": "query timed out", "HY008": "query timed out",
    "57014": "query timed out",  # PostgreSQL's cancel
    "08": "connection lost",  # the whole class: cannot connect, link failure, ...
    "57P": "connection lost",  # PostgreSQL: the server is shutting down or restarting
    "HY117": "connection lost", "IM002": "connection lost",
    "40001": "database busy", "40P01": "database busy",  # deadlock victim: worth a retry
    "53300": "database busy",  # PostgreSQL: too many connections
    "28000": "login failed", "28P01": "login failed",
}
# What a driver says only in words (Driver 18's native number is -1 or 20, FreeTDS's 0): the
# TLS handshake's failures, each with what to change. Searched first, in this order, in the
# message, case-insensitive. Driver 18 (OpenSSL) names the cause (a server limited to TLS
# 1.0 fails on its SHA-1 signatures, whatever Encrypt= says); FreeTDS (GnuTLS) has one
# text for every failed handshake (a certificate not trusted, a name it lacks, a server
# without TLS, an `encryption` value it does not know) and gives no cause; it says the same
# of a host name it cannot resolve and of Driver 18's `Server=host,port` form.
MESSAGE_REASONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reason) for pattern, reason in (
        (r"certificate verify failed:subject name does not match host name",
         "the server's certificate is for other names: connect by a name it holds or set "
         "HostNameInCertificate to one"),
        (r"certificate verify failed",
         "the server's certificate is not trusted: install its CA on this host or set "
         "TrustServerCertificate=yes"),
        (r"legacy sigalg disallowed or unsupported",
         "the server speaks only TLS older than 1.2: give it its TLS 1.2 update "
         "(KB3135244), or allow TLS 1.0 for Jembatan with OPENSSL_CONF"),
        (r"Encryption not supported on SQL Server",
         "the server does not support encryption: set Encrypt=no or enable TLS on the "
         "server"),
        (r"\[FreeTDS\]\[SQL Server\]Unable to connect to data source",
         "FreeTDS could not connect: check Server= (a name this host resolves, the port in "
         "Port=) and its encryption settings (encryption, ca file, host name)"),
    ))


def unavailable_reason(exc: Exception) -> str | None:
    """A short reason when the error is the database's state, None when it is the query's."""
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "")
        if name == "SQLITE_INTERRUPT":
            return "query timed out"
        if name in ("SQLITE_BUSY", "SQLITE_LOCKED"):
            return "database busy"
        if name in ("SQLITE_ERROR", "SQLITE_RANGE", "SQLITE_MISMATCH") or isinstance(
                exc, sqlite3.ProgrammingError | sqlite3.InterfaceError):
            return None
        return "database file unreadable"
    text = _message(exc)
    for pattern, reason in MESSAGE_REASONS:
        if pattern.search(text):
            return reason
    for number in _native_errors(exc):
        if number in NATIVE_REASONS:
            return NATIVE_REASONS[number]
    state = sqlstate(exc)
    for prefix in (state, state[:3], state[:2]):
        if prefix in STATE_REASONS:
            return STATE_REASONS[prefix]
    return None



@dataclass(frozen=True)
class MappingFault:
    """What the database refused in a query's text: a name it does not know, or its syntax."""

    kind: str  # a key of FAULT_WORDS: "column", "table", "function", "syntax"
    name: str  # the name it does not know, or the text a syntax error is near ('' unknown)

    def said(self) -> str:
        """'the database has no column nBerat1', in words a client may read."""
        what = FAULT_WORDS[self.kind]
        if self.kind == "syntax":
            return what + (f" near {self.name}" if self.name else "")
        return f"{what} {self.name}" if self.name else what


FAULT_WORDS = {"column": "the database has no column", "table": "the database has no table "
               "or view", "function": "the database has no function",
               "syntax": "the database refuses its syntax",
               "query": "the database refuses the query"}  # any other error of records
# A mapping the database refuses, by the driver's words first (they name what it refused;
# sqlite3's, the SQLite ODBC driver's, SQL Server's through FreeTDS and Driver 18, and
# PostgreSQL's through psqlODBC), then by SQL Server's native number, then by SQLSTATE
# (ODBC's 42S22/42S02, PostgreSQL's 42703/42P01/42601/42883).
FAULT_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind) for pattern, kind in (
        (r"no such column: ?([^\s(]+)", "column"),
        (r"no such table: ?([^\s(]+)", "table"),
        (r"no such function: ?([^\s(]+)", "function"),
        (r'near "([^"]*)": syntax error', "syntax"),
        (r"Invalid column name '([^']*)'", "column"),
        (r"Invalid object name '([^']*)'", "table"),
        (r"The multi-part identifier \"([^\"]*)\" could not be bound", "column"),
        (r"'([^']*)' is not a recognized built-in function name", "function"),
        (r"Incorrect syntax near (?:the keyword )?'([^']*)'", "syntax"),
        (r"syntax error near '([^']*)'", "syntax"),  # Babelfish's T-SQL parser
        (r'column "([^"]*)" does not exist', "column"),
        (r"column ([^\s\"]+) does not exist", "column"),
        (r'relation "([^"]*)" does not exist', "table"),
        (r"function ([^\s(]+)\(.*?\) does not exist", "function"),
        (r'syntax error at or near "([^"]*)"', "syntax"),
        (r"syntax error at end of input()", "syntax"),
    ))
FAULT_NATIVES: dict[int, str] = {207: "column", 4104: "column", 208: "table", 195: "function",
                                 102: "syntax", 156: "syntax"}
FAULT_STATES: dict[str, str] = {"42S22": "column", "42703": "column", "42S02": "table",
                                "42P01": "table", "42883": "function", "42601": "syntax"}


def mapping_fault(exc: Exception) -> MappingFault | None:
    """What a query's own error refused in its text, when it is a name or the syntax; None
    for anything else (a value, a permission, the database's state)."""
    text = str(exc) if isinstance(exc, sqlite3.Error) else _message(exc) or str(exc)
    for pattern, kind in FAULT_PATTERNS:
        if m := pattern.search(text):
            return MappingFault(kind, m.group(1))
    if isinstance(exc, sqlite3.Error):
        return None
    for number in _native_errors(exc):
        if number in FAULT_NATIVES:
            return MappingFault(FAULT_NATIVES[number], "")
    kind = FAULT_STATES.get(sqlstate(exc))
    return MappingFault(kind, "") if kind else None
