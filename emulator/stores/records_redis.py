"""The per-key record stores on Redis (`--store redis://...`): webhooks, agents, triggers, environments and stored
voices, each a `RedisKeyed` (stores/keyed_redis.py: keys, bounds, round trips) with its in-memory twin's methods as
coroutines, so the rooms call either alike (`keyed.settled`). Same bounds, same messages, same ids as in memory.

Key kinds: `wh` webhooks, `ag` agents, `tr` triggers (and `tr:clock`, the emulator clock), `en` environments (their
files' bytes in side fields), `vo` stored voices.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import asdict
from typing import Any

import orjson

from gemini_emulator.seam.state import KEY_PREFIX, RedisLink, failures
from gemini_emulator.stores import agents, environments, triggers, voices, webhooks
from gemini_emulator.stores.environments import Environment, WorkspaceFile
from gemini_emulator.stores.keyed import page_of
from gemini_emulator.stores.keyed_redis import RedisKeyed
from gemini_emulator.stores.triggers import Execution, Trigger
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

    async def wants(self, namespace: str, prefix: str) -> bool:
        found = await self.page(namespace, self.per_namespace)
        held = found[0] if found is not None else []
        return any(h.state == "enabled" and any(e.startswith(prefix) for e in h.events) for h in held)


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

    def known(self, voice: str) -> bool:
        """Whether a speech config may name `voice` without a look-up: a prebuilt speaker or a replicated voice's
        key (wire/voice_rules.py looks a stored one up, awaited)."""
        return voice in voices.PREBUILT_NAMES or voice.startswith(voices.KEY_PREFIX)

    async def usable(self, namespace: str, voice: str) -> bool:
        return self.known(voice) or await self.get(namespace, voice) is not None

    def voices(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        return [(name, orjson.loads(data)) for name, data in self.owned(namespace)]


class RedisClock(triggers.Clock):
    """Each namespace's emulator clock with its offset in Redis (`P clock`: hash N -> seconds), so every process
    reads one time. A request reads the offset once (`load`, one HGET) and the rest of it the copy kept here
    (offsets only grow: a copy is never ahead); the admin API's advance and reset change Redis (sync client)."""

    def __init__(self, link: RedisLink) -> None:
        super().__init__()
        self.link = link
        self.key = f"{KEY_PREFIX}k:tr:clock"

    async def load(self, namespace: str) -> float:
        """The namespace's offset as Redis holds it, kept for this process's `now`."""
        try:
            held = await self.link.aio.hget(self.key, namespace)
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        return self._keep(namespace, float(held or 0.0))

    def load_sync(self, namespace: str) -> float:
        return self._keep(namespace, float(self.link.command("hget", self.key, namespace) or 0.0))

    def _keep(self, namespace: str, offset: float) -> float:
        with self._lock:
            if offset:
                self._offsets[namespace] = max(offset, self._offsets.get(namespace, 0.0))
            else:
                self._offsets.pop(namespace, None)
            return offset

    def offset(self, namespace: str) -> float:
        return super().offset(namespace)

    def advance(self, namespace: str, seconds: float) -> float:
        if not 0 <= seconds <= triggers.MAX_ADVANCE_S:
            raise ValueError(f"expected 0 to {triggers.MAX_ADVANCE_S:.0f} seconds, not {seconds}")
        self._keep(namespace, float(self.link.command("hincrbyfloat", self.key, namespace, seconds)))
        return time.time() + self.offset(namespace)

    def reset(self, namespace: str | None = None) -> None:
        super().reset(namespace)
        if namespace is None:
            self.link.command("delete", self.key)
        else:
            self.link.command("hdel", self.key, namespace)


