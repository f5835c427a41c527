"""Veo with google-genai 3.6.1 on Vertex AI (generate_videos, operations.get through fetchPredictOperation) and over
REST on the Developer API (predictLongRunning, GET operations/{id}, the video downloaded through the Files API).
Every video's container is checked (ftyp, moov with its duration and size, mdat)."""

from __future__ import annotations

import struct
import time
import warnings

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.media import video
from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "veo-3.0-generate-001"
warnings.filterwarnings("ignore", message="The generate_videos method")


def _vertex(base_url: str, token: str) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=token),
        http_options=types.HttpOptions(base_url=base_url),
    )


def _shape(data: bytes) -> tuple[int, int, float]:
    """(width, height, seconds) of an MP4 the emulator wrote: mvhd's duration, tkhd's size."""
    boxes = video.boxes(data)
    assert list(boxes) == ["ftyp", "moov", "mdat"] and boxes["ftyp"].startswith(b"isom")
    moov = boxes["moov"]
    mvhd = moov[moov.index(b"mvhd") + 4 :]
    timescale, duration = struct.unpack(">II", mvhd[12:20])
    tkhd = moov[moov.index(b"tkhd") + 4 :]
    width, height = struct.unpack(">II", tkhd[76:84])
    return width >> 16, height >> 16, duration / timescale


def _wait(client: genai.Client, op: types.GenerateVideosOperation) -> types.GenerateVideosOperation:
    deadline = time.monotonic() + 10
    while not op.done and time.monotonic() < deadline:
        op = client.operations.get(op)
    return op


def test_vertex_generate_videos_polls_to_inline_mp4s(gemini_shared: Gemini, base_url: str) -> None:
    client = _vertex(base_url, gemini_shared.api_key)
    config = types.GenerateVideosConfig(number_of_videos=2, duration_seconds=6, aspect_ratio="9:16")
    op = client.models.generate_videos(model=MODEL, prompt="A cat surfing at sunset", config=config)
    assert op.name.startswith("projects/demo-project/locations/us-central1/publishers/google/models/")
    assert not op.done
    op = _wait(client, op)
    assert op.done and op.error is None
    clips = [g.video.video_bytes for g in op.response.generated_videos]
    assert len(clips) == 2 and clips[0] != clips[1]
    assert all(_shape(c) == (720, 1280, 6.0) for c in clips)
    assert [c.rpc for c in gemini_shared.journal(model=MODEL)][:1] == ["predictLongRunning"]


def test_script_holds_fails_and_filters(gemini_shared: Gemini, base_url: str) -> None:
    client = _vertex(base_url, gemini_shared.api_key)
    gemini_shared.script(
        {"match": {"text": "slow"}, "text": "ok", "delayMs": 3000},
        {"match": {"text": "broken"}, "error": {"code": 400, "message": "Veo refused this prompt"}},
        {"match": {"text": "unsafe"}, "blockReason": "SAFETY"},
    )
    slow = client.models.generate_videos(model=MODEL, prompt="a slow one")
    time.sleep(0.8)  # past the default delay (0.5 s), well inside the script's 3 s: still pending
    assert not client.operations.get(slow).done
    assert _wait(client, slow).done
    failed = _wait(client, client.models.generate_videos(model=MODEL, prompt="a broken one"))
    assert failed.done and failed.error["message"] == "Veo refused this prompt"
    filtered = _wait(client, client.models.generate_videos(model=MODEL, prompt="an unsafe one"))
    assert filtered.response.rai_media_filtered_count == 1 and not filtered.response.generated_videos


def test_developer_rest_video_is_a_downloadable_file(gemini_shared: Gemini) -> None:
    headers = {"x-goog-api-key": gemini_shared.api_key}
    url = gemini_shared.url
    body = {"instances": [{"prompt": "a dog on a skateboard"}], "parameters": {"resolution": "1080p"}}
    started = httpx.post(f"{url}/v1beta/models/{MODEL}:predictLongRunning", json=body, headers=headers)
    assert started.status_code == 200 and list(started.json()) == ["name"]
    name = started.json()["name"]
    assert name.startswith(f"models/{MODEL}/operations/")
    deadline = time.monotonic() + 10
    current = httpx.get(f"{url}/v1beta/{name}", headers=headers).json()
    while not current.get("done") and time.monotonic() < deadline:
        current = httpx.get(f"{url}/v1beta/{name}", headers=headers).json()
    response = current["response"]
    assert response["@type"].endswith("PredictLongRunningResponse")
    (sample,) = response["generateVideoResponse"]["generatedSamples"]
    download = httpx.get(sample["video"]["uri"], headers=headers)
    assert download.status_code == 200 and download.headers["content-type"] == "video/mp4"
    assert _shape(download.content) == (1920, 1080, 8.0)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"instances": [{"prompt": "x"}], "bogus": 1}, 'Unknown name "bogus"'),
        ({"instances": [{"prompt": "x"}], "parameters": {"durationSeconds": 30}}, "durationSeconds"),
        ({"instances": [{"prompt": "x"}], "parameters": {"aspectRatio": "1:1"}}, "aspect ratio"),
        ({"instances": [{"prompt": ""}]}, "prompt"),
    ],
)
def test_bad_bodies(http: httpx.Client, body: dict[str, object], words: str) -> None:
    resp = http.post(f"/v1beta/models/{MODEL}:predictLongRunning", json=body, headers={"x-goog-api-key": "k"})
    assert resp.status_code == 400 and words in resp.json()["error"]["message"]


def test_fetch_of_an_unknown_operation_and_other_models(http: httpx.Client) -> None:
    path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}:fetchPredictOperation"
    missing = http.post(path, json={"operationName": "nope"}, headers={"authorization": "Bearer t"})
    assert missing.status_code == 404
    text_model = http.post(
        "/v1beta/models/imagen-4.0-generate-001:predictLongRunning",
        json={"instances": [{"prompt": "x"}]},
        headers={"x-goog-api-key": "k"},
    )
    assert text_model.status_code == 404
    assert "is not supported for predictLongRunning" in text_model.json()["error"]["message"]
