"""Every script entry kind and modifier, driven through google-genai and checked on the wire with httpx."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from gemini_emulator.engines.scripted.entries import BLOCK_REASONS, FINISH_REASONS
from gemini_emulator.engines.synth.calls import FUNCTION_CALL_MESSAGE
from gemini_emulator.protocol import errors, printers
from gemini_emulator.testing.pytest_plugin import Gemini

import corpus as captures

MODEL = "gemini-2.5-flash"
GEMINI_3 = "gemini-3-flash-preview"
# Unicode, HTML-ish tags (printed as \u003c...\u003e on the wire), newlines, a tab and quotes.
TRICKY = 'Héllo, wörld: 你好 😀\n<b>bold</b> & <script>alert(1)</script>\n\nSecond paragraph,\t"quoted" text ends.'
BODY = {"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}
SSE_END = b"\r\n\r\n"


def url(model: str = MODEL, method: str = "generateContent", sse: bool = False) -> str:
    return f"/v1beta/models/{model}:{method}" + ("?alt=sse" if sse else "")


@pytest.fixture
def wire(gemini_shared: Gemini) -> Iterator[httpx.Client]:
    """Raw HTTP with this test's key, for byte-level checks."""
    with httpx.Client(base_url=gemini_shared.url, headers={"x-goog-api-key": gemini_shared.api_key}) as client:
        yield client


def sse_events(body: bytes) -> list[dict]:
    """The SSE body as parsed events; fails unless it is nothing but `data: <one line>\\r\\n\\r\\n` events."""
    pieces = body.split(SSE_END)
    assert pieces[-1] == b"", f"body does not end with a complete event: {body[-60:]!r}"
    events = []
    for piece in pieces[:-1]:
        assert piece.startswith(b"data: ") and b"\n" not in piece and b"\r" not in piece, piece[:80]
        events.append(json.loads(piece[len(b"data: ") :]))
    return events


def stream(client: genai.Client, contents: str = "Say hello", model: str = MODEL) -> list:
    return list(client.models.generate_content_stream(model=model, contents=contents))


# --- text ------------------------------------------------------------------------------------------


def test_text_unary_is_exact_with_a_wire_true_envelope(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"text": TRICKY})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text == TRICKY
    candidate = response.candidates[0]
    assert candidate.finish_reason == types.FinishReason.STOP and candidate.index == 0
    usage = response.usage_metadata
    assert usage.prompt_token_count > 0 and usage.candidates_token_count > 0
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count
    assert response.model_version == MODEL
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", response.response_id)

    gemini_shared.script({"text": TRICKY})
    raw = wire.post(url(), json=BODY)
    assert raw.status_code == 200
    body = raw.json()
    assert list(body) == ["candidates", "usageMetadata", "modelVersion", "responseId"]
    assert body["candidates"][0] == {
        "content": {"parts": [{"text": TRICKY}], "role": "model"},
        "finishReason": "STOP",
        "index": 0,
    }
    assert list(body["usageMetadata"])[:3] == ["promptTokenCount", "candidatesTokenCount", "totalTokenCount"]
    assert b"\\u003cb\\u003ebold\\u003c/b\\u003e" in raw.content and "你好 😀".encode() in raw.content


def test_text_streamed_concatenates_to_the_scripted_text(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"text": TRICKY})
    chunks = stream(gemini_shared.client)
    assert len(chunks) > 1
    assert "".join(c.text for c in chunks) == TRICKY
    reasons = [c.candidates[0].finish_reason for c in chunks]
    assert reasons[-1] == types.FinishReason.STOP and set(reasons[:-1]) == {None}
    assert len({c.response_id for c in chunks}) == 1
    usage = chunks[-1].usage_metadata
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count

    gemini_shared.script({"text": TRICKY})
    events = sse_events(wire.post(url(method="streamGenerateContent", sse=True), json=BODY).content)
    assert "".join(e["candidates"][0]["content"]["parts"][0]["text"] for e in events) == TRICKY


