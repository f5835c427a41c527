"""Gemini request -> OpenAI chat-completions body.

contents + systemInstruction become messages (model -> assistant; functionCall parts -> assistant
`tool_calls`; functionResponse parts -> `tool` messages; inlineData images -> data URLs; thought parts are
skipped); functionDeclarations become `tools` with JSON Schema parameters; toolConfig becomes
`tool_choice`; responseMimeType/responseSchema/responseJsonSchema become `response_format`; and
generationConfig's sampling fields their OpenAI namesakes. Field names arrive in lowerCamelCase (the wire
normalises them); integer enums are read as the wire accepts them.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.engines.openai.ids import CallIdStore, minted_id, turn_key
from gemini_emulator.engines.synth.tools import calling_config, declarations
from gemini_emulator.protocol import errors
from gemini_emulator.seam import GenerateRequest

# google.ai.generativelanguage Type and FunctionCallingConfig.Mode proto numbering (integer enums).
_TYPES = {1: "string", 2: "number", 3: "integer", 4: "boolean", 5: "array", 6: "object", 7: "null"}
# Gemini Schema keywords with no JSON Schema meaning.
_SCHEMA_DROPPED = frozenset({"propertyOrdering", "example", "nullable"})
_SCHEMA_INTS = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"})
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mp3": "mp3", "audio/mpeg": "mp3"}
_SAMPLING = (  # generationConfig field -> OpenAI field
    ("temperature", "temperature"),
    ("topP", "top_p"),
    ("stopSequences", "stop"),
    ("seed", "seed"),
    ("presencePenalty", "presence_penalty"),
    ("frequencyPenalty", "frequency_penalty"),
    ("candidateCount", "n"),
)


def chat_body(request: GenerateRequest, config: OpenAIConfig, ids: CallIdStore, model: str) -> dict[str, Any]:
    """The whole chat-completions request for `request`, addressed to the upstream `model`."""
    body: dict[str, Any] = {"model": model, "messages": messages(request, ids)}
    generation = request.generation_config or {}
    for gemini, openai in _SAMPLING:
        value = generation.get(gemini)
        if value is not None and value != []:
            body[openai] = value
    max_tokens = generation.get("maxOutputTokens")
    if max_tokens is not None:
        body[config.max_tokens_field] = max_tokens
    level = (generation.get("thinkingConfig") or {}).get("thinkingLevel")
    if isinstance(level, str) and level.upper() not in ("", "THINKING_LEVEL_UNSPECIFIED"):
        body["reasoning_effort"] = level.lower()
    tools, choice = tool_fields(request)
    if tools:
        body["tools"] = tools
        if choice is not None:
            body["tool_choice"] = choice
    response_format = response_format_of(generation, config.json_schema)
    if response_format is not None:
        body["response_format"] = response_format
    return body


def include_thoughts(request: GenerateRequest) -> bool:
    """generationConfig.thinkingConfig.includeThoughts: reasoning becomes thought parts."""
    return (request.generation_config.get("thinkingConfig") or {}).get("includeThoughts") is True


# --- messages -------------------------------------------------------------------------------------


def messages(request: GenerateRequest, ids: CallIdStore) -> list[dict[str, Any]]:
    """The conversation as chat messages, tool-call ids restored (see engines/openai/ids.py)."""
    out: list[dict[str, Any]] = []
    system = _texts((request.system_instruction or {}).get("parts") or [])
    if system:
        out.append({"role": "system", "content": "\n".join(system)})
    open_calls: list[tuple[str, str, str]] = []  # (client-visible id, name, upstream id), oldest first
    used: set[str] = set()
    for i, content in enumerate(request.contents):
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict) and p.get("thought") is not True]
        if (content.get("role") or "user") == "model":
            out.append(_assistant(request, i, parts, ids, used, open_calls))
        else:
            out.extend(_user(request, i, parts, open_calls, used))
    return out


def turn_keys(request: GenerateRequest) -> list[str]:
    """The keys `messages` asks the id store for: one per model turn of the history that holds function calls."""
    keys = []
    for i, content in enumerate(request.contents):
        if (content.get("role") or "user") != "model":
            continue
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict) and p.get("thought") is not True]
        calls = [p["functionCall"] for p in parts if isinstance(p.get("functionCall"), dict)]
        if calls:
            named = [(str(call.get("name") or ""), call.get("args") or {}) for call in calls]
            keys.append(turn_key(request.namespace, request.contents[:i], named))
    return keys


def _assistant(
    request: GenerateRequest,
    index: int,
    parts: list[dict[str, Any]],
    ids: CallIdStore,
    used: set[str],
    open_calls: list[tuple[str, str, str]],
) -> dict[str, Any]:
    text = "".join(_texts(parts))
    calls = [p["functionCall"] for p in parts if isinstance(p.get("functionCall"), dict)]
    if not calls:
        return {"role": "assistant", "content": text}
    named = [(str(call.get("name") or ""), call.get("args") or {}) for call in calls]
    key = turn_key(request.namespace, request.contents[:index], named)
    stored = ids.recall(key) or []
    tool_calls = []
    open_calls.clear()
    for n, (call, (name, args)) in enumerate(zip(calls, named, strict=True)):
        echoed = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else ""
        upstream = stored[n] if n < len(stored) else echoed or minted_id(key, n)
        if upstream in used:
            upstream = minted_id(key, n)
        used.add(upstream)
        open_calls.append((echoed, name, upstream))
        arguments = orjson.dumps(args).decode()
        tool_calls.append({"id": upstream, "type": "function", "function": {"name": name, "arguments": arguments}})
    return {"role": "assistant", "content": text or None, "tool_calls": tool_calls}


def _user(
    request: GenerateRequest,
    index: int,
    parts: list[dict[str, Any]],
    open_calls: list[tuple[str, str, str]],
    used: set[str],
) -> list[dict[str, Any]]:
    """Tool messages for the turn's function responses (FIFO against the open calls), then the rest."""
    answers: list[dict[str, Any]] = []
    orphans: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for part in parts:
        response = part.get("functionResponse")
        if isinstance(response, dict):
            name = str(response.get("name") or "")
            content = orjson.dumps(response.get("response", {})).decode()
            upstream = _claim(open_calls, response.get("id"), name)
            if upstream is None:
                upstream = minted_id(f"orphan:{request.namespace}:{index}", len(orphans))
                used.add(upstream)
                orphans.append({"id": upstream, "type": "function", "function": {"name": name, "arguments": "{}"}})
            answers.append({"role": "tool", "tool_call_id": upstream, "content": content})
        else:
            item = _content_item(part)
            if item is not None:
                items.append(item)
    out = answers
    if orphans:  # a response to a call the history does not hold: give it the call it answers
        out = [{"role": "assistant", "content": None, "tool_calls": orphans}, *answers]
    if items:
        texts = [item["text"] for item in items if item["type"] == "text"]
        single = len(items) == 1 and len(texts) == 1
        out.append({"role": "user", "content": texts[0] if single else items})
    return out


