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
inspector page is served by the emulator itself, so its own calls are same-origin.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors
from gemini_emulator.wire.auth import ADMIN_TOKEN_HEADER

__all__ = ["ADMIN_TOKEN_HEADER", "AdminGuard", "is_loopback"]
# Admin calls anyone may make: container health checks and load balancers probe this without a token; the
# inspector page holds no data (a browser cannot send a header when it opens a page: the page sends the token it
# was opened with, ?token=..., on its own admin calls).
OPEN = frozenset({("GET", "/health"), ("GET", "/inspector")})
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