# --- chunks ----------------------------------------------------------------------------------------

PIECES = ["Hel", "lo, wö", "rld <3\n", "!"]


def test_chunks_are_exactly_the_sse_events(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"chunks": PIECES})
    response = wire.post(url(method="streamGenerateContent", sse=True), json=BODY)
    assert response.status_code == 200 and response.headers["content-type"] == "text/event-stream"
    events = sse_events(response.content)
    assert [e["candidates"][0]["content"]["parts"] for e in events] == [[{"text": p}] for p in PIECES]
    assert [e["candidates"][0].get("finishReason") for e in events] == [None, None, None, "STOP"]


def test_chunks_are_exactly_the_json_array_elements(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"chunks": PIECES})
    response = wire.post(url(method="streamGenerateContent"), json=BODY)
    elements = json.loads(response.content)
    assert [e["candidates"][0]["content"]["parts"] for e in elements] == [[{"text": p}] for p in PIECES]


def test_chunks_through_the_sdk_stream_and_unary(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"chunks": PIECES})
    assert [c.text for c in stream(gemini_shared.client)] == PIECES
    gemini_shared.script({"chunks": PIECES})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text == "".join(PIECES)
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    gemini_shared.script({"chunks": PIECES})
    assert wire.post(url(), json=BODY).json()["candidates"][0]["content"]["parts"] == [{"text": "".join(PIECES)}]


def test_chunk_part_objects_pass_through(gemini_shared: Gemini, wire: httpx.Client) -> None:
    thought = {"thoughtSignature": "c2lnbmF0dXJl", "thought": True, "text": "Let me think."}
    entry = {"chunks": [thought, "The answer is 4."]}
    gemini_shared.script(entry)
    first, second = stream(gemini_shared.client)
    part = first.candidates[0].content.parts[0]
    assert (part.text, part.thought, part.thought_signature) == ("Let me think.", True, b"signature")
    assert second.text == "The answer is 4."

    gemini_shared.script(entry)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text == "The answer is 4."  # the SDK leaves thoughts out of .text
    assert [p.thought for p in response.candidates[0].content.parts] == [True, None]

    gemini_shared.script(entry)
    events = sse_events(wire.post(url(method="streamGenerateContent", sse=True), json=BODY).content)
    part = events[0]["candidates"][0]["content"]["parts"][0]
    assert list(part.items()) == [("text", "Let me think."), ("thought", True), ("thoughtSignature", "c2lnbmF0dXJl")]


# --- functionCall ----------------------------------------------------------------------------------


def test_function_call_with_given_id(gemini_shared: Gemini) -> None:
    args = {"city": "Paris", "days": 3, "units": {"celsius": True}, "tags": ["a", "b"]}
    gemini_shared.script({"functionCall": {"name": "get_weather", "args": args, "id": "call-1"}})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Weather in Paris?")
    (call,) = response.function_calls
    assert (call.name, call.args, call.id) == ("get_weather", args, "call-1")
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    assert response.text is None


def test_function_call_minted_id_and_signature(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"functionCall": {"name": "lookup"}})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Look it up")
    (call,) = response.function_calls
    assert call.name == "lookup" and call.args == {}
    assert re.fullmatch(r"[a-z0-9]{8}", call.id)
    assert response.candidates[0].content.parts[0].thought_signature  # decoded from base64 by the SDK

    gemini_shared.script({"functionCall": {"name": "lookup"}})
    part = wire.post(url(), json=BODY).json()["candidates"][0]["content"]["parts"][0]
    assert list(part) == ["functionCall", "thoughtSignature"]
    assert list(part["functionCall"]) == ["name", "args", "id"]
    assert re.fullmatch(r"[a-z0-9]{8}", part["functionCall"]["id"])


