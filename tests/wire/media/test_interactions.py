"""The Interactions API with google-genai 3.6.1's `client.interactions`: create (text, tools, structured output,
streamed, in the background), chaining with previous_interaction_id, get, delete, cancel; the same engine and script
entries as generateContent answer it."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


@pytest.fixture
def client(gemini_shared: Gemini) -> genai.Client:
    return gemini_shared.client


def test_create_answers_text_steps_and_usage(client: genai.Client) -> None:
    done = client.interactions.create(model=MODEL, input="Say hello")
    assert done.status == "completed" and done.id.startswith("v1_")
    assert done.output_text.startswith("Hello")
    assert [s.type for s in done.steps] == ["user_input", "model_output"]
    gemini3 = client.interactions.create(model="gemini-3.8-flash", input="Say hello")
    assert [s.type for s in gemini3.steps] == ["user_input", "thought", "model_output"]  # its signature
    usage = done.usage
    assert usage.total_tokens == usage.total_input_tokens + usage.total_output_tokens + usage.total_thought_tokens
    assert usage.total_input_tokens > 0 and usage.total_thought_tokens > 0
    assert client.interactions.get(done.id).output_text == done.output_text


def test_chaining_two_interactions_carries_the_history(gemini_shared: Gemini, client: genai.Client) -> None:
    gemini_shared.script(
        {"match": {"text": "My name is Ada"}, "text": "Nice to meet you, Ada."},
        {"match": {"text": "What is my name", "turn": 1}, "text": "Your name is Ada."},
    )
    first = client.interactions.create(model=MODEL, input="My name is Ada")
    second = client.interactions.create(model=MODEL, input="What is my name?", previous_interaction_id=first.id)
    assert first.output_text == "Nice to meet you, Ada." and second.output_text == "Your name is Ada."
    sent = gemini_shared.journal(model=MODEL)[-1].body
    assert sent["previous_interaction_id"] == first.id  # the journal shows the call as sent
    assert gemini_shared.pending() == []  # both entries served: the second saw one earlier model turn


def test_tools_call_then_result(client: genai.Client) -> None:
    asked = client.interactions.create(model=MODEL, input="What's the weather in Paris?", tools=[WEATHER])
    assert asked.status == "requires_action"
    (call,) = [s for s in asked.steps if s.type == "function_call"]
    assert call.name == "get_weather" and isinstance(call.arguments, dict)
    result = {"type": "function_result", "call_id": call.id, "name": call.name, "result": {"temp_c": 21}}
    answered = client.interactions.create(
        model=MODEL, input=[result], previous_interaction_id=asked.id, tools=[WEATHER]
    )
    assert answered.status == "completed" and "21" in answered.output_text


def test_structured_output(client: genai.Client) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
    done = client.interactions.create(
        model=MODEL, input="A person", response_format=schema, response_mime_type="application/json"
    )
    value = json.loads(done.output_text)
    assert isinstance(value["name"], str) and isinstance(value["age"], int)


def test_stream_is_the_sse_event_sequence(client: genai.Client) -> None:
    events = list(client.interactions.create(model=MODEL, input="Write two paragraphs about tea", stream=True))
    kinds = [e.event_type for e in events]
    assert kinds[0] == "interaction.created" and kinds[-1] == "interaction.completed"
    assert "step.start" in kinds and kinds.count("step.start") == kinds.count("step.stop")
    text = "".join(e.delta.text for e in events if e.event_type == "step.delta" and e.delta.type == "text")
    unary = client.interactions.create(model=MODEL, input="Write two paragraphs about tea")
    assert text == unary.output_text and len(text) > 200
    finished = events[-1].interaction
    assert finished.status == "completed" and client.interactions.get(finished.id).output_text == text


def test_absent_stream_is_json(gemini_shared: Gemini) -> None:
    resp = httpx.post(
        f"{gemini_shared.url}/v1beta/interactions",
        json={"model": MODEL, "input": "hi"},
        headers={"x-goog-api-key": gemini_shared.api_key},
    )
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("application/json")
    assert resp.json()["status"] == "completed"


def test_background_run_completes_and_cancel(gemini_shared: Gemini, client: genai.Client) -> None:
    started = client.interactions.create(model=MODEL, input="Summarise the history of maps", background=True)
    assert started.status == "in_progress"
    deadline = time.monotonic() + 5
    current = client.interactions.get(started.id)
    while current.status == "in_progress" and time.monotonic() < deadline:
        current = client.interactions.get(started.id)
    assert current.status == "completed" and current.output_text
    gemini_shared.script({"match": {"text": "slow"}, "text": "late", "delayMs": 10_000})
    slow = client.interactions.create(model=MODEL, input="slow one", background=True)
    cancelled = client.interactions.cancel(slow.id)
    assert cancelled.status == "cancelled" and client.interactions.get(slow.id).status == "cancelled"


def test_store_false_and_delete_and_isolation(gemini_shared: Gemini, client: genai.Client, base_url: str) -> None:
    def status_of(some: genai.Client, interaction_id: str) -> int:
        try:
            some.interactions.get(interaction_id)
        except Exception as error:  # the SDK's generated NotFoundError
            return 404 if "404" in str(error) else -1
        return 200

    unstored = client.interactions.create(model=MODEL, input="forget me", store=False)
    assert status_of(client, unstored.id) == 404
    kept = client.interactions.create(model=MODEL, input="keep me")
    other = genai.Client(api_key="someone-else", http_options=types.HttpOptions(base_url=base_url))
    assert status_of(client, kept.id) == 200 and status_of(other, kept.id) == 404  # another key's namespace
    client.interactions.delete(kept.id)
    assert status_of(client, kept.id) == 404


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"model": MODEL, "input": "x", "bogus": 1}, 'Unknown name "bogus"'),
        ({"model": MODEL, "input": "x", "stream": "yes"}, "Invalid value at 'stream'"),
        ({"model": MODEL}, "input is required"),
        ({"input": "x"}, "model or agent is required"),
        ({"model": MODEL, "input": "x", "previous_interaction_id": "v1_nope"}, "not found"),
        ({"model": MODEL, "input": "x", "generation_config": {"temperature": "hot"}}, "temperature"),
    ],
)
def test_bad_requests(gemini_shared: Gemini, body: dict[str, object], words: str) -> None:
    resp = httpx.post(
        f"{gemini_shared.url}/v1beta/interactions", json=body, headers={"x-goog-api-key": gemini_shared.api_key}
    )
    assert 400 <= resp.status_code < 500 and words in resp.json()["error"]["message"]


def test_image_model_through_interactions(client: genai.Client) -> None:
    done = client.interactions.create(
        model="gemini-3.1-flash-image", input="Draw a boat", response_modalities=["IMAGE"]
    )
    kinds = [c.type for s in done.steps if s.type == "model_output" for c in s.content]
    assert kinds == ["image"]
