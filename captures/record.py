"""Record mode: a proxy to the real service that writes a golden capture of every exchange.

    gemini-emulator record --upstream https://generativelanguage.googleapis.com --captures captures/recorded

Point an SDK at the recorder exactly as at the emulator. Each request goes upstream with the caller's own
credentials; the answer streams back unchanged as it arrives (status, headers, every piece of the body as
soon as the upstream sends it), and once it is complete a capture is written (captures/format.py).

Never written: API keys, bearer tokens, App Check tokens and cookies. Request headers are kept from an
allow-list, `key=` leaves the query, and any credential value the service echoes (DebugInfo "Invalid API
key: ...") is replaced by REDACTED, which marks the capture `edited`. `--scrub REGEX[=REPLACEMENT]` adds
rules for content (names, e-mail addresses...), applied to both bodies; a capture they change is `edited`
too, its edits naming the rules. The upstream is asked for identity encoding so that the bytes kept are
the bytes sent.
"""

from __future__ import annotations

import itertools
import logging
import re
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER
from gemini_emulator.admin.journal import REDACTED, SECRET_HEADERS
from gemini_emulator.captures.format import REQUEST_HEADERS, Capture, Request
from gemini_emulator.captures.importers import SECRET_PATTERN, exchange, recorded_date, scrub_query
from gemini_emulator.protocol import routes
from gemini_emulator.wire import auth

# Headers that belong to one hop of the connection, not to the message.
_HOP = frozenset(
    {"host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "trailer", "proxy-connection"}
)
# The emulator's own headers are for the emulator: the admin token is a secret, and a namespace means nothing
# upstream.
_NOT_FORWARDED = _HOP | {"content-length", "accept-encoding", ADMIN_TOKEN_HEADER, auth.NAMESPACE_HEADER}
_NOT_RETURNED = _HOP | {"content-length", "content-encoding"}
# A capture's file name carries the model and method: only these characters, at most this many of each.
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")
_NAME_PART = 80
log = logging.getLogger("gemini_emulator.record")


@dataclass(frozen=True)
class ScrubRule:
    """`REGEX=REPLACEMENT` (the replacement defaults to REDACTED)."""

    pattern: re.Pattern[str]
    replacement: str = REDACTED
    text: str = ""

    @classmethod
    def parse(cls, rule: str) -> ScrubRule:
        pattern, sep, replacement = rule.partition("=")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"--scrub {rule!r}: not a regular expression ({exc})") from None
        return cls(compiled, replacement if sep else REDACTED, rule)


def credentials(headers: Mapping[str, str], query: Mapping[str, str]) -> tuple[str, list[str]]:
    """The kind of credential a request carries (captures.AUTH_KINDS) and every secret value in it."""
    key = auth.api_key(headers, query)
    bearer = headers.get("authorization", "")
    secrets = [v for k, v in headers.items() if k.lower() in SECRET_HEADERS and v]
    secrets += [query[k] for k in ("key", "access_token") if query.get(k)]
    secrets += [bearer.partition(" ")[2]] if " " in bearer else []
    kind = "api-key" if key else "bearer" if bearer else "none"
    return kind, [s for s in secrets if len(s) >= 4]


