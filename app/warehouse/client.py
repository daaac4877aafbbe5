"""One plant's Jembatan as the pipeline reads it: its index, a master collection whole, and
one poll of a feed (docs/api.md §1, §5.11), each request at least `pause_seconds` after the
one before to the same plant, and answered or refused in words a data team can act on."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from .plants import Fleet, Plant

# A refused bookmark (a secret retired without the old one kept, a service of another
# version): the feed starts again from a stamp (docs/api.md §5.11, Errors).
RESTART = ("after: the bookmark is not valid", "after: a bookmark of another version")
BUSY_TRIES = 5  # a 429 (the key's max_concurrent) is waited out this many times
REDIRECTS = 5  # redirects followed within the plant's own origin, at most, for one request
DEFAULT_PORTS = {"http": 80, "https": 443}


class PlantDown(Exception):
    """The plant could not be read now (no answer, a timeout, a 5xx): skipped this run."""


class PlantRefused(Exception):
    """The plant answered, but not with records: a key it does not know, a 4xx."""


class BookmarkRefused(PlantRefused):
    """The plant no longer takes the bookmark the pipeline kept: start again from a stamp."""


@dataclass(frozen=True)
class Poll:
    """One answer of /<c>/changes: its records, its bookmark, how many may have come before."""

    records: list[dict[str, Any]]
    bookmark: str
    repeats: int


class PlantClient:
    """Requests to one plant, paced, with its key."""

    def __init__(self, plant: Plant, fleet: Fleet, agent: str,
                 counted: dict[str, int] | None = None) -> None:
        self.plant = plant
        self.fleet = fleet
        self.session = requests.Session()
        self.session.headers.update({"Accept": "application/json", "User-Agent": agent})
        if plant.key:
            self.session.headers["X-API-Key"] = plant.key
        self.counted = {} if counted is None else counted  # requests by plant name
        self.last = 0.0

    def index(self) -> dict[str, Any]:
        """The plant's index: the collections its key reads, and the site's labels."""
        return _json(self.get("/", {}))

    def records(self, collection: str) -> list[dict[str, Any]]:
        """Every record of a collection without dates (a master collection), in one answer."""
        return _json(self.get(f"/{collection}", {}))

    def changes(self, collection: str, on: str, bookmark: str | None,
                since: str | None = None) -> Poll:
        """One poll of the collection's feed on `on` after `bookmark` (or from `since`, or
        from the start)."""
        params: dict[str, Any] = {"on": on, "limit": self.fleet.page_size}
        if bookmark:
            params["after"] = bookmark
        elif since:
            params["since"] = since
        answer = self.get(f"/{collection}/changes", params)
        if "X-Bookmark" not in answer.headers:
            raise PlantRefused(f"{answer.url} sent no X-Bookmark: not a Jembatan feed")
        return Poll(_json(answer), answer.headers["X-Bookmark"],
                    int(answer.headers.get("X-Bookmark-Repeats", "0")))

    def get(self, path: str, params: Mapping[str, Any]) -> requests.Response:
        """A GET of the plant, paced; PlantDown or PlantRefused unless it answers 200."""
        for _ in range(BUSY_TRIES):
            answer = self.followed(path, params)
            if answer.status_code != 429:
                break
            time.sleep(min(float(answer.headers.get("Retry-After", "1") or 1), 30.0))
        if answer.status_code == 200:
            return answer
        message = _message(answer)
        if answer.status_code >= 500 or answer.status_code == 429:
            raise PlantDown(f"{path} answered {answer.status_code}: {message}")
        refused = BookmarkRefused if message.startswith(RESTART) else PlantRefused
        raise refused(f"{path} answered {answer.status_code}: {message}")

    def followed(self, path: str, params: Mapping[str, Any]) -> requests.Response:
        """The answer to a GET of the plant's `path`, its redirects followed while they stay
        at the plant's own origin (scheme, host and port); a redirect anywhere else is
        refused, never followed: the key would go with it (docs/warehouse.md)."""
        answer = self.paced(self.plant.url + path, path, params)
        for _ in range(REDIRECTS):
            if not answer.is_redirect:
                return answer
            location = urljoin(answer.url, answer.headers["Location"])
            if origin(location) != origin(self.plant.url):
                raise PlantRefused(
                    f"{path} answered {answer.status_code}, a redirect to {location}: another "
                    "scheme, host or port than the plant's url, not followed (the key would "
                    f"go there); set [plants.{self.plant.name}] url in the plants file to the "
                    "address that answers")
            answer = self.paced(location, path, {})
        if answer.is_redirect:
            raise PlantRefused(f"{path}: more than {REDIRECTS} redirects")
        return answer

    def paced(self, url: str, path: str, params: Mapping[str, Any]) -> requests.Response:
        """One request of `url` (for `path`), without following a redirect, no sooner than
        pause_seconds after the last one to this plant."""
        wait = self.last + self.fleet.pause_seconds - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.counted[self.plant.name] = self.counted.get(self.plant.name, 0) + 1
        try:
            return self.session.get(url, params=params, timeout=self.fleet.timeout,
                                    allow_redirects=False)
        except requests.RequestException as exc:
            raise PlantDown(f"{path}: {_reason(exc)}") from None
        finally:
            self.last = time.monotonic()


def origin(url: str) -> tuple[str, str, int | None]:
    """A URL's origin: its scheme, host and port (the scheme's own when it names none)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:  # not a port: no origin of a plant's
        port = -1
    return scheme, (parts.hostname or "").lower(), port


def _json(answer: requests.Response) -> Any:
    try:
        return answer.json()
    except ValueError:
        raise PlantRefused(f"{answer.url} did not answer JSON") from None


def _message(answer: requests.Response) -> str:
    try:
        body = answer.json()
    except ValueError:
        return answer.reason or "no JSON body"
    return str(body.get("message") or body.get("database") or answer.reason) \
        if isinstance(body, dict) else answer.reason


def _reason(exc: requests.RequestException) -> str:
    if isinstance(exc, requests.exceptions.SSLError):
        return ("TLS refused: the plant's certificate is not one this host trusts (set "
                "REQUESTS_CA_BUNDLE to the company's CA file, docs/warehouse.md)")
    if isinstance(exc, requests.Timeout):
        return "no answer within the timeout"
    if isinstance(exc, requests.ConnectionError):
        return "cannot connect"
    return type(exc).__name__
