"""OpenAI-shaped requests -> the native Gemini request body the rest of the wire already serves.

A chat-completions body becomes the generateContent body a native client would have sent for the same
conversation: system/developer messages -> `systemInstruction`; user/assistant/tool messages -> `contents`
(assistant -> role "model", `tool_calls` -> functionCall parts, consecutive tool messages -> one user turn of
functionResponse parts); image parts -> inlineData (data URLs) or fileData (http URLs); `tools` ->
functionDeclarations with `parametersJsonSchema`; `tool_choice` -> toolConfig; `response_format` ->
responseMimeType / responseJsonSchema; sampling fields, `n`, `stop` and the token limits -> generationConfig;
`reasoning_effort` and `extra_body.google.thinking_config` -> thinkingConfig. Nothing is added that the caller
did not ask for, so the same prompt gives the same native body (and so the same fingerprint and answer).

Every problem raises an ApiError (printed in this surface's shape by the caller), never anything else.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.limits import MAX_EMBEDDING_DIMENSIONS

# Request fields this surface reads, and those it accepts and ignores (OpenAI fields Gemini has no use for).
_READ = frozenset(
    {
        "model",
        "messages",
        "stream",
        "stream_options",
        "tools",
        "tool_choice",
        "n",
        "stop",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "response_format",
        "reasoning_effort",
        "extra_body",
        "google",
    }
)
IGNORED = frozenset(
    {
        "user",
        "metadata",
        "store",
        "parallel_tool_calls",
        "service_tier",
        "modalities",
        "audio",
        "prediction",
        "web_search_options",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "function_call",
        "functions",
        "safety_identifier",
        "prompt_cache_key",
        "verbosity",
    }
)
_SNAKE = re.compile(r"(?<!^)([A-Z])")
_CAMEL = re.compile(r"_([a-z])")
# reasoning_effort -> thinking budget (Gemini 2.5) as Google's compatibility guide lists it.
_BUDGETS = {"none": 0, "minimal": 1024, "low": 1024, "medium": 8192, "high": 24576}
_LEVELS = {"none": "minimal", "minimal": "minimal", "low": "low", "medium": "medium", "high": "high"}
_DATA_URL = re.compile(r"data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?:;[\w=.+-]+)*;base64,(?P<data>.*)", re.DOTALL)
_AUDIO_MIME = {"wav": "audio/wav", "mp3": "audio/mp3"}
_EXT_MIME = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif"}
MAX_N = 8  # production's candidateCount ceiling
MAX_DIMENSIONS = MAX_EMBEDDING_DIMENSIONS  # the largest embedding production returns (protocol/limits.py)


@lru_cache(maxsize=512)
def snake(name: str) -> str:
    return _SNAKE.sub(r"_\1", name).lower()


def camel(name: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


def bad(message: str) -> errors.ApiError:
    return errors.invalid_argument(message)


def type_error(path: str, type_name: str, value: Any) -> errors.ApiError:
    return errors.payload_violations([errors.invalid_value(path, type_name, orjson.dumps(value).decode()[:200])])


def _number(body: dict[str, Any], name: str) -> float | int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise type_error(name, "TYPE_FLOAT", value)
    return value


def integer(body: dict[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise type_error(name, "TYPE_INT32", value)
    if not -(2**31) <= value < 2**31:
        raise type_error(name, "TYPE_INT32", value)
    return int(value)


@dataclass(frozen=True)
class Chat:
    """A chat-completions request, translated."""

    model: str  # as written, without "models/"
    native: dict[str, Any]  # the generateContent body
    stream: bool
    include_usage: bool


def normalise_keys(body: dict[str, Any]) -> dict[str, Any]:
    """Top-level names in snake_case (proto JSON takes lowerCamel too); an unknown name is production's 400."""
    out: dict[str, Any] = {}
    unknown = []
    for key, value in body.items():
        name = snake(key)
        if name in _READ or name in IGNORED:
            out[name] = value
        else:
            unknown.append(errors.unknown_name(key, ""))
    if unknown:
        raise errors.payload_violations(unknown)
    return out


def model_name(body: dict[str, Any]) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        raise bad("model is not specified.") if model is None else type_error("model", "TYPE_STRING", model)
    return model.removeprefix("models/")


