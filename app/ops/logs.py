"""Logs an operator can use: one access line per request under a request id, in plain text
or JSON lines, to stderr (where gunicorn and systemd's journal collect it). Nothing here knows
the web framework: the HTTP face (app/http/logged.py) gives each request its id and its
`Outcome`, and writes its line with `write_access`."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from hashlib import sha256
from typing import Any
from urllib.parse import unquote_plus

from .config import LogSettings

access = logging.getLogger("jembatan.access")
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")  # a client's X-Request-ID kept as it is

# What no log line may carry raw (docs/deploy.md, section 2, "Logs"): the C0 controls (a line feed
# would start a forged second line; ESC, OSC and BEL drive a terminal), DEL and the C1
# controls, and the Unicode line and paragraph separators. Written as JSON writes them.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _SHORT.get(char) or f"\\u{ord(char):04x}"


def escaped(text: str) -> str:
    """`text` with every control character written as JSON writes it (\\n, \\u001b, ...)."""
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


# A query argument whose name holds one of these (in any case, percent-encoded or not) is
# taken for a secret: its value is written *** in every log line (docs/deploy.md, section 2,
# "Logs").
SECRET_WORDS = ("key", "token", "secret", "passw", "pwd", "auth", "credential", "session")
_SECRET_NAME = re.compile("|".join(SECRET_WORDS))  # of lower-case text (IGNORECASE: 5x slower)


# The keys this process's settings hold (the API keys and the metrics key), which
# `without_keys` finds wherever a logged text holds one of them: the SHA-256 of each, and
# the text of those the settings give as text (not key_sha256). Kept for the process, as
# its log handler is: every app built in it adds its own (hide_keys).
_HIDDEN: set[bytes] = set()
_TEXTS: set[str] = set()
_DIGESTS_ALONE: set[bytes] = set()  # of the keys known by their digest alone
KEY_MIN = 16  # characters of a key at least (app/ops/config.py MIN_KEY_LENGTH)
KEY_MAX = 256  # characters of a piece of text looked at as a key, at most
SLASHED_MAX = 16  # the segments of a run of text whose slashed stretches are looked at
# A run of text that a key may be: between the characters that part a URL's arguments and a
# log line's words (a key sent as ?vehno=KEY, ;api_key=KEY, KEY,id or in quotes, or before
# a control byte a server writes escaped, KEY\x00); a "/" is within it, as a base64 key may
# hold one.
_RUN = re.compile("[^?&;#,\\\\\\s'\"\x00-\x1f\x7f]{" + str(KEY_MIN) + ",}")


def hide_keys(digests: Iterable[bytes], texts: Iterable[str] = ()) -> None:
    """Have every log line of this process written without these keys: `digests`, the
    SHA-256 of each, and `texts`, those of them whose text the settings give."""
    hashed, given = set(digests), set(texts)
    _HIDDEN.update(hashed)
    _TEXTS.update(given)
    _DIGESTS_ALONE.update(hashed - {sha256(t.encode()).digest() for t in given})


def _pieces(run: str) -> Iterator[str]:
    """The stretches of `run` that may be a key: each stretch of whole segments between its
    slashes up to KEY_MAX characters (when it has up to SLASHED_MAX segments; else each
    segment alone), and of each, what follows its first "=" (a value: name=KEY)."""
    segments = run.split("/")
    widest = len(segments) if len(segments) <= SLASHED_MAX else 1
    for start in range(len(segments)):
        piece = segments[start]
        for end in range(start + 1, min(start + widest, len(segments)) + 1):
            if end > start + 1:
                piece += "/" + segments[end - 1]
            if len(piece) > KEY_MAX:
                break
            if len(piece) >= KEY_MIN:
                yield piece
                if "=" in piece:
                    name, _, value = piece.partition("=")
                    if len(value) >= KEY_MIN and "/" not in name:
                        yield value
                    if len(name) >= KEY_MIN and "/" not in name:
                        yield name  # a key sent as an argument's name: ?KEY=1


def without_keys(text: str) -> str:
    """`text` with every configured key in it, as sent or percent-decoded, written ***. A
    key the settings give as text is found wherever it is; the others (key_sha256), and an
    encoded key, by their digest: candidate stretches (`_pieces` of each `_RUN`, KEY_MIN
    characters at least) are hashed and looked up among the digests (bench/key_redaction.py
    measures what it costs a request)."""
    if not _HIDDEN or len(text) < KEY_MIN:
        return text
    for key in _TEXTS:
        if key in text:
            text = text.replace(key, "***")
    if not _DIGESTS_ALONE:  # every key known by its text: only an encoded one is left
        if "%" not in text and "+" not in text:
            return text
        decoded = unquote_plus(text)
        if not any(key in decoded for key in _TEXTS):
            return text
    found = [piece for run in _RUN.findall(text) for piece in _pieces(run) if _holds_key(piece)]
    # The least that holds a key is written ***: name=KEY's value, not the whole of it.
    found = [f for f in found if not any(g != f and g in f for g in found)]
    for piece in sorted(found, key=len, reverse=True):
        text = text.replace(piece, "***")
    return text


def _holds_key(piece: str) -> bool:
    """Whether `piece` is a key by its digest, as sent, or once percent-decoded (up to three
    times: %2520 is a blank encoded twice): the decoded text whole, or any run of it between
    the characters that part words (KEY%0A, %20KEY, +KEY+: a key beside a blank or a
    control byte)."""
    if sha256(piece.encode()).digest() in _HIDDEN:
        return True
    decoded = piece
    for _ in range(3):
        if "%" not in decoded and "+" not in decoded:
            return False
        decoded, before = unquote_plus(decoded), decoded
        if decoded == before:
            return False
        if sha256(decoded.encode()).digest() in _HIDDEN or any(
                sha256(p.encode()).digest() in _HIDDEN
                for run in _RUN.findall(decoded) for p in _pieces(run)):
            return True
    return False


def redacted(path: str) -> str:
    """A path with its query as logged: the value of every argument that looks like a key
    replaced by ***, and any configured key, wherever it is (`without_keys`)."""
    return _named_secrets_hidden(without_keys(path))


def _named_secrets_hidden(path: str) -> str:
    """The value of every argument whose name looks like a key's replaced by ***."""
    root, mark, query = path.partition("?")
    if not mark or not _SECRET_NAME.search(
            (unquote_plus(query) if "%" in query else query).lower()):
        return path
    pairs = []
    for pair in query.split("&"):
        name, equals, _ = pair.partition("=")
        secret = equals and _SECRET_NAME.search(unquote_plus(name).lower())
        pairs.append(f"{name}=***" if secret else pair)
    return f"{root}?{'&'.join(pairs)}"


