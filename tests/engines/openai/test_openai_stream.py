"""OpenAI SSE streams -> Gemini streams: deltas pass through as they arrive, tool calls leave whole, usage and the
finish reason land on the last chunk, and a broken upstream becomes production's mid-stream error tail."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest
import respx
from google.genai import types

from gemini_emulator.engines.synth.calls import mint_call_id

from openai_fakes import (
    CHAT_URL,
    KEY,
    STREAM,
    Pieces,
    completion,
    delta,
    sent,
    sse,
    sse_response,
    usage_event,
    user,
)

HELLO = {"contents": [user("Hi")]}


def events(wire: httpx.Client, body: dict[str, Any] | None = None) -> tuple[int, list[dict[str, Any]], str]:
    """(status, the SSE events' JSON, the raw body) of one streamGenerateContent call."""
    response = wire.post(STREAM, json=body or HELLO, headers=KEY)
    raw = response.text
    chunks = [json.loads(line[6:]) for line in raw.split("\r\n\r\n") if line.startswith("data: ")]
    return response.status_code, chunks, raw


def stream_route(upstream: respx.MockRouter, body: bytes) -> respx.Route:
    return upstream.post(CHAT_URL).mock(return_value=sse_response(body))


def test_text_deltas_become_chunks_with_usage_and_finish_on_the_last(wire, upstream) -> None:
    route = stream_route(
        upstream,
        sse(
            delta(role="assistant", content=""),
            delta(content="Hello"),
            delta(content=", world"),
            delta(finish="stop"),
            usage_event(12, 5),
        ),
    )
    status, chunks, raw = events(wire)
    assert status == 200
    assert [c["candidates"][0].get("content", {}).get("parts") for c in chunks] == [
        [{"text": "Hello"}],
        [{"text": ", world"}],
        None,
    ]
    assert [c["candidates"][0].get("finishReason") for c in chunks] == [None, None, "STOP"]
    assert chunks[-1]["usageMetadata"]["promptTokenCount"] == 12
    assert chunks[-1]["usageMetadata"]["candidatesTokenCount"] == 5
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] == 17
    assert len({c["responseId"] for c in chunks}) == 1
    assert "[DONE]" not in raw
    assert sent(route)["stream"] is True and sent(route)["stream_options"] == {"include_usage": True}


def test_tool_call_fragments_leave_as_whole_function_calls(wire, upstream) -> None:
    first = {"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    second = {"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": '{"ci'}}
    stream_route(
        upstream,
        sse(
            delta(role="assistant", content=None),
            delta(tool_calls=[first]),
            delta(tool_calls=[{"index": 0, "function": {"arguments": '{"city": '}}]),
            delta(tool_calls=[second]),
            delta(tool_calls=[{"index": 0, "function": {"arguments": '"Paris"}'}}]),
            delta(tool_calls=[{"index": 1, "function": {"arguments": 'ty": "Rome"}'}}]),
            delta(finish="tool_calls"),
        ),
    )
    status, chunks, _ = events(wire)
    assert status == 200 and len(chunks) == 1
    parts = chunks[0]["candidates"][0]["content"]["parts"]
    assert [p["functionCall"] for p in parts] == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": mint_call_id("call_a")},
        {"name": "get_weather", "args": {"city": "Rome"}, "id": mint_call_id("call_b")},
    ]
    assert chunks[0]["candidates"][0]["finishReason"] == "STOP"


