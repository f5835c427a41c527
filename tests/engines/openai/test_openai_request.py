"""Gemini request -> OpenAI chat body: what the upstream receives for each part of a Gemini request."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import httpx
import pytest
import respx
from google import genai
from google.genai import types

from gemini_emulator.engines.openai.engine import OpenAIEngine

from openai_fakes import CHAT_URL, GENERATE, KEY, SECRET, completion, sent, user

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


def ask(wire: httpx.Client, upstream: respx.MockRouter, body: dict[str, Any], path: str = GENERATE) -> dict[str, Any]:
    """Send `body` to the emulator and return what the upstream received."""
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion()))
    response = wire.post(path, json=body, headers=KEY)
    assert response.status_code == 200, response.text
    return sent(route)


def test_contents_and_system_instruction_become_chat_messages(wire, upstream) -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Answer in French."}]},
        "contents": [
            {
                "role": "user",
                "parts": [{"text": "What is this?"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}],
            },
            {"role": "model", "parts": [{"text": "A "}, {"text": "picture."}]},
            user("Thanks"),
        ],
    }
    assert ask(wire, upstream, body)["messages"] == [
        {"role": "system", "content": "Be brief.\nAnswer in French."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
        {"role": "assistant", "content": "A picture."},
        {"role": "user", "content": "Thanks"},
    ]


def test_snake_case_parts_and_audio_pdf_text_media(wire, upstream) -> None:
    text = base64.b64encode(b"plain words").decode()
    parts = [
        {"inline_data": {"mime_type": "audio/wav", "data": "UklGRg=="}},
        {"inline_data": {"mime_type": "application/pdf", "data": "JVBERi0="}},
        {"inline_data": {"mime_type": "text/plain", "data": text}},
        {"file_data": {"mime_type": "image/jpeg", "file_uri": "https://example.com/cat.jpg"}},
    ]
    assert ask(wire, upstream, {"contents": [{"role": "user", "parts": parts}]})["messages"][0]["content"] == [
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        {"type": "file", "file": {"filename": "document.pdf", "file_data": "data:application/pdf;base64,JVBERi0="}},
        {"type": "text", "text": "plain words"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
    ]


def test_media_without_an_openai_form_is_a_clear_400(wire, upstream) -> None:
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion()))
    body = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "video/mp4", "data": "AAAA"}}]}]}
    response = wire.post(GENERATE, json=body, headers=KEY)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": 400,
        "message": "The openai engine cannot send inlineData of type video/mp4 to an OpenAI-compatible upstream.",
        "status": "INVALID_ARGUMENT",
    }
    assert not route.called


def test_thought_parts_and_signatures_in_history_are_skipped(wire, upstream) -> None:
    body = {
        "contents": [
            user("Hi"),
            {
                "role": "model",
                "parts": [
                    {"text": "Let me think about greetings.", "thought": True},
                    {"text": "Hello!", "thoughtSignature": "c2ln"},
                    {"text": "", "thoughtSignature": "c2ln"},
                ],
            },
            user("Again"),
        ]
    }
    assert ask(wire, upstream, body)["messages"] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "Again"},
    ]


def test_generation_config_becomes_sampling_fields(wire, upstream) -> None:
    config = {
        "temperature": 0.2,
        "topP": 0.9,
        "topK": 40,
        "maxOutputTokens": 64,
        "stopSequences": ["END"],
        "seed": 7,
        "presencePenalty": 0.5,
        "frequency_penalty": 0.25,
        "candidateCount": 2,
        "thinkingConfig": {"thinkingLevel": "LOW"},
    }
    # Gemini 3: production refuses penalties on 2.5 models before any engine runs (emulator/wire/model_rules.py).
    path = "/v1beta/models/gemini-3.5-flash:generateContent"
    body = ask(wire, upstream, {"contents": [user("Hi")], "generationConfig": config}, path)
    assert {k: v for k, v in body.items() if k != "messages"} == {
        "model": "small-model",
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 64,
        "stop": ["END"],
        "seed": 7,
        "presence_penalty": 0.5,
        "frequency_penalty": 0.25,
        "n": 2,
        "reasoning_effort": "low",
    }


def test_max_completion_tokens_when_configured(wire, upstream, engine: OpenAIEngine, monkeypatch) -> None:
    monkeypatch.setattr(engine, "config", dataclasses.replace(engine.config, max_tokens_field="max_completion_tokens"))
    body = ask(wire, upstream, {"contents": [user("Hi")], "generationConfig": {"maxOutputTokens": 5}})
    assert body["max_completion_tokens"] == 5 and "max_tokens" not in body


def test_model_map_then_default_model(wire, upstream) -> None:
    assert (
        ask(wire, upstream, {"contents": [user("Hi")]}, "/v1beta/models/gemini-2.5-pro:generateContent")["model"]
        == "big-model"
    )
    assert ask(wire, upstream, {"contents": [user("Hi")]})["model"] == "small-model"
    entries = [r["entry"] for r in wire.get("/__emulator/journal", headers=KEY).json()["records"]]
    assert entries[-2:] == ["openai:big-model", "openai:small-model"]  # the journal names the upstream model


def test_upstream_gets_the_key_as_a_bearer_token_and_json(wire, upstream) -> None:
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion()))
    wire.post(GENERATE, json={"contents": [user("Hi")]}, headers=KEY)
    request = route.calls.last.request
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.headers["content-type"] == "application/json"


# --- tools ---------------------------------------------------------------------------------------

WEATHER_PARAMS = {
    "type": "OBJECT",
    "properties": {
        "city": {"type": "STRING", "description": "City name"},
        "unit": {"type": "STRING", "enum": ["C", "F"], "format": "enum", "nullable": True},
        "days": {"type": "INTEGER", "minimum": 1, "maxItems": "3"},
        "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "min_items": "1"},
    },
    "required": ["city"],
    "propertyOrdering": ["city", "unit", "days", "tags"],
}
WEATHER_JSON = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": ["string", "null"], "enum": ["C", "F"]},
        "days": {"type": "integer", "minimum": 1, "maxItems": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    },
    "required": ["city"],
}
RAW_JSON_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}


def tools_body(mode: Any = None, allowed: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "contents": [user("Weather in Paris?")],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "get_weather", "description": "Current weather", "parameters": WEATHER_PARAMS},
                    {"name": "search", "parametersJsonSchema": RAW_JSON_SCHEMA},
                    {"name": "ping"},
                ]
            },
            {"googleSearch": {}},
        ],
    }
    if mode is not None:
        calling: dict[str, Any] = {"mode": mode}
        if allowed:
            calling["allowedFunctionNames"] = allowed
        body["toolConfig"] = {"functionCallingConfig": calling}
    return body


def test_function_declarations_become_tools_with_json_schema(wire, upstream) -> None:
    body = ask(wire, upstream, tools_body())
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "Current weather", "parameters": WEATHER_JSON},
        },
        {"type": "function", "function": {"name": "search", "parameters": RAW_JSON_SCHEMA}},
        {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}},
    ]
    assert "tool_choice" not in body


@pytest.mark.parametrize(
    ("mode", "allowed", "choice", "names"),
    [
        ("AUTO", None, "auto", ["get_weather", "search", "ping"]),
        ("ANY", None, "required", ["get_weather", "search", "ping"]),
        ("ANY", ["search"], {"type": "function", "function": {"name": "search"}}, ["search"]),
        ("ANY", ["search", "ping"], "required", ["search", "ping"]),
        ("NONE", None, "none", ["get_weather", "search", "ping"]),
        ("VALIDATED", None, "auto", ["get_weather", "search", "ping"]),
        (2, ["ping"], {"type": "function", "function": {"name": "ping"}}, ["ping"]),  # integer enum: ANY
    ],
)
def test_tool_config_modes_become_tool_choice(wire, upstream, mode, allowed, choice, names) -> None:
    body = ask(wire, upstream, tools_body(mode, allowed))
    assert body["tool_choice"] == choice
    assert [t["function"]["name"] for t in body["tools"]] == names


def test_sdk_schema_types_reach_the_upstream_as_json_schema(sdk: genai.Client, upstream) -> None:
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion()))
    declaration = types.FunctionDeclaration(
        name="book",
        description="Book a table",
        parameters=types.Schema(
            type="OBJECT",
            properties={"guests": types.Schema(type="INTEGER"), "name": types.Schema(type="STRING", nullable=True)},
            required=["guests"],
        ),
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY")),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    sdk.models.generate_content(model="gemini-2.5-flash", contents="Book for two", config=config)
    body = sent(route)
    assert body["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"guests": {"type": "integer"}, "name": {"type": ["string", "null"]}},
        "required": ["guests"],
    }
    assert body["tool_choice"] == "required"


# --- structured output ---------------------------------------------------------------------------


def test_response_schema_becomes_json_schema_format(wire, upstream) -> None:
    config = {
        "responseMimeType": "application/json",
        "responseSchema": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}, "required": ["n"]},
    }
    assert ask(wire, upstream, {"contents": [user("A number")], "generationConfig": config})["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "response",
            "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        },
    }


def test_response_json_schema_is_passed_verbatim(wire, upstream) -> None:
    config = {"responseMimeType": "application/json", "responseJsonSchema": RAW_JSON_SCHEMA}
    body = ask(wire, upstream, {"contents": [user("Q")], "generationConfig": config})
    assert body["response_format"]["json_schema"]["schema"] == RAW_JSON_SCHEMA


def test_json_object_for_upstreams_without_schema_support(wire, upstream, engine, monkeypatch) -> None:
    monkeypatch.setattr(engine, "config", dataclasses.replace(engine.config, json_schema=False))
    config = {"responseMimeType": "application/json", "responseJsonSchema": RAW_JSON_SCHEMA}
    assert ask(wire, upstream, {"contents": [user("Q")], "generationConfig": config})["response_format"] == {
        "type": "json_object"
    }


def test_json_mime_type_alone_is_json_object_and_text_has_no_format(wire, upstream) -> None:
    config = {"responseMimeType": "application/json"}
    assert ask(wire, upstream, {"contents": [user("Q")], "generationConfig": config})["response_format"] == {
        "type": "json_object"
    }
    assert "response_format" not in ask(wire, upstream, {"contents": [user("Q")]})
