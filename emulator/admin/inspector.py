"""The inspector page served at GET /__emulator/inspector: one HTML file with its CSS and JavaScript inline
(no build step, no CDN; it works offline), read once at import.

The page only reads and drives the admin JSON endpoints. It sets all its text with textContent, and its
Content-Security-Policy lets nothing run but its own inline script and style (allowed by their SHA-256), and lets
it connect only to the emulator itself, so even a bug that put markup from a journal record into the page would
load nothing and run nothing.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from starlette.responses import Response

PAGE = Path(__file__).with_name("inspector.html").read_bytes()


def _hashes(tag: str) -> str:
    """CSP source expressions allowing exactly the page's inline <tag> elements."""
    bodies = re.findall(rb"<%s>(.*?)</%s>" % (tag.encode(), tag.encode()), PAGE, re.S)
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'" for body in bodies)


CSP = (
    f"default-src 'none'; script-src {_hashes('script')}; style-src {_hashes('style')}; connect-src 'self'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


def page() -> Response:
    """The page with its security headers."""
    return Response(PAGE, media_type="text/html; charset=utf-8", headers=HEADERS)
