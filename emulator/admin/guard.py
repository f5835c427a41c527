"""Who may use the admin API (/__emulator/...).

On a loopback address anyone on the machine may, unless an admin token is configured. On any other
address (0.0.0.0 in a container, a LAN address) every admin call but `GET /__emulator/health` needs the
token in the `x-emulator-admin-token` header; with no token configured those calls are refused, with a
403 that says how to set one. Tokens are compared in constant time and never logged or journaled.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping

from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors

ADMIN_TOKEN_HEADER = "x-emulator-admin-token"
# Admin calls anyone may make: container health checks and load balancers probe this without a token; the
# inspector page holds no data (a browser cannot send a header when it opens a page: the page sends the token it
# was opened with, ?token=..., on its own admin calls).
OPEN = frozenset({("GET", "/health"), ("GET", "/inspector")})


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

    def check(self, method: str, route: str, headers: Mapping[str, str]) -> None:
        """Raise the admin API's 403 unless the call is allowed; `route` is the path after /__emulator."""
        if (method, route) in OPEN:
            return
        if self._token is None:
            if self._open_without_token:
                return
            raise errors.admin_disabled(self.host, ADMIN_TOKEN_HEADER)
        given = headers.get(ADMIN_TOKEN_HEADER, "").encode("latin-1")  # the header's own bytes (HTTP: latin-1)
        if not hmac.compare_digest(given, self._token):
            raise errors.admin_token_required(ADMIN_TOKEN_HEADER)
