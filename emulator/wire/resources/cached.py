"""A generate call that names a cache (`cachedContent`): what production refuses beside it, and what the cache
adds to what the model reads. The HTTP room for the cachedContents resource itself is wire/resources/caches.py.

Production (public probe, 2026-09; docs/conformance.md): systemInstruction, tools or toolConfig in the request
is a 400 even when identical to the cache's; a missing, expired or deleted cache is a 403 on the Developer API;
the cache's contents come first, and usageMetadata counts them in promptTokenCount and again in
cachedContentTokenCount (with cacheTokensDetails by modality).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.stores.caches import CachedContent, CacheStore
from gemini_emulator.stores.caches_redis import RedisCacheStore

_DEVELOPER_NAME = re.compile(r"^cachedContents/[^/]+$")
_VERTEX_NAME = re.compile(r"^projects/[^/]+/locations/[^/]+/cachedContents/[^/]+$")


@dataclass
class CacheUse:
    """The cache a request names, as the engine and the usage count see it: its members parsed for this call."""

    entry: CachedContent
    contents: list[dict[str, Any]]
    system_instruction: dict[str, Any] | None
    tools: list[dict[str, Any]]
    tool_config: dict[str, Any] | None

    @classmethod
    def of(cls, entry: CachedContent) -> CacheUse:
        members = entry.decoded()
        return cls(
            entry=entry,
            contents=members.get("contents") or [],
            system_instruction=members.get("systemInstruction"),
            tools=members.get("tools") or [],
            tool_config=members.get("toolConfig"),
        )


def full_name(target: Target, name: str) -> str:
    """The stored name a request's `cachedContent` (or a URL's id) stands for, or production's 400. Vertex
    also takes `cachedContents/{id}` and resolves it in the URL's project and location."""
    if target.backend == DEVELOPER:
        if _DEVELOPER_NAME.match(name):
            return name
        raise errors.cache_name_invalid(name)
    if _VERTEX_NAME.match(name):
        return name
    if _DEVELOPER_NAME.match(name) and target.project:
        return f"projects/{target.project}/locations/{target.location}/{name}"
    raise errors.cache_name_invalid(name)


def model_id(model: str) -> str:
    """`gemini-2.5-flash` from `models/...` or `projects/P/locations/L/publishers/google/models/...`."""
    return model.rsplit("/", 1)[-1]


def resolve(
    store: CacheStore | RedisCacheStore, target: Target, model: str, body: dict[str, Any], namespace: str
) -> CacheUse | None:
    """The cache a (validated, normalised) generate or countTokens body names, or None when it names none;
    production's 400/403/404 for what it refuses. `model` is the catalogue id serving the call."""
    name = body.get("cachedContent")
    if not name or not isinstance(name, str):
        return None
    stored = full_name(target, name)
    if body.get("systemInstruction") is not None or body.get("tools") or body.get("toolConfig") is not None:
        raise errors.cache_with_request_config()
    entry = store.cached(namespace, stored)
    if entry is None:
        raise errors.cache_not_found(target.backend, stored)
    if (entry.served_model or model_id(entry.model)) != model:
        raise errors.cache_model_mismatch()
    return CacheUse.of(entry)


async def fetch(store: RedisCacheStore, target: Target, body: dict[str, Any], namespace: str) -> None:
    """Read, before the call is built, the cache a generate or countTokens body on the Redis store names (its
    builder's look-up, `resolve`, is sync); a name production refuses is left for `resolve` to refuse in turn."""
    inner = body.get("generateContentRequest")
    name = (inner if isinstance(inner, dict) else body).get("cachedContent")
    if not name or not isinstance(name, str):
        return
    try:
        stored = full_name(target, name)
    except errors.ApiError:
        return
    await store.fetch(namespace, stored)
