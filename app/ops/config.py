"""Settings: read once at start from TOML, the environment and create_app's overrides."""

from __future__ import annotations

import difflib
import hashlib
import logging
import os
import re
import secrets as random_secrets
import stat
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, make_dataclass, replace
from functools import cached_property
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from ..model.collections import COLLECTIONS, Collection
from ..model.labels import COLLECTION_LABELS, DATE_LABELS, FIELD_LABELS, field_names
from ..model.schemas import String

# The queries shipped with Jembatan: sql/ beside app/ in a checkout (and an editable
# install); app/sql/ in an installed wheel (setup.cfg installs sql/ there).
_PACKAGE = Path(__file__).resolve().parent.parent  # app/, above app/ops/
SHIPPED_SQL_DIR = (_PACKAGE / "sql" if (_PACKAGE / "sql" / "shapes.sql").is_file()
                   else _PACKAGE.parent / "sql")


class ConfigError(Exception):
    """A setting is missing, unknown or of the wrong type; the message names it."""


# The names of this machine's loopback, which a request may always ask for: no page of another
# site can make a browser send them (a DNS-rebinding page sends its own name).
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class PublicUrl:
    """api.public_url taken apart: the scheme, the host (and port) as a Host header names it,
    and the root the service's own paths (url_prefix included) follow in the public URL."""

    scheme: str
    netloc: str
    root: str

    @property
    def hostname(self) -> str:
        return host_name(self.netloc)


def host_name(host: str) -> str:
    """The name of a Host header's value, without its port, in lower case ("[::1]:8000":
    "::1"); a value that is not host[:port] as it is (no allowed host is like it)."""
    host = host.strip().lower()
    name, colon, port = host.rpartition(":") if host.rfind(":") > host.rfind("]") else (
        host, "", "")
    if colon and not (port.isdigit() and len(port) <= 5 and int(port) <= 65535):
        return host
    if name.startswith("[") and name.endswith("]"):
        return name[1:-1]
    return host if "[" in name or "]" in name or (colon and ":" in name) else name


MIN_KEY_LENGTH = 16  # characters of an API key at least (docs/api.md §10)
# What a named key's table in [auth.keys.<name>] takes (docs/api.md §10, docs/keys.md).
KEY_SETTINGS = ("key", "key_sha256", "collections", "fields", "where", "max_concurrent")
DEFAULT_MAX_CONCURRENT = 2  # a named key's reads at once per process, when it names none
_KEY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class ApiKey:
    """One API key (docs/api.md §10): its name (what the access log and /metrics say, never
    the key), the SHA-256 digest of the key, and its scope: the collections it reads (None:
    every one served), the row condition every read of it has (field, values: one value is
    equality, several are IN), how many of its reads may run at once in one process (0: no
    limit), and the fields its records send (None: all)."""

    name: str
    digest: bytes
    collections: tuple[str, ...] | None = None
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    max_concurrent: int = 0
    fields: tuple[str, ...] | None = None
    # The key itself where the settings give it (api_keys, key = "..."), "" for key_sha256:
    # what the log hides (app/ops/logs.py), never compared, shown or sent.
    text: str = field(default="", compare=False, repr=False)

    def reads(self, collection: str) -> bool:
        """Whether this key reads `collection` at all."""
        return self.collections is None or collection in self.collections

    @property
    def reads_everything(self) -> bool:
        """Whether this key has no scope: every collection, row and field (an entry of
        auth.api_keys, or a named key with no collections, where or fields)."""
        return self.collections is None and not self.where and self.fields is None


STATE_DIRECTORY = "STATE_DIRECTORY"  # what systemd's StateDirectory= gives the service
SECRET_FILE = "bookmark-secret"  # in database.proof_dir, when [feed] bookmark_secrets is []
MIN_SECRET = 16  # characters of a bookmark secret, at least


def _served(names: list[str]) -> tuple[str, ...]:
    """collections.serve checked against the table of collections: every name one of the
    ten, none twice (a repeated name usually stands where another was meant); empty: all."""
    known = [c.name for c in COLLECTIONS]
    for n, name in enumerate(names):
        if name not in known:
            near = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"collections.serve: {name!r} is not a collection{hint}; "
                              f"the collections are: {', '.join(known)}")
        if name in names[:n]:
            raise ConfigError(f"collections.serve names {name!r} twice")
    return tuple(c for c in known if c in names or not names)


def _text_keys(names: list[str], serve: list[str]) -> tuple[str, ...]:
    """collections.text_keys checked: each a collection served that a text code may key
    (Collection.keyable_by_text), none twice."""
    keyable = [c.name for c in COLLECTIONS if c.keyable_by_text]
    served = _served(serve)
    for n, name in enumerate(names):
        if name not in keyable:
            raise ConfigError(f"collections.text_keys: {name!r} cannot be keyed by a text code; "
                              f"those that can: {', '.join(keyable)}")
        if name not in served:
            raise ConfigError(f"collections.text_keys: {name!r} is not served here "
                              f"(collections.serve)")
        if name in names[:n]:
            raise ConfigError(f"collections.text_keys names {name!r} twice")
    return tuple(names)


# What each site.<key> labels: (one, what the names it takes are).
_LABELLED = {"collections": ("collection", "the collections are: {}"),
             "dates": ("date field", "the date fields are: {}"),
             "fields": ("field of a record or key of a summary",
                        "give a field of docs/api.md §3 or a group or measure of §7")}


def _labels(key: str, given: Mapping[str, Any], defaults: Mapping[str, str],
            names: Sequence[str] = ()) -> dict[str, str]:
    """site.<key> checked: every name one Jembatan knows (`names`, else the defaults'; a
    misspelt one would silently leave the default), every label a non-empty string on one
    line; laid over the defaults."""
    known = list(names or defaults)
    for name, text in given.items():
        if name not in known:
            near = difflib.get_close_matches(name, known, n=1, cutoff=0.6) or \
                difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            what, which = _LABELLED[key]
            raise ConfigError(f"site.{key}: {name!r} is not a {what}{hint}; "
                              f"{which.format(', '.join(known))}")
        if not isinstance(text, str) or not text.strip() or "\n" in text:
            raise ConfigError(f"site.{key}.{name} must be a non-empty string on one "
                              f"line, not {text!r}")
    return {**defaults, **{name: text.strip() for name, text in given.items()}}


def _zone(name: str) -> ZoneInfo | None:
    """site.timezone checked: an IANA name this machine's time zone database holds."""
    name = name.strip()
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        pass
    known = available_timezones()
    if not known:
        raise ConfigError(f"site.timezone: this machine has no time zone database to find "
                          f"{name!r} in: install Debian's tzdata package (apt-get install "
                          f"tzdata) or the Python package tzdata (pip install tzdata)")
    near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise ConfigError(f"site.timezone: {name!r} is not a time zone{hint}; give the plant's "
                      f"IANA name, e.g. \"Asia/Jakarta\" (WIB), \"Asia/Makassar\" (WITA), "
                      f"\"Asia/Jayapura\" (WIT)")


# An origin as a browser sends it: scheme://host[:port], no path, no trailing slash.
_ORIGIN = re.compile(r"https?://[^/\s?#]+")


