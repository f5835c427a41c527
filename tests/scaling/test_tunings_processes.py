"""Tunings across processes: two `gemini-emulator serve --store redis://...` processes on their own ports, one
redis-server (tests/scaling/conftest.py), real sockets, google-genai 3.6.1. A schedule set through one process
holds for the jobs created through the other; a job created through one is got, listed and cancelled through the
other, walking its phases by the wall clock whichever process is asked; its tuned model answers a generate call
on the other; and with Redis gone the tuning rooms and a tuned model's generate call answer the 503 envelope."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors, types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from redis_env import RedisServer

MODEL = "gemini-2.5-flash"
DATASET = types.TuningDataset(gcs_uri="gs://demo-bucket/train.jsonl")
DONE = {types.JobState.JOB_STATE_SUCCEEDED, types.JobState.JOB_STATE_FAILED, types.JobState.JOB_STATE_CANCELLED}
UNAVAILABLE = {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}}
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the SDK's tuning is experimental


def _developer(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


def _vertex(url: str) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=KEY["x-goog-api-key"]),
        http_options=types.HttpOptions(base_url=url),
    )


def _until(client: genai.Client, name: str, states: set[types.JobState], seconds: float = 10.0) -> types.TuningJob:
    deadline = time.monotonic() + seconds
    while True:
        job = client.tunings.get(name=name)
        if job.state in states:
            return job
        assert time.monotonic() < deadline, f"{name} still {job.state} after {seconds}s"
        time.sleep(0.02)


def _schedule(url: str, **plan: Any) -> dict[str, Any]:
    answer = httpx.put(url + "/__emulator/tunings", json=plan, headers=KEY, timeout=10)
    answer.raise_for_status()
    shown: dict[str, Any] = answer.json()
    return shown


@pytest.mark.slow
def test_a_vertex_job_made_on_one_process_walks_and_generates_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _vertex(a.url), _vertex(b.url)
    warnings.simplefilter("ignore")
    _schedule(a.url, pendingMs=300, runningMs=300)  # set through A: B's creates walk it
    job = on_b.tunings.tune(base_model=MODEL, training_dataset=DATASET)
    assert job.state == types.JobState.JOB_STATE_PENDING
    assert on_a.tunings.get(name=job.name).state in {types.JobState.JOB_STATE_PENDING, types.JobState.JOB_STATE_RUNNING}
    done = _until(on_a, job.name, DONE)  # walked by the wall clock: A and B read one phase
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED
    seen = on_b.tunings.get(name=job.name)
    assert (seen.state, seen.start_time, seen.end_time) == (done.state, done.start_time, done.end_time)
    assert [j.name for j in on_a.tunings.list()] == [job.name]
    assert [m.name for m in on_a.models.list(config={"query_base": False})] == [done.tuned_model.model.split("@")[0]]
    httpx.post(a.url + "/__emulator/script", json=[{"text": "Tuned on B."}], headers=KEY, timeout=10).raise_for_status()
    answer = on_a.models.generate_content(model=done.tuned_model.endpoint, contents="hello")  # tuned through B
    assert answer.text == "Tuned on B."

    _schedule(b.url, pendingMs=0, hold=True)  # held RUNNING until released, through either process
    held = on_a.tunings.tune(base_model=MODEL, training_dataset=DATASET)
    on_b.tunings.cancel(name=held.name)
    assert on_a.tunings.get(name=held.name).state == types.JobState.JOB_STATE_CANCELLED
    released = on_a.tunings.tune(base_model=MODEL, training_dataset=DATASET)
    assert _until(on_b, released.name, {types.JobState.JOB_STATE_RUNNING}).state == types.JobState.JOB_STATE_RUNNING
    assert _schedule(b.url, state="FAILED")["released"] == 1  # the job A created, let go through B
    assert _until(on_a, released.name, DONE).state == types.JobState.JOB_STATE_FAILED


@pytest.mark.slow
def test_a_developer_tuned_model_made_on_one_process_answers_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _developer(a.url), _developer(b.url)
    warnings.simplefilter("ignore")
    _schedule(b.url, pendingMs=0, runningMs=0)
    created = httpx.post(a.url + "/v1beta/tunedModels", json={"baseModel": MODEL, "displayName": "Shared"}, headers=KEY)
    assert created.status_code == 200
    op = created.json()
    polled = httpx.get(f"{b.url}/v1beta/{op['name']}", headers=KEY, timeout=10).json()  # made through A
    assert polled["done"] is True and polled["response"]["state"] == "ACTIVE"
    name = op["metadata"]["tunedModel"]
    assert on_b.tunings.get(name=name).state == types.JobState.JOB_STATE_SUCCEEDED
    httpx.post(b.url + "/__emulator/script", json=[{"text": "Tuned on A."}], headers=KEY, timeout=10).raise_for_status()
    assert on_b.models.generate_content(model=name, contents="hello").text == "Tuned on A."
    on_b.models.delete(model=name)
    with pytest.raises(errors.ClientError) as gone:
        on_a.models.generate_content(model=name, contents="hello")
    assert gone.value.code == 404
    other = httpx.get(f"{a.url}/v1beta/{name}", headers={"x-goog-api-key": "another-key"}, timeout=10)
    assert other.status_code == 404


@pytest.mark.slow
def test_redis_unreachable_is_the_503_envelope_for_tunings(serve: Any, tmp_path: Path) -> None:  # noqa: F811
    redis = RedisServer(tmp_path / "redis").start()
    try:
        served = serve(redis.url)
        vertex = "/v1beta1/projects/demo-project/locations/us-central1"
        paths = [vertex + "/tuningJobs", "/v1beta/tunedModels", vertex + "/models"]
        tuned = "/v1beta/tunedModels/nothing-123456789012:generateContent"
        bearer = {"authorization": f"Bearer {KEY['x-goog-api-key']}"}
        assert [httpx.get(served.url + p, headers=KEY | bearer).status_code for p in paths] == [200] * 3
        hello = {"contents": [{"parts": [{"text": "hello"}]}]}
        assert httpx.post(served.url + tuned, json=hello, headers=KEY).status_code == 404
        redis.stop()
        for path in paths:
            began = time.monotonic()
            down = httpx.get(served.url + path, headers=KEY | bearer, timeout=10)
            assert time.monotonic() - began < 5
            assert (down.status_code, down.json()) == (503, UNAVAILABLE), path
        made = httpx.post(served.url + "/v1beta/tunedModels", json={"baseModel": MODEL}, headers=KEY, timeout=10)
        assert (made.status_code, made.json()) == (503, UNAVAILABLE)
        called = httpx.post(served.url + tuned, json=hello, headers=KEY, timeout=10)
        assert (called.status_code, called.json()) == (503, UNAVAILABLE)
    finally:
        redis.stop()
