"""The cross-SDK matrix for the official `openai` Python SDK on Gemini's OpenAI-compatible surface
(/v1beta/openai/). Each test is one cell of docs/sdk-matrix.md (see tests/sdk_matrix.py); this surface has no
countTokens. The journal keeps each chat completion as the native request it became, so the shared checks apply."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from gemini_emulator.testing.pytest_plugin import Gemini

from sdk_matrix import (
    EMBEDDING_MODEL,
    MISSING_MODEL,
    MODEL,
    PROMPTS,
    WEATHER_RESULT,
    assert_chat_history,
    assert_person,
    assert_uses_weather,
    assert_weather_args,
    skip_pending,
)

LABEL = "openai (Python, OpenAI-compatible)"
WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
PERSON: Any = {
    "type": "json_schema",
    "json_schema": {
        "name": "person",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
            "additionalProperties": False,
        },
    },
}


@pytest.fixture(params=[LABEL], ids=[LABEL])
def oa(request: pytest.FixtureRequest, gemini_shared: Gemini) -> Gemini:
    """This test's namespace on the session's emulator (its key is the bearer token)."""
    skip_pending(request)
    return gemini_shared


def client(oa: Gemini) -> openai.OpenAI:
    return openai.OpenAI(base_url=oa.url + "/v1beta/openai/", api_key=oa.api_key, max_retries=0)


def user(text: str) -> Any:
    return {"role": "user", "content": text}


def test_text(oa: Gemini) -> None:
    response = client(oa).chat.completions.create(model=MODEL, messages=[user(PROMPTS["text"])])
    assert (response.choices[0].message.content or "").startswith("Hello")
    assert response.choices[0].finish_reason == "stop"
    assert oa.journal().last.user_text == PROMPTS["text"]


def test_stream(oa: Gemini) -> None:
    sdk = client(oa)
    chunks = list(sdk.chat.completions.create(model=MODEL, messages=[user(PROMPTS["stream"])], stream=True))
    assert len(chunks) > 1 and chunks[-1].choices[0].finish_reason == "stop"
    unary = sdk.chat.completions.create(model=MODEL, messages=[user(PROMPTS["stream"])])
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == unary.choices[0].message.content


def test_chat(oa: Gemini) -> None:
    sdk = client(oa)
    messages: list[Any] = [user(PROMPTS["chat"][0])]
    first = sdk.chat.completions.create(model=MODEL, messages=messages)
    messages += [first.choices[0].message.model_dump(exclude_none=True), user(PROMPTS["chat"][1])]
    second = sdk.chat.completions.create(model=MODEL, messages=messages)
    assert (first.choices[0].message.content or "").startswith("Hello")
    assert (second.choices[0].message.content or "").count("\n") >= 2
    assert_chat_history(oa.journal())


def test_function_call(oa: Gemini) -> None:
    sdk = client(oa)
    messages: list[Any] = [user(PROMPTS["weather"])]
    first = sdk.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER], tool_choice="required")
    [call] = first.choices[0].message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather"
    assert_weather_args(json.loads(call.function.arguments))
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps(WEATHER_RESULT)},
    ]
    second = sdk.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    assert_uses_weather(second.choices[0].message.content or "")
    sent, back = oa.journal()
    assert sent.body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"
    [echoed] = [p["functionCall"] for p in back.contents[-2]["parts"] if "functionCall" in p]
    assert (echoed["name"], echoed["args"]) == ("get_weather", json.loads(call.function.arguments))
    assert back.function_responses == [{"name": "get_weather", "response": WEATHER_RESULT}]


def test_structured(oa: Gemini) -> None:
    response = client(oa).chat.completions.create(
        model=MODEL, messages=[user(PROMPTS["person"])], response_format=PERSON
    )
    assert_person(json.loads(response.choices[0].message.content or ""))
    config = oa.journal().last.body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"]["properties"]["age"]["type"] == "integer"


def test_embeddings(oa: Gemini) -> None:
    response = client(oa).embeddings.create(model=EMBEDDING_MODEL, input=PROMPTS["embed"])
    assert len(response.data) == 2 and all(d.embedding for d in response.data)


def test_bad_model(oa: Gemini) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        client(oa).chat.completions.create(model=MISSING_MODEL, messages=[user("hi")])
    assert raised.value.status_code == 404
