"""File search stores over a real socket with google-genai 3.6.1: create, get, list in pages, delete with and
without force; a document uploaded (resumable, as the SDK sends it) and a Files API file imported, both polled
through `client.operations.get` until done; documents listed, got and deleted; another key sees nothing; the
shapes the captures show (pydantic-ai cassettes test_google_model_file_search_*.yaml); bad requests' envelopes."""

from __future__ import annotations

import asyncio
import io
import re
import time
from typing import Any

import httpx
import pytest
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

PARIS = b"Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris."


def _poll(client: Any, operation: Any) -> Any:
    deadline = time.monotonic() + 10
    while not operation.done:
        assert time.monotonic() < deadline, f"{operation.name} not done in 10 s"
        time.sleep(0.05)
        operation = client.operations.get(operation)
    return operation


def test_create_get_list_delete(gemini: Gemini) -> None:
    client = gemini.client
    store = client.file_search_stores.create(config={"display_name": "test-file-search-grounding-stream"})
    # the captured name: the display name's [a-z0-9] cut at 27, a dash, 12 random characters
    assert re.fullmatch(r"fileSearchStores/testfilesearchgroundingstre-[a-z0-9]{12}", store.name), store.name
    assert store.display_name == "test-file-search-grounding-stream"
    assert store.create_time == store.update_time
    assert store.embedding_model == "models/gemini-embedding-001"
    assert store.active_documents_count is None and store.size_bytes is None  # zero counts are left out
    assert client.file_search_stores.get(name=store.name) == store
    names = [store.name] + [client.file_search_stores.create(config={"display_name": f"s{i}"}).name for i in range(4)]
    listed = client.file_search_stores.list(config={"page_size": 2})
    assert len(listed.page) == 2  # the pager fetches the rest
    assert sorted(s.name for s in listed) == sorted(names)
    for name in names:
        client.file_search_stores.delete(name=name)
    assert list(client.file_search_stores.list()) == []
    with pytest.raises(errors.ClientError) as gone:
        client.file_search_stores.get(name=store.name)
    assert gone.value.code == 403
    assert gone.value.message == (
        f"You do not have permission to access the FileSearchStore {store.name.removeprefix('fileSearchStores/')}"
        " or it may not exist."
    )


def test_upload_poll_documents_and_force_delete(gemini: Gemini) -> None:
    client = gemini.client
    store = client.file_search_stores.create(config={"display_name": "paris"})
    op = client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name,
        file=io.BytesIO(PARIS),
        config={
            "mime_type": "text/plain",
            "custom_metadata": [{"key": "source_url", "string_value": "https://example.com/paris"}],
        },
    )
    # the captured first answer: the operation's name (the document's id) and its response, no `done`
    assert re.fullmatch(rf"{store.name}/upload/operations/[a-z0-9]{{12}}-[a-z0-9]{{12}}", op.name), op.name
    assert not op.done
    doc_id = op.name.rpartition("/")[2]
    assert op.response.document_name == f"{store.name}/documents/{doc_id}"
    assert op.response.parent == store.name
    done = _poll(client, op)
    assert isinstance(done, types.UploadToFileSearchStoreOperation) and done.error is None
    assert done.response.document_name == f"{store.name}/documents/{doc_id}"

    docs = list(client.file_search_stores.documents.list(parent=store.name))
    assert [d.name for d in docs] == [done.response.document_name]
    doc = client.file_search_stores.documents.get(name=done.response.document_name)
    assert doc.state == types.DocumentState.STATE_ACTIVE
    assert doc.size_bytes == len(PARIS) and doc.mime_type == "text/plain"
    assert doc.custom_metadata == [types.CustomMetadata(key="source_url", string_value="https://example.com/paris")]
    counted = client.file_search_stores.get(name=store.name)
    assert counted.active_documents_count == 1 and counted.size_bytes == len(PARIS)

    with pytest.raises(errors.ClientError) as refused:  # python-genai#1774 quotes these
        client.file_search_stores.delete(name=store.name)
    assert (refused.value.code, refused.value.status) == (400, "FAILED_PRECONDITION")
    assert refused.value.message == "Cannot delete non-empty FileSearchStore"
    with pytest.raises(errors.ClientError) as doc_refused:
        client.file_search_stores.documents.delete(name=doc.name)
    assert doc_refused.value.message == "Cannot delete non-empty Document"
    client.file_search_stores.documents.delete(name=doc.name, config={"force": True})
    assert list(client.file_search_stores.documents.list(parent=store.name)) == []
    client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
    )
    client.file_search_stores.delete(name=store.name, config={"force": True})
    assert list(client.file_search_stores.list()) == []
    sent = [r for r in gemini.journal() if r.rpc == "fileSearchStores.upload"]
    assert sent[0].body == {
        "mimeType": "text/plain",
        "customMetadata": [{"key": "source_url", "string_value": "https://example.com/paris"}],
    }
    assert "Paris is the capital" not in str([r.body for r in sent])  # bytes are journaled as size and hash
    assert sent[1].body["upload"]["bytes"] == len(PARIS)
    assert sent[1].record["query"]["upload_id"] == "REDACTED"  # the session's only credential


