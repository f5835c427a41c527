"""The Files room over a real socket: google-genai 3.6.1's upload (resumable), get, list with paging, delete and
download, sync and async; the resumable protocol by hand (two chunks, wrong offsets, query, cancel); the multipart
and raw forms; per-key isolation; states set through the admin API; the byte budget; bad uploads' envelopes."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import time

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.config import Settings
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import start

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def _hash(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).hexdigest().encode()).decode()


def test_sdk_upload_get_list_download_delete(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    uploaded = client.files.upload(file=io.BytesIO(PNG), config={"mime_type": "image/png", "display_name": "Dots"})
    assert uploaded.name.startswith("files/") and uploaded.display_name == "Dots"
    assert uploaded.size_bytes == len(PNG) and uploaded.mime_type == "image/png"
    assert uploaded.sha256_hash == _hash(PNG)
    assert uploaded.state == types.FileState.ACTIVE and uploaded.source == types.FileSource.UPLOADED
    assert uploaded.uri == f"{gemini_shared.url}/v1beta/{uploaded.name}"
    assert (uploaded.expiration_time - uploaded.create_time).total_seconds() == pytest.approx(48 * 3600, abs=1)
    assert client.files.get(name=uploaded.name) == uploaded
    assert [f.name for f in client.files.list()] == [uploaded.name]
    assert client.files.download(file=uploaded.name) == PNG
    client.files.delete(name=uploaded.name)
    with pytest.raises(errors.ClientError) as gone:
        client.files.get(name=uploaded.name)
    assert gone.value.code == 403
    assert gone.value.message == (
        f"You do not have permission to access the File {uploaded.name.removeprefix('files/')} or it may not exist."
    )
    records = gemini_shared.journal()
    uploads = [r for r in records if r.rpc == "files.upload"]
    assert len(uploads) == 2  # start, then upload + finalize
    assert uploads[1].body == {"upload": {"bytes": len(PNG), "sha256": hashlib.sha256(PNG).hexdigest()}}
    assert all("\\x89PNG" not in json.dumps(r.record) and "PNG" not in str(r.body) for r in uploads)


def test_sdk_async_upload_and_list_pages(gemini_shared: Gemini) -> None:
    async def run() -> tuple[list[str], list[str]]:
        aio = gemini_shared.client.aio
        made = []
        for i in range(5):
            f = await aio.files.upload(file=io.BytesIO(b"n%d" % i), config={"mime_type": "text/plain"})
            made.append(f.name)
        pager = await aio.files.list(config={"page_size": 2})
        seen = [f.name async for f in pager]
        return made, seen

    made, seen = asyncio.run(run())
    assert seen == made[::-1]  # newest first, across three pages
    key = {"x-goog-api-key": gemini_shared.api_key}
    first = httpx.get(f"{gemini_shared.url}/v1beta/files", params={"pageSize": 2}, headers=key).json()
    assert len(first["files"]) == 2 and first["nextPageToken"]


def test_sdk_upload_from_a_path_in_chunks(gemini_shared: Gemini, tmp_path, monkeypatch) -> None:
    from google.genai import _api_client

    monkeypatch.setattr(_api_client, "CHUNK_SIZE", 1000)  # the SDK sends 8 MiB chunks; three small ones here
    data = bytes(range(256)) * 10
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    uploaded = gemini_shared.client.files.upload(file=path, config={"mime_type": "application/octet-stream"})
    assert uploaded.size_bytes == len(data)
    assert gemini_shared.client.files.download(file=uploaded.name) == data
    commands = [r.record["headers"].get("x-goog-upload-command") for r in gemini_shared.journal(rpc="files.upload")]
    assert commands == ["start", "upload", "upload", "upload, finalize"]


def _start(http: httpx.Client, size: int, mime: str = "text/plain", **file: object) -> str:
    answer = http.post(
        "/upload/v1beta/files",
        headers={
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
            "X-Goog-Upload-Header-Content-Type": mime,
        },
        json={"file": {"mimeType": mime, "sizeBytes": size, **file}},
    )
    assert answer.status_code == 200, answer.text
    assert answer.content == b"" and answer.headers["content-type"] == "text/plain; charset=utf-8"
    assert answer.headers["x-goog-upload-status"] == "active"
    assert answer.headers["x-goog-upload-chunk-granularity"] == "8388608"
    return answer.headers["x-goog-upload-url"]


def test_resumable_by_hand_two_chunks_and_wrong_offsets(gemini_shared: Gemini) -> None:
    data = b"first half|second half"
    with httpx.Client(base_url=gemini_shared.url, headers={"x-goog-api-key": gemini_shared.api_key}) as http:
        url = _start(http, len(data), displayName="notes")
    assert url.startswith(gemini_shared.url + "/upload/v1beta/files?upload_id=")
    assert url.endswith("&upload_protocol=resumable")
    with httpx.Client() as bare:  # the follow-ups carry no key, as the SDK sends them
        one = bare.post(
            url, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=data[:11]
        )
        assert one.status_code == 200 and one.headers["x-goog-upload-status"] == "active"
        assert one.headers["x-goog-upload-size-received"] == "11"
        wrong = bare.post(url, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=b"x")
        assert wrong.status_code == 400 and wrong.json()["error"]["status"] == "INVALID_ARGUMENT"
        assert wrong.headers["x-goog-upload-status"] == "active"  # the session survives a wrong offset
        ahead = bare.post(url, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "99"}, content=b"x")
        assert ahead.status_code == 400 and ahead.headers["x-goog-upload-size-received"] == "11"
        query = bare.post(url, headers={"X-Goog-Upload-Command": "query"})
        assert query.headers["x-goog-upload-size-received"] == "11"
        done = bare.post(
            url, headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "11"}, content=data[11:]
        )
        assert done.status_code == 200 and done.headers["x-goog-upload-status"] == "final"
        assert done.headers["content-type"] == "application/json; charset=UTF-8"
        assert done.text.startswith('{\n  "file": {\n    "name": "files/')
        file = done.json()["file"]
        assert (file["displayName"], file["sizeBytes"], file["sha256Hash"]) == ("notes", str(len(data)), _hash(data))
        again = bare.post(url, headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "22"})
        assert again.status_code == 404 and again.headers["x-goog-upload-status"] == "final"
    continued = [r for r in gemini_shared.journal(rpc="files.upload") if "upload_id" in r.record["query"]]
    assert len(continued) == 5 and {r.record["query"]["upload_id"] for r in continued} == {"REDACTED"}
    assert url.split("upload_id=")[1].split("&")[0] not in json.dumps([r.record for r in gemini_shared.journal()])
    key = {"x-goog-api-key": gemini_shared.api_key}
    download = httpx.get(f"{gemini_shared.url}/v1beta/{file['name']}:download", params={"alt": "media"}, headers=key)
    assert download.content == data and download.headers["content-type"] == "text/plain"


def test_upload_urls_follow_a_proxys_scheme_and_host() -> None:
    """Behind a TLS-terminating proxy (X-Forwarded-Proto, the proxy's Host, named in --allowed-hosts) the upload URL
    points at the proxy: the room reads the header itself (uvicorn's X-Forwarded-* middleware is off, emulator/cli.py).
    """
    running = start(Settings(port=0, allowed_hosts="Gemini.example, other.example"))
    try:
        headers = {"x-goog-api-key": "k", "x-forwarded-proto": "https", "host": "gemini.example:8443"}
        with httpx.Client(base_url=running.url, headers=headers) as http:
            url = _start(http, 3)
            assert http.get("/v1beta/files", headers={"host": "elsewhere.example"}).status_code == 403
        assert url.startswith("https://gemini.example:8443/upload/v1beta/files?upload_id=")
    finally:
        running.stop()


def test_resumable_size_mismatch_and_cancel(gemini_shared: Gemini) -> None:
    held = gemini_shared.server.context.files.used  # the session's server: other tests' files may be held
    with httpx.Client(base_url=gemini_shared.url, headers={"x-goog-api-key": gemini_shared.api_key}) as http:
        short = _start(http, 10)
        answer = http.post(
            short, headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"}, content=b"abc"
        )
        assert answer.status_code == 400 and answer.headers["x-goog-upload-status"] == "final"
        over = _start(http, 2)
        answer = http.post(
            over, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, content=b"abc"
        )
        assert answer.status_code == 400 and answer.headers["x-goog-upload-status"] == "final"
        cancelled = _start(http, 5)
        assert http.post(cancelled, headers={"X-Goog-Upload-Command": "cancel"}).headers["x-goog-upload-status"] == (
            "cancelled"
        )
        assert http.get("/v1beta/files").json() == {}
    assert gemini_shared.server.context.files.used == held  # nothing of this test's left held


def test_multipart_and_raw_uploads(gemini_shared: Gemini) -> None:
    key = {"x-goog-api-key": gemini_shared.api_key}
    meta = json.dumps({"file": {"displayName": "multi", "mimeType": "image/png"}}).encode()
    body = (
        b"--XyZ\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n"
        + meta
        + b"\r\n--XyZ\r\nContent-Type: image/png\r\n\r\n"
        + PNG
        + b"\r\n--XyZ--\r\n"
    )
    with httpx.Client(base_url=gemini_shared.url, headers=key) as http:
        multi = http.post(
            "/upload/v1beta/files",
            headers={"X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=XyZ"},
            content=body,
        )
        assert multi.status_code == 200, multi.text
        assert multi.json()["file"]["displayName"] == "multi" and multi.json()["file"]["sha256Hash"] == _hash(PNG)
        raw = http.post(
            "/upload/v1beta/files",
            params={"uploadType": "media"},
            headers={"Content-Type": "audio/wav"},
            content=b"RIFF",
        )
        assert raw.status_code == 200 and raw.json()["file"]["mimeType"] == "audio/wav"
        assert raw.json()["file"]["sizeBytes"] == "4"
        named = http.post(
            "/upload/v1beta/files",
            headers={"X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=XyZ"},
            content=body.replace(b'"displayName": "multi"', b'"name": "files/my-chosen-id"'),
        )
        assert named.json()["file"]["name"] == "files/my-chosen-id"
        taken = http.post(
            "/upload/v1beta/files",
            headers={"X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=XyZ"},
            content=body.replace(b'"displayName": "multi"', b'"name": "files/my-chosen-id"'),
        )
        assert taken.status_code == 409 and taken.json()["error"]["status"] == "ALREADY_EXISTS"


def test_another_key_gets_production_403_everywhere(gemini_shared: Gemini) -> None:
    mine = gemini_shared.client.files.upload(file=io.BytesIO(b"secret"), config={"mime_type": "text/plain"})
    other = genai.Client(api_key="another-key", http_options=types.HttpOptions(base_url=gemini_shared.url))
    for attempt in (
        lambda: other.files.get(name=mine.name),
        lambda: other.files.delete(name=mine.name),
        lambda: other.files.download(file=mine.name),
    ):
        with pytest.raises(errors.ClientError) as refused:
            attempt()
        assert refused.value.code == 403 and refused.value.status == "PERMISSION_DENIED"
    assert list(other.files.list()) == []
    assert gemini_shared.client.files.get(name=mine.name).name == mine.name


def test_states_set_through_the_admin_api(gemini_shared: Gemini) -> None:
    admin = httpx.Client(base_url=gemini_shared.url + "/__emulator", headers={"x-goog-api-key": gemini_shared.api_key})
    assert admin.put("/files/state", json={"state": "PROCESSING"}).status_code == 200  # the next upload
    held = gemini_shared.client.files.upload(file=io.BytesIO(b"a"), config={"mime_type": "text/plain"})
    assert held.state == types.FileState.PROCESSING
    failed = admin.put(
        "/files/state", json={"name": held.name, "state": "FAILED", "error": {"code": 3, "message": "bad input"}}
    )
    assert failed.status_code == 200
    seen = gemini_shared.client.files.get(name=held.name)
    assert seen.state == types.FileState.FAILED and seen.error.message == "bad input"
    assert admin.put("/files/state", json={"name": "files/nope", "state": "ACTIVE"}).status_code == 404
    assert admin.put("/files/state", json={"state": "DONE"}).status_code == 400
    listed = admin.get("/resources", params={"kind": "files"}).json()["resources"]["files"]
    assert [(f["name"], f["sizeBytes"], f["state"]) for f in listed] == [(held.name, 1, "FAILED")]
    assert admin.delete("/resources", params={"name": held.name}).status_code == 200
    assert gemini_shared.server.context.files.get(listed[0]["namespace"], held.name) is None
    admin.close()


def test_a_video_is_processing_then_active(gemini_shared: Gemini) -> None:
    video = gemini_shared.client.files.upload(file=io.BytesIO(b"\0" * 64), config={"mime_type": "video/mp4"})
    assert video.state == types.FileState.PROCESSING
    deadline = time.monotonic() + 5
    while video.state == types.FileState.PROCESSING and time.monotonic() < deadline:
        time.sleep(0.05)
        video = gemini_shared.client.files.get(name=video.name)
    assert video.state == types.FileState.ACTIVE


def test_reset_forgets_files(gemini_shared: Gemini) -> None:
    made = gemini_shared.client.files.upload(file=io.BytesIO(b"x"), config={"mime_type": "text/plain"})
    gemini_shared.reset()
    with pytest.raises(errors.ClientError):
        gemini_shared.client.files.get(name=made.name)


def test_the_byte_budget_refuses_with_429_and_frees_on_delete() -> None:
    running = start(Settings(port=0, files_budget_bytes=1000, files_memory_bytes=100))
    try:
        client = genai.Client(api_key="budget", http_options=types.HttpOptions(base_url=running.url))
        kept = client.files.upload(file=io.BytesIO(b"a" * 600), config={"mime_type": "text/plain"})
        with pytest.raises(errors.ClientError) as full:
            client.files.upload(file=io.BytesIO(b"b" * 600), config={"mime_type": "text/plain"})
        assert full.value.code == 429
        assert running.context.files.used == 600  # the refused upload's bytes were given back
        client.files.delete(name=kept.name)
        client.files.upload(file=io.BytesIO(b"c" * 900), config={"mime_type": "text/plain"})
    finally:
        running.stop()


@pytest.mark.parametrize(
    ("headers", "params", "body"),
    [
        ({"X-Goog-Upload-Protocol": "resumable"}, {}, b"{}"),  # no start command
        ({"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, {}, b"{not json"),
        ({"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, {}, b'{"file": []}'),
        ({"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, {}, b'{"file": {"x": 1}}'),
        (
            {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"},
            {},
            b'{"file": {"sizeBytes": "a"}}',
        ),
        ({"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, {}, b'{"file": {"name": "-x-"}}'),
        ({"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, {}, b'{"file": {"mimeType": "x"}}'),
        # served back as a Content-Type header: a control or non-ASCII character is refused at the start
        (
            {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"},
            {},
            b'{"file": {"mimeType": "image/p\\u0001ng"}}',
        ),
        (
            {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"},
            {},
            b'{"file": {"mimeType": "image/\\u00e9"}}',
        ),
        ({"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}, {}, b'{"other": 1}'),
        ({"X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related"}, {}, b"no boundary"),
        ({"X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=b"}, {}, b"--b\r\n"),
        ({"X-Goog-Upload-Protocol": "tus"}, {}, b""),
        ({}, {"upload_id": "no-such-session"}, b"x"),
        (
            {
                "X-Goog-Upload-Protocol": "resumable",
                "X-Goog-Upload-Command": "start",
                "X-Goog-Upload-Header-Content-Length": "99999999999999",
            },
            {},
            b"{}",
        ),
    ],
)
def test_malformed_uploads_get_4xx_envelopes(gemini_shared: Gemini, headers: dict, params: dict, body: bytes) -> None:
    answer = httpx.post(
        f"{gemini_shared.url}/upload/v1beta/files",
        params=params,
        headers={"x-goog-api-key": gemini_shared.api_key, **headers},
        content=body,
    )
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["error"]["code"] == answer.status_code


def test_no_key_is_production_403(gemini_shared: Gemini) -> None:
    assert httpx.get(f"{gemini_shared.url}/v1beta/files").status_code == 403
    assert httpx.post(f"{gemini_shared.url}/upload/v1beta/files", content=b"x").status_code == 403


def test_a_raw_upload_past_the_request_body_limit_is_streamed_into_storage(gemini_shared: Gemini) -> None:
    data = bytes(range(256)) * (100 * 1024)  # 25 MiB: past --max-body-bytes (20 MiB), under the 2 GB file limit
    answer = httpx.post(
        f"{gemini_shared.url}/upload/v1beta/files",
        params={"uploadType": "media"},
        headers={"x-goog-api-key": gemini_shared.api_key, "content-type": "application/octet-stream"},
        content=data,
        timeout=60,
    )
    assert answer.status_code == 200, answer.text[:300]
    assert answer.json()["file"]["sizeBytes"] == str(len(data))
    assert answer.json()["file"]["sha256Hash"] == _hash(data)


@pytest.mark.slow
def test_a_stalled_upload_chunk_gets_408_and_its_bytes_are_freed() -> None:
    import socket

    running = start(Settings(port=0, body_timeout=1))
    try:
        http = httpx.Client(base_url=running.url, headers={"x-goog-api-key": "stall"})
        url = _start(http, 100)
        path = url.split(running.url, 1)[1]
        with socket.create_connection((running.host, running.port), timeout=10) as sock:
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {running.host}:{running.port}\r\nContent-Length: 100\r\n"
                "X-Goog-Upload-Command: upload, finalize\r\nX-Goog-Upload-Offset: 0\r\n\r\n"
            )
            sock.sendall(head.encode() + b"x" * 10)  # then nothing more
            answer = sock.recv(65536).decode("latin-1")
        assert answer.startswith("HTTP/1.1 408"), answer[:200]
        assert "x-goog-upload-status: final" in answer.lower()
        assert running.context.files.used == 0
        http.close()
    finally:
        running.stop()
