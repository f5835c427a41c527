"""Claims of issue 30: the catalogue, Live modalities."""

from __future__ import annotations

from claim_type import Claim

CATALOGUE_CLAIMS: list[Claim] = []