def test_import_a_files_api_file(gemini: Gemini) -> None:
    client = gemini.client
    store = client.file_search_stores.create(config={"display_name": "imports"})
    file = client.files.upload(file=io.BytesIO(PARIS), config={"mime_type": "text/plain", "display_name": "paris"})
    op = client.file_search_stores.import_file(file_search_store_name=store.name, file_name=file.name)
    assert op.name.startswith(f"{store.name}/operations/")
    done = _poll(client, op)
    assert isinstance(done, types.ImportFileOperation)
    assert done.response.parent == store.name
    doc = client.file_search_stores.documents.get(name=done.response.document_name)
    assert doc.display_name == "paris" and doc.size_bytes == len(PARIS)
    assert re.fullmatch(rf"{store.name}/documents/paris-[a-z0-9]{{12}}", doc.name), doc.name
    with pytest.raises(errors.ClientError) as unknown:
        client.file_search_stores.import_file(file_search_store_name=store.name, file_name="files/nosuchfile9")
    assert unknown.value.code == 403
    assert "You do not have permission to access the File nosuchfile9" in unknown.value.message


def test_another_key_sees_nothing(gemini: Gemini, gemini_shared: Gemini) -> None:
    mine = gemini.client.file_search_stores.create(config={"display_name": "private"})
    other = gemini_shared.client
    assert mine.name not in [s.name for s in other.file_search_stores.list()]
    for call in (
        lambda: other.file_search_stores.get(name=mine.name),
        lambda: other.file_search_stores.delete(name=mine.name, config={"force": True}),
        lambda: list(other.file_search_stores.documents.list(parent=mine.name)),
        lambda: other.file_search_stores.upload_to_file_search_store(
            file_search_store_name=mine.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
        ),
    ):
        with pytest.raises(errors.ClientError) as refused:
            call()
        assert refused.value.code == 403
    assert gemini.client.file_search_stores.get(name=mine.name).name == mine.name


def test_async_upload_and_poll(gemini: Gemini) -> None:
    async def run() -> tuple[str, str]:
        aio = gemini.client.aio
        store = await aio.file_search_stores.create(config={"display_name": "async"})
        op = await aio.file_search_stores.upload_to_file_search_store(
            file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
        )
        for _ in range(200):
            if op.done:
                break
            await asyncio.sleep(0.05)
            op = await aio.operations.get(op)
        assert op.done
        docs = [d async for d in await aio.file_search_stores.documents.list(parent=store.name)]
        return op.response.document_name, docs[0].name

    made, listed = asyncio.run(run())
    assert made == listed


