"""Who may use the admin API (/__emulator/...).

On a loopback address anyone on the machine may, unless an admin token is configured. On any other
address (0.0.0.0 in a container, a LAN address) every admin call but `GET /__emulator/health` needs the
token in the `x-emulator-admin-token` header; with no token configured those calls are refused, with a
403 that says how to set one. Tokens are compared in constant time and never logged or journaled.

Web pages the developer opens must not reach it either (CSRF, DNS rebinding): on a loopback address a request
whose `Host` is not a loopback name is refused; a request with an `Origin` other than its own `Host` (another site,
another port, "null") is refused, and so is `Sec-Fetch-Site: cross-site`; a mutation (POST, PUT, DELETE) that
carries a body must declare `Content-Type: application/json`, which no form or no-cors request can. CORS
preflights are answered without any Access-Control-Allow-* header, so browsers never let another origin in. The
inspector page is served by the emulator itself, so its own calls are same-origin. The one route another origin may
use is `GET /__emulator/firebase-live-shim.js`, a constant script (no data, no Access-Control-Allow-* header either:
a classic <script src> needs none). `GET /__emulator/webhooks/jwks` (the public key of dynamic webhooks' signatures)
needs no token either: a webhook receiver fetches it; it is as public as Google's own JWKS.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors
from gemini_emulator.wire.auth import ADMIN_TOKEN_HEADER

__all__ = [
    "ADMIN_TOKEN_HEADER",
    "JWKS_ROUTE",
    "SHIM_ROUTE",
    "AdminGuard",
    "allowed_hosts",
    "is_loopback",
    "rebound_host",
]
# Admin calls anyone may make: container health checks and load balancers probe this without a token; the
# inspector page holds no data (a browser cannot send a header when it opens a page: the page sends the token it
# was opened with, ?token=..., on its own admin calls); nor does the Firebase Live shim, which pages on any origin
# load with a <script src> (a cross-site GET that can neither send a header nor read anything but this constant file).
SHIM_ROUTE = "/firebase-live-shim.js"
JWKS_ROUTE = "/webhooks/jwks"  # the public key dynamic webhooks are signed with: a receiver fetches it, holds no data
OPEN = frozenset({("GET", "/health"), ("GET", "/inspector"), ("GET", SHIM_ROUTE), ("GET", JWKS_ROUTE)})
MUTATIONS = frozenset({"POST", "PUT", "DELETE", "PATCH"})


def _refused(why: str) -> errors.ApiError:
    return errors.ApiError(403, f"admin API: {why}", status="PERMISSION_DENIED")


def host_name(host_header: str) -> str:
    """The name part of a Host header ("[::1]:8080" -> "::1", "localhost:80" -> "localhost")."""
    if host_header.startswith("["):
        return host_header[1:].partition("]")[0]
    return host_header.rpartition(":")[0] if host_header.count(":") == 1 else host_header


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach: 127.0.0.0/8, ::1 and `localhost`."""
    host = host.strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # another host name: it may resolve to anything, so it is not loopback
        return False


@functools.lru_cache(maxsize=256)  # clients repeat one Host header; any other name is refused at the same cost
def _loopback_host_header(host_header: str) -> bool:
    return is_loopback(host_name(host_header))


def allowed_hosts(settings: Settings) -> frozenset[str] | None:
    """The Host names the data plane answers besides loopback ones (`--allowed-hosts`), lowercased; None when the
    server is not bound to a loopback address, where any name may reach it by design."""
    if not is_loopback(settings.host):
        return None
    return frozenset(name.strip().lower() for name in settings.allowed_hosts.split(",") if name.strip())


def rebound_host(allowed: frozenset[str] | None, host_header: str | None) -> errors.ApiError | None:
    """The refusal for an API request (data plane, Live included) that reaches a loopback-bound server under
    another name: a web page on a name rebound to 127.0.0.1 would otherwise read and download the caller's
    files. None when the request may go on (no Host header: no browser sends one; a name in `allowed`; a server
    bound elsewhere, `allowed` None)."""
    if allowed is None or host_header is None or _loopback_host_header(host_header):
        return None
    if host_name(host_header).lower() in allowed:
        return None
    return errors.ApiError(
        403,
        f"Host {host_name(host_header)[:100]!r} is not a loopback name (a DNS rebinding guard): this emulator is"
        " bound to a loopback address; use 127.0.0.1 or localhost, or name it in --allowed-hosts",
        status="PERMISSION_DENIED",
    )


class AdminGuard:
    """Decides, per admin call, whether the caller may make it."""

    def __init__(self, settings: Settings) -> None:
        self.host = settings.host
        self._token = settings.admin_token.encode() if settings.admin_token else None
        self._open_without_token = is_loopback(settings.host)

    def check_origin(self, headers: Mapping[str, str]) -> None:
        """Refuse what a browser sends on behalf of another site: an Origin that is not the request's own Host."""
        if headers.get("sec-fetch-site", "").lower() == "cross-site":
            raise _refused("cross-site requests are refused (Sec-Fetch-Site: cross-site)")
        origin = headers.get("origin")
        if origin is None:
            return
        host = headers.get("host", "")
        try:
            parts = urlsplit(origin)
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
            raise _refused(f"requests from another origin ({origin[:100]!r}) are refused")

    def check(self, method: str, route: str, headers: Mapping[str, str]) -> None:
        """Raise the admin API's 403 unless the call is allowed; `route` is the path after /__emulator."""
        if (method, route) in OPEN:
            return
        if self._open_without_token or is_loopback(self.host):
            name = host_name(headers.get("host", ""))
            if not is_loopback(name):
                raise _refused(f"Host {name[:100]!r} is not a loopback name (a DNS rebinding guard); use 127.0.0.1")
        self.check_origin(headers)
        has_body = headers.get("content-length", "0") not in ("", "0") or "transfer-encoding" in headers
        if method in MUTATIONS and has_body:
            media = headers.get("content-type", "").partition(";")[0].strip().lower()
            if media != "application/json":
                raise errors.ApiError(
                    415, f"admin API bodies are JSON: send Content-Type: application/json, not {media or 'none'}"
                )
        if self._token is None:
            if self._open_without_token:
                return
            raise errors.admin_disabled(self.host, ADMIN_TOKEN_HEADER)
        given = headers.get(ADMIN_TOKEN_HEADER, "").encode("latin-1")  # the header's own bytes (HTTP: latin-1)
        if not hmac.compare_digest(given, self._token):
            raise errors.admin_token_required(ADMIN_TOKEN_HEADER)
