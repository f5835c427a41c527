"""The cross-SDK matrix for google-genai (Python): Developer API on v1 and v1beta, Vertex AI with a static OAuth
token, and Vertex express mode. Each test is one cell of docs/sdk-matrix.md (see tests/sdk_matrix.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import google.oauth2.credentials
import pytest
from google import genai
from google.genai import errors, types
from pydantic import BaseModel

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
    assert_weather_round_trip,
    skip_pending,
)

VERTEX_PREFIX = "/v1beta1/projects/demo-project/locations/us-central1/publishers/google/models/"


def _vertex(url: str, token: str) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=token),
        http_options=types.HttpOptions(base_url=url),
    )


# label: (a client for a base URL and a credential, the path prefix of its model calls)
VARIANTS: dict[str, tuple[Callable[[str, str], genai.Client], str]] = {
    "google-genai (Python, Developer v1)": (
        lambda url, key: genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url)),
        "/v1/models/",
    ),
    "google-genai (Python, Developer v1beta)": (
        lambda url, key: genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url, api_version="v1beta")),
        "/v1beta/models/",
    ),
    "google-genai (Python, Vertex)": (_vertex, VERTEX_PREFIX),
    "google-genai (Python, Vertex express)": (
        lambda url, key: genai.Client(vertexai=True, api_key=key, http_options=types.HttpOptions(base_url=url)),
        "/v1beta1/publishers/google/models/",
    ),
}


@dataclass
class Sdk:
    client: genai.Client
    gemini: Gemini  # this test's namespace: the client's credential is its key
    prefix: str


@pytest.fixture(params=list(VARIANTS), ids=list(VARIANTS))
def sdk(request: pytest.FixtureRequest, gemini_shared: Gemini) -> Sdk:
    skip_pending(request)
    make, prefix = VARIANTS[request.param]
    return Sdk(make(gemini_shared.url, gemini_shared.api_key), gemini_shared, prefix)


class Person(BaseModel):
    name: str
    age: int


WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="Current weather for a city",
            parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}, required=["city"]),
        )
    ]
)


def test_text(sdk: Sdk) -> None:
    response = sdk.client.models.generate_content(model=MODEL, contents=PROMPTS["text"])
    assert response.text.startswith("Hello")
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    assert response.usage_metadata.prompt_token_count > 0
    assert sdk.gemini.journal().last.record["path"] == f"{sdk.prefix}{MODEL}:generateContent"


def test_stream(sdk: Sdk) -> None:
    chunks = list(sdk.client.models.generate_content_stream(model=MODEL, contents=PROMPTS["stream"]))
    assert len(chunks) > 1
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    unary = sdk.client.models.generate_content(model=MODEL, contents=PROMPTS["stream"])
    assert "".join(c.text for c in chunks) == unary.text


def test_chat(sdk: Sdk) -> None:
    chat = sdk.client.chats.create(model=MODEL)
    first = chat.send_message(PROMPTS["chat"][0])
    second = chat.send_message(PROMPTS["chat"][1])
    assert first.text.startswith("Hello")
    assert "1." in second.text and "3." in second.text
    assert len(chat.get_history()) == 4
    assert_chat_history(sdk.gemini.journal())


def test_function_call(sdk: Sdk) -> None:
    auto = types.GenerateContentConfig(
        tools=[WEATHER], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    forced = auto.model_copy(
        update={"tool_config": types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY"))}
    )
    contents = [types.Content(role="user", parts=[types.Part(text=PROMPTS["weather"])])]
    first = sdk.client.models.generate_content(model=MODEL, contents=contents, config=forced)
    [call] = first.function_calls
    assert call.name == "get_weather"
    assert_weather_args(call.args)
    result = types.Part.from_function_response(name=call.name, response=WEATHER_RESULT)
    contents += [first.candidates[0].content, types.Content(role="user", parts=[result])]
    second = sdk.client.models.generate_content(model=MODEL, contents=contents, config=auto)
    assert_uses_weather(second.text)
    assert_weather_round_trip(sdk.gemini.journal(), WEATHER_RESULT)


def test_structured(sdk: Sdk) -> None:
    config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=Person)
    response = sdk.client.models.generate_content(model=MODEL, contents=PROMPTS["person"], config=config)
    assert isinstance(response.parsed, Person)
    assert_person(json.loads(response.text))
    generation_config = sdk.gemini.journal().last.body["generationConfig"]
    assert generation_config["responseMimeType"] == "application/json"
    assert generation_config["responseSchema"]["properties"]["age"]["type"] == "INTEGER"


def test_count_tokens(sdk: Sdk) -> None:
    counted = sdk.client.models.count_tokens(model=MODEL, contents=PROMPTS["count"])
    generated = sdk.client.models.generate_content(model=MODEL, contents=PROMPTS["count"])
    assert counted.total_tokens == generated.usage_metadata.prompt_token_count > 0


def test_embeddings(sdk: Sdk) -> None:
    response = sdk.client.models.embed_content(model=EMBEDDING_MODEL, contents=PROMPTS["embed"])
    assert len(response.embeddings) == len(PROMPTS["embed"])
    assert all(e.values and all(isinstance(v, float) for v in e.values) for e in response.embeddings)


def test_bad_model(sdk: Sdk) -> None:
    with pytest.raises(errors.ClientError) as caught:
        sdk.client.models.generate_content(model=MISSING_MODEL, contents=PROMPTS["text"])
    assert (caught.value.code, caught.value.status) == (404, "NOT_FOUND")
    assert MISSING_MODEL in caught.value.message
