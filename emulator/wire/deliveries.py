"""Webhook deliveries: signed event POSTs to the URIs of a namespace's webhooks (stores/webhooks.py), off the request
path.

An event (`publish`: a batch, video or interaction reached a state a webhook is subscribed to; `ping`) becomes one
delivery per subscribed, enabled webhook of the same namespace, put on a bounded queue that a few worker tasks
drain; a producer never waits (a full queue drops the delivery, journaled). Each attempt is one POST through an
httpx.AsyncClient that follows no redirect and reads no proxy from the environment, answered within
ATTEMPT_TIMEOUT_S; anything but a 2xx is tried again after `--webhook-backoff-ms`, doubling each time (at most
MAX_BACKOFF_S), up to `--webhook-retries` times. Every attempt is a journal record (rpc `webhooks.deliver`: the
URL, the event as sent, the receiver's status and first bytes, or the error; `delivery` says which webhook,
event, attempt and outcome), never a secret. `later` runs a probe after a delay (a batch's or video's end, which
the stores reach by the clock, not by a task) and publishes what it finds. All of it ends with the server
(`close`, registered with the Drain).

Dynamic webhooks (a request's `webhook_config`: `uris` to use instead of the registered webhooks, and
`user_metadata` carried in each of its events as `data.user_metadata`) are delivered the same way, one delivery per
URI, whatever the namespace's webhooks subscribe to. Their `webhook-signature` is an RS256 JWT (`DynamicSigner`),
verifiable against the JWKS the emulator publishes at `GET /__emulator/webhooks/jwks` (production: Google's own
JWKS); its claims are best-known: `iss`, `aud` (the URI), `iat`, `exp` (5 minutes on), `webhook_id`, and
`body_sha256` (the hex SHA-256 of the body as posted).

Static signing follows Standard Webhooks, as Google documents for static webhooks: headers `webhook-id`,
`webhook-timestamp` (Unix seconds) and `webhook-signature`, `v1,` and the base64 HMAC-SHA256 of
`{id}.{timestamp}.{body}` keyed by the secret's base64-decoded bytes (after `whsec_`), one such entry per secret in
force, space-separated (a rotation's grace period signs with old and new).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt
import orjson
from cryptography.hazmat.primitives.asymmetric import rsa

from gemini_emulator.admin.journal import REDACTED, Journal
from gemini_emulator.protocol import errors
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.records_redis import RedisWebhookStore
from gemini_emulator.stores.webhooks import SECRET_PREFIX, Webhook, WebhookStore

log = logging.getLogger("gemini_emulator")
MAX_QUEUED = 1_000  # deliveries waiting for a worker (past it a new one is dropped, journaled)
WORKERS = 4
ATTEMPT_TIMEOUT_S = 10.0
MAX_BACKOFF_S = 60.0
MAX_WATCHES = 10_000  # probes waiting for a batch's or video's end
MAX_ANSWER_KEPT = 4096  # bytes of a receiver's answer the journal keeps
PING = "webhook.ping"  # best-known: the event type of a ping is not documented
RPC = "webhooks.deliver"
USER_AGENT = "gemini-emulator-webhooks"
ISSUER = "https://generativelanguage.googleapis.com"  # best-known: a dynamic webhook JWT's iss
TOKEN_LIFETIME_S = 300
MAX_DYNAMIC_URIS = 10  # a request's webhook_config.uris
MAX_USER_METADATA = 16 << 10  # its user_metadata, as JSON

Found = tuple[str, dict[str, Any]] | float | None  # an event to publish, seconds until the next look, or give up
Probe = Callable[[], Awaitable[Found]]


def webhook_hosts(setting: str) -> frozenset[str]:
    """The host names `--webhook-hosts` allows besides loopback ones, lower-cased."""
    return frozenset(h.strip().lower().strip("[]") for h in setting.split(",") if h.strip())


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refusal(uri: str, hosts: frozenset[str]) -> str | None:
    """Why the emulator will not post to `uri` (None: it will): http(s) to a loopback host or one in `hosts` only."""
    try:
        parts = urlsplit(uri)
        host = (parts.hostname or "").lower()
        parts.port  # noqa: B018 - a port that is no number raises here
    except ValueError:
        return f"the URI {uri[:200]!r} is not a valid URL"
    if parts.scheme not in ("http", "https") or not host:
        return f"the URI {uri[:200]!r} is not an http or https URL"
    if not _loopback(host) and host not in hosts:
        return (
            f"gemini-emulator delivers webhooks to loopback hosts and to hosts named in --webhook-hosts only, not "
            f"to {host!r}"
        )
    return None


def dynamic_config(value: Any, hosts: frozenset[str], field_name: str = "webhook_config") -> Dynamic | None:
    """A request's webhook_config as delivered (None when it names no URI: the registered webhooks apply), or a 400
    naming what is wrong: a URI this emulator may not post to (`refusal`), past MAX_DYNAMIC_URIS, or user_metadata
    that is not an object or past MAX_USER_METADATA bytes of JSON (best-known wording)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise errors.invalid_argument(f"{field_name} must be an object.")
    uris, metadata = value.get("uris"), value.get("user_metadata", value.get("userMetadata"))
    if uris is None or uris == []:
        return None
    if not isinstance(uris, list) or not all(isinstance(uri, str) and uri for uri in uris):
        raise errors.invalid_argument(f"{field_name}.uris must be a list of URIs.")
    if len(uris) > MAX_DYNAMIC_URIS:
        raise errors.invalid_argument(f"{field_name}.uris: at most {MAX_DYNAMIC_URIS} URIs.")
    for uri in uris:
        refused = refusal(uri, hosts)
        if refused is not None:
            raise errors.invalid_argument(f"{field_name}.uris: {refused}")
    if metadata is not None and (not isinstance(metadata, dict) or len(orjson.dumps(metadata)) > MAX_USER_METADATA):
        raise errors.invalid_argument(
            f"{field_name}.user_metadata must be an object of at most {MAX_USER_METADATA} bytes of JSON."
        )
    return Dynamic(tuple(dict.fromkeys(uris)), metadata)


