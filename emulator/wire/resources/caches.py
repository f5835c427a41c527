"""The cachedContents room: create, get, list, patch (ttl or expireTime) and delete, on the Developer API
(`/{v}/cachedContents`) and Vertex AI (`/{v}/projects/P/locations/L/cachedContents`), each caller seeing only its
own caches (gemini_emulator.stores.caches). What a generate call does with a cache: wire/resources/cached.py.

Shapes (pydantic-ai's cassette test_google_model_cached_content.yaml and a public probe record, both Developer):
a cache prints name, model, createTime, updateTime, expireTime, displayName (even when empty) and
usageMetadata.totalTokenCount, never its contents; createTime with 6 fractional digits, expireTime with 9; no ttl
means one hour; a delete answers `{}`, an empty list `{}`; a missing cache is a 403 on the Developer API.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, tokens
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.stores.caches import DEFAULT_TTL_NS, CachedContent, CacheFull, CacheStore, stamp
from gemini_emulator.stores.caches_redis import RedisCacheStore
from gemini_emulator.wire import auth, handlers, tool_rules, validate
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import cached, filedata

# The fewest tokens a cache may hold, per model (docs/conformance.md "Cached contents"): measured by a public
# probe (gemini-3.5-flash-lite 1024, 2026-09) and a forum report quoting production's 400 (gemini-2.5-flash 1024,
# gemini-2.5-flash-lite 2048); the Pro models from the caching guide's table (4096). Others: 1024 (best-known).
MIN_TOKENS = {
    "gemini-2.5-flash-lite": 2048,
    "gemini-flash-lite-latest": 2048,
    "gemini-2.5-pro": 4096,
    "gemini-pro-latest": 4096,
    "gemini-3.1-pro-preview": 4096,
    "gemini-3.1-pro-preview-customtools": 4096,
}
MIN_TOKENS_DEFAULT = 1024
_DURATION = re.compile(r"^(-?)([0-9]{1,12})(?:\.([0-9]{1,9}))?s$")
MAX_TTL_NS = 10 * 365 * 86400 * 10**9  # past this a ttl is refused as out of range (best-known)
_PATCHABLE = {"ttl": "ttl", "expireTime": "expireTime", "expire_time": "expireTime"}


async def serve(ctx: handlers.Context, request: Incoming, target: Target, record: Record) -> Response:
    """One cachedContents call; `record` is its journal record."""
    record.rpc = f"cachedContents.{target.method}"
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        record.namespace = namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        raw = await ctx.bodies.read(request.receive, request.headers)
        try:
            body = await validate.parsed_body(raw)
        except errors.ApiError:
            record.body = raw.decode("utf-8", "replace")
            raise
        if raw.strip():
            record.body = body
        if target.method == "create":
            if ctx.shared_files is not None:  # on Redis: the files its fileData names (filedata.prefetch)
                await filedata.prefetch(ctx.shared_files, target, body, namespace)
            return handlers.json_response(await _create(ctx, target, body, namespace, record))
        if target.method == "list":
            return handlers.json_response(await _list(ctx, target, request.query, namespace))
        name = cached.full_name(target, _name(target))
        if target.method == "get":
            return handlers.json_response(view(target, await _require(ctx, target, namespace, name)))
        if target.method == "patch":
            return handlers.json_response(await _patch(ctx, target, body, request.query, namespace, name))
        store = ctx.caches
        gone = (
            await store.delete(namespace, name) if isinstance(store, RedisCacheStore) else store.delete(namespace, name)
        )
        if not gone:
            raise errors.cache_not_found(target.backend, name)
        return handlers.json_response({})
    except errors.ApiError as error:
        return handlers.error_response(error)


def _name(target: Target) -> str:
    if target.backend == DEVELOPER:
        return f"cachedContents/{target.resource}"
    return f"projects/{target.project}/locations/{target.location}/cachedContents/{target.resource}"


async def _require(ctx: handlers.Context, target: Target, namespace: str, name: str) -> CachedContent:
    store = ctx.caches
    entry = await store.get(namespace, name) if isinstance(store, RedisCacheStore) else store.get(namespace, name)
    if entry is None:
        raise errors.cache_not_found(target.backend, name)
    return entry


def view(target: Target, entry: CachedContent) -> dict[str, Any]:
    """A cache as production prints it (its contents are input only: never shown)."""
    out: dict[str, Any] = {
        "name": entry.name,
        "model": entry.model,
        "createTime": stamp(entry.created),
        "updateTime": stamp(entry.updated),
        "expireTime": stamp(entry.expires, 9),
    }
    if target.backend == DEVELOPER or entry.display_name:
        out["displayName"] = entry.display_name
    out["usageMetadata"] = {"totalTokenCount": entry.tokens}
    return out


async def _create(
    ctx: handlers.Context, target: Target, body: dict[str, Any], namespace: str, record: Record
) -> dict[str, Any]:
    body = validate.check_fields(body, "CachedContent", target.backend, target.version, "cached_content")
    given = body.get("model")
    if not given:
        raise errors.field_errors("CachedContent.", ["model: model is required"])  # best-known wording
    model_name, served = _model(ctx, target, given)
    record.model = served
    contents = body.get("contents") or []
    if contents:
        validate.check_contents(contents, "CachedContent")
        filedata.check(ctx.files, target, contents, namespace)  # fileData uris name the caller's own files
    system = body.get("systemInstruction")
    tools = body.get("tools") or []
    tool_config = body.get("toolConfig")
    tool_rules.check({"tools": tools, "toolConfig": tool_config} if tool_config else {"tools": tools})
    text, media = tokens.count_prompt(contents, system, tools)
    minimum = MIN_TOKENS.get(served, MIN_TOKENS_DEFAULT)
    if text + media < minimum:
        raise errors.cache_too_small(text + media, minimum)
    now = ctx.caches.now()
    expires = _expiry(body, now, "cached_content.")
    members = orjson.dumps(
        {"contents": contents, "systemInstruction": system, "tools": tools, "toolConfig": tool_config}
    )
    entry = CachedContent(
        model=model_name,
        served_model=served,
        members=members,
        display_name=str(body.get("displayName") or ""),
        tokens_text=text,
        tokens_media=media,
        size=len(members),
        parent="" if target.backend == DEVELOPER else f"projects/{target.project}/locations/{target.location}/",
    )
    until = expires if expires is not None else now + DEFAULT_TTL_NS
    store = ctx.caches
    try:
        if isinstance(store, RedisCacheStore):
            entry = await store.create(namespace, entry, until)
        else:
            entry = store.create(namespace, entry, until)
    except CacheFull as full:
        raise errors.ApiError(429, f"gemini-emulator: {full}.") from None
    return view(target, entry)


def _model(ctx: handlers.Context, target: Target, given: str) -> tuple[str, str]:
    """(the model as the cache prints it, the catalogue id serving it), or the catalogue's 404."""
    model = cached.model_id(given)
    served = ctx.catalogue.resolve(
        model, "createCachedContent", target.version, target.backend, target.project, target.location
    )
    if target.backend == DEVELOPER:
        return f"models/{model}", served
    if given.startswith("projects/"):
        return given, served
    return f"projects/{target.project}/locations/{target.location}/publishers/google/models/{model}", served


