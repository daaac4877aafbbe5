"""Settings: read once at start from TOML, the environment and create_app's overrides."""

from __future__ import annotations

import difflib
import hashlib
import logging
import os
import re
import secrets as random_secrets
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
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


@dataclass(frozen=True)
class DatabaseSettings:
    sqlite: Path
    odbc: str
    query_timeout: float
    connect_timeout: float
    sql_dir: Path
    prove_on_first_read: bool = True  # each collection's reads proven once (app/core/unmapped.py)
    # Where the proof's verdicts are kept for every process and the next start
    # (app/core/verdicts.py); None: not kept.
    proof_dir: Path | None = None
    proof_wait: float = 2  # seconds a request waits at most for a verdict not yet kept


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


@dataclass(frozen=True)
class ApiSettings:
    page_size: int
    max_page_size: int
    url_prefix: str
    cors_origins: tuple[str, ...]
    metrics_key: str = ""  # "": /metrics is open; else it needs Authorization: Bearer <key>
    # Where clients reach the service (docs/api.md §10.1): every URL Jembatan writes is built
    # from it; None: from the request (the host asked for, and a trusted proxy's headers).
    public_url: PublicUrl | None = None
    # The host names a request may ask for (the public URL's and the loopback names are
    # always among them); "*": any.
    allowed_hosts: frozenset[str] = LOOPBACK_NAMES
    # The direct peers whose X-Forwarded-* headers are believed; from any other they are
    # dropped.
    trusted_proxies: tuple[IPv4Network | IPv6Network, ...] = ()


@dataclass(frozen=True)
class LogSettings:
    format: str  # "plain" or "json" (one JSON object a line)
    slow_query: float  # seconds; a query that takes longer is logged with its parameters


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

    def reads(self, collection: str) -> bool:
        """Whether this key reads `collection` at all."""
        return self.collections is None or collection in self.collections


@dataclass(frozen=True)
class AuthSettings:
    api_keys: tuple[str, ...]
    # Every key, api_keys first (named key-1, key-2, ... in that order), then the named
    # keys of [auth.keys.<name>]; empty: no key, every endpoint open.
    keys: tuple[ApiKey, ...] = ()


@dataclass(frozen=True)
class CollectionSettings:
    serve: tuple[str, ...]  # the names served, in the order of app/model/collections.py's table


@dataclass(frozen=True)
class FeedSettings:
    """GET /<c>/changes (docs/api.md §5.11): how far behind the database clock a record must be
    before it is sent, and how far behind the bookmark each call looks for late commits."""

    settle_seconds: float = 30
    lookback_seconds: float = 600
    # The plant's time zone ([site] timezone): the feed reads the database server's clock in
    # UTC and compares the stamps with it in this zone; None: with the server's own local
    # clock, as the stamps were compared before the setting existed.
    zone: ZoneInfo | None = None
    # The keys of the bookmarks' MAC ([feed] bookmark_secrets): the first signs, every one
    # verifies. load_settings gives () when none is set, and create_app puts kept_secret in
    # its place; settings built in a program rather than loaded have one made for the process.
    secrets: tuple[bytes, ...] = (random_secrets.token_bytes(32),)


@dataclass(frozen=True)
class SiteSettings:
    # The site's words for the pages people read (the dashboard and the daily report): the
    # plant's name ("": none), and what it calls each collection and each date field (`on`
    # value), the defaults of app/model/labels.py with the site's [site] tables laid over them.
    name: str
    collections: Mapping[str, str]
    dates: Mapping[str, str]
    # The zone the plant's stamps are written in ([site] timezone, an IANA name), which
    # "now" and "today" are read in; None: not set (each clock its own, see
    # docs/operations.md, "Configuration").
    timezone: ZoneInfo | None = None
    # What a workbook heads each column with, by field or summary key: FIELD_LABELS of
    # app/model/labels.py with the site's [site.fields] table laid over them.
    fields: Mapping[str, str] = field(default_factory=lambda: dict(FIELD_LABELS))


@dataclass(frozen=True)
class McpSettings:
    """The Model Context Protocol endpoint (app/mcp/protocol.py): POST <url_prefix>/mcp served or
    not, and the web origins whose pages may call it (a request with any other Origin is a 403)."""

    enabled: bool = True
    allowed_origins: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    database: DatabaseSettings
    api: ApiSettings
    auth: AuthSettings
    log: LogSettings
    collections: CollectionSettings
    site: SiteSettings
    source: str  # where the settings came from, for the start-up log line
    feed: FeedSettings = FeedSettings()
    mcp: McpSettings = McpSettings()


