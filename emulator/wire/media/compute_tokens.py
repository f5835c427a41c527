"""Vertex AI `computeTokens`: each content's tokens and token ids, consistent with countTokens.

Production's answer (googleapis/js-genai recording Client_Tests_computeTokens_Vertex_AI_*, captures
count-tokens/vertex-compute-tokens): `{"tokensInfo": [{"role", "tokenIds": ["651", ...], "tokens": ["VGhl", ...]}]}`,
one entry per content, token ids as int64 strings, each token's text base64 with its leading space. The emulator
cuts the text with the token estimator's own pieces (gemini_emulator.protocol.tokens), so a text's tokens number
what countTokens counts for it; ids are a digest of the piece in production's vocabulary range. Only text parts
have tokens here (countTokens' flat cost of a media part has no pieces to list).

An answer is ~16 bytes of JSON a token, so the text's tokens are counted first and past the model's
inputTokenLimit the call is refused (`check_size`); what is listed is built and printed off the event loop
(`printed`, run by the handler in a worker thread).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from gemini_emulator.protocol import errors, printers, tokens

VOCABULARY = 256_000  # Gemma/Gemini's vocabulary size: ids stay below it
DEFAULT_LIMIT = 1_048_576  # the inputTokenLimit of a model the catalogue does not list (Gemini 2.5's)


def answer(contents: list[dict[str, Any]]) -> dict[str, Any]:
    """The ComputeTokensResponse for validated `contents`."""
    info = []
    for content in contents:
        pieces: list[str] = []
        for part in content.get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces += tokens.pieces(part["text"])
        entry: dict[str, Any] = {"role": content.get("role") or "user"}
        entry["tokenIds"] = [str(token_id(p)) for p in pieces]
        entry["tokens"] = [base64.b64encode(p.encode()).decode() for p in pieces]
        info.append(entry)
    return {"tokensInfo": info}


def check_size(contents: list[dict[str, Any]], limit: int) -> None:
    """Production's 400 when the contents' text holds more tokens than the model reads (best-known wording)."""
    count = 0
    for content in contents:
        for part in content.get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                count += tokens.count_text(part["text"])
    if count > limit:
        raise errors.invalid_argument(
            f"The input token count ({count}) exceeds the maximum number of tokens allowed ({limit})."
        )


def printed(contents: list[dict[str, Any]]) -> bytes:
    """The answer as the wire prints it (a worker thread's job: a long text takes seconds)."""
    return printers.pretty(answer(contents))


def token_id(piece: str) -> int:
    """A stable id for a token's text."""
    return int.from_bytes(hashlib.blake2b(piece.encode(), digest_size=4).digest(), "big") % VOCABULARY