def _expiry(body: dict[str, Any], now: int, prefix: str) -> int | None:
    """The expiry (ns) a body's ttl or expireTime asks for, None when it names neither; production's 400s."""
    ttl, expire_time = body.get("ttl"), body.get("expireTime")
    if ttl is not None and expire_time is not None:
        raise errors.oneof_already_set("expiration", "expireTime")
    if ttl is not None:
        match = _DURATION.match(ttl)
        if match is None:
            raise errors.payload_violations(
                [errors.invalid_value(f"{prefix}ttl", "type.googleapis.com/google.protobuf.Duration", f'"{ttl}"')]
            )
        sign, whole, fraction = match.groups()
        length = int(whole) * 10**9 + int((fraction or "").ljust(9, "0"))
        if sign or length <= 0 or length > MAX_TTL_NS:
            raise errors.invalid_argument("ttl must be positive and at most ten years.")  # best-known
        return now + length
    if expire_time is not None:
        at = _timestamp(expire_time)
        if at is None:
            raise errors.payload_violations(
                [
                    errors.invalid_value(
                        f"{prefix}expire_time", "type.googleapis.com/google.protobuf.Timestamp", f'"{expire_time}"'
                    )
                ]
            )
        if at <= now:
            raise errors.invalid_argument("expire_time must be in the future.")  # best-known
        return min(at, now + MAX_TTL_NS)
    return None