def _origins(given: list[str]) -> tuple[str, ...]:
    """mcp.allowed_origins checked: each an origin as a browser sends it (lower case)."""
    for origin in given:
        if not _ORIGIN.fullmatch(origin):
            raise ConfigError(f"mcp.allowed_origins: {origin!r} is not an origin; give each as "
                              f"a browser sends it, scheme://host[:port] with no path or "
                              f"trailing slash, e.g. \"https://assistant.plant.local\"")
    return tuple(o.lower() for o in given)


# Keys whose SHA-256 anyone can work out, so that a digest of one would let anyone in: a
# blank value (what `printf %s "$UNSET" | sha256sum` or `echo | sha256sum` prints: the
# empty string, a newline, up to two blanks of any kind) and the example keys the docs
# print (docs/keys.md, docs/api.md §10). A key_sha256 or a key that is one of them stops
# the start (docs/keys.md, "Make a key").
_BLANKS = " \t\r\n"
KNOWN_KEYS: tuple[str, ...] = ("", *_BLANKS, *(a + b for a in _BLANKS for b in _BLANKS),
                               "the-key", "a-long-random-key-0001",
                               "3f1c9e0b7a2d4c6e8f1a3b5c7d9e0f2a4b6c8d0e1f3a5b7c")
_KNOWN_DIGESTS = {hashlib.sha256(k.encode()).digest(): k for k in KNOWN_KEYS}


def _known(digest: bytes, where: str, hashed: bool = True) -> bytes:
    """`digest` unless it is one of a key anyone knows (KNOWN_KEYS); `hashed`: `where` gave
    the digest, not the key."""
    known = _KNOWN_DIGESTS.get(digest)
    if known is None:
        return digest
    what = ("an empty value (what `printf %s \"$VAR\" | sha256sum` prints when the variable "
            "is unset): it would let in a request that sends no key" if not known else
            f"a blank value ({known!r}, what `echo | sha256sum` prints for an empty one): "
            f"anyone could send it" if not known.strip() else
            f"the docs' example key {known!r}: anyone could send it")
    raise ConfigError(f"{where} is {'the SHA-256 of ' if hashed else ''}{what}. Make a key of "
                      f"your own with `openssl rand -hex 24`, and write its digest, from "
                      f"`printf %s 'the-key' | sha256sum`, or remove the key")


def _secret(key: str, where: str) -> bytes:
    """A key as given, checked: not empty, at least MIN_KEY_LENGTH characters, no space at
    either end; its SHA-256 digest, which is all that is kept of it."""
    if not key.strip():
        raise ConfigError(f"{where} is empty: an empty key would let anyone in; give a "
                          f"long random key (e.g. from `openssl rand -hex 24`) or remove it")
    if len(key) < MIN_KEY_LENGTH:
        raise ConfigError(f"{where} is {len(key)} characters long: a key must have at least "
                          f"{MIN_KEY_LENGTH} (e.g. from `openssl rand -hex 24`)")
    if key != key.strip():
        raise ConfigError(f"{where} begins or ends with a space, which no client would send")
    return _known(hashlib.sha256(key.encode()).digest(), where, hashed=False)


def _metrics_key(given: str) -> str:
    """api.metrics_key checked as an API key is, when it is set."""
    if given:
        _secret(given, "api.metrics_key")
    return given


