"""Golden tests: every capture in captures/ against the running server.

1. Replay: each capture's exchanges, sent as recorded to a namespace whose script hands them to that capture
   (`{"replay": name}`), come back with the recorded status, the headers that matter (content type,
   disposition, service tier, Www-Authenticate, Retry-After: as recorded, and absent when the recording lacks
   them) and the body bytes, cut where the recording's chunks are cut. Every capture, including those of
   retired models, countTokens, computeTokens, embeddings and the front end's HTML 404.
2. Facts: the same request answered by the scripted engine, with an entry carrying the recorded content
   (parts, finish reason, block reason, error: golden.scripted_entry), must show the capture's facts
   (captures/facts.py): framing, content type, key sets and orders, which chunks carry what. And
   the zero-config answer to each plain-text request must too. Every difference is either listed in
   DIVERGENCES with its reason, or fails the test; a divergence no capture needs any more fails as well.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from gemini_emulator.captures.facts import facts
from gemini_emulator.captures.format import RESPONSE_HEADERS, Capture, load_dir
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start

import corpus
import golden

CAPTURES = load_dir()
BY_NAME = {c.name: c for c in CAPTURES}

# --- differences between a capture's facts and the emulator's answer, each with its reason ---------------

ERA = "era"  # production changed since the capture; the emulator follows the 2026 traces
DELIBERATE = "deliberate"  # a documented choice (docs/conformance.md)
GAP = "gap"  # the emulator differs from current production: not yet conforming
UNSUPPORTED = "unsupported"  # content no scripted entry kind produces (a raw entry can)
KINDS = (ERA, DELIBERATE, GAP, UNSUPPORTED)

PRE_2026 = ("developer/int-enums-*", "developer/json-array-*", "developer/multimodal-*", "developer/structured-*")
PRE_2026 += (
    "developer/function-call-int-enums",
    "developer/sse-system-instruction-2025",
    "conversations/function-call-json-array",
)
FIREBASE_OLD = ("firebase/*", "errors/mid-stream-cancelled")
# pydantic-ai cassettes answered by gemini-2.0-flash (undated: its recorder keeps no Date header; the model
# was shut down in 2026).
PRE_2026 += ("conversations/vcr-any-mode-tool-without-arguments",)
VERTEX_2025 = ("vertex/unary-*", "vertex/sse-system-instruction", "vertex/structured-*", "vertex/function-call-*")


@dataclass(frozen=True)
class Divergence:
    """Differences (golden.differences texts; `*` matches anything) that the captures in `scope` may show."""

    id: str
    kind: str
    reason: str
    patterns: tuple[str, ...]
    scope: tuple[str, ...] = ("*",)

    def covers(self, capture: str, difference: str) -> bool:
        in_scope = any(fnmatch.fnmatchcase(capture, s) for s in self.scope)
        return in_scope and any(golden.matches(p, difference) for p in self.patterns)


DIVERGENCES: tuple[Divergence, ...] = (
    Divergence(
        "service-tier-2026",
        ERA,
        "usageMetadata.serviceTier is in every 2026-06 trace (gemini-3.5-flash) and in no earlier capture; the "
        "emulator always sends it, with the X-Gemini-Service-Tier header",
        ("keys.usageMetadata: adds serviceTier", "interimUsage: adds serviceTier"),
    ),
    Divergence(
        "logprobs-and-ratings-pre-2026",
        ERA,
        "answers before 2026 carried avgLogprobs, per-candidate safetyRatings and candidatesTokensDetails; no 2026 "
        "Developer trace does, and the emulator follows those",
        (
            "keys.candidate: lacks avgLogprobs",
            "keys.candidate: lacks safetyRatings",
            "keys.usageMetadata: lacks candidatesTokensDetails",
            "keys.promptFeedback: lacks safetyRatings",
        ),
        PRE_2026 + FIREBASE_OLD + VERTEX_2025,
    ),
    Divergence(
        "no-candidate-index-gemini-2.0",
        ERA,
        "gemini-2.0 and 1.5 answers (2025) had no candidate index; gemini-2.5 and later ones have `index: 0`",
        ("keys.candidate: adds index",),
        PRE_2026 + FIREBASE_OLD,
    ),
    Divergence(
        "interim-usage-pre-2026",
        ERA,
        "2025 streams left candidatesTokenCount out of the interim chunks' usageMetadata; 2026 streams carry it",
        ("interimUsage: adds candidatesTokenCount",),
        PRE_2026 + FIREBASE_OLD,
    ),
    Divergence(
        "fixture-without-ids",
        ERA,
        "these mock responses (Firebase test data, mostly gemini-2.0 era) lack responseId, modelVersion, "
        "createTime and usageMetadata, which every real 2025-2026 capture has",
        (
            "keys.response: adds responseId",
            "responseId: same-on-every-chunk, not absent",
            "keys.response: adds modelVersion",
            "modelVersion: * not absent",
            "keys.response: adds createTime",
            "keys.response: adds usageMetadata",
            "keys.usageMetadata: adds the object",
            "usageMetadata: * not absent",
            "keys.usageMetadata: adds trafficType",
            "keys.usageMetadata: adds candidatesTokensDetails",
            "keys.usageMetadata: adds promptTokensDetails",
        ),
        FIREBASE_OLD,
    ),
    Divergence(
        "thought-signature-without-thinking",
        ERA,
        "models without thinking (gemini-2.0, retired in 2026) sent no thoughtSignature; the emulator signs the "
        "first function call of every model, as every current (thinking) model does",
        ("keys.part: adds thoughtSignature",),
        PRE_2026 + FIREBASE_OLD + VERTEX_2025,
    ),
    Divergence(
        "function-call-id-before-gemini-3",
        GAP,
        "production gives functionCall an id only on Gemini 3 models (2026 traces); gemini-2.x calls have none, "
        "but the scripted engine mints one on every model (engines/scripted/render.py)",
        ("keys.functionCall: adds id",),
    ),
    Divergence(
        "function-call-finish-message",
        GAP,
        'production varies: finishMessage "Model generated function call(s)." is on most function-call turns but '
        "absent from some 2.5 SSE streams and some 3.5 unary turns; the emulator follows the majority rule "
        "(engines/scripted/render.py::function_call_message)",
        ("keys.candidate: lacks finishMessage", "keys.candidate: adds finishMessage"),
    ),
    Divergence(
        "gemini-3-trailing-signature-part",
        GAP,
        "Gemini 3 streams end a function-call turn with an extra {text: '', thoughtSignature} part; a scripted "
        "function call has no such part",
        ("keys.part: lacks text",),
        ("conversations/parallel-function-calls-sse-gemini-3*",),
    ),
    Divergence(
        "unexpected-tool-call-shape",
        GAP,
        "production's UNEXPECTED_TOOL_CALL chunk has no content, modelVersion or responseId; a scripted answer "
        "always has them",
        (
            "keys.candidate: adds content",
            "keys.content: adds the object",
            "keys.part: adds the object",
            "keys.response: adds modelVersion",
            "keys.response: adds responseId",
            "responseId: same-on-every-chunk, not absent",
            "modelVersion: only-chunk, not absent",
        ),
        ("conversations/unexpected-tool-call",),
    ),
    Divergence(
        "vertex-candidate-index",
        DELIBERATE,
        "the Firebase Vertex fixtures give candidates `index: 0`, the 2025-10 js-genai Vertex recordings do "
        "not; the emulator follows the newer recordings",
        ("keys.candidate: lacks index",),
        ("firebase/vertex-*", "errors/mid-stream-cancelled"),
    ),
    Divergence(
        "vertex-content-key-order",
        DELIBERATE,
        "Vertex fixtures disagree on content key order (role, parts in the CRLF streams; parts, role in these "
        "unary files); the emulator prints role first, as the streams do",
        ("keys.content: order role < parts, not parts < role",),
        ("firebase/vertex-*",),
    ),
    Divergence(
        "billable-prompt-usage-2025",
        ERA,
        "usageMetadata.billablePromptUsage is in js-genai's 2025-08..12 Vertex recordings (57 of 60) and in none "
        "of the 113 Vertex answers pydantic-ai recorded (2025-05/06, 2026-02..07); the emulator follows 2026",
        ("keys.usageMetadata: lacks billablePromptUsage", "interimUsage: lacks billablePromptUsage"),
        VERTEX_2025,
    ),
    Divergence(
        "vertex-avg-logprobs-fixtures",
        ERA,
        "these Firebase Vertex mock responses (gemini-2.0 era, trimmed by hand) have no avgLogprobs; 108 of 108 "
        "real Vertex unary answers without a server-side tool have it (pydantic-ai VCR, 2025-05..2026-07)",
        ("keys.candidate: adds avgLogprobs",),
        ("firebase/vertex-unary-*",),
    ),
    Divergence(
        "vertex-call-id-2026-07",
        GAP,
        "the one 2026-07 Vertex function call recorded carries an id; the 64 Vertex gemini-3 calls of 2026-02/03 "
        "have none, and the emulator follows them until newer recordings settle it",
        ("keys.functionCall: lacks id",),
        ("vertex/vcr-tool-combination-2026",),
    ),
    Divergence(
        "turn-token",
        UNSUPPORTED,
        "turnToken (an opaque resume token of some 2025-2026 answers) is never produced: no SDK reads it",
        ("keys.response: lacks turnToken",),
    ),
    Divergence(
        "vertex-candidate-score",
        UNSUPPORTED,
        "Vertex 2025 candidates carried a `score`; the emulator does not produce it",
        ("keys.candidate: lacks score",),
        VERTEX_2025,
    ),
    Divergence(
        "grounding-citations-feedback",
        UNSUPPORTED,
        "grounding, URL context and citation metadata and blockReasonMessage come from tools and classifiers the "
        "emulator does not run; a raw entry serves them",
        (
            "keys.candidate: lacks groundingMetadata",
            "keys.candidate: lacks urlContextMetadata",
            "keys.candidate: lacks citationMetadata",
            "keys.promptFeedback: lacks blockReasonMessage",
        ),
    ),
    Divergence(
        "odd-fixtures",
        ERA,
        "hand-picked Firebase fixtures of shapes no real capture shows: `candidates: []` with a promptFeedback "
        "lacking blockReason, an empty content object without finishReason, a 2024 mid-stream error whose "
        "chunks carry finishReason and safety ratings but no usage",
        (
            "keys.response: lacks promptFeedback",
            "keys.candidate: adds the object",
            "keys.candidate: adds content",
            "keys.candidate: adds finishReason",
            "finishReason: only-chunk, not absent",
            "keys.content: adds the object",
            "keys.part: adds the object",
            "keys.candidate: lacks finishReason",
            "keys.content: adds role",
            "finishReason: absent, not every-chunk",
            "enums: None, not names",
        ),
        (
            "firebase/developer-unary-only-prompt-feedback",
            "firebase/vertex-sse-empty-content",
            "firebase/vertex-sse-short",
            "errors/mid-stream-cancelled",
            "firebase/developer-unary-finish-other-message",
        ),
    ),
    Divergence(
        "stand-in-model-thinks",
        ERA,
        "these answers came from models without thinking (gemini-2.0, 1.5), since retired; the request is asked "
        "again of gemini-2.5-flash, whose zero-config answer counts thought tokens",
        ("keys.usageMetadata: adds thoughtsTokenCount", "interimUsage: adds thoughtsTokenCount"),
        PRE_2026 + FIREBASE_OLD,
    ),
    Divergence(
        "no-implicit-cache-or-tools",
        UNSUPPORTED,
        "the zero-config answer never hits an implicit cache nor runs server-side tools, so it has no "
        "cachedContentTokenCount or toolUsePromptTokenCount (a script's `usage` sets them)",
        (
            "keys.usageMetadata: lacks cachedContentTokenCount",
            "keys.usageMetadata: lacks cacheTokensDetails",
            "keys.usageMetadata: lacks toolUsePromptTokenCount",
            "keys.usageMetadata: lacks toolUsePromptTokensDetails",
        ),
    ),
    Divergence(
        "function-call-without-args",
        ERA,
        "this fixture's call has no args member; the emulator always sends args ({} when empty), as every real "
        "capture does",
        ("keys.functionCall: adds args",),
        ("firebase/vertex-unary-function-call-empty-args",),
    ),
    Divergence(
        "count-tokens-shape",
        ERA,
        "countTokens: the 2024 Vertex fixtures lack promptTokensDetails (one also totalBillableCharacters); an "
        "Oct-2025 Developer capture adds contentTokens and systemInstructionsTokens, which no SDK reads",
        (
            "keys.response: adds promptTokensDetails",
            "keys.response: adds totalBillableCharacters",
            "keys.response: lacks contentTokens",
            "keys.response: lacks systemInstructionsTokens",
        ),
        ("count-tokens/*",),
    ),
)

# --- the server and what it answers --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Any:
    running = start(Settings(port=0))  # the default stack: httptools on uvloop where installed
    yield running
    running.stop()


@pytest.fixture(scope="module")
def fallback_server() -> Any:
    running = start(Settings(port=0, http="h11", loop="asyncio"))  # where httptools or uvloop cannot install
    yield running
    running.stop()


def _script(server: RunningEmulator, namespace: str, entry: dict[str, Any]) -> None:
    resp = httpx.post(server.url + "/__emulator/script", headers={"x-emulator-namespace": namespace}, json=entry)
    assert resp.status_code == 200, resp.text


def _params(captures: list[Capture]) -> list[Any]:
    return [pytest.param(c, id=c.name) for c in captures]


# --- 1. replay ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("capture", _params(CAPTURES))
def test_capture_replays_byte_for_byte(server: RunningEmulator, capture: Capture) -> None:
    _replays_byte_for_byte(server, capture)


def test_every_capture_replays_byte_for_byte_on_the_fallback_stack(fallback_server: RunningEmulator) -> None:
    """h11 on asyncio serves the very bytes the default stack does (one test: the ids above name the claims)."""
    for capture in CAPTURES:
        _replays_byte_for_byte(fallback_server, capture)


def _replays_byte_for_byte(server: RunningEmulator, capture: Capture) -> None:
    namespace = "golden-replay:" + capture.name
    _script(server, namespace, {"replay": capture.name, "times": "forever"})
    for i, exchange in enumerate(capture.exchanges):
        recorded = exchange.response
        served = golden.send(server.url, exchange.request, {"x-emulator-namespace": namespace})
        where = f"{capture.name}#{i}"
        assert served.status == recorded.status, f"{where}: {served.body[:300]!r}"
        # The headers that matter, as recorded: all of them, present or absent, where production's were kept;
        # a response-only capture has only those its framing implies.
        for name in RESPONSE_HEADERS if exchange.headers_recorded else recorded.headers:
            assert served.headers.get(name) == recorded.headers.get(name), f"{where}: {name}"
        assert served.body == recorded.body, f"{where}: {corpus.first_difference(recorded.body, served.body)}"
        missing = golden.boundaries(recorded.pieces) - golden.boundaries(served.pieces)
        assert not missing, f"{where}: recorded chunk boundaries at {sorted(missing)} arrived merged"


# --- 2. facts -----------------------------------------------------------------------------------------------


class Comparisons:
    """Each capture's differences from the emulator's answers, computed once per capture and mode."""

    def __init__(self, server: RunningEmulator) -> None:
        self.server = server
        self._cache: dict[tuple[str, str], list[tuple[int, list[str]]]] = {}

    def scripted(self, capture: Capture) -> list[tuple[int, list[str]]]:
        return self._compare(capture, "scripted")

    def zero_config(self, capture: Capture) -> list[tuple[int, list[str]]]:
        return self._compare(capture, "zero-config")

    def _compare(self, capture: Capture, mode: str) -> list[tuple[int, list[str]]]:
        key = (capture.name, mode)
        if key not in self._cache:
            out = []
            for i, exchange in enumerate(capture.exchanges):
                if mode == "zero-config" and not zero_config_comparable(exchange):
                    continue
                namespace = f"golden-{mode}:{capture.name}#{i}"
                if mode == "scripted":
                    _script(self.server, namespace, golden.scripted_entry(exchange.response))
                request = golden.servable(exchange.request, exchange.response.status)
                served = golden.send(self.server.url, request, {"x-emulator-namespace": namespace})
                found = golden.differences(
                    exchange.facts, facts(served.as_response()), capture.fidelity != "re-serialised"
                )
                if served.status != exchange.response.status:
                    found.insert(0, f"status: {served.status}, not {exchange.response.status}")
                out.append((i, found))
            self._cache[key] = out
        return self._cache[key]


def zero_config_comparable(exchange: Any) -> bool:
    body = exchange.request.json
    return golden.plain_text(exchange.response) and not (isinstance(body, dict) and body.get("tools"))


def replayable_by_engine(capture: Capture) -> bool:
    """Whether a script entry can carry the capture's answer (an HTML page is the front end's alone)."""
    return all(e.response.framing != "html" for e in capture.exchanges)


@pytest.fixture(scope="module")
def comparisons(server: RunningEmulator) -> Comparisons:
    return Comparisons(server)


def _explain(capture: Capture, found: list[tuple[int, list[str]]]) -> tuple[set[str], list[str]]:
    used: set[str] = set()
    unexplained = []
    for i, differences in found:
        for difference in differences:
            covering = [d.id for d in DIVERGENCES if d.covers(capture.name, difference)]
            if covering:
                used.update(covering)
            else:
                unexplained.append(f"#{i} {difference}")
    return used, unexplained


FACT_CAPTURES = [c for c in CAPTURES if replayable_by_engine(c)]
ZERO_CONFIG_CAPTURES = [c for c in FACT_CAPTURES if any(zero_config_comparable(e) for e in c.exchanges)]


@pytest.mark.parametrize("capture", _params(FACT_CAPTURES))
def test_scripted_answer_keeps_the_capture_facts(comparisons: Comparisons, capture: Capture, record_property) -> None:
    used, unexplained = _explain(capture, comparisons.scripted(capture))
    record_property("divergences", ",".join(sorted(used)))
    assert not unexplained, f"{capture.name}: differences no DIVERGENCES entry explains:\n" + "\n".join(unexplained)


@pytest.mark.parametrize("capture", _params(ZERO_CONFIG_CAPTURES))
def test_zero_config_answer_keeps_the_capture_facts(
    comparisons: Comparisons, capture: Capture, record_property
) -> None:
    used, unexplained = _explain(capture, comparisons.zero_config(capture))
    record_property("divergences", ",".join(sorted(used)))
    assert not unexplained, f"{capture.name}: differences no DIVERGENCES entry explains:\n" + "\n".join(unexplained)


def test_every_divergence_is_still_needed(comparisons: Comparisons) -> None:
    used: set[str] = set()
    for capture in FACT_CAPTURES:
        used |= _explain(capture, comparisons.scripted(capture))[0]
    for capture in ZERO_CONFIG_CAPTURES:
        used |= _explain(capture, comparisons.zero_config(capture))[0]
    ids = [d.id for d in DIVERGENCES]
    assert len(ids) == len(set(ids)) and all(d.kind in KINDS for d in DIVERGENCES)
    assert not set(ids) - used, f"divergences no capture shows any more (remove them): {sorted(set(ids) - used)}"
