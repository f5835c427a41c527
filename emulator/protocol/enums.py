"""Integer enum encoding for GAPIC REST clients (`$alt=json;enum-encoding=int`). [wire-facts §6.6]

Numbers are the proto numbering in proto_enums.json (google.ai.generativelanguage.v1beta, with
aiplatform's differences for Vertex); values with no number are left as strings.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from gemini_emulator.protocol.routes import VERTEX

_DATA = Path(__file__).with_name("proto_enums.json")


def wants_int_enums(system_alt: str) -> bool:
    """True for a `$alt` query value such as `json;enum-encoding=int`."""
    return "enum-encoding=int" in system_alt.replace(" ", "")


@cache
def _tables(backend: str) -> dict[str, dict[str, int]]:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    fields = data["vertex_fields"] if backend == VERTEX else data["fields"]
    out: dict[str, dict[str, int]] = {}
    for field, enum in fields.items():
        numbers = dict(data["enums"].get(enum, {}))
        if backend == VERTEX:
            numbers.update({k: v for k, v in data["vertex_differences"].get(enum, {}).items() if v is not None})
            numbers.update(data.get("vertex_only_enums", {}).get(enum, {}))
        out[field] = numbers
    return out


def to_ints(obj: Any, backend: str) -> Any:
    """A copy of a response body with every known enum value replaced by its number."""
    return _convert(obj, _tables(backend))


def _convert(obj: Any, tables: dict[str, dict[str, int]]) -> Any:
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            table = tables.get(key)
            if table is not None and isinstance(value, str) and value in table:
                out[key] = table[value]
            else:
                out[key] = _convert(value, tables)
        return out
    if isinstance(obj, list):
        return [_convert(v, tables) for v in obj]
    return obj
