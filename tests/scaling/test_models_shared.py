"""Models added at run time (`PUT /__emulator/models`) on the Redis store (stores/models_redis.py): the in-memory
test of tests/wire/test_catalogue_sdk_models.py again on Redis; two `gemini-emulator serve --store redis://...`
processes, a model added, changed and taken away through one being served, shown, listed and refused through the
other (an addition at once, by the refused request's one question; a change to a model the other already serves
from its next request after one journaled request, learnt through the journal's group commit, which gains no
round trip); a process started later serves what was set before; and a Redis that cannot be reached is the 503
envelope for the admin call and a model's get."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors, types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_SOURCE = Path(__file__).parents[1] / "wire" / "test_catalogue_sdk_models.py"
_spec = importlib.util.spec_from_file_location("catalogue_models_contract_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
test_models_added_through_the_admin_api_serve_every_caller = (
    _suite.test_models_added_through_the_admin_api_serve_every_caller
)
test_a_new_sdk_model_answers_through_the_sdk = _suite.test_a_new_sdk_model_answers_through_the_sdk

NINE = [{"name": "gemini-9-preview", "like": "gemini-3.1-pro-preview", "displayName": "Gemini 9 Preview"}]
ENVELOPE = {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator (the contract tests'): its models, scripts and journal on the session's Redis."""
    redis_server.client().flushall()
    running = start(Settings(port=0, store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def _gemini_resetter(gemini_emulator: RunningEmulator) -> Iterator[AdminClient]:
    admin = AdminClient(gemini_emulator.url, admin_token=gemini_emulator.settings.admin_token)
    yield admin
    admin.close()


def _client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


def _generate(url: str, model: str) -> httpx.Response:
    body = {"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]}
    return httpx.post(f"{url}/v1beta/models/{model}:generateContent", json=body, headers=KEY, timeout=10)


@pytest.mark.slow
def test_a_model_added_through_one_process_is_served_by_the_other(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    assert _generate(b.url, "gemini-9-preview").status_code == 404  # B's catalogue holds it not, nor Redis
    put = httpx.put(a.url + "/__emulator/models", json=NINE)
    assert put.status_code == 200 and put.json()["serving"] == ["gemini-9-preview"]
    answer = _generate(b.url, "gemini-9-preview")  # B asks Redis before refusing a model it does not hold
    assert answer.status_code == 200 and answer.json()["modelVersion"] == "gemini-9-preview"
    on_b = _client(b.url)
    assert on_b.models.get(model="gemini-9-preview").display_name == "Gemini 9 Preview"
    assert "models/gemini-9-preview" in [m.name for m in on_b.models.list(config={"page_size": 1000})]
    assert httpx.get(b.url + "/__emulator/models").json()["serving"] == ["gemini-9-preview"]
    openai = httpx.get(b.url + "/v1beta/openai/models/gemini-9-preview", headers={"authorization": "Bearer k"})
    assert openai.status_code == 200 and openai.json()["id"] == "models/gemini-9-preview"

    # a change to a model B serves already (an override of a catalogue id): B's next journaled request learns
    # the version from the journal's commit and fetches the entries before its answer goes out
    override = [*NINE, {"name": "gemini-2.5-flash", "like": "gemini-2.5-flash", "supportedGenerationMethods": []}]
    assert httpx.put(a.url + "/__emulator/models", json=override).status_code == 200
    first, second = _generate(b.url, "gemini-2.5-flash"), _generate(b.url, "gemini-2.5-flash")
    assert first.status_code == 200  # served by the catalogue B had (its journal write saw the change)
    assert second.status_code == 404, second.text[:200]  # ... and the next by the new one

    # taken away through A: the same, for a model B served from the entries
    assert httpx.delete(a.url + "/__emulator/models").status_code == 200
    first, second = _generate(b.url, "gemini-9-preview"), _generate(b.url, "gemini-9-preview")
    assert first.status_code == 200 and second.status_code == 404
    assert _generate(b.url, "gemini-2.5-flash").status_code == 200  # the catalogue's own again

    # a process started after the change serves it from its start
    assert httpx.put(b.url + "/__emulator/models", json=NINE).status_code == 200
    c = serve(redis_url)
    assert httpx.get(c.url + "/__emulator/models").json()["serving"] == ["gemini-9-preview"]
    assert _generate(c.url, "gemini-9-preview").status_code == 200


def test_models_refused_on_one_process_are_stored_nowhere(redis_url: str) -> None:
    running = start(Settings(port=0, store=redis_url))
    try:
        refused = httpx.put(running.url + "/__emulator/models", json=[{"name": "x", "inputTokenLimit": "many"}])
        assert refused.status_code == 400
        assert running.context.shared_models is not None
        import redis

        from gemini_emulator.stores.models_redis import ENTRIES

        with redis.Redis.from_url(redis_url) as client:
            assert client.get(ENTRIES) is None
    finally:
        running.stop()


def test_redis_unreachable_is_the_503_envelope(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=server.url))
    try:
        assert httpx.put(running.url + "/__emulator/models", json=NINE).status_code == 200
        server.stop()
        for method, path in (
            ("PUT", "/__emulator/models"),
            ("GET", "/__emulator/models"),
            ("GET", "/v1beta/models/gemini-9-preview"),
            ("GET", "/v1beta/models"),
        ):
            answer = httpx.request(
                method, running.url + path, json=NINE if method == "PUT" else None, headers=KEY, timeout=10
            )
            assert answer.status_code == 503, (path, answer.text[:200])
            assert answer.json()["error"] == ENVELOPE, path
        client = _client(running.url)
        with pytest.raises(errors.ServerError) as down:  # an unknown model asks Redis before refusing it
            client.models.generate_content(model="gemini-404-nope", contents="Hello")
        assert down.value.code == 503
    finally:
        running.stop()
        server.stop()