@dataclass
class Recorder:
    """The proxy: forwards, streams back, writes captures into `root`."""

    upstream: str
    root: Path
    rules: list[ScrubRule] = field(default_factory=list)
    timeout: float = 600.0
    _counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _stamp: str = field(default_factory=lambda: datetime.now(UTC).strftime("%Y%m%d-%H%M%S"))
    _client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, connect=30.0))
        return self._client

    async def handle(self, request: HttpRequest) -> Response:
        body = await request.body()
        query = request.url.query
        # The path as the caller wrote it, percent-escapes and all: decoded, `%3F` would start a query upstream
        # and `%00` would not make a URL at all.
        path = request.scope.get("raw_path", request.url.path.encode()).decode("latin-1").partition("?")[0]
        url = self.upstream.rstrip("/") + path + ("?" + query if query else "")
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _NOT_FORWARDED]
        try:
            outgoing = self.client.build_request(
                request.method, url, headers=[*headers, ("accept-encoding", "identity")], content=body
            )
            upstream = await self.client.send(outgoing, stream=True)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            text = f"gemini-emulator record: the upstream {self.upstream} did not answer ({type(exc).__name__})"
            return Response(text + "\n", status_code=502, media_type="text/plain")
        response = StreamingResponse(self._relay(request, body, upstream), status_code=upstream.status_code)
        response.raw_headers = [  # every upstream header as sent, repeated ones included
            (k.lower().encode("latin-1"), v.encode("latin-1"))
            for k, v in upstream.headers.multi_items()
            if k.lower() not in _NOT_RETURNED
        ]
        return response

    async def _relay(self, request: HttpRequest, body: bytes, upstream: httpx.Response) -> AsyncIterator[bytes]:
        """Each upstream piece goes to the caller as it arrives; the capture is written once the body ends."""
        pieces: list[bytes] = []
        try:
            async for piece in upstream.aiter_raw():
                pieces.append(piece)
                yield piece
        finally:
            await upstream.aclose()
        try:
            self.write(request, body, upstream, b"".join(pieces))
        except OSError as exc:  # a full disk, a read-only folder: the caller already has the answer
            log.warning("gemini-emulator record: capture not written (%s)", exc.strerror or type(exc).__name__)

    def write(self, request: HttpRequest, body: bytes, upstream: httpx.Response, received: bytes) -> Path | None:
        """The capture of one complete exchange (None for a URL the API does not route)."""
        target = routes.match(request.method, request.url.path)
        if target is None:
            return None
        kind, secrets = credentials(request.headers, request.query_params)
        edits: list[str] = []
        request_text = self._clean(body.decode("utf-8", "replace"), secrets, edits, "request") if body else None
        response_headers = {
            k.lower(): self._clean(v, secrets, edits, f"response header {k.lower()}")
            for k, v in upstream.headers.items()
        }
        try:
            response_body = self._clean(received.decode("utf-8"), secrets, edits, "response").encode()
        except UnicodeDecodeError:
            response_body = received  # kept as base64 by the format; never text, so no secret to find
        recorded = Request(
            method=request.method,
            path=request.url.path,
            query=scrub_query(request.url.query),
            auth=kind,
            headers={k: request.headers[k] for k in REQUEST_HEADERS if k in request.headers},
            body=request_text,
        )
        model = _SAFE_NAME.sub("_", target.model.removeprefix("models/"))[:_NAME_PART] or "models"
        method = _SAFE_NAME.sub("_", target.method or target.action)[:_NAME_PART]
        name = f"{self._stamp}-{next(self._counter):04d}-{model}-{method}"
        capture = Capture(
            name=name,
            description=f"Recorded {request.method} {request.url.path}: HTTP {upstream.status_code}",
            provenance={
                "source": "gemini-emulator record",
                "upstream": self.upstream,
                "licence": "recorded by the user of this emulator",
                "recorded": recorded_date(response_headers) or datetime.now(UTC).date().isoformat(),
                "fidelity": "edited" if edits else "byte-exact",
                **({"edits": sorted(set(edits))} if edits else {}),
            },
            exchanges=[exchange(recorded, upstream.status_code, response_headers, response_body)],
        )
        return capture.write(self.root)

    def _clean(self, text: str, secrets: list[str], edits: list[str], where: str) -> str:
        """`text` with credentials and the scrub rules' matches replaced; `edits` says what changed."""
        for secret in secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
                edits.append(f"{where}: a credential the caller sent replaced by {REDACTED}")
        text, found = SECRET_PATTERN.subn(REDACTED, text)
        if found:
            edits.append(f"{where}: a credential-shaped string replaced by {REDACTED}")
        for rule in self.rules:
            text, found = rule.pattern.subn(rule.replacement, text)
            if found:
                edits.append(f"{where}: scrubbed by rule {rule.text!r}")
        return text


def upstream_problem(upstream: str) -> str:
    """Why `upstream` cannot be recorded from, or "". It may not carry credentials: a `user:password@` would go
    into every capture, the banner and the 502 text, and would replace each caller's own token upstream."""
    if not upstream.startswith(("https://", "http://")):
        return "--upstream must be an http(s) URL such as https://generativelanguage.googleapis.com"
    try:
        parts = urlsplit(upstream)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return "--upstream is not a URL"
    if parts.username is not None or parts.password is not None:
        return "--upstream must not carry credentials (user:password@): each caller's own key or token goes upstream"
    if parts.query or parts.fragment or not parts.hostname:
        return "--upstream is a scheme, host and optional port and path, with no query or fragment"
    return ""


def create_app(recorder: Recorder) -> Starlette:
    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    app = Starlette(routes=[Route("/{path:path}", recorder.handle, methods=methods)])
    app.state.recorder = recorder
    return app


def main(upstream: str, captures: str, host: str, port: int, scrub: list[str], log_level: str) -> int:
    """`gemini-emulator record`: serve the recording proxy until interrupted."""
    import uvicorn

    problem = upstream_problem(upstream)
    if problem:
        print(f"gemini-emulator record: {problem}", file=sys.stderr)
        return 2
    try:
        rules = [ScrubRule.parse(rule) for rule in scrub]
    except ValueError as exc:
        print(f"gemini-emulator record: {exc}", file=sys.stderr)
        return 2
    root = Path(captures)
    recorder = Recorder(upstream, root, rules)
    print(f"gemini-emulator record: http://{host}:{port} -> {upstream}; captures in {root}", flush=True)
    uvicorn.run(
        create_app(recorder),
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,  # URLs can carry ?key=
        server_header=False,
        lifespan="off",
    )
    return 0
