"""OpenAI answers -> Gemini responses (unary), and tool-call ids across the turns of a conversation."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx
from google import genai
from google.genai import types

from gemini_emulator.engines.synth.calls import mint_call_id

from openai_fakes import CHAT_URL, GENERATE, KEY, completion, sent, tool_call, user

THINK = {"thinkingConfig": {"includeThoughts": True}}
USAGE = {
    "prompt_tokens": 30,
    "completion_tokens": 50,
    "total_tokens": 80,
    "completion_tokens_details": {"reasoning_tokens": 20},
    "prompt_tokens_details": {"cached_tokens": 10},
}


def answer(
    wire: httpx.Client, upstream: respx.MockRouter, reply: dict[str, Any], body: dict[str, Any] | None = None
) -> dict[str, Any]:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=reply))
    response = wire.post(GENERATE, json=body or {"contents": [user("Hi")]}, headers=KEY)
    assert response.status_code == 200, response.text
    return response.json()


def test_text_reasoning_and_usage(wire, upstream) -> None:
    reply = completion("Four.", usage=USAGE, reasoning_content="2 and 2 make 4.")
    body = answer(wire, upstream, reply, {"contents": [user("2+2?")], "generationConfig": THINK})
    assert body["candidates"] == [
        {
            "content": {"parts": [{"text": "2 and 2 make 4.", "thought": True}, {"text": "Four."}], "role": "model"},
            "finishReason": "STOP",
            "index": 0,
        }
    ]
    usage = body["usageMetadata"]
    assert usage["promptTokenCount"] == 30
    assert usage["candidatesTokenCount"] == 30  # completion tokens less the reasoning ones
    assert usage["thoughtsTokenCount"] == 20
    assert usage["cachedContentTokenCount"] == 10
    assert usage["totalTokenCount"] == 80 == usage["promptTokenCount"] + 30 + 20
    assert usage["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": 30}]
    assert list(usage) == [
        "promptTokenCount",
        "candidatesTokenCount",
        "totalTokenCount",
        "cachedContentTokenCount",
        "promptTokensDetails",
        "thoughtsTokenCount",
        "serviceTier",
    ]


def test_reasoning_is_not_shown_without_include_thoughts_but_is_counted(wire, upstream) -> None:
    body = answer(wire, upstream, completion("Four.", usage=USAGE, reasoning="2 and 2 make 4."))
    assert body["candidates"][0]["content"]["parts"] == [{"text": "Four."}]
    assert body["usageMetadata"]["thoughtsTokenCount"] == 20


def test_reasoning_field_of_ollama_and_openrouter_is_read_too(wire, upstream) -> None:
    body = answer(
        wire, upstream, completion("Yes.", reasoning="Hmm."), {"contents": [user("?")], "generationConfig": THINK}
    )
    assert body["candidates"][0]["content"]["parts"][0] == {"text": "Hmm.", "thought": True}


@pytest.mark.parametrize(
    ("finish", "expected"),
    [("stop", "STOP"), ("length", "MAX_TOKENS"), ("content_filter", "SAFETY"), ("eos_token", "OTHER"), (None, "STOP")],
)
def test_finish_reasons(wire, upstream, finish, expected) -> None:
    assert answer(wire, upstream, completion("x", finish=finish))["candidates"][0]["finishReason"] == expected


def test_a_refusal_is_safety_and_never_answer_text(wire, upstream) -> None:
    reply = completion("I can't help with that.", refusal="I can't help with that.")
    candidate = answer(wire, upstream, reply)["candidates"][0]
    assert candidate == {
        "content": {"role": "model"},
        "finishReason": "SAFETY",
        "index": 0,
        "finishMessage": "I can't help with that.",
    }


def test_vertex_usage_carries_candidate_details(upstream, server) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion("Hi.", usage=USAGE)))
    path = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    response = httpx.post(server.url + path, json={"contents": [user("Hi")]}, headers={"authorization": "Bearer t"})
    usage = response.json()["usageMetadata"]
    assert usage["candidatesTokensDetails"] == [{"modality": "TEXT", "tokenCount": 30}]
    assert usage["totalTokenCount"] == 80 and usage["trafficType"] == "ON_DEMAND"


def test_choices_become_candidates_with_their_indexes(sdk, upstream) -> None:
    reply = completion("First.", usage=USAGE)
    reply["choices"].append(
        {"index": 1, "message": {"role": "assistant", "content": "Second."}, "finish_reason": "length"}
    )
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=reply))
    config = types.GenerateContentConfig(candidate_count=2)
    response = sdk.models.generate_content(model="gemini-2.5-flash", contents="Two answers", config=config)
    assert [(c.index, c.content.parts[0].text, c.finish_reason) for c in response.candidates] == [
        (0, "First.", types.FinishReason.STOP),
        (1, "Second.", types.FinishReason.MAX_TOKENS),
    ]
    assert response.usage_metadata.total_token_count == 80


# --- tool calls --------------------------------------------------------------------------------------

WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}),
        )
    ]
)
NO_AFC = types.GenerateContentConfig(
    tools=[WEATHER], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
)
PARALLEL = completion(
    None,
    finish="tool_calls",
    tool_calls=[
        tool_call("call_paris", "get_weather", '{"city": "Paris"}'),
        tool_call("call_rome", "get_weather", '{"city": "Rome"}'),
    ],
)


def test_tool_calls_become_function_call_parts(wire, upstream) -> None:
    candidate = answer(wire, upstream, PARALLEL)["candidates"][0]
    parts = candidate["content"]["parts"]
    assert [p["functionCall"] for p in parts] == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": mint_call_id("call_paris")},
        {"name": "get_weather", "args": {"city": "Rome"}, "id": mint_call_id("call_rome")},
    ]
    assert "thoughtSignature" in parts[0] and "thoughtSignature" not in parts[1]
    assert candidate["finishReason"] == "STOP"


def test_gemini_3_names_the_reason_a_call_turn_ended(wire, upstream) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=PARALLEL))
    response = wire.post(
        "/v1beta/models/gemini-3-flash-preview:generateContent", json={"contents": [user("Hi")]}, headers=KEY
    )
    assert response.json()["candidates"][0]["finishMessage"] == "Model generated function call(s)."


def _replay(sdk: genai.Client, upstream: respx.MockRouter, question: str, reverse: bool = False) -> list[dict]:
    """One call turn answered by PARALLEL, then the function responses sent back through the SDK."""
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=PARALLEL))
    contents = [types.Content(role="user", parts=[types.Part(text=question)])]
    first = sdk.models.generate_content(model="gemini-2.5-flash", contents=contents, config=NO_AFC)
    calls = first.function_calls
    responses = [
        types.Part(
            function_response=types.FunctionResponse(
                id=c.id if reverse else None, name=c.name, response={"city": c.args["city"]}
            )
        )
        for c in calls
    ]
    if reverse:
        responses.reverse()
    contents += [first.candidates[0].content, types.Content(role="user", parts=responses)]
    route.mock(return_value=httpx.Response(200, json=completion("Paris 21C, Rome 25C.")))
    second = sdk.models.generate_content(model="gemini-2.5-flash", contents=contents, config=NO_AFC)
    assert second.text == "Paris 21C, Rome 25C."
    return sent(route)["messages"]


def test_parallel_calls_of_one_function_round_trip_fifo(sdk, upstream) -> None:
    messages = _replay(sdk, upstream, "Weather in Paris and Rome?")
    assert messages[1]["tool_calls"] == [
        {"id": "call_paris", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
        {"id": "call_rome", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}},
    ]
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "call_paris", "content": '{"city":"Paris"}'},
        {"role": "tool", "tool_call_id": "call_rome", "content": '{"city":"Rome"}'},
    ]


def test_responses_carrying_ids_match_by_id_whatever_their_order(sdk, upstream) -> None:
    messages = _replay(sdk, upstream, "Weather in Rome and Paris, please?", reverse=True)
    assert [(m["tool_call_id"], json.loads(m["content"])["city"]) for m in messages[2:]] == [
        ("call_rome", "Rome"),
        ("call_paris", "Paris"),
    ]


def test_ids_survive_whole_floats_that_clients_print_back_as_ints(sdk, upstream) -> None:
    reply = completion(None, finish="tool_calls", tool_calls=[tool_call("call_float", "set_temp", '{"c": 21.0}')])
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=reply))
    contents = [types.Content(role="user", parts=[types.Part(text="Set 21 degrees")])]
    first = sdk.models.generate_content(model="gemini-2.5-flash", contents=contents, config=NO_AFC)
    reply_part = types.Part.from_function_response(name="set_temp", response={"ok": True})
    contents += [first.candidates[0].content, types.Content(role="user", parts=[reply_part])]
    route.mock(return_value=httpx.Response(200, json=completion("Done.")))
    sdk.models.generate_content(model="gemini-2.5-flash", contents=contents, config=NO_AFC)
    assert sent(route)["messages"][1]["tool_calls"][0]["id"] == "call_float"


def test_a_history_the_engine_never_answered_keeps_echoed_ids_or_gets_stable_ones(wire, upstream) -> None:
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion("ok")))
    calls = [
        {"functionCall": {"name": "f", "args": {"a": 1}, "id": "abcd1234"}},
        {"functionCall": {"name": "f", "args": {"a": 2}}},
    ]
    replies = [{"functionResponse": {"name": "f", "response": {"r": n}}} for n in (1, 2)]
    body = {"contents": [user("go"), {"role": "model", "parts": calls}, {"role": "user", "parts": replies}]}
    wire.post(GENERATE, json=body, headers=KEY)
    first = sent(route)["messages"]
    wire.post(GENERATE, json=body, headers=KEY)
    assert sent(route)["messages"] == first  # minted ids are stable
    ids = [c["id"] for c in first[1]["tool_calls"]]
    assert ids[0] == "abcd1234" and ids[1].startswith("call_")
    assert [m["tool_call_id"] for m in first[2:]] == ids


def test_a_function_response_without_its_call_is_refused_before_the_upstream(wire, upstream) -> None:
    """Production refuses the orphan response (emulator/wire/tool_rules.py); the upstream is never asked."""
    route = upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=completion("ok")))
    reply = {"functionResponse": {"name": "lookup", "response": {"found": True}}}
    answer = wire.post(GENERATE, json={"contents": [{"role": "user", "parts": [reply, {"text": "and?"}]}]}, headers=KEY)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith("Please ensure that the number of function response parts")
    assert not route.called


def test_calls_without_ids_get_distinct_ones_and_null_arguments_are_empty(wire, upstream) -> None:
    reply = completion(None, tool_calls=[tool_call(None, "f", "null"), tool_call(None, "f", "")], finish="tool_calls")
    parts = answer(wire, upstream, reply)["candidates"][0]["content"]["parts"]
    assert [p["functionCall"]["args"] for p in parts] == [{}, {}]
    assert parts[0]["functionCall"]["id"] != parts[1]["functionCall"]["id"]


# --- answers that cannot be translated -----------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (
            completion(None, tool_calls=[tool_call("c1", "f", "[1, 2]")]),
            "the arguments of tool call 'f' are not a JSON object: [1, 2]",
        ),
        (
            completion(None, tool_calls=[tool_call("c1", "f", "{oops")]),
            "the arguments of tool call 'f' are not JSON: {oops",
        ),
        (
            completion(None, tool_calls=[tool_call("same", "f", "{}"), tool_call("same", "g", "{}")]),
            "two tool calls share the id 'same'",
        ),
        ({"id": "x", "choices": []}, "the answer has no choices"),
    ],
)
def test_untranslatable_answers_are_clear_google_errors(wire, upstream, reply, problem) -> None:
    upstream.post(CHAT_URL).mock(return_value=httpx.Response(200, json=reply))
    response = wire.post(GENERATE, json={"contents": [user("Hi")]}, headers=KEY)
    assert response.status_code == 500
    assert response.json()["error"] == {
        "code": 500,
        "message": "The upstream model server http://upstream.test/v1 sent an answer the emulator cannot translate: "
        + problem,
        "status": "INTERNAL",
    }


def test_malformed_upstream_json_is_a_clear_google_error(wire, upstream) -> None:
    upstream.post(CHAT_URL).mock(
        return_value=httpx.Response(200, content=b'{"choices": [', headers={"content-type": "application/json"})
    )
    response = wire.post(GENERATE, json={"contents": [user("Hi")]}, headers=KEY)
    assert response.status_code == 500
    assert response.json()["error"]["message"].endswith("""the answer is not JSON: '{"choices": ['""")
