"""The stream framers against production's own bytes, and the emulator's streams on a real socket.
[wire-facts §5]

- JSON-array streams (no `alt=sse`): the tmc-langchaingo httprr traces, byte-exact.
- SSE streams: google-adk-go httprr traces (byte-exact) and the Firebase CRLF fixtures (verbatim).
- Mid-stream error tail: Firebase vertexai/streaming-failure-error-mid-stream.txt. That file is
  LF-only (its SSE separators were re-typed by hand), so only what it shows faithfully is pinned:
  the event payloads, their order, and the raw pretty `{"error": ...}` object right after the last
  event with nothing between, nothing after. The separators are production's CRLF ones.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from httpx_sse import EventSource, connect_sse

from gemini_emulator.protocol import framing, printers
from gemini_emulator.protocol.errors import ApiError
from gemini_emulator.wire import faults

import corpus as captures

MIN_ARRAY_BODIES = 4
MIN_SSE_BODIES = 21
MIN_FIREBASE_BODIES = 17
MID_STREAM = "vertexai/streaming-failure-error-mid-stream.txt"


async def _chunks(items: list[dict[str, Any]], error: ApiError | None = None) -> AsyncIterator[faults.Built]:
    for item in items:
        await asyncio.sleep(0)
        yield item, None
    if error is not None:
        raise error


def _frame(framer: framing.Framer, items: list[dict[str, Any]], error: ApiError | None = None) -> bytes:
    """The body `framer` writes for these chunks, as the wire drives it (emulator/wire/faults.py, no fault)."""

    async def run() -> list[bytes]:
        return [piece async for piece in faults.streamed(framer, (items[0], None), _chunks(items[1:], error))]

    return b"".join(asyncio.run(run()))


def _sse_payloads(body: bytes) -> list[str]:
    """The events' data as a well-kept SSE client library reads them."""
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return [event.data for event in EventSource(response).iter_sse()]


# --- JSON array --------------------------------------------------------------------------------


@pytest.mark.corpus
def test_json_array_reproduces_every_captured_array_stream() -> None:
    bodies = 0
    elements = 0
    failures = []
    for ex in captures.exchanges():
        if not captures.is_json_array_stream(ex):
            continue
        assert ex.header("Content-Type") == "application/json; charset=UTF-8", ex.name
        items = orjson.loads(ex.body)
        assert isinstance(items, list) and items, ex.name
        got = _frame(framing.json_array, items)
        if got != ex.body:
            failures.append(f"{ex.name}: {captures.first_difference(ex.body, got, ex.body_offset)}")
        bodies += 1
        elements += len(items)
    print(f"json_array: {bodies} stream bodies ({elements} elements) reproduced")
    assert not failures, "\n".join(failures)
    assert bodies >= MIN_ARRAY_BODIES


@pytest.mark.corpus
def test_json_array_separators_in_the_long_capture() -> None:
    """The 13-element capture named in wire-facts §5.2: 12 `}\\n,\\r\\n{` separators, `\\n]` at the end."""
    path = captures.require_corpus() / "tmc-langchaingo/llms/googleai/testdata/TestGoogleAIWithStreaming.httprr"
    (ex,) = captures.read_httprr(path)
    assert len(ex.body) == 12232 and ex.body.count(b"}\n,\r\n{") == 12 and ex.body.endswith(b"}\n]")
    assert _frame(framing.json_array, orjson.loads(ex.body)) == ex.body


# --- SSE ---------------------------------------------------------------------------------------


@pytest.mark.corpus
def test_sse_reproduces_every_httprr_sse_body() -> None:
    bodies = 0
    events = 0
    failures = []
    for ex in captures.exchanges():
        if not captures.is_sse(ex):
            continue
        assert ex.header("Content-Type") == "text/event-stream", ex.name
        assert ex.header("Content-Disposition") == "attachment", ex.name
        raw = captures.split_sse(ex.body)  # data events only, the last one terminated
        payloads = _sse_payloads(ex.body)
        assert [e[6:-4].decode() for e in raw] == payloads, ex.name
        got = _frame(framing.sse, [orjson.loads(p) for p in payloads])
        if got != ex.body:
            failures.append(f"{ex.name}: {captures.first_difference(ex.body, got, ex.body_offset)}")
        bodies += 1
        events += len(raw)
    print(f"sse: {bodies} httprr bodies ({events} events) reproduced")
    assert not failures, "\n".join(failures)
    assert bodies >= MIN_SSE_BODIES


@pytest.mark.corpus
def test_sse_reproduces_every_verbatim_firebase_body() -> None:
    bodies = 0
    failures = []
    for path in captures.firebase_sse_files():
        name = captures.firebase_name(path)
        if name in captures.FIREBASE_SSE_EDITED or name in captures.FIREBASE_SSE_UNTERMINATED:
            continue
        data = path.read_bytes()
        payloads = _sse_payloads(data)
        assert len(payloads) == len(captures.split_sse(data)), name
        got = _frame(framing.sse, [orjson.loads(p) for p in payloads])
        if got != data:
            failures.append(f"{name}: {captures.first_difference(data, got)}")
        bodies += 1
    print(f"sse: {bodies} Firebase CRLF bodies reproduced")
    assert not failures, "\n".join(failures)
    assert bodies >= MIN_FIREBASE_BODIES


