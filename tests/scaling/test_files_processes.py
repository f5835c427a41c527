"""Files across processes: two `gemini-emulator serve --store redis://...` processes on their own ports, one
redis-server (tests/scaling/conftest.py). google-genai's resumable upload of 17 MiB (three chunks of at most
8 MiB) sent alternately to each process, then read, listed, downloaded and deleted through the other; two
processes racing a chunk at one offset (one appends, the other gets the 400 that leaves the session active); a
file uploaded through one named in a generate call and a batch's input file through the other; an upload that
goes on through the other process when the first is killed."""

from __future__ import annotations

import base64
import hashlib
import io
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from google import genai
from google.genai import types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

MODEL = "gemini-2.5-flash"
MiB = 1 << 20


class Alternating(httpx.HTTPTransport):
    """Sends each follow-up of a resumable upload (its URL carries upload_id) to the next of `ports` in turn, as
    a proxy balancing requests without affinity would; everything else goes where it was addressed."""

    def __init__(self, ports: list[int]) -> None:
        super().__init__()
        self.ports, self.seen = ports, []  # type: ignore[var-annotated]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if "upload_id" in request.url.params:
            port = self.ports[len(self.seen) % len(self.ports)]
            self.seen.append((port, request.headers.get("x-goog-upload-command", "")))
            request.url = request.url.copy_with(port=port)
            request.headers["host"] = f"127.0.0.1:{port}"
        return super().handle_request(request)


def _client(url: str, http: httpx.Client | None = None) -> genai.Client:
    options = types.HttpOptions(base_url=url, httpx_client=http) if http else types.HttpOptions(base_url=url)
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=options)