class RedisTriggerStore(RedisKeyed[Trigger]):
    """Every namespace's triggers on Redis, each with its executions (stores/triggers.TriggerStore's twin). A fire
    runs once across processes: `due` moves a trigger's next run past the fires it takes in one compare-and-set,
    so of the processes reading one clock only the one whose swap lands runs them; `begin` and `end` change the
    kept trigger the same way."""

    full = triggers.TriggersFull
    noun = "triggers"
    kind = "tr"

    def __init__(self, link: RedisLink) -> None:
        super().__init__(link, triggers.MAX_PER_NAMESPACE, triggers.MAX_TRIGGERS)
        self.clock = RedisClock(link)

    def dump(self, record: Trigger) -> bytes:
        return orjson.dumps(record)

    def load(self, data: bytes) -> Trigger:
        fields = orjson.loads(data)
        fields["executions"] = [Execution(**ran) for ran in fields["executions"]]
        return Trigger(**fields)

    def score_of(self, record: Trigger) -> float | None:
        """An active trigger's next run (due reads only those its clock has passed)."""
        return record.next_run if record.status == "active" else None

    async def create(
        self, namespace: str, schedule: str, time_zone: str, interaction: dict[str, Any], **extra: Any
    ) -> Trigger:
        now = self.clock.now(namespace)
        first = triggers.next_fire(schedule, time_zone, now)

        def build(trigger_id: str) -> Trigger:
            made = Trigger(trigger_id, namespace, schedule, time_zone, interaction, created=now, updated=now)
            made.next_run = first
            for key, value in extra.items():
                setattr(made, key, value)
            return made

        return await self.add_fresh(namespace, triggers._new_id, build)

    def executions(self, trigger: Trigger, size: int, token: str = "") -> tuple[list[Execution], str] | None:
        held = list(reversed(trigger.executions))
        return page_of(held, [e.id for e in held], size, token)

    async def update(
        self, namespace: str, trigger_id: str, display_name: str | None, status: str | None
    ) -> Trigger | None:
        now = self.clock.now(namespace)

        def how(found: Trigger) -> None:
            if display_name is not None:
                found.display_name = display_name
            if status is not None and status != found.status:
                if status == "paused":
                    found.last_pause = now
                elif status == "active":
                    found.last_resume, found.consecutive_failures = now, 0
                    found.next_run = triggers.next_fire(found.schedule, found.time_zone, now)
                found.status = status
            found.updated = now

        return await self.change(namespace, trigger_id, how)

    async def due(self, namespace: str) -> list[tuple[Trigger, float]]:
        """As TriggerStore.due, each trigger's fires claimed by the swap that moves its next run past them: the
        clock and the ids of the active triggers it has passed (their next runs are the index's scores; with more
        than one, the ids in creation order too), then two round trips per trigger due."""
        await self.clock.load(namespace)
        now = self.clock.now(namespace)
        fires: list[tuple[Trigger, float]] = []
        due = await self.scored(namespace, now)
        if len(due) > 1:  # in the order they were made, as in memory (the MAX_DUE bound takes the first)
            wanted = set(due)
            due = [trigger_id for trigger_id in await self.ids(namespace) if trigger_id in wanted]
        for trigger_id in due:
            taken: list[float] = []
            room = triggers.MAX_DUE - len(fires)

            def how(fresh: Trigger, room: int = room, taken: list[float] = taken) -> bool:
                before = fresh.next_run
                taken[:] = triggers.due_fires(fresh, now, room)
                return bool(taken) or fresh.next_run != before  # False: another process took them first

            changed = await self.change(namespace, trigger_id, how)
            if changed is not None:
                fires += [(changed, fire) for fire in taken]
        fires.sort(key=lambda fire: fire[1])
        return fires

    async def begin(self, trigger: Trigger, scheduled: float) -> Execution:
        now = self.clock.now(trigger.namespace)
        ran = Execution(triggers._new_id(), trigger.id, scheduled, started=now, environment_id=trigger.environment_id)

        def how(fresh: Trigger) -> None:
            fresh.executions.append(ran)
            del fresh.executions[: -triggers.MAX_EXECUTIONS]
            fresh.last_run = now

        await self.change(trigger.namespace, trigger.id, how)
        return ran

    async def end(
        self, trigger: Trigger, ran: Execution, interaction_id: str, error: str, timed_out: bool = False
    ) -> None:
        now = self.clock.now(trigger.namespace)
        triggers.ended(Trigger(trigger.id, "", "", "", {}), ran, now, interaction_id, error, timed_out)

        def how(fresh: Trigger) -> None:
            kept = next((e for e in fresh.executions if e.id == ran.id), Execution(ran.id, ran.trigger_id, 0.0))
            triggers.ended(fresh, kept, now, interaction_id, error, timed_out)

        await self.change(trigger.namespace, trigger.id, how)

    def reset(self, namespace: str | None = None) -> None:
        super().reset(namespace)
        self.clock.reset(namespace)


CHUNK_BYTES = 1 << 20  # an environment file's bytes are kept in side fields of at most this many bytes each


def _chunks(blob: str, data: bytes) -> dict[str, bytes]:
    return {
        f"{blob}:{i}": data[start : start + CHUNK_BYTES] for i, start in enumerate(range(0, len(data), CHUNK_BYTES))
    }


