"""Response bodies as data, in production's key order for each backend. [wire-facts §4, §5.1, §6, §8]

Engines say *what* the model answered (parts, finish reason); this module says how production lays
it out: which keys, in which order, per backend. The printers then turn these dicts into bytes.

Developer API (byte-exact adk-go traces, 2026): response candidates, promptFeedback, usageMetadata,
modelVersion, responseId; candidate content{parts, role}, finishReason, index, finishMessage;
usage promptTokenCount, candidatesTokenCount, totalTokenCount, promptTokensDetails,
thoughtsTokenCount, serviceTier.
Vertex AI (verbatim CRLF Firebase fixtures, js-genai recordings): response candidates,
usageMetadata, modelVersion, createTime, responseId; content{role, parts}; no candidate index;
streamed chunks carry usageMetadata {trafficType} until the last one. A unary Vertex candidate carries
`avgLogprobs` after finishReason, unless the request enabled a server-side tool (pydantic-ai VCR recordings,
2025-05..2026-07: 108 of 108 unary candidates of requests without one; 0 of 3 with googleSearch enabled, 2026-06
and 2026-07; the one Vertex stream and every streamed Vertex capture lack it).
No `billablePromptUsage`: it is in none of the 113 Vertex answers pydantic-ai recorded
(2025-05/06 and 2026-02..07, global and europe-west4 endpoints), only in js-genai's 2025-08..12 recordings
(57 of 60, location redacted); the emulator follows the newer ones (docs/conformance.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gemini_emulator.media import images
from gemini_emulator.protocol import printers, tokens
from gemini_emulator.protocol.routes import VERTEX
from gemini_emulator.seam import Chunk

SERVICE_TIER = "standard"  # Developer API usageMetadata.serviceTier and X-Gemini-Service-Tier header
TRAFFIC_TYPE = "ON_DEMAND"  # Vertex usageMetadata.trafficType
# Deterministic clock for Vertex createTime: same request, same bytes (see docs/conformance.md).
CLOCK_BASE = datetime(2026, 1, 1, tzinfo=UTC)
_CLOCK_DAY = CLOCK_BASE.strftime("%Y-%m-%d")

# Part keys: the data member first, then thought, then thoughtSignature. [wire-facts §4]
_PART_TAIL = ("thought", "thoughtSignature")
_CALL_ORDER = ("name", "args", "id")


def response_id(fingerprint: str) -> str:
    """22 URL-safe characters, like production's, derived from the request."""
    digest = hashlib.sha256(("rid:" + fingerprint).encode()).digest()
    return binascii.b2a_base64(digest, newline=False)[:22].translate(_URL_SAFE).decode()  # urlsafe_b64encode's


_URL_SAFE = bytes.maketrans(b"+/", b"-_")  # base64's URL-safe alphabet (RFC 4648 §5), as base64.urlsafe_b64encode


