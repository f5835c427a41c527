"""File search stores across processes: two `gemini-emulator serve --store redis://...` processes on their own
ports, one redis-server (tests/scaling/conftest.py). A store created and a document uploaded (resumable, as
google-genai sends it) and imported through one are listed, fetched and found by a generate call's `fileSearch`
retrieval through the other; a document scripted to stay STATE_PENDING through one is pending on both and not
retrieved until released; deletes through either hold for both. And a Redis that cannot be reached is the 503
envelope, for the room and for a grounded generate call, never a hang or a 500."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors, types
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

MODEL = "gemini-2.5-flash"
PARIS = b"Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris."
ROME = b"Rome is the capital of Italy. The Colosseum is an ancient amphitheatre in Rome."


def _client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY["x-goog-api-key"], http_options=types.HttpOptions(base_url=url))


def _grounded(client: genai.Client, store: str, question: str) -> list[str]:
    """The texts a generate call's fileSearch tool retrieved from `store` (its grounding chunks)."""
    tool = types.Tool(file_search=types.FileSearch(file_search_store_names=[store]))
    answer = client.models.generate_content(
        model=MODEL, contents=question, config=types.GenerateContentConfig(tools=[tool])
    )
    grounding = answer.candidates[0].grounding_metadata if answer.candidates else None
    chunks = (grounding.grounding_chunks if grounding is not None else None) or []
    return [c.retrieved_context.text for c in chunks if c.retrieved_context is not None]


@pytest.mark.slow
def test_a_store_and_document_made_on_one_process_are_found_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    store = on_a.file_search_stores.create(config={"display_name": "across"})
    assert on_b.file_search_stores.get(name=store.name) == store
    assert [s.name for s in on_b.file_search_stores.list()] == [store.name]
    upload = on_a.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
    )
    doc_name = upload.response.document_name
    doc = on_b.file_search_stores.documents.get(name=doc_name)
    assert doc.state == types.DocumentState.STATE_ACTIVE and doc.size_bytes == len(PARIS)
    assert on_b.file_search_stores.get(name=store.name).active_documents_count == 1
    assert _grounded(on_b, store.name, "What is the capital of France?") == [PARIS.decode()]  # parsed on B

    file = on_a.files.upload(file=io.BytesIO(ROME), config={"mime_type": "text/plain"})  # files: per process
    imported = on_a.file_search_stores.import_file(file_search_store_name=store.name, file_name=file.name)
    deadline = time.monotonic() + 10
    while not imported.done:
        assert time.monotonic() < deadline
        time.sleep(0.02)
        imported = on_b.operations.get(imported)  # the operation: shared too, polled through B
    listed = [d.name for d in on_b.file_search_stores.documents.list(parent=store.name)]
    assert listed == [imported.response.document_name, doc_name]  # newest first, from either process
    assert _grounded(on_b, store.name, "Tell me about the Colosseum in Rome") == [ROME.decode()]

    # the next document's state, scripted through A, is taken by an upload through B; pending everywhere
    scripted = httpx.put(a.url + "/__emulator/fileSearchStores/state", json={"state": "STATE_PENDING"}, headers=KEY)
    assert scripted.status_code == 200
    held = on_b.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store.name,
        file=io.BytesIO(b"Zebras graze on the savanna."),
        config={"mime_type": "text/plain"},
    )
    held_name = held.response.document_name
    assert on_a.file_search_stores.documents.get(name=held_name).state == types.DocumentState.STATE_PENDING
    assert _grounded(on_a, store.name, "Where do zebras graze?") == []  # pending: not retrieved
    released = {"name": held_name, "state": "STATE_ACTIVE"}
    assert httpx.put(a.url + "/__emulator/fileSearchStores/state", json=released, headers=KEY).status_code == 200
    assert on_b.file_search_stores.documents.get(name=held_name).state == types.DocumentState.STATE_ACTIVE
    assert _grounded(on_a, store.name, "Where do zebras graze?") == ["Zebras graze on the savanna."]

    on_b.file_search_stores.documents.delete(name=doc_name, config={"force": True})
    assert _grounded(on_a, store.name, "Where is the Eiffel Tower?") == []  # gone from A's search too
    with pytest.raises(errors.ClientError) as gone:
        on_a.file_search_stores.documents.get(name=doc_name)
    assert gone.value.code == 404
    on_a.file_search_stores.delete(name=store.name, config={"force": True})
    with pytest.raises(errors.ClientError) as refused:
        _grounded(on_b, store.name, "What is the capital of France?")
    assert refused.value.code == 403
    assert list(on_b.file_search_stores.list()) == []


def test_redis_unreachable_is_the_503_envelope(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=redis.url))
    try:
        client = _client(running.url)
        store = client.file_search_stores.create(config={"display_name": "down"})
        client.file_search_stores.upload_to_file_search_store(
            file_search_store_name=store.name, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
        )
        redis.stop()
        tool = {"fileSearch": {"fileSearchStoreNames": [store.name]}}
        generate = {"contents": [{"role": "user", "parts": [{"text": "capital of France?"}]}], "tools": [tool]}
        calls = [
            ("GET", f"/v1beta/{store.name}", None),
            ("GET", "/v1beta/fileSearchStores", None),
            ("POST", "/v1beta/fileSearchStores", {"displayName": "x"}),
            ("GET", f"/v1beta/{store.name}/documents", None),
            ("DELETE", f"/v1beta/{store.name}?force=true", None),
            ("POST", f"/v1beta/models/{MODEL}:generateContent", generate),
            ("POST", f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse", generate),
        ]
        for method, path, body in calls:
            began = time.monotonic()
            answer = httpx.request(method, running.url + path, json=body, headers=KEY, timeout=10)
            assert time.monotonic() - began < 5, path
            assert answer.status_code == 503, (path, answer.text)
            assert answer.json()["error"] == {
                "code": 503,
                "message": "The service is currently unavailable.",
                "status": "UNAVAILABLE",
            }, path
        admin = httpx.get(running.url + "/__emulator/resources?kind=fileSearchStores", headers=KEY, timeout=10)
        assert admin.status_code == 503
    finally:
        running.stop()
        redis.stop()
