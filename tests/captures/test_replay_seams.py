"""What a recording answers that the wire would otherwise answer itself (the seam's optional
capabilities).

The replay engine, and the scripted engine's `replay` entries, serve models the catalogue retired or never
knew (only for requests they hold a recording of), the recorded countTokens, computeTokens and embedding
bodies, and the recorded response headers; the admin reset restarts a caller's recorded conversations. Every
other request still gets the wire's own answer. Real servers, real sockets, google-genai where it can ask.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from google.oauth2.credentials import Credentials

from gemini_emulator.captures.format import DEFAULT_DIR, Capture, Exchange, Request, load_dir
from gemini_emulator.captures.importers import exchange
from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors, printers
from gemini_emulator.protocol.headers import SERVICE_TIER_HEADER
from gemini_emulator.testing.server import RunningEmulator, start

COPIED = (
    "developer/structured-output-json-mode",  # gemini-2.0-flash, integer enums
    "developer/json-array-stream",  # gemini-2.0-flash, JSON-array stream
    "vertex/function-call-round-trip",  # gemini-2.0-flash on Vertex
    "developer/sse-minimal",  # 2026, no service tier header
    "developer/unary-minimal",
    "conversations/gemini-3.5-delegation-single-turn",  # 2026-06, with the service tier header
    "count-tokens/developer",
    "count-tokens/vertex-compute-tokens",
    "embeddings/batch-embed-contents",  # embedding-001, retired
    "embeddings/vertex-predict",  # text-embedding-004, not in the catalogue
    "errors/unknown-model-count-tokens",  # production's 404 with one DebugInfo
    "errors/unknown-model-stream",  # a re-serialised 404: keys sorted by the recorder
)
RECORDED = {c.name: c for c in load_dir() if c.name in COPIED}
DEV = "/v1beta/models/gemini-2.5-flash:generateContent"
RETIRED = "/v1beta/models/gemini-2.0-flash:generateContent"
VERTEX_COUNT = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens"


def _twice_capture() -> Capture:
    """One request recorded twice with different answers: only the conversation position tells them apart."""
    request = Request("POST", DEV, body='{"contents":[{"role":"user","parts":[{"text":"once more?"}]}]}')

    def answer(text: str) -> Exchange:
        candidate = {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}
        body = printers.pretty({"candidates": [candidate], "modelVersion": "gemini-2.5-flash"})
        return exchange(request, 200, {"content-type": "application/json; charset=UTF-8"}, body)

    provenance = {"source": "test", "licence": "test", "recorded": "2026-01-01", "fidelity": "edited", "edits": ["x"]}
    return Capture("test/twice", "same request, two answers", provenance, [answer("first"), answer("second")])


@pytest.fixture(scope="module")
def captures_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("captures")
    for name in COPIED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DEFAULT_DIR / f"{name}.json", root / f"{name}.json")
    _twice_capture().write(root)
    return root


@pytest.fixture(scope="module")
def replay(captures_dir: Path) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, engine="replay", captures=str(captures_dir)))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def scripted(captures_dir: Path) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, captures=str(captures_dir)))
    yield running
    running.stop()


def _send(server: RunningEmulator, recorded: Exchange, key: str) -> httpx.Response:
    request = recorded.request
    headers = dict(request.headers) | {"x-goog-api-key": key}
    if request.auth == "bearer":
        headers["authorization"] = "Bearer t"
    return httpx.post(server.url + request.url, content=request.body or "", headers=headers)


def _first(name: str) -> Exchange:
    return RECORDED[name].exchanges[0]


def _journal(server: RunningEmulator, key: str) -> list[dict]:
    return httpx.get(server.url + "/__emulator/journal", headers={"x-goog-api-key": key}).json()["records"]


def _script(server: RunningEmulator, key: str, *entries: dict) -> None:
    resp = httpx.post(server.url + "/__emulator/script", headers={"x-goog-api-key": key}, json=list(entries))
    assert resp.status_code == 200, resp.text


# --- retired and unknown models ---------------------------------------------------------------------------


def test_a_retired_model_is_served_from_its_recording(replay: RunningEmulator) -> None:
    for name in ("developer/structured-output-json-mode", "developer/json-array-stream"):
        recorded = _first(name)
        resp = _send(replay, recorded, "retired")
        assert resp.status_code == 200 and resp.content == recorded.response.body, name


def test_a_retired_vertex_model_replays_through_the_sdk(replay: RunningEmulator) -> None:
    client = genai.Client(
        vertexai=True,
        project="p",
        location="us-central1",
        credentials=Credentials(token="t"),
        http_options=types.HttpOptions(base_url=replay.url),
    )
    number = types.Schema(type="NUMBER")
    divide = types.FunctionDeclaration(
        name="customDivide",
        description="Custom divide function",
        parameters=types.Schema(type="OBJECT", properties={"denominator": number, "numerator": number}),
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[divide])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    answer = client.models.generate_content(
        model="gemini-2.0-flash", contents="what is the result of 100/2", config=config
    )
    (call,) = answer.function_calls
    assert (call.name, call.args) == ("customDivide", {"denominator": 2, "numerator": 100})


def test_a_retired_model_without_a_recording_gets_productions_404(replay: RunningEmulator) -> None:
    """The engine vouches for a model only with a recording of this very request: else the catalogue's 404."""
    resp = httpx.post(
        replay.url + RETIRED,
        json={"contents": [{"parts": [{"text": "never recorded"}]}]},
        headers={"x-goog-api-key": "k"},
    )
    assert resp.status_code == 404
    assert resp.content == printers.pretty(errors.model_no_longer_available("gemini-2.0-flash").envelope())


