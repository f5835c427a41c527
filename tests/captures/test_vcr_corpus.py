"""The VCR cassettes of pydantic-ai and Mirascope (../shared/corpus), read as the corpus tests read the httprr
traces: every Gemini interaction imports, and the counts the code and docs/conformance.md cite are the counts
in the recordings (issue 13). A count that changes here means the evidence moved: update the citing text."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from gemini_emulator.captures.facts import facts
from gemini_emulator.captures.importers import VcrInteraction, vcr_exchange, vcr_recorded_date
from gemini_emulator.wire.responses import server_tools

import corpus


@cache
def recorded() -> tuple[tuple[Path, VcrInteraction], ...]:
    return tuple(corpus.gemini_interactions())


def _vertex(i: VcrInteraction) -> bool:
    return "aiplatform.googleapis.com" in i.uri.split("/")[2]


def _rpc(i: VcrInteraction) -> str:
    return i.uri.split("?")[0].rsplit(":", 1)[-1]


def _chunks(i: VcrInteraction) -> list[dict[str, Any]]:
    if i.body.startswith(b"data:"):
        return [json.loads(line[5:]) for line in i.body.split(b"\n") if line.startswith(b"data:")]
    body = i.json
    return [body] if isinstance(body, dict) else []


def _candidates(i: VcrInteraction) -> list[dict[str, Any]]:
    return [c for chunk in _chunks(i) for c in chunk.get("candidates") or []]


def _parts(i: VcrInteraction) -> list[dict[str, Any]]:
    firsts = [(chunk.get("candidates") or [{}])[0] for chunk in _chunks(i)]
    return [p for c in firsts for p in (c.get("content") or {}).get("parts", [])]


def _generations(status: int = 200) -> list[tuple[Path, VcrInteraction]]:
    return [(p, i) for p, i in recorded() if _rpc(i).endswith("enerateContent") and i.status == status]


def _ends_in_function_response(body: dict[str, Any]) -> bool:
    contents = body.get("contents") or []
    return bool(contents) and any("functionResponse" in p for p in contents[-1].get("parts", []))


def _mode(body: dict[str, Any]) -> str | None:
    return ((body.get("toolConfig") or {}).get("functionCallingConfig") or {}).get("mode")


def test_every_gemini_interaction_imports_with_its_facts() -> None:
    seen = recorded()
    assert len(seen) >= 500
    backends = Counter("vertex" if _vertex(i) else "developer" for _, i in seen)
    assert backends["vertex"] >= 100 and backends["developer"] >= 400
    for path, interaction in seen:
        exchange = vcr_exchange(interaction, "bearer" if _vertex(interaction) else "api-key")
        assert exchange.facts == facts(exchange.response), f"{path.name}#{interaction.index}"
    dates = sorted(d for _, i in seen if (d := vcr_recorded_date(i)))
    assert dates[0] <= "2025-06-01" and dates[-1] >= "2026-07-01"


def test_a_tool_without_arguments_is_answered() -> None:
    """9 requests declare `parameters: {type: OBJECT, properties: {}}`, all answered 200 (schema_rules.py)."""
    statuses = [
        i.status
        for _, i in recorded()
        for tool in ((i.request_json or {}).get("tools") or [])
        if isinstance(tool, dict)
        for decl in tool.get("functionDeclarations") or []
        if (decl.get("parameters") or {}).get("type") == "OBJECT" and decl["parameters"].get("properties") == {}
    ]
    assert statuses == [200] * 9


def test_after_a_tool_result() -> None:
    """Mode ANY calls again (18 of 18); JSON output stays JSON (5 of 5) (engines/synth/tools.py, answer.py)."""
    any_mode, json_out = Counter(), Counter()
    for _, i in _generations():
        body = i.request_json or {}
        if not _ends_in_function_response(body):
            continue
        called = any("functionCall" in p for p in _parts(i))
        if _mode(body) == "ANY":
            any_mode[called] += 1
        config = body.get("generationConfig") or {}
        schema = config.get("responseSchema") or config.get("responseJsonSchema")
        if config.get("responseMimeType") == "application/json" and schema:
            text = "".join(p.get("text", "") for p in _parts(i) if not p.get("thought"))
            json_out[bool(json.loads(text))] += 1
    assert any_mode == {True: 18}
    assert json_out == {True: 5}


def test_vertex_answers() -> None:
    """No billablePromptUsage; avgLogprobs on unary answers without a server-side tool, never on streams; no
    finishMessage on a call (responses.py, engines/scripted/render.py)."""
    vertex = [i for _, i in _generations() if _vertex(i)]
    assert len(vertex) == 113  # 112 unary, 1 stream
    assert not any("billablePromptUsage" in (c.get("usageMetadata") or {}) for i in vertex for c in _chunks(i))
    logprobs = Counter(
        (server_tools((i.request_json or {}).get("tools")), "avgLogprobs" in c)
        for i in vertex
        if not i.body.startswith(b"data:")
        for c in _candidates(i)
    )
    assert logprobs == {(False, True): 108, (True, False): 3}
    streamed = [c for i in vertex if i.body.startswith(b"data:") for c in _candidates(i)]
    assert streamed and not any("avgLogprobs" in c for c in streamed)
    calls = [
        c
        for i in vertex
        for c in _candidates(i)
        if c.get("finishReason") == "STOP"
        and any("functionCall" in p for p in (c.get("content") or {}).get("parts", []))
    ]
    assert len(calls) == 60 and not any("finishMessage" in c for c in calls)
    ids = Counter("id" in p["functionCall"] for i in vertex for p in _parts(i) if "functionCall" in p)
    assert ids == {False: 64, True: 1}


def test_model_not_found_bodies() -> None:
    """Every 404 is {code, message, status}; stream and batch name generateContent and embedContent (errors.py)."""
    found = [i for _, i in recorded() if i.status == 404]
    assert len(found) == 7
    assert all(set(i.json["error"]) == {"code", "message", "status"} for i in found)
    named = Counter((_rpc(i), i.json["error"]["message"].split("not supported for ")[1].split(".")[0]) for i in found)
    assert named == {
        ("generateContent", "generateContent"): 3,
        ("streamGenerateContent", "generateContent"): 2,
        ("countTokens", "countTokens"): 1,
        ("batchEmbedContents", "embedContent"): 1,
    }
    wording = Counter("ModelService.ListModels" in i.json["error"]["message"] for i in found)
    assert wording == {False: 6, True: 1}


def test_gemini_embedding_2_batch_usage() -> None:
    usage = Counter(
        (i.uri.split("/models/")[1].split(":")[0], tuple(i.json.get("usageMetadata") or ()))
        for _, i in recorded()
        if _rpc(i) == "batchEmbedContents" and i.status == 200
    )
    assert usage[("gemini-embedding-2", ("promptTokenCount", "promptTokenDetails"))] == 8


def test_consecutive_call_turns_tools_object_and_empty_prompt() -> None:
    """Calls in consecutive model turns pair with one response turn (4 answered 200, tool_rules.py); `tools`
    as one object was accepted (2); an empty-text prompt counts 1 token (2)."""
    consecutive, single, empty = [], [], []
    for _, i in recorded():
        body = i.request_json
        if not isinstance(body, dict) or not _rpc(i).endswith("enerateContent"):
            continue
        turns = [
            (c.get("role"), any("functionCall" in p for p in c.get("parts", []))) for c in body.get("contents") or []
        ]
        if any(a == b == ("model", True) for a, b in zip(turns, turns[1:], strict=False)):
            consecutive.append(i.status)
        if isinstance(body.get("tools"), dict):
            single.append(i.status)
        texts = [p.get("text") for c in body.get("contents") or [] for p in c.get("parts", []) if "text" in p]
        if texts and not any(texts) and not body.get("systemInstruction") and i.status == 200:
            empty.append(_chunks(i)[-1]["usageMetadata"]["promptTokenCount"])
    assert consecutive == [200] * 4
    assert single == [200] * 2
    assert empty == [1, 1]