def _port(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


@pytest.mark.slow
def test_a_resumable_upload_whose_chunks_land_on_different_replicas(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    data = hashlib.sha256(b"seed").digest() * (17 * MiB // 32)  # 17 MiB: chunks of 8, 8 and 1 MiB
    transport = Alternating([_port(a.url), _port(b.url)])
    with httpx.Client(transport=transport, timeout=60) as http:
        uploaded = _client(a.url, http).files.upload(
            file=io.BytesIO(data), config={"mime_type": "application/octet-stream", "display_name": "big"}
        )
    assert transport.seen == [
        (_port(a.url), "upload"),
        (_port(b.url), "upload"),
        (_port(a.url), "upload, finalize"),
    ]
    assert uploaded.size_bytes == len(data) and uploaded.display_name == "big"
    on_a, on_b = _client(a.url), _client(b.url)
    seen = on_b.files.get(name=uploaded.name or "")
    assert seen.sha256_hash == uploaded.sha256_hash and seen.size_bytes == len(data)
    expected = hashlib.sha256(data).hexdigest()
    assert base64.b64decode(seen.sha256_hash or "").decode() == expected  # hashed across the processes' chunks
    assert [f.name for f in on_a.files.list()] == [uploaded.name]
    assert on_b.files.download(file=uploaded.name or "") == data
    on_a.files.delete(name=uploaded.name or "")
    with pytest.raises(genai.errors.ClientError) as gone:
        on_b.files.get(name=uploaded.name or "")
    assert gone.value.code == 403


@pytest.mark.slow
def test_two_processes_racing_one_offset_one_wins(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    size = 4 * MiB
    start = httpx.post(
        a.url + "/upload/v1beta/files",
        headers=KEY
        | {
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
        },
        json={"file": {"mimeType": "application/octet-stream"}},
    )
    url = start.headers["x-goog-upload-url"]
    path = url.split(a.url, 1)[1]
    halves = {a.url: b"A" * (size // 2), b.url: b"B" * (size // 2)}
    answers: dict[str, httpx.Response] = {}
    ready = threading.Barrier(2)

    def send(base: str) -> None:
        with httpx.Client(timeout=60) as http:
            ready.wait(10)
            answers[base] = http.post(
                base + path,
                headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"},
                content=halves[base],
            )

    threads = [threading.Thread(target=send, args=(base,)) for base in halves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(r.status_code for r in answers.values())
    assert statuses == [200, 400], {k: (v.status_code, v.text[:200]) for k, v in answers.items()}
    winner = next(base for base, r in answers.items() if r.status_code == 200)
    loser = answers[a.url if winner == b.url else b.url]
    assert loser.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert loser.headers["x-goog-upload-status"] == "active"  # production's answer to a wrong offset
    assert answers[winner].headers["x-goog-upload-size-received"] == str(size // 2)
    query = httpx.post(b.url + path, headers={"X-Goog-Upload-Command": "query"})
    assert query.headers["x-goog-upload-size-received"] == str(size // 2)
    done = httpx.post(
        b.url + path,
        headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": str(size // 2)},
        content=b"C" * (size // 2),
        timeout=60,
    )
    assert done.status_code == 200, done.text[:300]
    name = done.json()["file"]["name"]
    body = httpx.get(f"{a.url}/v1beta/{name}:download", params={"alt": "media"}, headers=KEY, timeout=60).content
    assert body == halves[winner] + b"C" * (size // 2)


@pytest.mark.slow
def test_a_file_from_one_process_feeds_generate_and_a_batch_on_another(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    state = "/__emulator/files/state"
    httpx.put(b.url + state, json={"state": "PROCESSING"}, headers=KEY).raise_for_status()  # the next file, on B
    held = on_a.files.upload(file=io.BytesIO(b"held"), config={"mime_type": "text/plain"})  # made through A
    assert held.state == types.FileState.PROCESSING
    httpx.put(a.url + state, json={"name": held.name, "state": "ACTIVE"}, headers=KEY).raise_for_status()
    assert on_b.files.get(name=held.name or "").state == types.FileState.ACTIVE
    on_b.files.delete(name=held.name or "")
    notes = on_a.files.upload(file=io.BytesIO(b"some notes"), config={"mime_type": "text/plain"})
    reply = on_b.models.generate_content(
        model=MODEL, contents=[types.Part.from_uri(file_uri=notes.uri or "", mime_type="text/plain"), "?"]
    )
    assert f"the attached file {notes.name} (text/plain)" in (reply.text or "")
    with pytest.raises(genai.errors.ClientError) as unknown:
        on_b.models.generate_content(
            model=MODEL, contents=[types.Part.from_uri(file_uri=f"{b.url}/v1beta/files/nope", mime_type="text/plain")]
        )
    assert unknown.value.code == 403
    lines = b"".join(
        b'{"key": "k%d", "request": {"contents": [{"parts": [{"text": "q%d"}]}]}}\n' % (i, i) for i in range(3)
    )
    source = on_a.files.upload(file=io.BytesIO(lines), config={"mime_type": "application/jsonl"})
    httpx.put(a.url + "/__emulator/batches", json={"pendingMs": 0, "runningMs": 50}, headers=KEY).raise_for_status()
    job = on_b.batches.create(model=MODEL, src=source.name or "")
    deadline = time.monotonic() + 30
    while not (seen := on_a.batches.get(name=job.name or "")).done:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert seen.state == types.JobState.JOB_STATE_SUCCEEDED
    assert seen.dest is not None and seen.dest.file_name
    results = on_b.files.download(file=seen.dest.file_name)
    assert [line.count(b'"key"') for line in results.splitlines()] == [1, 1, 1]


@pytest.mark.slow
def test_an_upload_goes_on_through_another_process_when_its_first_dies(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    """A replica that dies loses no acknowledged chunk: the upload started and half sent through A goes on through
    B once A is killed (SIGKILL), and the file holds every byte."""
    a, b = serve(redis_url), serve(redis_url)
    data = bytes(range(256)) * (12 * 1024)  # 3 MiB
    start = httpx.post(
        a.url + "/upload/v1beta/files",
        headers=KEY | {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"},
        json={"file": {"mimeType": "application/octet-stream", "sizeBytes": len(data)}},
    )
    path = start.headers["x-goog-upload-url"].split(a.url, 1)[1]
    half = len(data) // 2
    first = httpx.post(
        a.url + path, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=data[:half]
    )
    assert first.status_code == 200 and first.headers["x-goog-upload-size-received"] == str(half)
    a.process.kill()
    a.process.wait(10)
    query = httpx.post(b.url + path, headers={"X-Goog-Upload-Command": "query"})
    assert query.headers["x-goog-upload-size-received"] == str(half)
    done = httpx.post(
        b.url + path,
        headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": str(half)},
        content=data[half:],
    )
    assert done.status_code == 200, done.text[:300]
    file = done.json()["file"]
    assert base64.b64decode(file["sha256Hash"]).decode() == hashlib.sha256(data).hexdigest()
    assert _client(b.url).files.download(file=file["name"]) == data
