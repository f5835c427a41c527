"""Triggers: `POST|GET /{v}/triggers`, `GET|PATCH|DELETE /{v}/triggers/{id}`, `POST /{v}/triggers/{id}/executions`
(run now) and `GET …/{id}/executions`, as google-genai 3.6.1's `client.triggers` calls them (_gaos/triggers.py:
snake_case JSON, `page_size`/`page_token` in the query), on the caller's namespace (stores/triggers.py).

A trigger runs its `interaction` (the SDK's CreateAgentInteraction: `agent`, `input`, ...) on its cron schedule
against the namespace's emulator clock, which the admin API advances (`PUT /__emulator/clock`, ClockView): each
triggers call and each advance first runs the fires that clock has passed (bounded: stores/triggers.py); there is
no timer of its own. An execution asks the engine through the seam (interactions.run_agent: the input as a
generateContent call: a stored agent's (client.agents) with its model, system instruction and tools; a built-in
agent's to AGENT_MODEL, the stand-in; another name fails the execution with a 404), keeps the answer as an
interaction of the namespace (`interaction_id`, readable with `client.interactions.get`), and is journaled (rpc
`triggers.execute`).
Field names from the SDK; ids, key order, errors' wording and what an agent answers with are best-known
(docs/conformance.md, "Triggers (issue 33)").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Journal, Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.stores.interactions import InteractionStore, StoreFull
from gemini_emulator.stores.interactions_redis import RedisInteractionStore
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.records_redis import RedisClock, RedisTriggerStore
from gemini_emulator.stores.triggers import (
    MAX_NAME_CHARS,
    STATUSES,
    BadSchedule,
    Execution,
    Trigger,
    TriggersFull,
    TriggerStore,
    stamp_s,
)
from gemini_emulator.wire import auth, handlers, validate
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.media import interactions
from gemini_emulator.wire.resources.agents import STAND_IN_MODEL
from gemini_emulator.wire.resources.common import page_size

PAGE_DEFAULT, PAGE_MAX = 50, 1000  # best-known: as webhooks' (the SDK's docstrings give no numbers)
FIELDS = (
    "interaction",
    "schedule",
    "time_zone",
    "display_name",
    "environment_id",
    "execution_timeout_seconds",
    "max_consecutive_failures",
)  # TriggerCreateParams
UPDATABLE = ("display_name", "status")  # TriggerUpdate
AGENT_MODEL = STAND_IN_MODEL  # best-known: the model that answers for a built-in agent
MAX_TIMEOUT_S = 3600
MAX_FAILURES = 1000
MAX_ERROR_CHARS = 1024
_NOT_FOUND = "Requested entity was not found."  # Google's generic 404 text (best-known for triggers)
TriggerStores = TriggerStore | RedisTriggerStore  # in memory (the default) or on Redis (--store redis://...)


class Triggers:
    """The triggers room: its store, where executions keep their interactions, and the journal they show in."""

    def __init__(
        self,
        ctx: handlers.Context,
        store: TriggerStores,
        kept: InteractionStore | RedisInteractionStore,
        journal: Journal,
    ) -> None:
        self.ctx, self.store, self.kept, self.journal = ctx, store, kept, journal
        self._taking = asyncio.Lock()

    async def catch_up(self, namespace: str, first: Callable[[], Any] | None = None) -> list[Execution]:
        """Run every fire the namespace's clock has passed (bounded by the store), oldest first; `first` (a clock
        advance) just before the fires are taken. On Redis the taking awaits, so this process's requests take
        them one at a time (`_taking`): the fires an advance makes due are the advance's, as in memory (another
        process's reader may still take them first: each runs once, docs/scaling.md)."""
        if isinstance(self.store, RedisTriggerStore):
            async with self._taking:
                if first is not None:
                    first()
                due = await self.store.due(namespace)
        else:
            if first is not None:
                first()
            due = self.store.due(namespace)
        return [await self.execute(trigger, scheduled) for trigger, scheduled in due]

    async def execute(self, trigger: Trigger, scheduled: float, version: str = "v1beta") -> Execution:
        """One execution of `trigger`: the engine answers its interaction; recorded and journaled."""
        ran = await settled(self.store.begin(trigger, scheduled))
        record = self.journal.begin("POST", f"/{version}/triggers/{trigger.id}/executions", {}, [])
        record.namespace, record.rpc, record.model = trigger.namespace, "triggers.execute", AGENT_MODEL
        record.body = {"trigger_id": trigger.id, "scheduled_time": stamp_s(scheduled), **trigger.interaction}
        target = Target("call", DEVELOPER, "developer", version, model=AGENT_MODEL, method="generateContent")
        interaction_id, error, status = "", "", 200
        run = interactions.run_agent(
            self.ctx, self.kept, target, trigger.namespace, trigger.interaction, AGENT_MODEL, record
        )
        try:
            timeout = trigger.execution_timeout_seconds or None
            interaction_id = (await asyncio.wait_for(run, timeout)).id
        except TimeoutError:
            error, status = f"The execution passed its {trigger.execution_timeout_seconds} s timeout.", 504
        except errors.ApiError as failure:
            error, status = failure.message[:MAX_ERROR_CHARS], failure.code
        except StoreFull as full:
            error, status = f"gemini-emulator: {full}."[:MAX_ERROR_CHARS], 429
        await settled(self.store.end(trigger, ran, interaction_id, error, timed_out=status == 504))
        self.journal.finish(record, status, orjson.dumps(execution_view(ran)))
        return ran


