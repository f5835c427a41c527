"""The captures/ corpus: its format, provenance, stored facts, secrets, and the importers that made it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from gemini_emulator.captures.facts import facts, merged_order
from gemini_emulator.captures.format import (
    DEFAULT_DIR,
    FIDELITIES,
    REQUEST_HEADERS,
    RESPONSE_HEADERS,
    Capture,
    CaptureError,
    Request,
    load_dir,
    parse,
)
from gemini_emulator.captures.importers import (
    SECRET_PATTERN,
    fixture_exchange,
    httprr_exchange,
    js_genai_exchange,
    split_httprr,
    vcr_exchange,
    vcr_interactions,
    vcr_recorded_date,
)
from gemini_emulator.protocol import framing, printers

import corpus

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = load_dir()
IMPORTED_SOURCES = {
    "google/adk-go": "Apache-2.0",
    "tmc/langchaingo": "MIT",
    "googleapis/js-genai": "Apache-2.0",
    "FirebaseExtended/vertexai-sdk-test-data": "Apache-2.0",
    "pydantic/pydantic-ai": "MIT",
    "Mirascope/mirascope": "MIT",
}
# What the issue asks the corpus to show, each by at least one capture.
COVERAGE = {
    "minimal envelope": "developer/unary-minimal",
    "SSE framing": "developer/sse-minimal",
    "JSON-array framing": "developer/json-array-stream",
    "structured output": "vertex/structured-output-response-schema",
    "function call round trip": "conversations/function-call-round-trip",
    "thinking parts and signatures": "firebase/developer-sse-thinking-function-call",
    "countTokens": "count-tokens/vertex",
    "embeddings": "embeddings/batch-embed-contents",
    "prompt blocked": "firebase/vertex-unary-prompt-blocked",
    "mid-stream error": "errors/mid-stream-cancelled",
    "Vertex": "vertex/sse-system-instruction",
    "no credential": "errors/no-credential-unregistered-caller",
    "Vertex credentials missing": "errors/vertex-express-credentials-missing",
    "bad API key": "errors/api-key-invalid",
    "unknown model": "errors/unknown-model",
    "quota": "errors/quota-exceeded-2024",
    "user location": "errors/user-location-unsupported",
}


def test_the_corpus_covers_what_it_must() -> None:
    names = {c.name for c in CAPTURES}
    assert set(COVERAGE.values()) <= names
    assert len(CAPTURES) >= 100 and sum(len(c.exchanges) for c in CAPTURES) >= 190


def test_capture_files_are_stable_json() -> None:
    """Each file is exactly what Capture.dumps writes for it: re-imports and record mode diff cleanly."""
    for capture in CAPTURES:
        assert (DEFAULT_DIR / f"{capture.name}.json").read_bytes() == capture.dumps(), capture.name


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.name)
def test_stored_facts_are_the_facts_of_the_bytes(capture: Capture) -> None:
    for i, exchange in enumerate(capture.exchanges):
        assert exchange.facts == facts(exchange.response), f"{capture.name}#{i}"


def test_provenance_is_complete_and_honest() -> None:
    for capture in CAPTURES:
        p = capture.provenance
        assert capture.fidelity in FIDELITIES, capture.name
        if p["source"] in IMPORTED_SOURCES:
            assert p["licence"] == IMPORTED_SOURCES[p["source"]], capture.name
            assert len(p["commit"]) == 40 and p["path"], capture.name
        if capture.fidelity == "byte-exact":  # only traces of real HTTPS exchanges are byte evidence
            assert p["path"].endswith(".httprr") or p["source"] == "gemini-emulator record", capture.name
        if capture.fidelity == "edited":
            assert p["edits"], capture.name
        assert all(e.request.recorded for e in capture.exchanges) == (not p["path"].startswith("mock-responses/")), (
            capture.name
        )


def test_no_credential_is_stored() -> None:
    for path in sorted(DEFAULT_DIR.rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert not SECRET_PATTERN.search(text), path
        data = json.loads(text)
        for exchange in data["exchanges"]:
            request, response = exchange["request"], exchange["response"]
            assert set(request.get("headers", {})) <= set(REQUEST_HEADERS), path
            assert set(response["headers"]) <= set(RESPONSE_HEADERS), path
            assert not any(p.split("=")[0] in ("key", "access_token") for p in request.get("query", "").split("&"))


def test_unary_and_sse_bodies_are_what_the_printers_print() -> None:
    """The replay engine hands the wire parsed chunks: their printing must give the recorded bytes back, also
    for captures the wire cannot replay yet (JSON-array bodies: tests/protocol/test_framing_bytes.py)."""
    for capture in CAPTURES:
        for i, exchange in enumerate(capture.exchanges):
            response = exchange.response
            if response.framing == "html":
                continue
            answer = response.answer()
            if response.framing == "sse":
                events = b"".join(framing.sse_event(c) for c in answer.chunks)
                tail = framing.error_tail(answer.error) if answer.error and answer.chunks else b""
                assert events + tail == response.body, f"{capture.name}#{i}"
            elif response.framing == "unary":
                assert printers.pretty(orjson.loads(response.body)) == response.body, f"{capture.name}#{i}"


# --- the format --------------------------------------------------------------------------------------


def _minimal(**changes: object) -> dict:
    data = {
        "capture": 1,
        "name": "x/y",
        "description": "d",
        "provenance": {"source": "s", "licence": "l", "recorded": "2026-01-01", "fidelity": "byte-exact"},
        "exchanges": [
            {
                "request": {"method": "POST", "path": "/v1beta/models/m:generateContent", "body": "{}"},
                "response": {"status": 200, "headers": {"content-type": "application/json"}, "body": "{}\n"},
            }
        ],
    }
    data.update(changes)
    return data


def test_parse_round_trips() -> None:
    capture = parse(_minimal(), "x/y")
    assert parse(json.loads(capture.dumps()), "x/y").dumps() == capture.dumps()
    assert capture.exchanges[0].request.auth == "api-key" and capture.exchanges[0].response.body == b"{}\n"


@pytest.mark.parametrize(
    ("changes", "name", "message"),
    [
        ({}, "other/name", "must be the file's path"),
        ({"capture": 2}, "x/y", "format 2"),
        ({"provenance": {"source": "s", "licence": "l", "recorded": "r", "fidelity": "guessed"}}, "x/y", "fidelity"),
        ({"provenance": {"source": "s", "licence": "l", "recorded": "r", "fidelity": "edited"}}, "x/y", "edits"),
        ({"provenance": {"source": "s", "recorded": "r", "fidelity": "byte-exact"}}, "x/y", "licence"),
        ({"exchanges": []}, "x/y", "at least one exchange"),
    ],
)
def test_parse_names_what_is_wrong(changes: dict, name: str, message: str) -> None:
    with pytest.raises(CaptureError, match=message):
        parse(_minimal(**changes), name)


def test_load_dir_refuses_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="no captures directory"):
        load_dir(tmp_path / "absent")


def test_merged_order_keeps_every_list_order() -> None:
    assert merged_order([["a", "c"], ["a", "b", "c"], ["c", "d"]]) == ["a", "b", "c", "d"]


# --- importers ---------------------------------------------------------------------------------------------

KEY = "AIza" + "S" * 35


def _trace(request: bytes, response: bytes) -> bytes:
    return b"httprr trace v1\n%d %d\n" % (len(request), len(response)) + request + response


def test_httprr_import_keeps_bytes_and_drops_credentials() -> None:
    body = b'{"contents":[{"parts":[{"text":"hi ' + KEY.encode() + b'"}]}]}'
    request = (
        b"POST https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent"
        b"?alt=sse&key=" + KEY.encode() + b" HTTP/1.1\r\nHost: x\r\nX-Goog-Api-Key: " + KEY.encode() + b"\r\n"
        b"Content-Type: application/json\r\nCookie: c=1\r\n\r\n" + body
    )
    event = b'data: {"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}]}\r\n\r\n'
    response = (
        b"HTTP/2.0 200 OK\r\nContent-Type: text/event-stream\r\nContent-Disposition: attachment\r\n"
        b"Set-Cookie: s=1\r\nDate: Fri, 20 Feb 2026 12:38:32 GMT\r\n\r\n" + event + event
    )
    (pair,) = split_httprr(_trace(request, response))
    exchange, date = httprr_exchange(*pair, auth="api-key")
    assert date == "2026-02-20"
    assert exchange.request.query == "alt=sse" and exchange.request.headers == {"content-type": "application/json"}
    assert KEY not in exchange.request.body and "REDACTED" in exchange.request.body
    assert exchange.response.headers == {"content-type": "text/event-stream", "content-disposition": "attachment"}
    assert exchange.response.pieces == [event, event] and exchange.facts["chunks"] == 2


def test_js_genai_import_frames_segments_like_production() -> None:
    interaction = {
        "request": {"method": "POST", "url": "/v1beta/models/m:streamGenerateContent?alt=sse", "headers": {}},
        "response": {
            "statusCode": 200,
            "headers": {"Content-Type": "text/event-stream", "Date": "Fri, 24 Oct 2025 07:45:42 GMT"},
            "bodySegments": [{"a": 1}, {"b": 2}],
        },
    }
    exchange, date = js_genai_exchange(interaction, "api-key")
    assert date == "2025-10-24" and exchange.request.body is None
    assert exchange.response.pieces == [b'data: {"a": 1}\r\n\r\n', b'data: {"b": 2}\r\n\r\n']


def test_vcr_import_reprints_parsed_bodies_decodes_gzip_and_drops_credentials() -> None:
    """pydantic-ai's parsed_body is printed as production prints JSON; Mirascope's gzipped !!binary body is
    decoded; credentials in headers and query never pass."""
    import gzip

    import yaml

    cassette = {
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent?key=" + KEY,
                    "headers": {"x-goog-api-key": [KEY], "content-type": ["application/json"]},
                    "parsed_body": {"contents": [{"parts": [{"text": "hi"}]}]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["application/json; charset=UTF-8"]},
                    "parsed_body": {"candidates": [], "modelVersion": "m"},
                },
            },
            {
                "request": {
                    "method": "POST",
                    "uri": "https://aiplatform.googleapis.com/x:generateContent",
                    "body": "{}",
                },
                "response": {
                    "status": {"code": 404, "message": "Not Found"},
                    "headers": {"Content-Encoding": ["gzip"], "Date": ["Tue, 30 Dec 2025 10:00:00 GMT"]},
                    "body": {"string": gzip.compress(b'{"error": {"code": 404}}')},
                },
            },
        ]
    }
    first, second = vcr_interactions(yaml.safe_dump(cassette).encode())
    assert first.parsed and not second.parsed and second.body == b'{"error": {"code": 404}}'
    exchange = vcr_exchange(first, "api-key")
    assert exchange.request.query == "" and exchange.request.headers == {"content-type": "application/json"}
    assert exchange.response.body == printers.pretty({"candidates": [], "modelVersion": "m"})
    assert vcr_recorded_date(second) == "2025-12-30" and vcr_recorded_date(first) == ""
    assert vcr_exchange(second, "bearer").response.headers == {}


def test_fixture_import_takes_status_and_type_from_the_body() -> None:
    error = printers.pretty({"error": {"code": 429, "message": "m", "status": "RESOURCE_EXHAUSTED"}})
    request = Request("POST", "/v1beta/models/m:streamGenerateContent", "alt=sse", body="{}", recorded=False)
    exchange = fixture_exchange(error, request)
    assert exchange.response.status == 429 and exchange.response.content_type == "text/event-stream"
    assert exchange.facts["error"]["code"] == 429


@pytest.mark.corpus
def test_curated_import_reproduces_captures() -> None:
    """captures/ is exactly what the importers make of the pinned corpus: provenance can be checked."""
    corpus.require_corpus()
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "import_captures.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_a_request_that_is_not_json_still_loads() -> None:
    """Record mode keeps malformed requests (production's 400 is worth keeping); they parse to None."""
    data = _minimal()
    data["exchanges"][0]["request"]["body"] = "{not json"
    assert parse(data, "x/y").exchanges[0].request.json is None
