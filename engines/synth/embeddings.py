"""Deterministic embeddings: unit vectors from a hashed bag of words (a sparse random projection).

Each word (lowercased, 2+ letters or digits) adds +/-1 at a few hash-chosen dimensions; the sum is scaled
to length 1. The same text always gives the same vector, and texts that share words are closer (by
cosine) than texts that share none. No model, no network.
"""

from __future__ import annotations

import hashlib
import math
import re

from gemini_emulator.protocol.limits import MAX_EMBEDDING_DIMENSIONS

_WORD = re.compile(r"[a-z0-9]{2,}")
SLOTS = 8  # dimensions each word touches
MAX_DIMENSIONS = MAX_EMBEDDING_DIMENSIONS  # the wire refuses more; a direct caller gets at most this
DEFAULT_DIMENSIONS = {"gemini-embedding-001": 3072, "gemini-embedding-2": 3072, "text-embedding-004": 768}


def dimensions(model: str, requested: object) -> int:
    """outputDimensionality when given (a positive whole number), else the model's native size."""
    if isinstance(requested, int) and not isinstance(requested, bool) and requested > 0:
        return min(requested, MAX_DIMENSIONS)
    return DEFAULT_DIMENSIONS.get(model, 3072)


def embed(text: str, size: int) -> list[float]:
    vector = [0.0] * size
    words = _WORD.findall(text.lower()) or ["<empty>"]
    for word in words:
        digest = hashlib.blake2b(word.encode(), digest_size=4 * SLOTS).digest()
        for slot in range(SLOTS):
            chunk = int.from_bytes(digest[4 * slot : 4 * slot + 4], "big")
            vector[chunk % size] += 1.0 if chunk & 0x80000000 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [round(v / norm, 8) for v in vector]
