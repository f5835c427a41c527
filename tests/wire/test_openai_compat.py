"""The OpenAI-compatible surface (/v1beta/openai/) on the wire: shapes, SSE framing, errors in its own
list-wrapped envelope, and the native path underneath (same answer, scripts, faults, namespaces, journal)."""

from __future__ import annotations

import base64
import struct
import uuid

import httpx
import orjson
import pytest

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.testing.server import RunningEmulator

CHAT = "/v1beta/openai/chat/completions"
MODEL = "gemini-2.5-flash"


def _key() -> str:
    return "k-" + uuid.uuid4().hex[:12]


def _post(http: httpx.Client, key: str, body: object, path: str = CHAT) -> httpx.Response:
    return http.post(path, headers={"authorization": f"Bearer {key}"}, content=orjson.dumps(body))


def _chat(text: str, **extra: object) -> dict[str, object]:
    return {"model": MODEL, "messages": [{"role": "user", "content": text}], **extra}


def _events(response: httpx.Response) -> list[bytes]:
    body = response.content
    assert body.endswith(b"\n\n")
    return [e.removeprefix(b"data: ") for e in body[:-2].split(b"\n\n")]


def test_unary_has_openai_shape_and_the_native_answer(http: httpx.Client) -> None:
    key = _key()
    got = _post(http, key, _chat("Why is the sky blue?"))
    assert got.status_code == 200 and got.headers["content-type"] == "application/json"
    body = got.json()
    assert list(body) == ["choices", "created", "id", "model", "object", "usage"]
    assert body["object"] == "chat.completion" and body["model"] == MODEL and isinstance(body["created"], int)
    native = http.post(
        f"/v1beta/models/{MODEL}:generateContent",
        headers={"x-goog-api-key": key},
        json={"contents": [{"role": "user", "parts": [{"text": "Why is the sky blue?"}]}]},
    ).json()
    choice = body["choices"][0]
    assert choice["message"] == {"content": native["candidates"][0]["content"]["parts"][0]["text"], "role": "assistant"}
    assert choice["finish_reason"] == "stop" and choice["index"] == 0
    assert body["id"] == native["responseId"]  # same request on both wires
    meta = native["usageMetadata"]
    assert body["usage"] == {
        "completion_tokens": meta["candidatesTokenCount"],
        "completion_tokens_details": {"reasoning_tokens": meta["thoughtsTokenCount"]},
        "prompt_tokens": meta["promptTokenCount"],
        "total_tokens": meta["totalTokenCount"],
    }


def test_stream_is_sse_chunks_then_done_with_usage_on_request(http: httpx.Client) -> None:
    key = _key()
    prompt = "Write two paragraphs about the history of bridges"
    got = _post(http, key, _chat(prompt, stream=True, stream_options={"include_usage": True}))
    assert got.status_code == 200 and got.headers["content-type"] == "text/event-stream"
    *events, done = _events(got)
    assert done == b"[DONE]"
    chunks = [orjson.loads(e) for e in events]
    assert len(chunks) > 1 and {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None] * (len(chunks) - 1) + ["stop"]
    assert "usage" in chunks[-1] and all("usage" not in c for c in chunks[:-1])
    unary = _post(http, key, _chat(prompt)).json()
    assert "".join(c["choices"][0]["delta"]["content"] for c in chunks) == unary["choices"][0]["message"]["content"]
    plain = _events(_post(http, key, _chat(prompt, stream=True)))
    assert all(b'"usage"' not in e for e in plain)


def test_messages_of_every_role_reach_the_engine_as_native_contents(gemini_emulator: RunningEmulator) -> None:
    key = _key()
    image = base64.b64encode(b"\x89PNG fake").decode()
    body = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "developer", "content": [{"type": "text", "text": "Use French."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather?"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/cat.webp"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}},
                    {"id": "c2", "type": "function", "function": {"name": "time", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"sky": "clear"}'},
            {"role": "tool", "tool_call_id": "c2", "content": "noon"},
        ],
        "tools": [
            {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "time"}},
        ],
    }
    admin = AdminClient(gemini_emulator.url, api_key=key)
    with httpx.Client(base_url=gemini_emulator.url) as http:
        assert _post(http, key, body).status_code == 200
    call = admin.journal().last
    admin.close()
    assert call.rpc == "openai.chat.completions" and call.model == MODEL
    # the journal (like the engine) sees the native request: system instruction, parts, paired responses
    assert call.body["systemInstruction"] == {"parts": [{"text": "Be brief."}, {"text": "Use French."}]}
    assert call.contents[0]["parts"][1:] == [
        {"inlineData": {"mimeType": "image/png", "data": image}},
        {"fileData": {"mimeType": "image/webp", "fileUri": "https://example.com/cat.webp"}},
    ]
    assert call.contents[1] == {
        "role": "model",
        "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
            {"functionCall": {"name": "time", "args": {}}},
        ],
    }
    assert call.function_responses == [
        {"name": "weather", "response": {"sky": "clear"}},
        {"name": "time", "response": {"result": "noon"}},
    ]


