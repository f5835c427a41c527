"""Cross-origin rules for the data plane: which web pages may call the Gemini API paths and read the answers.

firebase/ai and @google/genai's browser build call the API from a page on another origin (a dev server on
http://localhost:5173 calling the emulator on :8080), so the browser sends a CORS preflight first and reads an
answer only when it names the page's origin. Production answers preflights for its API hosts; no recording of one
exists in the corpus, so the headers here are the best-known shape of Google's front end (docs/conformance.md,
"CORS"): the page's origin echoed with `Vary: Origin`, the requested headers echoed, every method, an hour's cache.

Which origins: `--cors-origins` (`loopback` by default: pages on localhost, 127.0.0.1 or [::1], any port and
scheme). Letting a page read answers lets it read whatever the key it sends can read, so the default keeps pages
from other sites out; `*` lets any page in and is for a machine that serves nothing else (docs/security.md). The
admin API (/__emulator) never goes through here: it answers no other origin (gemini_emulator.admin.guard).

Starlette's CORSMiddleware does the protocol; this module decides its rules from the setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK = "loopback"
ANY = "*"
OFF = "off"
# Any port on a loopback name, http or https (a linear pattern: no nesting, bounded repeats).
LOOPBACK_PATTERN = r"https?://(?:localhost|127(?:\.[0-9]{1,3}){3}|\[::1\])(?::[0-9]{1,5})?"
ANY_PATTERN = r"[^\s]{1,2048}"  # echoed like a listed origin, as production echoes rather than answering "*"
METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
MAX_AGE = 3600  # seconds a browser may keep a preflight's answer
# Response headers a page's script may read: the resumable upload protocol's (@google/genai's files.upload reads
# x-goog-upload-url and x-goog-upload-status from the start and finalize answers) and the service tier.
EXPOSED = (
    "x-goog-upload-url",
    "x-goog-upload-status",
    "x-goog-upload-chunk-granularity",
    "x-goog-upload-control-url",
    "x-goog-upload-size-received",
    "x-gemini-service-tier",
)


@dataclass(frozen=True)
class Origins:
    """The pages `--cors-origins` lets in: origins listed exactly, and the pattern of `loopback` or `*`."""

    listed: tuple[str, ...]
    pattern: str | None

    def allows(self, origin: str) -> bool:
        """Whether a page of `origin` (a request's Origin header) may call the data plane."""
        return origin in self.listed or (self.pattern is not None and re.fullmatch(self.pattern, origin) is not None)


def origins(setting: str) -> Origins | None:
    """The pages a `--cors-origins` value lets in; None when CORS is off. A value that is no origin (a path,
    another scheme, a typo) is a one-line ValueError naming the setting."""
    words = [word.strip() for word in setting.split(",") if word.strip()]
    if not words or words == [OFF]:
        return None
    listed: list[str] = []
    patterns: list[str] = []
    for word in words:
        if word == ANY:
            return Origins((), ANY_PATTERN)
        if word == LOOPBACK:
            patterns.append(LOOPBACK_PATTERN)
            continue
        listed.append(_origin(word))
    return Origins(tuple(listed), "|".join(patterns) or None)


def _origin(word: str) -> str:
    try:
        parts = urlsplit(word)
        parts.port  # noqa: B018  (a port that is no number raises here)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise ValueError(
            f"--cors-origins: {word[:100]!r} is no origin; give scheme://host[:port] (http://localhost:5173),"
            f" {LOOPBACK!r}, {ANY!r} or {OFF!r}"
        )
    return f"{parts.scheme}://{parts.netloc}".lower()


def data_plane(app: ASGIApp, allowed: Origins | None) -> ASGIApp:
    """`app` (the Gemini API paths) answering preflights and naming allowed origins on its answers, streams
    included; `app` itself when CORS is off (`allowed` None)."""
    if allowed is None:
        return app
    browser = CORSMiddleware(
        app,
        allow_origins=allowed.listed,
        allow_origin_regex=allowed.pattern,
        allow_methods=METHODS,
        allow_headers=[ANY],  # the requested headers echoed: SDKs add their own (x-goog-api-client, x-firebase-*)
        expose_headers=EXPOSED,
        max_age=MAX_AGE,
        allow_private_network=True,  # Chrome's preflight for a public page calling loopback, when one is allowed
    )
    return BrowserCalls(app, browser)


def socket_refused(allowed: Origins | None, origin: str | None) -> bool:
    """Whether a WebSocket handshake (the Live API) comes from a page the CORS rules keep out. Browsers send
    `Origin` on every handshake and apply no CORS to WebSockets, so the server must: the same rule as the HTTP
    paths (with CORS off, no page at all). A client that sends no Origin (SDKs outside a browser) is served."""
    return origin is not None and (allowed is None or not allowed.allows(origin))


class BrowserCalls:
    """Requests with an `Origin` (what browsers send) through the CORS rules, the rest (SDKs, curl) straight on:
    their answers stay the bytes production sends, `Vary: Origin, X-Origin, Referer` included."""

    def __init__(self, app: ASGIApp, browser: ASGIApp) -> None:
        self.app = app
        self.browser = browser

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if any(name == b"origin" for name, _ in scope["headers"]):
            await self.browser(scope, receive, _OneVary(send))
        else:
            await self.app(scope, receive, send)


class _OneVary:
    """A send that names each header in `Vary` once: production's answers already vary on Origin, and
    Starlette's CORS adds it again."""

    def __init__(self, send: Send) -> None:
        self.send = send

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            names = [name.strip() for value in headers.getlist("vary") for name in value.split(",")]
            if names:  # set in place of the first (MutableHeaders drops the others): the header order is kept
                headers["vary"] = ", ".join(dict.fromkeys(name for name in names if name))
        await self.send(message)
