"""Webhooks (google-genai 3.6.1's `client.webhooks`): each namespace's registered endpoints, their subscribed events
and their signing secrets.

A webhook is created with its URI and events and gets a signing secret, shown once (at create, and at each rotate)
as production does; afterwards only a truncated form is shown. A rotation keeps the previous secrets signing for
24 hours (`revoke_previous_secrets_after_h24`, the default here) or ends them at once
(`revoke_previous_secrets_immediately`); deliveries are signed with every secret still in force (Standard Webhooks
allows several signatures in one header). Delivery itself is wire/deliveries.py's.

Bounds: MAX_PER_NAMESPACE webhooks per namespace and MAX_WEBHOOKS in all (a create past either is refused), at
most MAX_SECRETS secrets per webhook (a rotation past it drops the oldest), URIs and names of bounded length.
Thread-safe.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

# The events google-genai 3.6.1 lists (types/webhooks/webhook.py, WebhookSubscribedEvent), and the two more the
# @google/genai reference lists (batch.cancelled, interaction.cancelled).
EVENTS = (
    "batch.succeeded",
    "batch.expired",
    "batch.failed",
    "interaction.requires_action",
    "interaction.completed",
    "interaction.failed",
    "video.generated",
)
MORE_EVENTS = ("batch.cancelled", "interaction.cancelled")
KNOWN_EVENTS = frozenset(EVENTS + MORE_EVENTS)
STATES = ("enabled", "disabled", "disabled_due_to_failed_deliveries")  # WebhookState
REVOCATIONS = {"revoke_previous_secrets_after_h24": 24 * 3600.0, "revoke_previous_secrets_immediately": 0.0}
DEFAULT_REVOCATION = "revoke_previous_secrets_after_h24"  # best-known: the SDK leaves it optional
SECRET_PREFIX = "whsec_"  # Standard Webhooks' spelling of a symmetric secret
SECRET_BYTES = 32
MAX_PER_NAMESPACE = 100
MAX_WEBHOOKS = 10_000
MAX_SECRETS = 5
MAX_URI_CHARS = 2048
MAX_NAME_CHARS = 512
MAX_EVENTS = len(KNOWN_EVENTS)


class WebhooksFull(Exception):
    """No room for another webhook: the message says which bound."""


def new_secret() -> str:
    """A fresh signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def truncated(secret: str) -> str:
    """How a secret is shown after the create or rotate that minted it: its last four characters only."""
    return f"{SECRET_PREFIX}...{secret[-4:]}"


@dataclass
class Secret:
    """One signing secret: its value, when it was made, and when it stops signing (0: not planned)."""

    value: str
    created_ns: int
    expires_ns: int = 0

    def in_force(self, now_ns: int) -> bool:
        return not self.expires_ns or now_ns < self.expires_ns


@dataclass
class Webhook:
    """One registered endpoint."""

    id: str
    namespace: str
    uri: str
    events: list[str]
    name: str = ""
    state: str = "enabled"
    created_ns: int = 0
    updated_ns: int = 0
    secrets: list[Secret] = field(default_factory=list)  # newest first

    def signing(self, now_ns: int | None = None) -> list[str]:
        """The secrets that sign a delivery now, newest first."""
        now = time.time_ns() if now_ns is None else now_ns
        return [s.value for s in self.secrets if s.in_force(now)]


def _new_id() -> str:
    return secrets.token_hex(8)


