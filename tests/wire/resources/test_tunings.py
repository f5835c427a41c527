"""Tuning with the real google-genai 3.6.1 (sync and async) over a real socket, on both surfaces: `tunings.tune`
walks PENDING, RUNNING, SUCCEEDED on the namespace's tuning schedule (the admin API's `PUT /__emulator/tunings`),
get, list (Vertex `tunings.list`; the Developer API's tuned models through `models.list(query_base=False)`),
cancel, and a generate call on the finished job's tuned model answered as its base model's."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
DONE = {types.JobState.JOB_STATE_SUCCEEDED, types.JobState.JOB_STATE_FAILED, types.JobState.JOB_STATE_CANCELLED}
DATASET = types.TuningDataset(gcs_uri="gs://demo-bucket/train.jsonl")


def _vertex(gemini: Gemini) -> genai.Client:
    """Vertex mode whose OAuth token is this test's key (so the namespace, schedule and journal are the test's)."""
    client: genai.Client = gemini.vertex_client()
    return client


def _until(client: genai.Client, name: str, states: set[types.JobState], seconds: float = 5.0) -> types.TuningJob:
    """Poll a job until its state is one of `states` (bounded)."""
    deadline = time.monotonic() + seconds
    while True:
        job = client.tunings.get(name=name)
        if job.state in states:
            return job
        if time.monotonic() > deadline:
            pytest.fail(f"{name} still {job.state} after {seconds}s")
        time.sleep(0.02)


def test_vertex_job_walks_to_succeeded_and_its_endpoint_generates(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    gemini_shared.admin.tuning_schedule(pendingMs=50, hold=True)  # RUNNING until released: each state is seen
    job = client.tunings.tune(
        base_model=MODEL, training_dataset=DATASET, config={"tuned_model_display_name": "demo", "epoch_count": 2}
    )
    assert job.name.startswith("projects/demo-project/locations/us-central1/tuningJobs/")
    assert job.state == types.JobState.JOB_STATE_PENDING and job.base_model == MODEL
    assert job.tuned_model_display_name == "demo"
    assert job.supervised_tuning_spec.training_dataset_uri == DATASET.gcs_uri
    assert job.supervised_tuning_spec.hyper_parameters.epoch_count == 2
    running = _until(client, job.name, {types.JobState.JOB_STATE_RUNNING})
    assert running.start_time is not None and running.tuned_model is None
    gemini_shared.admin.tuning_schedule()  # release
    done = _until(client, job.name, DONE)
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED and done.end_time >= done.start_time
    assert done.tuned_model.endpoint.startswith("projects/demo-project/locations/us-central1/endpoints/")
    assert done.tuned_model.model.startswith("projects/demo-project/locations/us-central1/models/")
    assert [j.name for j in client.tunings.list()] == [job.name]
    listed = list(client.models.list(config={"query_base": False}))  # the Model Registry's tuned models
    assert [m.name for m in listed] == [done.tuned_model.model.split("@")[0]]
    assert listed[0].endpoints[0].name == done.tuned_model.endpoint
    gemini_shared.script({"match": {"text": "hello"}, "text": "Tuned hello."})
    answer = client.models.generate_content(model=done.tuned_model.endpoint, contents="hello")
    assert answer.text == "Tuned hello."
    assert gemini_shared.journal(rpc="generateContent")[-1].model.startswith("endpoints/")


def test_vertex_cancel_and_an_unfinished_endpoint(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    gemini_shared.admin.tuning_schedule(hold=True)
    job = client.tunings.tune(base_model=MODEL, training_dataset=DATASET)
    client.tunings.cancel(name=job.name)
    done = client.tunings.get(name=job.name)
    assert done.state == types.JobState.JOB_STATE_CANCELLED and done.error.code == 1
    assert done.tuned_model is None
    with pytest.raises(errors.ClientError) as missing:
        client.tunings.get(name=job.name.rsplit("/", 1)[0] + "/123")
    assert missing.value.code == 404
    with pytest.raises(errors.ClientError) as endpoint:
        client.models.generate_content(model="projects/demo-project/locations/us-central1/endpoints/1", contents="x")
    assert endpoint.value.code == 404 and endpoint.value.status == "NOT_FOUND"


def test_a_failed_schedule_fails_the_job_with_its_error(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    gemini_shared.admin.tuning_schedule(pendingMs=0, runningMs=0, state="FAILED", error={"code": 9, "message": "no"})
    job = client.tunings.tune(base_model=MODEL, training_dataset=DATASET)
    done = _until(client, job.name, DONE)
    assert done.state == types.JobState.JOB_STATE_FAILED and done.error.code == 9 and done.error.message == "no"


def test_vertex_bad_creates_are_400s(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    with pytest.raises(errors.ClientError) as no_data:
        client.tunings.tune(base_model=MODEL, training_dataset=types.TuningDataset())
    assert no_data.value.code == 400 and no_data.value.status == "INVALID_ARGUMENT"
    with pytest.raises(errors.ClientError) as unknown:
        client.tunings.tune(base_model="no-such-model", training_dataset=DATASET)
    assert unknown.value.code == 400 and "no-such-model" in unknown.value.message
    url = f"{gemini_shared.url}/v1beta1/projects/p/locations/us-central1/tuningJobs"
    auth = {"authorization": f"Bearer {gemini_shared.api_key}"}
    for body in (b"[]", b'{"nope": 1}', b'{"baseModel": "gemini-2.5-flash", "supervisedTuningSpec": 3}'):
        answer = httpx.post(url, content=body, headers=auth)
        assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT", body


def test_developer_job_to_active_then_generate_on_the_tuned_model(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    gemini_shared.admin.tuning_schedule(pendingMs=50, hold=True)
    job = client.tunings.tune(
        base_model=f"models/{MODEL}",
        training_dataset=types.TuningDataset(examples=[types.TuningExample(text_input="1", output="2")]),
        config={"tuned_model_display_name": "Number generator", "epoch_count": 1},
    )
    assert job.name.startswith("tunedModels/number-generator-") and job.state == types.JobState.JOB_STATE_QUEUED
    first = client.tunings.get(name=job.name)
    assert first.state == types.JobState.JOB_STATE_RUNNING  # CREATING, as the SDK reads it
    assert first.base_model == f"models/{MODEL}" and first.tuned_model.model == job.name
    with pytest.raises(errors.ClientError) as not_ready:
        client.models.generate_content(model=job.name, contents="hello")
    assert not_ready.value.code == 400
    gemini_shared.admin.tuning_schedule()
    done = _until(client, job.name, DONE)
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED and done.end_time is not None
    tuned = [m.name for m in client.models.list(config={"query_base": False})]
    assert tuned == [job.name]
    gemini_shared.script({"match": {"text": "hello"}, "text": "Tuned hello."})
    assert client.models.generate_content(model=job.name, contents="hello").text == "Tuned hello."
    assert client.models.count_tokens(model=job.name, contents="hello").total_tokens > 0
    client.models.delete(model=job.name)
    with pytest.raises(errors.ClientError) as gone:
        client.tunings.get(name=job.name)
    assert gone.value.code == 404


def test_developer_cancel_and_another_key_sees_nothing(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    gemini_shared.admin.tuning_schedule(hold=True)
    job = client.tunings.tune(base_model=MODEL, training_dataset=types.TuningDataset(examples=[]))
    client.tunings.cancel(name=job.name)
    assert client.tunings.get(name=job.name).state == types.JobState.JOB_STATE_FAILED  # TunedModel has no CANCELLED
    other = genai.Client(api_key="another-key", http_options=types.HttpOptions(base_url=gemini_shared.url))
    with pytest.raises(errors.ClientError) as hidden:
        other.tunings.get(name=job.name)
    assert hidden.value.code == 404
    with pytest.raises(errors.ClientError) as not_yours:
        other.models.generate_content(model=job.name, contents="hello")
    assert not_yours.value.code == 404


def test_the_create_operation_is_readable_and_ends_with_the_tuned_model(gemini_shared: Gemini) -> None:
    gemini_shared.admin.tuning_schedule(pendingMs=0, runningMs=0)
    headers = {"x-goog-api-key": gemini_shared.api_key}
    created = httpx.post(f"{gemini_shared.url}/v1beta/tunedModels", json={"baseModel": MODEL}, headers=headers)
    assert created.status_code == 200
    op = created.json()
    assert op["name"].startswith("tunedModels/") and "/operations/" in op["name"]
    assert op["metadata"]["tunedModel"] == op["name"].split("/operations/")[0]
    polled = httpx.get(f"{gemini_shared.url}/v1beta/{op['name']}", headers=headers).json()
    assert polled["done"] is True and polled["response"]["state"] == "ACTIVE"


def test_the_create_operation_cancelled_or_deleted_leaves_the_tuned_model(gemini_shared: Gemini) -> None:
    """As the operations room answers any operation: `:cancel` is `{}` (the job walks on, its operation still
    printed from it), DELETE is `{}` and forgets the operation, not the tuned model."""
    gemini_shared.admin.tuning_schedule(pendingMs=0, runningMs=0)
    headers = {"x-goog-api-key": gemini_shared.api_key}
    op = httpx.post(f"{gemini_shared.url}/v1beta/tunedModels", json={"baseModel": MODEL}, headers=headers).json()
    url = f"{gemini_shared.url}/v1beta/{op['name']}"
    cancelled = httpx.post(url + ":cancel", json={}, headers=headers)
    assert (cancelled.status_code, cancelled.json()) == (200, {})
    assert httpx.get(url, headers=headers).json()["response"]["state"] == "ACTIVE"
    deleted = httpx.delete(url, headers=headers)
    assert (deleted.status_code, deleted.json()) == (200, {})
    assert httpx.get(url, headers=headers).status_code == 404
    assert httpx.delete(url, headers=headers).status_code == 404
    tuned = httpx.get(f"{gemini_shared.url}/v1beta/{op['metadata']['tunedModel']}", headers=headers)
    assert tuned.status_code == 200 and tuned.json()["state"] == "ACTIVE"
    other = httpx.get(url.replace(op["name"].rsplit("/", 1)[1], "nope"), headers=headers)
    assert other.status_code == 404


def test_async_vertex_tune_get_list_cancel(gemini_shared: Gemini) -> None:
    async def run() -> None:
        client = _vertex(gemini_shared).aio
        gemini_shared.admin.tuning_schedule(pendingMs=0, runningMs=0)
        job = await client.tunings.tune(base_model=MODEL, training_dataset=DATASET)
        deadline = time.monotonic() + 5
        while (got := await client.tunings.get(name=job.name)).state not in DONE:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert got.state == types.JobState.JOB_STATE_SUCCEEDED
        assert [j.name async for j in await client.tunings.list()] == [job.name]
        await client.tunings.cancel(name=job.name)  # a finished job stays as it was
        assert (await client.tunings.get(name=job.name)).state == types.JobState.JOB_STATE_SUCCEEDED
        answer = await client.models.generate_content(model=got.tuned_model.endpoint, contents="hi")
        assert answer.text

    asyncio.run(run())


def test_the_schedule_refuses_what_it_cannot_do(gemini_shared: Gemini) -> None:
    url = f"{gemini_shared.url}/__emulator/tunings"
    headers = {"x-goog-api-key": gemini_shared.api_key}
    for body in ({"state": "EXPIRED"}, {"pendingMs": -1}, {"nope": 1}):
        assert httpx.put(url, json=body, headers=headers).status_code == 400, body
    shown = httpx.put(url, json={"state": "JOB_STATE_FAILED"}, headers=headers).json()
    assert shown["schedule"]["state"] == "FAILED"
    assert httpx.delete(url, headers=headers).json()["schedule"]["state"] == "SUCCEEDED"