def chat(raw: dict[str, Any]) -> Chat:
    """The native body for a chat-completions request body (a JSON object)."""
    body = normalise_keys(raw)
    model = model_name(body)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise type_error("stream", "TYPE_BOOL", stream)
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise type_error("stream_options", "TYPE_MESSAGE", options)
    include_usage = bool((options or {}).get("include_usage", (options or {}).get("includeUsage")))
    native: dict[str, Any] = {}
    system, contents = _messages(body.get("messages"))
    native["contents"] = contents
    if system:
        native["systemInstruction"] = {"parts": system}
    tools = _tools(body.get("tools"))
    if tools:
        native["tools"] = tools
    tool_config = _tool_choice(body.get("tool_choice"))
    if tool_config:
        native["toolConfig"] = tool_config
    config = _generation_config(body, model)
    if config:
        native["generationConfig"] = config
    google = google_options(body)
    cached = google.get("cached_content", google.get("cachedContent"))
    if cached is not None:
        if not isinstance(cached, str):
            raise type_error("extra_body.google.cached_content", "TYPE_STRING", cached)
        native["cachedContent"] = cached
    return Chat(model, native, bool(stream), include_usage)


def _text_of(content: Any, where: str) -> list[dict[str, Any]]:
    """Text parts of a system/assistant/tool content: a string or a list of text parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict) and item.get("type") in ("text", None) and isinstance(item.get("text"), str):
                parts.append({"text": item["text"]})
            elif isinstance(item, str):
                parts.append({"text": item})
            else:
                raise bad(f"{where}: only text content parts are supported here.")
        return parts
    raise type_error(where + ".content", "TYPE_STRING", content)


def _user_parts(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    if not isinstance(content, list):
        raise type_error(where + ".content", "TYPE_STRING", content)
    parts: list[dict[str, Any]] = []
    for item in content:
        if not isinstance(item, dict):
            raise bad(f"{where}: a content part must be an object.")
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str):
            parts.append({"text": item["text"]})
        elif kind == "image_url":
            image = item.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            if not isinstance(url, str):
                raise bad(f"{where}: image_url.url is not specified.")
            parts.append(_url_part(url, where))
        elif kind == "input_audio" and isinstance(item.get("input_audio"), dict):
            audio = item["input_audio"]
            data, fmt = audio.get("data"), audio.get("format")
            if not isinstance(data, str) or not isinstance(fmt, str) or fmt not in _AUDIO_MIME:
                raise bad(f"{where}: input_audio needs base64 data and a format of wav or mp3.")
            parts.append({"inlineData": {"mimeType": _AUDIO_MIME[fmt], "data": _base64(data, where)}})
        elif kind == "file" and isinstance(item.get("file"), dict) and isinstance(item["file"].get("file_data"), str):
            parts.append(_url_part(item["file"]["file_data"], where))
        else:
            raise bad(f"{where}: unsupported content part type {str(kind)[:40]!r}.")
    return parts


def _base64(data: str, where: str) -> str:
    try:
        binascii.a2b_base64(data.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise bad(f"{where}: the data is not valid base64.") from None
    return data


def _url_part(url: str, where: str) -> dict[str, Any]:
    """A data URL as inlineData, any other URL as fileData (the model fetches it)."""
    if url.startswith("data:"):
        m = _DATA_URL.fullmatch(url)
        if not m:
            raise bad(f"{where}: a data URL must be base64 (data:<mime>;base64,<data>).")
        return {"inlineData": {"mimeType": m["mime"] or "image/jpeg", "data": _base64(m["data"], where)}}
    if not url.startswith(("http://", "https://", "gs://")):
        raise bad(f"{where}: an image URL must be a data URL or an http(s) URL.")
    ext = url.rsplit("?", 1)[0].rsplit(".", 1)[-1].lower()
    return {"fileData": {"mimeType": _EXT_MIME.get(ext, "image/jpeg"), "fileUri": url}}


def _messages(messages: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(systemInstruction parts, contents)."""
    if messages is None:
        raise bad("messages is not specified.")
    if not isinstance(messages, list):
        raise type_error("messages", "TYPE_MESSAGE", messages)
    if not messages:
        raise bad("messages must not be empty.")
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    call_names: dict[str, str] = {}
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise type_error(where, "TYPE_MESSAGE", message)
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            system += _text_of(content, where)
        elif role == "user":
            contents.append({"role": "user", "parts": _user_parts(content, where)})
        elif role == "assistant":
            parts = _text_of(content, where) if not isinstance(content, str) or content else []
            parts += _assistant_calls(message.get("tool_calls"), where, call_names)
            if parts:
                contents.append({"role": "model", "parts": parts})
        elif role in ("tool", "function"):
            part = _tool_result(message, where, call_names)
            last = contents[-1] if contents else None
            if last is not None and last["role"] == "user" and all("functionResponse" in p for p in last["parts"]):
                last["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
        else:
            raise bad(f"{where}.role: unsupported role {str(role)[:40]!r}.")
    if not contents:
        raise bad("messages must hold at least one user, assistant or tool message.")
    return system, contents


def _assistant_calls(calls: Any, where: str, names: dict[str, str]) -> list[dict[str, Any]]:
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise type_error(where + ".tool_calls", "TYPE_MESSAGE", calls)
    parts = []
    for j, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        name = fn.get("name") if isinstance(fn, dict) else None
        if not isinstance(name, str) or not name:
            raise bad(f"{where}.tool_calls[{j}].function.name is not specified.")
        arguments = fn.get("arguments") if isinstance(fn, dict) else None
        args: Any = {}
        if isinstance(arguments, str) and arguments.strip():
            try:
                args = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                raise bad(f"{where}.tool_calls[{j}].function.arguments is not valid JSON.") from None
        elif isinstance(arguments, dict):
            args = arguments
        if not isinstance(args, dict):
            raise bad(f"{where}.tool_calls[{j}].function.arguments must be a JSON object.")
        if isinstance(call.get("id"), str):
            names[call["id"]] = name
        part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
        signature = _signature(call)
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def _signature(call: dict[str, Any]) -> str | None:
    """Gemini's thought signature, carried on this surface in `extra_content.google.thought_signature`."""
    extra = call.get("extra_content")
    google = extra.get("google") if isinstance(extra, dict) else None
    value = google.get("thought_signature") if isinstance(google, dict) else None
    return value if isinstance(value, str) and value else None


def _tool_result(message: dict[str, Any], where: str, names: dict[str, str]) -> dict[str, Any]:
    call_id = message.get("tool_call_id")
    name = names.get(call_id) if isinstance(call_id, str) else None
    name = name or message.get("name")
    if not isinstance(name, str) or not name:
        raise bad(f"{where}.tool_call_id does not name a tool call of an earlier assistant message.")
    text = "".join(p["text"] for p in _text_of(message.get("content"), where))
    try:
        value = orjson.loads(text) if text else None
    except orjson.JSONDecodeError:
        value = None
    response = value if isinstance(value, dict) else {"result": value if value is not None else text}
    return {"functionResponse": {"name": name, "response": response}}


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise type_error("tools", "TYPE_MESSAGE", tools)
    declarations = []
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type", "function") != "function" or not isinstance(fn, dict):
            raise bad(f"tools[{i}]: only function tools are supported.")
        name = fn.get("name")
        if not isinstance(name, str):
            raise bad(f"tools[{i}].function.name is not specified.")
        decl: dict[str, Any] = {"name": name}
        if isinstance(fn.get("description"), str):
            decl["description"] = fn["description"]
        parameters = fn.get("parameters")
        if parameters is not None:
            if not isinstance(parameters, dict):
                raise type_error(f"tools[{i}].function.parameters", "TYPE_MESSAGE", parameters)
            decl["parametersJsonSchema"] = parameters
        declarations.append(decl)
    return [{"functionDeclarations": declarations}] if declarations else []


def _tool_choice(choice: Any) -> dict[str, Any] | None:
    if choice is None:
        return None
    modes = {"none": "NONE", "auto": "AUTO", "required": "ANY"}
    if isinstance(choice, str):
        if choice not in modes:
            raise bad(f"tool_choice: unsupported value {choice[:40]!r} (none, auto, required or a function).")
        return {"functionCallingConfig": {"mode": modes[choice]}}
    fn = choice.get("function") if isinstance(choice, dict) else None
    name = fn.get("name") if isinstance(fn, dict) else None
    if not isinstance(name, str) or not name:
        raise bad('tool_choice: a named choice is {"type": "function", "function": {"name": ...}}.')
    return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}


