"""A webhook receiver for tests: a tiny real HTTP server on a free loopback port that keeps every POST it gets.

    with Receiver() as receiver:
        hook = client.webhooks.create(subscribed_events=["batch.succeeded"], uri=receiver.url)
        ...
        got = receiver.wait_for("batch.succeeded", timeout=5)
        assert got.verify(hook.new_signing_secret)

`answers` scripts the statuses it replies with, in order (`Receiver(answers=[500, 200])`: a failure, then 200 for
the rest). `verify_signature` checks a delivery as Standard Webhooks defines it (the scheme Google documents for
static webhooks): `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256>` entries over
`{webhook-id}.{webhook-timestamp}.{body}`, keyed by the base64-decoded secret after `whsec_`, and the timestamp is
within `tolerance` seconds of now. `verify_jwt` checks a dynamic webhook's delivery (a request's webhook_config):
its `webhook-signature` is an RS256 JWT verified against a JWKS (the emulator's `GET /__emulator/webhooks/jwks`,
`Gemini.admin.webhook_jwks()`), for this receiver's URL, over this body. Thread-safe; bounded (MAX_KEPT requests,
MAX_BODY bytes each).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import orjson

MAX_KEPT = 1_000
MAX_BODY = 1 << 20
TOLERANCE_S = 300


def verify_signature(secret: str, headers: Mapping[str, str], body: bytes, tolerance: float = TOLERANCE_S) -> bool:
    """Whether `body` with these headers (lower-case names) was signed with `secret` (Standard Webhooks)."""
    names = ("webhook-id", "webhook-timestamp", "webhook-signature")
    message_id, stamp, signature = (headers.get(name, "") for name in names)
    if not (message_id and stamp and signature):
        return False
    try:
        if abs(time.time() - int(stamp)) > tolerance:
            return False
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except ValueError:
        return False
    signed = f"{message_id}.{stamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for entry in signature.split(" "):
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return True
    return False


def verify_jwt(jwks: Mapping[str, Any], headers: Mapping[str, str], body: bytes, audience: str) -> bool:
    """Whether a dynamic webhook's delivery was signed by a key of `jwks`, for `audience` (the URL it was posted
    to), over `body`, and is unexpired."""
    token = headers.get("webhook-signature", "")
    try:
        kid = jwt.get_unverified_header(token).get("kid")
        keys = [k for k in jwt.PyJWKSet.from_dict(dict(jwks)).keys if k.key_id == kid]
        if not keys:
            return False
        claims = jwt.decode(token, keys[0].key, algorithms=["RS256"], audience=audience)
    except jwt.PyJWTError:
        return False
    digest = hashlib.sha256(body).hexdigest()
    return hmac.compare_digest(str(claims.get("body_sha256", "")), digest) and claims.get("webhook_id") == headers.get(
        "webhook-id"
    )


@dataclass(frozen=True)
class Received:
    """One request the receiver got: its method, path, headers (lower-case names), body and what it answered."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    at: float  # time.monotonic() when it arrived

    @property
    def event(self) -> dict[str, Any]:
        """The body as JSON ({} when it is not)."""
        try:
            parsed = orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    @property
    def type(self) -> str:
        return str(self.event.get("type", ""))

    def verify(self, secret: str, tolerance: float = TOLERANCE_S) -> bool:
        return verify_signature(secret, self.headers, self.body, tolerance)

    def verify_jwt(self, jwks: Mapping[str, Any], audience: str) -> bool:
        return verify_jwt(jwks, self.headers, self.body, audience)


class Receiver:
    """The server (module docstring); `url` is where to point a webhook."""

    def __init__(self, answers: Iterable[int] = (), host: str = "127.0.0.1", path: str = "/hook") -> None:
        self._answers = list(answers)
        self._received: list[Received] = []
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = min(int(self.headers.get("content-length") or 0), MAX_BODY)
                body = self.rfile.read(length)
                status = receiver._next_status()
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver._keep(Received("POST", self.path, headers, body, status, time.monotonic()))

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
                pass

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self._server.daemon_threads = True
        port = self._server.server_address[1]
        self.url = f"http://{host}:{port}{path}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), name=f"webhook-receiver:{port}", daemon=True
        )
        self._thread.start()

    def _next_status(self) -> int:
        with self._changed:
            return self._answers.pop(0) if self._answers else 200

    def _keep(self, received: Received) -> None:
        with self._changed:
            if len(self._received) < MAX_KEPT:
                self._received.append(received)
            self._changed.notify_all()

    def answer(self, *statuses: int) -> None:
        """Statuses to answer the next requests with, after those still scripted."""
        with self._changed:
            self._answers.extend(statuses)

    @property
    def received(self) -> list[Received]:
        """Everything received so far, oldest first."""
        with self._changed:
            return list(self._received)

    def of(self, event_type: str) -> list[Received]:
        return [r for r in self.received if r.type == event_type]

    def wait_for(self, event_type: str, timeout: float = 5.0, count: int = 1) -> Received:
        """The `count`-th request carrying `event_type` (waits up to `timeout` seconds; TimeoutError past it)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [r for r in self._received if r.type == event_type]
                if len(found) >= count:
                    return found[count - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    got = [r.type for r in self._received]
                    raise TimeoutError(f"no {count} x {event_type!r} within {timeout} s; received {got}")
                self._changed.wait(left)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