def test_streamed_tool_ids_round_trip_through_the_sdk(sdk, upstream) -> None:
    call = {"index": 0, "id": "call_streamed", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    route = stream_route(upstream, sse(delta(tool_calls=[call]), delta(finish="tool_calls")))
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="f")])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents = [types.Content(role="user", parts=[types.Part(text="call f")])]
    parts = [
        p
        for chunk in sdk.models.generate_content_stream(model="gemini-2.5-flash", contents=contents, config=config)
        for p in chunk.candidates[0].content.parts or []
    ]
    contents += [
        types.Content(role="model", parts=parts),
        types.Content(role="user", parts=[types.Part.from_function_response(name="f", response={"ok": True})]),
    ]
    route.mock(return_value=sse_response(sse(delta(content="done"), delta(finish="stop"))))
    assert (
        "".join(
            c.text or ""
            for c in sdk.models.generate_content_stream(model="gemini-2.5-flash", contents=contents, config=config)
        )
        == "done"
    )
    messages = sent(route)["messages"]
    assert messages[1]["tool_calls"][0]["id"] == "call_streamed"
    assert messages[2] == {"role": "tool", "tool_call_id": "call_streamed", "content": '{"ok":true}'}


def test_reasoning_deltas_become_thought_chunks_and_thought_tokens(wire, upstream) -> None:
    stream_route(
        upstream,
        sse(
            delta(reasoning_content="Adding "),
            delta(reasoning_content="numbers."),
            delta(content="4"),
            delta(finish="stop"),
            usage_event(10, 9, reasoning=6),
        ),
    )
    body = {"contents": [user("2+2")], "generationConfig": {"thinkingConfig": {"includeThoughts": True}}}
    _, chunks, _ = events(wire, body)
    assert [c["candidates"][0].get("content", {}).get("parts") for c in chunks][:3] == [
        [{"text": "Adding ", "thought": True}],
        [{"text": "numbers.", "thought": True}],
        [{"text": "4"}],
    ]
    usage = chunks[-1]["usageMetadata"]
    assert (usage["candidatesTokenCount"], usage["thoughtsTokenCount"], usage["totalTokenCount"]) == (3, 6, 19)


def test_a_streamed_refusal_is_safety_without_text(wire, upstream) -> None:
    stream_route(upstream, sse(delta(refusal="I can't "), delta(refusal="do that."), delta(finish="stop")))
    _, chunks, _ = events(wire)
    assert len(chunks) == 1
    assert chunks[0]["candidates"][0] == {
        "content": {"role": "model"},
        "finishReason": "SAFETY",
        "index": 0,
        "finishMessage": "I can't do that.",
    }


def test_continuous_usage_lands_on_every_chunk(wire, upstream) -> None:
    first = delta(content="One") | {"usage": usage_event(8, 1)["usage"]}
    second = delta(content=" two", finish="length") | {"usage": usage_event(8, 2)["usage"]}
    stream_route(upstream, sse(first, second))
    _, chunks, _ = events(wire)
    assert [c["usageMetadata"]["candidatesTokenCount"] for c in chunks] == [1, 2, 2]
    assert {c["usageMetadata"]["promptTokenCount"] for c in chunks} == {8}
    assert chunks[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"


def test_several_choices_stream_as_candidates_with_their_indexes(wire, upstream) -> None:
    second = {"index": 1, "delta": {"content": "B"}, "finish_reason": None}
    both = delta(content="A") | {"choices": [delta(content="A")["choices"][0], second]}
    ends = {
        "choices": [
            {"index": 0, "delta": {}, "finish_reason": "stop"},
            {"index": 1, "delta": {}, "finish_reason": "length"},
        ]
    }
    stream_route(upstream, sse(both, ends, usage_event(4, 2)))
    _, chunks, _ = events(wire, {"contents": [user("Hi")], "generationConfig": {"candidateCount": 2}})
    seen = [
        (
            c["candidates"][0]["index"],
            c["candidates"][0].get("content", {}).get("parts"),
            c["candidates"][0].get("finishReason"),
        )
        for c in chunks
    ]
    assert seen == [(0, [{"text": "A"}], None), (1, [{"text": "B"}], None), (0, None, "STOP"), (1, None, "MAX_TOKENS")]
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] == 6


def test_json_array_streams_work_too(wire, upstream) -> None:
    stream_route(upstream, sse(delta(content="Hi"), delta(finish="stop")))
    response = wire.post(STREAM.removesuffix("?alt=sse"), json=HELLO, headers=KEY)
    assert [c["candidates"][0].get("finishReason") for c in response.json()] == [None, "STOP"]


