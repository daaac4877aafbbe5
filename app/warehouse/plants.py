"""The plants file: which plants a company's pipeline reads, with which key, and how gently
(docs/warehouse.md, "The plants file").

    page_size = 1000          # records per poll: the feed's ?limit=, 1 to 10,000
    pause_seconds = 0         # at least this long between two requests to one plant
    timeout = 30              # seconds a request may take before the plant counts as down
    collections = ["transactions", "bricon2"]   # default: every collection a plant serves

    [plants.north_mill]
    url = "https://weighbridge.north-mill.example"
    key_env = "NORTH_MILL_KEY"                   # or key = "..."

    [plants.south_quarry]
    url = "http://10.0.0.5:8000"                 # http:// to a host other than loopback:
    insecure_http = true                         # only so, with a warning at each load
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..model.collections import COLLECTIONS

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
URL = re.compile(r"^https?://[^\s/?#]+(/[^\s?#]*)?$")
MAX_PAGE_SIZE = 10_000  # the feed's largest ?limit= (docs/api.md §5.11)
TOP_KEYS = {"page_size", "pause_seconds", "timeout", "collections", "plants"}
PLANT_KEYS = {"url", "key", "key_env", "insecure_http"}
LOG = logging.getLogger("jembatan.warehouse")


class FleetError(ValueError):
    """A plants file that cannot be used: where, and what is wrong."""


@dataclass(frozen=True)
class Plant:
    """One plant's Jembatan: the name its records carry in the warehouse, its URL and key."""

    name: str
    url: str  # without a trailing slash
    key: str | None = None  # sent as X-API-Key; None when the plant has no keys
    insecure_http: bool = False  # http:// to a host other than loopback, allowed by the file


@dataclass(frozen=True)
class Fleet:
    """Every plant of the company and how the pipeline polls them."""

    plants: tuple[Plant, ...]
    collections: tuple[str, ...] | None = None  # None: every collection each plant serves
    page_size: int = 1000
    pause_seconds: float = 0.0
    timeout: float = 30.0


def load_fleet(path: str | Path, environ: Mapping[str, str] | None = None,
               warn: Callable[[str], None] | None = None) -> Fleet:
    """The fleet a plants file lists, or a FleetError naming the file and what is wrong;
    a line to `warn` (by default the log `jembatan.warehouse`) per plant read over plain
    http from another host."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise FleetError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise FleetError(f"{path}: not a TOML file ({exc})") from None
    fleet = parse_fleet(data, str(path), os.environ if environ is None else environ)
    for line in cleartext_warnings(fleet, str(path)):
        (warn or LOG.warning)(line)
    return fleet


def cleartext_warnings(fleet: Fleet, where: str) -> list[str]:
    """One line per plant read over http:// from another host (`insecure_http = true`)."""
    return [f"{where}: [plants.{p.name}]: {p.url} is read over plain http (insecure_http = "
            f"true): {'its key and ' if p.key else ''}its records cross the network "
            "unencrypted" for p in fleet.plants if p.insecure_http]


def parse_fleet(data: Mapping[str, Any], where: str, environ: Mapping[str, str]) -> Fleet:
    """The fleet of a plants file's parsed TOML (`where` names it in errors)."""
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise FleetError(f"{where}: unknown setting {unknown[0]!r}; the settings are "
                         f"{', '.join(sorted(TOP_KEYS))}")
    plants = data.get("plants")
    if not isinstance(plants, dict) or not plants:
        raise FleetError(f"{where}: no plants: add a [plants.<name>] table with its url")
    return Fleet(
        plants=tuple(_plant(name, value, where, environ) for name, value in plants.items()),
        collections=_collections(data.get("collections"), where),
        page_size=_number(data, "page_size", 1000, (1, MAX_PAGE_SIZE), where, whole=True),
        pause_seconds=_number(data, "pause_seconds", 0.0, (0, 3600), where),
        timeout=_number(data, "timeout", 30.0, (0.1, 3600), where))


def _plant(name: str, value: Any, where: str, environ: Mapping[str, str]) -> Plant:
    at = f"{where}: [plants.{name}]"
    if not NAME.match(name):
        raise FleetError(f"{at}: a plant's name is 1 to 64 letters, digits, '_', '.' or '-', "
                         "starting with a letter or digit")
    if not isinstance(value, dict):
        raise FleetError(f"{at}: must be a table with url and key or key_env")
    unknown = sorted(set(value) - PLANT_KEYS)
    if unknown:
        raise FleetError(f"{at}: unknown setting {unknown[0]!r}; a plant takes url, key, "
                         "key_env or insecure_http")
    url = value.get("url")
    if not isinstance(url, str) or not URL.match(url):
        raise FleetError(f"{at}: url must be the plant's Jembatan address, "
                         "http://host:port or https://host/prefix")
    insecure = _insecure_http(url, value.get("insecure_http", False), at)
    if "key" in value and "key_env" in value:
        raise FleetError(f"{at}: give key or key_env, not both")
    key = value.get("key")
    if "key_env" in value:
        variable = value["key_env"]
        if not isinstance(variable, str) or not environ.get(variable):
            raise FleetError(f"{at}: key_env names {variable!r}, which is not set")
        key = environ[variable]
    if key is not None and (not isinstance(key, str) or not key):
        raise FleetError(f"{at}: key must be a non-empty string")
    return Plant(name, url.rstrip("/"), key, insecure)


def _insecure_http(url: str, allowed: Any, at: str) -> bool:
    """Whether the plant is read over http:// from another host, which the file must allow:
    the key and the records would cross the network in clear text."""
    if not isinstance(allowed, bool):
        raise FleetError(f"{at}: insecure_http must be true or false")
    if urlsplit(url).scheme.lower() == "https" or _loopback(urlsplit(url).hostname or ""):
        return False
    if not allowed:
        raise FleetError(f"{at}: {url} is plain http to another host: the key and the records "
                         "would cross the network in clear text; use the plant's https:// "
                         "address (its proxy, docs/deploy.md), or set insecure_http = true "
                         "for a network without TLS (docs/warehouse.md)")
    return True


def _loopback(host: str) -> bool:
    """Whether the host is this machine: localhost, 127.0.0.0/8 or ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _collections(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    known = [c.name for c in COLLECTIONS]
    if not isinstance(value, list) or not value or \
            any(name not in known for name in value) or len(set(value)) != len(value):
        raise FleetError(f"{where}: collections must be a list of distinct collection "
                         f"names, of {', '.join(known)}")
    return tuple(value)


def _number(data: Mapping[str, Any], name: str, default: float,
            bounds: tuple[float, float], where: str, whole: bool = False) -> Any:
    value = data.get(name, default)
    low, high = bounds
    kind = int if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not low <= value <= high:
        what = "a whole number" if whole else "a number"
        raise FleetError(f"{where}: {name} must be {what} from {low:g} to {high:g}")
    return value
