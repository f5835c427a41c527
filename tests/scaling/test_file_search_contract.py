"""The file search contract on the Redis store: every test of the in-memory file search modules
(tests/wire/resources/test_file_search*.py: google-genai and httpx against a real server: stores, uploads resumable
and multipart, imports, documents, pages, states, bounds, media, other keys, the captures replayed, and generate
calls grounded by the `fileSearch` tool) run again on an emulator whose file search stores live on a real
redis-server (tests/scaling/conftest.py), so both stores pass one suite. The byte-budget test reads the store's
counter, which on Redis is Redis's: it is run here in its Redis spelling."""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import errors

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.config import Settings
from gemini_emulator.testing.pytest_plugin import SETTINGS_MARKER, Gemini, _point_sdks, _test_key
from gemini_emulator.testing.server import RunningEmulator, start

from redis_env import RedisServer

_ROOT = Path(__file__).parents[1] / "wire" / "resources"
ONLY_IN_MEMORY = {"test_the_documents_byte_budget"}  # reads ctx.file_search.used: below, on Redis's counter
for _name in ("test_file_search", "test_file_search_generate", "test_file_search_captures", "test_file_search_media"):
    _spec = importlib.util.spec_from_file_location(f"{_name}_contract_source", _ROOT / f"{_name}.py")
    assert _spec is not None and _spec.loader is not None
    _suite = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_suite)
    globals().update({k: v for k, v in vars(_suite).items() if k.startswith("test_") and k not in ONLY_IN_MEMORY})

PARIS = b"Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris."


@pytest.fixture(scope="module")
def gemini_emulator(redis_server: RedisServer) -> Iterator[RunningEmulator]:
    """This module's emulator: file search stores, scripts and the journal on the session's redis-server."""
    redis_server.client().flushall()
    running = start(Settings(port=0, store=redis_server.url))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def _gemini_resetter(gemini_emulator: RunningEmulator) -> Iterator[AdminClient]:
    admin = AdminClient(gemini_emulator.url, admin_token=gemini_emulator.settings.admin_token)
    yield admin
    admin.close()


@pytest.fixture
def gemini_fresh(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, redis_server: RedisServer
) -> Iterator[Gemini]:
    """An emulator for this test alone on the Redis store (emptied first), with the test's settings marker."""
    redis_server.client().flushall()
    marker = request.node.get_closest_marker(SETTINGS_MARKER)
    fields: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    running = start(Settings(**{"port": 0, **fields, "store": redis_server.url}))
    handle = Gemini(running, _test_key())
    _point_sdks(monkeypatch, handle.url, handle.api_key)
    yield handle
    handle.close()
    running.stop()


@pytest.mark.gemini_settings(file_search_budget_bytes=100)
def test_the_documents_byte_budget_counted_in_redis(gemini_fresh: Gemini) -> None:
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
    assert ctx.shared_search is not None and ctx.shared_search.used == len(PARIS)
    assert ctx.file_search.used == 0 and ctx.files.used == 0  # nothing held in this process
    client.file_search_stores.delete(name=store.name, config={"force": True})
    assert ctx.shared_search.used == 0
