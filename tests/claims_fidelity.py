"""Claims of issue 30: files, batches, request bodies, Vertex Gemini 3."""

from __future__ import annotations

from claim_type import Claim

FIDELITY_CLAIMS: list[Claim] = []
