"""The pages Jembatan serves for people (docs/api.md §8): `/dashboard` and `/report/{date}`,
each one static file, and the script they share, `/jembatan.js`: read once at start and
served as they are.

A page is HTML with its CSS and its own JavaScript inline; what the two pages share (talking
to the API with the key the user gives, the key form, labels, numbers, DOM as text) is
app/http/static/jembatan.js, which each loads from Jembatan itself by a relative URL. Nothing
comes from elsewhere, so they work on a plant LAN without internet; in the browser they read
only the public JSON API. Serving them is therefore a plain Flask route, not flask-smorest's:
not an API operation, out of the OpenAPI document (app/http/views.py dashboard, report and
script, registered by app/http/routes.py), and open like the pages when API keys are set (the
script holds no data).

Its Content-Security-Policy allows the page's own inline <script> and <style> by their
SHA-256 hashes (computed here from the file), not 'unsafe-inline': were a value from the
database ever to reach the page as HTML, no script in it would run. Everything else is
'self' only (the shared script among it): no CDN, font or image from elsewhere could load
even if the page asked.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from flask import Request, Response

from ..ops.config import SiteSettings

STATIC = Path(__file__).parent / "static"
# Each page's empty block for the site's words (app/model/labels.py); filled once at start.
PLACEHOLDER = '<script type="application/json" id="labels">{}</script>'

_INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.DOTALL)


def _hashes(html: str, tag: str, name: str) -> str:
    """The CSP source expressions of every inline <tag> block of `html` (page `name`)."""
    found = [body for kind, body in _INLINE.findall(html) if kind == tag]
    if not found:
        raise ValueError(f"{name} has no inline <{tag}>")
    return " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
        for b in found)


def content_security_policy(html: str, name: str = "the page") -> str:
    """The policy for the page `html`: its inline script and style by hash, the rest 'self'."""
    return ("default-src 'self'; "
            f"script-src 'self' {_hashes(html, 'script', name)}; "
            f"style-src 'self' {_hashes(html, 'style', name)}; "
            "img-src 'self' data:; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def script_json(value: object) -> str:
    """`value` as JSON that is safe between <script> tags: no `<`, `>` or `&` left raw (a
    JSON string may hold them escaped as \\u003c... and means the same). The block it goes
    in is data the browser never runs, so the policy's script hashes need not cover it."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


@dataclass(frozen=True)
class Page:
    """One page as served: its bytes, their ETag and its policy, read once at start."""

    body: bytes
    etag: str
    policy: str

    @classmethod
    def read(cls, filename: str, site: SiteSettings,
             absent: Mapping[str, Sequence[str]] | None = None) -> Page:
        """The page app/http/static/<filename>, with the site's words written into its block
        and, per collection, the fields the site maps to NULL (app/core/absent.py)."""
        path = STATIC / filename
        html = path.read_text(encoding="utf-8")
        if html.count(PLACEHOLDER) != 1:
            raise ValueError(f"{path} must hold {PLACEHOLDER} once")
        # The plant's time zone, for the page's "today" (null: the browser's own).
        words = {"name": site.name, "collections": dict(site.collections),
                 "dates": dict(site.dates),
                 "timezone": site.timezone.key if site.timezone is not None else None,
                 "absent": {c: list(f) for c, f in (absent or {}).items()}}
        html = html.replace(PLACEHOLDER, PLACEHOLDER.replace("{}", script_json(words)))
        body = html.encode()
        return cls(body, hashlib.sha256(body).hexdigest()[:32],
                   content_security_policy(html, str(path)))

    def response(self, request: Request) -> Response:
        """The page, or a 304 when the client holds these bytes."""
        response = Response(self.body, mimetype="text/html")
        response.set_etag(self.etag)
        response.headers["Content-Security-Policy"] = self.policy
        # Revalidated on every load (the ETag makes that a 304): a new version of the page is
        # seen at once after an upgrade.
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response.make_conditional(request)


@dataclass(frozen=True)
class Script:
    """The pages' shared script as served: its bytes and their ETag, read once at start."""

    body: bytes
    etag: str

    @classmethod
    def read(cls, filename: str) -> Script:
        """The script app/http/static/<filename>, as it is."""
        body = (STATIC / filename).read_bytes()
        return cls(body, hashlib.sha256(body).hexdigest()[:32])

    def response(self, request: Request) -> Response:
        """The script, or a 304 when the client holds these bytes; revalidated on every load
        as the pages are, so that a page and its script change together after an upgrade."""
        response = Response(self.body, mimetype="text/javascript")
        response.set_etag(self.etag)
        response.headers["Cache-Control"] = "no-cache"
        return response.make_conditional(request)
