"""Cached contents, operations and ephemeral tokens across processes: two `gemini-emulator serve --store
redis://...` processes on their own ports, one redis-server (tests/scaling/conftest.py), driven with google-genai
and raw HTTP over real sockets; and what a request gets while that Redis cannot be reached (the 503 envelope)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

MODEL = "gemini-2.5-flash"
BIG = "Paris is the capital of France. The Eiffel Tower is in Paris. " * 200  # over the minimum
UNAVAILABLE = {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}


def _client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


@pytest.mark.slow
def test_a_cache_made_on_one_process_is_used_patched_and_deleted_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    config = types.CreateCachedContentConfig(contents=[BIG], system_instruction="Be brief.", ttl="120s")
    cache = on_a.caches.create(model=MODEL, config=config)
    assert cache.name is not None and cache.usage_metadata is not None
    seen = on_b.caches.get(name=cache.name)
    assert seen.name == cache.name and seen.expire_time == cache.expire_time
    entry = {"match": {"system": "Be brief"}, "text": "cached answer"}
    httpx.post(a.url + "/__emulator/script", json=[entry], headers=KEY).raise_for_status()
    answer = on_b.models.generate_content(
        model=MODEL, contents="Where?", config=types.GenerateContentConfig(cached_content=cache.name)
    )
    assert answer.text == "cached answer"  # the entry matched the cache's system instruction, read on B
    assert answer.usage_metadata is not None
    assert answer.usage_metadata.cached_content_token_count == cache.usage_metadata.total_token_count
    moved = on_b.caches.update(name=cache.name, config=types.UpdateCachedContentConfig(ttl="3600s"))
    assert on_a.caches.get(name=cache.name).expire_time == moved.expire_time != cache.expire_time
    assert [c.name for c in on_a.caches.list()] == [cache.name]
    on_a.caches.delete(name=cache.name)
    with pytest.raises(genai.errors.ClientError) as gone:
        on_b.caches.get(name=cache.name)
    assert gone.value.code == 403
    with pytest.raises(genai.errors.ClientError) as refused:
        on_b.models.generate_content(
            model=MODEL, contents="Where?", config=types.GenerateContentConfig(cached_content=cache.name)
        )
    assert refused.value.code == 403
    short = on_b.caches.create(model=MODEL, config=types.CreateCachedContentConfig(contents=[BIG], ttl="0.3s"))
    assert short.name is not None
    deadline = time.monotonic() + 5  # expired on both, by the one wall clock
    while any(httpx.get(f"{u}/v1beta/{short.name}", headers=KEY).status_code == 200 for u in (a.url, b.url)):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_an_unreachable_redis_is_the_503_envelope(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=redis.url))
    try:
        made = httpx.post(
            running.url + "/v1beta/cachedContents",
            json={"model": f"models/{MODEL}", "contents": [{"role": "user", "parts": [{"text": BIG}]}]},
            headers=KEY,
        )
        assert made.status_code == 200
        name = made.json()["name"]
        redis.stop()
        asks = [
            ("GET", f"/v1beta/{name}", None),
            ("GET", "/v1beta/cachedContents", None),
            ("PATCH", f"/v1beta/{name}", {"ttl": "60s"}),
            ("DELETE", f"/v1beta/{name}", None),
            ("POST", "/v1beta/cachedContents", {"model": f"models/{MODEL}", "contents": [{"parts": [{"text": BIG}]}]}),
            (
                "POST",
                f"/v1beta/models/{MODEL}:generateContent",
                {"contents": [{"parts": [{"text": "hi"}]}], "cachedContent": name},
            ),
        ]
        for method, path, body in asks:
            began = time.monotonic()
            answer = httpx.request(method, running.url + path, json=body, headers=KEY, timeout=10)
            assert time.monotonic() - began < 5
            assert answer.status_code == 503, (method, path, answer.text)
            assert answer.json()["error"] == UNAVAILABLE
    finally:
        running.stop()
        redis.stop()
