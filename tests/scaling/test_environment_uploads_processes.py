"""Environments' file uploads across processes: two `gemini-emulator serve --store redis://...` processes, one
redis-server (tests/scaling/conftest.py). The upload session is the Files API's in Redis (stores/files_redis.py,
kind environmentFile, an environment file's bound), so google-genai's `environments.files.upload` started through
one process is finalized through the other (as a proxy without affinity would send it), a raw upload's chunks,
query and finalize land on either, an archive fed through both unpacks, and the workspace is read through either;
an environment file's session is not a Files API session (nor the other way round); a Redis that cannot be reached
mid-upload is the 503 envelope with the upload front end's headers."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_file_search_uploads_processes import serve_used
from test_files_processes import Alternating, _client, _port
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

UNAVAILABLE = {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}}


def _start(base: str, env_id: str, path: str, size: int, query: str = "") -> httpx.Response:
    answer = httpx.put(
        f"{base}/upload/v1beta/environments/{env_id}/files/{path}{query}",
        headers=KEY
        | {
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
            "X-Goog-Upload-Header-Content-Type": "text/plain",
        },
        timeout=10,
    )
    assert answer.status_code == 200, answer.text[:300]
    return answer


def _on(url: str, base: str) -> str:
    """The upload URL one process answered, sent to the process at `base` instead."""
    port = url.split("://", 1)[1].split("/", 1)[0]
    return url.replace(port, base.split("://", 1)[1], 1)


@pytest.mark.slow
def test_an_environment_upload_whose_requests_land_on_different_processes(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    env = on_a.environments.create()
    # google-genai's upload: started through A, its follow-up sent to B
    transport = Alternating([_port(b.url)])
    with httpx.Client(transport=transport, timeout=60) as http:
        uploaded = _client(a.url, http).environments.files.upload(
            environment=env.id, path="src/util.py", file=io.BytesIO(b"print('hi')\n")
        )
    assert [port for port, _ in transport.seen] == [_port(b.url)]
    assert uploaded.files and uploaded.files[0].path == "src/util.py" and uploaded.files[0].size_bytes == 12
    assert on_a.environments.files.download(environment=env.id, path="src/util.py") == b"print('hi')\n"

    # a raw upload: started through B, a chunk through A, a query through B, the last chunk finalized through A
    first, last = b"a" * (3 << 20), b"b" * (2 << 20)
    started = _start(b.url, str(env.id), "data/blob.txt", len(first) + len(last))
    url = started.headers["x-goog-upload-url"]
    chunk = httpx.post(
        _on(url, a.url), headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=first
    )
    assert chunk.status_code == 200 and chunk.headers["x-goog-upload-status"] == "active", chunk.text[:300]
    asked = httpx.post(_on(url, b.url), headers={"X-Goog-Upload-Command": "query"})
    assert asked.headers["x-goog-upload-size-received"] == str(len(first))
    finalize = {"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": str(len(first))}
    done = httpx.post(_on(url, a.url), headers=finalize, content=last, timeout=30)
    assert done.status_code == 200, done.text[:300]
    assert done.json()["file"]["path"] == "data/blob.txt" and done.json()["file"]["size_bytes"] == str(5 << 20)
    assert on_b.environments.files.download(environment=env.id, path="data/blob.txt") == first + last
    assert serve_used(redis_url) == 0  # the sessions' bytes given back to the files' budget

    # an archive unpacked: started through A, finalized through B; its files listed through A
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as archive:
        for name, data in (("a.txt", b"alpha"), ("sub/b.txt", b"beta")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    started = _start(a.url, str(env.id), "site", len(packed.getvalue()), "?extract=true")
    finalize = {"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"}
    done = httpx.post(_on(started.headers["x-goog-upload-url"], b.url), headers=finalize, content=packed.getvalue())
    assert done.status_code == 200, done.text[:300]
    assert [f["path"] for f in done.json()["files"]] == ["site/a.txt", "site/sub/b.txt"]
    assert on_a.environments.files.download(environment=env.id, path="site/sub/b.txt") == b"beta"
    assert on_b.environments.get(id=env.id).file_count == 4


@pytest.mark.slow
def test_an_environment_session_is_not_a_files_session_across_processes(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a = _client(a.url)  # kept: google-genai closes its HTTP client with the Client
    env = on_a.environments.create()
    started = _start(a.url, str(env.id), "notes.txt", 5)
    upload_id = started.headers["x-guploader-uploadid"]
    finalize = {"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"}
    files_url = f"{b.url}/upload/v1beta/files?upload_id={upload_id}&upload_protocol=resumable"
    crossed = httpx.post(files_url, headers=finalize, content=b"hello")
    assert crossed.status_code == 404 and crossed.headers["x-goog-upload-status"] == "final"
    # left as it was (not held by the mistaken request): it finishes through B
    done = httpx.post(_on(started.headers["x-goog-upload-url"], b.url), headers=finalize, content=b"hello")
    assert done.status_code == 200 and done.json()["file"]["size_bytes"] == "5", done.text[:300]


def test_redis_gone_mid_environment_upload_is_the_503_with_the_upload_headers(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=server.url))
    try:
        client = _client(running.url)
        env = client.environments.create()
        started = _start(running.url, str(env.id), "notes.txt", 5)
        server.stop()
        finalize = {"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"}
        answer = httpx.post(started.headers["x-goog-upload-url"], headers=finalize, content=b"hello", timeout=10)
        assert answer.status_code == 503 and answer.json() == UNAVAILABLE
        assert answer.headers["server"] == "UploadServer"
    finally:
        running.stop()
        server.stop()