# Every key of docs/api.md §12: its type and default. Paths are resolved separately.
SPEC: dict[str, dict[str, tuple[type | tuple[type, ...], Any]]] = {
    "database": {
        "sqlite": (str, "instance/demo.sqlite3"),
        "odbc": (str, ""),
        "query_timeout": ((int, float), 30),
        "connect_timeout": ((int, float), 5),
        "sql_dir": (str, None),  # None: the sql/ shipped with Jembatan
        "prove_on_first_read": (bool, True),  # app/core/unmapped.py Proving
        # "": $STATE_DIRECTORY/proofs (systemd's StateDirectory=), else instance/proofs
        "proof_dir": (str, ""),
        "proof_wait": ((int, float), 2),
    },
    "api": {
        "page_size": (int, 100),
        "max_page_size": (int, 1000),
        "url_prefix": (str, ""),
        "cors_origins": (list, []),
        "metrics_key": (str, ""),
        "public_url": (str, ""),  # "": URLs are built from the request
        "allowed_hosts": (list, []),  # []: the loopback names and public_url's host
        "trusted_proxies": (list, []),  # []: no X-Forwarded-* header is believed
    },
    "auth": {
        "api_keys": (list, []),
        "keys": (dict, {}),  # [auth.keys.<name>]: named keys, each with its scope
    },
    "log": {
        "format": (str, "plain"),
        "slow_query": ((int, float), 2),
    },
    "collections": {
        "serve": (list, []),  # []: all ten
    },
    "feed": {
        "settle_seconds": ((int, float), 30),
        "lookback_seconds": ((int, float), 600),
        # []: one secret made at the first start and kept in database.proof_dir
        "bookmark_secrets": (list, []),
    },
    "site": {
        "name": (str, ""),  # "": the report prints no site name
        "timezone": (str, ""),  # "": not set (app/core/clock.py)
        # {}: the defaults of app/model/labels.py; a site's table renames some of them
        "collections": (dict, {}),
        "dates": (dict, {}),
        "fields": (dict, {}),  # {}: the workbooks' headings of app/model/labels.py
    },
    "mcp": {
        "enabled": (bool, True),
        "allowed_origins": (list, []),  # []: only requests that carry no Origin header
    },
}
_PATH_KEYS = (("database", "sqlite"), ("database", "sql_dir"), ("database", "proof_dir"))
STATE_DIRECTORY = "STATE_DIRECTORY"  # what systemd's StateDirectory= gives the service
SECRET_FILE = "bookmark-secret"  # in database.proof_dir, when [feed] bookmark_secrets is []
MIN_SECRET = 16  # characters of a bookmark secret, at least


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
            kind, _ = SPEC[section][key]
            if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                kinds = kind if isinstance(kind, tuple) else (kind,)
                names = " or ".join("a table" if k is dict else k.__name__ for k in kinds)
                raise ConfigError(f"{origin}: {section}.{key} must be {names}, "
                                  f"not {type(value).__name__} {value!r}")
            if kind is list and not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{origin}: {section}.{key} must be a list of strings")
            if (section, key) in _PATH_KEYS and value:
                value = str((base_dir / value) if not Path(value).is_absolute() else Path(value))
            into[section][key] = value


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
    return hashlib.sha256(key.encode()).digest()


