"""One spelling past the wire (emulator/wire/validate.py): proto JSON takes snake_case field names as well as
lowerCamelCase, and google-genai's Python SDK sends snake_case inside nested objects
(`generationConfig.thinkingConfig.thinking_budget`, `tools[].functionDeclarations[].parameters_json_schema`,
`inlineData.mime_type`, `responseSchema.property_ordering`). Rules and engines see lowerCamelCase at every depth,
so a snake_case request gets byte for byte the answer of its lowerCamelCase twin; the caller's own data (function
args and responses, JSON Schema documents, Schema property names, labels) keeps its keys; the journal keeps the
body as sent."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from google.genai import types

from gemini_emulator.protocol.routes import DEVELOPER
from gemini_emulator.seam import GenerateRequest
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.wire import validate

FLASH, PRO = "gemini-2.5-flash", "gemini-2.5-pro"
VERTEX_BASE = "/v1beta1/projects/p/locations/us-central1/publishers/google/models"
# Values whose keys are the caller's data: copied as they are. Schema `properties` keep their keys (names).
FREE_FORM = frozenset({"args", "response", "responseJsonSchema", "parametersJsonSchema", "labels"})


def snake_twin(value: Any) -> Any:
    """`value` with every field name in snake_case, as proto JSON allows, and the caller's data left alone."""
    if isinstance(value, list):
        return [snake_twin(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        name = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
        if key in FREE_FORM:
            out[name] = item
        elif key == "properties":
            out[name] = {prop: snake_twin(sub) for prop, sub in item.items()}
        else:
            out[name] = snake_twin(item)
    return out


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


# A JSON Schema document: its keys are the caller's, snake_case ones included (`max_items` is no JSON Schema
# keyword, so it must not become `maxItems` and cap the list).
LOOKUP_JSON_SCHEMA = {
    "type": "object",
    "properties": {
        "user_id": {"type": "integer"},
        "nick_names": {"type": "array", "items": {"type": "string"}, "minItems": 3, "max_items": 1},
    },
    "required": ["user_id", "nick_names"],
    "additionalProperties": False,
}
WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
        "type": "OBJECT",
        "properties": {"city_name": {"type": "STRING"}, "days_ahead": {"type": "INTEGER", "minimum": 1}},
        "required": ["city_name"],
        "propertyOrdering": ["city_name", "days_ahead"],
    },
}
LOOKUP = {"name": "lookup_user", "description": "Look up a user", "parametersJsonSchema": LOOKUP_JSON_SCHEMA}
PERSON_SCHEMA = {
    "type": "OBJECT",
    "properties": {
        "first_name": {"type": "STRING"},
        "nick_names": {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": "2", "maxItems": "2"},
        "home": {"anyOf": [{"type": "STRING", "format": "enum", "enum": ["Oslo", "Lima"]}]},
    },
    "required": ["first_name", "nick_names", "home"],
    "propertyOrdering": ["nick_names", "home", "first_name"],
}

# Every depth at which google-genai or another SDK puts a field name, in one request.
DEEP = {
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "What is the weather in Paris?"},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}, "videoMetadata": {"fps": 1}},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "get_weather", "args": {"city_name": "Paris"}}, "thoughtSignature": "c2ln"}
            ],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 21}}}]},
    ],
    "systemInstruction": {"role": "user", "parts": [{"text": "Be terse."}]},
    "generationConfig": {
        "maxOutputTokens": 200,
        "stopSequences": ["STOP"],
        "responseMimeType": "application/json",
        "responseSchema": PERSON_SCHEMA,
        "thinkingConfig": {"thinkingBudget": 64, "includeThoughts": True},
        "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": "Kore"}}},
    },
    "tools": [
        {"functionDeclarations": [WEATHER, LOOKUP]},
        {"googleSearchRetrieval": {"dynamicRetrievalConfig": {"mode": "MODE_DYNAMIC", "dynamicThreshold": 0.5}}},
        {"codeExecution": {}},
    ],
    "toolConfig": {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["lookup_user"]},
        "retrievalConfig": {"latLng": {"latitude": 1.5, "longitude": 2.5}},
    },
    "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
    "labels": {"team_name": "core", "costCenter": "a1"},
}


def _post(
    http: httpx.Client,
    gemini: Gemini,
    body: Any,
    model: str = FLASH,
    method: str = "generateContent",
    query: str = "",
    vertex: bool = False,
) -> httpx.Response:
    if vertex:
        url, headers = f"{VERTEX_BASE}/{model}:{method}{query}", {"authorization": f"Bearer {gemini.api_key}"}
    else:
        url, headers = f"/v1beta/models/{model}:{method}{query}", {"x-goog-api-key": gemini.api_key}
    return http.post(url, content=json.dumps(body), headers=headers | {"content-type": "application/json"})