def test_several_function_calls_are_parallel_calls_in_one_turn(gemini_shared: Gemini) -> None:
    calls = [{"name": "get_weather", "args": {"city": c}} for c in ("Paris", "Rome", "Oslo")]
    gemini_shared.script({"functionCall": [*calls[:2], {**calls[2], "id": "mine"}]})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Weather in three cities?")
    assert len(response.candidates) == 1
    got = response.function_calls
    assert [(c.name, c.args) for c in got] == [(c["name"], c["args"]) for c in calls]
    assert all(re.fullmatch(r"[a-z0-9]{8}", c.id) for c in got[:2]) and got[2].id == "mine"
    assert len({c.id for c in got}) == 3
    parts = response.candidates[0].content.parts
    assert [p.thought_signature is not None for p in parts] == [True, False, False]

    gemini_shared.script({"functionCall": calls})
    chunks = stream(gemini_shared.client, "Weather in three cities?")
    assert len(chunks) == 1 and [c.name for c in chunks[0].function_calls] == ["get_weather"] * 3


def test_function_call_finish_message_follows_the_2026_traces(gemini_shared: Gemini, wire: httpx.Client) -> None:
    """Unary call turns carry it on every model; streams carry it on 2.5, not on Gemini 3."""
    entry = {"functionCall": {"name": "f"}}
    gemini_shared.script(entry, entry, entry, entry, entry)
    three = wire.post(url(GEMINI_3), json=BODY).json()["candidates"][0]
    assert three["finishMessage"] == FUNCTION_CALL_MESSAGE == "Model generated function call(s)."
    assert list(three) == ["content", "finishReason", "index", "finishMessage"]
    alias = wire.post(url("gemini-flash-latest"), json=BODY).json()["candidates"][0]  # resolves to a gemini-3
    assert alias["finishMessage"] == FUNCTION_CALL_MESSAGE
    two = wire.post(url(MODEL), json=BODY).json()["candidates"][0]
    assert two["finishMessage"] == FUNCTION_CALL_MESSAGE and two["finishReason"] == "STOP"
    events = sse_events(wire.post(url(GEMINI_3, "streamGenerateContent", sse=True), json=BODY).content)
    assert "finishMessage" not in events[-1]["candidates"][0]
    events = sse_events(wire.post(url(MODEL, "streamGenerateContent", sse=True), json=BODY).content)
    assert events[-1]["candidates"][0]["finishMessage"] == FUNCTION_CALL_MESSAGE


# --- raw -------------------------------------------------------------------------------------------


@pytest.mark.corpus
def test_raw_from_a_capture_is_served_verbatim(gemini_shared: Gemini, wire: httpx.Client) -> None:
    root = captures.require_corpus()
    (exchange,) = captures.read_httprr(root / "google-adk-go/model/gemini/testdata/TestModel_Generate_ok.httprr")
    raw = json.loads(exchange.body)
    gemini_shared.script({"raw": raw})
    response = wire.post(url(), json=BODY)
    assert response.status_code == 200
    assert response.content == printers.pretty(raw) == exchange.body

    gemini_shared.script({"raw": raw})
    sdk = gemini_shared.client.models.generate_content(model=MODEL, contents="What is the capital of France?")
    assert sdk.text == "Paris" and sdk.response_id == "xlWYafXAOKSf1e8PpcODiAg"
    assert sdk.usage_metadata.thoughts_token_count == 34 and sdk.usage_metadata.total_token_count == 46


@pytest.mark.corpus
def test_raw_firebase_fixture_keeps_its_floats_and_fields(gemini_shared: Gemini, wire: httpx.Client) -> None:
    path = captures.require_corpus() / captures.FIREBASE_MOCKS / "googleai/unary-success-basic-reply-short.json"
    raw = json.loads(path.read_bytes())
    gemini_shared.script({"raw": raw})
    assert wire.post(url(), json=BODY).content == path.read_bytes() == printers.pretty(raw)
    gemini_shared.script({"raw": raw})
    sdk = gemini_shared.client.models.generate_content(model=MODEL, contents="x")
    assert (
        sdk.model_version == "gemini-2.0-flash"
        and sdk.candidates[0].avg_logprobs == raw["candidates"][0]["avgLogprobs"]
    )


