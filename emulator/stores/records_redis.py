"""The per-key record stores on Redis (`--store redis://...`): webhooks, agents and stored voices, each a
`RedisKeyed` (stores/keyed_redis.py: keys, bounds, round trips) with its in-memory twin's methods as coroutines,
so the rooms call either alike (`keyed.settled`). Same bounds, same messages, same ids as in memory.

Key kinds: `wh` webhooks, `ag` agents, `vo` stored voices.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

import orjson

from gemini_emulator.seam.state import RedisLink
from gemini_emulator.stores import agents, voices, webhooks
from gemini_emulator.stores.keyed_redis import RedisKeyed
from gemini_emulator.stores.webhooks import Secret, Webhook


class RedisWebhookStore(RedisKeyed[Webhook]):
    """Every namespace's webhooks on Redis (stores/webhooks.WebhookStore's twin)."""

    full = webhooks.WebhooksFull
    noun = "webhooks"
    kind = "wh"

    def __init__(self, link: RedisLink) -> None:
        super().__init__(link, webhooks.MAX_PER_NAMESPACE, webhooks.MAX_WEBHOOKS)

    def dump(self, record: Webhook) -> bytes:
        return orjson.dumps(asdict(record))

    def load(self, data: bytes) -> Webhook:
        fields = orjson.loads(data)
        fields["secrets"] = [Secret(**held) for held in fields["secrets"]]
        return Webhook(**fields)

    async def create(self, namespace: str, uri: str, events: list[str], name: str = "") -> tuple[Webhook, str]:
        now = time.time_ns()
        secret = webhooks.new_secret()

        def build(webhook_id: str) -> Webhook:
            return Webhook(webhook_id, namespace, uri, list(events), name, "enabled", now, now, [Secret(secret, now)])

        return await self.add_fresh(namespace, webhooks._new_id, build), secret

    async def update(
        self,
        namespace: str,
        webhook_id: str,
        *,
        uri: str | None,
        events: list[str] | None,
        name: str | None,
        state: str | None,
    ) -> Webhook | None:
        def how(hook: Webhook) -> None:
            if uri is not None:
                hook.uri = uri
            if events is not None:
                hook.events = list(events)
            if name is not None:
                hook.name = name
            if state is not None:
                hook.state = state
            hook.updated_ns = time.time_ns()

        return await self.change(namespace, webhook_id, how)

    async def rotate(
        self, namespace: str, webhook_id: str, revocation: str = webhooks.DEFAULT_REVOCATION
    ) -> str | None:
        grace = webhooks.REVOCATIONS[revocation]
        minted = webhooks.new_secret()

        def how(hook: Webhook) -> None:
            now = time.time_ns()
            kept: list[Secret] = []
            if grace:
                ends = now + int(grace * 1e9)
                for old in hook.secrets:
                    if old.in_force(now):
                        old.expires_ns = min(old.expires_ns or ends, ends)
                        kept.append(old)
            hook.secrets = [Secret(minted, now), *kept][: webhooks.MAX_SECRETS]
            hook.updated_ns = now

        return minted if await self.change(namespace, webhook_id, how) is not None else None

    async def subscribed(self, namespace: str, event: str) -> list[Webhook]:
        found = await self.page(namespace, self.per_namespace)
        held = found[0] if found is not None else []
        return [h for h in held if h.state == "enabled" and event in h.events]

    def wants(self, namespace: str, prefix: str) -> bool:
        """Always: whether a webhook is subscribed is looked up when the event happens (`subscribed`), so a watch
        starts for every batch or video (bounded by deliveries.MAX_WATCHES) and finds out then."""
        return True


class RedisAgentStore(RedisKeyed[bytes]):
    """Every namespace's agents on Redis, as their JSON (stores/agents.AgentStore's twin)."""

    full = agents.AgentsFull
    noun = "agents"
    kind = "ag"

    def __init__(self, link: RedisLink) -> None:
        super().__init__(
            link,
            agents.MAX_PER_NAMESPACE,
            agents.MAX_AGENTS,
            bytes_per_namespace=agents.MAX_BYTES_PER_NAMESPACE,
            bytes_overall=agents.MAX_BYTES,
        )

    def dump(self, record: bytes) -> bytes:
        return record

    def load(self, data: bytes) -> bytes:
        return data

    def size_of(self, record: bytes) -> int:
        return len(record)

    async def create(self, namespace: str, agent: dict[str, Any]) -> dict[str, Any]:
        data = orjson.dumps(agent)
        if len(data) > agents.MAX_AGENT_BYTES:
            raise ValueError(f"an agent's fields take at most {agents.MAX_AGENT_BYTES} bytes of JSON")
        if not await self.add(namespace, agent["id"], data):
            raise agents.AgentExists(agent["id"])
        return dict(agent)

    async def agent(self, namespace: str, agent_id: str) -> dict[str, Any] | None:
        data = await self.get(namespace, agent_id)
        return None if data is None else dict(orjson.loads(data))

    async def agents_of(self, namespace: str, ids: list[str]) -> list[dict[str, Any] | None]:
        return [None if data is None else dict(orjson.loads(data)) for data in await self.many(namespace, ids)]

    def agents(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        return [(name, orjson.loads(data)) for name, data in self.owned(namespace)]


class RedisVoices(RedisKeyed[bytes]):
    """Each namespace's stored voices on Redis, as their JSON (stores/voices.Voices' twin)."""

    full = voices.VoicesFull
    noun = "stored voices"
    kind = "vo"

    def __init__(self, link: RedisLink) -> None:
        super().__init__(link, voices.MAX_PER_NAMESPACE, voices.MAX_VOICES)

    def dump(self, record: bytes) -> bytes:
        return record

    def load(self, data: bytes) -> bytes:
        return data

    async def create(self, namespace: str, voice: dict[str, Any]) -> dict[str, Any]:
        made: dict[str, Any] = {}

        def build(voice_id: str) -> bytes:
            made.clear()
            made.update({"id": voice_id, **voice})
            data = orjson.dumps(made)
            if len(data) > voices.MAX_VOICE_BYTES:
                raise ValueError(f"a voice's fields take at most {voices.MAX_VOICE_BYTES} bytes of JSON")
            return data

        await self.add_fresh(namespace, voices._new_id, build)
        return made

    async def voice(self, namespace: str, voice_id: str) -> dict[str, Any] | None:
        data = await self.get(namespace, voice_id)
        return None if data is None else dict(orjson.loads(data))

    async def stored(self, namespace: str) -> list[dict[str, Any]]:
        found = await self.page(namespace, self.per_namespace)
        return [orjson.loads(data) for data in reversed(found[0] if found is not None else [])]

    async def usable(self, namespace: str, voice: str) -> bool:
        if voice in voices.PREBUILT_NAMES or voice.startswith(voices.KEY_PREFIX):
            return True
        return await self.get(namespace, voice) is not None

    def voices(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        return [(name, orjson.loads(data)) for name, data in self.owned(namespace)]