def test_script_entries_faults_and_strict_mode_apply(http: httpx.Client, gemini_emulator: RunningEmulator) -> None:
    key = _key()
    admin = AdminClient(gemini_emulator.url, api_key=key)
    try:
        admin.script(
            {"match": {"text": "weather"}, "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
            {"text": "scripted", "finishReason": "MAX_TOKENS"},
            {"chunks": ["one ", "two"], "error": "unavailable", "errorAfterChunks": 1},
        )
        calls = _post(
            http, key, _chat("weather in Oslo?", tools=[{"type": "function", "function": {"name": "get_weather"}}])
        )
        message = calls.json()["choices"][0]
        assert message["finish_reason"] == "tool_calls"
        [call] = message["message"]["tool_calls"]
        assert (
            call["function"] == {"arguments": '{"city":"Oslo"}', "name": "get_weather"} and call["type"] == "function"
        )
        assert isinstance(call["id"], str) and call["id"]  # the native call id, when the answer has one
        limited = _post(http, key, _chat("anything")).json()["choices"][0]
        assert limited["finish_reason"] == "length" and limited["message"]["content"] == "scripted"
        streamed = _post(http, key, _chat("go", stream=True))
        events = _events(streamed)
        assert orjson.loads(events[0])["choices"][0]["delta"]["content"] == "one "
        assert orjson.loads(events[-1])["error"]["status"] == "UNAVAILABLE" and b"[DONE]" not in streamed.content
        admin.strict()
        refused = _post(http, key, _chat("unscripted"))
        assert refused.status_code >= 400 and isinstance(refused.json(), list)
    finally:
        admin.strict(False)
        admin.close()


def test_the_bearer_token_is_the_native_key_namespace(http: httpx.Client, gemini_emulator: RunningEmulator) -> None:
    key = _key()
    admin = AdminClient(gemini_emulator.url, api_key=key)
    admin.script({"text": "for this key only"})
    assert _post(http, _key(), _chat("hi")).json()["choices"][0]["message"]["content"] != "for this key only"
    assert _post(http, key, _chat("hi")).json()["choices"][0]["message"]["content"] == "for this key only"
    assert [c.rpc for c in admin.journal()] == ["openai.chat.completions"]
    admin.close()


def test_response_format_and_sampling_become_generation_config(gemini_emulator: RunningEmulator) -> None:
    key = _key()
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    body = _chat(
        "Name a city",
        response_format={"type": "json_schema", "json_schema": {"name": "c", "schema": schema, "strict": True}},
        n=2,
        stop="END",
        max_completion_tokens=50,
        temperature=0.5,
        top_p=0.9,
        seed=7,
        reasoning_effort="low",
    )
    with httpx.Client(base_url=gemini_emulator.url) as http:
        got = _post(http, key, body).json()
    assert [c["index"] for c in got["choices"]] == [0, 1]
    assert set(orjson.loads(got["choices"][0]["message"]["content"])) == {"name"}
    json_mode = _chat("Name a city", response_format={"type": "json_object"})
    with httpx.Client(base_url=gemini_emulator.url) as http:
        text = _post(http, key, json_mode).json()["choices"][0]["message"]["content"]
    assert isinstance(orjson.loads(text), dict)


@pytest.mark.parametrize(
    ("body", "status", "wording"),
    [
        (b"{not json", 400, "Invalid JSON payload received"),
        (b"[]", 400, ""),
        # production's words (SuzumiyaAkizuki/ComfyUI-NewBie-LLM-Formatter#3 quotes them from /v1beta/openai/)
        (orjson.dumps({"model": MODEL, "messages": [], "reasoning": 1}), 400, 'Unknown name "reasoning"'),
        (orjson.dumps({"model": MODEL}), 400, "messages is not specified"),
        (orjson.dumps({"messages": [{"role": "user", "content": "x"}]}), 400, "model is not specified"),
        (orjson.dumps(_chat("x", temperature="hot")), 400, "Invalid value at 'temperature' (TYPE_FLOAT)"),
        (orjson.dumps({"model": MODEL, "messages": [{"role": "robot", "content": "x"}]}), 400, "role"),
        (orjson.dumps(_chat("x", tool_choice="required")), 400, "without function_declarations"),
        (orjson.dumps(_chat("x", reasoning_effort="low", extra_body={"google": {"thinking_config": {}}})), 400, ""),
        (orjson.dumps(_chat("x", model="no-such-model")), 404, "Call ModelService.ListModels"),
    ],
)
def test_bad_requests_get_the_list_wrapped_error(http: httpx.Client, body: bytes, status: int, wording: str) -> None:
    got = http.post(CHAT, headers={"authorization": "Bearer k"}, content=body)
    assert got.status_code == status
    [envelope] = got.json()
    assert list(envelope["error"])[:3] == ["code", "message", "status"] and envelope["error"]["code"] == status
    assert wording in envelope["error"]["message"]


def test_unknown_model_wording_is_productions(http: httpx.Client) -> None:
    """Fixture: production's answer as an openai-agents traceback quoted it (openai.NotFoundError: Error code: 404 -
    [{'error': {...}}]), in a public repository's debugging notes; see docs/conformance.md, OpenAI compatibility."""
    [envelope] = _post(http, "k", _chat("x", model="gemini-pro")).json()
    assert envelope == {
        "error": {
            "code": 404,
            "message": "models/gemini-pro is not found for API version v1main, or is not supported for "
            "generateContent. Call ModelService.ListModels to see the list of available models and their "
            "supported methods.",
            "status": "NOT_FOUND",
        }
    }


def test_credentials(gemini_emulator: RunningEmulator) -> None:
    with httpx.Client(base_url=gemini_emulator.url) as http:
        missing = http.post(CHAT, json=_chat("x"))
    assert missing.status_code == 403 and missing.json()[0]["error"]["status"] == "PERMISSION_DENIED"


def test_embeddings_float_and_base64(http: httpx.Client) -> None:
    body = {"model": "gemini-embedding-001", "input": ["a cat", "a dog"], "dimensions": 8}
    floats = _post(http, "k", body, "/v1beta/openai/embeddings").json()
    assert floats["object"] == "list" and floats["model"] == "gemini-embedding-001"
    assert [d["index"] for d in floats["data"]] == [0, 1] and all(len(d["embedding"]) == 8 for d in floats["data"])
    assert floats["usage"]["prompt_tokens"] == floats["usage"]["total_tokens"] > 0
    packed = _post(http, "k", body | {"encoding_format": "base64"}, "/v1beta/openai/embeddings").json()
    decoded = struct.unpack("<8f", base64.b64decode(packed["data"][0]["embedding"]))
    assert decoded == pytest.approx(floats["data"][0]["embedding"], rel=1e-6)
    one = _post(http, "k", {"model": "gemini-embedding-001", "input": "x"}, "/v1beta/openai/embeddings").json()
    assert len(one["data"]) == 1


def test_models_list_and_get(http: httpx.Client) -> None:
    listed = http.get("/v1beta/openai/models", headers={"authorization": "Bearer k"}).json()
    assert listed["object"] == "list"
    assert {"id": f"models/{MODEL}", "object": "model", "owned_by": "google"} in listed["data"]
    for path in (f"/v1beta/openai/models/{MODEL}", f"/v1beta/openai/models/models/{MODEL}"):
        assert http.get(path, headers={"authorization": "Bearer k"}).json()["id"] == f"models/{MODEL}"
    missing = http.get("/v1beta/openai/models/nope", headers={"authorization": "Bearer k"})
    assert missing.status_code == 404 and missing.json()[0]["error"]["status"] == "NOT_FOUND"


def test_paths_the_surface_does_not_serve_get_googles_404_page(http: httpx.Client) -> None:
    got = http.post("/v1beta/openai/images/edits", headers={"authorization": "Bearer k"}, json={})
    assert got.status_code == 404 and got.headers["content-type"].startswith("text/html")


def test_extra_body_google_reaches_the_native_request(gemini_emulator: RunningEmulator) -> None:
    key = _key()
    cache = {"model": f"models/{MODEL}", "contents": [{"role": "user", "parts": [{"text": "Sky facts. " * 600}]}]}
    made = httpx.post(f"{gemini_emulator.url}/v1beta/cachedContents", json=cache, headers={"x-goog-api-key": key})
    cache_name = made.json()["name"]  # the caller's own cache: another's, or none, is production's 403
    google = {
        "thinking_config": {"include_thoughts": True, "thinking_budget": 512},
        "cached_content": cache_name,
    }
    body = _chat("Why is the sky blue?", extra_body={"google": google})
    with httpx.Client(base_url=gemini_emulator.url) as http:
        got = _post(http, key, body)
    admin = AdminClient(gemini_emulator.url, api_key=key)
    sent = admin.journal().last.body
    admin.close()
    assert sent["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 512}
    assert sent["cachedContent"] == cache_name
    content = got.json()["choices"][0]["message"]["content"]
    assert content.startswith("<thought>") and "</thought>" in content  # the thought summary, tagged, first
    low = _chat("Why is the sky blue?", reasoning_effort="none")
    with httpx.Client(base_url=gemini_emulator.url) as http:
        assert _post(http, key, low).status_code == 200
    admin = AdminClient(gemini_emulator.url, api_key=key)
    assert admin.journal().last.body["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 0}}
    admin.close()