def test_the_engine_reads_lower_camel_case_at_every_depth_and_the_journal_keeps_what_was_sent(
    gemini_shared: Gemini, http: httpx.Client
) -> None:
    seen: list[GenerateRequest] = []
    gemini_shared.script({"text": "ok", "times": "forever"}, predicate=lambda r: seen.append(r) or True)
    sent = snake_twin(DEEP)
    assert sent["generation_config"]["thinking_config"]["thinking_budget"] == 64  # the twin really is snake_case
    assert sent["tools"][0]["function_declarations"][1]["parameters_json_schema"] is LOOKUP_JSON_SCHEMA
    response = _post(http, gemini_shared, sent)
    assert response.status_code == 200, response.text
    request = seen[-1]
    assert request.body == DEEP
    assert request.generation_config == DEEP["generationConfig"]
    assert request.tools == DEEP["tools"] and request.tool_config == DEEP["toolConfig"]
    assert request.system_instruction == DEEP["systemInstruction"]
    assert request.safety_settings == DEEP["safetySettings"] and request.contents == DEEP["contents"]
    assert gemini_shared.journal().last.body == sent  # as the client sent it

    _post(http, gemini_shared, DEEP)
    assert seen[-1].body == DEEP and seen[-1].fingerprint == request.fingerprint  # same request, same seed


def test_sent_in_both_spellings_the_lower_camel_case_field_wins(gemini_shared: Gemini, http: httpx.Client) -> None:
    seen: list[GenerateRequest] = []
    gemini_shared.script({"text": "ok"}, predicate=lambda r: seen.append(r) or True)
    body = {
        "generation_config": {"candidate_count": 2},
        "contents": [user("hi")],
        "generationConfig": {"temperature": 0.5, "top_k": 3, "topK": 4},
    }
    assert _post(http, gemini_shared, body).status_code == 200
    assert seen[-1].generation_config == {"temperature": 0.5, "topK": 4}
    assert list(seen[-1].body) == ["contents", "generationConfig"]  # where the kept spelling was sent


@pytest.mark.parametrize("written", ['"thinkingBudget":0', '"thinking_budget":0'], ids=["camelCase", "as-sent"])
def test_a_request_matcher_holds_on_the_json_as_sent_or_in_lower_camel_case(
    gemini_shared: Gemini, http: httpx.Client, written: str
) -> None:
    gemini_shared.script({"match": {"request": written}, "text": "matched"})
    body = {"contents": [user("hi")], "generation_config": {"thinking_config": {"thinking_budget": 0}}}
    answer = _post(http, gemini_shared, body).json()
    assert _text(answer) == "matched"


def _thought_parts(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in answer["candidates"][0]["content"]["parts"] if p.get("thought")]


def _call(answer: dict[str, Any]) -> dict[str, Any]:
    return next(p["functionCall"] for p in answer["candidates"][0]["content"]["parts"] if "functionCall" in p)


def _text(answer: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in answer["candidates"][0]["content"]["parts"] if not p.get("thought"))


def _error(answer: dict[str, Any]) -> str:
    return str(answer["error"]["message"])