def create_time(fingerprint: str) -> str:
    """RFC 3339 with microseconds, as Vertex prints it; derived from the request, not the wall clock: a moment of
    CLOCK_BASE's day (CLOCK_BASE is a midnight), spelled as `strftime("%Y-%m-%dT%H:%M:%S.%fZ")` would (without
    its cost)."""
    micros = int(hashlib.sha256(("ct:" + fingerprint).encode()).hexdigest()[:12], 16) % 86_400_000_000
    seconds, micro = divmod(micros, 1_000_000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{_CLOCK_DAY}T{hour:02d}:{minute:02d}:{second:02d}.{micro:06d}Z"


def order_part(part: dict[str, Any]) -> dict[str, Any]:
    """A part in production's key order (engines may build parts in any order)."""
    if len(part) == 1:
        return part
    ordered = {k: part[k] for k in _layout(tuple(part), _part_order)}
    call = ordered.get("functionCall")
    if isinstance(call, dict) and "toolCall" not in part and "toolResponse" not in part:
        ordered["functionCall"] = {k: call[k] for k in _layout(tuple(call), _call_order)}
    return ordered


def _part_order(keys: tuple[str, ...]) -> tuple[str, ...]:
    """A part's keys in production's order: the data member first, then thought, then thoughtSignature."""
    tail = tuple(k for k in _PART_TAIL if k in keys)
    head = tuple(k for k in keys if k not in _PART_TAIL)
    if "toolCall" in keys or "toolResponse" in keys:  # a server-side tool's parts: the signature leads (the
        # raw stream of pydantic-ai's cassette test_google_model_file_search_grounding_gemini_3[True].yaml)
        return tail + head
    return head + tail


def _call_order(keys: tuple[str, ...]) -> tuple[str, ...]:
    """A functionCall's keys in production's order: name, args, id, then any other as given."""
    return tuple(k for k in _CALL_ORDER if k in keys) + tuple(k for k in keys if k not in _CALL_ORDER)


_KEY_LAYOUTS: dict[tuple[Any, tuple[str, ...]], tuple[str, ...]] = {}


def _layout(keys: tuple[str, ...], order: Callable[[tuple[str, ...]], tuple[str, ...]]) -> tuple[str, ...]:
    """`order(keys)`, worked out once for each key set seen (engines repeat a few; a bounded table). Only sets of
    str keys are kept: a key equal to another of a different type (1 and True) never takes the other's layout."""
    layout = _KEY_LAYOUTS.get((order, keys))
    if layout is None:
        layout = order(keys)
        if all(type(k) is str for k in keys):
            if len(_KEY_LAYOUTS) >= 1024:
                _KEY_LAYOUTS.clear()
            _KEY_LAYOUTS[(order, keys)] = layout
    return layout


@dataclass(slots=True)
class Usage:
    """Token counts for one response; `candidates` grows as chunks stream out."""

    prompt_text: int
    prompt_media: int = 0
    candidates: int = 0
    billable_chars: int = 0
    cached_text: int = 0  # of the prompt, the part a cachedContent holds (counted in prompt_* too)
    cached_media: int = 0
    candidates_media: dict[str, int] = field(default_factory=dict)  # generated media's tokens, by modality
    # The usual answer's promptTokensDetails and the prompt count it lists, laid out by its first body: a stream's
    # later bodies hold the same list (bodies are printed, never changed)
    _text_details: tuple[int, list[dict[str, Any]]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def prompt(self) -> int:
        return self.prompt_text + self.prompt_media

    @property
    def cached(self) -> int:
        return self.cached_text + self.cached_media

    def developer(self, thoughts: int = 0, tool_use: int = 0) -> dict[str, Any]:
        """Developer API usageMetadata, in DEVELOPER_USAGE_ORDER; zero counts omitted (as `_ordered` does).
        `thoughts` and `tool_use` are an engine's thoughtsTokenCount and toolUsePromptTokenCount (in the total)."""
        prompt, candidates = self.prompt_text, self.candidates
        if (
            prompt
            and candidates
            and not (self.prompt_media or self.cached_text or self.cached_media or self.candidates_media or tool_use)
        ):  # the usual answer, text for text without a cache: `_developer`'s layout in one dict display
            known = self._text_details
            if known is not None and known[0] == prompt:
                details = known[1]
            else:
                details = tokens.modality_details(prompt, 0)
                self._text_details = (prompt, details)
            if thoughts:
                return {
                    "promptTokenCount": prompt,
                    "candidatesTokenCount": candidates,
                    "totalTokenCount": prompt + candidates + thoughts,
                    "promptTokensDetails": details,
                    "thoughtsTokenCount": thoughts,
                    "serviceTier": SERVICE_TIER,
                }
            return {
                "promptTokenCount": prompt,
                "candidatesTokenCount": candidates,
                "totalTokenCount": prompt + candidates,
                "promptTokensDetails": details,
                "serviceTier": SERVICE_TIER,
            }
        return self._developer(thoughts, tool_use)

    def _developer(self, thoughts: int, tool_use: int) -> dict[str, Any]:
        """`developer` for any counts, laid out key by key (tests/wire hold the usual case's display to it)."""
        out: dict[str, Any] = self._counts(thoughts + tool_use)
        cached = self.cached_text + self.cached_media
        if cached:
            out["cachedContentTokenCount"] = cached
        out["promptTokensDetails"] = tokens.modality_details(self.prompt_text, self.prompt_media)
        if cached:
            out["cacheTokensDetails"] = tokens.modality_details(self.cached_text, self.cached_media)
        if self.candidates_media:  # media answers list their modalities (vercel-ai issue-10660 Developer stream)
            out["candidatesTokensDetails"] = self._candidate_details()
        if tool_use:
            out["toolUsePromptTokenCount"] = tool_use
        if thoughts:
            out["thoughtsTokenCount"] = thoughts
        out["serviceTier"] = SERVICE_TIER
        return out

    def vertex(self, thoughts: int = 0, tool_use: int = 0) -> dict[str, Any]:
        """Vertex usageMetadata, in VERTEX_USAGE_ORDER; zero counts omitted (`thoughts`, `tool_use`: as `developer`)."""
        out: dict[str, Any] = self._counts(thoughts + tool_use)
        cached = self.cached_text + self.cached_media
        if cached:
            out["cachedContentTokenCount"] = cached
        out["trafficType"] = TRAFFIC_TYPE
        out["promptTokensDetails"] = tokens.modality_details(self.prompt_text, self.prompt_media)
        if cached:
            out["cacheTokensDetails"] = tokens.modality_details(self.cached_text, self.cached_media)
        if self.candidates or self.candidates_media:
            out["candidatesTokensDetails"] = self._candidate_details()
        if tool_use:
            out["toolUsePromptTokenCount"] = tool_use
        if thoughts:
            out["thoughtsTokenCount"] = thoughts
        return out

    def _candidate_details(self) -> list[dict[str, Any]]:
        """TEXT (when any) then each generated modality (Firebase fixture vertexai/unary-success-empty-part)."""
        details = [{"modality": "TEXT", "tokenCount": self.candidates}] if self.candidates else []
        return details + [{"modality": m, "tokenCount": n} for m, n in self.candidates_media.items()]

    def _counts(self, extra: int = 0) -> dict[str, Any]:
        """The prompt, candidate and total counts (`extra`: further tokens in the total), zeros omitted."""
        prompt = self.prompt_text + self.prompt_media
        candidates = self.candidates + sum(self.candidates_media.values()) if self.candidates_media else self.candidates
        total = prompt + candidates + extra
        out: dict[str, Any] = {}
        if prompt:
            out["promptTokenCount"] = prompt
        if candidates:
            out["candidatesTokenCount"] = candidates
        if total:
            out["totalTokenCount"] = total
        return out


class ResponseBuilder:
    """Builds each GenerateContentResponse of one answer (one for unary, one per chunk streamed).

    `server_tools`: the request enabled a server-side tool (search, code execution, ...); `image_cost`: the tokens
    of a generated image by the model (`model_version`) and the image's longer side, asked only when an image is
    costed. Made once per generate call: a plain slotted class, whose constructor
    works out what every body of the answer repeats (its response id, Vertex's createTime, what the model version
    allows the printers)."""

    __slots__ = (
        "backend",
        "model_version",
        "fingerprint",
        "usage",
        "server_tools",
        "image_cost",
        "_rid",
        "_ctime",
        "_plain_model",
        "_colon_model",
    )

    def __init__(
        self,
        backend: str,
        model_version: str,
        fingerprint: str,
        usage: Usage,
        server_tools: bool = False,
        image_cost: Callable[[str, int], int] = lambda model, side: IMAGE_OUTPUT_TOKENS,
    ) -> None:
        self.backend = backend
        self.model_version = model_version
        self.fingerprint = fingerprint
        self.usage = usage
        self.server_tools = server_tools
        self.image_cost = image_cost
        self._rid = response_id(fingerprint)
        self._ctime = create_time(fingerprint) if backend == VERTEX else ""
        # The model version may go in a printers.Plain body (its id and time always may); it holds a ":" (a
        # response id never does). Worked out once per model.
        traits = _MODEL_TRAITS.get(model_version) if type(model_version) is str else None
        if traits is None:
            traits = _model_traits(model_version)
        self._plain_model, self._colon_model = traits

    def build(self, chunk: Chunk, final: bool, stream: bool, siblings: list[Chunk] | None = None) -> dict[str, Any]:
        """The response body for one engine chunk (`final`: it ends the answer); `siblings` are further
        candidates of a unary answer (candidateCount > 1)."""
        if chunk.raw is not None:
            return chunk.raw
        vertex = self.backend == VERTEX
        given = chunk.usage
        extra = _extra_counts(given) if given else _NO_EXTRA
        if (
            extra is not None
            and not siblings
            and chunk.block_reason is None
            and not (chunk.safety_ratings or chunk.grounding or chunk.finish_message)
        ):
            laid_out = self._text_body(chunk, extra, vertex, stream, final)
            if laid_out is not None:
                return laid_out
        candidates = []
        engine_data: list[Any] = []  # what the engine gave that may hold a float (the only place one can come from)
        plain = self._plain_model and chunk.block_reason is None  # a printers.Plain body, so far
        for one in (chunk, *siblings) if siblings else (chunk,):
            ordered, plain_parts = self._counted(one.parts, engine_data)
            reason = one.finish_reason
            if plain:
                plain = plain_parts and one.finish_message is None and type(one.index) is int
                plain = plain and (reason is None or (type(reason) is str and printers.plain_string(reason)))
            candidate = self._candidate(one, ordered, vertex)
            if vertex and not stream and reason and not (one.grounding or self.server_tools):
                candidate = _with_avg_logprobs(candidate, self.fingerprint, one.index)
            candidates.append(candidate)
            if one.safety_ratings:
                engine_data.append(one.safety_ratings)
            if one.grounding:
                engine_data.append(one.grounding)
            if one.usage and (one is not chunk or extra is None):  # counts `_extra_counts` took hold no float
                engine_data.append(one.usage)
        body: dict[str, Any]
        if vertex and not stream:  # as ever, searched for a float when printed (avgLogprobs is none: it is spelled)
            body = {}
        elif not engine_data:  # Plain: nothing but plain text parts and the builder's own fields, strings checked
            body = printers.Plain() if plain else printers.FloatFree()
        else:
            body = {} if printers.holds_float(engine_data) else printers.FloatFree()
        if chunk.block_reason is None:
            body["candidates"] = candidates
        else:
            feedback: dict[str, Any] = {"blockReason": chunk.block_reason}
            if chunk.safety_ratings:
                feedback["safetyRatings"] = chunk.safety_ratings
            body["promptFeedback"] = feedback
        if vertex:
            if stream and not final:
                body["usageMetadata"] = {"trafficType": TRAFFIC_TYPE}
            elif extra is not None:
                body["usageMetadata"] = self.usage.vertex(extra[0], extra[1])
            else:
                body["usageMetadata"] = _override(self.usage.vertex(), given, VERTEX_USAGE_ORDER)
            body["modelVersion"] = self.model_version
            body["createTime"] = self._ctime
        else:
            if extra is not None:
                body["usageMetadata"] = self.usage.developer(extra[0], extra[1])
            else:
                body["usageMetadata"] = _override(self.usage.developer(), given, DEVELOPER_USAGE_ORDER)
            body["modelVersion"] = self.model_version
        body["responseId"] = self._rid
        return body

    def _text_body(
        self, chunk: Chunk, extra: tuple[int, int], vertex: bool, stream: bool, final: bool
    ) -> dict[str, Any] | None:
        """`build`'s body, laid out directly, for the usual chunk: one candidate of text parts (plain, or with a
        thought flag or signature, in production's order), with no finish details but its reason, and a usage
        override `_extra_counts` took. None, with nothing counted, for any other part: `build` then lays the chunk out
        in full."""
        plain = self._plain_model  # a printers.Plain body, so far
        colons = vertex or self._colon_model  # whether a string of the body may hold a ":" (createTime does)
        given = chunk.parts
        if len(given) == 1 and len(part := given[0]) == 1 and type(text := part.get("text")) is str:
            # the usual chunk, one plain text part: the loop below, unrolled
            parts = [part]
            self.usage.candidates += tokens.count_text(text)
            if plain:
                plain = printers.plain_string(text)
                colons = colons or ":" in text
        else:
            parts = []
            text_tokens = 0
            for part in given:
                if len(part) == 1:
                    text = part.get("text")
                    if type(text) is not str:
                        return None
                    parts.append(part)
                    text_tokens += tokens.count_text(text)
                    plain = plain and printers.plain_string(text)
                    colons = colons or ":" in text
                elif tuple(part) in _TEXT_LAYOUTS:
                    text, thought = part["text"], part.get("thought", False)
                    signature = part.get("thoughtSignature", "")
                    if type(text) is not str or type(thought) is not bool or type(signature) is not str:
                        return None
                    parts.append(dict(part))  # a copy, as order_part makes
                    if not thought:  # thought summaries: counted by the engine in thoughtsTokenCount
                        text_tokens += tokens.count_text(text)
                    plain = plain and printers.plain_string(text) and printers.plain_string(signature)
                    colons = colons or ":" in text or ":" in signature
                else:
                    return None
            self.usage.candidates += text_tokens
        reason = chunk.finish_reason
        candidate: dict[str, Any]
        if vertex:
            candidate = {"content": {"role": "model", "parts": parts}} if parts else {}
        else:
            candidate = {"content": {"parts": parts, "role": "model"} if parts else {"role": "model"}}
        if reason:
            candidate["finishReason"] = reason
            if vertex and not stream and not self.server_tools:  # after finishReason, as _with_avg_logprobs puts it
                candidate["avgLogprobs"] = printers.double(avg_logprobs(self.fingerprint, chunk.index))
        if not vertex:
            candidate["index"] = chunk.index
            plain = plain and type(chunk.index) is int
        plain = plain and (reason is None or (type(reason) is str and printers.plain_string(reason)))
        body: dict[str, Any]
        if plain:
            body = printers.Plain() if colons or ":" in (reason or "") else printers.ColonFree()
        elif vertex and not stream and not (reason is None or type(reason) is str):
            body = {}  # as `build` lays out a Vertex unary body with anything unexpected: searched for a float
        else:
            body = printers.FloatFree()
        body["candidates"] = [candidate]
        if vertex:
            if stream and not final:
                body["usageMetadata"] = {"trafficType": TRAFFIC_TYPE}
            else:  # extra's two counts as two arguments (an unpacked call costs more)
                body["usageMetadata"] = self.usage.vertex(extra[0], extra[1])
            body["modelVersion"] = self.model_version
            body["createTime"] = self._ctime
        else:
            body["usageMetadata"] = self.usage.developer(extra[0], extra[1])
            body["modelVersion"] = self.model_version
        body["responseId"] = self._rid
        return body

    def _counted(self, parts: list[dict[str, Any]], engine_data: list[Any]) -> tuple[list[dict[str, Any]], bool]:
        """`parts` in production's key order, their tokens added to the usage (thought summaries are counted by the
        engine in thoughtsTokenCount, not as candidate tokens), and whether every one is a plain text part whose
        text is _plain. The parts that are not plain text go into `engine_data` (a plain `{"text": ...}` holds no
        float, and is already in order)."""
        ordered = []
        text_tokens = 0
        media = []
        plain = True
        for part in parts:
            if len(part) == 1 and type(text := part.get("text")) is str:
                ordered.append(part)
                text_tokens += tokens.count_text(text)
                plain = plain and printers.plain_string(text)
                continue
            part = order_part(part)
            ordered.append(part)
            engine_data.append(part)
            if not part.get("thought"):
                text_tokens += tokens.count_parts((part,))[0]
                if isinstance(part.get("inlineData"), dict):
                    media.append(part["inlineData"])
        self.usage.candidates += text_tokens
        for blob in media:  # once every part is counted (a part that cannot be counted fails the answer first)
            self._count_media(blob)
        return ordered, plain and not media

    def _count_media(self, blob: dict[str, Any]) -> None:
        """A generated image or sound's tokens, by modality: an image by its longer side (its PNG or JPEG
        header, in the first KiB), audio by its length at 24 kHz 16-bit (AUDIO_TOKENS_PER_SECOND)."""
        mime = str(blob.get("mimeType") or "")
        data = blob.get("data")
        if not isinstance(data, str):
            return
        modality = mime.split("/", 1)[0].upper()
        if modality == "IMAGE":
            cost = self.image_cost(self.model_version, _image_side(data))
        elif modality == "AUDIO":
            seconds = len(data) * 3 // 4 / (24_000 * 2)
            cost = max(1, round(seconds * AUDIO_TOKENS_PER_SECOND))
        elif modality == "VIDEO":
            cost = IMAGE_OUTPUT_TOKENS
        else:
            return
        self.usage.candidates_media[modality] = self.usage.candidates_media.get(modality, 0) + cost

    @staticmethod
    def _candidate(chunk: Chunk, parts: list[dict[str, Any]], vertex: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {}
        if parts:
            candidate["content"] = {"role": "model", "parts": parts} if vertex else {"parts": parts, "role": "model"}
        elif not vertex:
            candidate["content"] = {"role": "model"}
        if chunk.finish_reason:
            candidate["finishReason"] = chunk.finish_reason
        if chunk.safety_ratings:
            candidate["safetyRatings"] = chunk.safety_ratings
        if not vertex:
            candidate["index"] = chunk.index
        if chunk.grounding:  # groundingMetadata, urlContextMetadata: after index (wire-facts §4)
            candidate.update(chunk.grounding)
        if chunk.finish_message:
            candidate["finishMessage"] = chunk.finish_message
        return candidate


IMAGE_OUTPUT_TOKENS = 1290  # a 1024x1024 image of Gemini 2.5 Flash Image (the image-generation guide)
AUDIO_TOKENS_PER_SECOND = 25  # speech output (best-known, docs/conformance.md)


def _image_side(data: str) -> int:
    """The longer side of a base64 PNG or JPEG, from its header within the first KiB (1024 for anything else)."""
    try:
        head = base64.b64decode(data[:1368] + "=" * (-len(data[:1368]) % 4))
    except (binascii.Error, ValueError):
        return 1024
    size = images.image_size(head)
    return max(size) if size else 1024


def server_tools(tools: Any) -> bool:
    """Whether a request's tools enable a server-side tool: any tool entry that is not function declarations."""
    if not tools:
        return False
    if isinstance(tools, dict):
        tools = [tools]
    if not isinstance(tools, list):
        return False
    return any(isinstance(t, dict) and t.keys() - _FUNCTIONS for t in tools)


_FUNCTIONS = frozenset(("functionDeclarations", "function_declarations"))


def avg_logprobs(fingerprint: str, index: int = 0) -> float:
    """A deterministic average log-probability in production's usual range (-0.05 .. -2.05)."""
    digest = hashlib.sha256(f"lp:{fingerprint}:{index}".encode()).digest()
    return -(0.05 + int.from_bytes(digest[:6], "big") / 2**48 * 2)


def _with_avg_logprobs(candidate: dict[str, Any], fingerprint: str, index: int) -> dict[str, Any]:
    """The candidate with avgLogprobs after finishReason (the verbatim Firebase Vertex unary fixture's order), spelled
    as the printers spell a float (printers.double): the body need not be searched for it."""
    out: dict[str, Any] = {}
    for key, value in candidate.items():
        out[key] = value
        if key == "finishReason":
            out["avgLogprobs"] = printers.double(avg_logprobs(fingerprint, index))
    return out


# usageMetadata key orders (wire-facts §4; Vertex from the CRLF Firebase fixtures).
DEVELOPER_USAGE_ORDER = (
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "promptTokensDetails",
    "cacheTokensDetails",
    "candidatesTokensDetails",
    "toolUsePromptTokenCount",
    "toolUsePromptTokensDetails",
    "thoughtsTokenCount",
    "serviceTier",
)
VERTEX_USAGE_ORDER = (
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "trafficType",
    "promptTokensDetails",
    "cacheTokensDetails",
    "candidatesTokensDetails",
    "toolUsePromptTokensDetails",
    "toolUsePromptTokenCount",
    "thoughtsTokenCount",
)


_NO_EXTRA = (0, 0)
# The keys of a text part with a thought flag or signature, in production's order (order_part leaves them so).
_TEXT_LAYOUTS = frozenset((("text", "thought"), ("text", "thoughtSignature"), ("text", "thought", "thoughtSignature")))
_EXTRA_KEYS = frozenset(("thoughtsTokenCount", "toolUsePromptTokenCount"))


def _plain(value: Any) -> bool:
    """Whether an engine's value (a finish reason, the model version) may go in a printers.Plain body."""
    return value is None or (type(value) is str and printers.plain_string(value))


_MODEL_TRAITS: dict[str, tuple[bool, bool]] = {}


def _model_traits(model_version: Any) -> tuple[bool, bool]:
    """(whether the model version may go in a printers.Plain body, whether it holds a ":"), kept for a str (a
    bounded table: the catalogue's models and the few an engine serves)."""
    traits = (_plain(model_version), ":" in str(model_version))
    if type(model_version) is str:
        if len(_MODEL_TRAITS) >= 256:
            _MODEL_TRAITS.clear()
        _MODEL_TRAITS[model_version] = traits
    return traits


def _extra_counts(given: dict[str, Any]) -> tuple[int, int] | None:
    """(thoughtsTokenCount, toolUsePromptTokenCount) when `given` (a chunk's usage) holds those ints and nothing
    else, the engines' usual override: `Usage.developer`/`vertex` then lay them out with no `_override`. None for
    anything else (which `_override` lays over the computed usage)."""
    if len(given) == 1 and type(thoughts := given.get("thoughtsTokenCount")) is int:
        return thoughts, 0  # the usual override (a thinking model's zero-config answer): the test below, at once
    if given.keys() <= _EXTRA_KEYS:
        thoughts = given.get("thoughtsTokenCount", 0)
        tool_use = given.get("toolUsePromptTokenCount", 0)
        if type(thoughts) is int and type(tool_use) is int:
            return thoughts, tool_use
    return None


def _override(usage: dict[str, Any], given: dict[str, Any] | None, order: tuple[str, ...]) -> dict[str, Any]:
    """Computed usage with a script's fields laid over it, in production's order; the total is recomputed
    from its parts unless given (wire-facts §6.4: prompt + candidates + thoughts + tool use)."""
    if not given:
        return usage
    merged = usage | given
    if "totalTokenCount" not in given:
        get = merged.get
        merged["totalTokenCount"] = (
            int(get("promptTokenCount") or 0)
            + int(get("candidatesTokenCount") or 0)
            + int(get("thoughtsTokenCount") or 0)
            + int(get("toolUsePromptTokenCount") or 0)
        )
    return _ordered(merged, order)


_LAYOUTS: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _ordered(values: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """`values` in production's key order, unknown keys last; zero counts and absent values omitted, as
    proto3 JSON omits them (wire-facts §6: no candidatesTokenCount before any candidate token). Answers repeat
    a few key sets: each set's layout is worked out once."""
    given = tuple(values)
    layout = _LAYOUTS.get((given, order))
    if layout is None:
        named = frozenset(order)
        layout = (tuple(k for k in order if k in values), tuple(k for k in given if k not in named))
        if len(_LAYOUTS) >= 1024:
            _LAYOUTS.clear()
        _LAYOUTS[(given, order)] = layout
    known, unknown = layout
    out = {}
    for key in known:
        value = values[key]
        if value is not None and value != 0:
            out[key] = value
    for key in unknown:  # keys production's order does not name (rare): last, as given, zeros kept
        out[key] = values[key]
    return out


def count_tokens(backend: str, usage: Usage) -> dict[str, Any]:
    """countTokens body: Developer {totalTokens, promptTokensDetails}; Vertex adds billable characters."""
    out: dict[str, Any] = {"totalTokens": usage.prompt}
    if backend == VERTEX:
        out["totalBillableCharacters"] = usage.billable_chars
    if usage.cached:
        out["cachedContentTokenCount"] = usage.cached
    out["promptTokensDetails"] = tokens.modality_details(usage.prompt_text, usage.prompt_media)
    if usage.cached:
        out["cacheTokensDetails"] = tokens.modality_details(usage.cached_text, usage.cached_media)
    return out


def model_list(models: list[dict[str, Any]], page_size: int, page_token: str) -> dict[str, Any]:
    """ListModels page: {models, nextPageToken?}; the token is the next offset, opaque to callers."""
    start = _decode_token(page_token)
    page = models[start : start + page_size]
    out: dict[str, Any] = {"models": page}
    if start + page_size < len(models):
        out["nextPageToken"] = base64.urlsafe_b64encode(str(start + page_size).encode()).decode()
    return out


def _decode_token(token: str) -> int:
    if not token:
        return 0
    try:
        return max(0, int(base64.urlsafe_b64decode(token.encode()).decode()))
    except (ValueError, UnicodeDecodeError):
        return -1


def valid_page_token(token: str) -> bool:
    return _decode_token(token) >= 0


def vertex_model_list(models: list[dict[str, Any]]) -> dict[str, Any]:
    """Vertex publisher model list: names only (see docs/conformance.md)."""
    return {
        "publisherModels": [{"name": "publishers/google/models/" + m["name"].removeprefix("models/")} for m in models]
    }