_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$")


def _timestamp(text: str) -> int | None:
    """RFC 3339 (proto3 JSON Timestamp) as nanoseconds since the epoch, or None."""
    match = _STAMP.match(text)
    if match is None:
        return None
    base, fraction, zone = match.groups()
    try:
        moment = datetime.fromisoformat(base + ("+00:00" if zone == "Z" else zone))
    except ValueError:
        return None
    return int(moment.timestamp()) * 10**9 + int((fraction or "").ljust(9, "0"))


async def _list(ctx: handlers.Context, target: Target, query: dict[str, str], namespace: str) -> dict[str, Any]:
    size_text = query.get("pageSize", "")
    if size_text and not validate.int_text_ok("int32", size_text):
        raise errors.payload_violations([errors.invalid_value("page_size", "TYPE_INT32", f'"{size_text}"')])
    parent = "" if target.backend == DEVELOPER else f"projects/{target.project}/locations/{target.location}/"
    size = int(size_text) if size_text else 0
    store, token = ctx.caches, query.get("pageToken", "")
    if isinstance(store, RedisCacheStore):
        page, following = await store.list(namespace, size, token, parent)
    else:
        page, following = store.list(namespace, size, token, parent)
    shown = [view(target, e) for e in page]
    out: dict[str, Any] = {}
    if shown:
        out["cachedContents"] = shown
    if following:
        out["nextPageToken"] = following
    return out


async def _patch(
    ctx: handlers.Context, target: Target, body: dict[str, Any], query: dict[str, str], namespace: str, name: str
) -> dict[str, Any]:
    body = validate.check_fields(body, "CachedContent", target.backend, target.version, "cached_content")
    mask = [m.strip() for m in query.get("updateMask", "").split(",") if m.strip()]
    unknown = [m for m in mask if m not in _PATCHABLE]
    if unknown:  # best-known: only the expiration can change
        raise errors.invalid_argument(f"Invalid update_mask: {unknown[0]} cannot be updated.")
    if mask:
        wanted = {_PATCHABLE[m] for m in mask}
        body = {k: v for k, v in body.items() if k in wanted}
    entry = await _require(ctx, target, namespace, name)
    expires = _expiry(body, ctx.caches.now(), "cached_content.")
    if expires is None:
        raise errors.invalid_argument("ttl or expire_time must be set to update a CachedContent.")  # best-known
    store = ctx.caches
    if isinstance(store, RedisCacheStore):
        updated = await store.set_expiry(namespace, entry.name, expires)
    else:
        updated = store.set_expiry(namespace, entry.name, expires)
    if updated is None:
        raise errors.cache_not_found(target.backend, name)
    return view(target, updated)


class AdminView:
    """The cached contents as the admin API lists and removes them (admin.api.Resources)."""

    def __init__(self, store: CacheStore | RedisCacheStore) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": ns,
                "name": e.name,
                "model": e.model,
                "displayName": e.display_name,
                "createTime": stamp(e.created),
                "expireTime": stamp(e.expires, 9),
                "totalTokenCount": e.tokens,
                "sizeBytes": e.size,
            }
            for ns, e in self.store.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        store = self.store
        return store.remove(namespace, name) if isinstance(store, RedisCacheStore) else store.delete(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
