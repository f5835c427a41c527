"""Webhooks: `POST|GET /{v}/webhooks`, `GET|PATCH|DELETE /{v}/webhooks/{id}`, `POST …/{id}:ping` and
`POST …/{id}:rotateSigningSecret`, as google-genai 3.6.1's `client.webhooks` calls them (_gaos/webhooks.py: snake_case
JSON, `page_size`/`page_token` and `update_mask` in the query), on the caller's namespace (stores/webhooks.py).

The signing secret is printed once, in the create's `new_signing_secret` and the rotate's `secret`, and journaled
as REDACTED (`redacted`); a view shows each secret in force truncated, with its `expire_time` once a rotation set
one. A URI must name a loopback host or one in `--webhook-hosts` (deliveries.refusal), else a 400. Events reach
the webhooks through wire/deliveries.py: `watch_batch` and `watch_video` look at a batch's or video's end, and
interactions publish theirs (wire/media/interactions.py). Field names from the SDK; the key order, ids, errors'
wording and the event payloads are best-known (docs/conformance.md, Webhooks).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import REDACTED, Record
from gemini_emulator.protocol import errors, printers
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.batches import FINAL_STATES
from gemini_emulator.stores.caches import stamp
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.operations import Operation
from gemini_emulator.stores.records_redis import RedisWebhookStore
from gemini_emulator.stores.webhooks import (
    DEFAULT_REVOCATION,
    KNOWN_EVENTS,
    MAX_EVENTS,
    MAX_NAME_CHARS,
    MAX_URI_CHARS,
    REVOCATIONS,
    STATES,
    Webhook,
    WebhooksFull,
    WebhookStore,
    truncated,
)
from gemini_emulator.wire import auth, handlers
from gemini_emulator.wire.deliveries import Deliveries, Dynamic, Found, refusal
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import batches
from gemini_emulator.wire.resources.common import page_size

PAGE_DEFAULT, PAGE_MAX = 50, 1000  # the SDK's docstring: "at most 50 ... The maximum value is 1000"
FIELDS = ("name", "subscribed_events", "uri")  # WebhookInput
UPDATABLE = ("name", "state", "subscribed_events", "uri")  # WebhookUpdate
_NOT_FOUND = "Requested entity was not found."  # Google's generic 404 text (best-known for webhooks)
Webhooks = WebhookStore | RedisWebhookStore  # in memory (the default) or on Redis (--store redis://...)
HELD_LOOK_S = 0.1  # how often a held batch is looked at again
BATCH_EVENTS = {
    "SUCCEEDED": "batch.succeeded",
    "FAILED": "batch.failed",
    "EXPIRED": "batch.expired",
    "CANCELLED": "batch.cancelled",
}


async def serve(
    ctx: handlers.Context,
    store: Webhooks,
    deliveries: Deliveries,
    request: Incoming,
    target: Target,
    record: Record,
) -> Response:
    """One call on the webhooks collection or a webhook."""
    record.rpc = f"webhooks.{target.method}"
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        namespace = record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        if target.method == "list":
            return handlers.json_response(await _list(store, namespace, request.query))
        if target.method == "create":
            body = _object(await handlers.read_body(ctx, request, record), FIELDS)
            uri, events = _uri(body.get("uri"), deliveries), _events(body.get("subscribed_events"))
            made, secret = await settled(store.create(namespace, uri, events, _name(body.get("name", ""))))
            return handlers.json_response(view(made, secret))
        hook = await settled(store.get(namespace, target.resource))
        if hook is None:
            raise errors.ApiError(404, _NOT_FOUND)
        if target.method == "get":
            return handlers.json_response(view(hook))
        if target.method == "delete":
            await settled(store.delete(namespace, hook.id))
            return handlers.json_response({})
        if target.method == "update":
            body = _object(await handlers.read_body(ctx, request, record), UPDATABLE)
            changed = await _update(store, deliveries, hook, body, _mask(request.query))
            return handlers.json_response(view(changed))
        if target.method == "ping":
            _object(await handlers.read_body(ctx, request, record), ())
            deliveries.ping(hook)
            return handlers.json_response({})
        body = _object(await handlers.read_body(ctx, request, record), ("revocation_behavior",))
        revocation = body.get("revocation_behavior", DEFAULT_REVOCATION)
        if revocation not in REVOCATIONS:
            raise errors.payload_violations(
                [errors.invalid_value("revocation_behavior", "TYPE_ENUM", orjson.dumps(revocation).decode()[:100])]
            )
        minted = await settled(store.rotate(namespace, hook.id, revocation))
        if minted is None:
            raise errors.ApiError(404, _NOT_FOUND)
        return handlers.json_response({"secret": minted})
    except WebhooksFull as full:
        return handlers.error_response(errors.ApiError(429, f"gemini-emulator: {full}."))
    except errors.ApiError as error:
        return handlers.error_response(error)


def view(hook: Webhook, secret: str | None = None) -> dict[str, Any]:
    """A Webhook as printed (best-known key order); `secret` only from the create that minted it."""
    out: dict[str, Any] = {"id": hook.id}
    if hook.name:
        out["name"] = hook.name
    out["uri"] = hook.uri
    out["subscribed_events"] = list(hook.events)
    out["state"] = hook.state
    shown = []
    for held in hook.secrets:
        if held.in_force(time.time_ns()):
            entry: dict[str, Any] = {"truncated_secret": truncated(held.value)}
            if held.expires_ns:
                entry["expire_time"] = stamp(held.expires_ns)
            shown.append(entry)
    out["signing_secrets"] = shown
    if secret is not None:
        out["new_signing_secret"] = secret
    out["create_time"] = stamp(hook.created_ns)
    out["update_time"] = stamp(hook.updated_ns)
    return out


def redacted(body: bytes) -> bytes:
    """An answer as journaled: a signing secret it shows (create, rotate) replaced by REDACTED."""
    if b'"new_signing_secret"' not in body and b'"secret"' not in body:
        return body
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if isinstance(parsed, dict):
        for key in ("new_signing_secret", "secret"):
            if key in parsed:
                parsed[key] = REDACTED
    return printers.pretty(parsed)


def _object(body: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if body is None or body == b"":
        return {}
    if not isinstance(body, dict):
        raise errors.root_not_object()
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(k, "") for k in unknown])
    return body


def _uri(value: Any, deliveries: Deliveries) -> str:
    if not isinstance(value, str) or not value:
        raise errors.invalid_argument("uri is required.")
    if len(value) > MAX_URI_CHARS:
        raise errors.invalid_argument(f"uri must be at most {MAX_URI_CHARS} characters.")
    refused = refusal(value, deliveries.hosts)
    if refused is not None:
        raise errors.invalid_argument(f"Invalid uri: {refused}.")
    return value


def _events(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise errors.invalid_argument("subscribed_events is required.")
    events: list[str] = []
    for event in value:
        if not isinstance(event, str) or event not in KNOWN_EVENTS:
            raise errors.invalid_argument(f"Invalid subscribed event: {orjson.dumps(event).decode()[:100]}.")
        if event not in events:
            events.append(event)
    return events[:MAX_EVENTS]


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise errors.payload_violations(
            [errors.invalid_value("name", "TYPE_STRING", orjson.dumps(value).decode()[:100])]
        )
    if len(value) > MAX_NAME_CHARS:
        raise errors.invalid_argument(f"name must be at most {MAX_NAME_CHARS} characters.")
    return value


def _mask(query: Mapping[str, str]) -> list[str] | None:
    """The update mask's fields (snake_case; camelCase accepted), None without one."""
    text = query.get("update_mask", query.get("updateMask"))
    if text is None:
        return None
    fields = []
    for raw in text.split(","):
        name = "".join("_" + c.lower() if c.isupper() else c for c in raw.strip())
        if not name:
            continue
        if name not in UPDATABLE:
            raise errors.invalid_argument(f"Invalid update_mask: unknown field {raw.strip()[:100]!r}.")
        fields.append(name)
    return fields