def test_recorded_404s_of_unknown_models_replay_as_recorded(replay: RunningEmulator) -> None:
    """The wire's own 404 has two DebugInfo details and production's key order; the recordings have one detail,
    and keys sorted by the recorder."""
    for name in ("errors/unknown-model-count-tokens", "errors/unknown-model-stream"):
        recorded = _first(name)
        resp = _send(replay, recorded, "unknown-model")
        assert resp.status_code == 404 and resp.content == recorded.response.body, name
        assert resp.headers["content-type"] == recorded.response.content_type


def test_the_scripted_engine_serves_a_retired_model_only_through_a_replay_entry(scripted: RunningEmulator) -> None:
    recorded = _first("developer/structured-output-json-mode")
    gone = printers.pretty(errors.model_no_longer_available("gemini-2.0-flash").envelope())
    _script(scripted, "ns-text", {"text": "scripted"})
    assert _send(scripted, recorded, "ns-text").content == gone  # a scripted answer never vouches for the model
    assert _send(scripted, recorded, "ns-zero").content == gone  # nor does the zero-config answer
    _script(scripted, "ns-elsewhere", {"replay": "developer/sse-*"})
    assert _send(scripted, recorded, "ns-elsewhere").content == gone  # a replay entry without this recording
    _script(scripted, "ns-replay", {"replay": "developer/*"})
    resp = _send(scripted, recorded, "ns-replay")
    assert resp.status_code == 200 and resp.content == recorded.response.body
    assert _journal(scripted, "ns-replay")[-1]["entry"] == "replay:developer/structured-output-json-mode#0"


# --- methods the wire computes ----------------------------------------------------------------------------


def test_count_tokens_gets_the_recorded_count_through_the_sdk(replay: RunningEmulator) -> None:
    client = genai.Client(api_key="count", http_options=types.HttpOptions(base_url=replay.url, api_version="v1beta"))
    counted = client.models.count_tokens(
        model="gemini-2.5-flash", contents="The quick brown fox jumps over the lazy dog."
    )
    assert counted.total_tokens == 11  # recorded; the wire's estimate says 10
    assert _journal(replay, "count")[-1]["entry"] == "replay:count-tokens/developer#0"
    resp = _send(replay, _first("count-tokens/developer"), "count-bytes")
    assert resp.content == _first("count-tokens/developer").response.body


def test_unrecorded_count_tokens_gets_the_wires_estimate(replay: RunningEmulator) -> None:
    resp = httpx.post(
        replay.url + "/v1beta/models/gemini-2.5-flash:countTokens",
        json={"contents": [{"parts": [{"text": "why is the sky blue?"}]}]},
        headers={"x-goog-api-key": "k"},
    )
    assert resp.status_code == 200 and resp.json()["totalTokens"] == 6


def test_compute_tokens_and_embeddings_replay(replay: RunningEmulator) -> None:
    for name in ("count-tokens/vertex-compute-tokens", "embeddings/batch-embed-contents", "embeddings/vertex-predict"):
        recorded = _first(name)
        resp = _send(replay, recorded, "methods")
        assert resp.status_code == 200 and resp.content == recorded.response.body, name


def test_unrecorded_compute_tokens_is_computed_by_the_wire(replay: RunningEmulator) -> None:
    path = VERTEX_COUNT.replace(":countTokens", ":computeTokens")
    body = {"contents": [{"role": "user", "parts": [{"text": "not recorded"}]}]}
    resp = httpx.post(replay.url + path, json=body, headers={"authorization": "Bearer t"})
    assert resp.status_code == 200 and resp.json()["tokensInfo"][0]["tokens"] == ["bm90", "IHJlY29yZA==", "ZWQ="]


def test_a_scripted_entry_is_left_for_generate_content_when_count_tokens_comes_first(
    scripted: RunningEmulator,
) -> None:
    """Only a replay entry holding the recording answers countTokens; any other entry stays pending."""
    _script(scripted, "ns-count", {"text": "still here"})
    body = {"contents": [{"role": "user", "parts": [{"text": "The quick brown fox jumps over the lazy dog."}]}]}
    headers = {"x-goog-api-key": "ns-count"}
    counted = httpx.post(scripted.url + "/v1beta/models/gemini-2.5-flash:countTokens", json=body, headers=headers)
    assert counted.json()["totalTokens"] == 10  # the wire's estimate
    answer = httpx.post(scripted.url + DEV, json=body, headers=headers)
    assert answer.json()["candidates"][0]["content"]["parts"][0]["text"] == "still here"
    _script(scripted, "ns-count-replay", {"replay": "count-tokens/*"})
    counted = httpx.post(
        scripted.url + "/v1beta/models/gemini-2.5-flash:countTokens",
        json=body,
        headers={"x-goog-api-key": "ns-count-replay"},
    )
    assert counted.json()["totalTokens"] == 11  # recorded
    pending = httpx.get(scripted.url + "/__emulator/script", headers={"x-goog-api-key": "ns-count-replay"}).json()
    assert pending["entries"] == []  # the replay entry answered (times 1)


