"""fileData.fileUri in generateContent and countTokens resolves against the caller's files: google-genai uploads
then uses a file (sync and async); an unknown, deleted, other key's or not-yet-ACTIVE file is refused as production
refuses it; a known one counts in the prompt and the zero-config answer names it."""

from __future__ import annotations

import asyncio
import io

import httpx
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 100


def test_upload_then_generate_mentions_the_file_and_counts_it(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    image = client.files.upload(file=io.BytesIO(PNG), config={"mime_type": "image/png"})
    answer = client.models.generate_content(model=MODEL, contents=[image, "Describe this picture"])
    assert f"the attached file {image.name} (image/png)" in answer.text
    plain = client.models.generate_content(model=MODEL, contents="Describe this picture")
    assert "attached" not in plain.text
    details = {d.modality: d.token_count for d in answer.usage_metadata.prompt_tokens_details}
    assert details[types.MediaModality.IMAGE] == 258
    assert answer.usage_metadata.prompt_token_count == plain.usage_metadata.prompt_token_count + 258
    counted = client.models.count_tokens(model=MODEL, contents=[image, "Describe this picture"])
    assert counted.total_tokens == answer.usage_metadata.prompt_token_count


def test_async_upload_then_stream(gemini_shared: Gemini) -> None:
    async def run() -> str:
        aio = gemini_shared.client.aio
        doc = await aio.files.upload(file=io.BytesIO(b"%PDF-1.4 ..."), config={"mime_type": "application/pdf"})
        text = ""
        async for chunk in await aio.models.generate_content_stream(model=MODEL, contents=[doc, "Summarise it"]):
            text += chunk.text or ""
        return text.replace("\n", " ")

    assert "I looked at the attached file files/" in asyncio.run(run())


def _refusal(client: genai.Client, uri: str) -> errors.APIError:
    part = types.Part.from_uri(file_uri=uri, mime_type="image/png")
    with pytest.raises(errors.APIError) as refused:
        client.models.generate_content(model=MODEL, contents=[part, "What is this?"])
    return refused.value


def test_unknown_deleted_and_other_keys_files_are_production_403(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    unknown = _refusal(client, "https://generativelanguage.googleapis.com/v1beta/files/nosuchfile1")
    assert (unknown.code, unknown.status) == (403, "PERMISSION_DENIED")
    assert unknown.message == "You do not have permission to access the File nosuchfile1 or it may not exist."
    made = client.files.upload(file=io.BytesIO(PNG), config={"mime_type": "image/png"})
    other = genai.Client(api_key="someone-else", http_options=types.HttpOptions(base_url=gemini_shared.url))
    assert _refusal(other, made.uri).code == 403
    client.files.delete(name=made.name)
    assert _refusal(client, made.uri).code == 403
    key = {"x-goog-api-key": gemini_shared.api_key}
    body = {"contents": [{"parts": [{"fileData": {"fileUri": made.name}}, {"text": "count"}]}]}
    counted = httpx.post(f"{gemini_shared.url}/v1beta/models/{MODEL}:countTokens", json=body, headers=key)
    assert counted.status_code == 403


def test_a_processing_file_is_refused_until_active(gemini_shared: Gemini) -> None:
    admin = httpx.Client(base_url=gemini_shared.url + "/__emulator", headers={"x-goog-api-key": gemini_shared.api_key})
    admin.put("/files/state", json={"state": "PROCESSING"})
    held = gemini_shared.client.files.upload(file=io.BytesIO(PNG), config={"mime_type": "image/png"})
    refused = _refusal(gemini_shared.client, held.uri)
    assert (refused.code, refused.status) == (400, "FAILED_PRECONDITION")
    assert "is not in an ACTIVE state" in refused.message
    admin.put("/files/state", json={"name": held.name, "state": "ACTIVE"})
    part = types.Part.from_uri(file_uri=held.uri, mime_type="image/png")
    assert gemini_shared.client.models.generate_content(model=MODEL, contents=[part, "Now?"]).text
    admin.close()


def test_other_uris_are_left_alone(gemini_shared: Gemini) -> None:
    part = types.Part.from_uri(file_uri="gs://bucket/picture.png", mime_type="image/png")
    answer = gemini_shared.client.models.generate_content(model=MODEL, contents=[part, "What is this?"])
    assert "gs://bucket/picture.png" in answer.text


def test_a_cache_holding_a_file_checks_it_at_creation(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    part = types.Part.from_uri(file_uri=f"{gemini_shared.url}/v1beta/files/nosuchfile2", mime_type="image/png")
    with pytest.raises(errors.APIError) as refused:
        client.caches.create(model=MODEL, config={"contents": [types.Content(role="user", parts=[part])]})
    assert refused.value.code == 403 and "nosuchfile2" in refused.value.message
    image = client.files.upload(file=io.BytesIO(PNG), config={"mime_type": "image/png"})
    known = types.Part.from_uri(file_uri=image.uri, mime_type="image/png")
    long_text = types.Part.from_text(text="word " * 1200)  # past the model's minimum cache size
    cache = client.caches.create(
        model=MODEL, config={"contents": [types.Content(role="user", parts=[known, long_text])]}
    )
    assert cache.name.startswith("cachedContents/")
