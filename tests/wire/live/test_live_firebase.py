"""The Live API on Firebase AI Logic's WebSocket paths, spoken to with the `websockets` client as firebase/ai 12.19
speaks it (@firebase/ai 2.16: WebSocketUrl, LiveGenerativeModel.connect, LiveSession): the key in `?key=` only, the
project only in the setup's model name, camelCase messages. The Gemini API path speaks the Developer protocol, the
Vertex one (a location in the path) the Vertex protocol."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from typing import Any

import pytest
import websockets
from live_helpers import session_record

from gemini_emulator.testing.pytest_plugin import Gemini

PROJECT = "demo-project"
GOOGLE_AI = "/ws/google.firebase.vertexai.v1beta.GenerativeService/BidiGenerateContent"
VERTEX_AI = "/ws/google.firebase.vertexai.v1beta.LlmBidiService/BidiGenerateContent/locations/us-central1"
DEV_MODEL = "gemini-2.5-flash-native-audio-latest"
VERTEX_MODEL = "gemini-2.0-flash-live-preview-04-09"
# (path, the setup's model name as firebase/ai builds it, the model id)
BACKENDS = {
    "GoogleAIBackend": (GOOGLE_AI, f"projects/{PROJECT}/models/{DEV_MODEL}", DEV_MODEL),
    "VertexAIBackend": (
        VERTEX_AI,
        f"projects/{PROJECT}/locations/us-central1/publishers/google/models/{VERTEX_MODEL}",
        VERTEX_MODEL,
    ),
}
WEATHER = [{"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "OBJECT"}}]}]
TIMEOUT = 10


def _url(gemini: Gemini, path: str, key: str | None = None) -> str:
    return gemini.url.replace("http", "ws", 1) + path + f"?key={key if key is not None else gemini.api_key}"


def _setup(model: str, **more: Any) -> dict[str, Any]:
    """firebase/ai's setup message (undefined fields dropped by JSON.stringify; generationConfig always sent)."""
    return {"setup": {"model": model, "generationConfig": {"responseModalities": ["TEXT"]}, **more}}


def _user(text: str) -> dict[str, Any]:
    return {"clientContent": {"turns": [{"role": "user", "parts": [{"text": text}]}], "turnComplete": True}}


async def _until(ws: Any, kind: str) -> list[dict[str, Any]]:
    """Messages up to the first `kind` ("turnComplete" in serverContent, or a top-level key such as toolCall)."""
    frames = []
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        frames.append(frame)
        if kind in frame or kind in frame.get("serverContent", {}):
            return frames


async def _closed(url: str, *messages: dict[str, Any]) -> tuple[int, str]:
    async with websockets.connect(url) as ws:
        try:  # the server may close before the messages are all sent (a refused credential: at once)
            for message in messages:
                await ws.send(json.dumps(message))
            while True:
                await asyncio.wait_for(ws.recv(), TIMEOUT)
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None, "closed without a close frame"
            return closed.rcvd.code, closed.rcvd.reason


@pytest.fixture(autouse=True)
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> Any:
    caplog.set_level(logging.WARNING)
    yield
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], caplog.text