# Such an argument in a line of free text (a request line a server quotes): its value runs to
# the next &, blank, quote or #; one already written *** (a connection string's PWD=***,
# masked where it was logged) is left as it is, with what follows it.
_SECRET_ARGUMENT = re.compile(
    "([?&;][^=&\\s'\"?#]*(?:" + "|".join(SECRET_WORDS) + ")[^=&\\s'\"?#]*=)(?!\\*\\*\\*)"
    "[^&\\s'\"#]*", re.IGNORECASE)


class SecretsHidden(logging.Filter):
    """A logger's records with the value of every argument that looks like a key written ***
    (gunicorn's own warning quotes the request line of a request it refuses)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = _SECRET_ARGUMENT.sub("\\1***", without_keys(message))
        if hidden != message:
            record.msg, record.args = hidden, ()
        return True


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """stderr as it is when a line is written (a test runner swaps it)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


class _SecondsKept(logging.Formatter):
    """formatTime with the text of the last whole second kept: every line of that second
    shares it (time.localtime and strftime look only at the whole seconds), so that each
    access line does not format the date again."""

    _kept: tuple[int, str | None, str] = (-1, None, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        second = int(record.created)
        kept_second, kept_format, text = self._kept
        if second != kept_second or datefmt != kept_format:
            text = time.strftime(datefmt or self.default_time_format, self.converter(second))
            self._kept = (second, datefmt, text)
        if datefmt or not self.default_msec_format:
            return text
        return self.default_msec_format % (text, record.msecs)


class JsonLines(_SecondsKept):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
                                "level": record.levelname, "logger": record.name,
                                "message": record.getMessage()}
        line |= getattr(record, "fields", {})
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        text = json.dumps(line, ensure_ascii=False, default=str)
        # json escapes the C0 controls; DEL, the C1 controls and U+2028/2029 too here.
        return escaped(text)


