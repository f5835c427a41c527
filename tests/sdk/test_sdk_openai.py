"""The official `openai` Python SDK against the OpenAI-compatible surface (/v1beta/openai/): sync, async,
streaming, a two-turn tool loop, structured output with a pydantic model, embeddings, models, errors."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest
from pydantic import BaseModel

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.testing.server import RunningEmulator

MODEL = "gemini-2.5-flash"
KEY = "openai-sdk-key"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture(scope="module")
def client(gemini_emulator: RunningEmulator) -> openai.OpenAI:
    return openai.OpenAI(base_url=gemini_emulator.url + "/v1beta/openai/", api_key=KEY, max_retries=0)


def test_chat_completion(client: openai.OpenAI) -> None:
    response = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Say hello"}])
    assert response.object == "chat.completion" and response.model == MODEL and response.id
    choice = response.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    assert choice.message.content and choice.message.content.startswith("Hello")
    assert response.usage is not None and response.usage.prompt_tokens > 0 and response.usage.completion_tokens > 0


def test_async_chat_completion(gemini_emulator: RunningEmulator) -> None:
    async def run() -> str | None:
        async with openai.AsyncOpenAI(base_url=gemini_emulator.url + "/v1beta/openai/", api_key=KEY) as client:
            response = await client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "Say hello"}]
            )
            return response.choices[0].message.content

    assert (asyncio.run(run()) or "").startswith("Hello")


def test_streaming_adds_up_and_reports_usage(client: openai.OpenAI) -> None:
    prompt = "Write two paragraphs about the history of bridges"
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert len(chunks) > 1
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    unary = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}])
    assert text == unary.choices[0].message.content
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == unary.usage.completion_tokens


def test_two_turn_tool_loop_round_trips_ids(client: openai.OpenAI, gemini_emulator: RunningEmulator) -> None:
    key = "openai-sdk-tools"
    tools_client = client.with_options(api_key=key)
    messages: list[dict[str, object]] = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = tools_client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])  # type: ignore[arg-type]
    assert first.choices[0].finish_reason == "tool_calls"
    [call] = first.choices[0].message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps({"sky": "clear", "c": 21})})
    second = tools_client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])  # type: ignore[arg-type]
    assert second.choices[0].finish_reason == "stop" and second.choices[0].message.content
    admin = AdminClient(gemini_emulator.url, api_key=key)
    last = admin.journal().last
    admin.close()
    assert last.function_responses == [{"name": "get_weather", "response": {"sky": "clear", "c": 21}}]
    [model_turn] = [c for c in last.contents if c["role"] == "model"]
    assert model_turn["parts"][0]["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}


def test_forced_and_parallel_tool_calls(client: openai.OpenAI, gemini_emulator: RunningEmulator) -> None:
    key = "openai-sdk-parallel"
    admin = AdminClient(gemini_emulator.url, api_key=key)
    admin.script(
        {
            "chunks": [
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
            ]
        }
    )
    admin.close()
    response = client.with_options(api_key=key).chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Weather in Paris and Oslo?"}],
        tools=[WEATHER],  # type: ignore[list-item]
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )
    calls = response.choices[0].message.tool_calls or []
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Oslo"]
    assert len({c.id for c in calls}) == 2


class City(BaseModel):
    name: str
    population: int


def test_parse_with_a_pydantic_model(client: openai.OpenAI) -> None:
    completion = client.chat.completions.parse(
        model=MODEL, messages=[{"role": "user", "content": "Name a city"}], response_format=City
    )
    city = completion.choices[0].message.parsed
    assert isinstance(city, City) and city.name


def test_embeddings_float_and_base64(client: openai.OpenAI) -> None:
    floats = client.embeddings.create(model="gemini-embedding-001", input=["a cat", "a dog"], encoding_format="float")
    default = client.embeddings.create(model="gemini-embedding-001", input=["a cat", "a dog"])  # the SDK asks base64
    assert len(floats.data) == 2 and len(floats.data[0].embedding) > 8
    assert default.data[0].embedding == pytest.approx(floats.data[0].embedding, rel=1e-6)
    small = client.embeddings.create(model="gemini-embedding-001", input="a cat", dimensions=16)
    assert len(small.data[0].embedding) == 16


def test_models_list_and_retrieve(client: openai.OpenAI) -> None:
    ids = [m.id for m in client.models.list()]
    assert f"models/{MODEL}" in ids
    model = client.models.retrieve(f"models/{MODEL}")
    assert model.id == f"models/{MODEL}" and model.owned_by == "google"


def test_unknown_model_raises_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        client.chat.completions.create(model="gemini-pro", messages=[{"role": "user", "content": "hi"}])
    assert raised.value.status_code == 404
    assert "not found for API version v1main" in str(raised.value.body)


def test_bad_request_raises_bad_request_error(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], temperature="hot")  # type: ignore[arg-type]
