"""The OpenAPI 3.1 description of the Gemini subset this emulator serves (GET /__emulator/gemini-openapi.json).

It describes the emulator, not Google's whole API: generateContent, streamGenerateContent (`alt=sse` or the JSON
array), countTokens and models.get / models.list, on the URL families of emulator/protocol/routes.py, and the
OpenAI-compatible surface (emulator/wire/openai_compat/openapi.py). Request
bodies come from emulator/wire/wire_fields.json, the table emulator/wire/validate.py checks bodies against, with
validate's own rules
on top (contents present, parts not empty, roles from its vocabulary), so what the document calls valid or
invalid is what the server accepts or refuses with a 400. Responses are described loosely (their exact bytes are
production's and are checked by the golden tests); every 4xx is Google's error envelope (or, for a URL production
does not route, Google's HTML 404 page). tests/fuzz/test_schemathesis.py drives a real server from this document.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from gemini_emulator import __version__
from gemini_emulator.protocol import printers, routes
from gemini_emulator.wire import catalogue, validate
from gemini_emulator.wire.openai_compat import openapi as openai_compat
from gemini_emulator.wire.resources import openapi as resource_rooms
from gemini_emulator.wire.resources import spec as resource_spec

WIRE_FIELDS = Path(__file__).with_name("wire_fields.json")  # the table validate.py reads
_REF = "#/components/schemas/"
_NULL = {"type": "null"}
# What validate accepts for integer and floating-point fields besides JSON numbers (proto3 JSON: a string).
INT_TEXT = r"^\s*-?[0-9]+\s*$"
FLOAT_TEXT = r"^\s*-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$|^(NaN|Infinity|-Infinity)$"
SEGMENT = r"^[^/:]+$"  # a path segment as the router reads it (routes._SEG)
# The Firebase proxy's location shape (routes._LOCATION): anything else is its HTML 404.
FIREBASE_LOCATION = r"^[a-zA-Z]+(-[a-zA-Z]+[0-9]+)?$"
METHODS = ("generateContent", "streamGenerateContent", "countTokens")

# Credentials (emulator/wire/auth.py): an API key in a header or the query, or any bearer token; Vertex AI proper
# takes only a bearer token.
SECURITY_SCHEMES = {
    "apiKey": {"type": "apiKey", "in": "header", "name": "x-goog-api-key"},
    "apiKeyQuery": {"type": "apiKey", "in": "query", "name": "key"},
    "bearer": {"type": "http", "scheme": "bearer", "description": "Any token (no OAuth check)"},
}
_KEY_OR_TOKEN: list[dict[str, list[str]]] = [{"apiKey": []}, {"apiKeyQuery": []}, {"bearer": []}]
_TOKEN: list[dict[str, list[str]]] = [{"bearer": []}]


def _version(versions: list[str]) -> dict[str, Any]:
    return {"name": "version", "in": "path", "required": True, "schema": {"type": "string", "enum": versions}}


def _segment(name: str, pattern: str = SEGMENT) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string", "pattern": pattern}}


# family -> (path prefix before `models/{model}`, its path parameters, its security requirements)
_DEV_VERSIONS = ["v1beta", "v1", "v1alpha"]
_VERTEX_VERSIONS = ["v1", "v1beta1"]
FAMILIES: dict[str, tuple[str, list[dict[str, Any]], list[dict[str, list[str]]]]] = {
    "developer": ("/{version}", [_version(_DEV_VERSIONS)], _KEY_OR_TOKEN),
    "vertex": (
        "/{version}/projects/{project}/locations/{location}/publishers/google",
        [_version(_VERTEX_VERSIONS), _segment("project"), _segment("location")],
        _TOKEN,
    ),
    "vertex-express": ("/{version}/publishers/google", [_version(_VERTEX_VERSIONS)], _KEY_OR_TOKEN),
    "firebase-developer": ("/v1beta/projects/{project}", [_segment("project")], _KEY_OR_TOKEN),
    "firebase-vertex": (
        "/v1beta/projects/{project}/locations/{location}/publishers/google",
        [_segment("project"), _segment("location", FIREBASE_LOCATION)],
        _KEY_OR_TOKEN,
    ),
}
MODEL_LISTS = ("developer", "vertex", "vertex-express")  # families that serve GET models[/{model}]


# --- request bodies from the wire field table ------------------------------------------------------------------


def _scalar(kind: str, enum: list[str] | None) -> dict[str, Any]:
    if kind in ("string", "duration", "timestamp"):
        return {"type": "string"}
    if kind == "bytes":
        return {"type": "string", "contentEncoding": "base64"}
    if kind == "bool":
        return {"type": "boolean"}
    if kind in ("int32", "int64", "uint32"):
        return {"type": ["integer", "string"], "pattern": INT_TEXT}
    if kind in ("float", "double"):
        return {"type": ["number", "string"], "pattern": FLOAT_TEXT}
    if kind == "enum":  # a name (any case) or a number
        names = {"type": "string", "enum": enum} if enum else {"type": "string"}
        return {"anyOf": [names, {"type": "integer"}], "description": "an enum name (case-insensitive) or number"}
    if kind == "struct":
        return {"type": "object"}
    return {}  # value: any JSON


def _element(spec: dict[str, Any], enums: dict[str, list[str]], messages: dict[str, Any]) -> dict[str, Any]:
    kind = spec["kind"]
    if kind in ("message", "map"):
        ref = {"$ref": _REF + spec["type"]} if spec["type"] in messages else {"type": "object"}
        return ref if kind == "message" else {"type": "object", "additionalProperties": ref}
    return _scalar(kind, enums.get(spec.get("type", "")))


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` or null: a null field is the field left out (validate skips it)."""
    if not schema:
        return schema
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        return schema | {"type": [*kinds, "null"]}
    if "anyOf" in schema:
        return schema | {"anyOf": [*schema["anyOf"], _NULL]}
    return {"anyOf": [schema, _NULL]}


