"""The voices room: `/{ver}/voices` (create, list) and `/{ver}/voices/{id}` (get, delete), what google-genai
3.6.1's `client.voices` sends (its generated `_gaos/voices.py`: snake_case fields and query parameters, list
filters repeated, `?language_code=en-US&language_code=fr-FR`).

Shapes: the SDK's `_gaos/types/voices` (VoiceOutput's fields, CreateVoiceRequest's `store` rules, ListVoices'
filters, paging: 50 a page unless asked, at most 1000, a page token valid only with the same filters); its own test
`tests/gaos/test_voices_lifecycle.py` (a prebuilt voice's `id` and `display_name` are the speaker's name, DELETE
answers `{}`). No capture of production exists: messages and the ids' form past `voice_` are best-known
(docs/conformance.md, "Voices"). A voice is usable in a speech config (`speechConfig.voiceConfig.voice`) of TTS and
Live: wire/voice_rules.py refuses one the caller does not have.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.records_redis import RedisVoices
from gemini_emulator.stores.voices import Voices, VoicesFull, new_key, prebuilt_voices
from gemini_emulator.wire.handlers import Context, error_response, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.common import caller

TYPES = ("prebuilt", "prompted", "replicated")
PITCHES = ("low", "medium", "high")
PAGE_DEFAULT, PAGE_MOST = 50, 1000
MAX_SEARCH_BYTES = 2048
STORED_LIFETIME_S = 365 * 24 * 3600  # "Stored voices expire after 1 year of inactivity"
# The descriptive fields a created voice keeps (VoiceInput less `replicated` and `sample_audio`, input only here).
KEPT = (
    "display_name",
    "type",
    "accent",
    "context",
    "description",
    "gender",
    "language_code",
    "model",
    "persona",
    "pitch",
    "prompted",
    "region_code",
)
# list filter (query parameter) -> the voice field it matches, case-insensitively, any of its values
FILTERS = {
    "language_code": "language_code",
    "region_code": "region_code",
    "accent": "accent",
    "persona": "persona",
    "contexts": "context",
    "context": "context",
    "gender": "gender",
    "pitch": "pitch",
    "type": "type",
}


async def serve(
    ctx: Context, voices: Voices | RedisVoices, request: Incoming, target: Target, record: Record
) -> Response:
    """Every voices URL (routes: action `voices`)."""
    try:
        namespace = caller(ctx, request, target, record)
        record.rpc = f"voices.{target.method}"
        if target.method == "create":
            return json_response(await _create(voices, namespace, await read_body(ctx, request, record)))
        if target.method == "list":
            return json_response(await _list(voices, namespace, request))
        voice_id = target.resource
        if target.method == "get":
            found = await settled(voices.voice(namespace, voice_id)) or _prebuilt(voice_id)
            if found is None:
                raise errors.ApiError(404, "Requested entity was not found.")
            return json_response(found)
        if not await settled(voices.delete(namespace, voice_id)):  # delete
            raise errors.ApiError(404, "Requested entity was not found.")
        return json_response({})
    except errors.ApiError as error:
        return error_response(error)


def _prebuilt(voice_id: str) -> dict[str, Any] | None:
    return next((voice for voice in prebuilt_voices() if voice["id"] == voice_id), None)


async def _create(voices: Voices | RedisVoices, namespace: str, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict) or not isinstance(body.get("voice"), dict):
        raise errors.invalid_argument("voice is required.")
    store = body.get("store", False)
    if not isinstance(store, bool):
        raise errors.invalid_argument("store must be a boolean.")
    voice: dict[str, Any] = body["voice"]
    kind = voice.get("type")
    if kind not in ("prompted", "replicated"):
        raise errors.invalid_argument('voice.type must be "prompted" or "replicated".')
    for name in KEPT:
        value = voice.get(name)
        if value is not None and name not in ("type", "prompted") and not isinstance(value, str):
            raise errors.invalid_argument(f"voice.{name} must be a string.")
    if voice.get("pitch") is not None and str(voice["pitch"]).lower() not in PITCHES:
        raise errors.invalid_argument(f"voice.pitch must be one of {', '.join(PITCHES)}.")
    if kind == "prompted":
        prompted = voice.get("prompted")
        if not isinstance(prompted, dict) or not isinstance(prompted.get("input"), str) or not prompted["input"]:
            raise errors.invalid_argument("voice.prompted.input is required for a prompted voice.")
        if not store:
            raise errors.invalid_argument("A prompted voice must be stored: set store to true.")
    else:
        replicated = voice.get("replicated")
        if not isinstance(replicated, dict) or not all(
            isinstance(replicated.get(part), dict) and replicated[part].get("data")
            for part in ("source_audio", "consent_audio")
        ):
            raise errors.invalid_argument(
                "voice.replicated.source_audio and voice.replicated.consent_audio are required for a replicated voice."
            )
    if not store:  # a replicated voice the caller keeps: its key, no discovery metadata
        made = {"type": kind, "key": new_key()}
        if voice.get("model"):
            made["model"] = voice["model"]
        return made
    kept = {name: voice[name] for name in KEPT if voice.get(name) is not None}
    kept["expire_time"] = _timestamp(time.time() + STORED_LIFETIME_S)
    try:
        return await settled(voices.create(namespace, kept))
    except VoicesFull as full:
        raise errors.ApiError(429, f"gemini-emulator: {full}.", status="RESOURCE_EXHAUSTED") from None
    except ValueError as too_big:
        raise errors.invalid_argument(str(too_big)) from None


async def _list(voices: Voices | RedisVoices, namespace: str, request: Incoming) -> dict[str, Any]:
    wanted = {field: {v.lower() for v in request.query_values(name)} for name, field in FILTERS.items()}
    wanted = {field: values for field, values in wanted.items() if values}
    search = request.query.get("search", "")
    if len(search.encode()) > MAX_SEARCH_BYTES:
        raise errors.invalid_argument(f"search is at most {MAX_SEARCH_BYTES} bytes.")
    everything = await settled(voices.stored(namespace)) + prebuilt_voices()
    matching = [voice for voice in everything if _matches(voice, wanted, search.lower())]
    size = _page_size(request.query)
    digest = _filters_digest(wanted, search)
    start = _page_start(request.query.get("page_token", ""), digest, len(matching))
    page: dict[str, Any] = {"voices": matching[start : start + size]}
    if start + size < len(matching):
        page["next_page_token"] = _page_token(start + size, digest)
    return page


def _matches(voice: Mapping[str, Any], wanted: Mapping[str, set[str]], search: str) -> bool:
    for field, values in wanted.items():
        if str(voice.get(field, "")).lower() not in values:
            return False
    if search:
        text = f"{voice.get('display_name', '')}\n{voice.get('description', '')}".lower()
        return search in text
    return True


def _page_size(query: Mapping[str, str]) -> int:
    text = query.get("page_size", "")
    if not text:
        return PAGE_DEFAULT
    if not text.lstrip("-").isdigit() or len(text) > 11:
        raise errors.invalid_argument(f"Invalid value for page_size: {text[:20]}")
    size = int(text)
    return PAGE_DEFAULT if size <= 0 else min(size, PAGE_MOST)


def _filters_digest(wanted: Mapping[str, set[str]], search: str) -> str:
    canonical = orjson.dumps({field: sorted(values) for field, values in sorted(wanted.items())} | {"": search})
    return hashlib.sha256(canonical).hexdigest()[:16]


def _page_token(start: int, digest: str) -> str:
    return base64.urlsafe_b64encode(f"{start}:{digest}".encode()).decode().rstrip("=")


def _page_start(token: str, digest: str, total: int) -> int:
    """Where a page token points; its 400 when it is not one, or was made under other filters."""
    if not token:
        return 0
    try:
        start_text, _, made_under = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode().partition(":")
        start = int(start_text)
    except (ValueError, UnicodeDecodeError):
        raise errors.invalid_argument("Invalid page_token.") from None
    if made_under != digest:
        raise errors.invalid_argument("page_token was issued for a request with other filters.")
    return max(0, min(start, total))


def _timestamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds % 1 * 1e6):06d}Z"


class AdminView:
    """The stored voices as the admin API lists and removes them (admin.api.Resources)."""

    def __init__(self, voices: Voices | RedisVoices) -> None:
        self.voices = voices

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {"namespace": name, "name": f"voices/{voice['id']}", "type": voice["type"]}
            for name, voice in self.voices.voices(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if isinstance(self.voices, RedisVoices):  # the sync client, as the batches' admin view
            return self.voices.delete_sync(namespace, name.removeprefix("voices/"))
        return self.voices.delete(namespace, name.removeprefix("voices/"))

    def reset(self, namespace: str | None = None) -> None:
        self.voices.reset(namespace)