def test_admin_lists_and_removes_and_reset_clears(gemini: Gemini) -> None:
    client = gemini.client
    store = client.file_search_stores.create(config={"display_name": "admin"})
    _poll(
        client,
        client.file_search_stores.upload_to_file_search_store(
            file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
        ),
    )
    listed = gemini.admin.resources("fileSearchStores")["fileSearchStores"]
    assert [r["name"] for r in listed][0] == store.name
    assert listed[1]["state"] == "STATE_ACTIVE" and listed[1]["sizeBytes"] == len(PARIS)
    assert gemini.admin._http.delete("/resources", params={"name": listed[1]["name"]}).status_code == 200
    assert client.file_search_stores.get(name=store.name).active_documents_count is None
    gemini.reset()
    assert list(client.file_search_stores.list()) == []


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/v1beta/fileSearchStores", {"displayName": 5}, 400),
        ("POST", "/v1beta/fileSearchStores", {"bogus": 1}, 400),
        ("POST", "/v1beta/fileSearchStores", [1], 400),
        ("POST", "/v1beta/fileSearchStores", {"displayName": "x" * 513}, 400),
        ("GET", "/v1beta/fileSearchStores?pageSize=abc", None, 400),
        ("GET", "/v1beta/fileSearchStores/nosuch", None, 403),
        ("DELETE", "/v1beta/fileSearchStores/nosuch?force=maybe", None, 400),
        ("GET", "/v1beta/fileSearchStores/nosuch/documents", None, 403),
        ("POST", "/v1beta/fileSearchStores/nosuch:importFile", {"fileName": "files/x"}, 403),
        ("POST", "/upload/v1beta/fileSearchStores/nosuch:uploadToFileSearchStore?upload_id=forged", None, 404),
    ],
)
def test_bad_requests_get_envelopes(gemini: Gemini, method: str, path: str, body: Any, status: int) -> None:
    response = httpx.request(method, gemini.url + path, json=body, headers={"x-goog-api-key": gemini.api_key})
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == status


def test_bad_document_requests(gemini: Gemini) -> None:
    store = gemini.client.file_search_stores.create(config={"display_name": "bad"})
    headers = {"x-goog-api-key": gemini.api_key}
    url = gemini.url
    cases = [
        ("POST", f"/v1beta/{store.name}:importFile", {}, 400),
        ("POST", f"/v1beta/{store.name}:importFile", {"fileName": "files/x", "chunkingConfig": 3}, 400),
        (
            "POST",
            f"/v1beta/{store.name}:importFile",
            {"fileName": "files/x", "customMetadata": [{"key": "a"}]},
            400,
        ),
        ("GET", f"/v1beta/{store.name}/documents/nosuch", None, 404),
        ("DELETE", f"/v1beta/{store.name}/documents/nosuch?force=true", None, 404),
        ("POST", f"/v1beta/{store.name}:uploadToFileSearchStore", {}, 400),
    ]
    for method, path, body, status in cases:
        response = httpx.request(method, url + path, json=body, headers=headers)
        assert response.status_code == status, (path, body, response.text)
        assert response.json()["error"]["code"] == status
    start = httpx.post(
        f"{url}/upload/v1beta/{store.name}:uploadToFileSearchStore",
        json={"chunkingConfig": {"whiteSpaceConfig": {"maxTokensPerChunk": 10, "maxOverlapTokens": 10}}},
        headers=headers | {"x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start"},
    )
    assert start.status_code == 400 and "max_overlap_tokens" in start.json()["error"]["message"]


@pytest.mark.gemini_settings(file_search_budget_bytes=100)
def test_the_documents_byte_budget(gemini_fresh: Gemini) -> None:
    client = gemini_fresh.client
    store = client.file_search_stores.create(config={"display_name": "budget"})

    def upload() -> Any:
        return client.file_search_stores.upload_to_file_search_store(
            file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
        )

    first = upload()
    with pytest.raises(errors.ClientError) as full:
        upload()
    assert full.value.code == 429 and "--file-search-budget-bytes" in full.value.message
    assert len(list(client.file_search_stores.documents.list(parent=store.name))) == 1
    client.file_search_stores.documents.delete(name=first.response.document_name, config={"force": True})
    upload()  # the deleted document's bytes were given back
    ctx = gemini_fresh.server.context
    assert ctx.file_search.used == len(PARIS) and ctx.files.used == 0  # the upload's spool went back too


