"""Production's semantic checks on OpenAPI-subset schemas (`responseSchema`, function `parameters`).

Both messages are quoted in public issue threads: "...properties: should be non-empty for OBJECT type"
(browser-use/browser-use#3786, a response_schema path with quoted property names) and "...properties: only
allowed for OBJECT type" / "...required: only allowed for OBJECT type" (anomalyco/opencode#11889, a
function_declarations path with bare property names). JSON Schema fields (`responseJsonSchema`,
`parametersJsonSchema`) are not subject to them.

Where each applies follows where production was seen applying it. "should be non-empty" was quoted only for
a `response_schema` (browser-use#3786, the source of commit ff9534f that added it); for function
`parameters` production accepts an empty OBJECT: the 2025-2026 VCR recordings of pydantic-ai and Mirascope
(../shared/corpus) hold 9 requests declaring `parameters: {"type": "OBJECT", "properties": {}}` (8 Developer,
2025-12 and undated, 1 Vertex), every one answered 200, and 96 Vertex requests (2026-02..2026-07) with an
empty JSON Schema object in `parametersJsonSchema`, 93 answered 200 (3 refused for an unreachable URL). So a
function with no arguments is accepted; the rule stays on `responseSchema`.
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
    """Collect problems under `schema`; `quoted` (response_schema): property names quoted in paths, and an
    empty OBJECT refused (see the module docstring for why only there)."""
    if not isinstance(schema, dict) or depth > 64 or len(problems) >= MAX_PROBLEMS:
        return
    kind = _kind(schema)
    properties = schema.get("properties")
    if kind and kind != "OBJECT":
        for key in ("properties", "required"):
            if schema.get(key):
                problems.append(f"{path}.{key}: only allowed for OBJECT type")
    elif quoted and kind == "OBJECT" and isinstance(properties, dict) and not properties:
        problems.append(f"{path}.properties: should be non-empty for OBJECT type")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            key = f'"{name}"' if quoted else name
            _walk(sub, f"{path}.properties[{key}]", quoted, problems, depth + 1)
    items = schema.get("items")
    if isinstance(items, dict):
        _walk(items, f"{path}.items", quoted, problems, depth + 1)
    for i, sub in enumerate(schema.get("anyOf") or ()):
        _walk(sub, f"{path}.any_of[{i}]", quoted, problems, depth + 1)


def _type_name(kind: Any) -> bool:
    return isinstance(kind, str) or isinstance(kind, int) and not isinstance(kind, bool)


def _json_schema_ok(schema: Any, depth: int = 0) -> bool:
    """False for a JSON Schema whose keywords have shapes no schema has: `properties` not an object, a `type`
    that is not a name or a list of names, `required` or `propertyOrdering` not a list of names (the wire types
    these fields as a free `Value`, so nothing else refuses them)."""
    if not isinstance(schema, dict) or depth > 64:
        return True
    kind = schema.get("type")
    if kind is not None and not _type_name(kind) and not (isinstance(kind, list) and all(map(_type_name, kind))):
        return False
    for key in ("required", "propertyOrdering", "property_ordering"):
        names = schema.get(key)
        if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            return False
    properties = schema.get("properties")
    if properties is not None and not isinstance(properties, dict):
        return False
    children: list[Any] = list((properties or {}).values())
    for key in ("items", "additionalProperties", "not", "$defs", "definitions"):
        sub = schema.get(key)
        children += list(sub.values()) if key in ("$defs", "definitions") and isinstance(sub, dict) else [sub]
    for key in ("anyOf", "oneOf", "allOf", "prefixItems", "any_of", "one_of", "all_of"):
        sub = schema.get(key)
        children += sub if isinstance(sub, list) else []
    return all(_json_schema_ok(child, depth + 1) for child in children)


def _json_schemas(body: dict[str, Any], config: Any) -> list[Any]:
    """Every JSON Schema of the request: responseJsonSchema and each parametersJsonSchema/responseJsonSchema (the
    ones given: an absent schema has nothing wrong with it)."""
    found = []
    if isinstance(config, dict):
        schema = config.get("responseJsonSchema", config.get("response_json_schema"))
        if schema is not None:
            found.append(schema)
    for tool in body.get("tools") or []:
        tool = tool if isinstance(tool, dict) else {}
        decls = tool.get("functionDeclarations") or tool.get("function_declarations")
        for decl in decls if isinstance(decls, list) else []:
            if isinstance(decl, dict):
                for key in _DECLARED_SCHEMAS:
                    schema = decl.get(key)
                    if schema is not None:
                        found.append(schema)
    return found


_DECLARED_SCHEMAS = ("parametersJsonSchema", "parameters_json_schema", "responseJsonSchema", "response_json_schema")


def check(body: dict[str, Any]) -> None:
    """Raise production's 400 listing every schema problem of the request (`body` validated and normalised:
    emulator/wire/validate.py)."""
    config = body.get("generationConfig") or {}
    if not config and not body.get("tools"):  # nothing here holds a schema
        return
    if not all(_json_schema_ok(s) for s in _json_schemas(body, config)):
        raise errors.invalid_argument()  # production's bare 400 for a JSON Schema it cannot use (docs/conformance.md)
    problems: list[str] = []
    schema = config.get("responseSchema") if isinstance(config, dict) else None
    if isinstance(schema, dict):
        _walk(schema, "generation_config.response_schema", True, problems)
    for t, tool in enumerate(body.get("tools") or []):
        decls = (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []
        for d, decl in enumerate(decls):
            parameters = decl.get("parameters") if isinstance(decl, dict) else None
            if isinstance(parameters, dict):
                _walk(parameters, f"tools[{t}].function_declarations[{d}].parameters", False, problems)
    if problems:
        raise errors.field_errors("GenerateContentRequest.", problems)
