"""The engine seam: what an engine receives, what it yields, and how engines are found.

An engine gets a parsed, validated `GenerateRequest` and yields `Chunk`s: plain data. It knows nothing
of URLs, status codes, printing or framing; to fail, it raises an `emulator.errors.ApiError` from the
catalogue (before its first chunk: an ordinary HTTP error; after: production's mid-stream error tail).

Engines are discovered through the `gemini_emulator.engines` entry-point group, so a third-party
package can add one:

    [project.entry-points."gemini_emulator.engines"]
    mine = "my_package.engine:MyEngine"
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

ENTRY_POINT_GROUP = "gemini_emulator.engines"
_UPPER = re.compile(r"(?<!^)([A-Z])")


@cache
def snake_case(camel: str) -> str:
    return _UPPER.sub(r"_\1", camel).lower()


def pick(obj: Any, camel: str) -> Any:
    """`obj[camel]`, else its snake_case spelling (proto JSON accepts both, and the Python SDK sends
    snake_case inside nested objects), else None; None when `obj` is not an object."""
    if not isinstance(obj, dict):
        return None
    if camel in obj:
        return obj[camel]
    return obj.get(snake_case(camel))


@dataclass(slots=True)
class GenerateRequest:
    """A validated generateContent / streamGenerateContent request, independent of the URL family.

    Engines read it and must not change it (`notes` excepted). It is not frozen only for speed: a frozen
    dataclass's constructor sets each field through object.__setattr__, which made building one 2.7x as costly.
    """

    model: str  # catalogue id after alias resolution, e.g. "gemini-2.5-flash"
    requested_model: str  # the model segment as the caller wrote it
    backend: str  # "developer" or "vertex" (Firebase proxies map onto one of these)
    stream: bool
    namespace: str  # the caller's credential (API key or bearer token); isolates state
    contents: list[dict[str, Any]]
    system_instruction: dict[str, Any] | None = None
    generation_config: dict[str, Any] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_config: dict[str, Any] | None = None
    safety_settings: list[dict[str, Any]] = field(default_factory=list)
    body: dict[str, Any] = field(default_factory=dict)  # the whole request body, for matchers
    fingerprint: str = ""  # stable digest of (model, body): same request, same value
    method: str = "generateContent"  # or "streamGenerateContent"
    version: str = "v1beta"  # API version of the URL, for error texts
    notes: dict[str, Any] = field(default_factory=dict)  # what the engine wants journaled ("entry": name)
    thinking: bool = False  # the model thinks (catalogue): thought tokens, signatures
    prompt_tokens: int = 0  # the wire's token count of everything the model reads

    def last_user_text(self) -> str:
        """Text of the last user turn (all its text parts joined), or ""."""
        return last_user_text(self.contents)


def last_user_text(contents: list[dict[str, Any]]) -> str:
    """Text of the last user turn of `contents` (all its text parts joined), or ""."""
    for content in reversed(contents):
        if content.get("role", "user") == "user":
            texts = [p["text"] for p in content.get("parts", []) if isinstance(p.get("text"), str)]
            if texts:
                return "\n".join(texts)
    return ""


# Wire faults an engine can ask for (the wire layer carries them out; engines never touch sockets).
DROP = "drop"  # close the connection abruptly: no further bytes, no clean end of the body
TRUNCATE = "truncate"  # send this chunk's event cut short, then end the body normally


@dataclass
class Chunk:
    """One piece of the answer: new parts (Gemini part dicts) and, on the last piece, how it ended.

    `raw` replaces everything else with a whole GenerateContentResponse object, served as is.
    `fault` (DROP or TRUNCATE) breaks the wire at this chunk: DROP sends nothing of this chunk (or, with
    `fault_at_byte`, the body up to that many bytes in total) and then drops the connection.
    `headers` (first chunk) are the answer's own response headers, e.g. a recording's: the wire takes those it
    lets an engine decide (`X-Gemini-Service-Tier`: sent as given, or not at all when left out) and keeps its
    say over the rest (content type, framing); None leaves them all to the wire.
    """

    parts: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    finish_message: str | None = None
    safety_ratings: list[dict[str, Any]] | None = None
    block_reason: str | None = None  # promptFeedback.blockReason: the answer has no candidates
    usage: dict[str, Any] | None = None  # usageMetadata fields that override the computed ones
    raw: dict[str, Any] | None = None
    index: int = 0  # candidate index, for candidateCount > 1
    grounding: dict[str, Any] | None = None  # groundingMetadata / urlContextMetadata of the candidate
    fault: str | None = None
    fault_at_byte: int | None = None
    headers: dict[str, str] | None = None


@runtime_checkable
class Embedder(Protocol):
    """Engines that also answer embedding calls implement this."""

    def embed(self, model: str, texts: list[str], dimensions: int | None) -> list[list[float]]: ...


# Optional capabilities: the wire asks an engine that has them before answering a call itself. Their
# `request` is built before the catalogue is consulted: `model` is the model as written (without "models/")
# when the catalogue does not serve it, and `contents` is whatever the body holds (countTokens and the
# embedding methods are not generateContent requests).


@runtime_checkable
class ModelServer(Protocol):
    """Engines that can answer for a model the catalogue does not serve (a recording of a model since retired,
    or of production's 404 for an unknown one). True only when the engine holds the answer to this very request:
    the wire then skips the catalogue's 404 and carries on as for a served model."""

    def serves_model(self, request: GenerateRequest) -> bool: ...


@runtime_checkable
class MethodAnswerer(Protocol):
    """Engines that can answer the methods the wire computes itself (countTokens, computeTokens, embedContent,
    batchEmbedContents, predict): the response body, printed as given, or None to let the wire compute it.
    May raise an ApiError (sent as is)."""

    def answer_method(self, request: GenerateRequest) -> dict[str, Any] | None: ...


@runtime_checkable
class Resettable(Protocol):
    """Engines with per-caller state beyond the script (e.g. a recorded conversation's position): the admin
    reset (`POST /__emulator/reset`) forgets it for one namespace, or for all with None."""

    def reset(self, namespace: str | None = None) -> None: ...


@runtime_checkable
class Engine(Protocol):
    """What the wire layer calls. `generate` is an async generator of chunks."""

    name: str

    def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]: ...


class EngineLoadError(Exception):
    """An engine name that no installed plugin provides, or a plugin that breaks the protocol."""


def available_engines() -> dict[str, str]:
    """Installed engine names and the object each entry point names."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_engine(name: str, options: dict[str, Any] | None = None) -> Engine:
    """Instantiate the engine registered under `name`, checking the protocol eagerly."""
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        known = ", ".join(sorted(available_engines())) or "none"
        raise EngineLoadError(f"no engine named {name!r} is installed (installed: {known})")
    factory = matches[0].load()
    try:
        engine = factory(**(options or {}))
    except TypeError as exc:  # an option this engine does not take (e.g. --captures)
        raise EngineLoadError(f"engine {name!r} does not take the options {sorted(options or {})}: {exc}") from None
    missing = [attr for attr in ("name", "generate") if not hasattr(engine, attr)]
    if missing:
        raise EngineLoadError(f"engine {name!r} ({matches[0].value}) lacks {', '.join(missing)}")
    return engine