def _generation_config(body: dict[str, Any], model: str) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for name, native in (
        ("temperature", "temperature"),
        ("top_p", "topP"),
        ("presence_penalty", "presencePenalty"),
        ("frequency_penalty", "frequencyPenalty"),
    ):
        value = _number(body, name)
        if value is not None:
            config[native] = value
    n = integer(body, "n")
    if n is not None:
        if not 1 <= n <= MAX_N:
            raise bad(f"n: must be between 1 and {MAX_N}.")
        config["candidateCount"] = n
    seed = integer(body, "seed")
    if seed is not None:
        config["seed"] = seed
    limit = integer(body, "max_completion_tokens")
    limit = limit if limit is not None else integer(body, "max_tokens")
    if limit is not None:
        if limit < 1:
            raise bad("max_tokens: must be a positive integer.")
        config["maxOutputTokens"] = limit
    stop = body.get("stop")
    if stop is not None:
        stops = [stop] if isinstance(stop, str) else stop
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise type_error("stop", "TYPE_STRING", stop)
        if stops:
            config["stopSequences"] = stops
    config.update(_response_format(body.get("response_format")))
    thinking = _thinking(body, model)
    if thinking:
        config["thinkingConfig"] = thinking
    return config


def _response_format(fmt: Any) -> dict[str, Any]:
    if fmt is None:
        return {}
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    if kind == "text":
        return {}
    if kind == "json_object":
        return {"responseMimeType": "application/json"}
    if kind == "json_schema":
        spec = fmt.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise bad("response_format.json_schema.schema is not specified.")
        return {"responseMimeType": "application/json", "responseJsonSchema": schema}
    raise bad("response_format.type: must be text, json_object or json_schema.")