# (request, what the answer shows only when the snake_case fields were read); each request is sent in both
# spellings and must get the same bytes.
CASES: dict[str, tuple[dict[str, Any], Callable[[Any], bool]]] = {
    "thinking_config.thinking_budget, include_thoughts": (
        {
            "contents": [user("Why is the sky blue?")],
            "generationConfig": {"thinkingConfig": {"thinkingBudget": 40, "includeThoughts": True}},
        },
        lambda a: bool(_thought_parts(a)),
    ),
    "thinking_config.thinking_budget 0": (
        {"contents": [user("Why is the sky blue?")], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}},
        lambda a: "thoughtsTokenCount" not in a["usageMetadata"],
    ),
    "function_declarations[].parameters_json_schema, function_calling_config.allowed_function_names": (
        {
            "contents": [user("What is the weather in Paris?")],
            "tools": [{"functionDeclarations": [WEATHER, LOOKUP]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["lookup_user"]}},
        },
        lambda a: (
            _call(a)["name"] == "lookup_user"
            and set(_call(a)["args"]) == {"user_id", "nick_names"}
            and len(_call(a)["args"]["nick_names"]) >= 3
        ),  # minItems read, the caller's `max_items` not a keyword
    ),
    "function_declarations[].parameters (Schema)": (
        {"contents": [user("What is the weather in Paris?")], "tools": [{"functionDeclarations": [WEATHER]}]},
        lambda a: list(_call(a)["args"])[0] == "city_name",
    ),
    "response_json_schema": (
        {
            "contents": [user("Make up a user")],
            "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": LOOKUP_JSON_SCHEMA},
        },
        lambda a: set(json.loads(_text(a))) == {"user_id", "nick_names"},
    ),
    "response_schema.property_ordering, max_items, any_of": (
        {
            "contents": [user("Make up a person")],
            "generationConfig": {"responseMimeType": "application/json", "responseSchema": PERSON_SCHEMA},
        },
        lambda a: (
            list(json.loads(_text(a))) == ["nick_names", "home", "first_name"]
            and len(json.loads(_text(a))["nick_names"]) == 2
            and json.loads(_text(a))["home"] in ("Oslo", "Lima")
        ),
    ),
    "system_instruction, stop_sequences, max_output_tokens": (
        {
            "contents": [user("Tell me a long story about the sea")],
            "systemInstruction": {"parts": [{"text": "Be terse."}]},
            "generationConfig": {"maxOutputTokens": 5},
        },
        lambda a: a["candidates"][0]["finishReason"] == "MAX_TOKENS" and a["usageMetadata"]["promptTokenCount"] > 8,
    ),
    "inline_data.mime_type": (
        {
            "contents": [
                {
                    "role": "user",
                    "parts": [
                        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                        {"text": "What is it?"},
                    ],
                }
            ]
        },
        lambda a: a["usageMetadata"]["promptTokenCount"] > 258,
    ),
    "function_call / function_response history": (
        {
            "contents": DEEP["contents"],
            "tools": [{"functionDeclarations": [WEATHER]}],
        },
        lambda a: "temp c 21" in _text(a),
    ),
    "code_execution": (
        {"contents": [user("What is 7 times 6? Run code.")], "tools": [{"codeExecution": {}}]},
        lambda a: any("executableCode" in p for p in a["candidates"][0]["content"]["parts"]),
    ),
    "rule: thinking_budget 0 on a Pro model": (
        {"contents": [user("hi")], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}, "model": PRO},
        lambda a: "only works in thinking mode" in _error(a),
    ),
    "rule: presence_penalty on 2.5": (
        {"contents": [user("hi")], "generationConfig": {"presencePenalty": 0.5}},
        lambda a: "Penalty is not enabled" in _error(a),
    ),
    "rule: function_calling_config without declarations": (
        {"contents": [user("hi")], "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}},
        lambda a: "without function_declarations" in _error(a),
    ),
    "rule: response_schema properties on a STRING": (
        {
            "contents": [user("hi")],
            "generationConfig": {"responseSchema": {"type": "STRING", "properties": {"a_b": {"type": "STRING"}}}},
        },
        lambda a: "only allowed for OBJECT type" in _error(a),
    ),
}


