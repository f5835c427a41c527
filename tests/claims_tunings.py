"""Claims of issue 30: tunings."""

from __future__ import annotations

from claim_type import Claim

TUNING_CLAIMS: list[Claim] = []