def google_options(body: dict[str, Any]) -> dict[str, Any]:
    """Gemini's own options: `extra_body.google` (as the openai SDKs send extra_body={"extra_body": ...})."""
    extra = body.get("extra_body")
    google = extra.get("google") if isinstance(extra, dict) else body.get("google")
    if extra is not None and not isinstance(extra, dict):
        raise type_error("extra_body", "TYPE_MESSAGE", extra)
    if google is None:
        return {}
    if not isinstance(google, dict):
        raise type_error("extra_body.google", "TYPE_MESSAGE", google)
    return google


def _thinking(body: dict[str, Any], model: str) -> dict[str, Any]:
    given = google_options(body).get("thinking_config", google_options(body).get("thinkingConfig"))
    effort = body.get("reasoning_effort")
    if given is not None and effort is not None:
        raise bad("reasoning_effort and thinking_config cannot both be set.")
    if given is not None:
        if not isinstance(given, dict):
            raise type_error("extra_body.google.thinking_config", "TYPE_MESSAGE", given)
        return {camel(k): v for k, v in given.items()}
    if effort is None:
        return {}
    if not isinstance(effort, str) or effort not in _BUDGETS:
        raise bad(f"reasoning_effort: unsupported value {str(effort)[:40]!r} (none, minimal, low, medium, high).")
    if model.startswith("gemini-3"):
        return {"thinkingLevel": _LEVELS[effort]}
    return {"thinkingBudget": _BUDGETS[effort]}


@dataclass(frozen=True)
class Embed:
    model: str
    texts: list[str]
    dimensions: int | None
    base64: bool


def embeddings(raw: dict[str, Any]) -> Embed:
    body = {snake(k): v for k, v in raw.items()}
    unknown = [k for k in raw if snake(k) not in ("model", "input", "dimensions", "encoding_format", "user")]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(k, "") for k in unknown])
    model = model_name(body)
    given = body.get("input")
    if given is None:
        raise bad("input is not specified.")
    texts = [given] if isinstance(given, str) else given
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise bad("input: must be a string or a non-empty list of strings.")
    dims = integer(body, "dimensions")
    if dims is not None and not 1 <= dims <= MAX_DIMENSIONS:
        raise bad(f"dimensions: must be between 1 and {MAX_DIMENSIONS}.")
    fmt = body.get("encoding_format", "float")
    if fmt not in ("float", "base64"):
        raise bad("encoding_format: must be float or base64.")
    return Embed(model, texts, dims, fmt == "base64")
