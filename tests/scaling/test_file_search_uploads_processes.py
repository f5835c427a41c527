"""File search documents' resumable uploads across processes: two `gemini-emulator serve --store redis://...`
processes, one redis-server (tests/scaling/conftest.py). google-genai's `upload_to_file_search_store` whose chunks
alternate between the processes (as a proxy without affinity would send them) makes one document, found and
searched through either; a media document's bytes, fed through both, download whole through either; a
file search store's upload id is not a Files API session (nor the other way round) on Redis either; a Redis that
cannot be reached mid-upload is the 503 envelope with the upload front end's headers."""

from __future__ import annotations

import hashlib
import io
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from test_file_search_processes import _grounded
from test_files_processes import Alternating, _client, _port
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

MiB = 1 << 20
PARIS = b"Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris. "


def _upload(client: genai.Client, store: str, data: bytes, mime: str) -> types.UploadToFileSearchStoreOperation:
    return client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store, file=io.BytesIO(data), config={"mime_type": mime, "display_name": "across"}
    )


@pytest.mark.slow
def test_a_document_upload_whose_chunks_land_on_different_processes(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    store = str(on_a.file_search_stores.create(config={"display_name": "chunks"}).name)
    text = PARIS + b"filler words " * (17 * MiB // 13)  # 17 MiB: chunks of 8, 8 and 1 MiB
    transport = Alternating([_port(a.url), _port(b.url)])
    with httpx.Client(transport=transport, timeout=60) as http:
        op = _upload(_client(a.url, http), store, text, "text/plain")
    assert transport.seen == [
        (_port(a.url), "upload"),
        (_port(b.url), "upload"),
        (_port(a.url), "upload, finalize"),
    ]
    assert op.response is not None and op.response.document_name
    doc = on_b.file_search_stores.documents.get(name=op.response.document_name or "")
    assert doc.state == types.DocumentState.STATE_ACTIVE and doc.size_bytes == len(text)
    assert [d.name for d in on_a.file_search_stores.documents.list(parent=store)] == [doc.name]
    assert any("capital of France" in t for t in _grounded(on_b, store, "What is the capital of France?"))
    assert httpx.get(a.url + "/__emulator/resources?kind=files", headers=KEY).json()["resources"] == {"files": []}
    # the session's bytes were given back to the files' budget when the document was made
    assert serve_used(redis_url) == 0

    # a media document kept whole: its bytes, fed through both processes, download whole through either
    picture = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x20tEXtComment\x00a dog in a park\x00"
    picture += zlib.compress(hashlib.sha256(b"noise").digest() * (9 * MiB // 32), 0)  # 9 MiB: two chunks
    transport = Alternating([_port(b.url), _port(a.url)])
    with httpx.Client(transport=transport, timeout=60) as http:
        media_op = _upload(_client(b.url, http), store, picture, "image/png")
    assert [port for port, _ in transport.seen] == [_port(b.url), _port(a.url)]
    media_doc = on_a.file_search_stores.documents.get(name=media_op.response.document_name or "")  # type: ignore[union-attr]
    media_id = f"{store}/media/{(media_doc.name or '').rpartition('/')[2]}"
    for client in (on_a, on_b):
        assert client.file_search_stores.download_media(media_id=media_id) == picture


def serve_used(redis_url: str) -> int:
    """The Files API's byte count in Redis (uploads in progress included)."""
    import redis

    from gemini_emulator.stores.files_redis import PREFIX

    with redis.Redis.from_url(redis_url) as client:
        return int(client.get(PREFIX + "total") or 0)


def _start(base: str, path: str, size: int) -> httpx.Response:
    return httpx.post(
        base + path,
        headers=KEY
        | {
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
            "X-Goog-Upload-Header-Content-Type": "text/plain",
        },
        json={} if "fileSearchStores" in path else {"file": {"mimeType": "text/plain"}},
    )


@pytest.mark.slow
def test_a_document_session_is_not_a_files_session_across_processes(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a = _client(a.url)
    store = str(on_a.file_search_stores.create(config={"display_name": "kinds"}).name)
    doc_start = _start(a.url, f"/upload/v1beta/{store}:uploadToFileSearchStore", len(PARIS))
    file_start = _start(a.url, "/upload/v1beta/files", len(PARIS))
    doc_id, file_id = doc_start.headers["x-guploader-uploadid"], file_start.headers["x-guploader-uploadid"]
    finalize = {"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"}
    crossed = httpx.post(
        f"{b.url}/upload/v1beta/files?upload_id={doc_id}&upload_protocol=resumable", headers=finalize, content=PARIS
    )
    assert crossed.status_code == 404 and crossed.headers["x-goog-upload-status"] == "final"
    crossed = httpx.post(
        f"{b.url}/upload/v1beta/{store}:uploadToFileSearchStore?upload_id={file_id}&upload_protocol=resumable",
        headers=finalize,
        content=PARIS,
    )
    assert crossed.status_code == 404
    # both sessions are left as they were (not held by the mistaken requests): each finishes at once through B
    done = httpx.post(doc_start.headers["x-goog-upload-url"].replace(a.url, b.url), headers=finalize, content=PARIS)
    assert done.status_code == 200, done.text[:300]
    assert done.json()["response"]["sizeBytes"] == str(len(PARIS))
    done = httpx.post(file_start.headers["x-goog-upload-url"].replace(a.url, b.url), headers=finalize, content=PARIS)
    assert done.status_code == 200 and done.json()["file"]["sizeBytes"] == str(len(PARIS))


def test_redis_gone_mid_document_upload_is_the_503_with_the_upload_headers(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=server.url))
    try:
        client = _client(running.url)
        store = str(client.file_search_stores.create(config={"display_name": "gone"}).name)
        started = _start(running.url, f"/upload/v1beta/{store}:uploadToFileSearchStore", len(PARIS))
        assert started.status_code == 200
        url = started.headers["x-goog-upload-url"]
        server.stop()
        answer = httpx.post(url, headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"})
        assert answer.status_code == 503
        assert answer.json() == {
            "error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}
        }
        assert answer.headers["server"] == "UploadServer"
    finally:
        running.stop()
        server.stop()
