"""Production's semantic checks on OpenAPI-subset schemas (`responseSchema`, function `parameters`).

Both messages are quoted in public issue threads: "...properties: should be non-empty for OBJECT type"
(browser-use/browser-use#3786, a response_schema path with quoted property names) and "...properties: only
allowed for OBJECT type" / "...required: only allowed for OBJECT type" (anomalyco/opencode#11889, a
function_declarations path with bare property names). JSON Schema fields (`responseJsonSchema`,
`parametersJsonSchema`) are not subject to them.
"""

from __future__ import annotations

from typing import Any

from gemini_emulator.protocol import errors

MAX_PROBLEMS = 20


def _kind(schema: dict[str, Any]) -> str:
    raw = schema.get("type")
    if isinstance(raw, int) and not isinstance(raw, bool):
        return "OBJECT" if raw == 6 else "OTHER"
    return str(raw).upper() if isinstance(raw, str) else ""


def _walk(schema: Any, path: str, quoted: bool, problems: list[str], depth: int = 0) -> None:
    if not isinstance(schema, dict) or depth > 64 or len(problems) >= MAX_PROBLEMS:
        return
    kind = _kind(schema)
    properties = schema.get("properties")
    if kind and kind != "OBJECT":
        for key in ("properties", "required"):
            if schema.get(key):
                problems.append(f"{path}.{key}: only allowed for OBJECT type")
    elif kind == "OBJECT" and isinstance(properties, dict) and not properties:
        problems.append(f"{path}.properties: should be non-empty for OBJECT type")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            key = f'"{name}"' if quoted else name
            _walk(sub, f"{path}.properties[{key}]", quoted, problems, depth + 1)
    _walk(schema.get("items"), f"{path}.items", quoted, problems, depth + 1)
    for i, sub in enumerate(schema.get("anyOf") or []):
        _walk(sub, f"{path}.any_of[{i}]", quoted, problems, depth + 1)


def check(body: dict[str, Any]) -> None:
    """Raise production's 400 listing every schema problem of the request (`body` validated and normalised:
    emulator/wire/validate.py)."""
    config = body.get("generationConfig") or {}
    if not config and not body.get("tools"):  # nothing here holds a schema
        return
    problems: list[str] = []
    schema = config.get("responseSchema") if isinstance(config, dict) else None
    _walk(schema, "generation_config.response_schema", True, problems)
    for t, tool in enumerate(body.get("tools") or []):
        decls = (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []
        for d, decl in enumerate(decls):
            if isinstance(decl, dict):
                _walk(decl.get("parameters"), f"tools[{t}].function_declarations[{d}].parameters", False, problems)
    if problems:
        raise errors.field_errors("GenerateContentRequest.", problems)