def test_a_large_document_keeps_its_size_and_only_its_first_mib_of_text(gemini: Gemini) -> None:
    client = gemini.client
    store = client.file_search_stores.create(config={"display_name": "large"})
    data = b"zebras graze quietly. " * 50_000 + b"unicorns appear here. " * 100_000  # 1.1 MB, then 2.2 MB
    op = client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name, file=io.BytesIO(data), config={"mime_type": "text/plain"}
    )
    doc = client.file_search_stores.documents.get(name=op.response.document_name)
    assert doc.size_bytes == len(data)
    assert client.file_search_stores.get(name=store.name).size_bytes == len(data)
    tool = types.GenerateContentConfig(
        tools=[types.Tool(file_search=types.FileSearch(file_search_store_names=[store.name]))]
    )
    grazing = client.models.generate_content(model="gemini-2.5-flash", contents="Where do zebras graze?", config=tool)
    assert grazing.candidates[0].grounding_metadata.grounding_chunks  # the text's first MiB is searched
    past = client.models.generate_content(model="gemini-2.5-flash", contents="Do unicorns appear?", config=tool)
    assert past.candidates[0].grounding_metadata is None  # past the first MiB: not kept


def test_an_upload_past_100_mb_is_refused_at_its_start(gemini: Gemini) -> None:
    store = gemini.client.file_search_stores.create(config={"display_name": "big"})
    start = httpx.post(
        f"{gemini.url}/upload/v1beta/{store.name}:uploadToFileSearchStore",
        json={"mimeType": "text/plain"},
        headers={
            "x-goog-api-key": gemini.api_key,
            "x-goog-upload-protocol": "resumable",
            "x-goog-upload-command": "start",
            "x-goog-upload-header-content-length": str(100 * 1000 * 1000 + 1),
        },
    )
    assert start.status_code == 400, start.text
    assert start.json()["error"]["message"] == "The document exceeds the maximum size of 100000000 bytes."


@pytest.mark.gemini_settings(operation_delay_ms=0)
def test_scripted_document_states(gemini_fresh: Gemini) -> None:
    """`PUT /__emulator/fileSearchStores/state`: the next upload's document fails (its operation done with the
    error), the next import's stays STATE_PENDING (its operation held) until the document is set STATE_ACTIVE."""
    gemini = gemini_fresh  # operations done at once: only the hold keeps one running
    client = gemini.client
    admin = gemini.admin._http
    store = client.file_search_stores.create(config={"display_name": "states"})
    failed = {"state": "STATE_FAILED", "error": {"code": 3, "message": "Unsupported document."}}
    assert admin.put("/fileSearchStores/state", json=failed).status_code == 200
    op = client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
    )
    done = _poll(client, op)
    assert done.error == {"code": 3, "message": "Unsupported document."}
    doc = client.file_search_stores.documents.get(name=op.response.document_name)
    assert doc.state == types.DocumentState.STATE_FAILED
    assert client.file_search_stores.get(name=store.name).failed_documents_count == 1

    assert admin.put("/fileSearchStores/state", json={"state": "STATE_PENDING"}).status_code == 200
    file = client.files.upload(file=io.BytesIO(PARIS), config={"mime_type": "text/plain"})
    held = client.file_search_stores.import_file(file_search_store_name=store.name, file_name=file.name)
    held = client.operations.get(held)
    assert not held.done
    pending = next(d for d in client.file_search_stores.documents.list(parent=store.name) if d.name != doc.name)
    assert pending.state == types.DocumentState.STATE_PENDING
    released = admin.put("/fileSearchStores/state", json={"name": pending.name, "state": "STATE_ACTIVE"})
    assert released.status_code == 200, released.text
    assert _poll(client, held).response.document_name == pending.name
    assert client.file_search_stores.documents.get(name=pending.name).state == types.DocumentState.STATE_ACTIVE
    assert admin.put("/fileSearchStores/state", json={"state": "DONE"}).status_code == 400
    missing = admin.put(
        "/fileSearchStores/state", json={"name": f"{store.name}/documents/nosuch", "state": "STATE_ACTIVE"}
    )
    assert missing.status_code == 404
