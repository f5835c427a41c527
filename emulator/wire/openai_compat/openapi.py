"""The OpenAI-compatible surface in the served OpenAPI document (emulator/wire/openapi.py adds these paths).

Request schemas state only what translate.py refuses (so whatever the document calls invalid gets a 4xx; it may
call valid what the server still refuses): required fields, JSON types, ranges, enums; every optional field may be
null (the server treats null as absent); names outside translate's vocabulary are refused. Errors are the envelope
in a one-element list.
"""

from __future__ import annotations

from typing import Any

from gemini_emulator.protocol.routes import OPENAI_FAMILY, OPENAI_PREFIX
from gemini_emulator.wire import catalogue
from gemini_emulator.wire.openai_compat import images, translate

_REF = "#/components/schemas/"
_INT32 = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
_ANY: dict[str, Any] = {}
_OBJECT = {"type": "object"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]} if schema else schema


def _models(method: str | None) -> list[str]:
    cat = catalogue.load()
    return [m for m, e in cat.models.items() if method is None or method in e["supportedGenerationMethods"]]


def _chat_request() -> dict[str, Any]:
    number = {"type": "number"}
    roles = ["system", "developer", "user", "assistant", "tool", "function"]
    message = {"type": "object", "properties": {"role": {"type": "string", "enum": roles}}, "required": ["role"]}
    properties: dict[str, Any] = {
        "model": {"type": "string", "enum": _models("generateContent")},
        "messages": {"type": "array", "minItems": 1, "items": message},
        "stream": _nullable({"type": "boolean"}),
        "stream_options": _nullable(_OBJECT),
        "tools": _nullable({"type": "array", "items": _OBJECT}),
        "tool_choice": _ANY,
        "n": _nullable({"type": "integer", "minimum": 1, "maximum": translate.MAX_N}),
        "stop": _nullable({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
        "max_tokens": _nullable({"type": "integer", "minimum": 1, "maximum": 2**31 - 1}),
        "max_completion_tokens": _nullable({"type": "integer", "minimum": 1, "maximum": 2**31 - 1}),
        "temperature": _nullable(number),
        "top_p": _nullable(number),
        "seed": _nullable(_INT32),
        "presence_penalty": _nullable(number),
        "frequency_penalty": _nullable(number),
        "response_format": _nullable(_OBJECT),
        "reasoning_effort": _nullable({"type": "string", "enum": ["none", "minimal", "low", "medium", "high"]}),
        "extra_body": _nullable(_OBJECT),
        "google": _nullable(_OBJECT),
    }
    properties |= {name: _ANY for name in sorted(translate.IGNORED)}
    return {
        "type": "object",
        "properties": properties,
        "required": ["model", "messages"],
        "additionalProperties": False,
    }


def _embeddings_request() -> dict[str, Any]:
    texts = {"type": "array", "minItems": 1, "items": {"type": "string"}}
    return {
        "type": "object",
        "properties": {
            "model": {"type": "string", "enum": _models("embedContent")},
            "input": {"anyOf": [{"type": "string"}, texts]},
            "dimensions": _nullable({"type": "integer", "minimum": 1, "maximum": translate.MAX_DIMENSIONS}),
            "encoding_format": {"type": "string", "enum": ["float", "base64"]},
            "user": _ANY,
        },
        "required": ["model", "input"],
        "additionalProperties": False,
    }


def _images_request() -> dict[str, Any]:
    """images/generations: production ignores names it does not read, so any other property is valid."""
    image_models = [m for m, e in catalogue.load().models.items() if _draws(m, e)]
    return {
        "type": "object",
        "properties": {
            "model": {"type": "string", "enum": image_models},
            "prompt": {"type": "string", "minLength": 1, "maxLength": images.MAX_PROMPT_CHARS},
            "n": _nullable({"type": "integer", "minimum": 1, "maximum": images.MAX_IMAGES}),
            "size": _nullable({"type": "string", "pattern": images.SIZE_PATTERN}),
            "response_format": _nullable({"type": "string", "enum": ["b64_json", "url"]}),
            "aspect_ratio": _nullable({"type": "string"}),
            "generation_config": _nullable(_OBJECT),
            "safety_settings": _nullable({"type": "array"}),
            "tools": _nullable({"type": "array"}),
            "extra_body": _nullable(_OBJECT),
            "google": _nullable(_OBJECT),
        },
        "required": ["model", "prompt"],
    }


def _draws(model: str, entry: dict[str, Any]) -> bool:
    """Whether images/generations can answer `model`: Imagen (predict), or a Gemini model that outputs IMAGE."""
    cat = catalogue.load()
    if cat.kind(model) == "imagen":
        return True
    methods = entry["supportedGenerationMethods"]
    return "generateContent" in methods and any("IMAGE" in c for c in cat.output_modalities(model))


SCHEMAS: dict[str, Any] = {
    "OpenAIChatCompletionRequest": _chat_request(),
    "OpenAIEmbeddingsRequest": _embeddings_request(),
    "OpenAIImagesRequest": _images_request(),
    "OpenAIImagesResponse": {
        "type": "object",
        "properties": {"created": {"type": "integer"}, "data": {"type": "array", "items": _OBJECT}},
        "required": ["created", "data"],
    },
    "OpenAIChatCompletion": {
        "type": "object",
        "properties": {"object": {"const": "chat.completion"}, "choices": {"type": "array", "items": _OBJECT}},
        "required": ["choices", "created", "id", "model", "object", "usage"],
    },
    "OpenAIEmbeddingList": {
        "type": "object",
        "properties": {"object": {"const": "list"}, "data": {"type": "array", "items": _OBJECT}},
        "required": ["data", "model", "object", "usage"],
    },
    "OpenAIModel": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "object": {"const": "model"}, "owned_by": {"type": "string"}},
        "required": ["id", "object", "owned_by"],
    },
    "OpenAIModelList": {
        "type": "object",
        "properties": {"object": {"const": "list"}, "data": {"type": "array", "items": {"$ref": _REF + "OpenAIModel"}}},
        "required": ["data", "object"],
    },
}
_ERRORS = {
    "4XX": {
        "description": "Google's error envelope in a one-element list",
        "content": {
            "application/json": {
                "schema": {"type": "array", "items": {"$ref": _REF + "Error"}, "minItems": 1, "maxItems": 1}
            }
        },
    }
}
# `data: {chunk}` events, then `data: [DONE]` (not JSON): each event's data described as text.
_SSE = {"type": "object", "properties": {"data": {"type": "string"}}}


