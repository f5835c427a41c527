"""Records across processes: two `gemini-emulator serve --store redis://...` processes on their own ports, one
redis-server (tests/scaling/conftest.py). A webhook, an agent, a stored voice, a prompt template and interactions
made through one are read, changed and used through the other over real sockets (google-genai and httpx); a
background interaction run by one is polled to completed and cancelled through the other, its end delivered once;
a trigger made due by an advanced clock fires once however many processes read the clock at once; and with Redis
gone each of these rooms answers the 503 envelope."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.testing.webhooks import Receiver

from redis_env import RedisServer

MODEL = "gemini-2.5-flash"
BUILT_IN = "antigravity-preview-05-2026"
TTS = "gemini-2.5-flash-preview-tts"
GREET = "/v1beta/projects/demo/templates/greet:templateGenerateContent"
PROMPTED = {"type": "prompted", "display_name": "Ogre", "prompted": {"input": "A deep, slow voice."}}


def _client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


def _until(seconds: float, ready: Any) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = ready()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"not so within {seconds} s")


@pytest.mark.slow
def test_records_made_on_one_process_are_read_and_used_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    with Receiver() as receiver:
        hook = httpx.post(
            a.url + "/v1beta/webhooks",
            json={"uri": receiver.url, "subscribed_events": ["interaction.completed"]},
            headers=KEY,
        ).json()
        listed = httpx.get(b.url + "/v1beta/webhooks", headers=KEY).json()
        assert [h["id"] for h in listed["webhooks"]] == [hook["id"]]
        rotated = httpx.post(f"{b.url}/v1beta/webhooks/{hook['id']}:rotateSigningSecret", json={}, headers=KEY)
        assert rotated.status_code == 200
        seen = httpx.get(f"{a.url}/v1beta/webhooks/{hook['id']}", headers=KEY).json()
        assert len(seen["signing_secrets"]) == 2  # the rotation through B, seen through A

        on_a.agents.create(id="reviewer", system_instruction="You review code.")
        assert on_b.agents.get(id="reviewer").system_instruction == "You review code."
        entries = [
            {"match": {"system": "You review code."}, "text": "Looks good."},
            {"match": {"text": "And now?", "turn": 1}, "text": "Still good."},
            {"match": {"text": "slowly"}, "text": "late", "delayMs": 10_000},
        ]
        httpx.post(a.url + "/__emulator/script", json=entries, headers=KEY, timeout=30).raise_for_status()
        first = on_b.interactions.create(agent="reviewer", input="Review this")  # the agent made through A
        assert first.output_text == "Looks good."
        chained = on_a.interactions.create(model=MODEL, input="And now?", previous_interaction_id=first.id)
        assert chained.output_text == "Still good."  # B's interaction's history, through A
        assert on_b.interactions.get(chained.id).output_text == "Still good."

        background = on_a.interactions.create(model=MODEL, input="Summarise maps", background=True)
        done = _until(10, lambda: (seen := on_b.interactions.get(background.id)).status == "completed" and seen)
        assert done.output_text
        delivered = receiver.wait_for("interaction.completed")
        assert delivered.event["data"]["id"] == background.id
        slow = on_a.interactions.create(model=MODEL, input="slowly", background=True)
        assert on_b.interactions.cancel(slow.id).status == "cancelled"  # run by A, cancelled through B
        assert on_a.interactions.get(slow.id).status == "cancelled"
        on_b.interactions.delete(slow.id)
        assert httpx.get(f"{a.url}/v1beta/interactions/{slow.id}", headers=KEY).status_code == 404
        time.sleep(0.3)  # any second delivery of the one completion would have come by now
        assert [r.event["data"]["id"] for r in receiver.of("interaction.completed")] == [background.id]

        voice = httpx.post(a.url + "/v1beta/voices", json={"store": True, "voice": PROMPTED}, headers=KEY).json()
        assert voice["id"] in [v["id"] for v in httpx.get(b.url + "/v1beta/voices", headers=KEY).json()["voices"]]
        config = {"responseModalities": ["AUDIO"], "speechConfig": {"voiceConfig": {"voice": voice["id"]}}}
        tts = {"contents": [{"parts": [{"text": "Say hi"}]}], "generationConfig": config}
        spoken = httpx.post(f"{b.url}/v1beta/models/{TTS}:generateContent", json=tts, headers=KEY)
        assert spoken.status_code == 200  # a voice stored through A speaks through B
        httpx.delete(f"{a.url}/v1beta/voices/{voice['id']}", headers=KEY).raise_for_status()
        refused = httpx.post(f"{b.url}/v1beta/models/{TTS}:generateContent", json=tts, headers=KEY)
        assert refused.status_code == 400 and "was not found" in refused.json()["error"]["message"]

        template = {"id": "greet", "template": "---\nmodel: gemini-2.5-flash\n---\nGreet {{name}}."}
        httpx.put(a.url + "/__emulator/templates", json=[template], headers=KEY).raise_for_status()
        entry = {"match": {"text": "Greet Ada."}, "text": "Hello, Ada!"}
        httpx.post(a.url + "/__emulator/script", json=[entry], headers=KEY).raise_for_status()
        greeted = httpx.post(b.url + GREET, json={"inputs": {"name": "Ada"}}, headers=KEY)  # set through A
        assert greeted.status_code == 200 and "Hello, Ada!" in greeted.text
        assert [t["id"] for t in httpx.get(b.url + "/__emulator/templates", headers=KEY).json()["templates"]] == [
            "greet"
        ]
        httpx.delete(b.url + "/__emulator/templates", headers=KEY).raise_for_status()
        assert httpx.post(a.url + GREET, json={"inputs": {"name": "Ada"}}, headers=KEY).status_code == 404

        on_b.agents.delete(id="reviewer")
        assert httpx.get(a.url + "/v1beta/agents/reviewer", headers=KEY).status_code == 404
        httpx.delete(f"{a.url}/v1beta/webhooks/{hook['id']}", headers=KEY).raise_for_status()
        assert httpx.get(b.url + "/v1beta/webhooks", headers=KEY).json() == {}


@pytest.mark.slow
def test_a_due_trigger_fires_once_across_processes(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    fires = 6  # every five minutes, and the clock moved half an hour
    entries = [{"text": f"run {i}"} for i in range(fires)]
    httpx.post(a.url + "/__emulator/script", json=entries, headers=KEY, timeout=30).raise_for_status()
    made = httpx.post(
        a.url + "/v1beta/triggers",
        json={"schedule": "*/5 * * * *", "time_zone": "UTC", "interaction": {"agent": BUILT_IN, "input": "go"}},
        headers=KEY,
    ).json()
    clock = httpx.get(b.url + "/__emulator/clock", headers=KEY).json()
    start = time.time() + clock["offsetSeconds"]
    advance = 30 * 60 - start % 300 + 150  # past six fires, never on one

    def read(url: str) -> int:
        with httpx.Client(base_url=url, headers=KEY, timeout=30) as http:
            return http.get("/v1beta/triggers").status_code

    with ThreadPoolExecutor(8) as pool:
        readers = [pool.submit(read, url) for url in [a.url, b.url] * 6]  # each runs the fires its clock passed
        moved = httpx.put(b.url + "/__emulator/clock", json={"advanceSeconds": advance}, headers=KEY, timeout=30)
        readers += [pool.submit(read, url) for url in [a.url, b.url] * 6]
        assert moved.status_code == 200 and all(r.result() == 200 for r in readers)
    assert abs(httpx.get(a.url + "/__emulator/clock", headers=KEY).json()["offsetSeconds"] - advance) < 1e-6
    listed = httpx.get(f"{a.url}/v1beta/triggers/{made['id']}/executions", headers=KEY).json()
    ran = listed["trigger_executions"]
    assert len(ran) == fires and len({r["scheduled_time"] for r in ran}) == fires
    assert {r["status"] for r in ran} == {"completed"}
    assert httpx.get(b.url + "/__emulator/script", headers=KEY).json()["entries"] == []  # each entry once
    texts = {on.interactions.get(r["interaction_id"]).output_text for r in ran for on in [_client(b.url)]}
    assert texts == {f"run {i}" for i in range(fires)}


@pytest.mark.slow
def test_redis_unreachable_is_the_503_envelope(serve: Any, tmp_path: Path) -> None:  # noqa: F811
    redis = RedisServer(tmp_path / "redis").start()
    try:
        served = serve(redis.url)
        paths = ["/v1beta/webhooks", "/v1beta/agents", "/v1beta/triggers", "/v1beta/voices", "/v1beta/environments"]
        paths.append("/v1beta/interactions/v1_nothing")
        assert [httpx.get(served.url + p, headers=KEY).status_code for p in paths] == [200] * 5 + [404]
        redis.stop()
        for path in paths:
            began = time.monotonic()
            down = httpx.get(served.url + path, headers=KEY, timeout=10)
            assert time.monotonic() - began < 5
            assert down.status_code == 503, path
            assert down.json() == {
                "error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}
            }
        made = httpx.post(served.url + "/v1beta/agents", json={"id": "x"}, headers=KEY, timeout=10)
        assert made.status_code == 503
        called = httpx.post(served.url + GREET, json={"inputs": {}}, headers=KEY, timeout=10)
        assert called.status_code == 503 and called.json()["error"]["status"] == "UNAVAILABLE"
    finally:
        redis.stop()
