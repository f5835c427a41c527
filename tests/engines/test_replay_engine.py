"""The replay engine and `replay` script entries, over real sockets with real SDK clients.

Each test serves a small captures directory (copies of captures/ plus captures written here), so that
which capture answers is never ambiguous; tests/captures/test_golden.py replays the whole corpus.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from gemini_emulator import cli
from gemini_emulator.captures.format import DEFAULT_DIR, Capture, Request, load_dir
from gemini_emulator.captures.importers import exchange
from gemini_emulator.config import Settings
from gemini_emulator.seam import EngineLoadError, load_engine
from gemini_emulator.testing.server import RunningEmulator, start

COPIED = (
    "developer/unary-minimal",
    "developer/sse-minimal",
    "conversations/function-call-round-trip",
    "errors/api-key-invalid",
    "errors/mid-stream-cancelled",
)
MINIMAL = load_dir()  # the checkout's captures, to compare served bytes with
RECORDED = {c.name: c for c in MINIMAL if c.name in COPIED}
DEV = "/v1beta/models/gemini-2.5-flash:generateContent"
KEY = {"x-goog-api-key": "replay-test"}


def _twice_capture() -> Capture:
    """A conversation whose two exchanges have the same request and different answers: order decides."""
    body = '{"contents":[{"role":"user","parts":[{"text":"again?"}]}]}'
    request = Request("POST", DEV, body=body)

    def answer(text: str) -> bytes:
        candidate = {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}
        return orjson.dumps({"candidates": [candidate], "modelVersion": "gemini-2.5-flash"})

    exchanges = [exchange(request, 200, {"content-type": "application/json; charset=UTF-8"}, answer(t)) for t in "12"]
    for e in exchanges:  # the printers' form, as production sends it
        e.response.pieces = [_pretty(e.response.body)]
    provenance = {"source": "test", "licence": "test", "recorded": "2026-01-01", "fidelity": "edited", "edits": ["x"]}
    return Capture("test/twice", "same request, two answers", provenance, exchanges)


def _pretty(body: bytes) -> bytes:
    from gemini_emulator.protocol import printers

    return printers.pretty(orjson.loads(body))


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


def _client(server: RunningEmulator, key: str, version: str = "v1beta") -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=server.url, api_version=version))


def _journal(server: RunningEmulator, key: str) -> list[dict]:
    return httpx.get(server.url + "/__emulator/journal", headers={"x-goog-api-key": key}).json()["records"]


def test_exact_request_gets_the_recorded_bytes(replay: RunningEmulator) -> None:
    recorded = RECORDED["developer/unary-minimal"].exchanges[0]
    resp = httpx.post(
        replay.url + DEV, content=recorded.request.body, headers=KEY | {"content-type": "application/json"}
    )
    assert resp.status_code == 200 and resp.content == recorded.response.body


def test_normalized_request_matches_despite_order_spelling_and_whitespace(replay: RunningEmulator) -> None:
    body = (
        '{ "generation_config": {"temperature": 0},\n "contents": '
        '[{"role": "user", "parts": [{"text": "What is the capital of France? One word."}]}] }'
    )
    key = "replay-normalized"
    resp = httpx.post(replay.url + DEV, content=body, headers={"x-goog-api-key": key})
    assert resp.content == RECORDED["developer/unary-minimal"].exchanges[0].response.body
    assert _journal(replay, key)[-1]["entry"] == "replay:developer/unary-minimal#0"


def test_loose_match_by_model_method_and_last_user_text(replay: RunningEmulator) -> None:
    """google-genai (default API version v1, its own body layout) still gets the recorded answer."""
    key = "replay-loose"
    config = types.GenerateContentConfig(temperature=0.9, max_output_tokens=50)
    client = _client(replay, key, "v1")
    answer = client.models.generate_content(
        model="gemini-2.5-flash", contents="What is the capital of France? One word.", config=config
    )
    assert answer.text == "Paris" and answer.response_id == "xlWYafXAOKSf1e8PpcODiAg"
    assert _journal(replay, key)[-1]["entry"] == "replay:developer/unary-minimal#0"


def test_stream_is_served_event_by_event(replay: RunningEmulator) -> None:
    recorded = RECORDED["developer/sse-minimal"].exchanges[0]
    url = replay.url + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    with httpx.stream("POST", url, content=recorded.request.body, headers=KEY) as resp:
        body = resp.read()
    assert resp.headers["content-type"] == "text/event-stream" and body == recorded.response.body


def test_a_conversation_plays_in_order_through_the_sdk(replay: RunningEmulator) -> None:
    """Both turns of a recorded tool loop share the last user text: the conversation order picks the turn."""
    client = _client(replay, "replay-conversation")
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="sum",
                description="adds",
                parameters=types.Schema(
                    type="OBJECT", properties={"a": types.Schema(type="INTEGER"), "b": types.Schema(type="INTEGER")}
                ),
            )
        ]
    )
    config = types.GenerateContentConfig(
        tools=[tool], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    contents = [types.Content(role="user", parts=[types.Part(text="what is the sum of 1 + 2?")])]
    first = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
    (call,) = first.function_calls
    assert (call.name, call.args) == ("sum", {"a": 1, "b": 2})
    reply = types.Part.from_function_response(name="sum", response={"result": 3})
    contents += [first.candidates[0].content, types.Content(role="user", parts=[reply])]
    second = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
    assert second.text == "3"


def test_identical_requests_replay_in_recorded_order(replay: RunningEmulator) -> None:
    body = '{"contents":[{"role":"user","parts":[{"text":"again?"}]}]}'
    texts = []
    for _ in range(2):
        resp = httpx.post(replay.url + DEV, content=body, headers={"x-goog-api-key": "replay-twice"})
        texts.append(resp.json()["candidates"][0]["content"]["parts"][0]["text"])
    assert texts == ["1", "2"]
    # another caller starts the conversation from its beginning
    resp = httpx.post(replay.url + DEV, content=body, headers={"x-goog-api-key": "replay-twice-other"})
    assert resp.json()["candidates"][0]["content"]["parts"][0]["text"] == "1"


def test_recorded_error_reaches_the_sdk_as_recorded(replay: RunningEmulator) -> None:
    recorded = RECORDED["errors/api-key-invalid"].exchanges[0]
    text = recorded.request.json["contents"][0]["parts"][0]["text"]
    client = _client(replay, "replay-error")
    with pytest.raises(genai_errors.ClientError) as raised:
        client.models.generate_content(model="gemini-2.5-flash", contents=text)
    assert raised.value.code == 400 and raised.value.message == "API key not valid. Please pass a valid API key."
    path = recorded.request.path
    resp = httpx.post(replay.url + path, content=recorded.request.body, headers=KEY)
    assert resp.status_code == 400 and resp.content == recorded.response.body


def test_recorded_mid_stream_error_is_the_error_tail(replay: RunningEmulator) -> None:
    recorded = RECORDED["errors/mid-stream-cancelled"].exchanges[0]
    resp = httpx.post(replay.url + recorded.request.url, content=recorded.request.body, headers=KEY)
    assert resp.status_code == 200 and resp.content == recorded.response.body
    events, tail = resp.content.rsplit(b"\r\n\r\n", 1)
    assert events.count(b"data: ") == 2 and tail.startswith(b'{\n  "error": {\n    "code": 499,')


def test_unmatched_request_names_the_closest_captures(replay: RunningEmulator) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "What is the capital of Spain? One word."}]}]}
    resp = httpx.post(replay.url + DEV, json=body, headers=KEY)
    assert resp.status_code == 404
    error = resp.json()["error"]
    assert error["status"] == "NOT_FOUND"
    message = error["message"]
    assert message.startswith("gemini-emulator replay: no capture matches this request (generateContent")
    first = message.split("Closest: ", 1)[1].split("; ")[0]
    assert first.startswith("developer/unary-minimal#0 (at contents[0].parts[0].text: recorded")
    assert '"What is the capital of France? One word."' in first and '"What is the capital of Spain?' in first


def test_unmatched_method_and_model_are_named(replay: RunningEmulator) -> None:
    resp = httpx.post(
        replay.url + "/v1beta/models/gemini-3.5-flash:generateContent",
        json={"contents": [{"parts": [{"text": "x"}]}]},
        headers=KEY,
    )
    assert resp.status_code == 404 and "model gemini-2.5-flash, not gemini-3.5-flash" in resp.json()["error"]["message"]


def test_engine_needs_a_captures_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="no captures directory"):
        load_engine("replay", {"captures": str(tmp_path / "absent")})
    assert cli.main(["serve", "--engine", "replay", "--captures", str(tmp_path / "absent"), "--port", "1"]) == 2
    assert "no captures directory" in capsys.readouterr().err


def test_an_engine_that_takes_no_captures_says_so() -> None:
    with pytest.raises(EngineLoadError, match="does not take the options"):
        load_engine("replay", {"captures": "x", "colour": "blue"})


# --- replay entries: one namespace replays while another is scripted ------------------------------------


@pytest.fixture(scope="module")
def scripted(captures_dir: Path) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, captures=str(captures_dir)))
    yield running
    running.stop()


def _script(server: RunningEmulator, key: str, entry: dict) -> httpx.Response:
    return httpx.post(server.url + "/__emulator/script", headers={"x-goog-api-key": key}, json=entry)


def test_replay_entries_beside_scripted_and_zero_config_namespaces(scripted: RunningEmulator) -> None:
    assert _script(scripted, "ns-replay", {"replay": "developer/*", "times": "forever"}).status_code == 200
    assert _script(scripted, "ns-scripted", {"text": "scripted!"}).status_code == 200
    question = "What is the capital of France? One word."
    answers = {}
    for key in ("ns-replay", "ns-scripted", "ns-zero"):
        client = _client(scripted, key)
        answers[key] = client.models.generate_content(model="gemini-2.5-flash", contents=question)
    assert answers["ns-replay"].text == "Paris" and answers["ns-replay"].response_id == "xlWYafXAOKSf1e8PpcODiAg"
    assert answers["ns-scripted"].text == "scripted!"
    assert answers["ns-zero"].response_id != "xlWYafXAOKSf1e8PpcODiAg"
    assert _journal(scripted, "ns-replay")[-1]["entry"] == "replay:developer/unary-minimal#0"


def test_replay_entry_outside_its_glob_is_a_404(scripted: RunningEmulator) -> None:
    assert _script(scripted, "ns-glob", {"replay": "errors/*"}).status_code == 200
    resp = httpx.post(
        scripted.url + DEV, json={"contents": [{"parts": [{"text": "hello"}]}]}, headers={"x-goog-api-key": "ns-glob"}
    )
    assert resp.status_code == 404 and "Closest: errors/" in resp.json()["error"]["message"]
    assert _script(scripted, "ns-none", {"replay": "nothing/*"}).status_code == 200
    resp = httpx.post(
        scripted.url + DEV, json={"contents": [{"parts": [{"text": "hello"}]}]}, headers={"x-goog-api-key": "ns-none"}
    )
    assert "no capture is named like 'nothing/*'" in resp.json()["error"]["message"]


@pytest.mark.parametrize(
    ("entry", "field"),
    [({"replay": ""}, "replay"), ({"replay": 3}, "replay"), ({"replay": "x", "finishReason": "STOP"}, "finishReason")],
)
def test_bad_replay_entries_are_refused(scripted: RunningEmulator, entry: dict, field: str) -> None:
    resp = _script(scripted, "ns-bad", entry)
    assert resp.status_code == 400
    (violation,) = resp.json()["error"]["details"][0]["fieldViolations"]
    assert violation["field"] == field
