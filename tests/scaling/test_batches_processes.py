"""Batch jobs across processes: two `gemini-emulator serve --store redis://...` processes on their own ports, one
redis-server (tests/scaling/conftest.py). A job created through one is polled to SUCCEEDED through the other with
google-genai, its answers the scripted ones, each entry consumed once however many processes poll it at once."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

MODEL = "gemini-2.5-flash"


def _client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


@pytest.mark.slow
def test_a_batch_created_on_one_process_is_answered_once_and_read_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    count = 40
    entries = [{"name": f"e{i}", "text": f"answer {i}"} for i in range(count)]
    httpx.post(a.url + "/__emulator/script", json=entries, headers=KEY, timeout=30).raise_for_status()
    plan = {"pendingMs": 50, "runningMs": 200}
    httpx.put(b.url + "/__emulator/batches", json=plan, headers=KEY, timeout=30).raise_for_status()  # set on B
    requests = [{"contents": [{"parts": [{"text": f"q{i}"}], "role": "user"}]} for i in range(count)]
    on_a, on_b = _client(a.url), _client(b.url)  # kept: a client collected closes its connections
    job = on_a.batches.create(model=MODEL, src=requests, config={"display_name": "across"})
    assert job.state == types.JobState.JOB_STATE_PENDING

    def poll(url: str) -> types.BatchJob:
        client = _client(url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            seen = client.batches.get(name=job.name)
            if seen.done:
                return seen
            time.sleep(0.02)
        raise AssertionError(f"{job.name} not done through {url} in 30 s")

    with ThreadPoolExecutor(6) as pool:  # both processes poll at once: one of them answers, once
        seen = list(pool.map(poll, [a.url, b.url] * 3))
    for done in seen:
        assert done.state == types.JobState.JOB_STATE_SUCCEEDED and done.display_name == "across"
        assert [r.response.text for r in done.dest.inlined_responses] == [e["text"] for e in entries]
    assert httpx.get(b.url + "/__emulator/script", headers=KEY).json()["entries"] == []  # none left, none twice
    names = [op.name for op in on_b.batches.list()]
    assert names == [job.name]
    raw = httpx.get(f"{b.url}/v1beta/{job.name}", headers=KEY).json()
    assert raw["metadata"]["batchStats"] == {"requestCount": str(count), "successfulRequestCount": str(count)}

    httpx.put(a.url + "/__emulator/batches", json={"hold": True}, headers=KEY, timeout=30).raise_for_status()
    second = on_b.batches.create(model=MODEL, src=requests[:1])  # held, by the plan set through A
    assert not on_a.batches.get(name=second.name).done
    on_a.batches.cancel(name=second.name)
    assert on_b.batches.get(name=second.name).state == types.JobState.JOB_STATE_CANCELLED
    on_b.batches.delete(name=job.name)
    with pytest.raises(genai.errors.ClientError) as gone:
        on_a.batches.get(name=job.name)
    assert gone.value.code == 404
