"""The openai engine: Gemini requests answered by any OpenAI-compatible upstream (Ollama, vLLM, llama.cpp,
LM Studio, OpenAI itself), streaming and tools included.

Configured from GEMINI_EMULATOR_OPENAI_* variables (engines/openai/config.py). Translation lives in
engines/openai/request.py (request), openai_response.py (answers, failures), openai_stream.py (streams) and
openai_ids.py (tool-call ids across turns). Failures map to Google errors: 401/403 -> the credential errors,
404 -> model not found, 429 -> RESOURCE_EXHAUSTED with the upstream's Retry-After, 5xx, timeouts and refused
connections -> 503 UNAVAILABLE naming the upstream; after the first chunk, production's mid-stream error tail.
The upstream key is sent only in the Authorization header: never logged, journaled or put in an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
from httpx_sse import EventSource, SSEError

from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.engines.openai.ids import CallIdStore, TurnIds
from gemini_emulator.engines.openai.ids_redis import RedisCallIds
from gemini_emulator.engines.openai.request import chat_body, include_thoughts, turn_keys
from gemini_emulator.engines.openai.response import (
    error_body,
    http_error,
    label,
    redact,
    scrubbed,
    unary_chunks,
)
from gemini_emulator.engines.openai.stream import StreamTranslator
from gemini_emulator.protocol import errors
from gemini_emulator.seam import Chunk, GenerateRequest
from gemini_emulator.seam.state import MEMORY, check_store, link


class OpenAIEngine:
    """Forwards each generateContent call to `{base_url}/chat/completions` and translates the answer back."""

    name = "openai"

    def __init__(self, config: OpenAIConfig | None = None, ids: CallIdStore | None = None, **_settings: object) -> None:
        """`config` defaults to the GEMINI_EMULATOR_OPENAI_* environment; `state` (the --store setting): a redis URL
        keeps the tool-call ids in Redis (engines/openai/ids_redis.py), for every process; server settings meant
        for other engines (e.g. `captures`) are accepted and ignored."""
        self.config = config or OpenAIConfig.from_env()
        self.ids = ids or CallIdStore()
        state = _settings.get("state")
        self.shared: RedisCallIds | None = None
        if ids is None and isinstance(state, str) and check_store(state) != MEMORY:
            self.shared = RedisCallIds(link(state))
        self.upstream = label(self.config.base_url)
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _client(self) -> httpx.AsyncClient:
        """One connection pool per event loop (the server has one; tests may run several)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop:
            self._http = httpx.AsyncClient(timeout=httpx.Timeout(self.config.timeout))
            self._loop = loop
        return self._http

    def _headers(self, stream: bool) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream" if stream else "application/json"}
        if self.config.api_key:
            headers["authorization"] = f"Bearer {self.config.api_key}"
        return headers

    async def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]:
        model = self.config.upstream_model(request.requested_model, request.model)
        request.notes["entry"] = f"openai:{model}"
        ids = self.ids
        if self.shared is not None:  # the history's function-call turns, as any process answered them
            keys = turn_keys(request)
            ids = TurnIds(await self.shared.recall_many(keys) if keys else {})
        body = chat_body(request, self.config, ids, model)
        if request.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        payload = orjson.dumps(body)
        try:
            async with self._client().stream(
                "POST", self.config.chat_url, content=payload, headers=self._headers(request.stream)
            ) as response:
                if response.status_code != 200:
                    raw = await response.aread()
                    raise http_error(
                        response.status_code, raw, dict(response.headers), request, self.upstream, self.config.api_key
                    )
                if request.stream and _is_sse(response):
                    async for chunk in self._stream(response, request, ids):
                        yield chunk
                else:  # unary, or an upstream that answered a stream request with one JSON body
                    answer = _json(await response.aread(), self.upstream)
                    if isinstance(answer, dict) and "error" in answer and "choices" not in answer:
                        raise error_body(answer, request, self.upstream, self.config.api_key)
                    chunks = unary_chunks(answer, request, ids, self.upstream, include_thoughts(request))
                    await self._share(ids)
                    for chunk in chunks:
                        yield chunk
        except errors.ApiError as error:
            raise scrubbed(error, self.config.api_key) from None
        except httpx.TimeoutException:
            raise errors.upstream_unavailable(
                self.upstream, f"no answer within {self.config.timeout:g} s (GEMINI_EMULATOR_OPENAI_TIMEOUT)"
            ) from None
        except httpx.ConnectError as exc:
            reason = redact(_reason(exc), self.config.api_key)
            raise errors.upstream_unavailable(self.upstream, f"cannot connect ({reason})") from None
        except (httpx.HTTPError, SSEError) as exc:
            reason = redact(_reason(exc), self.config.api_key)
            raise errors.upstream_unavailable(self.upstream, f"the connection broke ({reason})") from None

    async def _share(self, ids: CallIdStore) -> None:
        """On Redis: the calls this answer made, kept for every process before the caller sees them."""
        if self.shared is not None and isinstance(ids, TurnIds) and ids.written:
            await self.shared.remember_many(ids.written)

    async def _stream(
        self, response: httpx.Response, request: GenerateRequest, ids: CallIdStore
    ) -> AsyncIterator[Chunk]:
        translator = StreamTranslator(request, ids, self.upstream, self.config.api_key, include_thoughts(request))
        async for event in EventSource(response).aiter_sse():
            if not translator.done:  # after [DONE], read on to the end so the connection can be reused
                for chunk in translator.feed(event.data):
                    yield chunk
        last = translator.finish()
        await self._share(ids)
        for chunk in last:
            yield chunk


def _is_sse(response: httpx.Response) -> bool:
    return "text/event-stream" in response.headers.get("content-type", "")


def _json(raw: bytes, upstream: str) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw[:200].decode("utf-8", "replace")
        raise errors.upstream_invalid(upstream, f"the answer is not JSON: {text!r}") from None


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