def firebase_stream() -> tuple[bytes, list[dict]]:
    path = captures.require_corpus() / captures.FIREBASE_MOCKS / "googleai/streaming-success-basic-reply-short.txt"
    data = path.read_bytes()
    return data, [json.loads(event[len(b"data: ") :]) for event in captures.split_sse(data)]


@pytest.mark.corpus
def test_raw_list_streams_one_event_per_object(gemini_shared: Gemini, wire: httpx.Client) -> None:
    data, objects = firebase_stream()
    assert len(objects) > 1
    gemini_shared.script({"raw": objects})
    response = wire.post(url(method="streamGenerateContent", sse=True), json=BODY)
    assert response.content == data
    assert sse_events(response.content) == objects

    gemini_shared.script({"raw": objects})
    chunks = stream(gemini_shared.client)
    assert [c.text for c in chunks] == [o["candidates"][0]["content"]["parts"][0]["text"] for o in objects]


@pytest.mark.corpus
def test_raw_list_unary_aggregates(gemini_shared: Gemini) -> None:
    _, objects = firebase_stream()
    text = "".join(o["candidates"][0]["content"]["parts"][0]["text"] for o in objects)
    gemini_shared.script({"raw": objects})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="x")
    assert response.text == text
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    assert response.usage_metadata.total_token_count == objects[-1]["usageMetadata"]["totalTokenCount"]


# --- error -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(errors.NAMES))
def test_error_by_name_reaches_the_sdk(gemini_shared: Gemini, name: str) -> None:
    gemini_shared.script({"error": name}, {"error": name})
    code = errors.named(name).code
    kind = genai_errors.ServerError if code >= 500 else genai_errors.ClientError
    with pytest.raises(kind) as caught:
        gemini_shared.client.models.generate_content(model=MODEL, contents="x")
    version = gemini_shared.journal().last.record["path"].split("/")[1]  # the SDK's default API version
    expected = errors.named(name, MODEL, version)
    assert (caught.value.code, caught.value.status, caught.value.message) == (
        expected.code,
        expected.status,
        expected.message,
    )
    assert caught.value.details == expected.envelope()
    with pytest.raises(kind) as caught:  # before the first chunk, a stream fails as an HTTP error too
        stream(gemini_shared.client)
    assert caught.value.code == expected.code


def test_quota_error_details_and_retry_after(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"error": "quota"})
    response = wire.post(url(), json=BODY)
    assert response.status_code == 429 and response.headers["retry-after"] == "20"
    error = response.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    types_ = [d["@type"].rsplit(".", 1)[-1] for d in error["details"]]
    assert types_ == ["Help", "QuotaFailure", "RetryInfo"]
    assert error["details"][1]["violations"][0]["quotaDimensions"]["model"] == MODEL
    assert error["details"][2]["retryDelay"] == "20s"
    assert "Please retry in 20s." in error["message"]


def test_custom_error_passes_through(gemini_shared: Gemini, wire: httpx.Client) -> None:
    details = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TEAPOT", "domain": "example.com"}]
    teapot = {"code": 418, "message": "I'm a teapot <short & stout>", "status": "TEAPOT", "details": details}
    gemini_shared.script({"error": teapot})
    with pytest.raises(genai_errors.ClientError) as caught:
        gemini_shared.client.models.generate_content(model=MODEL, contents="x")
    assert (caught.value.code, caught.value.status, caught.value.message) == (418, "TEAPOT", teapot["message"])
    assert caught.value.details == {"error": teapot}

    gemini_shared.script({"error": teapot})
    response = wire.post(url(), json=BODY)
    assert response.status_code == 418 and response.content == printers.pretty({"error": teapot})


