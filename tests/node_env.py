"""The Node side of the tests: node and npm on PATH, and tests/js/node_modules as its lock file pins it.

`npm ci` runs once per tests/js/package-lock.json (a stamp in node_modules records the lock's digest). The JS SDK
matrix (tests/sdk/test_js_matrix.py) runs the SDKs from there; the browser tests bundle them from there.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
LOCK = JS / "package-lock.json"
STAMP = JS / "node_modules" / ".package-lock.sha256"
NODE, NPM = shutil.which("node"), shutil.which("npm")


def ensure_node_modules(announce: Callable[[str], None]) -> Path:
    """tests/js/node_modules, installed with `npm ci` only when the lock changed."""
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text() != digest:
        announce(f"npm ci in {JS} (the JavaScript SDKs; once per lock file, about a minute)")
        assert NPM is not None, "npm is needed for the JavaScript SDKs"
        done = subprocess.run(
            [NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=JS, capture_output=True, text=True
        )
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
        STAMP.write_text(digest)
    return JS / "node_modules"
