"""Script timing and faults on a real socket: delays, the mid-stream error tail, dropped connections, a cut
final event, and retries over `times`, seen through google-genai and, for the bytes, through raw httpx.

What google-genai 3.6.1 (on httpx2) does with each fault, as pinned below:
- `errorAfterChunks`: yields the N chunks, then raises `errors.ServerError` (an `APIError`) from the tail;
- `dropAfterChunks` / `dropAfterBytes`: yields what arrived whole, then `httpx2.RemoteProtocolError`
  ("peer closed connection without sending complete message body") escapes, a transport error, no APIError;
- `truncateFinalEvent`: streamed, the earlier chunks, then `errors.UnknownApiResponseError` (the cut JSON);
  unary, a bare `json.JSONDecodeError` from the SDK's own `json.loads`.

Timing assertions are lower bounds only, measured from before the request: a busy machine may be slower,
never faster.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
import pytest
from google import genai
from google.genai import errors, types

from gemini_emulator import app as emulator_app
from gemini_emulator.protocol import framing
from gemini_emulator.protocol.errors import OVERLOADED
from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"
PROMPT = "Say hello"
LONG_PROMPT = "Write two paragraphs about rivers"
# Production's mid-stream tail: the raw pretty envelope right after the last event, nothing after it.
UNAVAILABLE_TAIL = (
    b'{\n  "error": {\n    "code": 503,\n    "message": "' + OVERLOADED.encode() + b'",\n'
    b'    "status": "UNAVAILABLE"\n  }\n}\n'
)
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "gemini_emulator")


@dataclass
class Fetched:
    """A raw HTTP exchange: status, the body bytes as they arrived, and the transport error that ended it."""

    status: int
    headers: httpx.Headers
    body: bytes
    error: httpx.TransportError | None


def _url(gemini: Gemini, method: str, sse: bool) -> str:
    url = f"{gemini.url}/v1beta/models/{MODEL}:{method}"
    return url + "?alt=sse" if sse else url


def fetch(gemini: Gemini, method: str = "streamGenerateContent", sse: bool = True, prompt: str = PROMPT) -> Fetched:
    """POST with httpx, reading the body raw (de-chunked, nothing decoded) until it ends or breaks."""
    body = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
    received = bytearray()
    error = None
    with httpx.Client(timeout=10) as http:
        try:
            with http.stream(
                "POST", _url(gemini, method, sse), json=body, headers={"x-goog-api-key": gemini.api_key}
            ) as response:
                status, headers = response.status_code, response.headers
                for piece in response.iter_raw():
                    received += piece
        except httpx.TransportError as exc:
            error = exc
    return Fetched(status, headers, bytes(received), error)


def sse_events(body: bytes) -> list[bytes]:
    """Whole `data: ...\\r\\n\\r\\n` events at the start of a body (each with its terminator)."""
    events = []
    for piece in body.split(b"\r\n\r\n")[:-1]:
        assert piece.startswith(b"data: "), piece
        events.append(piece + b"\r\n\r\n")
    return events


def event_json(event: bytes) -> dict[str, Any]:
    return json.loads(event.removeprefix(b"data: "))


def event_text(event: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in event["candidates"][0]["content"]["parts"])


def retrying_client(gemini: Gemini) -> genai.Client:
    retry = types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05, jitter=0)
    return genai.Client(
        api_key=gemini.api_key, http_options=types.HttpOptions(base_url=gemini.url, retry_options=retry)
    )


@pytest.fixture
def server_log(gemini: Gemini, caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Everything the server logs at DEBUG while the test runs. uvicorn's "uvicorn" logger does not
    propagate to the root, so caplog's handler is attached to it directly (after the server's start, whose
    logging set-up would remove it)."""
    parent = logging.getLogger("uvicorn")
    levels = {name: logging.getLogger(name).level for name in SERVER_LOGGERS}
    for name in SERVER_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    parent.addHandler(caplog.handler)
    try:
        yield caplog
    finally:
        parent.removeHandler(caplog.handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def assert_healthy(gemini: Gemini, log: pytest.LogCaptureFixture) -> None:
    """The same server answers a normal request afterwards, and logged nothing about the scripted fault."""
    assert gemini.client.models.generate_content(model=MODEL, contents="Are you still there?").text
    assert "".join(c.text for c in gemini.client.models.generate_content_stream(model=MODEL, contents="And now?"))
    assert "Exception in ASGI application" not in log.text
    assert "Traceback" not in log.text and "DropConnection" not in log.text
    server = [r for r in log.records if r.name.split(".")[0] in ("uvicorn", "gemini_emulator")]
    assert [r for r in server if r.exc_info or r.levelno >= logging.WARNING] == []


# --- delays --------------------------------------------------------------------------------------------------


def test_delay_ms_holds_back_a_unary_answer(gemini: Gemini) -> None:
    gemini.script({"text": "Late, but here.", "delayMs": 300})
    started = time.monotonic()
    response = gemini.client.models.generate_content(model=MODEL, contents=PROMPT)
    assert time.monotonic() - started >= 0.3
    assert response.text == "Late, but here."


def test_delay_ms_is_the_time_to_the_first_streamed_chunk(gemini: Gemini) -> None:
    gemini.script({"chunks": ["first ", "second"], "delayMs": 300})
    started = time.monotonic()
    stream = gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT)
    first = next(stream)
    assert time.monotonic() - started >= 0.3
    assert first.text == "first " and [c.text for c in stream] == ["second"]


