"""File search stores' upload and import operations across processes: two `gemini-emulator serve --store
redis://...` processes, one redis-server (tests/scaling/conftest.py). An import started through one process is
polled done through the other (and listed there by `GET /v1beta/operations`); an upload's operation is done at the
first poll through either; the next document's state scripted through one (`PUT /__emulator/fileSearchStores/
state`) holds or fails the operation of an import or upload taken by the other, a held operation stays running
through both past its schedule until its document is released, or failed, by name through either. And a Redis
that cannot be reached is the 503 envelope for a poll and for an import, never a hang or a 500."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from test_file_search_processes import _client
from test_workers import KEY, serve  # noqa: F401  (serve: the fixture that starts the processes)

from gemini_emulator.config import Settings
from gemini_emulator.testing.server import start

from redis_env import RedisServer

PARIS = b"Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris."
ROME = b"Rome is the capital of Italy. The Colosseum is an ancient amphitheatre in Rome."
UNAVAILABLE = {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}}


def _operation(url: str, name: str) -> dict[str, Any]:
    """The operation as a raw GET prints it."""
    answer = httpx.get(f"{url}/v1beta/{name}", headers=KEY, timeout=10)
    assert answer.status_code == 200, answer.text[:300]
    body: dict[str, Any] = answer.json()
    return body


def _done(url: str, name: str, timeout_s: float = 15) -> dict[str, Any]:
    """Poll the operation through `url` until it is done (bounded)."""
    deadline = time.monotonic() + timeout_s
    while True:
        body = _operation(url, name)
        if body.get("done"):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.02)


def _started(client: genai.Client, store: str, data: bytes) -> types.ImportFileOperation:
    """An import of `data` (a Files API file uploaded first) into `store`, as google-genai starts it."""
    file = client.files.upload(file=io.BytesIO(data), config={"mime_type": "text/plain"})
    return client.file_search_stores.import_file(file_search_store_name=store, file_name=str(file.name))


def _import(client: genai.Client, store: str, data: bytes) -> str:
    return str(_started(client, store, data).name)


def _script(url: str, body: dict[str, Any]) -> None:
    answer = httpx.put(url + "/__emulator/fileSearchStores/state", json=body, headers=KEY, timeout=10)
    assert answer.status_code == 200, answer.text[:300]


@pytest.mark.slow
def test_an_import_started_on_one_process_is_polled_done_on_another(
    serve: Any,  # noqa: F811 (test_workers' fixture)
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    store = str(on_a.file_search_stores.create(config={"display_name": "ops"}).name)
    started = _started(on_a, store, ROME)
    name = str(started.name)
    assert name.startswith(store + "/operations/")
    first = _operation(b.url, name)  # B knows it at once, running on its schedule
    assert first["name"] == name and "done" not in first
    done = _done(b.url, name)
    assert done["response"]["@type"].endswith("ImportFileResponse") and done["response"]["parent"] == store
    doc_name = done["response"]["documentName"]
    assert on_a.file_search_stores.documents.get(name=doc_name).state == types.DocumentState.STATE_ACTIVE
    assert _operation(a.url, name) == done  # the same operation printed by both
    polled = on_b.operations.get(started)  # google-genai's poll, through B
    assert polled.done and polled.response is not None and polled.response.document_name == doc_name
    listed = httpx.get(b.url + "/v1beta/operations", headers=KEY, timeout=10).json()["operations"]
    assert done in listed

    # an upload's operation (made through B) is done at the first poll through A
    upload = on_b.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store, file=io.BytesIO(PARIS), config={"mime_type": "text/plain"}
    )
    assert upload.name is not None and upload.response is not None
    through_a = _operation(a.url, upload.name)
    assert through_a["done"] is True and through_a["response"]["documentName"] == upload.response.document_name
    # deleted through A: gone for B too
    assert httpx.delete(f"{a.url}/v1beta/{name}", headers=KEY, timeout=10).status_code == 200
    assert httpx.get(f"{b.url}/v1beta/{name}", headers=KEY, timeout=10).status_code == 404


@pytest.mark.slow
def test_scripted_states_hold_and_fail_operations_across_processes(
    serve: Any,  # noqa: F811
    redis_url: str,
) -> None:
    a, b = serve(redis_url), serve(redis_url)
    on_a, on_b = _client(a.url), _client(b.url)
    store = str(on_a.file_search_stores.create(config={"display_name": "states"}).name)

    # scripted through A, taken by an import through B: held through both past its schedule
    _script(a.url, {"state": "STATE_PENDING"})
    held = _import(on_b, store, ROME)
    control = _import(on_b, store, PARIS)  # not scripted, started after: done once the held one's schedule is over
    _done(a.url, control)
    for url in (a.url, b.url):
        assert "done" not in _operation(url, held)
    held_doc = next(
        d for d in on_a.file_search_stores.documents.list(parent=store) if d.state == types.DocumentState.STATE_PENDING
    )
    _script(b.url, {"name": held_doc.name, "state": "STATE_ACTIVE"})  # released by name through B
    released = _done(a.url, held)
    assert released["response"]["documentName"] == held_doc.name
    assert on_a.file_search_stores.documents.get(name=str(held_doc.name)).state == types.DocumentState.STATE_ACTIVE

    # the next document failed through B, taken by an upload through A: its operation failed for both
    _script(b.url, {"state": "STATE_FAILED", "error": {"code": 3, "message": "Unsupported document."}})
    failed = on_a.file_search_stores.upload_to_file_search_store(
        file_search_store_name=store, file=io.BytesIO(b"Zebras graze."), config={"mime_type": "text/plain"}
    )
    assert failed.name is not None
    for url in (a.url, b.url):
        assert _done(url, failed.name)["error"] == {"code": 3, "message": "Unsupported document."}

    # held, then failed by name through A: the operation B polls ends with the error
    _script(b.url, {"state": "STATE_PENDING"})
    second = _import(on_a, store, b"Giraffes browse on acacia trees.")
    assert "done" not in _operation(b.url, second)
    pending = next(
        d for d in on_b.file_search_stores.documents.list(parent=store) if d.state == types.DocumentState.STATE_PENDING
    )
    _script(a.url, {"name": pending.name, "state": "STATE_FAILED", "error": {"code": 9, "message": "No."}})
    assert _done(b.url, second)["error"] == {"code": 9, "message": "No."}
    assert on_b.file_search_stores.documents.get(name=str(pending.name)).state == types.DocumentState.STATE_FAILED


def test_redis_unreachable_is_the_503_envelope_for_a_poll_and_an_import(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis").start()
    running = start(Settings(port=0, store=server.url))
    try:
        client = _client(running.url)
        store = str(client.file_search_stores.create(config={"display_name": "gone"}).name)
        file = client.files.upload(file=io.BytesIO(ROME), config={"mime_type": "text/plain"})
        name = _import(client, store, PARIS)
        server.stop()
        polled = httpx.get(f"{running.url}/v1beta/{name}", headers=KEY, timeout=10)
        assert polled.status_code == 503 and polled.json() == UNAVAILABLE
        imported = httpx.post(
            f"{running.url}/v1beta/{store}:importFile", headers=KEY, json={"fileName": file.name}, timeout=10
        )
        assert imported.status_code == 503 and imported.json() == UNAVAILABLE
    finally:
        running.stop()
        server.stop()
