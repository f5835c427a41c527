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
import time
from dataclasses import dataclass, field

from gemini_emulator.stores.keyed import Full, Keyed

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


class WebhooksFull(Full):
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


class WebhookStore(Keyed[Webhook]):
    """Every namespace's webhooks, oldest first."""

    full = WebhooksFull
    noun = "webhooks"

    def __init__(self) -> None:
        super().__init__(MAX_PER_NAMESPACE, MAX_WEBHOOKS)

    def create(self, namespace: str, uri: str, events: list[str], name: str = "") -> tuple[Webhook, str]:
        """A new webhook and its first signing secret (shown once), or WebhooksFull."""
        with self._lock:
            self._room(namespace)
            now = time.time_ns()
            secret = new_secret()
            webhook_id = self._fresh_id(namespace, _new_id)
            hook = Webhook(webhook_id, namespace, uri, list(events), name, "enabled", now, now, [Secret(secret, now)])
            return self._put(namespace, webhook_id, hook), secret

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
            hook = self._find(namespace, webhook_id)
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
            hook = self._find(namespace, webhook_id)
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

    def subscribed(self, namespace: str, event: str) -> list[Webhook]:
        """The namespace's enabled webhooks subscribed to `event`."""
        with self._lock:
            return [h for h in self._held_by(namespace) if h.state == "enabled" and event in h.events]

    def wants(self, namespace: str, prefix: str) -> bool:
        """Whether any enabled webhook of the namespace is subscribed to an event starting with `prefix`."""
        with self._lock:
            held = self._held_by(namespace)
        return any(h.state == "enabled" and any(e.startswith(prefix) for e in h.events) for h in held)
