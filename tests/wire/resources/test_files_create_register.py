"""The two ways to make a File without sending its bytes, over a real socket: the media.upload method's metadata URI
(`POST /{v}/files`, by hand: no SDK calls it) and `POST /{v}/files:register` through google-genai 3.6.1's
`files.register_files` (sync and async), which sends the key and an OAuth token together. Both were Google's HTML
404 before."""

from __future__ import annotations

import asyncio

import httpx
from google.genai import types
from google.oauth2.credentials import Credentials

from gemini_emulator.testing.pytest_plugin import Gemini

TOKEN = "ya29.emulator-test-token"


def _post(gemini: Gemini, path: str, body: object, **headers: str) -> httpx.Response:
    return httpx.post(f"{gemini.url}{path}", json=body, headers={"x-goog-api-key": gemini.api_key, **headers})


def test_metadata_only_create_makes_a_file_without_bytes(gemini_shared: Gemini) -> None:
    answer = _post(gemini_shared, "/v1beta/files", {"file": {"displayName": "Notes", "mimeType": "text/plain"}})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json; charset=UTF-8"
    file = answer.json()["file"]
    assert list(file) == [
        "name",
        "displayName",
        "mimeType",
        "createTime",
        "updateTime",
        "expirationTime",
        "uri",
        "state",
        "source",
    ]  # no sizeBytes, no sha256Hash: there are no bytes
    assert (file["mimeType"], file["state"], file["source"]) == ("text/plain", "ACTIVE", "UPLOADED")
    # the SDK reads it back like any file, and a generate call can name it
    got = gemini_shared.client.files.get(name=file["name"])
    assert got.display_name == "Notes" and got.size_bytes is None
    reply = gemini_shared.client.models.generate_content(
        model="gemini-2.5-flash", contents=[types.Part.from_uri(file_uri=got.uri or "", mime_type="text/plain"), "?"]
    )
    assert f"the attached file {file['name']} (text/plain)" in (reply.text or "")
    [record] = gemini_shared.journal(rpc="files.create")
    assert record.body == {"file": {"displayName": "Notes", "mimeType": "text/plain"}}


def test_metadata_only_create_with_a_name_an_empty_body_and_refusals(gemini_shared: Gemini) -> None:
    named = _post(gemini_shared, "/v1beta/files", {"file": {"name": "files/my-notes"}})
    assert named.json()["file"]["name"] == "files/my-notes"
    assert named.json()["file"]["mimeType"] == "application/octet-stream"
    again = _post(gemini_shared, "/v1beta/files", {"file": {"name": "my-notes"}})
    assert again.status_code == 409 and again.json()["error"]["status"] == "ALREADY_EXISTS"
    empty = httpx.post(f"{gemini_shared.url}/v1/files", headers={"x-goog-api-key": gemini_shared.api_key})
    assert empty.status_code == 200 and empty.json()["file"]["name"].startswith("files/")
    unknown = _post(gemini_shared, "/v1beta/files", {"file": {"colour": "red"}})
    assert unknown.status_code == 400
    assert unknown.json()["error"]["message"] == (
        "Invalid JSON payload received. Unknown name \"colour\" at 'file': Cannot find field."
    )
    bad_name = _post(gemini_shared, "/v1beta/files", {"file": {"name": "Not-Valid-"}})
    assert bad_name.status_code == 400 and bad_name.json()["error"]["status"] == "INVALID_ARGUMENT"
    not_json = httpx.post(
        f"{gemini_shared.url}/v1beta/files", content=b"{nope", headers={"x-goog-api-key": gemini_shared.api_key}
    )
    assert not_json.status_code == 400 and not_json.json()["error"]["status"] == "INVALID_ARGUMENT"
    keyless = httpx.post(f"{gemini_shared.url}/v1beta/files", json={})
    assert keyless.status_code == 403 and keyless.json()["error"]["status"] == "PERMISSION_DENIED"