def _claim(open_calls: list[tuple[str, str, str]], wanted: Any, name: str) -> str | None:
    """The upstream id of the open call this response answers: same id, else oldest of the same name."""
    for matcher in (
        lambda call: isinstance(wanted, str) and wanted != "" and wanted in (call[0], call[2]),
        lambda call: call[1] == name,
    ):
        for n, call in enumerate(open_calls):
            if matcher(call):
                del open_calls[n]
                return call[2]
    return None


def _texts(parts: list[Any]) -> list[str]:
    out = []
    for part in parts:
        if not isinstance(part, dict) or part.get("thought") is True:
            continue
        if isinstance(part.get("text"), str) and part["text"]:
            out.append(part["text"])
        elif isinstance(part.get("executableCode"), dict):
            code = part["executableCode"]
            out.append(f"```{str(code.get('language') or '').lower()}\n{code.get('code', '')}\n```")
        elif isinstance(part.get("codeExecutionResult"), dict):
            out.append(str(part["codeExecutionResult"].get("output", "")))
    return out


def _content_item(part: dict[str, Any]) -> dict[str, Any] | None:
    """One user content item: text, image (data URL or URL), audio, PDF; other media are refused."""
    texts = _texts([part])
    if texts:
        return {"type": "text", "text": texts[0]}
    inline = part.get("inlineData")
    if isinstance(inline, dict):
        mime = str(inline.get("mimeType") or "").lower()
        data = str(inline.get("data") or "")
        if mime.startswith("image/"):
            return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
        if mime in _AUDIO_FORMATS:
            return {"type": "input_audio", "input_audio": {"data": data, "format": _AUDIO_FORMATS[mime]}}
        if mime == "application/pdf":
            return {"type": "file", "file": {"filename": "document.pdf", "file_data": f"data:{mime};base64,{data}"}}
        if mime.startswith("text/"):
            try:
                return {"type": "text", "text": base64.b64decode(data, validate=True).decode("utf-8")}
            except (binascii.Error, UnicodeDecodeError):
                raise errors.not_translatable(f"inlineData of type {mime} that is not base64 UTF-8 text") from None
        raise errors.not_translatable(f"inlineData of type {mime or 'unknown'}")
    file_data = part.get("fileData")
    if isinstance(file_data, dict):
        mime = str(file_data.get("mimeType") or "").lower()
        uri = str(file_data.get("fileUri") or "")
        if mime.startswith("image/") and uri.startswith(("http://", "https://", "data:")):
            return {"type": "image_url", "image_url": {"url": uri}}
        raise errors.not_translatable(f"fileData of type {mime or 'unknown'} at {uri or 'no URI'}")
    return None  # signature-only and empty parts say nothing to the upstream


