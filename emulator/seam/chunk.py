"""What an engine yields: pieces of the answer, and the wire faults an engine can ask for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Wire faults an engine can ask for (emulator/wire/faults.py carries them out; engines never touch sockets).
DROP = "drop"  # close the connection abruptly: no further bytes, no clean end of the body
TRUNCATE = "truncate"  # send this chunk's event cut short, then end the body normally
FAULT_KINDS = frozenset({DROP, TRUNCATE})


@dataclass(frozen=True, slots=True)
class Fault:
    """A break in the wire at one chunk, as plain data: the engine says where, the wire carries it out.

    DROP without `at_byte`: nothing of this chunk (nor after it) is sent, and the connection closes with no
    clean end of the body (a unary answer: before any byte of the body). DROP with `at_byte`: the body is sent
    up to that many bytes in all (a shorter one whole), then the connection closes. TRUNCATE: this chunk's bytes
    go out cut in half (a unary answer: the first half of the body), and the body ends there, normally.
    """

    kind: str  # DROP or TRUNCATE
    at_byte: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"a Fault is one of {sorted(FAULT_KINDS)}, not {self.kind!r}")
        if self.at_byte is not None and (self.kind != DROP or self.at_byte < 0):
            raise ValueError("at_byte goes with DROP and counts bytes, 0 or more")

    @property
    def before_chunk(self) -> bool:
        """True when nothing of the chunk carrying it is sent (DROP without `at_byte`): the answer ends there."""
        return self.kind == DROP and self.at_byte is None


@dataclass
class Chunk:
    """One piece of the answer: new parts (Gemini part dicts) and, on the last piece, how it ended.

    `raw` replaces everything else with a whole GenerateContentResponse object, served as is.
    `fault` breaks the wire at this chunk (see Fault).
    `headers` (first chunk) are the answer's own response headers, e.g. a recording's: the wire takes those it
    lets an engine decide (`X-Gemini-Service-Tier`: sent as given, or not at all when left out) and keeps its
    say over the rest (content type, framing); None leaves them all to the wire.
    `live` (first chunk) holds what a Live API turn says beyond its parts (a script entry's `live` object:
    transcriptions, audio, interruption, goAway, tool-call cancellation); other surfaces ignore it.
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
    fault: Fault | None = None
    headers: dict[str, str] | None = None
    live: dict[str, Any] | None = None

    @staticmethod
    def of_text(text: str, usage: dict[str, Any] | None = None, index: int = 0) -> Chunk:
        """`Chunk(parts=[{"text": text}], usage=usage, index=index)` at two thirds of the cost, for engines that
        answer text piece by piece: CPython calls a class with keyword arguments by way of a dict of them, then its
        __init__ as a bound method (~5,000 instructions for a Chunk); this sets the fields directly
        (tests/engines/test_engine_seam.py holds it equal to the constructor's Chunk, field by field)."""
        chunk = _new(Chunk)
        chunk.parts = [{"text": text}]
        chunk.finish_reason = None
        chunk.finish_message = None
        chunk.safety_ratings = None
        chunk.block_reason = None
        chunk.usage = usage
        chunk.raw = None
        chunk.index = index
        chunk.grounding = None
        chunk.fault = None
        chunk.headers = None
        chunk.live = None
        return chunk


_new = object.__new__