# --- recorded headers ---------------------------------------------------------------------------------------


def test_recorded_headers_replace_the_wires_service_tier(replay: RunningEmulator) -> None:
    for name in ("developer/sse-minimal", "developer/unary-minimal"):
        resp = _send(replay, _first(name), "headers")
        assert SERVICE_TIER_HEADER not in resp.headers, name  # recorded without it
    resp = _send(replay, _first("conversations/gemini-3.5-delegation-single-turn"), "headers-tier")
    assert resp.headers[SERVICE_TIER_HEADER] == "standard"


def test_unrecorded_answers_keep_the_wires_headers(scripted: RunningEmulator) -> None:
    body = {"contents": [{"parts": [{"text": "hello"}]}]}
    resp = httpx.post(scripted.url + DEV, json=body, headers={"x-goog-api-key": "ns-headers"})
    assert resp.headers[SERVICE_TIER_HEADER] == "standard"
    url = scripted.url + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    resp = httpx.post(url, json=body, headers={"x-goog-api-key": "ns-headers"})
    assert SERVICE_TIER_HEADER not in resp.headers  # the wire sends it on unary Developer answers only


# --- the admin reset ----------------------------------------------------------------------------------------


def _twice(server: RunningEmulator, key: str) -> str:
    body = '{"contents":[{"role":"user","parts":[{"text":"once more?"}]}]}'
    resp = httpx.post(server.url + DEV, content=body, headers={"x-goog-api-key": key})
    return resp.json()["candidates"][0]["content"]["parts"][0]["text"]


def test_the_admin_reset_restarts_a_callers_recorded_conversations(replay: RunningEmulator) -> None:
    assert [_twice(replay, "reset-me"), _twice(replay, "reset-me")] == ["first", "second"]
    assert _twice(replay, "reset-other") == "first"
    assert httpx.post(replay.url + "/__emulator/reset", headers={"x-goog-api-key": "reset-me"}).status_code == 200
    assert _twice(replay, "reset-me") == "first"
    assert _twice(replay, "reset-other") == "second"  # another caller's conversation went on
    assert httpx.post(replay.url + "/__emulator/reset?all=true").status_code == 200
    assert _twice(replay, "reset-other") == "first"


def test_the_admin_reset_restarts_replay_entries(scripted: RunningEmulator) -> None:
    _script(scripted, "ns-reset", {"replay": "test/twice", "times": "forever"})
    assert [_twice(scripted, "ns-reset"), _twice(scripted, "ns-reset")] == ["first", "second"]
    httpx.post(scripted.url + "/__emulator/reset", headers={"x-goog-api-key": "ns-reset"})
    _script(scripted, "ns-reset", {"replay": "test/twice", "times": "forever"})
    assert _twice(scripted, "ns-reset") == "first"


# --- the location the Firebase proxy routes -------------------------------------------------------------------


@pytest.mark.parametrize("location", ["us-central1", "europe-west4", "northamerica-northeast1", "global", "us"])
def test_region_shaped_firebase_locations_are_served(scripted: RunningEmulator, location: str) -> None:
    path = f"/v1beta/projects/p/locations/{location}/publishers/google/models/gemini-2.5-flash:generateContent"
    resp = httpx.post(
        scripted.url + path, json={"contents": [{"parts": [{"text": "hi"}]}]}, headers={"x-goog-api-key": "k"}
    )
    assert resp.status_code == 200 and resp.json()["candidates"]


def test_an_invalid_firebase_location_gets_the_html_404(scripted: RunningEmulator) -> None:
    path = "/v1beta/projects/p/locations/invalid-location/publishers/google/models/gemini-2.5-flash:generateContent"
    resp = httpx.post(
        scripted.url + path, json={"contents": [{"parts": [{"text": "hi"}]}]}, headers={"x-goog-api-key": "k"}
    )
    assert resp.status_code == 404 and resp.headers["content-type"] == "text/html; charset=UTF-8"
    assert f"<code>{path}</code>" in resp.text


def test_vertex_paths_keep_any_location(scripted: RunningEmulator) -> None:
    """Vertex AI picks the region by host name: a location in its path is not checked."""
    client = genai.Client(
        vertexai=True,
        project="p",
        location="invalid-location",
        credentials=Credentials(token="t"),
        http_options=types.HttpOptions(base_url=scripted.url),
    )
    assert client.models.generate_content(model="gemini-2.5-flash", contents="hi").text
    with pytest.raises(genai_errors.ClientError) as raised:
        client.models.generate_content(model="gemini-2.0-flash", contents="hi")
    assert raised.value.code == 404
