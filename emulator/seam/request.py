"""What an engine receives: the parsed, validated request, its field names in one spelling."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class GenerateRequest:
    """A validated generateContent / streamGenerateContent request, independent of the URL family.

    Field names are lowerCamelCase at every depth the API defines (the wire normalised them once: proto JSON
    also accepts snake_case, which the Python SDK sends inside nested objects), so engines read one spelling:
    `request.generation_config.get("thinkingConfig")`. Free-form values (function call args, Struct fields,
    `responseJsonSchema`, Schema `properties` names) are as the caller sent them. Engines read it and must not
    change it (`notes` excepted). It is not frozen only for speed: a frozen
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
    body: dict[str, Any] = field(default_factory=dict)  # the whole (normalised) request body, for matchers
    fingerprint: str = ""  # stable digest of (model, body): same request, same value
    method: str = "generateContent"  # or "streamGenerateContent"
    version: str = "v1beta"  # API version of the URL, for error texts
    notes: dict[str, Any] = field(default_factory=dict)  # what the engine wants journaled ("entry": name)
    thinking: bool = False  # the model thinks (catalogue): thought tokens, signatures
    prompt_tokens: int = 0  # the wire's token count of everything the model reads
    # The body as the client sent it (the journal's), spellings and all; None: as `body`. Read fields from `body`:
    # this is for what compares the request's very text (replay's exact match, the script's `request` matchers).
    sent: dict[str, Any] | None = None
    # What the answer carries, as the wire resolved it for this model (responseModalities checked against the
    # catalogue): ("TEXT",) for text models, e.g. ("TEXT", "IMAGE") for an image model, ("AUDIO",) for TTS.
    output_modalities: tuple[str, ...] = ("TEXT",)
    # (width, height) of the pictures to draw when the wire knows it (an Imagen edit or upscale, Imagen's sizes);
    # None: the request's imageConfig decides.
    image_size: tuple[int, int] | None = None
    # What a `fileSearch` tool retrieved for this request (the wire searched the caller's stores): each one a
    # groundingChunk's `retrievedContext` as production prints it ({title?, text, fileSearchStore,
    # customMetadata?}), best match first; empty when the request has no such tool or nothing matched.
    retrieved: list[dict[str, Any]] = field(default_factory=list)

    def last_user_text(self) -> str:
        """Text of the last user turn (all its text parts joined), or ""."""
        return last_user_text(self.contents)

    def sent_body(self) -> dict[str, Any]:
        """The body as the client sent it (the journal's), field names unnormalised."""
        return self.body if self.sent is None else self.sent


def last_user_text(contents: list[dict[str, Any]]) -> str:
    """Text of the last user turn of `contents` (all its text parts joined), or ""."""
    for content in reversed(contents):
        if content.get("role", "user") == "user":
            texts = []
            for part in content.get("parts", []):  # a loop, not a comprehension: cheaper for the usual one part
                text = part.get("text")
                if isinstance(text, str):
                    texts.append(text)
            if texts:
                return "\n".join(texts)
    return ""