def test_text_passes_through_before_the_upstream_finishes(wire, upstream) -> None:
    gate = threading.Event()
    late = sse(delta(content=" later"), delta(finish="stop"))
    body = Pieces([sse(delta(content="early"), done=False), late], gate=gate)
    upstream.post(CHAT_URL).mock(
        return_value=httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)
    )
    try:
        with wire.stream("POST", STREAM, json=HELLO, headers=KEY) as response:
            lines = response.iter_lines()
            first = next(line for line in lines if line.startswith("data: "))
            assert json.loads(first[6:])["candidates"][0]["content"]["parts"] == [{"text": "early"}]
            gate.set()  # only now may the upstream go on
            rest = [line for line in lines if line.startswith("data: ")]
    finally:
        gate.set()
    assert not body.gate_timed_out  # the first chunk reached the client while the upstream was still waiting
    assert json.loads(rest[0][6:])["candidates"][0]["content"]["parts"] == [{"text": " later"}]


# --- failures -------------------------------------------------------------------------------------------

UNAVAILABLE_TAIL = "The upstream model server http://upstream.test/v1 is unavailable: "


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (
            sse(delta(content="Hel"), done=False),
            503,
            UNAVAILABLE_TAIL + "the stream ended before the answer was complete",
        ),
        (
            sse(delta(content="Hel"), "{not json", done=False),
            500,
            "The upstream model server http://upstream.test/v1 sent an answer the emulator cannot translate: "
            "a stream event is not JSON: '{not json'",
        ),
    ],
)
def test_upstream_stream_faults_after_the_first_chunk_are_the_error_tail(wire, upstream, body, code, message) -> None:
    stream_route(upstream, body)
    status, chunks, raw = events(wire)
    assert status == 200
    assert chunks[0]["candidates"][0]["content"]["parts"] == [{"text": "Hel"}]
    tail = json.loads(raw[raw.index('{\n  "error"') :])
    assert tail["error"]["code"] == code and tail["error"]["message"] == message


def test_an_error_event_mid_stream_becomes_the_matching_google_error(wire, upstream) -> None:
    error = {"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": 429}}
    stream_route(upstream, sse(delta(content="Hel"), error, done=False))
    _, _, raw = events(wire)
    tail = json.loads(raw[raw.index('{\n  "error"') :])["error"]
    assert (tail["code"], tail["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert tail["details"][-1]["detail"].endswith("answered HTTP 429: Rate limit reached")


def test_a_connection_that_breaks_mid_stream_is_a_503_tail(wire, upstream) -> None:
    body = Pieces([sse(delta(content="Hel"), done=False)], error=httpx.ReadError("peer closed"))
    upstream.post(CHAT_URL).mock(
        return_value=httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)
    )
    _, chunks, raw = events(wire)
    assert chunks[0]["candidates"][0]["content"]["parts"] == [{"text": "Hel"}]
    tail = json.loads(raw[raw.index('{\n  "error"') :])["error"]
    assert tail == {
        "code": 503,
        "message": UNAVAILABLE_TAIL + "the connection broke (peer closed)",
        "status": "UNAVAILABLE",
    }


def test_a_stream_cut_before_any_content_is_an_http_503(wire, upstream) -> None:
    stream_route(upstream, sse(delta(role="assistant", content=""), done=False))
    response = wire.post(STREAM, json=HELLO, headers=KEY)
    assert response.status_code == 503
    assert response.json()["error"]["message"] == UNAVAILABLE_TAIL + "the stream ended before the answer was complete"


def test_an_upstream_that_answers_a_stream_with_json_still_works(wire, upstream) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion("Whole.")))
    _, chunks, _ = events(wire)
    assert chunks[0]["candidates"][0]["content"]["parts"] == [{"text": "Whole."}]
    assert chunks[0]["candidates"][0]["finishReason"] == "STOP"
