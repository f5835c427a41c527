"""The Claim record (tests/claims.py has the claims and what they mean); its own module so that the claim lists of
each surface (claims_*.py) can import it without importing claims.py."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    id: str
    endpoint: str
    behaviour: str
    tests: tuple[str, ...]
    evidence: tuple[str, ...] = ()  # capture names or globs under captures/
    source: str = ""  # when no capture shows it: where the fact comes from
    divergence: str = ""
    not_yet: str = ""
    live: str = ""
