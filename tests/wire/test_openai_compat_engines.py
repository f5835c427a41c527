"""The engines behind the OpenAI-compatible surface (/v1beta/openai/), over real sockets with the openai SDK:
a scripted `replay` entry, the replay engine and the openai engine answer it as they answer the native API."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest
import respx

from gemini_emulator.captures.format import DEFAULT_DIR, load_dir
from gemini_emulator.config import Settings
from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.engines.openai.engine import OpenAIEngine
from gemini_emulator.testing.server import RunningEmulator, start

CHAT_CAPTURE = "developer/unary-minimal"
EMBED_CAPTURE = "embeddings/vcr-gemini-embedding-2-batch"
RECORDED = {c.name: c for c in load_dir() if c.name in (CHAT_CAPTURE, EMBED_CAPTURE)}
UPSTREAM = "http://upstream.test/v1"


def _key() -> str:
    return "compat-" + uuid.uuid4().hex[:12]


def _client(server: RunningEmulator, key: str) -> openai.OpenAI:
    return openai.OpenAI(api_key=key, base_url=server.url + "/v1beta/openai/", max_retries=0)


def _recorded_chat() -> tuple[str, float, str]:
    """The chat capture's question, temperature and recorded answer text."""
    exchange = RECORDED[CHAT_CAPTURE].exchanges[0]
    sent = exchange.request.json
    answer = orjson.loads(exchange.response.body)
    text = answer["candidates"][0]["content"]["parts"][0]["text"]
    return sent["contents"][-1]["parts"][0]["text"], sent["generationConfig"]["temperature"], text


def _recorded_embedding() -> tuple[str, str, list[float]]:
    """The embedding capture's model, input text and recorded vector."""
    exchange = RECORDED[EMBED_CAPTURE].exchanges[0]
    one = exchange.request.json["requests"][0]
    values = orjson.loads(exchange.response.body)["embeddings"][0]["values"]
    return one["model"].removeprefix("models/"), one["content"]["parts"][0]["text"], values


def _journal(server: RunningEmulator, key: str) -> list[dict[str, Any]]:
    return httpx.get(server.url + "/__emulator/journal", headers={"x-goog-api-key": key}).json()["records"]


@pytest.fixture(scope="module")
def captures_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compat-captures")
    for name in (CHAT_CAPTURE, EMBED_CAPTURE):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DEFAULT_DIR / f"{name}.json", root / f"{name}.json")
    return root


@pytest.fixture(scope="module")
def scripted(captures_dir: Path) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, captures=str(captures_dir)))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def replay(captures_dir: Path) -> Iterator[RunningEmulator]:
    running = start(Settings(port=0, engine="replay", captures=str(captures_dir)))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def relayed() -> Iterator[RunningEmulator]:
    engine = OpenAIEngine(OpenAIConfig(base_url=UPSTREAM, api_key="sk-upstream-test", default_model="small-model"))
    running = start(Settings(port=0), engine=engine)
    yield running
    running.stop()


def _script(server: RunningEmulator, key: str, entry: dict[str, Any]) -> None:
    got = httpx.post(server.url + "/__emulator/script", headers={"x-goog-api-key": key}, json=entry)
    assert got.status_code == 200, got.text


def test_scripted_replay_entry_answers_a_chat_completion(scripted: RunningEmulator) -> None:
    key = _key()
    _script(scripted, key, {"replay": CHAT_CAPTURE})
    question, temperature, recorded = _recorded_chat()
    got = _client(scripted, key).chat.completions.create(
        model="gemini-2.5-flash", messages=[{"role": "user", "content": question}], temperature=temperature
    )
    assert got.choices[0].message.content == recorded and got.choices[0].finish_reason == "stop"
    assert _journal(scripted, key)[-1]["entry"] == f"replay:{CHAT_CAPTURE}#0"


def test_scripted_replay_entry_answers_embeddings(scripted: RunningEmulator) -> None:
    key = _key()
    _script(scripted, key, {"replay": EMBED_CAPTURE})
    model, text, values = _recorded_embedding()
    got = _client(scripted, key).embeddings.create(model=model, input=text, encoding_format="float")
    assert got.data[0].embedding == values
    assert _journal(scripted, key)[-1]["entry"] == f"replay:{EMBED_CAPTURE}#0"


def test_replay_engine_serves_the_recorded_vector(replay: RunningEmulator) -> None:
    model, text, values = _recorded_embedding()
    client = _client(replay, _key())
    got = client.embeddings.create(model=model, input=text, encoding_format="float")
    assert [d.embedding for d in got.data] == [values] and got.model == model
    packed = client.embeddings.create(model=model, input=text)  # the SDK's default: base64 float32, decoded
    assert packed.data[0].embedding == pytest.approx(values, rel=1e-6)


def test_replay_engine_without_a_recording_answers_as_the_native_path(replay: RunningEmulator) -> None:
    """No recording: the wire computes it, and the replay engine computes no vectors (a 501 on both surfaces)."""
    model, _, _ = _recorded_embedding()
    key = _key()
    native = httpx.post(
        f"{replay.url}/v1beta/models/{model}:batchEmbedContents",
        headers={"x-goog-api-key": key},
        json={"requests": [{"content": {"parts": [{"text": "never recorded"}]}, "model": f"models/{model}"}]},
    )
    with pytest.raises(openai.APIStatusError) as raised:
        _client(replay, key).embeddings.create(model=model, input="never recorded", encoding_format="float")
    assert raised.value.status_code == native.status_code == 501


def test_openai_engine_answers_a_chat_completion_with_the_upstreams_text(relayed: RunningEmulator) -> None:
    upstream_answer = {
        "id": "chatcmpl-upstream",
        "object": "chat.completion",
        "model": "small-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "From upstream."}, "finish_reason": "stop"}
        ],
    }
    with respx.mock(assert_all_called=False) as router:
        router.route(host=relayed.host).pass_through()
        route = router.post(UPSTREAM + "/chat/completions").mock(return_value=httpx.Response(200, json=upstream_answer))
        got = _client(relayed, _key()).chat.completions.create(
            model="gemini-2.5-flash", messages=[{"role": "user", "content": "Relay this, please."}]
        )
    assert got.choices[0].message.content == "From upstream." and got.choices[0].finish_reason == "stop"
    assert route.call_count == 1
    sent = json.loads(route.calls.last.request.content)
    assert sent["model"] == "small-model"
    assert sent["messages"][-1]["content"] in ("Relay this, please.", [{"type": "text", "text": "Relay this, please."}])
