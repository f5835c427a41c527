"""Cached contents, operations and ephemeral tokens across processes: two `gemini-emulator serve --store
redis://...` processes on their own ports, one redis-server (tests/scaling/conftest.py), driven with google-genai
and raw HTTP over real sockets; and what a request gets while that Redis cannot be reached (the 503 envelope)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from google import genai
from google.genai import types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

MODEL = "gemini-2.5-flash"
BIG = "Paris is the capital of France. The Eiffel Tower is in Paris. " * 200  # over the minimum
LIVE_MODEL = "models/gemini-2.5-flash-native-audio-latest"
CONSTRAINED = "/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained"
LIVE = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
TEXT_SETUP = {"model": LIVE_MODEL, "generationConfig": {"responseModalities": ["TEXT"]}}
HI = {"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": True}}
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
            ("POST", "/v1alpha/auth_tokens", {"uses": 1}),
            ("GET", "/v1beta/operations", None),
            ("GET", "/v1beta/models/veo-3.0-generate-001/operations/abc", None),
            ("POST", "/v1beta/models/veo-3.0-generate-001:predictLongRunning", {"instances": [{"prompt": "x"}]}),
        ]
        for method, path, body in asks:
            began = time.monotonic()
            answer = httpx.request(method, running.url + path, json=body, headers=KEY, timeout=10)
            assert time.monotonic() - began < 5
            assert answer.status_code == 503, (method, path, answer.text)
            assert answer.json()["error"] == UNAVAILABLE
        live = running.url.replace("http", "ws", 1) + CONSTRAINED + "?access_token=auth_tokens/x"
        _, code, reason = asyncio.run(_live(live, {"model": LIVE_MODEL}))
        assert (code, reason) == (1011, UNAVAILABLE["message"])  # a Live session: the 503 as its close frame
    finally:
        running.stop()
        redis.stop()


async def _live(url: str, setup: dict[str, Any], turn: bool = True) -> tuple[list[dict[str, Any]], int, str]:
    """A Live session over a real WebSocket: the setup, a turn, the frames until the turn completes (then closed
    by us: code 1000) or until the server closes (its code and reason)."""
    frames: list[dict[str, Any]] = []
    async with websockets.connect(url) as ws:
        try:
            await ws.send(json.dumps({"setup": setup}))
            if turn:
                await ws.send(json.dumps(HI))
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                frames.append(frame)
                if "turnComplete" in frame.get("serverContent", {}) or (not turn and "setupComplete" in frame):
                    return frames, 1000, ""
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None
            return frames, closed.rcvd.code, closed.rcvd.reason


@pytest.mark.slow
def test_a_token_minted_on_one_process_starts_sessions_on_another_and_handles_resume_across(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    entries = [{"text": "on b"}, {"text": "on a"}, {"text": "resumed"}]
    httpx.post(a.url + "/__emulator/script", json=entries, headers=KEY).raise_for_status()
    minted = httpx.post(
        a.url + "/v1alpha/auth_tokens",
        json={"uses": 2, "bidiGenerateContentSetup": {"generationConfig": {"responseModalities": ["TEXT"]}}},
        headers=KEY,
    )
    assert minted.status_code == 200, minted.text
    name = minted.json()["name"]

    def ws(base: str, path: str, query: str) -> str:
        return base.replace("http", "ws", 1) + path + query

    on_b = asyncio.run(_live(ws(b.url, CONSTRAINED, f"?access_token={name}"), {"model": LIVE_MODEL}))
    assert (
        on_b[1] == 1000
        and "".join(
            p.get("text", "") for f in on_b[0] for p in f.get("serverContent", {}).get("modelTurn", {}).get("parts", [])
        )
        == "on b"
    )  # the token's locked TEXT, read on B
    assert asyncio.run(_live(ws(a.url, CONSTRAINED, f"?access_token={name}"), {"model": LIVE_MODEL}))[1] == 1000
    _, code, reason = asyncio.run(_live(ws(b.url, CONSTRAINED, f"?access_token={name}"), {"model": LIVE_MODEL}))
    assert (code, reason) == (1008, "Ephemeral token has no uses left.")  # two uses, spent on B then A

    key = f"?key={KEY['x-goog-api-key']}"
    frames, code, _ = asyncio.run(_live(ws(a.url, LIVE, key), TEXT_SETUP | {"sessionResumption": {}}))
    handles = [f["sessionResumptionUpdate"]["newHandle"] for f in frames if "sessionResumptionUpdate" in f]
    if not handles:  # the update may follow turnComplete: read it from the admin listing instead
        listed = httpx.get(a.url + "/__emulator/resources", params={"kind": "liveSessions"}, headers=KEY).json()
        handles = [i["name"] for i in listed["resources"]["liveSessions"] if i["kind"] == "resumptionHandle"]
    assert handles
    resumed = TEXT_SETUP | {"sessionResumption": {"handle": handles[-1]}}
    _, code, reason = asyncio.run(_live(ws(b.url, LIVE, key), resumed, turn=False))
    assert (code, reason) == (1000, "")  # B found the handle A saved
    unknown = TEXT_SETUP | {"sessionResumption": {"handle": "live-" + "0" * 32}}
    _, code, reason = asyncio.run(_live(ws(b.url, LIVE, key), unknown, turn=False))
    assert (code, reason) == (1008, "Requested entity was not found.")


VEO = "veo-3.0-generate-001"


@pytest.mark.slow
def test_a_video_operation_started_on_one_process_is_polled_done_listed_and_cancelled_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    entries = [
        {"match": {"text": "quick"}, "text": "ok"},
        {"match": {"text": "broken"}, "error": {"code": 400, "message": "Veo refused this prompt"}},
        {"match": {"text": "slow"}, "text": "ok", "delayMs": 4000},
    ]
    httpx.post(a.url + "/__emulator/script", json=entries, headers=KEY).raise_for_status()
    start_path = f"/v1beta/models/{VEO}:predictLongRunning"
    started = httpx.post(a.url + start_path, json={"instances": [{"prompt": "a quick cat"}]}, headers=KEY)
    assert started.status_code == 200 and list(started.json()) == ["name"]
    name = started.json()["name"]
    deadline = time.monotonic() + 10
    seen = httpx.get(f"{b.url}/v1beta/{name}", headers=KEY).json()
    while not seen.get("done"):
        assert time.monotonic() < deadline, seen
        time.sleep(0.05)
        seen = httpx.get(f"{b.url}/v1beta/{name}", headers=KEY).json()
    (sample,) = seen["response"]["generateVideoResponse"]["generatedSamples"]
    assert httpx.get(f"{a.url}/v1beta/{name}", headers=KEY).json() == seen  # one result, whoever reads it
    assert sample["video"]["uri"].startswith(a.url)  # the file is where it was made (files: per process here)
    assert httpx.get(sample["video"]["uri"], headers=KEY).status_code == 200

    vertex = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/" + VEO
    bearer = {"authorization": "Bearer " + KEY["x-goog-api-key"]}
    broken = {"instances": [{"prompt": "a broken one"}]}
    failed = httpx.post(a.url + vertex + ":predictLongRunning", json=broken, headers=bearer).json()["name"]
    fetch = b.url + vertex + ":fetchPredictOperation"
    deadline = time.monotonic() + 10
    fetched = httpx.post(fetch, json={"operationName": failed}, headers=bearer).json()
    while not fetched.get("done"):  # polled on B the way google-genai polls Vertex
        assert time.monotonic() < deadline, fetched
        time.sleep(0.05)
        fetched = httpx.post(fetch, json={"operationName": failed}, headers=bearer).json()
    assert fetched["error"] == {"code": 3, "message": "Veo refused this prompt"}

    held = httpx.post(a.url + start_path, json={"instances": [{"prompt": "a slow dog"}]}, headers=KEY).json()["name"]
    listed = httpx.get(b.url + "/v1beta/operations", headers=KEY).json()["operations"]
    assert [o["name"] for o in listed] == [held, failed, name]  # newest first, on B
    assert httpx.post(f"{b.url}/v1beta/{held}:cancel", headers=KEY).json() == {}
    cancelled = httpx.get(f"{a.url}/v1beta/{held}", headers=KEY).json()
    assert cancelled["done"] and cancelled["error"]["code"] == 1
    assert httpx.delete(f"{a.url}/v1beta/{name}", headers=KEY).json() == {}
    assert httpx.get(f"{b.url}/v1beta/{name}", headers=KEY).status_code == 404