class Plain(_SecondsKept):
    """One line a record: its message's control characters escaped as JSON escapes them, so
    that nothing a client sends can start a line of its own. A traceback follows on the
    lines after, each indented: an exception's text may hold a client's line feed, and no
    line but a record's first starts in the first column."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escaped(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if "\n" in text:  # a traceback or stack: its lines indented, their controls escaped
            first, *rest = text.split("\n")
            text = first + "".join(f"\n    {escaped(line)}" for line in rest)
        return text


# The database's lines (a slow query's parameters are what a client sent: a key sent as
# ?vehno=KEY among them) with what SecretsHidden hides.
_DATABASE_FILTER = SecretsHidden()


def configure(settings: LogSettings) -> None:
    """One handler on the `jembatan` loggers, set up once per process."""
    logging.getLogger("jembatan.db").addFilter(_DATABASE_FILTER)
    logger = logging.getLogger("jembatan")
    formatter = JsonLines() if settings.format == "json" else Plain()
    handler = next((h for h in logger.handlers if isinstance(h, _Stderr)), None)
    if handler is None:
        # Records still propagate to the root logger: an application that embeds Jembatan,
        # or a test, can collect them there too.
        handler = _Stderr()
        logger.addHandler(handler)
    handler.setFormatter(formatter)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)


def share_handler(logger: logging.Logger) -> None:
    """`logger` (a server's own, as waitress's) written by the `jembatan` loggers' handler, in
    their format, from INFO up, and not passed on to the root logger: set up after
    configure()."""
    logger.handlers[:] = [h for h in logging.getLogger("jembatan").handlers
                          if isinstance(h, _Stderr)]
    logger.setLevel(logging.INFO)
    logger.propagate = False


def new_id() -> str:
    """uuid.uuid4().hex, without building a UUID object (a third of the time): 128 random
    bits with the version (4) and variant (RFC 4122) bits set as uuid4 sets them."""
    number = int.from_bytes(os.urandom(16), "big")
    return "%032x" % (number & _CLEAR | _SET)


_CLEAR = ~(0xC000 << 48 | 0xF000 << 64)
_SET = 0x8000 << 48 | 0x4000 << 64


_caller: tuple[str, int, str] | None = None  # where _write_access is called from


def _write_access(line: str, args: tuple[Any, ...], fields: dict[str, Any]) -> None:
    """access.info(line, *args, extra={"fields": fields}), the same record, without walking
    up the stack on every request for the caller's file, line and function (findCaller):
    it has one caller, so they are found once."""
    global _caller
    if access.isEnabledFor(logging.INFO):
        if _caller is None:
            _caller = access.findCaller(stacklevel=2)[:3]
        path, number, function = _caller
        access.handle(access.makeRecord(access.name, logging.INFO, path, number, line, args,
                                        None, function, {"fields": fields}))


@dataclass
class Outcome:
    """What a request sent, as its face reports it, for its access line and the metrics: how
    many records (or summary groups; None: not a read), whether its stream broke off, and a
    note for the end of its line (app/mcp/protocol.py: the method and the tool called)."""

    rows: int | None = None
    broken: bool = False
    note: str | None = None


def write_access(client: str, rid: str, method: str, path: str, status: int, took: float,
                 outcome: Outcome, key: str | None) -> None:
    """The access line of a request that is done: its client, id, method, path as logged
    (`redacted`), status, seconds, the records its outcome sent, its key's name and note."""
    sent = outcome.rows
    fields = {"request_id": rid, "client": client, "method": method, "path": path,
              "status": status, "seconds": round(took, 4), "rows": sent}
    text = "%s %s %s %s %d %.3fs rows=%s"
    args = [client, rid, method, path, status, took, "-" if sent is None else sent]
    for name, value, form in (("key", key, " key=%s"), ("note", outcome.note, " %s")):
        if value is not None:
            text += form
            args.append(value)
            fields[name] = value
    _write_access(text, tuple(args), fields)