def test_chunk_delay_ms_spaces_the_streamed_chunks(gemini: Gemini) -> None:
    # Chunk i leaves the server no earlier than i pauses after the request came in, so it cannot reach the
    # client earlier either. (Gaps between two arrivals are not a safe bound: a late read of chunk i-1
    # shortens the next gap.)
    gemini.script({"chunks": ["a", "b", "c", "d"], "chunkDelayMs": 150})
    started = time.monotonic()
    arrivals = []
    texts = []
    for chunk in gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT):
        arrivals.append(time.monotonic() - started)
        texts.append(chunk.text)
    assert texts == ["a", "b", "c", "d"]
    for i, arrived in enumerate(arrivals):
        assert arrived >= i * 0.15, (i, arrivals)


def test_delays_add_up_on_the_raw_stream(gemini: Gemini) -> None:
    gemini.script({"chunks": ["a", "b", "c"], "delayMs": 100, "chunkDelayMs": 100})
    started = time.monotonic()
    fetched = fetch(gemini)
    assert time.monotonic() - started >= 0.3
    assert [event_text(event_json(e)) for e in sse_events(fetched.body)] == ["a", "b", "c"]


# --- the mid-stream error tail ------------------------------------------------------------------------------


def test_error_after_chunks_sse_bytes(gemini: Gemini, server_log: pytest.LogCaptureFixture) -> None:
    gemini.script({"chunks": ["one ", "two ", "three"], "errorAfterChunks": 2, "error": "unavailable"})
    fetched = fetch(gemini)
    assert fetched.error is None  # the body ends cleanly
    assert fetched.status == 200 and fetched.headers["content-type"] == "text/event-stream"
    events = sse_events(fetched.body)
    assert len(events) == 2
    assert fetched.body == b"".join(events) + UNAVAILABLE_TAIL
    chunks = [event_json(e) for e in events]
    assert [event_text(c) for c in chunks] == ["one ", "two "]
    assert all("finishReason" not in c["candidates"][0] for c in chunks)  # the stream never finished
    assert_healthy(gemini, server_log)


def test_error_after_chunks_through_the_sdk(gemini: Gemini) -> None:
    gemini.script({"chunks": ["one ", "two ", "three"], "errorAfterChunks": 2, "error": "unavailable"})
    received = []
    with pytest.raises(errors.ServerError) as caught:
        for chunk in gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT):
            received.append(chunk.text)
    assert received == ["one ", "two "]
    assert (caught.value.code, caught.value.status, caught.value.message) == (503, "UNAVAILABLE", OVERLOADED)