@pytest.mark.parametrize(
    ("code", "status", "kind"),
    [
        (400, "INVALID_ARGUMENT", genai_errors.ClientError),
        (429, "RESOURCE_EXHAUSTED", genai_errors.ClientError),
        (503, "UNAVAILABLE", genai_errors.ServerError),
        (599, "UNKNOWN", genai_errors.ServerError),
    ],
)
def test_custom_error_status_follows_the_code(gemini_shared: Gemini, code: int, status: str, kind: type) -> None:
    gemini_shared.script({"error": {"code": code, "message": "scripted"}})
    with pytest.raises(kind) as caught:
        gemini_shared.client.models.generate_content(model=MODEL, contents="x")
    assert (caught.value.code, caught.value.status, caught.value.message) == (code, status, "scripted")


# --- modifiers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("reason", sorted(FINISH_REASONS))
def test_every_finish_reason_reaches_the_sdk(gemini_shared: Gemini, reason: str) -> None:
    assert len(FINISH_REASONS) == 24
    gemini_shared.script({"text": "Cut short", "finishReason": reason}, {"chunks": ["a", "b"], "finishReason": reason})
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="x")
    assert response.candidates[0].finish_reason == types.FinishReason(reason)
    assert response.text == "Cut short"
    chunks = stream(gemini_shared.client)
    assert [c.candidates[0].finish_reason for c in chunks] == [None, types.FinishReason(reason)]


def test_finish_message(gemini_shared: Gemini, wire: httpx.Client) -> None:
    entry = {"chunks": ["a", "b"], "finishReason": "SAFETY", "finishMessage": "Stopped: <policy> ü"}
    gemini_shared.script(entry, entry)
    candidate = wire.post(url(), json=BODY).json()["candidates"][0]
    assert (candidate["finishReason"], candidate["finishMessage"]) == ("SAFETY", entry["finishMessage"])
    events = sse_events(wire.post(url(method="streamGenerateContent", sse=True), json=BODY).content)
    assert [e["candidates"][0].get("finishMessage") for e in events] == [None, entry["finishMessage"]]


@pytest.mark.parametrize("reason", sorted(BLOCK_REASONS))
def test_block_reason_means_prompt_feedback_and_no_candidates(gemini_shared: Gemini, reason: str) -> None:
    ratings = [{"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "HIGH", "blocked": True}]
    entry = {"blockReason": reason, "safetyRatings": ratings}
    gemini_shared.script(entry, entry)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="something bad")
    assert response.candidates is None and response.text is None
    feedback = response.prompt_feedback
    assert feedback.block_reason == types.BlockedReason(reason)
    assert feedback.safety_ratings[0].category == types.HarmCategory.HARM_CATEGORY_HATE_SPEECH
    assert feedback.safety_ratings[0].blocked is True
    assert response.usage_metadata.prompt_token_count > 0
    (chunk,) = stream(gemini_shared.client, "something bad")
    assert chunk.candidates is None and chunk.prompt_feedback.block_reason == types.BlockedReason(reason)


def test_block_reason_on_the_wire(gemini_shared: Gemini, wire: httpx.Client) -> None:
    gemini_shared.script({"blockReason": "PROHIBITED_CONTENT"})
    body = wire.post(url(), json=BODY).json()
    assert list(body) == ["promptFeedback", "usageMetadata", "modelVersion", "responseId"]
    assert body["promptFeedback"] == {"blockReason": "PROHIBITED_CONTENT"}


def test_safety_ratings_on_the_candidate(gemini_shared: Gemini) -> None:
    ratings = [
        {"category": "HARM_CATEGORY_HARASSMENT", "probability": "MEDIUM"},
        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "NEGLIGIBLE"},
    ]
    entry = {"chunks": ["one ", "two"], "safetyRatings": ratings}
    gemini_shared.script(entry, entry)
    got = gemini_shared.client.models.generate_content(model=MODEL, contents="x").candidates[0].safety_ratings
    assert [(r.category, r.probability) for r in got] == [
        (types.HarmCategory.HARM_CATEGORY_HARASSMENT, types.HarmProbability.MEDIUM),
        (types.HarmCategory.HARM_CATEGORY_DANGEROUS_CONTENT, types.HarmProbability.NEGLIGIBLE),
    ]
    chunks = stream(gemini_shared.client)
    assert chunks[0].candidates[0].safety_ratings is None  # only the final chunk carries them
    assert len(chunks[-1].candidates[0].safety_ratings) == 2