@pytest.mark.corpus
def test_sse_mid_stream_error_tail() -> None:
    data = (captures.require_corpus() / captures.FIREBASE_MOCKS / MID_STREAM).read_bytes()
    # What the file shows: two LF-separated events, then the raw pretty error object.
    head, sep, tail = data.partition(b"\n\n{\n")
    assert sep and b"\r" not in data
    tail = b"{\n" + tail
    lf_events = [e + b"\n\n" for e in (head + b"\n\n").split(b"\n\n")[:-1]]
    assert len(lf_events) == 2 and all(e.startswith(b"data: ") for e in lf_events)
    assert b"".join(lf_events) + tail == data
    # The tail is exactly the pretty envelope, trailing newline included, and ends the body.
    envelope = orjson.loads(tail)["error"]
    error = ApiError(envelope["code"], envelope["message"], envelope["status"], envelope["details"])
    assert (error.code, error.status) == (499, "CANCELLED")
    assert framing.error_tail(error) == tail
    # The payloads are production's one-line form.
    chunks = [orjson.loads(e[6:-2]) for e in lf_events]
    assert [printers.line(c) for c in chunks] == [e[6:-2] for e in lf_events]
    # The framer: CRLF events, then the tail straight after the last terminator, then nothing.
    expected = b"".join(b"data: " + e[6:-2] + b"\r\n\r\n" for e in lf_events) + tail
    got = _frame(framing.sse, chunks, error)
    assert got == expected, captures.first_difference(expected, got)
    # A client sees the two events (the raw object is not an SSE event: no `data:` line).
    assert _sse_payloads(got) == [e[6:-2].decode() for e in lf_events]


def test_sse_error_after_first_chunk_only_keeps_the_first_event() -> None:
    first = {"candidates": [{"content": {"parts": [{"text": "a"}], "role": "model"}, "index": 0}]}
    error = ApiError(503, "The model is overloaded. Please try again later.")
    got = _frame(framing.sse, [first], error)
    event = b"data: " + printers.line(first) + b"\r\n\r\n"
    assert (
        got == event + b'{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded. Please try '
        b'again later.",\n    "status": "UNAVAILABLE"\n  }\n}\n'
    )


# --- the emulator's own streams, over a real socket ------------------------------------------------

PROMPT = {"contents": [{"role": "user", "parts": [{"text": "Write three paragraphs about <b>tags</b> & café"}]}]}
MODEL = "/v1beta/models/gemini-2.5-flash"
KEY = {"x-goog-api-key": "any-key"}


def _reference_line(obj: Any) -> bytes:
    """An oracle independent of orjson: stdlib json with production's separators and escaping."""
    text = json.dumps(obj, separators=(",", ": "), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").encode()


def _reference_indented(obj: Any) -> bytes:
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").encode()


def test_emulator_sse_stream(gemini_emulator) -> None:
    url = gemini_emulator.url + MODEL + ":streamGenerateContent?alt=sse"
    resp = httpx.post(url, json=PROMPT, headers=KEY)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "text/event-stream"
    assert resp.headers["content-disposition"] == "attachment"
    raw = resp.content
    events = captures.split_sse(raw)  # `data: ...\r\n\r\n` only, nothing else, the last one terminated
    assert len(events) >= 2
    for event in events:
        payload = event[6:-4]
        parsed = json.loads(payload)
        assert payload == printers.line(parsed) == _reference_line(parsed)
    assert json.loads(events[-1][6:-4])["candidates"][0]["finishReason"] == "STOP"
    # The same request through an SSE client library: same events (the emulator is deterministic).
    with httpx.Client(headers=KEY) as client, connect_sse(client, "POST", url, json=PROMPT) as source:
        parsed_events = list(source.iter_sse())
    assert [e.data for e in parsed_events] == [e[6:-4].decode() for e in events]
    assert all(e.event == "message" and e.id == "" and e.retry is None for e in parsed_events)


def test_emulator_json_array_stream(gemini_emulator) -> None:
    resp = httpx.post(gemini_emulator.url + MODEL + ":streamGenerateContent", json=PROMPT, headers=KEY)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "application/json; charset=UTF-8"
    raw = resp.content
    assert raw.startswith(b"[{\n") and raw.endswith(b"\n}\n]")
    items = json.loads(raw)
    assert isinstance(items, list) and len(items) >= 2
    assert raw.count(b"\n,\r\n") == len(items) - 1
    assert raw == b"[" + b"\n,\r\n".join(printers.indented(i) for i in items) + b"\n]"
    assert raw == b"[" + b"\n,\r\n".join(_reference_indented(i) for i in items) + b"\n]"


@pytest.mark.parametrize("alt", ["?alt=sse", ""])
def test_emulator_stream_error_before_first_chunk(gemini_emulator, alt: str) -> None:
    """An error before any chunk is a plain HTTP error: pretty envelope, array-wrapped without alt=sse."""
    resp = httpx.post(
        gemini_emulator.url + "/v1beta/models/no-such-model:streamGenerateContent" + alt, json=PROMPT, headers=KEY
    )
    assert resp.status_code == 404
    raw = resp.content
    if alt:
        assert not raw.startswith(b"data:")
        assert raw == printers.pretty(json.loads(raw))
    else:
        assert resp.headers["content-type"] == "application/json; charset=UTF-8"
        (envelope,) = json.loads(raw)
        assert raw == b"[" + _reference_indented(envelope) + b"\n]"