def _digest(given: Any, where: str) -> bytes:
    """key_sha256: the hex SHA-256 of the key, as `printf %s KEY | sha256sum` prints it."""
    if not isinstance(given, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", given.strip()):
        raise ConfigError(f"{where} must be the key's SHA-256 in 64 hex digits, as "
                          f"`printf %s 'the-key' | sha256sum` prints it; got {given!r}")
    return bytes.fromhex(given.strip())


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
    return ApiKey(name, digest, collections, where, limit, fields)


def _keys(api_keys: Sequence[str], named: Mapping[str, Any], served: Sequence[str]
          ) -> tuple[ApiKey, ...]:
    """Every key: api_keys' entries (full access, named key-1, key-2, ...), then the named
    keys; no two the same key."""
    keys = [ApiKey(f"key-{n}", _secret(key, f"auth.api_keys entry {n}"))
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


def _proof_dir(given: str, cwd: Path, environ: Mapping[str, str]) -> Path:
    """database.proof_dir: as given; else the service manager's state directory (systemd's
    StateDirectory=, the shipped unit's /var/lib/jembatan) + proofs; else instance/proofs
    under the working directory."""
    if given:
        return Path(given)
    state = environ.get(STATE_DIRECTORY, "").split(":")[0]
    return Path(state) / "proofs" if state else cwd / "instance" / "proofs"


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
    try:
        if not path.is_file():
            directory.mkdir(parents=True, exist_ok=True)
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
    except ConfigError as exc:
        logging.getLogger("jembatan").warning(
            "%s; until then this process signs the feed's bookmarks with a secret of its own, "
            "which its sibling workers and the next start refuse", exc)
        secret = random_secrets.token_bytes(32)
    return replace(settings, feed=replace(settings.feed, secrets=(secret,)))


def _feed(feed: Mapping[str, Any], zone: ZoneInfo | None) -> FeedSettings:
    """[feed] checked, with the plant's zone and the bookmarks' secrets."""
    for key in ("settle_seconds", "lookback_seconds"):
        # A day at most: a bookmark remembers stamps as offsets within its window.
        if not 0 <= feed[key] <= 86400:
            raise ConfigError(f"feed.{key} must be a number of seconds from 0 to 86400, "
                              f"not {feed[key]!r}")
    return FeedSettings(settle_seconds=float(feed["settle_seconds"]),
                        lookback_seconds=float(feed["lookback_seconds"]), zone=zone,
                        secrets=_bookmark_secrets(feed["bookmark_secrets"]))


def _environment(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    layer: dict[str, dict[str, Any]] = {}
    if "JEMBATAN_SQLITE" in environ:
        layer.setdefault("database", {})["sqlite"] = environ["JEMBATAN_SQLITE"]
    if "JEMBATAN_ODBC" in environ:
        layer.setdefault("database", {})["odbc"] = environ["JEMBATAN_ODBC"]
    if "JEMBATAN_API_KEYS" in environ:
        # Empty entries dropped ("a,,b", a trailing comma); a short one refuses the start.
        keys = [k.strip() for k in environ["JEMBATAN_API_KEYS"].split(",") if k.strip()]
        layer.setdefault("auth", {})["api_keys"] = keys
    if "JEMBATAN_BOOKMARK_SECRETS" in environ:
        given = [k.strip() for k in environ["JEMBATAN_BOOKMARK_SECRETS"].split(",") if k.strip()]
        layer.setdefault("feed", {})["bookmark_secrets"] = given
    return layer


def load_settings(overrides: Mapping[str, Any] | None = None,
                  environ: Mapping[str, str] | None = None) -> Settings:
    """Built-in defaults, then the TOML file, then the environment, then overrides."""
    environ = os.environ if environ is None else environ
    cwd = Path.cwd()
    merged = {s: {k: default for k, (_, default) in keys.items()} for s, keys in SPEC.items()}
    merged["database"]["sqlite"] = str(cwd / merged["database"]["sqlite"])

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

    db, api, auth, logs = merged["database"], merged["api"], merged["auth"], merged["log"]
    for key in ("query_timeout", "connect_timeout"):
        if db[key] <= 0:
            raise ConfigError(f"database.{key} must be a positive number of seconds")
    if db["proof_wait"] < 0:
        raise ConfigError("database.proof_wait must be a number of seconds, 0 or more")
    if not 1 <= api["page_size"] <= api["max_page_size"]:
        raise ConfigError("api.page_size must be at least 1 and at most api.max_page_size "
                          f"({api['page_size']} > {api['max_page_size']})")
    prefix = api["url_prefix"]
    if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
        raise ConfigError(f"api.url_prefix must start with '/' and not end with one, "
                          f"e.g. \"/api\" (got {prefix!r})")
    if logs["format"] not in ("plain", "json"):
        raise ConfigError(f"log.format must be \"plain\" or \"json\", not {logs['format']!r}")
    if logs["slow_query"] < 0:
        raise ConfigError("log.slow_query must be a number of seconds, 0 or more")
    zone = _zone(merged["site"]["timezone"])
    public = _public_url(api["public_url"].strip(), prefix)
    return Settings(
        database=DatabaseSettings(
            sqlite=Path(db["sqlite"]),
            odbc=db["odbc"],
            query_timeout=float(db["query_timeout"]),
            connect_timeout=float(db["connect_timeout"]),
            sql_dir=Path(db["sql_dir"]) if db["sql_dir"] else SHIPPED_SQL_DIR,
            prove_on_first_read=db["prove_on_first_read"],
            proof_dir=_proof_dir(db["proof_dir"], cwd, environ),
            proof_wait=float(db["proof_wait"]),
        ),
        api=ApiSettings(page_size=api["page_size"], max_page_size=api["max_page_size"],
                        url_prefix=prefix, cors_origins=tuple(api["cors_origins"]),
                        metrics_key=api["metrics_key"], public_url=public,
                        allowed_hosts=_allowed_hosts(api["allowed_hosts"], public),
                        trusted_proxies=_proxies(api["trusted_proxies"])),
        auth=AuthSettings(api_keys=tuple(auth["api_keys"]),
                          keys=_keys(auth["api_keys"], auth["keys"],
                                     _served(merged["collections"]["serve"]))),
        log=LogSettings(format=logs["format"], slow_query=float(logs["slow_query"])),
        collections=CollectionSettings(serve=_served(merged["collections"]["serve"])),
        site=SiteSettings(
            name=merged["site"]["name"].strip(),
            collections=_labels("collections", merged["site"]["collections"],
                                COLLECTION_LABELS),
            dates=_labels("dates", merged["site"]["dates"], DATE_LABELS),
            timezone=zone,
            fields=_labels("fields", merged["site"]["fields"], FIELD_LABELS, field_names())),
        source=source,
        feed=_feed(merged["feed"], zone),
        mcp=McpSettings(enabled=merged["mcp"]["enabled"],
                        allowed_origins=_origins(merged["mcp"]["allowed_origins"])),
    )