def sign(signing: list[str], message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header: one `v1,<base64 HMAC-SHA256>` entry per secret, space-separated."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    entries = []
    for secret in signing:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
        entries.append("v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode())
    return " ".join(entries)


def event_body(event_type: str, data: dict[str, Any]) -> bytes:
    """An event as posted: type, version, timestamp, data (best-known field names and order)."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return orjson.dumps({"type": event_type, "version": "v1", "timestamp": now, "data": data})


def _shown_url(uri: str) -> tuple[str, dict[str, str]]:
    """The URL as journaled: without user info, its query values REDACTED (a receiver's token may sit there)."""
    parts = urlsplit(uri)
    netloc = parts.netloc.rpartition("@")[2]
    query = {k: REDACTED for k, _, _ in (p.partition("=") for p in parts.query.split("&") if p)}
    return f"{parts.scheme}://{netloc}{parts.path or '/'}", query


@dataclass(frozen=True)
class Dynamic:
    """A request's webhook_config: where its events go instead of the registered webhooks, and what they carry."""

    uris: tuple[str, ...]
    user_metadata: dict[str, Any] | None = None


class DynamicSigner:
    """The emulator's RSA key for dynamic webhooks: signs each delivery's JWT, and publishes the public half (JWKS).
    The key is made on first use, one per server."""

    def __init__(self) -> None:
        self._key: rsa.RSAPrivateKey | None = None
        self.kid = ""

    def _private(self) -> rsa.RSAPrivateKey:
        if self._key is None:
            self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            public = self._key.public_key().public_numbers()
            self.kid = hashlib.sha256(public.n.to_bytes(256, "big")).hexdigest()[:16]
        return self._key

    def jwks(self) -> dict[str, Any]:
        """The JSON Web Key Set a receiver verifies dynamic webhooks against."""
        key = jwt.algorithms.RSAAlgorithm.to_jwk(self._private().public_key(), as_dict=True)
        return {"keys": [{**key, "alg": "RS256", "use": "sig", "kid": self.kid}]}

    def token(self, uri: str, message_id: str, timestamp: int, body: bytes) -> str:
        """The webhook-signature of one delivery to `uri`."""
        claims = {
            "iss": ISSUER,
            "aud": uri,
            "iat": timestamp,
            "exp": timestamp + TOKEN_LIFETIME_S,
            "webhook_id": message_id,
            "body_sha256": hashlib.sha256(body).hexdigest(),
        }
        return jwt.encode(claims, self._private(), algorithm="RS256", headers={"kid": self.kid})


@dataclass
class Delivery:
    """One event on its way to one webhook, or (`uri` set, no webhook id) to a dynamic webhook's URI."""

    namespace: str
    webhook_id: str
    event_type: str
    body: bytes
    message_id: str
    attempt: int = 1
    uri: str = ""


class Deliveries:
    """The delivery queue, its workers, the retry timers and the probes (module docstring). Lives on the server's
    event loop: every method is called there."""

    def __init__(
        self,
        store: WebhookStore | RedisWebhookStore,
        journal: Journal,
        hosts: frozenset[str],
        retries: int,
        backoff_s: float,
    ) -> None:
        self.store, self.journal, self.hosts = store, journal, hosts
        self.retries, self.backoff_s = retries, backoff_s
        self.closed = False
        self._queue: asyncio.Queue[Delivery] | None = None
        self._client: httpx.AsyncClient | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._timers: set[asyncio.TimerHandle] = set()
        self._probes: set[asyncio.Task[None]] = set()
        self._watches = 0
        self.signer = DynamicSigner()

    def publish(self, namespace: str, event_type: str, data: dict[str, Any], dynamic: Dynamic | None = None) -> int:
        """Deliver an event to each enabled webhook of `namespace` subscribed to it, or with `dynamic` to its URIs
        instead; how many deliveries that makes."""
        if dynamic is not None:
            if dynamic.user_metadata is not None:
                data = {**data, "user_metadata": dynamic.user_metadata}
            body = event_body(event_type, data)
            for uri in dynamic.uris:
                self._enqueue(Delivery(namespace, "", event_type, body, _message_id(), uri=uri))
            return len(dynamic.uris)
        if self.closed:
            return 0
        if isinstance(self.store, RedisWebhookStore):  # its webhooks looked up off this call (one round trip)
            self._spawn(self._publish_shared(self.store, namespace, event_type, data))
            return 0
        hooks = self.store.subscribed(namespace, event_type)
        self._deliver(namespace, event_type, data, hooks)
        return len(hooks)

    async def _publish_shared(
        self, store: RedisWebhookStore, namespace: str, event_type: str, data: dict[str, Any]
    ) -> None:
        try:
            hooks = await store.subscribed(namespace, event_type)
        except errors.ApiError:  # Redis unreachable (logged by the link): the event is not delivered
            return
        self._deliver(namespace, event_type, data, hooks)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` on the loop, ended with the deliveries (`close`); nothing once they are closed."""
        if self.closed:
            work.close()
            return
        self._spawn(work)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._probes.add(task)
        task.add_done_callback(self._probes.discard)

    def _deliver(self, namespace: str, event_type: str, data: dict[str, Any], hooks: list[Webhook]) -> None:
        if hooks:
            body = event_body(event_type, data)
            for hook in hooks:
                self._enqueue(Delivery(namespace, hook.id, event_type, body, _message_id()))

    def ping(self, hook: Webhook) -> None:
        """A ping event to one webhook, whatever it is subscribed to."""
        self._enqueue(Delivery(hook.namespace, hook.id, PING, event_body(PING, {"id": hook.id}), _message_id()))

    def later(self, namespace: str, delay_s: float, probe: Probe, dynamic: Dynamic | None = None) -> bool:
        """Run `probe` in `delay_s` seconds and publish to `namespace` (or `dynamic`'s URIs) what it finds (False:
        no room for another probe)."""
        if self.closed or self._watches >= MAX_WATCHES:
            return False
        self._watches += 1
        self._timer(max(0.0, delay_s), lambda: self._look(namespace, probe, dynamic))
        return True

    def close(self) -> None:
        """End everything: workers (an attempt under way is journaled as ended), timers, probes, the client."""
        if self.closed:
            return
        self.closed = True
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        for task in [*self._workers, *self._probes]:
            task.cancel()
        client, self._client = self._client, None
        if client is not None:
            try:
                asyncio.get_running_loop().create_task(client.aclose())
            except RuntimeError:  # no loop running any more: the sockets go with the process
                pass

    def _timer(self, delay_s: float, then: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        handle: asyncio.TimerHandle

        def fire() -> None:
            self._timers.discard(handle)
            then()

        handle = loop.call_later(delay_s, fire)
        self._timers.add(handle)

    def _look(self, namespace: str, probe: Probe, dynamic: Dynamic | None) -> None:
        async def run() -> None:
            try:
                found = await probe()
            except Exception:
                log.exception("a webhook probe failed")
                found = None
            if isinstance(found, tuple):
                self.publish(namespace, *found, dynamic=dynamic)
            elif isinstance(found, float | int) and not self.closed:
                self._timer(max(0.01, float(found)), lambda: self._look(namespace, probe, dynamic))
                return
            self._watches -= 1

        task = asyncio.get_running_loop().create_task(run())
        self._probes.add(task)
        task.add_done_callback(self._probes.discard)

    def _enqueue(self, delivery: Delivery) -> None:
        if self.closed:
            return
        if self._queue is None:
            self._queue = asyncio.Queue(MAX_QUEUED)
            self._workers = [asyncio.get_running_loop().create_task(self._work()) for _ in range(WORKERS)]
        try:
            self._queue.put_nowait(delivery)
        except asyncio.QueueFull:
            self._journal(delivery, 0, f"dropped: {MAX_QUEUED} deliveries are waiting already", "dropped")

    async def _work(self) -> None:
        assert self._queue is not None
        while True:
            delivery = await self._queue.get()
            try:
                await self._attempt(delivery)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("a webhook delivery failed")

    async def _attempt(self, delivery: Delivery) -> None:
        try:
            hook = None if delivery.uri else await settled(self.store.get(delivery.namespace, delivery.webhook_id))
        except errors.ApiError:  # Redis unreachable (logged by the link)
            self._journal(delivery, 0, "the state store is unavailable", "dropped")
            return
        if hook is None and not delivery.uri:
            self._journal(delivery, 0, "the webhook was deleted", "dropped")
            return
        uri = hook.uri if hook is not None else delivery.uri
        refused = refusal(uri, self.hosts)
        if refused is not None:  # the setting changed under it: never posted
            self._journal(delivery, 0, refused, "refused", uri)
            return
        timestamp = int(time.time())
        signature = (
            sign(hook.signing(), delivery.message_id, timestamp, delivery.body)
            if hook is not None
            else self.signer.token(uri, delivery.message_id, timestamp, delivery.body)
        )
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "webhook-id": delivery.message_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": signature,
        }
        record = self._begin(delivery, uri, headers)
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=ATTEMPT_TIMEOUT_S, follow_redirects=False, trust_env=False, headers={"user-agent": USER_AGENT}
            )
        status, answer, error = 0, b"", ""
        try:
            async with asyncio.timeout(ATTEMPT_TIMEOUT_S):
                async with self._client.stream("POST", uri, content=delivery.body, headers=headers) as response:
                    status = response.status_code
                    async for piece in response.aiter_bytes():
                        answer += piece
                        if len(answer) >= MAX_ANSWER_KEPT:
                            break
        except asyncio.CancelledError:
            self._end(record, delivery, 0, b"", "the server shut down", "ended")
            raise
        except (httpx.HTTPError, TimeoutError, OSError) as failure:
            error = f"{type(failure).__name__}: {failure}"[:500] or type(failure).__name__
        ok = 200 <= status < 300
        retry = not ok and delivery.attempt <= self.retries and not self.closed
        outcome = "delivered" if ok else ("retrying" if retry else "gave up")
        self._end(record, delivery, status, answer[:MAX_ANSWER_KEPT], error, outcome)
        if retry:
            wait = min(self.backoff_s * 2 ** (delivery.attempt - 1), MAX_BACKOFF_S)
            delivery.attempt += 1
            self._timer(wait, lambda: self._enqueue(delivery))

    def _begin(self, delivery: Delivery, uri: str, headers: dict[str, str]) -> Any:
        url, query = _shown_url(uri) if uri else ("", {})
        raw = [(k.encode(), v.encode()) for k, v in headers.items()]
        record = self.journal.begin("POST", url, query, raw)
        record.namespace, record.rpc = delivery.namespace, RPC
        record.body = orjson.loads(delivery.body)
        return record

    def _end(self, record: Any, delivery: Delivery, status: int, answer: bytes, error: str, outcome: str) -> None:
        note: dict[str, Any] = {
            "webhook": delivery.webhook_id or "dynamic",
            "event": delivery.event_type,
            "id": delivery.message_id,
            "attempt": delivery.attempt,
            "outcome": outcome,
        }
        if error:
            note["error"] = error
        record.delivery = note
        self.journal.finish(record, status, answer)

    def _journal(self, delivery: Delivery, status: int, error: str, outcome: str, uri: str = "") -> None:
        self._end(self._begin(delivery, uri or delivery.uri, {}), delivery, status, b"", error, outcome)


def _message_id() -> str:
    return "msg_" + secrets.token_urlsafe(18)
