"""Files a web page loads from the emulator in development; they hold no data. Imports nothing else of ours.

`firebase-live-shim.js` sends firebase/ai's Live WebSockets, which always dial wss://firebasevertexai.googleapis.com,
to the emulator (README, "Firebase Live in a web page"). The admin API serves it to any origin at
GET /__emulator/firebase-live-shim.js; `gemini-emulator firebase-live-shim` prints it.
"""

from __future__ import annotations

import json
from pathlib import Path

FIREBASE_LIVE_SHIM = "firebase-live-shim.js"
SHIM = Path(__file__).with_name(FIREBASE_LIVE_SHIM).read_text(encoding="utf-8")
_PRINTED = "var PRINTED = '';"


def firebase_live_shim(url: str = "") -> str:
    """The shim's text; with `url`, that emulator URL printed into it (for a copy served from the page's origin)."""
    if not url:
        return SHIM
    if _PRINTED not in SHIM:  # a shim edited without its placeholder (tests/web checks it stays)
        raise RuntimeError(f"{FIREBASE_LIVE_SHIM} lost its line {_PRINTED!r}")
    printed = json.dumps(url).replace("<", "\\u003c")  # safe inside an inline <script> too
    return SHIM.replace(_PRINTED, f"var PRINTED = {printed};", 1)
