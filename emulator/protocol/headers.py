"""Response headers production sends on every API answer. [wire-facts §3]"""

from __future__ import annotations

BASE_HEADERS: dict[str, str] = {
    "vary": "Origin, X-Origin, Referer",
    "server": "scaffolding on HTTPServer2",
    "x-xss-protection": "0",
    "x-frame-options": "SAMEORIGIN",
    "x-content-type-options": "nosniff",
}
# Developer API generateContent answers since 2026 (google-adk-go TestDelegation_*.httprr).
SERVICE_TIER_HEADER = "x-gemini-service-tier"
