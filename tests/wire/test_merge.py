"""The one-chunk shortcut of handlers.merge (a unary answer's chunks as one per candidate) against the full merge."""

from __future__ import annotations

import pytest

from gemini_emulator.seam import DROP, Chunk, Fault
from gemini_emulator.wire import handlers

ONE_CHUNK = {
    "text": Chunk(parts=[{"text": "hi"}]),
    "finished": Chunk(parts=[{"text": "hi", "thoughtSignature": "s"}], finish_reason="MAX_TOKENS"),
    "no parts": Chunk(),
    "blocked": Chunk(block_reason="SAFETY", safety_ratings=[{"category": "X"}]),
    "everything": Chunk(
        parts=[{"functionCall": {"name": "f"}}],
        finish_reason="STOP",
        finish_message="m",
        safety_ratings=[{"category": "X"}],
        usage={"thoughtsTokenCount": 3},
        index=2,
        grounding={"groundingMetadata": {}},
        fault=Fault(DROP, at_byte=3),
        headers={"x-gemini-service-tier": "priority"},
        live={"goAway": {}},
    ),
    "dropped": Chunk(fault=Fault(DROP)),
}


@pytest.mark.parametrize("name", list(ONE_CHUNK))
def test_the_one_chunk_shortcut_merges_as_the_full_merge(name: str) -> None:
    chunk = ONE_CHUNK[name]
    fast, full = handlers.merge([chunk]), handlers.merge_all([chunk])
    assert fast == full
    assert fast[0].parts is not chunk.parts and all(a is not b for a, b in zip(fast[0].parts, chunk.parts, strict=True))