def test_sdk_register_files_makes_registered_files_for_the_key(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    uris = ["gs://my-bucket/docs/report.pdf", "gs://my-bucket/clip.mp4"]
    registered = client.files.register_files(auth=Credentials(token=TOKEN), uris=uris)
    files = registered.files or []
    assert [f.mime_type for f in files] == ["application/pdf", "video/mp4"]
    assert all(f.source == types.FileSource.REGISTERED for f in files)
    # a video is processed first, as an uploaded one is
    assert [f.state for f in files] == [types.FileState.ACTIVE, types.FileState.PROCESSING]
    assert all(f.size_bytes is None and f.sha256_hash is None for f in files)
    # the files are the key's (not the OAuth token's): the key alone gets and lists them
    assert [f.name for f in client.files.list()] == [f.name for f in reversed(files)]
    assert client.files.get(name=files[0].name or "") == files[0]
    [record] = gemini_shared.journal(rpc="files.register")
    assert record.body == {"uris": uris}
    assert TOKEN not in str(record.record)  # the OAuth token is not journaled
    reply = client.models.generate_content(model="gemini-2.5-flash", contents=[files[0], "Summarise"])
    assert f"the attached file {files[0].name} (application/pdf)" in (reply.text or "")
    # the admin API lists where each came from
    listed = {r["name"]: r for r in gemini_shared.admin.resources(kind="files")["files"]}
    assert listed[files[0].name or ""]["source"] == "REGISTERED"


def test_sdk_register_files_async(gemini_shared: Gemini) -> None:
    async def run() -> types.RegisterFilesResponse:
        return await gemini_shared.client.aio.files.register_files(
            auth=Credentials(token=TOKEN), uris=["gs://b-1/a/b/c.png"]
        )

    [file] = asyncio.run(run()).files or []
    assert file.mime_type == "image/png" and file.source == types.FileSource.REGISTERED


def test_register_needs_an_oauth_token_and_gs_uris(gemini_shared: Gemini) -> None:
    keyless = _post(gemini_shared, "/v1beta/files:register", {"uris": ["gs://b/o.txt"]})
    assert keyless.status_code == 401
    error = keyless.json()["error"]
    assert error["status"] == "UNAUTHENTICATED" and error["message"].startswith(
        "Request is missing required authentication credential. Expected OAuth 2 access token"
    )
    assert error["details"][0]["reason"] == "CREDENTIALS_MISSING"
    assert keyless.headers["www-authenticate"].startswith("Bearer")
    bearer = {"authorization": f"Bearer {TOKEN}"}
    cases = [
        ({}, "* RegisterFilesRequest.uris: uris is not specified\n"),
        ({"uris": []}, "* RegisterFilesRequest.uris: uris is not specified\n"),
        ({"uris": ["https://example.com/a.png"]}, "Invalid Google Cloud Storage URI: https://example.com/a.png."),
        ({"uris": ["gs://bucket-only"]}, "Invalid Google Cloud Storage URI: gs://bucket-only."),
        ({"uris": [7]}, "Invalid value at 'uris[0]' (TYPE_STRING), 7"),
        ({"uris": "gs://b/o"}, None),
        ({"uri": ["gs://b/o"]}, 'Invalid JSON payload received. Unknown name "uri": Cannot find field.'),
        ({"uris": [f"gs://b/{i}.txt" for i in range(101)]}, "At most 100 uris"),
        ([], None),
    ]
    for body, message in cases:
        answer = _post(gemini_shared, "/v1beta/files:register", body, **bearer)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["error"]["status"] == "INVALID_ARGUMENT"
        if message is not None:
            assert answer.json()["error"]["message"].startswith(message), (body, answer.text)
    assert gemini_shared.client.files.list().page == []  # nothing was made


def test_a_registered_file_is_another_keys_403(gemini_shared: Gemini) -> None:
    registered = gemini_shared.client.files.register_files(
        auth=Credentials(token=TOKEN), uris=["gs://bucket/private.txt"]
    )
    [file] = registered.files or []
    other = httpx.get(f"{gemini_shared.url}/v1beta/{file.name}", headers={"x-goog-api-key": "another-key"})
    assert other.status_code == 403 and other.json()["error"]["status"] == "PERMISSION_DENIED"