def _chunk_names(held: WorkspaceFile) -> list[str]:
    return [f"{held.blob}:{i}" for i in range(-(-held.held // CHUNK_BYTES))]


class RedisEnvironmentStore(RedisKeyed[Environment]):
    """Every namespace's environments on Redis (stores/environments.EnvironmentStore's twin): each one record of
    its configuration and its files' metadata, the files' bytes in side fields of CHUNK_BYTES each (`P x:N:ID`,
    written and dropped in the same Lua call as the record's change, so the byte bounds, counted on the record,
    hold for them). A file's bytes are read only when asked for (`file_data`, one round trip)."""

    full = environments.EnvironmentsFull
    noun = "environments"
    kind = "en"

    def __init__(self, link: RedisLink) -> None:
        super().__init__(
            link,
            environments.MAX_PER_NAMESPACE,
            environments.MAX_ENVIRONMENTS,
            bytes_per_namespace=environments.MAX_BYTES_PER_NAMESPACE,
            bytes_overall=environments.MAX_BYTES,
        )

    def size_of(self, record: Environment) -> int:
        return record.size

    def dump(self, record: Environment) -> bytes:
        files = {p: [f.blob, f.size, f.mime_type, f.created, f.modified] for p, f in record.files.items()}
        fields: dict[str, Any] = {"id": record.id, "namespace": record.namespace, "config": record.config}
        fields |= {"created": record.created, "updated": record.updated, "accessed": record.accessed}
        return orjson.dumps(fields | {"key": record.key, "files": files})

    def load(self, data: bytes) -> Environment:
        fields = orjson.loads(data)
        env = Environment(fields["id"], fields["namespace"], fields["config"], fields["created"], fields["updated"], 0)
        env.accessed, env.key = fields["accessed"], fields["key"]
        for path, (blob, size, mime, created, modified) in fields["files"].items():
            env.files[path] = WorkspaceFile(b"", mime, created, modified, blob=blob, held=size)
        return env

    @staticmethod
    def _kept(files: dict[str, tuple[bytes, str]], now: float, env: Environment) -> tuple[dict[str, bytes], list[str]]:
        """Write `files` into `env` (their metadata; fresh blobs): the side fields to set, and to drop."""
        sets: dict[str, bytes] = {}
        drops: list[str] = []
        for path, (data, mime) in files.items():
            old = env.files.get(path)
            if old is not None:
                drops += _chunk_names(old)
            blob = secrets.token_hex(6)
            sets |= _chunks(blob, data)
            created = old.created if old is not None else now
            env.files[path] = WorkspaceFile(b"", mime, created, now, blob=blob, held=len(data))
        return sets, drops

    async def create(
        self, namespace: str, config: dict[str, Any], files: dict[str, tuple[bytes, str]], self_hosted: bool
    ) -> Environment:
        if len(orjson.dumps(config)) > environments.MAX_CONFIG_BYTES:
            raise ValueError(
                f"an environment's configuration takes at most {environments.MAX_CONFIG_BYTES} bytes of JSON"
            )
        environments._check_files(len(files), sum(len(data) for data, _ in files.values()))
        now = time.time()
        key = environments.KEY_PREFIX + secrets.token_urlsafe(24) if self_hosted else ""
        for _ in range(16):
            made = Environment(environments._new_id(), namespace, config, now, now, now, key)
            sets, _ = self._kept(files, now, made)
            if await self.add(namespace, made.id, made, sets):
                return made
        raise self.full("no fresh id for another environment")

    async def touched(self, namespace: str, env_id: str) -> Environment | None:
        def how(found: Environment) -> None:
            found.accessed = time.time()

        return await self.change(namespace, env_id, how)

    async def listed(self, namespace: str) -> list[Environment]:
        found = await self.page(namespace, self.per_namespace)
        return found[0] if found is not None else []

    async def file_data(self, env: Environment, path: str) -> bytes:
        """A file's bytes (b"" when it is gone meanwhile)."""
        held = env.files.get(path)
        if held is None or not held.blob:
            return held.data if held is not None else b""
        chunks = await self.side(env.namespace, env.id, _chunk_names(held))
        return b"" if any(c is None for c in chunks) else b"".join(c for c in chunks if c is not None)

    async def files_of(self, env: Environment) -> dict[str, tuple[bytes, str]]:
        """Every file's bytes and type (from_environment's copy), in one round trip."""
        names = [name for held in env.files.values() for name in _chunk_names(held)]
        chunks = dict(zip(names, await self.side(env.namespace, env.id, names), strict=True))
        return {
            path: (b"".join(chunks[name] or b"" for name in _chunk_names(held)), held.mime_type)
            for path, held in env.files.items()
        }

    async def write(
        self, env: Environment, files: dict[str, tuple[bytes, str]], overwrite: bool
    ) -> list[tuple[str, WorkspaceFile]]:
        now = time.time()

        def how(fresh: Environment) -> tuple[dict[str, bytes], list[str]]:
            environments.planned(fresh, files, overwrite)
            fresh.updated = now
            return self._kept(files, now, fresh)

        changed = await self.change(env.namespace, env.id, how)
        if changed is None:
            raise KeyError(env.id)  # deleted meanwhile
        return [(path, changed.files[path]) for path in files]
