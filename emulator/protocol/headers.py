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

# What the emulator adds to stored bytes it serves back (files `:download?alt=media`, file search `downloadMedia`):
# a caller chooses both the bytes and the mime type, so a cross-site upload of `text/html` or `image/svg+xml` must
# never run as a page on this origin, where the admin API is same-origin. A deliberate divergence: no capture shows
# production's download headers (docs/security.md, "Files and uploads").
DOWNLOAD_HEADERS: dict[str, str] = {
    "content-disposition": "attachment",
    "content-security-policy": "sandbox",
    "x-content-type-options": "nosniff",
}