@pytest.mark.parametrize("vertex", [False, True], ids=["developer", "vertex"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_snake_case_request_gets_the_answer_of_its_lower_camel_case_twin(
    gemini_shared: Gemini, http: httpx.Client, name: str, vertex: bool
) -> None:
    case, shows = CASES[name]
    body = dict(case)
    model = body.pop("model", FLASH)
    camel = _post(http, gemini_shared, body, model=model, vertex=vertex)
    snake = _post(http, gemini_shared, snake_twin(body), model=model, vertex=vertex)
    assert shows(camel.json()), camel.text
    assert (snake.status_code, snake.content) == (camel.status_code, camel.content)
    assert gemini_shared.journal().last.body == snake_twin(body)


@pytest.mark.parametrize("query", ["?alt=sse", ""], ids=["sse", "json-array"])
def test_streams_too(gemini_shared: Gemini, http: httpx.Client, query: str) -> None:
    body = CASES["thinking_config.thinking_budget, include_thoughts"][0]
    camel = _post(http, gemini_shared, body, method="streamGenerateContent", query=query)
    snake = _post(http, gemini_shared, snake_twin(body), method="streamGenerateContent", query=query)
    assert b'"thought": true' in camel.content
    assert snake.content == camel.content


def test_count_tokens_reads_a_snake_case_generate_content_request(gemini_shared: Gemini, http: httpx.Client) -> None:
    inner = {
        "model": f"models/{FLASH}",
        "contents": [user("count these words please")],
        "systemInstruction": {"parts": [{"text": "Be terse and precise about everything."}]},
        "tools": [{"functionDeclarations": [WEATHER]}],
    }
    alone = _post(http, gemini_shared, {"contents": inner["contents"]}, method="countTokens")
    camel = _post(http, gemini_shared, {"generateContentRequest": inner}, method="countTokens")
    snake = _post(http, gemini_shared, snake_twin({"generateContentRequest": inner}), method="countTokens")
    assert camel.json()["totalTokens"] > alone.json()["totalTokens"]  # the system instruction and tools counted
    assert snake.content == camel.content


@pytest.mark.parametrize(
    ("method", "body", "vertex", "size"),
    [
        ("embedContent", {"content": {"parts": [{"text": "hi"}]}, "outputDimensionality": 8}, False, 8),
        (
            "embedContent",
            {"content": {"parts": [{"text": "hi"}]}, "embedContentConfig": {"outputDimensionality": 4}},
            True,
            4,
        ),
        (
            "batchEmbedContents",
            {"requests": [{"content": {"parts": [{"text": "hi"}]}, "outputDimensionality": 3}]},
            False,
            3,
        ),
        ("predict", {"instances": [{"content": "hi"}], "parameters": {"outputDimensionality": 5}}, True, 5),
    ],
    ids=["embedContent", "vertex-embedContent", "batchEmbedContents", "predict"],
)
def test_embedding_requests_are_normalised_too(
    gemini_shared: Gemini, http: httpx.Client, method: str, body: dict[str, Any], vertex: bool, size: int
) -> None:
    model = "gemini-embedding-001"
    camel = _post(http, gemini_shared, body, model=model, method=method, vertex=vertex)
    snake = _post(http, gemini_shared, snake_twin(body), model=model, method=method, vertex=vertex)
    assert str(size) in json.dumps(snake_twin(body))
    values = re.findall(r'"values": \[([^\]]*)\]', camel.text)
    assert values and all(len(v.split(",")) == size for v in values), camel.text
    assert snake.content == camel.content


def test_google_genai_sends_snake_case_and_gets_the_camel_case_answer(
    gemini_shared: Gemini, http: httpx.Client
) -> None:
    """The real Python SDK: what it sends is snake_case at depth; the same body in lowerCamelCase gets the
    same bytes, and the SDK's answer honours the nested fields."""
    config = types.GenerateContentConfig(
        system_instruction="Be terse.",
        thinking_config=types.ThinkingConfig(thinking_budget=48, include_thoughts=True),
        tools=[
            types.Tool(function_declarations=[types.FunctionDeclaration(**WEATHER)]),  # type: ignore[arg-type]
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name=LOOKUP["name"],
                        description=LOOKUP["description"],
                        parameters_json_schema=LOOKUP_JSON_SCHEMA,
                    )
                ]
            ),
        ],
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode="ANY", allowed_function_names=["lookup_user"])
        ),
    )
    contents = [types.Content(role="user", parts=[types.Part(text="Who is the weather user in Paris?")])]
    answer = gemini_shared.client.models.generate_content(model=FLASH, contents=contents, config=config)
    assert answer.function_calls and answer.function_calls[0].name == "lookup_user"
    assert answer.usage_metadata and answer.usage_metadata.thoughts_token_count
    sent = gemini_shared.journal().last.body
    wire = json.dumps(sent)
    assert '"thinking_budget": 48' in wire and '"parameters_json_schema"' in wire  # what the SDK really sends
    camel = _camel_twin(sent)
    assert "thinking_budget" not in json.dumps(camel) and '"max_items": 1' in json.dumps(camel)
    assert _post(http, gemini_shared, sent).content == _post(http, gemini_shared, camel).content


def _camel_twin(value: Any) -> Any:
    """The inverse of snake_twin."""
    if isinstance(value, list):
        return [_camel_twin(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        name = re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), key)
        if name in FREE_FORM:
            out[name] = item
        elif name == "properties":
            out[name] = {prop: _camel_twin(sub) for prop, sub in item.items()}
        else:
            out[name] = _camel_twin(item)
    return out


def test_a_lower_camel_case_body_is_handed_back_as_is_and_a_snake_case_one_is_copied() -> None:
    """The hot path's cost: a body already in lowerCamelCase is not copied; the one sent is never changed."""
    assert validate.check_fields(DEEP, "GenerateContentRequest", DEVELOPER, "v1beta") is DEEP
    sent = snake_twin(DEEP)
    kept = copy.deepcopy(sent)
    normalised = validate.check_fields(sent, "GenerateContentRequest", DEVELOPER, "v1beta")
    assert normalised == DEEP and sent == kept
    assert normalised["tools"][0]["functionDeclarations"][1]["parametersJsonSchema"] is LOOKUP_JSON_SCHEMA
    assert normalised["labels"] is DEEP["labels"]  # a Struct: the caller's keys, the very same object
