"""Function calls as production writes them: minted call ids and thought signatures, the finishMessage of a turn
that ended in calls, and whether a request's last turn answers calls. Shared by every engine that answers with
calls (scripted entries, the zero-config answer, the openai engine)."""

from __future__ import annotations

import base64
import hashlib

from gemini_emulator.seam import GenerateRequest

# How production words a turn that ended in calls (google-adk-go traces, 2026).
FUNCTION_CALL_MESSAGE = "Model generated function call(s)."
_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def function_call_message(request: GenerateRequest) -> str | None:
    """finishMessage for a function-call turn: 2026 traces carry it on unary answers of every model and on
    gemini-2.5 streams, but not on Gemini 3 streams (google-adk-go: 27/27 2.5 unary, 2/3 2.5 SSE,
    0/6 Gemini 3 SSE, 30/41 Gemini 3.5 unary). Vertex never sends it for a call: 0 of 60 Vertex function-call
    answers ending STOP in the pydantic-ai VCR recordings (2026-02..07; its 5 Vertex finishMessages all word an
    UNEXPECTED_TOOL_CALL or a MODEL_ARMOR block), none in js-genai's or Firebase's Vertex captures."""
    if request.backend == "vertex":
        return None
    if request.stream and request.model.startswith("gemini-3"):
        return None
    return FUNCTION_CALL_MESSAGE


def mint_call_id(seed: str) -> str:
    """8 characters of [a-z0-9], like production's functionCall ids (e.g. "gzbp0yzp")."""
    digest = hashlib.sha256(("id:" + seed).encode()).digest()
    return "".join(_ID_ALPHABET[b % 36] for b in digest[:8])


def mint_signature(seed: str) -> str:
    """An opaque base64 thoughtSignature; clients only echo it back."""
    digest = hashlib.sha256(("sig:" + seed).encode()).digest()
    return base64.b64encode(b"\x12" + digest * 2).decode()


def has_function_response(request: GenerateRequest) -> bool:
    """Whether the last turn carries a functionResponse part (the caller answering the model's calls)."""
    last = request.contents[-1] if request.contents else {}
    parts = last.get("parts") or [] if isinstance(last, dict) else []
    for part in parts:  # a loop, not any() over a generator: cheaper for the usual one part
        if isinstance(part, dict) and "functionResponse" in part:
            return True
    return False
