"""gemini-emulator: a local, wire-true emulator of Google's Gemini API.

Public: the names in `__all__` (import them from here: what a test author and an engine author need) and the
engine contract `gemini_emulator.seam`. Every other module path is private: it may change in any release.
The names load on first use (PEP 562), so `import gemini_emulator` imports no server, wire or engine code.

Rooms: protocol (wire facts every layer may use), seam (the engine contract), wire (the Gemini API over HTTP),
admin (admin API, journal, client), captures (recorded traffic), testing (pytest plugin, in-process server),
engines (the answer engines, plugins behind the seam); app.py composes them, cli.py and config.py run them.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("gemini-emulator")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ imports each name on first use
    from gemini_emulator.admin.client import AdminClient, Calls
    from gemini_emulator.config import Settings
    from gemini_emulator.seam import (
        DROP,
        SHARED,
        TRUNCATE,
        Chunk,
        Embedder,
        Engine,
        EngineLoadError,
        EntryError,
        Fault,
        GenerateRequest,
        MethodAnswerer,
        ModelServer,
        ReadyAnswerer,
        Resettable,
        Scriptable,
        ScriptBook,
        available_engines,
        last_user_text,
        load_engine,
    )
    from gemini_emulator.testing.pytest_plugin import Gemini
    from gemini_emulator.testing.server import RunningEmulator, start

_SEAM = "gemini_emulator.seam"
_HOMES = {
    # a test author: the fixtures' handle, the in-process server, the admin client, settings
    "Gemini": "gemini_emulator.testing.pytest_plugin",
    "RunningEmulator": "gemini_emulator.testing.server",
    "start": "gemini_emulator.testing.server",
    "AdminClient": "gemini_emulator.admin.client",
    "Calls": "gemini_emulator.admin.client",
    "Settings": "gemini_emulator.config",
    # an engine author: the seam
    "GenerateRequest": _SEAM,
    "last_user_text": _SEAM,
    "Chunk": _SEAM,
    "Fault": _SEAM,
    "DROP": _SEAM,
    "TRUNCATE": _SEAM,
    "Engine": _SEAM,
    "Embedder": _SEAM,
    "ModelServer": _SEAM,
    "MethodAnswerer": _SEAM,
    "ReadyAnswerer": _SEAM,
    "Resettable": _SEAM,
    "Scriptable": _SEAM,
    "ScriptBook": _SEAM,
    "SHARED": _SEAM,
    "EntryError": _SEAM,
    "load_engine": _SEAM,
    "available_engines": _SEAM,
    "EngineLoadError": _SEAM,
}

__all__ = [
    "DROP",
    "SHARED",
    "TRUNCATE",
    "AdminClient",
    "Calls",
    "Chunk",
    "Embedder",
    "Engine",
    "EngineLoadError",
    "EntryError",
    "Fault",
    "Gemini",
    "GenerateRequest",
    "MethodAnswerer",
    "ReadyAnswerer",
    "ModelServer",
    "Resettable",
    "RunningEmulator",
    "ScriptBook",
    "Scriptable",
    "Settings",
    "__version__",
    "available_engines",
    "last_user_text",
    "load_engine",
    "start",
]


def __getattr__(name: str) -> Any:
    """Import a public name's home on first use (a submodule such as `cli` is not a public name: AttributeError
    lets `from gemini_emulator import cli` fall back to importing the submodule)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