@pytest.mark.parametrize("backend", BACKENDS)
def test_setup_and_a_text_turn(gemini_shared: Gemini, backend: str) -> None:
    path, model, model_id = BACKENDS[backend]
    gemini_shared.script({"match": {"method": "bidiGenerateContent"}, "text": "Hello from Firebase Live."})

    async def go() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        async with websockets.connect(_url(gemini_shared, path)) as ws:
            await ws.send(json.dumps(_setup(model)))
            first = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            await ws.send(json.dumps(_user("Say hello")))
            return first, await _until(ws, "turnComplete")

    first, frames = asyncio.run(go())
    turns = [f["serverContent"]["modelTurn"] for f in frames if "modelTurn" in f.get("serverContent", {})]
    assert "".join(p["text"] for t in turns for p in t["parts"]) == "Hello from Firebase Live."
    assert frames[-2] == {"serverContent": {"generationComplete": True}}
    usage = frames[-1]["usageMetadata"]
    if backend == "GoogleAIBackend":  # the Gemini API's protocol
        assert first == {"setupComplete": {}}
        assert "role" not in turns[0] and "responseTokenCount" in usage
    else:  # Vertex's
        assert list(first["setupComplete"]) == ["sessionId"]
        assert turns[0]["role"] == "model" and "candidatesTokenCount" in usage
    record = session_record(gemini_shared)
    assert (record.record["path"], record.model, record.status) == (path, model_id, 101)
    assert record.record["body"][0]["setup"]["model"] == model
    assert record.entry == "entry-0"  # the script's entry answered the turn


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_call_turn(gemini_shared: Gemini, backend: str) -> None:
    path, model, _ = BACKENDS[backend]
    gemini_shared.script(
        {"match": {"hasFunctionResponse": False}, "functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"match": {"hasFunctionResponse": True}, "text": "Sunny in Paris."},
    )

    async def go() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with websockets.connect(_url(gemini_shared, path)) as ws:
            await ws.send(json.dumps(_setup(model, tools=WEATHER)))
            await ws.recv()
            await ws.send(json.dumps(_user("Weather in Paris?")))
            called = await _until(ws, "toolCall")
            call = called[-1]["toolCall"]["functionCalls"][0]
            response = {"id": call["id"], "name": call["name"], "response": {"sky": "clear"}}
            await ws.send(json.dumps({"toolResponse": {"functionResponses": [response]}}))
            return called, await _until(ws, "turnComplete")

    called, answered = asyncio.run(go())
    (call,) = called[-1]["toolCall"]["functionCalls"]
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris"}) and call["id"]
    if backend == "VertexAIBackend":  # Vertex call ids are uuids
        uuid.UUID(call["id"])
    text = "".join(
        p["text"] for f in answered for p in f.get("serverContent", {}).get("modelTurn", {}).get("parts", [])
    )
    assert text == "Sunny in Paris."
    sent = session_record(gemini_shared).record["body"]
    assert sent[-1]["toolResponse"]["functionResponses"][0]["response"] == {"sky": "clear"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_wrong_model_closes_1008_naming_it(gemini_shared: Gemini, backend: str) -> None:
    path, model, model_id = BACKENDS[backend]
    code, reason = asyncio.run(_closed(_url(gemini_shared, path), _setup(model.replace(model_id, "gemini-nope"))))
    assert code == 1008
    if backend == "GoogleAIBackend":
        assert reason.startswith("models/gemini-nope is not found for API version v1beta, or is not supported for ")
    else:  # Vertex's 404 names the publisher model with the project and location of the setup's name
        assert reason.startswith(f"Publisher Model `projects/{PROJECT}/locations/us-central1/publishers/google/models/")
    assert len(reason.encode()) == 123  # cut as production cuts close reasons


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_key_closes_1008(gemini_shared: Gemini, backend: str) -> None:
    path, model, _ = BACKENDS[backend]
    code, reason = asyncio.run(_closed(_url(gemini_shared, path, key=""), _setup(model)))
    assert code == 1008 and "unregistered callers" in reason


def test_a_location_that_is_no_region_is_refused_at_the_handshake(gemini_shared: Gemini) -> None:
    bad = VERTEX_AI.replace("us-central1", "invalid-location")  # the Firebase HTTP paths' HTML 404 (routes._LOCATION)

    async def go() -> int:
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with websockets.connect(_url(gemini_shared, bad)):
                pass
        return refused.value.response.status_code

    assert asyncio.run(go()) == 403
    europe = VERTEX_AI.replace("us-central1", "europe-west4")
    model = f"projects/{PROJECT}/locations/europe-west4/publishers/google/models/{VERTEX_MODEL}"

    async def served() -> dict[str, Any]:
        async with websockets.connect(_url(gemini_shared, europe)) as ws:
            await ws.send(json.dumps(_setup(model)))
            return dict(json.loads(await ws.recv()))

    assert "setupComplete" in asyncio.run(served())


def test_each_key_is_its_own_namespace(gemini_shared: Gemini) -> None:
    other = Gemini(gemini_shared.server, "test-" + uuid.uuid4().hex)
    gemini_shared.script({"text": "for the first key"})
    other.script({"text": "for the other key"})

    async def answer(key: str, path: str, model: str) -> str:
        async with websockets.connect(_url(gemini_shared, path, key)) as ws:
            await ws.send(json.dumps(_setup(model)))
            await ws.recv()
            await ws.send(json.dumps(_user("hi")))
            frames = await _until(ws, "turnComplete")
        parts = [p for f in frames for p in f.get("serverContent", {}).get("modelTurn", {}).get("parts", [])]
        return "".join(p["text"] for p in parts)

    async def both() -> list[str]:
        dev_path, dev_model, _ = BACKENDS["GoogleAIBackend"]
        vertex_path, vertex_model, _ = BACKENDS["VertexAIBackend"]
        return list(
            await asyncio.gather(
                answer(other.api_key, vertex_path, vertex_model), answer(gemini_shared.api_key, dev_path, dev_model)
            )
        )

    try:
        assert asyncio.run(both()) == ["for the other key", "for the first key"]
        assert session_record(gemini_shared).record["path"] == GOOGLE_AI
        assert session_record(other).record["path"] == VERTEX_AI
    finally:
        other.close()


def test_scripted_faults_apply(gemini_shared: Gemini) -> None:
    """An error entry ends the session with its close frame; `live.drop` cuts the connection without one."""
    path, model, _ = BACKENDS["VertexAIBackend"]
    gemini_shared.script({"error": "quota"}, {"text": "cut", "live": {"drop": True}})
    code, reason = asyncio.run(_closed(_url(gemini_shared, path), _setup(model), _user("hi")))
    assert code == 1011 and reason.startswith("You exceeded your current quota")  # the catalogue's 429

    async def dropped() -> Any:
        async with websockets.connect(_url(gemini_shared, path)) as ws:
            await ws.send(json.dumps(_setup(model)))
            await ws.recv()
            await ws.send(json.dumps(_user("hi")))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), TIMEOUT)
            return closed.value.rcvd

    assert asyncio.run(dropped()) is None  # no close frame: the SDK sees 1006