def _field(spec: dict[str, Any], enums: dict[str, list[str]], messages: dict[str, Any]) -> dict[str, Any]:
    element = _element(spec, enums, messages)
    return _nullable({"type": "array", "items": element} if spec["repeated"] else element)


def _message(fields: dict[str, Any], enums: dict[str, list[str]], messages: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: _field(spec, enums, messages) for name, spec in sorted(fields.items())},
        "additionalProperties": False,
        "description": "lowerCamelCase names as shown; their snake_case (proto) spellings are accepted too",
    }


def request_schemas(table: dict[str, Any]) -> dict[str, Any]:
    """A schema per wire message, plus the request rules validate.check_contents adds on top of field types."""
    messages, enums = table["messages"], table["enums"]
    schemas = {name: _message(fields, enums, messages) for name, fields in sorted(messages.items())}
    content = schemas["Content"]
    schemas["RequestContent"] = content | {
        "description": "a turn of the request's contents: parts present and not empty, a role from the list",
        "properties": content["properties"]
        | {
            "role": {"type": "string", "enum": sorted(validate.ROLES)},
            "parts": {"type": "array", "minItems": 1, "items": {"$ref": _REF + "Part"}},
        },
        "required": ["parts"],
    }
    turns = {"type": "array", "minItems": 1, "items": {"$ref": _REF + "RequestContent"}}
    generate = schemas["GenerateContentRequest"]
    schemas["GenerateContentRequestBody"] = generate | {
        "description": "generateContent and streamGenerateContent: contents present, every turn with parts",
        "properties": generate["properties"]
        | {
            "contents": turns,
            # one Tool is accepted as the whole list (validate.py: production accepted it in 2025)
            "tools": {"anyOf": [generate["properties"]["tools"], generate["properties"]["tools"]["items"]]},
        },
        "required": ["contents"],
    }
    count = schemas["CountTokensRequest"]
    schemas["CountTokensRequestBody"] = count | {
        "description": "countTokens: contents, or a generateContentRequest holding them (firebase/ai sends that)",
        "properties": count["properties"] | {"contents": _nullable({"type": "array", "items": turns["items"]})},
        "anyOf": [
            {"required": ["contents"], "properties": {"contents": {"type": "array", "minItems": 1}}},
            {
                "required": ["generateContentRequest"],
                "properties": {"generateContentRequest": {"$ref": _REF + "GenerateContentRequestBody"}},
            },
        ],
    }
    return schemas


