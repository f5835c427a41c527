"""What an engine yields: pieces of the answer, and the wire faults an engine can ask for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
