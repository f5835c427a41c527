"""Batch jobs with the real google-genai (sync and async): inline batches to completion, per-item answers from
the same engine and script as generateContent, a scripted failed item, cancel, the schedule, embeddings, and the
4xx every malformed request gets."""

from __future__ import annotations

import asyncio
import io
import json
import time
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"


def _until_done(client: genai.Client, name: str, seconds: float = 5.0) -> tuple[types.BatchJob, list[str]]:
    """Poll a job until it is done (bounded); the states seen on the way."""
    seen: list[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = client.batches.get(name=name)
        if not seen or seen[-1] != job.state.name:
            seen.append(job.state.name)
        if job.done:
            return job, seen
        time.sleep(0.02)
    pytest.fail(f"{name} not done in {seconds}s; states {seen}")


def _schedule(gemini: Gemini, **plan: Any) -> None:
    gemini.batch_schedule(**plan)


def test_inline_batch_walks_to_succeeded_with_the_same_answers_as_generate(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    _schedule(gemini_shared, pendingMs=100, hold=True)  # held: RUNNING until released, so each state is seen
    requests = [
        {"contents": [{"parts": [{"text": "Say hello"}], "role": "user"}], "metadata": {"key": "a"}},
        {"contents": [{"parts": [{"text": "Why is the sky blue?"}], "role": "user"}], "metadata": {"key": "b"}},
    ]
    job = client.batches.create(model=MODEL, src=requests, config={"display_name": "demo"})
    assert job.name.startswith("batches/") and job.state == types.JobState.JOB_STATE_PENDING
    assert job.display_name == "demo" and job.model == f"models/{MODEL}"
    deadline = time.monotonic() + 5
    while client.batches.get(name=job.name).state != types.JobState.JOB_STATE_RUNNING:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    gemini_shared.batch_schedule()  # release
    job, seen = _until_done(client, job.name)
    assert seen == ["JOB_STATE_SUCCEEDED"]
    assert job.end_time is not None and job.end_time >= job.create_time
    answers = job.dest.inlined_responses
    assert [a.metadata for a in answers] == [{"key": "a"}, {"key": "b"}]
    direct = client.models.generate_content(model=MODEL, contents="Why is the sky blue?")
    assert answers[1].response.text == direct.text
    assert answers[1].response.usage_metadata.prompt_token_count == direct.usage_metadata.prompt_token_count


def test_items_are_scripted_like_calls_and_a_failed_item_has_its_error(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    gemini_shared.script(
        {"match": {"text": "first"}, "text": "One."},
        {"match": {"text": "fail"}, "error": "quota"},
    )
    job = client.batches.create(
        model=MODEL,
        src=[{"contents": "the first one"}, {"contents": "this one should fail"}, {"contents": [{"parts": []}]}],
    )
    job, _ = _until_done(client, job.name)
    first, failed, invalid = job.dest.inlined_responses
    assert first.response.text == "One." and first.error is None
    assert failed.response is None and failed.error.code == 8  # RESOURCE_EXHAUSTED, as a google.rpc.Status
    assert failed.error.message.startswith("You exceeded your current quota")
    assert invalid.error.code == 3 and "parts must not be empty" in invalid.error.message
    raw = httpx.get(f"{gemini_shared.url}/v1beta/{job.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    body = raw.json()
    assert body["done"] is True
    assert body["metadata"]["@type"] == "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"
    assert body["metadata"]["batchStats"] == {
        "requestCount": "3",
        "successfulRequestCount": "1",
        "failedRequestCount": "2",
    }
    assert body["response"]["@type"].endswith("GenerateContentBatchOutput")
    assert body["response"]["inlinedResponses"] == body["metadata"]["output"]["inlinedResponses"]
    assert gemini_shared.pending() == []  # both entries were spent on the batch


def test_cancel_a_held_job_before_the_engine_is_asked(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    _schedule(gemini_shared, pendingMs=0, hold=True)
    gemini_shared.script({"text": "never sent"})
    job = client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    deadline = time.monotonic() + 2
    while client.batches.get(name=job.name).state != types.JobState.JOB_STATE_RUNNING:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(0.2)  # held: still running after its schedule ran out
    assert client.batches.get(name=job.name).state == types.JobState.JOB_STATE_RUNNING
    client.batches.cancel(name=job.name)
    cancelled = client.batches.get(name=job.name)
    assert cancelled.state == types.JobState.JOB_STATE_CANCELLED and cancelled.done
    assert cancelled.dest is None
    assert len(gemini_shared.pending()) == 1  # no request of the batch reached the engine
    client.batches.cancel(name=job.name)  # cancelling again changes nothing
    assert client.batches.get(name=job.name).state == types.JobState.JOB_STATE_CANCELLED


def test_a_released_hold_finishes(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    _schedule(gemini_shared, pendingMs=0, runningMs=0, hold=True)
    job = client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    assert client.batches.get(name=job.name).state == types.JobState.JOB_STATE_RUNNING
    released = gemini_shared.admin.batch_schedule()
    assert released["released"] == 1
    done, _ = _until_done(client, job.name)
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED


@pytest.mark.parametrize(("state", "code"), [("FAILED", 13), ("EXPIRED", 4), ("CANCELLED", 1)])
def test_scheduled_outcomes(gemini_shared: Gemini, state: str, code: int) -> None:
    client = gemini_shared.client
    _schedule(gemini_shared, pendingMs=0, runningMs=50, state=state)
    job = client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    done, _ = _until_done(client, job.name)
    assert done.state.name == f"JOB_STATE_{state}" and done.dest is None
    raw = httpx.get(f"{gemini_shared.url}/v1beta/{job.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    assert raw.json()["done"] is True and raw.json()["error"]["code"] == code


def test_a_scheduled_failure_carries_the_scripted_status(gemini_shared: Gemini) -> None:
    _schedule(gemini_shared, runningMs=0, pendingMs=0, state="FAILED", error={"code": 3, "message": "Bad batch."})
    job = gemini_shared.client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    _until_done(gemini_shared.client, job.name)
    raw = httpx.get(f"{gemini_shared.url}/v1beta/{job.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    assert raw.json()["error"] == {"code": 3, "message": "Bad batch."}
    assert raw.json()["metadata"]["state"] == "BATCH_STATE_FAILED"


def test_list_pages_delete_and_other_keys(gemini_shared: Gemini, base_url: str) -> None:
    client = gemini_shared.client
    names = [client.batches.create(model=MODEL, src=[{"contents": f"n{i}"}]).name for i in range(3)]
    pager = client.batches.list(config={"page_size": 2})
    assert len(pager.page) == 2
    assert [j.name for j in pager] == names[::-1]  # newest first, every page read
    other = genai.Client(api_key="batch-other-key", http_options=types.HttpOptions(base_url=base_url))
    with pytest.raises(errors.ClientError) as caught:
        other.batches.get(name=names[0])
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    assert list(other.batches.list()) == []
    for name in names:
        client.batches.delete(name=name)
    assert list(client.batches.list()) == []
    with pytest.raises(errors.ClientError) as caught:
        client.batches.delete(name=names[0])
    assert caught.value.code == 404


@pytest.mark.filterwarnings("ignore::google.genai._common.ExperimentalWarning")
def test_embeddings_batch(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    job = client.batches.create_embeddings(
        model="gemini-embedding-001", src={"inlined_requests": {"contents": ["first text", "second text"]}}
    )
    done, _ = _until_done(client, job.name)
    vectors = [r.response.embedding.values for r in done.dest.inlined_embed_content_responses]
    direct = client.models.embed_content(model="gemini-embedding-001", contents="second text")
    assert len(vectors) == 2 and vectors[1] == direct.embeddings[0].values
    raw = httpx.get(f"{gemini_shared.url}/v1beta/{job.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    assert raw.json()["metadata"]["@type"].endswith("v1main.EmbedContentBatch")


def test_async_create_poll_list_cancel_delete(gemini_shared: Gemini) -> None:
    async def run() -> None:
        client = gemini_shared.client.aio
        job = await client.batches.create(model=MODEL, src=[{"contents": "Say hello"}])
        deadline = time.monotonic() + 5
        while not (job := await client.batches.get(name=job.name)).done:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert job.state == types.JobState.JOB_STATE_SUCCEEDED
        assert job.dest.inlined_responses[0].response.text.startswith("Hello")
        assert [j.name async for j in await client.batches.list()] == [job.name]
        await client.batches.delete(name=job.name)
        with pytest.raises(errors.ClientError):
            await client.batches.get(name=job.name)

    asyncio.run(run())


def test_admin_lists_removes_and_reset_clears_batches(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    job = client.batches.create(model=MODEL, src=[{"contents": "Hi"}], config={"display_name": "listed"})
    listed = gemini_shared.admin.resources("batches")["batches"]
    assert [(b["name"], b["displayName"], b["requestCount"]) for b in listed] == [(job.name, "listed", 1)]
    assert gemini_shared.admin._http.delete("/resources", params={"name": job.name}).status_code == 200
    with pytest.raises(errors.ClientError):
        client.batches.get(name=job.name)
    _schedule(gemini_shared, state="FAILED")
    kept = client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    gemini_shared.reset()
    with pytest.raises(errors.ClientError):
        client.batches.get(name=kept.name)
    assert gemini_shared.admin._http.get("/batches").json()["schedule"]["state"] == "SUCCEEDED"  # back to default
    assert [c.rpc for c in gemini_shared.journal()] == ["batches.get"]  # the reset cleared the journal too


def test_the_journal_records_batch_calls(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    job = client.batches.create(model=MODEL, src=[{"contents": "Hi"}])
    client.batches.get(name=job.name)
    client.batches.delete(name=job.name)
    assert [c.rpc for c in gemini_shared.journal()] == ["batchGenerateContent", "batches.get", "batches.delete"]
    assert gemini_shared.journal(rpc="batchGenerateContent").last.model == MODEL


@pytest.mark.parametrize(
    "body",
    [
        {"plan": 1},
        {"state": "DONE"},
        {"pendingMs": -1},
        {"pendingMs": "5"},
        {"hold": "yes"},
        {"error": {"code": 99}},
    ],
)
def test_bad_schedules_are_refused(gemini_shared: Gemini, body: dict[str, Any]) -> None:
    answer = gemini_shared.admin._http.put("/batches", json=body)
    assert answer.status_code == 400 and answer.json()["error"]["message"].startswith("batches: ")


_GOOD = {
    "batch": {"inputConfig": {"requests": {"requests": [{"request": {"contents": [{"parts": [{"text": "x"}]}]}}]}}}
}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", f"models/{MODEL}:batchGenerateContent", b"{", 400),
        ("POST", f"models/{MODEL}:batchGenerateContent", {}, 400),
        ("POST", f"models/{MODEL}:batchGenerateContent", {"batch": {}}, 400),
        ("POST", f"models/{MODEL}:batchGenerateContent", {"batch": {"inputConfig": {}}}, 400),
        (
            "POST",
            f"models/{MODEL}:batchGenerateContent",
            {"batch": {"inputConfig": {"requests": {"requests": []}}}},
            400,
        ),
        (
            "POST",
            f"models/{MODEL}:batchGenerateContent",
            {"batch": {"inputConfig": {"requests": {}, "fileName": "files/x"}}},
            400,
        ),
        ("POST", f"models/{MODEL}:batchGenerateContent", {"batch": {"bogus": 1}}, 400),
        (
            "POST",
            f"models/{MODEL}:batchGenerateContent",
            {"batch": {"inputConfig": {"requests": {"requests": [{"request": {"contents": "x", "nope": 1}}]}}}},
            400,
        ),
        (
            "POST",
            f"models/{MODEL}:batchGenerateContent",
            {"batch": {"displayName": 5, "inputConfig": {"fileName": "files/x"}}},
            400,
        ),
        ("POST", f"models/{MODEL}:batchGenerateContent", {"batch": {"inputConfig": {"fileName": "not-a-file"}}}, 400),
        ("POST", "models/no-such-model:batchGenerateContent", _GOOD, 404),
        ("POST", "models/gemini-embedding-001:batchGenerateContent", _GOOD, 404),
        ("POST", f"models/{MODEL}:asyncBatchEmbedContent", {"batch": {"inputConfig": {}}}, 404),
        ("GET", "batches?pageSize=x", None, 400),
        ("GET", "batches/nope", None, 404),
        ("DELETE", "batches/nope", None, 404),
        ("POST", "batches/nope:cancel", None, 404),
        ("PATCH", "batches/nope", {}, 404),
        ("POST", "batches", {}, 404),
    ],
)
def test_malformed_batch_requests_get_a_4xx_envelope(
    gemini_shared: Gemini, method: str, path: str, body: object, status: int
) -> None:
    headers = {"x-goog-api-key": gemini_shared.api_key}
    content = body if isinstance(body, bytes) else None
    json_body = None if isinstance(body, bytes) else body
    answer = httpx.request(
        method, f"{gemini_shared.url}/v1beta/{path}", headers=headers, content=content, json=json_body
    )
    assert answer.status_code == status, answer.text
    if method in ("PATCH",) or path == "batches":  # no such route: Google's HTML 404
        assert answer.headers["content-type"].startswith("text/html")
        return
    error = answer.json()["error"]
    assert error["code"] == status and error["message"] and error["status"]


def test_no_credential_is_refused(base_url: str) -> None:
    answer = httpx.get(f"{base_url}/v1beta/batches")
    assert answer.status_code == 403
    answer = httpx.post(f"{base_url}/v1beta/models/{MODEL}:batchGenerateContent", json=_GOOD)
    assert answer.status_code == 403


def test_a_schedule_needs_a_body(gemini_shared: Gemini) -> None:
    answer = gemini_shared.admin._http.put("/batches", headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "empty" in answer.json()["error"]["message"]


def _upload_lines(client: genai.Client, lines: list[bytes]) -> types.File:
    data = io.BytesIO(b"".join(line + b"\n" for line in lines))
    return client.files.upload(file=data, config={"mime_type": "application/jsonl", "display_name": "requests"})


def test_file_batch_to_completion_with_the_result_file_downloaded(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    gemini_shared.script(
        {"match": {"text": "capital"}, "text": "Paris."}, {"match": {"text": "fail"}, "error": "internal"}
    )
    lines = [
        json.dumps({"key": "q1", "request": {"contents": [{"parts": [{"text": "The capital of France?"}]}]}}).encode(),
        json.dumps(
            {"key": "q2", "request": {"contents": [{"role": "user", "parts": [{"text": "Why is the sky blue?"}]}]}}
        ).encode(),
        json.dumps({"key": "q3", "request": {"contents": [{"parts": [{"text": "this should fail"}]}]}}).encode(),
        b"not json",
    ]
    uploaded = _upload_lines(client, lines)
    job = client.batches.create(model=MODEL, src=uploaded.name, config={"display_name": "from a file"})
    done, _ = _until_done(client, job.name)
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED
    assert done.dest.file_name and done.dest.file_name.startswith("files/")
    meta = client.files.get(name=done.dest.file_name)
    assert meta.mime_type == "application/jsonl" and meta.source == types.FileSource.GENERATED
    results = [json.loads(line) for line in client.files.download(file=done.dest.file_name).splitlines()]
    assert [r.get("key") for r in results] == ["q1", "q2", "q3", None]
    assert results[0]["response"]["candidates"][0]["content"]["parts"][0]["text"] == "Paris."
    direct = client.models.generate_content(model=MODEL, contents="Why is the sky blue?")
    assert results[1]["response"]["candidates"][0]["content"]["parts"][0]["text"] == direct.text
    assert results[2]["error"]["code"] == 13 and "response" not in results[2]
    assert results[3]["error"]["code"] == 3
    raw = httpx.get(f"{gemini_shared.url}/v1beta/{job.name}", headers={"x-goog-api-key": gemini_shared.api_key})
    body = raw.json()
    assert body["metadata"]["output"] == {"responsesFile": done.dest.file_name}
    assert body["metadata"]["batchStats"] == {
        "requestCount": "4",
        "successfulRequestCount": "2",
        "failedRequestCount": "2",
    }


def test_batch_mode_as_the_batch_guide_writes_it(gemini_shared: Gemini) -> None:
    """issue 30: Google's batch guide uploads with `mime_type="jsonl"` (400 "Invalid mime type: jsonl" before),
    then creates the job from the file's name; the results download as JSONL."""
    client = gemini_shared.client
    gemini_shared.script({"match": {"text": "guide"}, "text": "As the guide says."})
    line = json.dumps({"key": "g1", "request": {"contents": [{"parts": [{"text": "the batch guide"}]}]}})
    uploaded = client.files.upload(file=io.BytesIO(line.encode() + b"\n"), config={"mime_type": "jsonl"})
    assert uploaded.name
    job = client.batches.create(model=MODEL, src=uploaded.name)
    done, _ = _until_done(client, job.name)
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED and done.dest.file_name
    (result,) = [json.loads(x) for x in client.files.download(file=done.dest.file_name).splitlines()]
    assert result["key"] == "g1"
    assert result["response"]["candidates"][0]["content"]["parts"][0]["text"] == "As the guide says."


def test_async_file_batch(gemini_shared: Gemini) -> None:
    line = json.dumps({"key": "only", "request": {"contents": [{"parts": [{"text": "Say hello"}]}]}}).encode()

    async def run() -> None:
        client = gemini_shared.client.aio
        data = io.BytesIO(line + b"\n")
        uploaded = await client.files.upload(file=data, config={"mime_type": "application/jsonl"})
        job = await client.batches.create(model=MODEL, src=uploaded.name)
        deadline = time.monotonic() + 5
        while not (job := await client.batches.get(name=job.name)).done:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        got = await client.files.download(file=job.dest.file_name)
        answer = json.loads(got)
        assert answer["key"] == "only" and answer["response"]["candidates"][0]["content"]["parts"][0]["text"]

    asyncio.run(run())


def test_an_unknown_or_other_keys_input_file_is_refused(gemini_shared: Gemini, base_url: str) -> None:
    client = gemini_shared.client
    with pytest.raises(errors.ClientError) as caught:
        client.batches.create(model=MODEL, src="files/nosuchfile")
    assert caught.value.code == 403
    uploaded = _upload_lines(client, [b'{"key": "a", "request": {"contents": "x"}}'])
    other = genai.Client(api_key="batch-file-other", http_options=types.HttpOptions(base_url=base_url))
    with pytest.raises(errors.ClientError) as caught:
        other.batches.create(model=MODEL, src=uploaded.name)
    assert caught.value.code == 403 and "You do not have permission to access the File" in caught.value.message


def test_an_input_file_deleted_before_the_job_runs_fails_it(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    gemini_shared.batch_schedule(pendingMs=0, hold=True)
    uploaded = _upload_lines(client, [b'{"key": "a", "request": {"contents": [{"parts": [{"text": "x"}]}]}}'])
    job = client.batches.create(model=MODEL, src=uploaded.name)
    client.files.delete(name=uploaded.name)
    gemini_shared.batch_schedule()  # release the hold
    done, _ = _until_done(client, job.name)
    assert done.state == types.JobState.JOB_STATE_FAILED


def test_the_operations_listing_shows_batches_as_last_read(gemini_shared: Gemini) -> None:
    job = gemini_shared.client.batches.create(model=MODEL, src=[{"contents": "Hi"}], config={"display_name": "seen"})
    headers = {"x-goog-api-key": gemini_shared.api_key}
    listed = httpx.get(f"{gemini_shared.url}/v1beta/operations", headers=headers).json()["operations"]
    assert [(o["name"], o["metadata"]["displayName"]) for o in listed] == [(job.name, "seen")]


def test_batch_input_uploaded_as_the_batch_documentation_writes_it(gemini_shared: Gemini) -> None:
    """Google's batch guide uploads its requests with `mime_type="jsonl"`, a bare token, and the batch runs."""
    client = gemini_shared.client
    line = json.dumps({"key": "doc", "request": {"contents": [{"parts": [{"text": "hi"}]}]}}).encode()
    uploaded = client.files.upload(file=io.BytesIO(line + b"\n"), config={"mime_type": "jsonl"})
    assert uploaded.mime_type == "jsonl"
    job = client.batches.create(model=MODEL, src=uploaded.name)
    done, _ = _until_done(client, str(job.name))
    assert done.state == types.JobState.JOB_STATE_SUCCEEDED