# --- responses -------------------------------------------------------------------------------------------------

_OBJECT = {"type": "object"}
_OBJECTS = {"type": "array", "items": _OBJECT}
RESPONSE_SCHEMAS: dict[str, Any] = {
    "GenerateContentResponse": {
        "type": "object",
        "properties": {
            "candidates": _OBJECTS,
            "promptFeedback": _OBJECT,
            "usageMetadata": _OBJECT,
            "modelVersion": {"type": "string"},
            "responseId": {"type": "string"},
            "createTime": {"type": "string"},
        },
    },
    "CountTokensResponse": {
        "type": "object",
        "properties": {
            "totalTokens": {"type": "integer"},
            "totalBillableCharacters": {"type": "integer"},
            "promptTokensDetails": _OBJECTS,
            "cachedContentTokenCount": {"type": "integer"},
        },
    },
    "Model": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    "ListModelsResponse": {
        "type": "object",
        "properties": {
            "models": {"type": "array", "items": {"$ref": _REF + "Model"}},
            "nextPageToken": {"type": "string"},
        },
        "required": ["models"],
    },
    "ListPublisherModelsResponse": {
        "type": "object",
        "properties": {"publisherModels": {"type": "array", "items": {"$ref": _REF + "Model"}}},
        "required": ["publisherModels"],
    },
    "Error": {
        "description": "Google's error envelope; error.code is the HTTP status",
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "integer"},
                    "message": {"type": "string"},
                    "status": {"type": "string"},
                    "details": _OBJECTS,
                },
                "required": ["code", "message", "status"],
            }
        },
        "required": ["error"],
    },
}
# One `data: {json}` event per chunk (OpenAPI 3.1: a text/event-stream schema describes each event).
_SSE_EVENT = {
    "type": "object",
    "properties": {
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": _REF + "GenerateContentResponse"},
        }
    },
    "required": ["data"],
}
_HTML_404 = {"text/html": {"schema": {"type": "string", "description": "Google's HTML 404 page (unrouted URL)"}}}
_ERROR = {"application/json": {"schema": {"$ref": _REF + "Error"}}}