# --- tools -----------------------------------------------------------------------------------------


def tool_fields(request: GenerateRequest) -> tuple[list[dict[str, Any]], Any]:
    """(`tools`, `tool_choice`): function declarations only; built-in Google tools have no upstream form.
    Declarations and the calling mode are read as the scripted engine reads them (engines/synth/tools.py)."""
    tools: list[dict[str, Any]] = []
    for decl in declarations(request):
        function: dict[str, Any] = {"name": decl.name}
        if decl.description:
            function["description"] = decl.description
        if isinstance(decl.schema, dict):
            function["parameters"] = decl.schema if decl.json_schema else json_schema(decl.schema)
        else:
            function["parameters"] = {"type": "object", "properties": {}}
        tools.append({"type": "function", "function": function})
    if not isinstance((request.tool_config or {}).get("functionCallingConfig"), dict):
        return tools, None
    mode, allowed = calling_config(request)
    if allowed and mode in ("ANY", "VALIDATED"):
        tools = [t for t in tools if t["function"]["name"] in allowed]
    if mode == "NONE":
        return tools, "none"
    if mode == "ANY":
        if len(allowed) == 1:
            return tools, {"type": "function", "function": {"name": allowed[0]}}
        return tools, "required"
    return tools, "auto"


def json_schema(schema: Any) -> Any:
    """Gemini's OpenAPI-subset Schema as JSON Schema: lowercase types, `nullable` as a "null" type, integer
    keywords as numbers; property names are left alone (the wire has normalised the keywords' spelling)."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_DROPPED or (key == "format" and value == "enum"):
            continue
        if key == "type":
            value = _TYPES.get(value, "string") if isinstance(value, int) else str(value).lower()
            if value == "type_unspecified":
                continue
        elif key == "properties" and isinstance(value, dict):
            value = {name: json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "not", "additionalProperties"):
            value = json_schema(value)
        elif key in _SCHEMA_INTS and isinstance(value, str) and value.isdigit():
            value = int(value)
        out[key] = value
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif "anyOf" in out:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    return out


def response_format_of(generation: dict[str, Any], schema_supported: bool) -> dict[str, Any] | None:
    """`response_format` for JSON answers: json_schema when a schema is given and the upstream supports it,
    else json_object; None for text answers."""
    raw_json = generation.get("responseJsonSchema")
    schema = raw_json if isinstance(raw_json, dict) else None
    if schema is None and isinstance(generation.get("responseSchema"), dict):
        schema = json_schema(generation.get("responseSchema"))
    mime = str(generation.get("responseMimeType") or "").lower()
    if mime != "application/json" and schema is None:
        return None
    if schema is not None and schema_supported:
        return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}
    return {"type": "json_object"}