class WebhookStore:
    """Every namespace's webhooks, oldest first."""

    def __init__(self) -> None:
        self._spaces: dict[str, OrderedDict[str, Webhook]] = {}
        self._lock = threading.Lock()

    def create(self, namespace: str, uri: str, events: list[str], name: str = "") -> tuple[Webhook, str]:
        """A new webhook and its first signing secret (shown once), or WebhooksFull."""
        with self._lock:
            space = self._spaces.setdefault(namespace, OrderedDict())
            if len(space) >= MAX_PER_NAMESPACE:
                raise WebhooksFull(f"this caller has {MAX_PER_NAMESPACE} webhooks, the emulator's bound per caller")
            if sum(len(s) for s in self._spaces.values()) >= MAX_WEBHOOKS:
                raise WebhooksFull(f"the emulator holds {MAX_WEBHOOKS} webhooks, its bound")
            now = time.time_ns()
            secret = new_secret()
            webhook_id = _new_id()
            while webhook_id in space:
                webhook_id = _new_id()
            hook = Webhook(webhook_id, namespace, uri, list(events), name, "enabled", now, now, [Secret(secret, now)])
            space[webhook_id] = hook
            return hook, secret

    def get(self, namespace: str, webhook_id: str) -> Webhook | None:
        with self._lock:
            space = self._spaces.get(namespace)
            return space.get(webhook_id) if space is not None else None

    def page(self, namespace: str, size: int, token: str = "") -> tuple[list[Webhook], str] | None:
        """Up to `size` webhooks after the one `token` names ("" : from the start) and the next page's token ("":
        none); None for a token that names no webhook of this namespace."""
        with self._lock:
            hooks = list(self._spaces.get(namespace, OrderedDict()).values())
        start = 0
        if token:
            ids = [h.id for h in hooks]
            if token not in ids:
                return None
            start = ids.index(token)
        page = hooks[start : start + size]
        following = hooks[start + size].id if start + size < len(hooks) else ""
        return page, following

    def update(
        self,
        namespace: str,
        webhook_id: str,
        *,
        uri: str | None,
        events: list[str] | None,
        name: str | None,
        state: str | None,
    ) -> Webhook | None:
        """Change the fields given (None: left as they are); None for an unknown webhook."""
        with self._lock:
            hook = self._spaces.get(namespace, OrderedDict()).get(webhook_id)
            if hook is None:
                return None
            if uri is not None:
                hook.uri = uri
            if events is not None:
                hook.events = list(events)
            if name is not None:
                hook.name = name
            if state is not None:
                hook.state = state
            hook.updated_ns = time.time_ns()
            return hook

    def rotate(self, namespace: str, webhook_id: str, revocation: str = DEFAULT_REVOCATION) -> str | None:
        """A new signing secret (shown once); the previous ones stop signing after the revocation's grace. None for
        an unknown webhook."""
        grace = REVOCATIONS[revocation]
        with self._lock:
            hook = self._spaces.get(namespace, OrderedDict()).get(webhook_id)
            if hook is None:
                return None
            now = time.time_ns()
            kept: list[Secret] = []
            if grace:
                ends = now + int(grace * 1e9)
                for old in hook.secrets:
                    if old.in_force(now):
                        old.expires_ns = min(old.expires_ns or ends, ends)
                        kept.append(old)
            secret = new_secret()
            hook.secrets = [Secret(secret, now), *kept][:MAX_SECRETS]
            hook.updated_ns = now
            return secret

    def delete(self, namespace: str, webhook_id: str) -> bool:
        with self._lock:
            space = self._spaces.get(namespace)
            return space is not None and space.pop(webhook_id, None) is not None

    def subscribed(self, namespace: str, event: str) -> list[Webhook]:
        """The namespace's enabled webhooks subscribed to `event`."""
        with self._lock:
            space = self._spaces.get(namespace)
            if not space:
                return []
            return [h for h in space.values() if h.state == "enabled" and event in h.events]

    def wants(self, namespace: str, prefix: str) -> bool:
        """Whether any enabled webhook of the namespace is subscribed to an event starting with `prefix`."""
        with self._lock:
            space = self._spaces.get(namespace)
            if not space:
                return False
            return any(h.state == "enabled" and any(e.startswith(prefix) for e in h.events) for h in space.values())

    def all(self, namespace: str | None = None) -> list[Webhook]:
        with self._lock:
            spaces = [self._spaces.get(namespace, OrderedDict())] if namespace is not None else self._spaces.values()
            return [hook for space in spaces for hook in space.values()]

    def count(self, namespace: str) -> int:
        with self._lock:
            return len(self._spaces.get(namespace, ()))

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._spaces.clear()
            else:
                self._spaces.pop(namespace, None)
