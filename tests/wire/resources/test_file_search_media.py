"""A file search store's media (`GET /{v}/fileSearchStores/S/media/ID?alt=media`, google-genai 3.6.1
`file_search_stores.download_media`) over a real socket: an image document is kept whole, its retrieved chunks
carry `mediaId`, and the download serves its bytes, uploaded or imported; another key's store is production's 403,
a blob that is not there (or a text document's) a 404."""

from __future__ import annotations

import io
import time
import zlib

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
# A PNG-like picture whose printable runs hold words retrieval can match (a tEXt chunk), then 300 KB of noise.
PICTURE = (
    b"\x89PNG\r\n\x1a\n"
    + b"\x00\x00\x00\x2ctEXtComment\x00a brown dog runs after a ball in the park\x00"
    + zlib.compress(bytes(range(256)) * 1200, 0)
)


def _wait(client: genai.Client, op: types.UploadToFileSearchStoreOperation) -> None:
    deadline = time.monotonic() + 10
    while not op.done:
        assert time.monotonic() < deadline
        time.sleep(0.05)
        op = client.operations.get(op)


def _picture_store(client: genai.Client) -> str:
    store = client.file_search_stores.create(config={"display_name": "pictures"})
    op = client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name or "", file=io.BytesIO(PICTURE), config={"mime_type": "image/png"}
    )
    _wait(client, op)
    text = client.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name or "",
        file=io.BytesIO(b"The dog park opens at nine."),
        config={"mime_type": "text/plain"},
    )
    _wait(client, text)
    return str(store.name)


def _search(client: genai.Client, store: str) -> list[types.RetrievedContext]:
    response = client.models.generate_content(
        model=MODEL,
        contents="Where does the dog run after the ball?",
        config=types.GenerateContentConfig(
            tools=[types.Tool(file_search=types.FileSearch(file_search_store_names=[store]))]
        ),
    )
    grounding = response.candidates[0].grounding_metadata if response.candidates else None
    assert grounding and grounding.grounding_chunks
    return [c.retrieved_context for c in grounding.grounding_chunks if c.retrieved_context]


def test_an_image_document_is_cited_with_its_media_and_downloads_whole(gemini: Gemini) -> None:
    client = gemini.client
    store = _picture_store(client)
    contexts = _search(client, store)
    media = [c.media_id for c in contexts if c.media_id]
    assert len(media) == 1 and len(contexts) == 2  # the text document has no media blob
    [media_id] = media
    assert media_id.startswith(f"{store}/media/")
    assert client.file_search_stores.download_media(media_id=media_id) == PICTURE
    raw = httpx.get(
        f"{gemini.url}/v1beta/{media_id}", params={"alt": "media"}, headers={"x-goog-api-key": gemini.api_key}
    )
    assert raw.status_code == 200 and raw.headers["content-type"] == "image/png" and raw.content == PICTURE
    assert raw.headers["content-disposition"] == "attachment" and raw.headers["content-security-policy"] == "sandbox"
    [record] = [c for c in gemini.journal() if c.rpc == "fileSearchStores.downloadMedia"][:1]
    assert record.status == 200


def test_an_imported_image_keeps_its_bytes(gemini: Gemini) -> None:
    client = gemini.client
    file = client.files.upload(file=io.BytesIO(PICTURE), config={"mime_type": "image/png"})
    store = client.file_search_stores.create(config={"display_name": "imported"})
    op = client.file_search_stores.import_file(file_search_store_name=store.name or "", file_name=file.name or "")
    deadline = time.monotonic() + 10
    while not op.done:
        assert time.monotonic() < deadline
        time.sleep(0.05)
        op = client.operations.get(op)
    [context] = _search(client, str(store.name))
    assert context.media_id and client.file_search_stores.download_media(media_id=context.media_id) == PICTURE


def test_another_keys_media_is_403_and_a_missing_blob_404(gemini: Gemini) -> None:
    client = gemini.client
    store = _picture_store(client)
    [media_id] = [c.media_id for c in _search(client, store) if c.media_id]
    stranger = genai.Client(api_key="someone-else", http_options=types.HttpOptions(base_url=gemini.url))
    with pytest.raises(errors.ClientError) as other:
        stranger.file_search_stores.download_media(media_id=media_id)
    store_id = store.removeprefix("fileSearchStores/")
    assert other.value.code == 403 and other.value.status == "PERMISSION_DENIED"
    assert f"You do not have permission to access the FileSearchStore {store_id} or it may not exist." in str(
        other.value.message
    )
    [text_doc] = [d for d in client.file_search_stores.documents.list(parent=store) if d.mime_type == "text/plain"]
    for missing in (f"{store}/media/nope", f"{store}/media/{(text_doc.name or '').rpartition('/')[2]}"):
        with pytest.raises(errors.ClientError) as gone:
            client.file_search_stores.download_media(media_id=missing)
        assert gone.value.code == 404 and gone.value.status == "NOT_FOUND"
    bare = httpx.get(f"{gemini.url}/v1beta/{media_id}", headers={"x-goog-api-key": gemini.api_key})
    assert bare.status_code == 400 and "alt=media" in bare.json()["error"]["message"]