async def _update(
    store: Webhooks, deliveries: Deliveries, hook: Webhook, body: dict[str, Any], mask: list[str] | None
) -> Webhook:
    """PATCH: the fields the mask names (all those in the body without one)."""
    fields = mask if mask is not None else [f for f in UPDATABLE if f in body]
    changes: dict[str, Any] = {"uri": None, "events": None, "name": None, "state": None}
    for field in fields:
        value = body.get(field)
        if field == "uri":
            changes["uri"] = _uri(value, deliveries)
        elif field == "subscribed_events":
            changes["events"] = _events(value)
        elif field == "name":
            changes["name"] = _name(value if value is not None else "")
        else:
            if value not in STATES:
                raise errors.payload_violations(
                    [errors.invalid_value("state", "TYPE_ENUM", orjson.dumps(value).decode()[:100])]
                )
            changes["state"] = value
    changed = await settled(store.update(hook.namespace, hook.id, **changes))
    if changed is None:
        raise errors.ApiError(404, _NOT_FOUND)
    return changed


async def _list(store: Webhooks, namespace: str, query: Mapping[str, str]) -> dict[str, Any]:
    size = page_size(query, PAGE_DEFAULT, PAGE_MAX)
    found = await settled(store.page(namespace, size, query.get("page_token", query.get("pageToken", ""))))
    if found is None:
        raise errors.invalid_argument("Invalid page_token.")
    page, following = found
    out: dict[str, Any] = {}
    if page:
        out["webhooks"] = [view(hook) for hook in page]
    if following:
        out["next_page_token"] = following
    return out