async def serve(ctx: handlers.Context, room: Triggers, request: Incoming, target: Target, record: Record) -> Response:
    """One call on the triggers collection, a trigger, or its executions."""
    record.rpc = f"triggers.{target.method}"
    store = room.store
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        namespace = record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        await room.catch_up(namespace)
        if target.method == "list":
            found = await settled(store.page(namespace, _size(request.query), _token(request.query)))
            if found is None:
                raise errors.invalid_argument("Invalid page_token.")
            out: dict[str, Any] = {}
            if found[0]:
                out["triggers"] = [view(held) for held in found[0]]
            if found[1]:
                out["next_page_token"] = found[1]
            return handlers.json_response(out)
        if target.method == "create":
            body = _object(await handlers.read_body(ctx, request, record), FIELDS)
            return handlers.json_response(view(await settled(_create(store, namespace, body))))
        held = await settled(store.get(namespace, target.resource))
        if held is None:
            raise errors.ApiError(404, _NOT_FOUND)
        if target.method == "get":
            return handlers.json_response(view(held))
        if target.method == "delete":
            await settled(store.delete(namespace, held.id))
            return handlers.json_response({})
        if target.method == "update":
            body = _object(await handlers.read_body(ctx, request, record), UPDATABLE)
            status = body.get("status")
            if status is not None and status not in STATUSES:
                raise errors.payload_violations(
                    [errors.invalid_value("status", "TYPE_ENUM", orjson.dumps(status).decode()[:100])]
                )
            name = _name(body["display_name"]) if "display_name" in body else None
            changed = await settled(store.update(namespace, held.id, name, status))
            if changed is None:
                raise errors.ApiError(404, _NOT_FOUND)
            return handlers.json_response(view(changed))
        if target.method == "run":
            _object(await handlers.read_body(ctx, request, record), ())
            ran = await room.execute(held, store.clock.now(namespace), target.version)
            return handlers.json_response(execution_view(ran))
        page = store.executions(held, _size(request.query), _token(request.query))
        if page is None:
            raise errors.invalid_argument("Invalid page_token.")
        listed: dict[str, Any] = {}
        if page[0]:
            listed["trigger_executions"] = [execution_view(ran) for ran in page[0]]
        if page[1]:
            listed["next_page_token"] = page[1]
        return handlers.json_response(listed)
    except TriggersFull as full:
        return handlers.error_response(errors.ApiError(429, f"gemini-emulator: {full}."))
    except BadSchedule as bad:
        return handlers.error_response(errors.invalid_argument(str(bad)))
    except errors.ApiError as error:
        return handlers.error_response(error)


def view(held: Trigger) -> dict[str, Any]:
    """A Trigger as printed (best-known key order; optional fields only when set)."""
    out: dict[str, Any] = {"id": held.id}
    if held.display_name:
        out["display_name"] = held.display_name
    out.update(schedule=held.schedule, time_zone=held.time_zone, interaction=held.interaction)
    if held.environment_id:
        out["environment_id"] = held.environment_id
    if held.execution_timeout_seconds:
        out["execution_timeout_seconds"] = held.execution_timeout_seconds
    if held.max_consecutive_failures:
        out["max_consecutive_failures"] = held.max_consecutive_failures
    out["status"] = held.status
    out["consecutive_failure_count"] = held.consecutive_failures
    if held.status == "active":
        out["next_run_time"] = stamp_s(held.next_run)
    for key, seconds in (
        ("last_run_time", held.last_run),
        ("last_pause_time", held.last_pause),
        ("last_resume_time", held.last_resume),
    ):
        if seconds:
            out[key] = stamp_s(seconds)
    if held.previous_interaction_id:
        out["previous_interaction_id"] = held.previous_interaction_id
    out["create_time"] = stamp_s(held.created)
    out["update_time"] = stamp_s(held.updated)
    return out


def execution_view(ran: Execution) -> dict[str, Any]:
    """A TriggerExecution as printed."""
    out: dict[str, Any] = {"id": ran.id, "trigger_id": ran.trigger_id, "status": ran.status}
    out["scheduled_time"] = stamp_s(ran.scheduled)
    out["start_time"] = stamp_s(ran.started)
    if ran.ended:
        out["end_time"] = stamp_s(ran.ended)
    if ran.interaction_id:
        out["interaction_id"] = ran.interaction_id
    if ran.environment_id:
        out["environment_id"] = ran.environment_id
    if ran.error:
        out["error"] = ran.error
    return out


