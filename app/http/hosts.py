"""Which host a request may ask for, whom the forwarded headers are believed from, and what the
URLs Jembatan writes are built from (docs/api.md §10.1).

- X-Forwarded-For, -Proto, -Host, -Port and -Prefix are applied (Werkzeug's ProxyFix, for one
  proxy) only when the direct peer is one of `api.trusted_proxies`; from anyone else they are
  dropped before anything reads them.
- The host the request asks for (a trusted proxy's X-Forwarded-Host, else the Host header)
  must be one of the allowed hosts (`api.allowed_hosts`, the public URL's host and the
  loopback names): any other is a 400, with a key or without, on every route and on /mcp,
  which keeps a DNS-rebinding page from reading the API through a browser.
- With `api.public_url`, every URL Jembatan writes (Link, the index, the feed's next link,
  /docs) is built from it, whatever the request said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import Any

from flask import Flask, request
from werkzeug.exceptions import BadRequest
from werkzeug.middleware.proxy_fix import ProxyFix

from ..ops.config import ApiSettings, PublicUrl, host_name

# Where the host the client asked for is kept in the WSGI environ, before the public URL
# replaces it.
ASKED = "jembatan.asked_host"
FORWARDED = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST",
             "HTTP_X_FORWARDED_PORT", "HTTP_X_FORWARDED_PREFIX")

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def trusted(peer: str | None, proxies: tuple[IPv4Network | IPv6Network, ...]) -> bool:
    """Whether the direct peer's address is one of the trusted proxies'."""
    if not proxies or not peer:
        return False
    try:
        address = ip_address(peer)
    except ValueError:
        return False
    if address.version == 6 and address.ipv4_mapped is not None:  # ::ffff:127.0.0.1
        address = address.ipv4_mapped
    return any(address in network for network in proxies)


class Doors:
    """The WSGI middleware: forwarded headers from trusted proxies only, the asked host kept
    for the check, and the public URL laid over the request's own."""

    def __init__(self, app: Wsgi, settings: ApiSettings):
        self.app = app
        self.proxies = settings.trusted_proxies
        self.public = settings.public_url
        self.proxied = ProxyFix(self.addressed, x_for=1, x_proto=1, x_host=1, x_port=1,
                                x_prefix=1)
        # Each peer's verdict, kept (a service sees few peers; an address is parsed in 2 µs).
        self.verdicts: dict[str, bool] = {}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        peer = environ.get("REMOTE_ADDR") or ""
        verdict = self.verdicts.get(peer)
        if verdict is None:
            verdict = trusted(peer, self.proxies)
            if len(self.verdicts) < 1024:  # bounded: a scan from many addresses is not kept
                self.verdicts[peer] = verdict
        if verdict:
            return self.proxied(environ, start_response)
        for name in FORWARDED:
            environ.pop(name, None)
        return self.addressed(environ, start_response)

    def addressed(self, environ: dict[str, Any], start_response: Callable[..., Any]
                  ) -> Iterable[bytes]:
        environ[ASKED] = environ.get("HTTP_HOST")
        public: PublicUrl | None = self.public
        if public is not None:
            environ["wsgi.url_scheme"] = public.scheme
            environ["HTTP_HOST"] = public.netloc
            environ["SCRIPT_NAME"] = public.root
        return self.app(environ, start_response)


def register_hosts(app: Flask, settings: ApiSettings) -> None:
    """A request that asks for a host outside the allowed ones is a 400 that names the setting
    (before the key: it is refused with a key or without)."""
    allowed = settings.allowed_hosts
    if "*" in allowed:
        return
    accepted = ", ".join(sorted(allowed))

    @app.before_request
    def check_host() -> None:
        asked = request.environ.get(ASKED)
        if asked is None:  # no Host header (HTTP/1.0): the server's own address
            return
        if host_name(asked) not in allowed:
            shown = asked.encode("unicode_escape").decode("ascii")[:100]  # ESC as \x1b
            raise BadRequest(f"This service does not answer to the host '{shown}': the hosts "
                             f"it answers to are {accepted} (the operator sets them with "
                             f"api.public_url or api.allowed_hosts).")
