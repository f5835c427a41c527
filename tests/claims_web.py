"""Claims of issue 32: web pages, CORS, Firebase AI Logic."""

from __future__ import annotations

from claim_type import Claim

WEB_CLAIMS: list[Claim] = []
