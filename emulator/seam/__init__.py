"""The engine seam: what an engine receives, what it yields, what it may also do, and how engines are found.

An engine gets a parsed, validated `GenerateRequest` and yields `Chunk`s: plain data. It knows nothing
of URLs, status codes, printing or framing; to fail, it raises a `gemini_emulator.protocol.errors.ApiError` from
the catalogue (before its first chunk: an ordinary HTTP error; after: production's mid-stream error tail).
Optional capabilities (`Embedder`, `ModelServer`, `MethodAnswerer`, `ReadyAnswerer`, `Resettable`,
`Scriptable`) are protocols the wire checks with isinstance. The seam imports nothing of ours but
`gemini_emulator.protocol`.

Engines are discovered through the `gemini_emulator.engines` entry-point group, so a third-party
package can add one:

    [project.entry-points."gemini_emulator.engines"]
    mine = "my_package.engine:MyEngine"

Modules: request (GenerateRequest), chunk (Chunk, Fault, DROP, TRUNCATE), capabilities (the protocols),
scripting (ScriptBook, SHARED, EntryError), loading (load_engine). Import from `gemini_emulator.seam` itself:
the module a name lives in may change.
"""

from gemini_emulator.seam.capabilities import (
    Embedder,
    Engine,
    MethodAnswerer,
    ModelServer,
    ReadyAnswerer,
    Resettable,
    Scriptable,
)
from gemini_emulator.seam.chunk import DROP, TRUNCATE, Chunk, Fault
from gemini_emulator.seam.loading import ENTRY_POINT_GROUP, EngineLoadError, available_engines, load_engine
from gemini_emulator.seam.request import GenerateRequest, last_user_text
from gemini_emulator.seam.scripting import SHARED, EntryError, ScriptBook

__all__ = [
    "DROP",
    "ENTRY_POINT_GROUP",
    "SHARED",
    "TRUNCATE",
    "Chunk",
    "Embedder",
    "Engine",
    "EngineLoadError",
    "EntryError",
    "Fault",
    "GenerateRequest",
    "MethodAnswerer",
    "ModelServer",
    "ReadyAnswerer",
    "Resettable",
    "ScriptBook",
    "Scriptable",
    "available_engines",
    "last_user_text",
    "load_engine",
]
