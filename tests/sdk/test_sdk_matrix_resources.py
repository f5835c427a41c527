"""The resources table of docs/sdk-matrix.md for google-genai (Python): Files API upload, use and delete, a cached
content created and used, a batch job to completion, on the Developer API (v1beta: the resources are v1beta's) and
Vertex AI (caches and batch prediction jobs; the SDK's Files API is the Developer API's). Each test is one cell
(tests/sdk_matrix.py) and stands alone: what it needs (a file, a cache) it makes itself."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass

import pytest
from google import genai
from google.genai import errors, types
from test_sdk_matrix_genai import VARIANTS

from gemini_emulator.testing.pytest_plugin import Gemini

from sdk_matrix import MODEL, PROMPTS, cache_text, skip_resource_pending

LABELS = ["google-genai (Python, Developer v1beta)", "google-genai (Python, Vertex)"]
DEVELOPER_ONLY = "google-genai (Python, Developer v1beta)"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


@dataclass
class Sdk:
    client: genai.Client
    gemini: Gemini
    vertex: bool


@pytest.fixture(params=LABELS, ids=LABELS)
def sdk(request: pytest.FixtureRequest, gemini_shared: Gemini) -> Sdk:
    skip_resource_pending(request)
    make, _ = VARIANTS[request.param]
    return Sdk(make(gemini_shared.url, gemini_shared.api_key), gemini_shared, "Vertex" in request.param)


@pytest.fixture(params=[DEVELOPER_ONLY], ids=[DEVELOPER_ONLY])
def developer(request: pytest.FixtureRequest, gemini_shared: Gemini) -> Sdk:
    skip_resource_pending(request)
    make, _ = VARIANTS[request.param]
    return Sdk(make(gemini_shared.url, gemini_shared.api_key), gemini_shared, False)


def _upload(sdk: Sdk) -> types.File:
    return sdk.client.files.upload(file=io.BytesIO(PNG), config={"mime_type": "image/png", "display_name": "dots"})


def test_files_upload(developer: Sdk) -> None:
    file = _upload(developer)
    assert file.name and file.name.startswith("files/") and file.state == types.FileState.ACTIVE
    assert file.size_bytes == len(PNG) and file.mime_type == "image/png" and file.display_name == "dots"
    start, finish = developer.gemini.journal(rpc="files.upload")  # the resumable start, then upload + finalize
    assert start.record["headers"]["x-goog-upload-command"] == "start"
    assert finish.record["headers"]["x-goog-upload-command"] == "upload, finalize"


def test_files_use(developer: Sdk) -> None:
    file = _upload(developer)
    assert file.uri and file.mime_type
    answer = developer.client.models.generate_content(
        model=MODEL, contents=[types.Part.from_uri(file_uri=file.uri, mime_type=file.mime_type), PROMPTS["describe"]]
    )
    assert f"the attached file {file.name} (image/png)" in (answer.text or "")
    sent = developer.gemini.journal(rpc="generateContent").last.contents[-1]["parts"][0]["fileData"]
    assert (sent.get("fileUri") or sent.get("file_uri")) == file.uri  # as sent: proto JSON takes either spelling


def test_files_delete(developer: Sdk) -> None:
    file = _upload(developer)
    assert file.name
    developer.client.files.delete(name=file.name)
    with pytest.raises(errors.ClientError) as gone:
        developer.client.files.get(name=file.name)
    assert gone.value.code == 403 and "You do not have permission to access the File" in str(gone.value.message)
    assert [c.rpc for c in developer.gemini.journal()][-2:] == ["files.delete", "files.get"]


def _cache(sdk: Sdk) -> types.CachedContent:
    return sdk.client.caches.create(
        model=MODEL, config=types.CreateCachedContentConfig(contents=[cache_text()], ttl="120s")
    )


def test_cache_create(sdk: Sdk) -> None:
    cache = _cache(sdk)
    assert cache.name and "cachedContents/" in cache.name
    assert cache.usage_metadata and (cache.usage_metadata.total_token_count or 0) > 1024
    [created] = sdk.gemini.journal(rpc="cachedContents.create")
    assert created.body["contents"][0]["parts"][0]["text"] == cache_text()


def test_cache_use(sdk: Sdk) -> None:
    cache = _cache(sdk)
    assert cache.name and cache.usage_metadata
    answer = sdk.client.models.generate_content(
        model=MODEL, contents=PROMPTS["cached"], config=types.GenerateContentConfig(cached_content=cache.name)
    )
    assert answer.usage_metadata and answer.usage_metadata.cached_content_token_count
    assert answer.usage_metadata.cached_content_token_count == cache.usage_metadata.total_token_count
    assert sdk.gemini.journal(rpc="generateContent").last.body["cachedContent"] == cache.name


def test_batches(sdk: Sdk) -> None:
    """Developer: an inlined batch answered by the engine; Vertex: a Cloud Storage job walking its schedule (the
    emulator reads no bucket: docs/conformance.md)."""
    if sdk.vertex:
        job = sdk.client.batches.create(model=MODEL, src="gs://bucket/in.jsonl", config={"dest": "gs://bucket/out"})
    else:
        job = sdk.client.batches.create(model=MODEL, src=[{"contents": PROMPTS["text"]}])
    assert job.name
    deadline = time.monotonic() + 10
    while not (job := sdk.client.batches.get(name=job.name or "")).done:
        assert time.monotonic() < deadline, job.state
        time.sleep(0.02)
    assert job.state == types.JobState.JOB_STATE_SUCCEEDED
    if sdk.vertex:
        assert job.dest and job.dest.gcs_uri == "gs://bucket/out"
        assert len(sdk.gemini.journal(rpc="batchPredictionJobs.create")) == 1
        return
    assert job.dest and job.dest.inlined_responses
    [item] = job.dest.inlined_responses
    assert item.response and item.response.text