def test_error_after_chunks_json_array_bytes(gemini: Gemini) -> None:
    gemini.script({"chunks": ["one ", "two ", "three"], "errorAfterChunks": 2, "error": "unavailable"})
    fetched = fetch(gemini, sse=False)
    assert fetched.error is None
    assert fetched.status == 200 and fetched.headers["content-type"] == "application/json; charset=UTF-8"
    assert fetched.body.startswith(b"[{\n")
    assert fetched.body.endswith(b"\n,\r\n" + UNAVAILABLE_TAIL.removesuffix(b"\n") + b"\n]")
    elements = json.loads(fetched.body)
    assert len(elements) == 3
    assert [event_text(e) for e in elements[:2]] == ["one ", "two "]
    assert elements[2] == {"error": {"code": 503, "message": OVERLOADED, "status": "UNAVAILABLE"}}


def test_error_after_chunks_without_an_answer_streams_the_zero_config_text(gemini: Gemini) -> None:
    gemini.script({"errorAfterChunks": 2, "error": "unavailable"})
    fetched = fetch(gemini, prompt=LONG_PROMPT)
    events = sse_events(fetched.body)
    assert fetched.status == 200 and fetched.error is None
    assert fetched.body == b"".join(events) + UNAVAILABLE_TAIL
    assert len(events) == 2
    # The prelude is the zero-config answer's own first chunks: the same request, unscripted, starts with them.
    unscripted = sse_events(fetch(gemini, prompt=LONG_PROMPT).body)
    assert len(unscripted) > 2
    assert [event_text(event_json(e)) for e in events] == [event_text(event_json(e)) for e in unscripted[:2]]
    assert gemini.journal().entries == ["entry-0", "zero-config"]


def test_error_after_chunks_without_an_answer_through_the_sdk(gemini: Gemini) -> None:
    gemini.script({"errorAfterChunks": 1, "error": "unavailable"})
    received = []
    with pytest.raises(errors.ServerError) as caught:
        for chunk in gemini.client.models.generate_content_stream(model=MODEL, contents=LONG_PROMPT):
            received.append(chunk.text)
    assert len(received) == 1 and received[0]
    assert caught.value.code == 503


def test_error_after_zero_chunks_is_an_ordinary_http_error(gemini: Gemini) -> None:
    gemini.script({"chunks": ["never"], "errorAfterChunks": 0, "error": "unavailable"})
    fetched = fetch(gemini)
    assert fetched.status == 503 and fetched.body == UNAVAILABLE_TAIL
    gemini.script({"chunks": ["never"], "errorAfterChunks": 0, "error": "unavailable"})
    with pytest.raises(errors.ServerError):
        list(gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT))


# --- dropped connections ------------------------------------------------------------------------------------


def test_drop_after_chunks_through_the_sdk(gemini: Gemini, server_log: pytest.LogCaptureFixture) -> None:
    gemini.script({"chunks": ["a", "b", "c"], "dropAfterChunks": 2})
    received = []
    with pytest.raises(httpx2.TransportError) as caught:
        for chunk in gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT):
            received.append(chunk.text)
    assert received == ["a", "b"]
    assert isinstance(caught.value, httpx2.RemoteProtocolError)
    assert not isinstance(caught.value, errors.APIError)
    assert_healthy(gemini, server_log)


def test_drop_after_chunks_raw_sse(gemini: Gemini, server_log: pytest.LogCaptureFixture) -> None:
    gemini.script({"chunks": ["a", "b", "c"]})
    whole = fetch(gemini).body
    gemini.script({"chunks": ["a", "b", "c"], "dropAfterChunks": 2})
    fetched = fetch(gemini)
    assert fetched.status == 200
    assert isinstance(fetched.error, httpx.RemoteProtocolError)
    events = sse_events(fetched.body)
    assert len(events) == 2 and fetched.body == b"".join(events)
    assert whole.startswith(fetched.body) and len(sse_events(whole)) == 3
    assert_healthy(gemini, server_log)


