"""Response bodies as data, in production's key order for each backend. [wire-facts §4, §5.1, §6, §8]

Engines say *what* the model answered (parts, finish reason); this module says how production lays
it out: which keys, in which order, per backend. The printers then turn these dicts into bytes.

Developer API (byte-exact adk-go traces, 2026): response candidates, promptFeedback, usageMetadata,
modelVersion, responseId; candidate content{parts, role}, finishReason, index, finishMessage;
usage promptTokenCount, candidatesTokenCount, totalTokenCount, promptTokensDetails,
thoughtsTokenCount, serviceTier.
Vertex AI (verbatim CRLF Firebase fixtures, js-genai recordings): response candidates,
usageMetadata, modelVersion, createTime, responseId; content{role, parts}; no candidate index;
streamed chunks carry usageMetadata {trafficType} until the last one.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from emulator import tokens
from emulator.routes import VERTEX

SERVICE_TIER = "standard"  # Developer API usageMetadata.serviceTier and X-Gemini-Service-Tier header
TRAFFIC_TYPE = "ON_DEMAND"  # Vertex usageMetadata.trafficType
# Deterministic clock for Vertex createTime: same request, same bytes (see docs/conformance.md).
CLOCK_BASE = datetime(2026, 1, 1, tzinfo=UTC)

# Part keys: the data member first, then thought, then thoughtSignature. [wire-facts §4]
_PART_TAIL = ("thought", "thoughtSignature")
_CALL_ORDER = ("name", "args", "id")


def response_id(fingerprint: str) -> str:
    """22 URL-safe characters, like production's, derived from the request."""
    digest = hashlib.sha256(("rid:" + fingerprint).encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:22]


def create_time(fingerprint: str) -> str:
    """RFC 3339 with microseconds, as Vertex prints it; derived from the request, not the wall clock."""
    micros = int(hashlib.sha256(("ct:" + fingerprint).encode()).hexdigest()[:12], 16) % 86_400_000_000
    stamp = CLOCK_BASE + timedelta(microseconds=micros)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def order_part(part: dict[str, Any]) -> dict[str, Any]:
    """A part in production's key order (engines may build parts in any order)."""
    if len(part) == 1:
        return part
    head = {k: v for k, v in part.items() if k not in _PART_TAIL}
    call = head.get("functionCall")
    if isinstance(call, dict):
        head["functionCall"] = {k: call[k] for k in _CALL_ORDER if k in call} | {
            k: v for k, v in call.items() if k not in _CALL_ORDER
        }
    return head | {k: part[k] for k in _PART_TAIL if k in part}


@dataclass
class Usage:
    """Token counts for one response; `candidates` grows as chunks stream out."""

    prompt_text: int
    prompt_media: int = 0
    candidates: int = 0
    billable_chars: int = 0
    details: list[dict[str, Any]] = field(default_factory=list)

    @property
    def prompt(self) -> int:
        return self.prompt_text + self.prompt_media

    def developer(self) -> dict[str, Any]:
        out: dict[str, Any] = {"promptTokenCount": self.prompt}
        if self.candidates:
            out["candidatesTokenCount"] = self.candidates
        out["totalTokenCount"] = self.prompt + self.candidates
        out["promptTokensDetails"] = tokens.modality_details(self.prompt_text, self.prompt_media)
        out["serviceTier"] = SERVICE_TIER
        return out

    def vertex(self) -> dict[str, Any]:
        out: dict[str, Any] = {"promptTokenCount": self.prompt}
        if self.candidates:
            out["candidatesTokenCount"] = self.candidates
        out["totalTokenCount"] = self.prompt + self.candidates
        out["trafficType"] = TRAFFIC_TYPE
        out["promptTokensDetails"] = tokens.modality_details(self.prompt_text, self.prompt_media)
        if self.candidates:
            out["candidatesTokensDetails"] = [{"modality": "TEXT", "tokenCount": self.candidates}]
        return out


@dataclass
class ResponseBuilder:
    """Builds each GenerateContentResponse of one answer (one for unary, one per chunk streamed)."""

    backend: str
    model_version: str
    fingerprint: str
    usage: Usage
    _rid: str = ""
    _ctime: str = ""
    _sent: int = 0

    def __post_init__(self) -> None:
        self._rid = response_id(self.fingerprint)
        if self.backend == VERTEX:
            self._ctime = create_time(self.fingerprint)

    def build(
        self,
        parts: list[dict[str, Any]],
        finish_reason: str | None,
        finish_message: str | None,
        final: bool,
        stream: bool,
    ) -> dict[str, Any]:
        vertex = self.backend == VERTEX
        ordered = [order_part(p) for p in parts]
        self.usage.candidates += tokens.count_parts(ordered)[0]
        candidate: dict[str, Any] = {}
        if ordered:
            candidate["content"] = (
                {"role": "model", "parts": ordered} if vertex else {"parts": ordered, "role": "model"}
            )
        elif not vertex:
            candidate["content"] = {"role": "model"}
        if finish_reason:
            candidate["finishReason"] = finish_reason
        if not vertex:
            candidate["index"] = 0
        if finish_message:
            candidate["finishMessage"] = finish_message
        body: dict[str, Any] = {"candidates": [candidate]}
        if vertex:
            if stream and not final:
                usage: dict[str, Any] = {"trafficType": TRAFFIC_TYPE}
            else:
                usage = self.usage.vertex()
            if self._sent == 0 and self.usage.billable_chars:
                usage["billablePromptUsage"] = {"textCount": self.usage.billable_chars}
            body["usageMetadata"] = usage
            body["modelVersion"] = self.model_version
            body["createTime"] = self._ctime
        else:
            body["usageMetadata"] = self.usage.developer()
            body["modelVersion"] = self.model_version
        body["responseId"] = self._rid
        self._sent += 1
        return body


def count_tokens(backend: str, usage: Usage) -> dict[str, Any]:
    """countTokens body: Developer {totalTokens, promptTokensDetails}; Vertex adds billable characters."""
    out: dict[str, Any] = {"totalTokens": usage.prompt}
    if backend == VERTEX:
        out["totalBillableCharacters"] = usage.billable_chars
    out["promptTokensDetails"] = tokens.modality_details(usage.prompt_text, usage.prompt_media)
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
