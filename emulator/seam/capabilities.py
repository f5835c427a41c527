"""What an engine is (`Engine`) and what it may also be: optional capabilities the wire asks for by isinstance.

The wire asks an engine that has a capability before answering a call itself. Their `request` is built before the
catalogue is consulted: `model` is the model as written (without "models/") when the catalogue does not serve it,
and `contents` is whatever the body holds (countTokens and the embedding methods are not generateContent requests).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import Any, Protocol, runtime_checkable

from gemini_emulator.seam.chunk import Chunk
from gemini_emulator.seam.request import GenerateRequest
from gemini_emulator.seam.scripting import ScriptBook

Answer = list[Chunk] | AsyncIterator[Chunk]  # a generate call's chunks: all at hand, or as they come


@runtime_checkable
class Engine(Protocol):
    """What the wire layer calls. `generate` is an async generator of chunks."""

    name: str

    def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]: ...


@runtime_checkable
class ReadyAnswerer(Protocol):
    """Engines that often hold a generate call's whole answer at once: `answer_ready` is asked instead of
    `generate` (never as well) and returns the answer's chunks as a list when none of them waits for anything (no
    delay, no upstream, no work off the event loop), else the chunks as they come, exactly what `generate` would
    yield. The wire turns a list into a response without the machinery a stream that takes time needs. Like
    `generate`, it may raise an ApiError (an answer that is an error). An engine whose state lives elsewhere (the
    scripted engine on the Redis store) returns an awaitable of the same: the wire awaits it, then sends a list
    as it sends any."""

    def answer_ready(self, request: GenerateRequest) -> Answer | Awaitable[Answer]: ...


@runtime_checkable
class Embedder(Protocol):
    """Engines that also answer embedding calls implement this."""

    def embed(self, model: str, texts: list[str], dimensions: int | None) -> list[list[float]]: ...


@runtime_checkable
class ModelServer(Protocol):
    """Engines that can answer for a model the catalogue does not serve (a recording of a model since retired,
    or of production's 404 for an unknown one). True only when the engine holds the answer to this very request:
    the wire then skips the catalogue's 404 and carries on as for a served model. An engine whose state lives
    elsewhere (the scripted engine on the Redis store) answers an awaitable of the same: the wire awaits it."""

    def serves_model(self, request: GenerateRequest) -> bool | Awaitable[bool]: ...


@runtime_checkable
class MethodAnswerer(Protocol):
    """Engines that can answer the methods the wire computes itself (countTokens, computeTokens, embedContent,
    batchEmbedContents, predict): the response body, printed as given, or None to let the wire compute it.
    May raise an ApiError (sent as is). An engine whose state lives elsewhere (the scripted engine on the Redis
    store) returns an awaitable of the same instead: the wire awaits it, so the event loop never waits on I/O."""

    def answer_method(self, request: GenerateRequest) -> dict[str, Any] | None | Awaitable[dict[str, Any] | None]: ...


@runtime_checkable
class Resettable(Protocol):
    """Engines with per-caller state beyond the script (e.g. a recorded conversation's position): the admin
    reset (`POST /__emulator/reset`) forgets it for one namespace, or for all with None."""

    def reset(self, namespace: str | None = None) -> None: ...


@runtime_checkable
class Scriptable(Protocol):
    """Engines that take scripts: the admin API's /script and /strict, `--script` and the fixtures' `script()`
    go to the one book this returns (the same object on every call). An engine without it answers those with
    FAILED_PRECONDITION."""

    def script_book(self) -> ScriptBook: ...
