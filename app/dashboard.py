"""`/dashboard` (CONTRACT §9): one static page, read once at start and served as it is.

The page is HTML with its CSS and JavaScript inline, so that it needs no other file and works
on a plant LAN without internet; in the browser it reads only the public JSON API, with the
key the user gives it. Serving it is therefore a plain Flask blueprint, not flask-smorest's:
it is not an API operation and stays out of the OpenAPI document (app/views.py dashboard,
registered by app/routes.py).

Its Content-Security-Policy allows the page's own inline <script> and <style> by their
SHA-256 hashes (computed here from the file), not 'unsafe-inline': were a value from the
database ever to reach the page as HTML, no script in it would run. Everything else is
'self' only: no CDN, font or image from elsewhere could load even if the page asked.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

PAGE = Path(__file__).parent / "static" / "dashboard.html"

_INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.DOTALL)


def _hashes(html: str, tag: str) -> str:
    """The CSP source expressions of every inline <tag> block of `html`."""
    found = [body for name, body in _INLINE.findall(html) if name == tag]
    if not found:
        raise ValueError(f"{PAGE} has no inline <{tag}>")
    return " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
        for b in found)


def content_security_policy(html: str) -> str:
    """The policy for the page `html`: its inline script and style by hash, the rest 'self'."""
    return ("default-src 'self'; "
            f"script-src 'self' {_hashes(html, 'script')}; "
            f"style-src 'self' {_hashes(html, 'style')}; "
            "img-src 'self' data:; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


@dataclass(frozen=True)
class Page:
    """The dashboard as served: its bytes, their ETag and its policy, read once at start."""

    body: bytes
    etag: str
    policy: str

    @classmethod
    def read(cls) -> Page:
        html = PAGE.read_text(encoding="utf-8")
        body = html.encode()
        return cls(body, hashlib.sha256(body).hexdigest()[:32], content_security_policy(html))