def test_usage_override_recomputes_the_total(gemini_shared: Gemini, wire: httpx.Client) -> None:
    usage = {
        "promptTokenCount": 100,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 7,
        "cachedContentTokenCount": 40,
    }
    gemini_shared.script({"text": "x", "usage": usage})
    got = gemini_shared.client.models.generate_content(model=MODEL, contents="x").usage_metadata
    assert (got.prompt_token_count, got.candidates_token_count, got.thoughts_token_count) == (100, 20, 7)
    assert got.cached_content_token_count == 40
    assert got.total_token_count == 127  # prompt + candidates + thoughts; cached tokens are part of the prompt

    gemini_shared.script({"text": "x", "usage": usage})
    wire_usage = wire.post(url(), json=BODY).json()["usageMetadata"]
    assert list(wire_usage) == [
        "promptTokenCount",
        "candidatesTokenCount",
        "totalTokenCount",
        "cachedContentTokenCount",
        "promptTokensDetails",
        "thoughtsTokenCount",
        "serviceTier",
    ]


def test_usage_override_keeps_a_given_total_and_computes_the_rest(gemini_shared: Gemini) -> None:
    gemini_shared.script({"text": "Four words right here", "usage": {"promptTokenCount": 9, "totalTokenCount": 5}})
    got = gemini_shared.client.models.generate_content(model=MODEL, contents="x").usage_metadata
    assert (got.prompt_token_count, got.total_token_count) == (9, 5)
    assert got.candidates_token_count > 0  # still the emulator's own count

    gemini_shared.script({"chunks": ["a ", "b"], "usage": {"candidatesTokenCount": 50}})
    chunks = stream(gemini_shared.client)
    final = chunks[-1].usage_metadata
    assert final.candidates_token_count == 50
    assert final.total_token_count == final.prompt_token_count + 50


# --- times -----------------------------------------------------------------------------------------


def ask(gemini: Gemini, contents: str = "x") -> str:
    return gemini.client.models.generate_content(model=MODEL, contents=contents).text


def test_times_n_then_gone(gemini_shared: Gemini) -> None:
    gemini_shared.script({"name": "twice", "text": "A", "times": 2}, {"name": "once", "text": "B"})
    assert ask(gemini_shared) == "A"
    assert [(e["name"], e["served"], e["remaining"]) for e in gemini_shared.pending()] == [
        ("twice", 1, 1),
        ("once", 0, 1),
    ]
    assert ask(gemini_shared) == "A"
    assert [e["name"] for e in gemini_shared.pending()] == ["once"]
    assert ask(gemini_shared) == "B"
    assert gemini_shared.pending() == []
    assert ask(gemini_shared) not in ("A", "B")  # the zero-config answer again
    assert gemini_shared.journal().entries == ["twice", "twice", "once", "zero-config"]


def test_times_forever_is_never_consumed(gemini_shared: Gemini) -> None:
    gemini_shared.script({"name": "always", "text": "F", "times": "forever"}, {"name": "behind", "text": "never"})
    assert [ask(gemini_shared, f"question {i}") for i in range(5)] == ["F"] * 5
    listing = gemini_shared.pending()
    assert [(e["name"], e["served"], e["remaining"]) for e in listing] == [("always", 5, "forever"), ("behind", 0, 1)]
    assert listing[0]["entry"] == {"name": "always", "text": "F", "times": "forever"}


# --- Vertex ----------------------------------------------------------------------------------------