def test_drop_after_chunks_raw_json_array(gemini: Gemini, server_log: pytest.LogCaptureFixture) -> None:
    gemini.script({"chunks": ["a", "b", "c"]})
    whole = fetch(gemini, sse=False).body
    gemini.script({"chunks": ["a", "b", "c"], "dropAfterChunks": 2})
    fetched = fetch(gemini, sse=False)
    assert isinstance(fetched.error, httpx.RemoteProtocolError)
    assert fetched.body == whole[: whole.index(b"\n,\r\n", whole.index(b"\n,\r\n") + 1)]  # two elements, no close
    assert_healthy(gemini, server_log)


def test_drop_after_zero_chunks_sends_headers_and_nothing_more(gemini: Gemini) -> None:
    gemini.script({"chunks": ["a", "b"], "dropAfterChunks": 0})
    fetched = fetch(gemini)
    assert fetched.status == 200 and fetched.body == b""
    assert isinstance(fetched.error, httpx.RemoteProtocolError)


@pytest.mark.parametrize("sse", [True, False], ids=["sse", "array"])
@pytest.mark.parametrize("where", ["zero", "inside-first-event", "inside-second-event", "past-the-end"])
def test_drop_after_bytes_delivers_exactly_that_many(
    gemini: Gemini, server_log: pytest.LogCaptureFixture, sse: bool, where: str
) -> None:
    gemini.script({"chunks": ["alpha ", "beta ", "gamma"]})
    whole = fetch(gemini, sse=sse).body
    first = len(sse_events(whole)[0]) if sse else whole.index(b"\n,\r\n")
    limit = {"zero": 0, "inside-first-event": 37, "inside-second-event": first + 25, "past-the-end": len(whole) + 1}
    gemini.script({"chunks": ["alpha ", "beta ", "gamma"], "dropAfterBytes": limit[where]})
    fetched = fetch(gemini, sse=sse)
    assert fetched.status == 200
    assert isinstance(fetched.error, httpx.RemoteProtocolError)
    assert fetched.body == whole[: limit[where]]
    assert_healthy(gemini, server_log)


def test_drop_after_bytes_through_the_sdk(gemini: Gemini) -> None:
    gemini.script({"chunks": ["alpha ", "beta ", "gamma"]})
    first = len(sse_events(fetch(gemini).body)[0])
    gemini.script({"chunks": ["alpha ", "beta ", "gamma"], "dropAfterBytes": first + 25})
    received = []
    with pytest.raises(httpx2.TransportError):
        for chunk in gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT):
            received.append(chunk.text)
    assert received == ["alpha "]


@pytest.mark.parametrize("fault", [{"dropAfterChunks": 0}, {"dropAfterChunks": 1}, {"dropAfterBytes": 20}])
def test_unary_drop_is_a_transport_error(
    gemini: Gemini, server_log: pytest.LogCaptureFixture, fault: dict[str, int]
) -> None:
    gemini.script({"text": "You will not read this."} | fault)
    with pytest.raises(httpx2.TransportError) as caught:
        gemini.client.models.generate_content(model=MODEL, contents=PROMPT)
    assert not isinstance(caught.value, errors.APIError)

    gemini.script({"text": "You will not read this."})
    whole = fetch(gemini, method="generateContent", sse=False).body
    gemini.script({"text": "You will not read this."} | fault)
    fetched = fetch(gemini, method="generateContent", sse=False)
    assert fetched.status == 200
    assert isinstance(fetched.error, httpx.RemoteProtocolError)
    assert fetched.body == whole[: fault.get("dropAfterBytes", 0)]
    with pytest.raises(ValueError):
        json.loads(fetched.body)  # no parsed body
    assert_healthy(gemini, server_log)


# --- a cut final event --------------------------------------------------------------------------------------


