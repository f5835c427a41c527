"""Vertex batch prediction jobs through google-genai 3.6.1 in Vertex mode (`client.batches`) over a real socket:
create from Cloud Storage and BigQuery, poll to done, list, cancel, delete; the namespace's batch schedule (the
admin API's `PUT /__emulator/batches`) drives them as it drives Developer batches."""

from __future__ import annotations

import time

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
DONE = {types.JobState.JOB_STATE_SUCCEEDED, types.JobState.JOB_STATE_FAILED, types.JobState.JOB_STATE_CANCELLED}


def _vertex(gemini: Gemini) -> genai.Client:
    """Vertex mode whose OAuth token is this test's key (so the namespace, schedule and journal are the test's)."""
    client: genai.Client = gemini.vertex_client()
    return client


def _poll(client: genai.Client, name: str) -> types.BatchJob:
    deadline = time.monotonic() + 10
    while True:
        job = client.batches.get(name=name)
        if job.state in DONE or time.monotonic() > deadline:
            return job
        time.sleep(0.05)


def test_gcs_job_walks_to_succeeded_with_output_info(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    gemini_shared.batch_schedule(pendingMs=50, runningMs=100)
    job = client.batches.create(
        model=MODEL,
        src="gs://my-bucket/input/requests.jsonl",
        config={"display_name": "nightly", "dest": "gs://my-bucket/output"},
    )
    assert job.name and job.name.startswith("projects/demo-project/locations/us-central1/batchPredictionJobs/")
    assert job.state == types.JobState.JOB_STATE_PENDING and job.display_name == "nightly"
    assert job.src and job.src.gcs_uri == ["gs://my-bucket/input/requests.jsonl"] and job.src.format == "jsonl"
    done = _poll(client, job.name)
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED
    assert done.start_time and done.end_time and done.create_time and done.end_time >= done.start_time
    assert done.dest and done.dest.gcs_uri == "gs://my-bucket/output"
    raw = httpx.get(
        f"{gemini_shared.url}/v1beta1/{job.name}", headers={"authorization": f"Bearer {gemini_shared.api_key}"}
    )
    body = raw.json()
    assert list(body)[:6] == ["name", "displayName", "model", "inputConfig", "outputConfig", "outputInfo"]
    assert body["outputInfo"]["gcsOutputDirectory"].startswith("gs://my-bucket/output/prediction-model-")
    assert body["model"] == f"publishers/google/models/{MODEL}"
    [record] = gemini_shared.journal(rpc="batchPredictionJobs.create")
    assert record.body["inputConfig"] == {"instancesFormat": "jsonl", "gcsSource": {"uris": [job.src.gcs_uri[0]]}}


def test_bigquery_job_list_cancel_delete(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    gemini_shared.batch_schedule(pendingMs=0, hold=True)
    held = client.batches.create(model=MODEL, src="bq://proj.dataset.requests")
    assert held.src and held.src.bigquery_uri == "bq://proj.dataset.requests"
    other = client.batches.create(model=MODEL, src="gs://b/in.jsonl", config={"dest": "gs://b/out"})
    listed = [j.name for j in client.batches.list(config={"page_size": 1})]
    assert listed == [other.name, held.name]  # newest first, across pages of one
    assert _state(client, held.name) == types.JobState.JOB_STATE_RUNNING
    client.batches.cancel(name=held.name or "")
    cancelled = client.batches.get(name=held.name or "")
    assert cancelled.state == types.JobState.JOB_STATE_CANCELLED and cancelled.error and cancelled.error.code == 1
    deleted = client.batches.delete(name=held.name or "")
    assert deleted.done is True and deleted.name and deleted.name.startswith(f"{held.name}/operations/")
    with pytest.raises(errors.ClientError) as gone:
        client.batches.get(name=held.name or "")
    assert gone.value.code == 404 and gone.value.status == "NOT_FOUND"
    assert [j.name for j in client.batches.list()] == [other.name]


def test_a_failed_schedule_fails_the_job_and_another_key_sees_nothing(gemini_shared: Gemini) -> None:
    client = _vertex(gemini_shared)
    gemini_shared.batch_schedule(pendingMs=0, runningMs=0, state="FAILED", error={"code": 3, "message": "bad rows"})
    job = client.batches.create(model=MODEL, src="gs://b/in.jsonl", config={"dest": "gs://b/out"})
    failed = _poll(client, job.name or "")
    assert failed.state == types.JobState.JOB_STATE_FAILED and failed.error and failed.error.message == "bad rows"
    stranger = httpx.get(f"{gemini_shared.url}/v1beta1/{job.name}", headers={"authorization": "Bearer someone-else"})
    assert stranger.status_code == 404 and stranger.json()["error"]["status"] == "NOT_FOUND"


def test_bad_creates_are_400s_and_keys_are_refused(gemini_shared: Gemini) -> None:
    url = f"{gemini_shared.url}/v1beta1/projects/p/locations/us-central1/batchPredictionJobs"
    auth = {"authorization": f"Bearer {gemini_shared.api_key}"}
    good_in = {"gcsSource": {"uris": ["gs://b/in.jsonl"]}}
    good_out = {"gcsDestination": {"outputUriPrefix": "gs://b/out"}}
    for body in (
        [],
        {},
        {"model": MODEL, "outputConfig": good_out},
        {"model": MODEL, "inputConfig": {"gcsSource": {"uris": ["https://x/y"]}}, "outputConfig": good_out},
        {"model": MODEL, "inputConfig": good_in},
        {"model": MODEL, "inputConfig": good_in, "outputConfig": good_out, "colour": 1},
        {"model": 5, "inputConfig": good_in, "outputConfig": good_out},
    ):
        answer = httpx.post(url, json=body, headers=auth)
        assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT", body
    keyed = httpx.post(url, json={}, headers={"x-goog-api-key": "k"})
    assert keyed.status_code == 401 and keyed.json()["error"]["status"] == "UNAUTHENTICATED"
    assert httpx.patch(url + "/123", json={}, headers=auth).status_code == 404  # no such method: the HTML 404


def _state(client: genai.Client, name: str | None) -> types.JobState | None:
    return client.batches.get(name=name or "").state


def test_a_malformed_cancel_body_is_a_400_on_a_real_job(gemini_shared: Gemini) -> None:
    """The fuzzed document calls a cancel body the request message (`name` only); the fuzzer's ids name no job,
    so a real one (Vertex and Developer alike) is checked here: what the document refuses, the server refuses."""
    gemini_shared.batch_schedule(pendingMs=0, hold=True)
    client = _vertex(gemini_shared)
    vertex = client.batches.create(model=MODEL, src="gs://b/in.jsonl", config={"dest": "gs://b/out"})
    developer = gemini_shared.client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    auth = {"authorization": f"Bearer {gemini_shared.api_key}"}
    for url in (
        f"{gemini_shared.url}/v1beta1/{vertex.name}:cancel",
        f"{gemini_shared.url}/v1beta/{developer.name}:cancel",
    ):
        for body, wording in (
            (b"[1]", "Root element must be a message"),
            (b'"x"', "Root element must be a message"),
            (b"{", "Unexpected token"),
            (b'{"force": true}', 'Unknown name "force"'),
            (b'{"name": 5}', "Invalid value at 'name' (TYPE_STRING), 5"),
        ):
            answer = httpx.post(url, content=body, headers=auth | {"content-type": "application/json"})
            assert answer.status_code == 400, (url, body, answer.text)
            error = answer.json()["error"]
            assert error["status"] == "INVALID_ARGUMENT" and wording in error["message"], (url, body)
        for body in (b"", b"{}"):  # what the SDK sends, and no body at all
            answer = httpx.post(url, content=body, headers=auth | {"content-type": "application/json"})
            assert answer.status_code == 200 and answer.json() == {}, (url, body)
    assert _state(client, vertex.name) == types.JobState.JOB_STATE_CANCELLED
    assert gemini_shared.client.batches.get(name=developer.name or "").state == types.JobState.JOB_STATE_CANCELLED