def watch_batch(deliveries: Deliveries, store: Webhooks, ctx: handlers.Context, room: batches.Batches) -> Any:
    """The batches room's `on_created`: a job of a namespace with a webhook subscribed to batch events is looked at
    when its schedule ends, answered then (as a read would), and its end published."""

    def created(op: Operation) -> None:
        dynamic = op.extra.get("webhook")
        if dynamic is None:
            when_wanted(deliveries, store, op.namespace, "batch.", lambda: watch(op, None))
        else:
            watch(op, dynamic)

    def watch(op: Operation, dynamic: Any) -> None:
        async def probe() -> Found:
            if not await batches.refresh(room, op):
                return None  # deleted, or forgotten
            if op.held and not op.cancelled:
                return HELD_LOOK_S
            wait = op.ready_at - op.clock()
            if wait > 0 and not op.cancelled:
                return wait
            await batches.settle(ctx, room, op)
            state = batches.state_of(op)
            if state not in FINAL_STATES:
                return HELD_LOOK_S
            data: dict[str, Any] = {"id": op.name, "state": "BATCH_STATE_" + state}
            job = op.extra["job"]
            if state == "SUCCEEDED" and job.output_file:
                data["file_name"] = job.output_file
            if op.error is not None and state != "CANCELLED":
                data["error_code"], data["error_message"] = op.error.get("code"), op.error.get("message", "")
            return BATCH_EVENTS[state], data

        deliveries.later(op.namespace, max(0.0, op.ready_at - op.clock()), probe, dynamic)

    return created


def when_wanted(deliveries: Deliveries, store: Webhooks, namespace: str, prefix: str, then: Callable[[], None]) -> None:
    """`then()` if an enabled webhook of the namespace is subscribed to an event starting with `prefix`: at once in
    memory; on Redis once the look-up (one round trip, off this call) says so."""
    if not isinstance(store, RedisWebhookStore):
        if store.wants(namespace, prefix):
            then()
        return

    async def look() -> None:
        try:
            wanted = await store.wants(namespace, prefix)
        except errors.ApiError:  # Redis unreachable (logged by the link): nothing is watched
            return
        if wanted:
            then()

    deliveries.spawn(look())


def watch_video(deliveries: Deliveries, store: Webhooks, op: Operation) -> None:
    """A Veo operation with its result: `video.generated` once it reports done."""
    when_wanted(deliveries, store, op.namespace, "video.", lambda: _watch_video(deliveries, op))


def _watch_video(deliveries: Deliveries, op: Operation) -> None:
    async def probe() -> Found:
        if not op.done():
            return max(0.01, op.ready_at - op.clock()) if not op.held else HELD_LOOK_S
        data: dict[str, Any] = {"id": op.name}
        if op.error is not None:
            data["error_code"], data["error_message"] = op.error.get("code"), op.error.get("message", "")
        return "video.generated", data

    deliveries.later(op.namespace, max(0.0, op.ready_at - op.clock()), probe)


INTERACTION_EVENTS = {
    "completed": "interaction.completed",
    "requires_action": "interaction.requires_action",
    "failed": "interaction.failed",
    "cancelled": "interaction.cancelled",
}


def interaction_ended(
    deliveries: Deliveries, namespace: str, interaction: dict[str, Any], dynamic: Dynamic | None = None
) -> None:
    """A background interaction's end, published (its id and status) to the namespace's webhooks, or to the URIs
    of its webhook_config."""
    event = INTERACTION_EVENTS.get(str(interaction.get("status", "")))
    if event is not None:
        data = {"id": interaction.get("id", ""), "status": interaction["status"]}
        deliveries.publish(namespace, event, data, dynamic)


class AdminView:
    """The webhooks as the admin API lists, removes and resets them (admin.api.Resources); never a secret."""

    def __init__(self, store: Webhooks) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": hook.namespace,
                "name": hook.id,
                "uri": hook.uri,
                "subscribedEvents": list(hook.events),
                "state": hook.state,
                "signingSecrets": len(hook.signing()),
                "createTime": stamp(hook.created_ns),
            }
            for hook in self.store.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if isinstance(self.store, RedisWebhookStore):  # the sync client, as the batches' admin view
            return self.store.delete_sync(namespace, name)
        return self.store.delete(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