def _digest(given: Any, where: str) -> bytes:
    """key_sha256: the hex SHA-256 of the key, as `printf %s KEY | sha256sum` prints it."""
    if not isinstance(given, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", given.strip()):
        raise ConfigError(f"{where} must be the key's SHA-256 in 64 hex digits, as "
                          f"`printf %s 'the-key' | sha256sum` prints it; got {given!r}")
    return _known(bytes.fromhex(given.strip()), where)


def _strings(given: Any, where: str) -> tuple[str, ...]:
    """A list of strings, or one string as a list of one."""
    items = [given] if isinstance(given, str) else given
    if not isinstance(items, list) or not items or not all(
            isinstance(v, str) and v for v in items):
        raise ConfigError(f"{where} must be a non-empty string or a non-empty list of "
                          f"non-empty strings, not {given!r}")
    return tuple(items)


def _scope_collections(given: Any, where: str, served: Sequence[str]) -> tuple[str, ...]:
    """A key's collections: each one served here."""
    names = _strings(given, where)
    for name in names:
        if name not in served:
            near = difflib.get_close_matches(name.lower(), served, n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"{where}: {name!r} is not a collection served here{hint}; the "
                              f"collections served are: {', '.join(served)}")
    return tuple(c for c in served if c in names)


def _where(given: Any, where: str, collections: Sequence[Collection]
           ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A key's row condition: {field = "v"} or {field = ["v1", "v2"]}, each field a text
    field of every collection the key reads (a code: transcode, custcode, suppcode, ...)."""
    if not isinstance(given, Mapping) or not given:
        raise ConfigError(f"{where} must be a table of fields, e.g. where = "
                          f"{{ transcode = \"T03\" }}, not {given!r}")
    out = []
    for name, values in given.items():
        for c in collections:
            declared = c.schema._declared_fields.get(name)
            if name not in c.fields or type(declared) is not String:
                kind = "no such field" if declared is None else "it is not a text field"
                raise ConfigError(
                    f"{where}.{name}: {c.name} cannot be scoped by {name!r} ({kind}); a "
                    f"row condition names a text field (a code) of every collection of the "
                    f"key: name fewer collections in its `collections`")
        out.append((name, _strings(values, f"{where}.{name}")))
    return tuple(out)


def _key_fields(given: Any, where: str, collections: Sequence[Collection]
                ) -> tuple[str, ...]:
    """A key's fields: each a field of every collection the key reads (docs/api.md §3);
    numberrow, a position and no value, is every key's where the collection has it."""
    names = _strings(given, where)
    for name in names:
        for c in collections if name != "numberrow" else ():
            if name not in c.schema._declared_fields:
                raise ConfigError(f"{where}: {name!r} is not a field of {c.name}; a key's "
                                  f"fields are fields of every collection of the key: name "
                                  f"fewer collections in its `collections`")
    for c in collections:  # its records come in that order: the order would tell them
        hidden = [f for f in c.order if f not in names]
        if hidden:
            raise ConfigError(f"{where}: {c.name}'s records come in the order of "
                              f"{', '.join(c.order)} (docs/api.md §2), which would tell the "
                              f"key what it may not read: add {', '.join(hidden)}")
    return names


def _named_key(name: str, table: Any, served: Sequence[str]) -> ApiKey:
    """One [auth.keys.<name>] table, checked (docs/api.md §10)."""
    at = f"auth.keys.{name}"
    if not _KEY_NAME.fullmatch(name):
        raise ConfigError(f"{at}: a key's name is letters, digits, '.', '_' and '-' (up to "
                          f"64), starting with a letter or digit; it names the key in the "
                          f"access log and /metrics")
    if not isinstance(table, Mapping):
        raise ConfigError(f"{at} must be a table: key = \"...\" or key_sha256 = \"...\", "
                          f"and its scope")
    unknown = [k for k in table if k not in KEY_SETTINGS]
    if unknown:
        raise ConfigError(f"{at}: unknown key {unknown[0]!r}; a key's table takes "
                          f"{', '.join(KEY_SETTINGS)}")
    if ("key" in table) == ("key_sha256" in table):
        raise ConfigError(f"{at} needs key = \"...\" or key_sha256 = \"<hex>\", one of them")
    if "key" in table:
        if not isinstance(table["key"], str):
            raise ConfigError(f"{at}.key must be a string")
        digest = _secret(table["key"], f"{at}.key")
    else:
        digest = _digest(table["key_sha256"], f"{at}.key_sha256")
    collections = (_scope_collections(table["collections"], f"{at}.collections", served)
                   if "collections" in table else None)
    scoped = [c for c in COLLECTIONS if c.name in (collections or served)]
    where = _where(table["where"], f"{at}.where", scoped) if "where" in table else ()
    fields = _key_fields(table["fields"], f"{at}.fields", scoped) if "fields" in table else None
    limit = table.get("max_concurrent", DEFAULT_MAX_CONCURRENT)
    if type(limit) is not int or limit < 0:
        raise ConfigError(f"{at}.max_concurrent must be a whole number, 0 (no limit) or more, "
                          f"not {limit!r}")
    return ApiKey(name, digest, collections, where, limit, fields, table.get("key", ""))


def _keys(api_keys: Sequence[str], named: Mapping[str, Any], served: Sequence[str]
          ) -> tuple[ApiKey, ...]:
    """Every key: api_keys' entries (full access, named key-1, key-2, ...), then the named
    keys; no two the same key."""
    keys = [ApiKey(f"key-{n}", _secret(key, f"auth.api_keys entry {n}"), text=key)
            for n, key in enumerate(api_keys, 1)]
    keys += [_named_key(name, table, served) for name, table in named.items()]
    for n, key in enumerate(keys):
        if key.name in (k.name for k in keys[:n]):
            raise ConfigError(f"auth.keys.{key.name}: the name is the one api_keys' entry "
                              f"{key.name[4:]} goes by; give the key another name")
        if key.digest in (k.digest for k in keys[:n]):
            raise ConfigError(f"auth: {key.name} is the same key as another; a key must "
                              f"tell who sent it, so give each its own")
    return tuple(keys)


def _public_url(given: str, prefix: str) -> PublicUrl | None:
    """api.public_url checked: http(s)://host[:port][/path], no query, no trailing slash; its
    path ends with api.url_prefix (the part before is what a proxy strips)."""
    if not given:
        return None
    parts = urlsplit(given)
    path = parts.path
    if (parts.scheme not in ("http", "https") or not parts.hostname or parts.query
            or parts.fragment or parts.username or path.endswith("/")
            or not path.endswith(prefix) or any(c.isspace() for c in given)):
        within = f", ending with api.url_prefix ({prefix})" if prefix else ""
        raise ConfigError(f"api.public_url: {given!r} is not the URL clients reach the "
                          f"service at; give scheme://host[:port][/path] with no trailing "
                          f"slash, query or user{within}, e.g. "
                          f"\"https://weighbridge.plant.local{prefix or '/api'}\"")
    return PublicUrl(parts.scheme, parts.netloc.lower(), path[:len(path) - len(prefix)])


def _allowed_hosts(given: list[str], public: PublicUrl | None) -> frozenset[str]:
    """api.allowed_hosts checked: each a host name or address without scheme, path or port
    ("*": any), with the loopback names and the public URL's host."""
    for name in given:
        if name != "*" and (not name.strip() or any(c in name for c in "/@?# ")
                            or (":" in name and not _ipv6(name.strip("[]")))):
            raise ConfigError(f"api.allowed_hosts: {name!r} is not a host name; give each as "
                              f"a name or address without scheme, path or port, e.g. "
                              f"\"weighbridge.plant.local\" or \"10.1.1.30\" (\"*\": any)")
    names = {host_name(n) if n.startswith("[") else n.lower() for n in given}
    return frozenset(names | LOOPBACK_NAMES | ({public.hostname} if public else set()))


def _ipv6(text: str) -> bool:
    try:
        return ip_address(text).version == 6
    except ValueError:
        return False


def _proxies(given: list[str]) -> tuple[IPv4Network | IPv6Network, ...]:
    """api.trusted_proxies checked: each an IP address or network (10.1.1.0/24)."""
    networks = []
    for address in given:
        try:
            networks.append(ip_network(address.strip(), strict=False))
        except ValueError:
            raise ConfigError(f"api.trusted_proxies: {address!r} is not an IP address or "
                              f"network; give the address nginx or IIS connects from, e.g. "
                              f"\"127.0.0.1\" or \"10.1.1.20\" (a network as "
                              f"\"10.1.1.0/24\")") from None
    return tuple(networks)


class UnsafePlace(ConfigError):
    """A file the service trusts is kept where another local user could write it."""


def unsafe_place(path: Path, secret: bool = False) -> str | None:
    """Why another local user than the service's could put or change a file at `path`, as
    OpenSSH's StrictModes asks of ~/.ssh, else None: `path` (where it exists) and each of its
    parents must belong to root or to the service's user, and none may be writable by its
    group or others, but for a parent with the sticky bit (/tmp), where nobody else may
    rename what the service owns. A `secret` file must not be readable by others either.
    Not checked on Windows, whose files have ACLs instead."""
    if os.name == "nt":
        return None
    me, path = os.geteuid(), path.absolute()
    for place in (path, *path.parents):
        try:
            st = place.stat()
        except OSError:
            continue  # made by the service when it first writes there, or never can be
        mode = stat.S_IMODE(st.st_mode)
        if st.st_uid not in (0, me):
            return f"{place} belongs to user {st.st_uid}, not to root or the service's ({me})"
        open_to = mode & (0o077 if secret and place == path else 0o022)
        if open_to and (place == path or not mode & stat.S_ISVTX):
            whom = " and ".join(w for w, bits in (("its group", 0o070), ("others", 0o007))
                                if open_to & bits)
            return f"{place} is open to {whom} (mode {mode:04o})"
    return None


def _proof_dir(given: str, cwd: Path, environ: Mapping[str, str]) -> Path:
    """database.proof_dir: as given; else the service manager's state directory (systemd's
    StateDirectory=, the shipped unit's /var/lib/jembatan) + proofs; else instance/proofs
    under the working directory. One another local user could write to stops the start: a
    verdict or a bookmark secret planted there would be believed."""
    state = environ.get(STATE_DIRECTORY, "").split(":")[0]
    path = Path(given) if given else Path(state) / "proofs" if state else (
        cwd / "instance" / "proofs")
    why = unsafe_place(path)
    if why:
        raise UnsafePlace(f"database.proof_dir ({path}): {why}, so another local user could "
                          f"plant a verdict of the proof or the bookmark secret there: make "
                          f"it the service's alone (chown and chmod go-w), or set "
                          f"database.proof_dir to a directory that is")
    return path


def _bookmark_secrets(given: list[str]) -> tuple[bytes, ...]:
    """feed.bookmark_secrets checked: each long enough, none twice; () when none is given
    (create_app then reads kept_secret)."""
    for secret in given:
        if len(secret.strip()) < MIN_SECRET:
            raise ConfigError(f"feed.bookmark_secrets: each secret must have at least "
                              f"{MIN_SECRET} characters; make one with: python3 -c "
                              f"\"import secrets; print(secrets.token_urlsafe(32))\"")
    if len(set(given)) < len(given):
        raise ConfigError("feed.bookmark_secrets names a secret twice")
    return tuple(s.strip().encode() for s in given)


def kept_secret(directory: Path) -> bytes:
    """The bookmark secret kept in `directory` (database.proof_dir) when [feed]
    bookmark_secrets is not set, made there by the first process that needs it: written
    whole to a file of its own, mode 0600, then linked to its name, which fails if another
    process (or thread) linked its own first, so every worker reads the same one."""
    path = directory / SECRET_FILE
    why = unsafe_place(path, secret=True)
    if why:
        raise UnsafePlace(f"the bookmark secret {path}: {why}, so another local user could "
                          f"read or plant it and sign bookmarks: chmod 600 it and make it the "
                          f"service's, or delete it (a new one is made)")
    try:
        if not path.is_file():
            directory.mkdir(parents=True, exist_ok=True, mode=0o755)  # whatever the umask
            mine = directory / f".{SECRET_FILE}.{os.getpid()}.{random_secrets.token_hex(4)}"
            fd = os.open(mine, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(random_secrets.token_urlsafe(32) + "\n")
            try:
                os.link(mine, path)
            except FileExistsError:
                pass
            finally:
                mine.unlink()
        secret = path.read_text().strip()
    except OSError as exc:
        raise ConfigError(f"cannot keep the bookmark secret in {path} ({exc.strerror}): set "
                          f"[feed] bookmark_secrets, or database.proof_dir to a directory "
                          f"the service may write") from None
    if len(secret) < MIN_SECRET:
        raise ConfigError(f"{path}: the bookmark secret kept there is too short: delete the "
                          f"file (a new one is made) or set [feed] bookmark_secrets")
    return secret.encode()


def with_secrets(settings: Settings) -> Settings:
    """The settings with the bookmarks' secrets: those of [feed] bookmark_secrets, else the
    one kept in database.proof_dir (kept_secret). Where it can be neither read nor made the
    service still starts, as the proof's verdicts do (docs/operations.md): this process signs
    with a secret of its own, and says once in the log that its siblings refuse its
    bookmarks."""
    if settings.feed.secrets or settings.database.proof_dir is None:
        return settings
    try:
        secret = kept_secret(settings.database.proof_dir)
    except UnsafePlace:
        raise
    except ConfigError as exc:
        logging.getLogger("jembatan").warning(
            "%s; until then this process signs the feed's bookmarks with a secret of its own, "
            "which its sibling workers and the next start refuse", exc)
        secret = random_secrets.token_bytes(32)
    return replace(settings, feed=replace(settings.feed, secrets=(secret,)))


# -- The settings, each declared once -----------------------------------------------------


@dataclass(frozen=True)
class Given:
    """Every key's value once the layers are laid over each other (defaults, the file, the
    environment, overrides), with the working directory and the environment, for the builds
    that read more than their own key."""

    values: Mapping[str, Mapping[str, Any]]
    cwd: Path
    environ: Mapping[str, str]

    def __getitem__(self, name: str) -> Any:
        section, key = name.split(".")
        return self.values[section][key]


class Unset:
    """A Setting's mark for a value not given: no blank (a program's settings must give the
    attribute), no example (config.example.toml shows the default)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = Unset()


# A setting's build: (its name, its value, every value) -> its settings attribute; it checks
# the value and raises ConfigError with a message that names the key.
Build = Callable[[str, Any, Given], Any]


def _as_given(name: str, value: Any, given: Given) -> Any:
    return value


@dataclass(frozen=True)
class Setting:
    """One key of the settings file, declared once: the loader checks it and builds its
    attribute from it, and config.example.toml and docs/api.md §12's table are written from
    it (app/ops/settings_files.py)."""

    name: str  # "section.key"
    kind: type | tuple[type, ...]  # its TOML type (int or float: (int, float))
    default: Any  # its value when nothing sets it
    typed: str  # its type, in docs/api.md §12's words
    help: str  # one line: its meaning in docs/api.md §12's table
    note: str  # config.example.toml's comment above it (a line break starts a line)
    build: Build = _as_given  # checks the value and makes the attribute
    attr: str = ""  # the attribute of its section's settings ("": the key)
    shape: Any = None  # the attribute's type (None: the TOML type's)
    blank: Any = UNSET  # the attribute's value in settings made by a program, not loaded
    env: str = ""  # the environment variable that sets it (a list: comma-separated)
    # Why that variable, set, must give something ("": set and empty, it means the default):
    # the end of the message that stops the start
    env_needed: str = ""
    path: bool = False  # a path: a relative one resolves against the file's directory
    shown: str = ""  # its default in docs/api.md §12 ("": the TOML of `default`)
    example: Any = UNSET  # its value in config.example.toml (UNSET: the default)
    also: str = ""  # "section.attribute" of another section's settings given the same value

    @cached_property
    def section(self) -> str:
        """The TOML table the key is in."""
        return self.name.split(".")[0]

    @cached_property
    def key(self) -> str:
        """The key within its table."""
        return self.name.split(".")[1]

    @cached_property
    def attribute(self) -> str:
        """The attribute of its section's settings that it sets."""
        return self.attr or self.key


# The attribute's type of a TOML type, where a setting names none of its own.
SHAPES: dict[Any, Any] = {str: str, int: int, bool: bool, (int, float): float,
                          list: tuple[str, ...], dict: Mapping[str, str]}


def _tuple(name: str, value: list[str], given: Given) -> tuple[str, ...]:
    return tuple(value)


def _positive(name: str, value: float, given: Given) -> float:
    if value <= 0:
        raise ConfigError(f"{name} must be a positive number of seconds")
    return float(value)


def _not_negative(name: str, value: float, given: Given) -> float:
    if value < 0:
        raise ConfigError(f"{name} must be a number of seconds, 0 or more")
    return float(value)


def _a_day(name: str, value: float, given: Given) -> float:
    # A day at most: a bookmark remembers stamps as offsets within its window.
    if not 0 <= value <= 86400:
        raise ConfigError(f"{name} must be a number of seconds from 0 to 86400, not {value!r}")
    return float(value)


def _page_size(name: str, value: int, given: Given) -> int:
    if not 1 <= value <= given["api.max_page_size"]:
        raise ConfigError("api.page_size must be at least 1 and at most api.max_page_size "
                          f"({value} > {given['api.max_page_size']})")
    return value


def _url_prefix(name: str, prefix: str, given: Given) -> str:
    if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
        raise ConfigError(f"api.url_prefix must start with '/' and not end with one, "
                          f"e.g. \"/api\" (got {prefix!r})")
    return prefix


def _public(given: Given) -> PublicUrl | None:
    return _public_url(given["api.public_url"].strip(), given["api.url_prefix"])


def _log_format(name: str, value: str, given: Given) -> str:
    if value not in ("plain", "json"):
        raise ConfigError(f"log.format must be \"plain\" or \"json\", not {value!r}")
    return value


def _site_labels(name: str, value: Mapping[str, Any], given: Given) -> dict[str, str]:
    key = name.split(".")[1]
    defaults = {"collections": COLLECTION_LABELS, "dates": DATE_LABELS,
                "fields": FIELD_LABELS}[key]
    return _labels(key, value, defaults, field_names() if key == "fields" else ())


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "database.sqlite", str, "instance/demo.sqlite3",
        typed="string (path)",
        help="the SQLite file to serve, opened read-only; it must exist",
        note=("The embedded default: a SQLite file, opened read-only; it must exist (`make "
              "demo-db`)."),
        build=lambda name, value, given: Path(value), env="JEMBATAN_SQLITE", path=True, shape=Path,
    ),
    Setting(
        "database.odbc", str, "",
        typed="string",
        help=("an ODBC connection string; when set it is used instead of `sqlite` (needs pyodbc and"
              " a driver)"),
        note=("An ODBC connection string; when set it is used instead of `sqlite`. For the "
              "plant's SQL Server:\n"
              '"Driver={ODBC Driver 18 for SQL Server};Server=wb01,1433;Database=Timbangan;'
              "UID=jembatan_ro;PWD=...;Encrypt=yes;TrustServerCertificate=yes;"
              'ApplicationIntent=ReadOnly"\n'
              "(TrustServerCertificate=yes: the last resort for SQL Server's self-signed "
              "certificate; leave it out when this host trusts the server's certificate). Through "
              "FreeTDS:\n"
              '"Driver=FreeTDS;Server=wb01;Port=1433;TDS_Version=7.4;Database=Timbangan;'
              'UID=jembatan_ro;PWD=..."'),
        env="JEMBATAN_ODBC",
    ),
    Setting(
        "database.query_timeout", (int, float), 30,
        typed="number, seconds, > 0",
        help="a query running longer is cancelled and the client gets `503`",
        note="Seconds a query may run before it is cancelled and the client gets 503.",
        build=_positive,
    ),
    Setting(
        "database.connect_timeout", (int, float), 5,
        typed="number, seconds, > 0",
        help="how long to wait for a connection (on SQLite, for a writer's lock) before `503`",
        note=("Seconds to wait for a connection (or, on SQLite, for a writer's lock) before "
              "answering 503."),
        build=_positive,
    ),
    Setting(
        "database.sql_dir", str, None,
        typed="string (path)",
        shown="the `sql/` shipped with Jembatan",
        help="where the per-collection `.sql` files (the site's mapping) live",
        note=("Where the per-collection .sql files live (a site with other column names points at "
              "its copy); relative to this file, so give an absolute path, e.g. "
              '"/opt/jembatan/sql", in /etc/jembatan.'),
        build=lambda name, value, given: Path(value) if value else SHIPPED_SQL_DIR,
        path=True, shape=Path, example="sql",
    ),
    Setting(
        "database.prove_on_first_read", bool, True,
        typed="`true` or `false`",
        help=("prove each collection's reads on three of its own records, in the background from "
              "its first request, unless a verdict kept in `proof_dir` holds; one whose reads miss "
              'or repeat a record answers `503` "not mapped yet" '
              "([operations](operations.md#the-proof-of-the-mapping))"),
        note=("From the first request for each collection, ask its reads for three of its own "
              "records, in the background; a collection whose reads miss or repeat one answers 503 "
              '"not mapped yet" (docs/adapting.md: "A mapping whose reads miss its own records is '
              'not served either"). false: only check-sql proves them.'),
        blank=True,
    ),
    Setting(
        "database.proof_dir", str, "",
        typed="string (path)",
        shown=('`""`: `$STATE_DIRECTORY/proofs` when set (systemd\'s `StateDirectory=`), else '
               "`instance/proofs`"),
        help=("where the proof's verdicts are kept for every worker and the next start; one that "
              "cannot be written is said once in the log, and each process then proves alone"),
        note=("Where the proof's verdicts are kept, so that every worker, a replaced one and the "
              'next start find them instead of proving again (docs/operations.md, "The proof of the'
              ' mapping"); the service must be able to write there. "": $STATE_DIRECTORY/proofs '
              "when the service manager gives one (the shipped systemd unit: "
              "/var/lib/jembatan/proofs), else instance/proofs under the working directory. "
              "Relative to this file."),
        build=lambda name, value, given: _proof_dir(value, given.cwd, given.environ),
        path=True, shape=Path | None, blank=None,
    ),
    Setting(
        "database.proof_wait", (int, float), 2,
        typed="number, seconds, ≥ 0",
        help=("the longest a request waits for a proof that has no verdict yet; then it is served "
              "while the proof goes on"),
        note=("Seconds a request waits at most for a proof that has no verdict yet (the first in a "
              "deployment, or after the mapping changed); then it is served while the proof goes "
              "on."),
        build=_not_negative, blank=2,
    ),
    Setting(
        "database.mapping_check", (int, float), 60,
        typed="number, seconds, ≥ 0",
        help=("each worker tries every mapping again at most this often, in the background, when "
              "`/health` or a read of a collection the database refused comes; a column back in "
              "the database is served again without a restart ([operations](operations.md#what-"
              "health-costs))"),
        note=("Seconds between two checks of every served collection's mapping in a worker (one "
              "query per collection, no row read), begun in the background by /health or by a "
              "read of a collection the database refused, never in a request "
              '(docs/operations.md, "What /health costs"). 0: whenever one of them comes and no '
              "check is running."),
        build=_not_negative, blank=60,
    ),
    Setting(
        "database.ping_keep", (int, float), 1,
        typed="number, seconds, ≥ 0",
        help=("how long each worker keeps `/health`'s ping answered (a failure is not kept): a "
              "database that answers is pinged at most once in that time however many poll it; "
              "0: once per call, one at a time"),
        note=("Seconds a worker keeps /health's ping answered by the database (a failure is not "
              "kept): at most one ping in that time, however many clients poll /health. 0: a "
              "ping per call, one at a time."),
        build=_not_negative, blank=1,
    ),
    Setting(
        "api.page_size", int, 100,
        typed="integer",
        help="records per page without `?page_size=`; 1 to `max_page_size`",
        note="Records per page when the client does not send ?page_size=.",
        build=_page_size,
    ),
    Setting(
        "api.max_page_size", int, 1000,
        typed="integer",
        help="the largest `?page_size=` a client may ask for",
        note="The largest ?page_size= a client may ask for.",
    ),
    Setting(
        "api.url_prefix", str, "",
        typed="string",
        help=('mount point, such as `"/api"`, when a proxy does not strip it; starts with `/`, no '
              "trailing `/`"),
        note=('Mount point behind a reverse proxy that does not strip it, e.g. "/api" (no trailing '
              "slash)."),
        build=_url_prefix,
    ),
    Setting(
        "api.cors_origins", list, [],
        typed="list of strings",
        help='web origins whose pages may call the API from a browser (CORS); `"*"` allows any',
        note=("Web origins whose pages may call the API from a browser (CORS), e.g. "
              '["https://erp.plant"].'),
        build=_tuple,
    ),
    Setting(
        "api.metrics_key", str, "",
        typed="string",
        help=("when set (16 characters at least), `/metrics` needs `Authorization: Bearer "
              "<metrics_key>`; empty: with API keys configured, a key that reads everything "
              "(an `auth.api_keys` entry); without any, `/metrics` is open as every endpoint is"),
        note=("A key for GET /metrics (Prometheus), sent as Authorization: Bearer <key>, at least"
              " 16 characters (openssl rand -hex 24); then only it opens /metrics. Empty: with "
              "API keys configured, /metrics needs a key that reads everything (an api_keys "
              "entry, or a named key without a scope), as it names every key and counts its "
              "requests; without any key, it is open, as every endpoint is."),
        build=lambda name, value, given: _metrics_key(value), blank="",
    ),
    Setting(
        "api.public_url", str, "",
        typed="string, `http(s)://host[:port][/path]`",
        help=("where clients reach the service (section 10.1): every URL Jembatan writes is built "
              "from it, and its host is allowed; its path ends with `url_prefix` when that is set, "
              "no trailing `/`. Empty: URLs from the request"),
        note=('The URL clients reach the service at, e.g. "https://weighbridge.plant.local" (behind'
              ' nginx) or "https://intranet.plant.local/jembatan" (under a sub-path the proxy '
              "strips): every URL Jembatan writes (Link, the index, the feed's next link) is built "
              "from it, and its host is one a request may ask for. Empty: URLs are built from the "
              "request (the Host it sent, or a trusted proxy's X-Forwarded-*). Its path ends with "
              "url_prefix when that is set."),
        build=lambda name, value, given: _public(given),
        shape=PublicUrl | None, blank=None,
    ),
    Setting(
        "api.allowed_hosts", list, [],
        typed="list of strings",
        help=("host names (no port) a request may ask for besides `public_url`'s and the loopback "
              'names `localhost`, `127.0.0.1`, `::1`; any other is `400` (section 10.1); `"*"` '
              "allows any"),
        note=("Host names a request may ask for (its Host header, or a trusted proxy's "
              "X-Forwarded-Host) besides public_url's host and the loopback names (localhost, "
              "127.0.0.1, ::1), which are always allowed; a request for any other host is a 400, "
              "with a key or without (this stops a DNS-rebinding web page from reading the API "
              'through a browser). No port; "*": any host.'),
        build=lambda name, value, given: _allowed_hosts(value, _public(given)),
        shape=frozenset[str], blank=LOOPBACK_NAMES,
    ),
    Setting(
        "api.trusted_proxies", list, [],
        typed="list of strings, IP addresses or networks",
        help=("the direct peers whose `X-Forwarded-For`, `-Proto`, `-Host`, `-Port` and `-Prefix` "
              "are believed (section 10.1); from any other they are dropped. nginx on the same "
              'host: `["127.0.0.1"]`'),
        note=('The addresses (or networks, "10.1.1.0/24") of the proxies in front of Jembatan: only'
              " from them are X-Forwarded-For, -Proto, -Host, -Port and -Prefix believed; from any "
              'other peer they are dropped. nginx on the same host: ["127.0.0.1"]. Empty: none is '
              "believed."),
        build=lambda name, value, given: _proxies(value),
        shape=tuple[IPv4Network | IPv6Network, ...], blank=(),
    ),
    Setting(
        "auth.api_keys", list, [],
        typed="list of strings",
        help=("API keys that read everything, each at least 16 characters (an empty or shorter one "
              "stops the start); empty means no authentication"),
        note=("API keys that read everything; empty means open (a warning is logged). Clients send "
              "X-API-Key or Bearer. Each at least 16 characters (an empty or shorter one stops the "
              "start); the access log and /metrics call them key-1, key-2, ..."),
        build=_tuple, env="JEMBATAN_API_KEYS",
        env_needed=("whoever set it meant to require a key, and an empty list would leave "
                    "every endpoint open; give the keys, comma-separated, or unset it (the "
                    "keys then come from the settings file alone)"),
    ),
    Setting(
        "auth.keys", dict, {},
        typed="tables",
        shown="none",
        help=("named keys, `[auth.keys.<name>]`, each with `key` or `key_sha256` and its scope: "
              "`collections`, `fields`, `where`, `max_concurrent` (section 10)"),
        note=("Named keys, each opening only its own door (docs/api.md §10, docs/keys.md): one "
              'table per key, [auth.keys.<name>], with key = "..." or its SHA-256, key_sha256 = '
              '"<64 hex digits>" (printf %s \'the-key\' | sha256sum), and its scope: collections '
              "(default all), fields (the only fields its records send; default all), where (its "
              "rows: one value is equality, a list is IN, over text fields) and max_concurrent (its"
              " requests at once per process, default 2; 0: no limit). None by default.\n"
              '[auth.keys.transporter-t03]\nkey_sha256 = "<64 hex digits>"\n'
              'collections = ["transactions"]\nwhere = { transcode = "T03" }\n'
              "max_concurrent = 2"),
        build=lambda name, value, given: _keys(given["auth.api_keys"], value,
                                               _served(given["collections.serve"])),
        shape=tuple[ApiKey, ...], blank=(),
    ),
    Setting(
        "log.format", str, "plain",
        typed='`"plain"` or `"json"`',
        help="log lines as text, or one JSON object a line",
        note=('"plain" lines or "json" (one JSON object a line) for the access log and every other '
              "line."),
        build=_log_format,
    ),
    Setting(
        "log.slow_query", (int, float), 2,
        typed="number, seconds, ≥ 0",
        help="a query slower than this is logged with its name and parameters; 0: never",
        note=("Seconds after which a query is logged as slow, with its name and parameters (0: "
              "never)."),
        build=_not_negative,
    ),
    Setting(
        "collections.serve", list, [],
        typed="list of strings",
        help=('the collections this site has, such as `["transactions", "vehicles"]`; empty means '
              "all ten. Only those need a file in `sql_dir`; the others are absent from `/`, "
              "`/openapi.json`, the dashboard and `check-sql`, and their paths answer `404`"),
        note=('The collections this site has, e.g. ["transactions", "vehicles"] for a plant with a '
              "weighbridge and no batching plant; empty: all ten. Each one served needs its mapping"
              " file sql_dir/<name>.sql; one left out needs none, is absent from /, /openapi.json, "
              'the dashboard and check-sql, and its paths answer 404 "This site does not serve '
              '<name>: it serves ...". The ten: customers, products, transporters, transactions, '
              "vehicles, bricon2, weighing, timbangan1, timbangan2, biao1. Any other name, or one "
              "given twice, is an error at start."),
        build=lambda name, value, given: _served(value),
    ),
    Setting(
        "collections.text_keys", list, [],
        typed="list of strings",
        help=("the masters (customers, products, transporters) whose mapping gives `id` as a "
              "text code, such as `KD_CUST`: their `id` is sent as text and "
              "`/<collection>/{ID}` takes the code; empty means integer ids everywhere"),
        note=('The masters whose mapping gives "id" as a text code, e.g. ["customers"] where '
              'the table is keyed by KD_CUST varchar(10) and sql/customers.sql maps "KD_CUST" '
              'AS "id": their id is sent as text (without trailing blanks) and /customers/{ID} '
              "takes the code (docs/adapting.md, \"A master keyed by a code\"). Only "
              "customers, products and transporters; empty: every id is an integer."),
        build=lambda name, value, given: _text_keys(value, given["collections.serve"]),
    ),
    Setting(
        "feed.settle_seconds", (int, float), 30,
        typed="number, seconds, 0 to 86400",
        help=("`/<c>/changes` sends a record once its stamp is this far behind the database "
              "server's clock (in `site.timezone` when set)"),
        note=('GET /<c>/changes, the ERP\'s bookmark (docs/integrating.md, "Polling guide for ERP '
              'integrators"). A record is sent only once its stamp is this many seconds behind the '
              "database server's clock, so that a PC whose clock runs ahead delays its own records "
              "and never skips others'."),
        build=_a_day, blank=30,
    ),
    Setting(
        "feed.lookback_seconds", (int, float), 600,
        typed="number, seconds, 0 to 86400",
        help=("how far behind its bookmark each `/<c>/changes` call looks for records that "
              "committed late"),
        note=("Every call looks this many seconds behind its bookmark for records that committed "
              "late (a long transaction, a PC clock behind the server's). A record that commits "
              "later than settle + lookback can be missed: set it from /metrics' "
              "jembatan_feed_lateness_seconds."),
        build=_a_day, blank=600,
    ),
    Setting(
        "feed.bookmark_secrets", list, [],
        typed="list of strings, each ≥ 16 characters",
        help=("the secrets `/<c>/changes` signs its bookmarks with (HMAC-SHA-256, §5.11): the first"
              " signs, every one verifies, so a new secret put first with the old one second keeps "
              "the feeds in flight; set the same list on every host that serves one feed. Empty: "
              "one secret made at the first start and kept in `database.proof_dir` (file "
              "`bookmark-secret`, mode 0600), shared by every worker of the host; a directory it "
              "cannot be made in stops the start"),
        note=("The secrets the bookmarks (X-Bookmark, ?after=) are signed with (HMAC-SHA-256), each"
              " at least 16 characters: the first signs, every one verifies. To rotate, put a new "
              "secret first and keep the old one second until the feeds in flight have called once "
              "(a call answers a bookmark signed with the new one); then drop it. Set the same list"
              " on every host that serves one feed (behind one load balancer). Empty: one secret "
              "made at the first start and kept in database.proof_dir (file bookmark-secret, mode "
              "0600), which every worker of this host shares. JEMBATAN_BOOKMARK_SECRETS "
              "(comma-separated) overrides it."),
        build=lambda name, value, given: _bookmark_secrets(value),
        attr="secrets", shape=tuple[bytes, ...], env="JEMBATAN_BOOKMARK_SECRETS",
        blank=(random_secrets.token_bytes(32),),
    ),
    Setting(
        "site.name", str, "",
        typed="string",
        help=("the plant's name, printed at the top of the daily report and given as `site` in the "
              "index; empty: none"),
        note=("The plant's name, printed at the top of the daily report (/report) and given in the "
              "index (`site`); empty: none."),
        build=lambda name, value, given: value.strip(),
    ),
    Setting(
        "site.timezone", str, "",
        typed="string, an IANA time zone",
        help=('the zone the plant\'s stamps are written in, such as `"Asia/Jakarta"`: the feed '
              'compares them with the database server\'s UTC clock in this zone, and "today" (the '
              "dashboard's quick ranges, `/report` alone) is the date there; empty: each keeps its "
              "own clock (the database server's local time, the host's date, the browser's date). A"
              " name the machine's time zone database does not hold stops the start"),
        note=("The time zone the plant's PCs write their stamps in, as an IANA name: "
              '"Asia/Jakarta" (WIB), "Asia/Makassar" (WITA), "Asia/Jayapura" (WIT). Set it '
              "whenever the stamps "
              "are local time, which at a plant they nearly always are: then the feed "
              "(/<c>/changes) compares them with the database server's clock read in UTC and turned"
              ' into this zone, and "today" (the dashboard\'s Today, Yesterday and This month; '
              "/report without a date) is the date in this zone, whatever zone the Jembatan host, "
              "the database server and the browser are set to. Empty: not set, and each keeps its "
              "own clock: the feed the database server's local time (SQL Server's GETDATE(); on a "
              "SQLite file, the Jembatan host's zone), /report the host's date, the dashboard the "
              "browser's. A name the host's time zone database does not hold is an error at "
              "start (Debian: apt-get install tzdata)."),
        build=lambda name, value, given: _zone(value),
        shape=ZoneInfo | None, blank=None, also="feed.zone",
    ),
    Setting(
        "site.collections", dict, {},
        typed="table of strings",
        shown='"All weighings", "Weighbridge 1", "Batching plant — Bricon", …',
        help=('what the dashboard and the daily report call each collection (`timbangan1 = "North '
              'gate"`); give only those to rename; a name that is not a collection, or an empty or '
              "multi-line label, stops the start"),
        note=("What the dashboard (/dashboard) and the daily report (/report) call the collections "
              "and their date fields, for the plant office. Give only the ones to rename; the "
              "others keep the defaults shown here. A name that is not a collection (or a date "
              "field), or an empty label, is an error at start. Labels are shown as text, never as "
              "HTML."),
        build=_site_labels, example=COLLECTION_LABELS,
    ),
    Setting(
        "site.dates", dict, {},
        typed="table of strings",
        shown=('"entry weighing" (`dt1`), "exit weighing" (`dt2`), "last change" (`update`), '
               '"created", "expiry", "batch date" (`tanggal`)'),
        help=("what the two pages call each date field, by its `?on=` value; checked as "
              "`site.collections`"),
        note=("The date fields (the API's `on` values): dt1 and dt2 are the entry and exit "
              "weighings, the date of a weighing record; tanggal the date of a batch."),
        build=_site_labels, example=DATE_LABELS,
    ),
    Setting(
        "site.fields", dict, {},
        typed="table of strings",
        shown=('"Entry date" (`tgl_dt1`), "Entry weight (kg)" (`weigh1`), "Deduction (kg)" '
               '(`adjustweigh`), "Net after deduction (kg)", … (`FIELD_LABELS` of '
               "`app/model/labels.py`); a name without one is its own heading"),
        help=("what a workbook (§5.8) heads each column with, by field of a record (§3) or group or"
              ' measure of a summary (§7) (`weigh1 = "Bruto (kg)"`); give only those to rename; a '
              "name that is none of those, or an empty or multi-line label, stops the start. CSV "
              "and JSON keep the API's names"),
        note=("What a workbook (?format=xlsx) heads its columns with, by field of a record or group"
              " or measure of a summary (docs/api.md §3, §7): a few of the defaults are shown; a "
              "name without one is its own heading. Give only those to rename, in the office's "
              "words. A name that is no field, group or measure, or an empty label, is an error at "
              "start. CSV keeps the API's names."),
        build=_site_labels, blank=field(default_factory=lambda: dict(FIELD_LABELS)),
        example={k: FIELD_LABELS[k] for k in ("tgl_dt1", "weigh1", "weigh2", "adjustweigh",
                                              "net_after_deduction")},
    ),
    Setting(
        "mcp.enabled", bool, True,
        typed="boolean",
        help=("`POST /mcp` serves the MCP tools (docs/mcp.md); `false`: no such route (the stdio "
              "command `jembatan mcp` is not affected)"),
        note=("The Model Context Protocol endpoint, POST <url_prefix>/mcp, for AI assistants "
              "(docs/mcp.md): the same API keys as the rest of the API. false: no such route (a "
              "404); the stdio mode, `jembatan mcp`, is a local process and is not affected."),
        blank=True,
    ),
    Setting(
        "mcp.allowed_origins", list, [],
        typed="list of strings",
        help=("the `Origin` headers `/mcp` admits; a request carrying any other is a 403 "
              "(assistants send none)"),
        note=("Web origins whose pages may call /mcp from a browser, e.g. "
              '["https://assistant.plant.local"], each as the browser sends it '
              "(scheme://host[:port]). A request carrying any other Origin header is refused with "
              "403, as the MCP transport asks against DNS rebinding; assistants and the SDKs send "
              "no Origin, so empty (the default) admits them and refuses every browser page."),
        build=lambda name, value, given: _origins(value),
        blank=(),
    ),
)
# The settings by table and key, in the order above (which unknown keys' messages list).
SPEC: dict[str, dict[str, Setting]] = {}
for _setting in SETTINGS:
    SPEC.setdefault(_setting.section, {})[_setting.key] = _setting


def settings_class(name: str, section: str, doc: str) -> type:
    """The frozen settings class of one table: an attribute per setting of it (and those
    another table's settings give it), those without a value for a program's own settings
    first."""
    made = [(s.attribute, s.shape or SHAPES[s.kind], s.blank) for s in SETTINGS
            if s.section == section]
    made += [(s.also.split(".")[1], s.shape, s.blank) for s in SETTINGS
             if s.also.split(".")[0] == section]
    fields: list[Any] = [(a, shape) for a, shape, blank in made if blank is UNSET]
    fields += [(a, shape, blank if isinstance(blank, Field) else field(default=blank))
               for a, shape, blank in made if blank is not UNSET]
    return make_dataclass(name, fields, frozen=True,
                          namespace={"__module__": __name__, "__doc__": doc})


# Each table's settings class: its name and what it holds.
SECTIONS: dict[str, tuple[str, str]] = {
    "database": ("DatabaseSettings", "[database]: where the records are read from, and the "
                 "proof of the mapping."),
    "api": ("ApiSettings", "[api]: pages, the mount point, CORS, /metrics' key, and the hosts, "
            "proxies and URLs of docs/api.md §10.1."),
    "auth": ("AuthSettings", "[auth]: api_keys as given, and every key (api_keys' first, "
             "named key-1, key-2, ..., then the named keys); none: every endpoint open."),
    "log": ("LogSettings", "[log]: the lines' form and the slow query threshold."),
    "collections": ("CollectionSettings", "[collections]: the names served, in the order of "
                    "app/model/collections.py's table."),
    "feed": ("FeedSettings", "GET /<c>/changes (docs/api.md §5.11): how far behind the "
             "database clock a record must be before it is sent, how far behind the bookmark "
             "each call looks for late commits, the plant's zone, and the bookmarks' keys (the "
             "first signs; settings made by a program have one of the process)."),
    "site": ("SiteSettings", "[site]: the plant's name and zone, and its words for the "
             "collections, date fields and workbook columns, laid over the defaults of "
             "app/model/labels.py."),
    "mcp": ("McpSettings", "The Model Context Protocol endpoint (app/mcp/protocol.py): served "
            "or not, and the web origins whose pages may call it."),
}
CLASSES: dict[str, type] = {section: settings_class(name, section, doc)
                            for section, (name, doc) in SECTIONS.items()}
(DatabaseSettings, ApiSettings, AuthSettings, LogSettings, CollectionSettings, FeedSettings,
 SiteSettings, McpSettings) = CLASSES.values()  # in the order of SECTIONS


@dataclass(frozen=True)
class Settings:
    """Every table's settings, and where they came from."""

    database: DatabaseSettings
    api: ApiSettings
    auth: AuthSettings
    log: LogSettings
    collections: CollectionSettings
    site: SiteSettings
    source: str  # where the settings came from, for the start-up log line
    feed: FeedSettings = FeedSettings()
    mcp: McpSettings = McpSettings()


def _merge(into: dict[str, dict[str, Any]], layer: Mapping[str, Any], origin: str,
           base_dir: Path) -> None:
    """Check one layer of settings against SPEC and copy it over what came before."""
    for section, values in layer.items():
        if section not in SPEC:
            raise ConfigError(f"{origin}: unknown section [{section}]; "
                              f"known sections: {', '.join(SPEC)}")
        if not isinstance(values, Mapping):
            raise ConfigError(f"{origin}: [{section}] must be a table of keys")
        for key, value in values.items():
            if key not in SPEC[section]:
                raise ConfigError(f"{origin}: unknown key {section}.{key}; known keys of "
                                  f"[{section}]: {', '.join(SPEC[section])}")
            kind = SPEC[section][key].kind
            if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                kinds = kind if isinstance(kind, tuple) else (kind,)
                names = " or ".join("a table" if k is dict else k.__name__ for k in kinds)
                raise ConfigError(f"{origin}: {section}.{key} must be {names}, "
                                  f"not {type(value).__name__} {value!r}")
            if kind is list and not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{origin}: {section}.{key} must be a list of strings")
            if SPEC[section][key].path and value:
                value = str((base_dir / value) if not Path(value).is_absolute() else Path(value))
            into[section][key] = value


def _environment(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The settings the environment variables set: a list's entries comma-separated, blanks
    around them and empty ones dropped ("a,,b", a trailing comma)."""
    layer: dict[str, dict[str, Any]] = {}
    for s in SETTINGS:
        if s.env and s.env in environ:
            given = environ[s.env]
            value = given if s.kind is str else [v.strip() for v in given.split(",")
                                                 if v.strip()]
            if s.env_needed and not value:
                raise ConfigError(f"{s.env} is set but gives no {s.key} ({given!r}): "
                                  f"{s.env_needed}")
            layer.setdefault(s.section, {})[s.key] = value
    return layer


def load_settings(overrides: Mapping[str, Any] | None = None,
                  environ: Mapping[str, str] | None = None) -> Settings:
    """Built-in defaults, then the TOML file, then the environment, then overrides."""
    environ = os.environ if environ is None else environ
    cwd = Path.cwd()
    merged = {section: {key: str(cwd / s.default) if s.path and s.default else s.default
                        for key, s in keys.items()} for section, keys in SPEC.items()}

    explicit = environ.get("JEMBATAN_CONFIG")
    path = Path(explicit) if explicit else cwd / "config.toml"
    source = "built-in defaults"
    if explicit or path.is_file():
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise ConfigError(f"JEMBATAN_CONFIG names {path}, which does not exist") from None
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read the configuration: {exc}") from None
        _merge(merged, data, str(path), path.resolve().parent)
        source = str(path)
    _merge(merged, _environment(environ), "environment", cwd)
    if overrides:
        _merge(merged, overrides, "overrides", cwd)

    given = Given(merged, cwd, environ)
    built: dict[str, dict[str, Any]] = {section: {} for section in SPEC}
    for s in SETTINGS:
        built[s.section][s.attribute] = value = s.build(s.name, merged[s.section][s.key], given)
        if s.also:
            section, attribute = s.also.split(".")
            built[section][attribute] = value
    return Settings(source=source, **{section: CLASSES[section](**attributes)
                                      for section, attributes in built.items()})
