"""The four pydantic-ai cassettes of production's file search (../shared/corpus: test_google_model_file_search_
tool[_stream].yaml, 2025-11, and ..._grounding_gemini_3[True|False].yaml, 2026-07) replayed against the emulator,
request for request (the store's name swapped for the one the emulator made): every answer has the status, the
upload headers, the content type and the key sets the recording has; where the recording kept the raw bytes (the
streams), the key order too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from gemini_emulator.captures.importers import VcrInteraction, vcr_interactions
from gemini_emulator.testing.pytest_plugin import Gemini

import corpus

NAMES = (
    "test_google_model_file_search_tool.yaml",
    "test_google_model_file_search_tool_stream.yaml",
    "test_google_model_file_search_grounding_gemini_3[True].yaml",
    "test_google_model_file_search_grounding_gemini_3[False].yaml",
)
CASSETTES = Path("pydantic-ai/tests/models/cassettes/test_google")


def _events(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in body.split(b"\n") if line.startswith(b"data:")]


def _shape(value: Any) -> Any:
    """Key sets all the way down (lists by their first element): what a parsed recording still tells."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k not in _VARYING}
    if isinstance(value, list) and value:
        return [_shape(value[0])]
    return type(value).__name__


_VARYING = {"thoughtSignature", "usageMetadata", "responseId", "modelVersion", "thought"}


def _order(value: Any) -> Any:
    """Key order all the way down, for raw recordings."""
    if isinstance(value, dict):
        return [(k, _order(v)) for k, v in value.items() if k not in _VARYING]
    if isinstance(value, list) and value:
        return [_order(value[0])]
    return None


def _last_grounded(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in reversed(events) if "groundingMetadata" in e["candidates"][0])["candidates"][0]


@pytest.mark.corpus
@pytest.mark.parametrize("name", NAMES)
def test_the_cassette_replays_with_production_shapes(gemini: Gemini, name: str) -> None:
    recorded = vcr_interactions((corpus.require_corpus() / CASSETTES / name).read_bytes())
    headers = {"x-goog-api-key": gemini.api_key}
    theirs = ours = ""
    upload_url = ""
    for step in recorded:
        step_headers = dict(headers)
        body: bytes | None = step.request_body
        path = step.uri.split("googleapis.com", 1)[1]
        if theirs:
            path = path.replace(theirs, ours)
            body = body.replace(theirs.encode(), ours.encode()) if body else body
        if "upload_id=" in path:  # the follow-up goes where the emulator's start answer pointed
            path, step_headers = upload_url, {"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"}
        elif ":uploadToFileSearchStore" in path:
            size = len(recorded[step.index + 1].request_body or b"")
            step_headers |= {
                "x-goog-upload-protocol": "resumable",
                "x-goog-upload-command": "start",
                "x-goog-upload-header-content-length": str(size),
                "x-goog-upload-header-content-type": "text/plain",
            }
        if body:
            step_headers["content-type"] = "application/json" if body.lstrip()[:1] in (b"{", b"[") else "text/plain"
        url = gemini.url + path if path.startswith("/") else path
        answer = httpx.request(step.method, url, content=body, headers=step_headers, timeout=30)
        assert answer.status_code == step.status, (name, step.index, answer.text)
        _compare(name, step, answer)
        if step.method == "POST" and path.endswith("/fileSearchStores"):
            theirs, ours = step.json["name"], answer.json()["name"]
        if "x-goog-upload-url" in step.headers:
            upload_url = answer.headers["x-goog-upload-url"]


def _compare(name: str, step: VcrInteraction, answer: httpx.Response) -> None:
    where = f"{name}#{step.index}"
    for header in ("x-goog-upload-status",):
        assert answer.headers.get(header) == step.headers.get(header), where
    assert answer.headers["content-type"].split(";")[0] == step.headers["content-type"].split(";")[0], where
    if step.body.startswith(b"data:"):  # a raw stream: the grounded event's key order is production's
        mine, recorded = _last_grounded(_events(answer.content)), _last_grounded(_events(step.body))
        assert _order(mine["groundingMetadata"]) == _order(recorded["groundingMetadata"]), where
        assert list(mine)[-1] == list(recorded)[-1] == "groundingMetadata", where
        return
    recorded_json = step.json
    if recorded_json is None:
        assert not answer.content, where
        return
    mine = answer.json()
    if "candidates" in recorded_json:
        recorded_json, mine = recorded_json["candidates"][0], mine["candidates"][0]
        recorded_json["content"]["parts"] = recorded_json["content"]["parts"][-1:]  # the text part
        mine["content"]["parts"] = mine["content"]["parts"][-1:]
    if "groundingSupports" not in recorded_json.get("groundingMetadata", {"groundingSupports": 0}):
        mine["groundingMetadata"].pop("groundingSupports", None)  # that answer cited nothing: the model's choice
    if "embeddingModel" in mine and "embeddingModel" not in recorded_json:  # 2025's stores printed none
        mine.pop("embeddingModel")
    assert _shape(mine) == _shape(recorded_json), where