def _create(store: TriggerStores, namespace: str, body: dict[str, Any]) -> Trigger | Awaitable[Trigger]:
    interaction = body.get("interaction")
    if not isinstance(interaction, dict):
        raise errors.invalid_argument("interaction is required.")
    if not isinstance(interaction.get("agent"), str) or not interaction["agent"]:
        raise errors.invalid_argument("interaction.agent is required.")
    schedule, time_zone = body.get("schedule"), body.get("time_zone")
    if not isinstance(schedule, str) or not schedule:
        raise errors.invalid_argument("schedule is required.")
    if not isinstance(time_zone, str) or not time_zone:
        raise errors.invalid_argument("time_zone is required.")
    extra: dict[str, Any] = {}
    if "display_name" in body:
        extra["display_name"] = _name(body["display_name"])
    if "environment_id" in body:
        extra["environment_id"] = _name(body["environment_id"], "environment_id")
    for key, top in (("execution_timeout_seconds", MAX_TIMEOUT_S), ("max_consecutive_failures", MAX_FAILURES)):
        if key in body:
            extra[key] = _count(body[key], key, top)
    return store.create(namespace, schedule, time_zone, dict(interaction), **extra)


def _object(body: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if body is None or body == b"":
        return {}
    if not isinstance(body, dict):
        raise errors.root_not_object()
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(k, "") for k in unknown])
    return body


def _name(value: Any, key: str = "display_name") -> str:
    if not isinstance(value, str):
        raise errors.payload_violations([errors.invalid_value(key, "TYPE_STRING", orjson.dumps(value).decode()[:100])])
    if len(value) > MAX_NAME_CHARS:
        raise errors.invalid_argument(f"{key} must be at most {MAX_NAME_CHARS} characters.")
    return value


def _count(value: Any, key: str, top: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not validate.int_text_ok("int32", str(value)):
        raise errors.payload_violations([errors.invalid_value(key, "TYPE_INT32", orjson.dumps(value).decode()[:100])])
    number = int(value)
    if not 0 <= number <= top:
        raise errors.invalid_argument(f"{key} must be between 0 and {top}.")
    return number


def _size(query: Mapping[str, str]) -> int:
    return page_size(query, PAGE_DEFAULT, PAGE_MAX)


def _token(query: Mapping[str, str]) -> str:
    return query.get("page_token", query.get("pageToken", ""))


class ClockView:
    """The emulator clock as the admin API shows and advances it (`GET|PUT /__emulator/clock`), per namespace;
    an advance runs the triggers it makes due and lists their executions."""

    def __init__(self, room: Triggers) -> None:
        self.room = room

    def show(self, namespace: str) -> dict[str, Any]:
        clock = self.room.store.clock
        if isinstance(clock, RedisClock):  # the shared offset (the admin API's sync client, as the batches')
            clock.load_sync(namespace)
        return {"namespace": namespace, "time": stamp_s(clock.now(namespace)), "offsetSeconds": clock.offset(namespace)}

    async def advance(self, namespace: str, body: Any) -> dict[str, Any]:
        """Body {"advanceSeconds": N} (N >= 0) or {"time": RFC 3339, not before now}; ValueError for another."""
        if not isinstance(body, dict) or len(body) != 1 or not {"advanceSeconds", "time"} & body.keys():
            raise ValueError('expected {"advanceSeconds": seconds} or {"time": "RFC 3339 time"}')
        clock = self.room.store.clock
        if isinstance(clock, RedisClock):
            clock.load_sync(namespace)
        if "time" in body:
            step = _seconds(body["time"]) - clock.now(namespace)
            if step < 0:
                raise ValueError("time: the clock only moves forward")
        else:
            step = body["advanceSeconds"]
            if isinstance(step, bool) or not isinstance(step, int | float):
                raise ValueError("advanceSeconds: expected a number of seconds")
        ran = await self.room.catch_up(namespace, lambda: clock.advance(namespace, float(step)))
        return self.show(namespace) | {"executions": [execution_view(e) for e in ran]}


def _seconds(value: Any) -> float:
    """An RFC 3339 time with its offset (`Z` or `+hh:mm`) as epoch seconds; ValueError for another."""
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) and len(value) <= 64 else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise ValueError("time: expected an RFC 3339 time with its offset, such as 2030-01-01T00:00:00Z")
    return when.timestamp()


class AdminView:
    """The triggers as the admin API lists, removes and resets them (admin.api.Resources)."""

    def __init__(self, store: TriggerStores) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": held.namespace,
                "name": held.id,
                "schedule": held.schedule,
                "timeZone": held.time_zone,
                "agent": held.interaction.get("agent", ""),
                "status": held.status,
                "nextRunTime": stamp_s(held.next_run),
                "executions": len(held.executions),
                "createTime": stamp_s(held.created),
            }
            for held in self.store.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if isinstance(self.store, RedisTriggerStore):  # the sync client, as the batches' admin view
            return self.store.delete_sync(namespace, name)
        return self.store.delete(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
