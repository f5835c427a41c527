"""The structural facts a recorded response evidences, computed from its bytes.

Facts are what the golden tests hold the emulator's own answers to: how the body is framed, which keys
each object has and in which order, which chunks carry usageMetadata, where finishReason goes, whether
responseId stays the same, how enums are spelled, and the error envelope's shape. They are computed, never
typed by hand, so a capture file's facts always agree with its bytes (tests/captures/test_captures.py checks it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from gemini_emulator.captures.format import CaptureError, Response

# Where in a GenerateContentResponse key orders are recorded, and how to reach those objects.
LOCATIONS = ("response", "candidate", "content", "part", "functionCall", "usageMetadata", "promptFeedback")


def merged_order(key_lists: Iterable[Iterable[str]]) -> list[str]:
    """One key order consistent with every list (first appearance wins; a new key goes right after the key
    that precedes it in its own list)."""
    merged: list[str] = []
    for keys in key_lists:
        previous: str | None = None
        for key in keys:
            if key not in merged:
                merged.insert(merged.index(previous) + 1 if previous is not None else len(merged), key)
            previous = key
    return merged


def _objects(chunk: dict[str, Any], location: str) -> Iterator[dict[str, Any]]:
    if location == "response":
        yield chunk
        return
    if location in ("usageMetadata", "promptFeedback"):
        if isinstance(chunk.get(location), dict):
            yield chunk[location]
        return
    for candidate in chunk.get("candidates") or []:
        if location == "candidate":
            yield candidate
            continue
        content = candidate.get("content")
        if not isinstance(content, dict):
            continue
        if location == "content":
            yield content
            continue
        for part in content.get("parts") or []:
            if location == "part":
                yield part
            elif isinstance(part.get("functionCall"), dict):
                yield part["functionCall"]


def _placement(flags: list[bool]) -> str:
    """Which chunks carry something: every-chunk, final-chunk-only, absent, or the chunk numbers (a lone
    chunk is only-chunk: it cannot tell every chunk from the final one)."""
    if len(flags) == 1:
        return "only-chunk" if flags[0] else "absent"
    if all(flags):
        return "every-chunk"
    if not any(flags):
        return "absent"
    if flags[-1] and not any(flags[:-1]):
        return "final-chunk-only"
    return "chunks " + ",".join(str(i) for i, f in enumerate(flags) if f)


def _error_facts(error: Any) -> dict[str, Any]:
    envelope = error.envelope()["error"]
    return {
        "code": error.code,
        "status": error.status,
        "keys": list(envelope),
        "detailTypes": [d.get("@type", "").rsplit(".", 1)[-1] for d in error.details],
    }


def facts(response: Response) -> dict[str, Any]:
    """The facts of one recorded response (see the module docstring)."""
    out: dict[str, Any] = {"framing": response.framing, "contentType": response.content_type}
    try:
        answer = response.answer()
    except CaptureError:
        return out
    chunks = answer.chunks
    if answer.error is not None:
        out["errorTail" if chunks else "error"] = _error_facts(answer.error)
    if not chunks:
        return out
    out["chunks"] = len(chunks)
    keys: dict[str, list[str]] = {}
    for location in LOCATIONS:
        order = merged_order(list(obj) for chunk in chunks for obj in _objects(chunk, location))
        if order:
            keys[location] = order
    out["keys"] = keys
    finish = [any("finishReason" in c for c in chunk.get("candidates") or []) for chunk in chunks]
    out["finishReason"] = _placement(finish)
    out["usageMetadata"] = _placement(["usageMetadata" in chunk for chunk in chunks])
    if len(chunks) > 1 and all("usageMetadata" in chunk for chunk in chunks[:-1]):
        out["interimUsageKeys"] = merged_order(list(chunk["usageMetadata"]) for chunk in chunks[:-1])
    out["modelVersion"] = _placement(["modelVersion" in chunk for chunk in chunks])
    ids = {chunk.get("responseId") for chunk in chunks}
    out["responseId"] = "absent" if ids == {None} else "same-on-every-chunk" if len(ids) == 1 else "varies"
    reasons = [c["finishReason"] for chunk in chunks for c in chunk.get("candidates") or [] if "finishReason" in c]
    if reasons:
        out["enums"] = "numbers" if isinstance(reasons[-1], int) else "names"
    return out