def _ok(schema: str, stream: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": {"$ref": _REF + schema}}}
    if stream:
        content["text/event-stream"] = {"schema": _SSE}
    return {"200": {"description": "OK", "content": content}}


def _operation(name: str, security: list[dict[str, list[str]]], **rest: Any) -> dict[str, Any]:
    return {"operationId": f"{OPENAI_FAMILY}.{name}", "tags": [OPENAI_FAMILY], "security": security, **rest}


def paths(security: list[dict[str, list[str]]]) -> dict[str, Any]:
    """The surface's operations, keyed by path."""

    def body(schema: str) -> dict[str, Any]:
        return {"required": True, "content": {"application/json": {"schema": {"$ref": _REF + schema}}}}

    model = {"name": "model", "in": "path", "required": True, "schema": {"type": "string", "enum": _models(None)}}
    prefix = OPENAI_PREFIX.rstrip("/")
    return {
        f"{prefix}/chat/completions": {
            "post": _operation(
                "chat.completions",
                security,
                parameters=[],
                requestBody=body("OpenAIChatCompletionRequest"),
                responses=_ok("OpenAIChatCompletion", stream=True) | _ERRORS,
            )
        },
        f"{prefix}/embeddings": {
            "post": _operation(
                "embeddings",
                security,
                parameters=[],
                requestBody=body("OpenAIEmbeddingsRequest"),
                responses=_ok("OpenAIEmbeddingList") | _ERRORS,
            )
        },
        f"{prefix}/images/generations": {
            "post": _operation(
                "images.generations",
                security,
                parameters=[],
                requestBody=body("OpenAIImagesRequest"),
                responses=_ok("OpenAIImagesResponse") | _ERRORS,
            )
        },
        f"{prefix}/models": {
            "get": _operation("models.list", security, parameters=[], responses=_ok("OpenAIModelList") | _ERRORS)
        },
        f"{prefix}/models/{{model}}": {
            "get": _operation("models.get", security, parameters=[model], responses=_ok("OpenAIModel") | _ERRORS)
        },
    }