@pytest.fixture
def vertex(gemini_shared: Gemini) -> Iterator[tuple[genai.Client, httpx.Client]]:
    """google-genai in Vertex mode with a static token, and the admin API under the same token."""
    token = "vertex-" + uuid.uuid4().hex
    client = genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=token),
        http_options=types.HttpOptions(base_url=gemini_shared.url),
    )
    with httpx.Client(base_url=gemini_shared.url, headers={"authorization": f"Bearer {token}"}) as http:
        yield client, http
        http.post("/__emulator/reset")


def test_vertex_scripted_text_arrives_in_vertex_shape(vertex: tuple[genai.Client, httpx.Client]) -> None:
    client, http = vertex
    assert http.post("/__emulator/script", json=[{"text": TRICKY}, {"text": TRICKY}]).status_code == 200
    response = client.models.generate_content(model=MODEL, contents="Say hello")
    assert response.text == TRICKY
    assert response.create_time is not None and response.candidates[0].index is None
    assert response.usage_metadata.traffic_type == types.TrafficType.ON_DEMAND

    path = f"/v1beta1/projects/demo-project/locations/us-central1/publishers/google/models/{MODEL}:generateContent"
    body = http.post(path, json=BODY).json()
    assert list(body) == ["candidates", "usageMetadata", "modelVersion", "createTime", "responseId"]
    candidate = body["candidates"][0]
    assert list(candidate) == ["content", "finishReason", "avgLogprobs"]  # Vertex unary: avgLogprobs (VCR)
    assert (
        candidate["content"] == {"role": "model", "parts": [{"text": TRICKY}]} and candidate["finishReason"] == "STOP"
    )
    assert -3 < candidate["avgLogprobs"] < 0
    assert "serviceTier" not in body["usageMetadata"] and "billablePromptUsage" not in body["usageMetadata"]


def test_vertex_streamed_and_finish_details(vertex: tuple[genai.Client, httpx.Client]) -> None:
    client, http = vertex
    http.post(
        "/__emulator/script",
        json=[
            {"chunks": PIECES, "finishReason": "MAX_TOKENS", "finishMessage": "ran out"},
            {"functionCall": {"name": "f", "args": {"x": 1}}},
        ],
    )
    chunks = list(client.models.generate_content_stream(model=MODEL, contents="x"))
    assert [c.text for c in chunks] == PIECES
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert chunks[-1].candidates[0].finish_message == "ran out"
    assert all(c.usage_metadata.prompt_token_count is None for c in chunks[:-1])
    response = client.models.generate_content(model=GEMINI_3, contents="x")
    assert [(c.name, c.args, c.id) for c in response.function_calls] == [("f", {"x": 1}, None)]  # no id on Vertex
    assert response.candidates[0].finish_message is None  # Vertex sends no finishMessage for a call (VCR: 0/60)


def test_floats_in_engine_data_are_printed_as_production_spells_doubles(gemini_shared: Gemini, wire: httpx.Client):
    """Args, safety ratings and usage from a script carry floats: every one is spelled like protobuf's SimpleDtoa
    (1.0 as `1`, 1e-05 as `1e-05`, 0.1 + 0.2 with 17 digits) in unary bodies and SSE events alike."""
    args = {"x": 1.0, "small": 1e-05, "sum": 0.1 + 0.2, "nested": [{"deep": [2.5, "a", 3.0]}]}
    spelled = b'"x": 1,"small": 1e-05,"sum": 0.30000000000000004,"nested": [{"deep": [2.5,"a",3]}]'
    entry = {"functionCall": {"name": "f", "args": args, "id": "c1"}}
    gemini_shared.script(entry)
    unary = wire.post(url(), json=BODY).content
    assert b'"x": 1,\n' in unary and b'"small": 1e-05,' in unary and b'"sum": 0.30000000000000004,' in unary
    assert b"1.0" not in unary and b"3.0" not in unary
    gemini_shared.script(entry)
    events = wire.post(url(method="streamGenerateContent", sse=True), json=BODY).content
    assert spelled in events
