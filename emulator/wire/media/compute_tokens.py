"""Vertex AI `computeTokens`: each content's tokens and token ids, consistent with countTokens.

Production's answer (googleapis/js-genai recording Client_Tests_computeTokens_Vertex_AI_*, captures
count-tokens/vertex-compute-tokens): `{"tokensInfo": [{"role", "tokenIds": ["651", ...], "tokens": ["VGhl", ...]}]}`,
one entry per content, token ids as int64 strings, each token's text base64 with its leading space. The emulator
cuts the text with the token estimator's own pieces (gemini_emulator.protocol.tokens), so a text's tokens number
what countTokens counts for it; ids are a digest of the piece in production's vocabulary range. Only text parts
have tokens here (countTokens' flat cost of a media part has no pieces to list).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from gemini_emulator.protocol import tokens

VOCABULARY = 256_000  # Gemma/Gemini's vocabulary size: ids stay below it


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


def token_id(piece: str) -> int:
    """A stable id for a token's text."""
    return int.from_bytes(hashlib.blake2b(piece.encode(), digest_size=4).digest(), "big") % VOCABULARY