def test_truncate_final_event_raw_sse(gemini: Gemini, server_log: pytest.LogCaptureFixture) -> None:
    gemini.script({"chunks": ["a", "b"]})
    whole = fetch(gemini).body
    gemini.script({"chunks": ["a", "b"], "truncateFinalEvent": True})
    fetched = fetch(gemini)
    assert fetched.status == 200 and fetched.error is None  # the body ends cleanly
    first, last = sse_events(whole)
    assert fetched.body == first + last[: len(last) // 2]
    assert not fetched.body.endswith(b"\r\n\r\n")
    with pytest.raises(ValueError):
        json.loads(fetched.body[len(first) :].removeprefix(b"data: "))
    assert_healthy(gemini, server_log)


def test_truncate_final_event_of_a_single_chunk_stream(gemini: Gemini) -> None:
    gemini.script({"text": "Hi."})
    (whole,) = sse_events(fetch(gemini).body)
    gemini.script({"text": "Hi.", "truncateFinalEvent": True})
    fetched = fetch(gemini)
    assert fetched.error is None and fetched.body == whole[: len(whole) // 2]


def test_truncate_final_event_raw_json_array(gemini: Gemini) -> None:
    gemini.script({"chunks": ["a", "b"]})
    whole = fetch(gemini, sse=False).body
    gemini.script({"chunks": ["a", "b"], "truncateFinalEvent": True})
    fetched = fetch(gemini, sse=False)
    assert fetched.error is None
    cut = whole.index(b"\n,\r\n")
    last = whole[cut:].removesuffix(b"\n]")
    assert fetched.body == whole[:cut] + last[: len(last) // 2]


def test_truncate_final_event_through_the_sdk(gemini: Gemini) -> None:
    gemini.script({"chunks": ["a", "b"], "truncateFinalEvent": True})
    received = []
    with pytest.raises(errors.UnknownApiResponseError) as caught:
        for chunk in gemini.client.models.generate_content_stream(model=MODEL, contents=PROMPT):
            received.append(chunk.text)
    assert received == ["a"]
    assert "Failed to parse response as JSON" in str(caught.value)


def test_truncate_unary_body(gemini: Gemini, server_log: pytest.LogCaptureFixture) -> None:
    gemini.script({"text": "A whole answer."})
    whole = fetch(gemini, method="generateContent", sse=False).body
    gemini.script({"text": "A whole answer.", "truncateFinalEvent": True})
    fetched = fetch(gemini, method="generateContent", sse=False)
    assert fetched.status == 200 and fetched.error is None
    assert fetched.body == whole[: len(whole) // 2]
    assert fetched.headers["content-length"] == str(len(whole) // 2)

    gemini.script({"text": "A whole answer.", "truncateFinalEvent": True})
    with pytest.raises(json.JSONDecodeError):  # google-genai parses unary bodies with json.loads, unwrapped
        gemini.client.models.generate_content(model=MODEL, contents=PROMPT)
    assert_healthy(gemini, server_log)


# --- the log filter -----------------------------------------------------------------------------------------


def test_server_log_capture_sees_failures_but_not_scripted_drops(server_log: pytest.LogCaptureFixture) -> None:
    """The harness behind assert_healthy: a real failure reaches the capture, a scripted drop does not."""
    logger = logging.getLogger("uvicorn.error")
    assert emulator_app._QUIET in logger.filters
    try:
        raise framing.DropConnection
    except framing.DropConnection as exc:
        logger.error("Exception in ASGI application\n", exc_info=exc)
    try:
        raise ExceptionGroup("body", [framing.DropConnection()])
    except ExceptionGroup as exc:
        logger.error("Exception in ASGI application\n", exc_info=exc)
    assert server_log.records == []
    try:
        raise RuntimeError("a real failure")
    except RuntimeError as exc:
        logger.error("Exception in ASGI application\n", exc_info=exc)
    assert "a real failure" in server_log.text


# --- times, faults and retries ------------------------------------------------------------------------------


def test_sdk_retries_through_scripted_503s(gemini: Gemini) -> None:
    gemini.script({"name": "overloaded", "times": 2, "error": "unavailable"}, {"name": "ok", "text": "Third time."})
    client = retrying_client(gemini)  # keep a reference: a collected Client closes its connection
    response = client.models.generate_content(model=MODEL, contents=PROMPT)
    assert response.text == "Third time."
    calls = gemini.journal()
    assert calls.statuses == [503, 503, 200]
    assert calls.entries == ["overloaded", "overloaded", "ok"]
    assert all(json.loads(c.record["response"])["error"]["status"] == "UNAVAILABLE" for c in calls[:2])


def test_without_retries_the_sdk_gives_up_on_the_first_503(gemini: Gemini) -> None:
    gemini.script({"times": 2, "error": "unavailable"}, {"text": "Third time."})
    with pytest.raises(errors.ServerError):
        gemini.client.models.generate_content(model=MODEL, contents=PROMPT)
    assert gemini.journal().statuses == [503]


def test_quota_429_carries_retry_after_and_retry_info(gemini: Gemini) -> None:
    gemini.script({"error": "quota"})
    fetched = fetch(gemini, method="generateContent", sse=False)
    assert fetched.status == 429
    assert fetched.headers["retry-after"] == "20"
    error = json.loads(fetched.body)["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    retry_info = [d for d in error["details"] if d["@type"] == "type.googleapis.com/google.rpc.RetryInfo"]
    assert retry_info == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "20s"}]


def test_sdk_retries_through_scripted_429s(gemini: Gemini) -> None:
    gemini.script({"name": "quota", "times": 2, "error": "quota"}, {"name": "ok", "text": "Quota is back."})
    client = retrying_client(gemini)
    response = client.models.generate_content(model=MODEL, contents=PROMPT)
    assert response.text == "Quota is back."
    calls = gemini.journal()
    assert calls.statuses == [429, 429, 200]
    assert calls.entries == ["quota", "quota", "ok"]


# --- ready answers and timed ones ----------------------------------------------------------------------------

READY_FAULTS = [
    {},
    {"dropAfterChunks": 2},
    {"dropAfterChunks": 0},
    {"dropAfterBytes": 0},
    {"dropAfterBytes": 40},
    {"dropAfterBytes": 100_000},
    {"truncateFinalEvent": True},
    {"chunks": ["x" * 30_000, "y" * 30_000, "z" * 30_000]},  # past sending.BATCH_BYTES: sent in two batches
    {"chunks": ["x" * 30_000, "y" * 30_000, "z" * 30_000], "dropAfterChunks": 2},
]


@pytest.mark.parametrize("sse", [True, False], ids=["sse", "array"])
@pytest.mark.parametrize("fault", READY_FAULTS, ids=lambda f: ",".join(f"{k}={v}"[:20] for k, v in f.items()) or "none")
def test_a_ready_answer_and_a_timed_one_end_alike(gemini: Gemini, sse: bool, fault: dict[str, Any]) -> None:
    """An entry without timing is answered at once (seam.ReadyAnswerer, sending.Ready), the same entry with a chunk
    delay through the stream machinery that waits between chunks: the same bytes, the same end of the body and
    the same journal record (what was sent, whether it ended cleanly)."""
    entry = {"name": "e", "chunks": ["alpha ", "beta ", "gamma"], **fault}
    gemini.script(entry)
    ready = fetch(gemini, sse=sse)
    gemini.script(entry | {"chunkDelayMs": 1})
    timed = fetch(gemini, sse=sse)
    assert (ready.status, ready.body, type(ready.error)) == (timed.status, timed.body, type(timed.error))
    assert (ready.error is None) == (not fault.keys() - {"chunks"} or "truncateFinalEvent" in fault)
    first, second = gemini.journal()[-2:]
    for key in ("status", "response", "complete", "entry"):
        assert first.record[key] == second.record[key], key
    assert first.record["complete"] == (ready.error is None)