def _ok(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(stream: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = dict(_ERROR)
    if stream:  # the JSON-array stream wraps an early error in an array; alt=sse keeps its content type
        wrapped = {"type": "array", "items": {"$ref": _REF + "Error"}, "minItems": 1, "maxItems": 1}
        content = {
            "application/json": {"schema": {"anyOf": [{"$ref": _REF + "Error"}, wrapped]}},
            # As production does on alt=sse: the envelope as plain JSON under the event-stream content type.
            "text/event-stream": {"schema": {"description": "the error envelope, not data: events"}},
        }
    return {"4XX": {"description": "Google's error envelope", "content": content | _HTML_404}}


def _query(name: str, description: str, usual: str) -> dict[str, Any]:
    # anyOf a usual value and any text: generators pick the usual one often, and any text stays valid.
    schema = {"anyOf": [{"type": "string", "enum": [usual]}, {"type": "string"}]}
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


_ENUM_ENCODING = _query("$alt", "`json;enum-encoding=int` prints enums as numbers", "json;enum-encoding=int")
_ALT = _query("alt", "`sse`: Server-Sent Events; otherwise a JSON array of responses", "sse")


def _model_param(method: str | None) -> dict[str, Any]:
    """The catalogue's models serving `method` (any model for models.get); others are its 404."""
    cat = catalogue.load()
    needed = "generateContent" if method == "streamGenerateContent" else method
    names = [m for m, entry in cat.models.items() if needed is None or needed in entry["supportedGenerationMethods"]]
    return {"name": "model", "in": "path", "required": True, "schema": {"type": "string", "enum": names}}


def _call(family: str, method: str) -> dict[str, Any]:
    _, params, security = FAMILIES[family]
    body = "CountTokensRequestBody" if method == "countTokens" else "GenerateContentRequestBody"
    if method == "countTokens":
        ok = _ok({"$ref": _REF + "CountTokensResponse"})
    elif method == "generateContent":
        ok = _ok({"$ref": _REF + "GenerateContentResponse"})
    else:
        ok = {
            "description": "The answer in chunks: data: events with alt=sse, else one JSON array",
            "content": {
                "application/json": {"schema": {"type": "array", "items": {"$ref": _REF + "GenerateContentResponse"}}},
                "text/event-stream": {"schema": _SSE_EVENT},
            },
        }
    query = [_ALT, _ENUM_ENCODING] if method == "streamGenerateContent" else [_ENUM_ENCODING]
    return {
        "operationId": f"{family}.{method}",
        "tags": [family],
        "security": security,
        "parameters": [*params, _model_param(method), *query],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": _REF + body}}}},
        "responses": {"200": ok} | _errors(stream=method == "streamGenerateContent"),
    }


def _models_get(family: str, listing: bool) -> dict[str, Any]:
    _, params, security = FAMILIES[family]
    if listing and family == "developer":
        size = {"name": "pageSize", "in": "query", "schema": {"type": "string", "pattern": r"^(-?[0-9]+)?$"}}
        token = {"name": "pageToken", "in": "query", "schema": {"type": "string"}}
        params = [*params, size, token]
    elif not listing:
        params = [*params, _model_param(None)]
    listed = "ListModelsResponse" if family == "developer" else "ListPublisherModelsResponse"
    return {
        "operationId": f"{family}.{'listModels' if listing else 'getModel'}",
        "tags": [family],
        "security": security,
        "parameters": params,
        "responses": {"200": _ok({"$ref": _REF + (listed if listing else "Model")})} | _errors(),
    }


def document(table: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole OpenAPI document (`table`: the wire field table, by default emulator/wire/wire_fields.json)."""
    table = table if table is not None else json.loads(WIRE_FIELDS.read_text(encoding="utf-8"))
    schemas = request_schemas(table)
    clash = schemas.keys() & RESPONSE_SCHEMAS.keys()
    assert not clash, f"wire messages named like response schemas: {clash}"
    paths: dict[str, Any] = {}
    for family, (prefix, _, _) in FAMILIES.items():
        for method in METHODS:
            assert method in routes.SERVED_METHODS
            paths[f"{prefix}/models/{{model}}:{method}"] = {"post": _call(family, method)}
        if family in MODEL_LISTS:
            paths[f"{prefix}/models"] = {"get": _models_get(family, listing=True)}
            paths[f"{prefix}/models/{{model}}"] = {"get": _models_get(family, listing=False)}
    paths |= openai_compat.paths(_KEY_OR_TOKEN)  # the OpenAI-compatible surface, /v1beta/openai/
    cat = catalogue.load()
    served = [m for m, e in cat.models.items() if "batchGenerateContent" in e["supportedGenerationMethods"]]
    embeds = [m for m, e in cat.models.items() if "asyncBatchEmbedContent" in e["supportedGenerationMethods"]]
    paths |= resource_rooms.paths(_KEY_OR_TOKEN, _TOKEN, served, embeds)  # cachedContents, batches
    schemas |= openai_compat.SCHEMAS
    paths |= resource_spec.paths(_KEY_OR_TOKEN)  # Files and operations (wire/resources/spec.py)
    schemas |= resource_spec.SCHEMAS
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "gemini-emulator: the Gemini API subset it serves",
            "version": __version__,
            "description": "What this emulator serves and checks, not Google's full API (emulator/wire/openapi.py)",
        },
        "paths": paths,
        "components": {"securitySchemes": SECURITY_SCHEMES, "schemas": schemas | RESPONSE_SCHEMAS},
    }


@cache
def document_bytes() -> bytes:
    """The served document, built on first use (it is not needed to answer Gemini calls)."""
    return printers.pretty(document())
