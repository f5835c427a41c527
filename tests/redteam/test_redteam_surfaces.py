"""Red team (issue 14, "the same review repeated on the surfaces the other open issues add"): the OpenAI-compatible
endpoint, the resource rooms (files and uploads, cached contents, batches, operations), the media surfaces
(images, speech, Imagen, Interactions) and the Live WebSocket take malformed input of every shape with a 4xx in
their own error shape (a close code for Live): no 5xx (501 only where a method is knowingly not built yet), no
traceback in the server log, no hang (each call has a client timeout), and one caller's resources are invisible to
another.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redteam import server

from gemini_emulator.testing.server import RunningEmulator

CHAT = "/v1beta/openai/chat/completions"
EMBEDDINGS = "/v1beta/openai/embeddings"
CACHES = "/v1beta/cachedContents"
# Values of every JSON type and the edges of each: what a fuzzer, a buggy client or a hostile page sends.
ODD: list[Any] = [None, True, -1, 0, 1.5, 10**30, "x", "9" * 5000, [], {}, [[]], [{}], {"a": 1}]
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def running() -> Iterator[RunningEmulator]:
    with server() as emulator:
        yield emulator


@pytest.fixture
def http(running: RunningEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=running.url, timeout=20) as client:
        yield client


def _failures(
    http: httpx.Client, calls: list[tuple[str, str, Any]], key: str = "red", extra: dict[str, str] | None = None
) -> list[str]:
    """The calls answered with a 5xx other than 501 (or not answered at all), described."""
    found = []
    headers = {"content-type": "application/json", "x-goog-api-key": key, "authorization": f"Bearer {key}"}
    headers |= extra or {}
    for method, path, payload in calls:
        content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        response = http.request(method, path, content=content, headers=headers)
        if response.status_code >= 500 and response.status_code != 501:
            found.append(f"{method} {path[:80]} {content[:120]!r}: {response.status_code} {response.text[:200]}")
    return found


def _chat_calls() -> list[tuple[str, str, Any]]:
    fields = [
        "model", "messages", "n", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stream",
        "stream_options", "tools", "tool_choice", "response_format", "stop", "seed", "logprobs", "top_logprobs",
        "reasoning_effort", "extra_body", "user", "presence_penalty", "modalities", "audio", "parallel_tool_calls",
    ]  # fmt: skip
    calls: list[tuple[str, str, Any]] = []
    for value in ODD:
        calls += [("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, name: value}) for name in fields]
        messages = [
            {"role": value, "content": "x"},
            {"role": "user", "content": value},
            {"role": "tool", "content": "x", "tool_call_id": value},
            {"role": "assistant", "tool_calls": value},
            {"role": "user", "content": [{"type": "image_url", "image_url": value}]},
            {"role": "user", "content": [{"type": value}]},
            {"role": "user", "content": [{"type": "input_audio", "input_audio": value}]},
        ]
        calls += [("POST", CHAT, {"model": "gemini-2.5-flash", "messages": [m]}) for m in messages]
        tools = [
            {"type": "function", "function": value},
            {"type": "function", "function": {"name": "f", "parameters": value}},
        ]
        calls += [("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "tools": [t]}) for t in tools]
        schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": value}}
        calls.append(("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "response_format": schema}))
        for name in ("input", "model", "dimensions", "encoding_format", "user"):
            calls.append(("POST", EMBEDDINGS, {"model": "gemini-embedding-001", "input": "hi", name: value}))
    return calls


def test_the_openai_compatible_endpoint_refuses_every_odd_field_with_a_4xx(http: httpx.Client) -> None:
    fine = http.post(
        CHAT, json={"model": "gemini-2.5-flash", "messages": USER}, headers={"authorization": "Bearer red"}
    )
    assert fine.status_code == 200  # the sweep below reaches the handler, not an auth refusal
    assert _failures(http, _chat_calls()) == []


def test_the_openai_compatible_endpoint_survives_big_and_broken_bodies(http: httpx.Client, caplog) -> None:
    caplog.set_level(logging.ERROR)
    huge_schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "array", "minItems": 10**9}}}
    calls: list[tuple[str, str, Any]] = [
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "response_format": huge_schema}),
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "n": 10**6}),
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER * 50_000}),
        ("POST", CHAT, {"model": "gemini-2.5-flash", "messages": USER, "max_tokens": 10**6, "stream": True}),
        ("POST", EMBEDDINGS, {"model": "gemini-embedding-001", "input": ["hi"] * 50_000}),
        ("POST", EMBEDDINGS, {"model": "gemini-embedding-001", "input": "hi", "dimensions": 10**12}),
    ]
    calls += [
        ("POST", path, raw)
        for raw in (b"", b"[", b"null", b'"x"', b"\xff\xfe", b"{" * 100_000)
        for path in (CHAT, EMBEDDINGS)
    ]
    calls += [
        (method, path, b"")
        for path in (
            "/v1beta/openai/models/" + "x" * 5000,
            "/v1beta/openai/models/%00",
            "/v1beta/openai/chat/completions/x",
        )
        for method in ("GET", "POST", "DELETE", "PUT")
    ]
    assert _failures(http, calls) == []
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the server log"


def test_cached_contents_refuse_odd_bodies_names_and_pages_with_a_4xx(http: httpx.Client) -> None:
    contents = [{"role": "user", "parts": [{"text": "word " * 5000}]}]
    calls: list[tuple[str, str, Any]] = []
    for value in ODD:
        for name in (
            "model",
            "contents",
            "ttl",
            "expireTime",
            "displayName",
            "systemInstruction",
            "tools",
            "toolConfig",
        ):
            calls.append(("POST", CACHES, {"model": "models/gemini-2.5-flash", "contents": contents, name: value}))
        calls.append(("PATCH", f"{CACHES}/abc?updateMask=ttl", {"ttl": value}))
        calls.append(
            ("POST", "/v1beta/models/gemini-2.5-flash:generateContent", {"contents": contents, "cachedContent": value})
        )
    for name in ("x" * 5000, "%00", "..%2F..", "a/b/c", ""):
        calls += [(m, f"{CACHES}/{name}", b"") for m in ("GET", "DELETE", "PATCH")]
        calls += [("GET", f"/v1beta/operations/{name}", b""), ("POST", f"/v1beta/operations/{name}:cancel", b"")]
    for page in ("pageSize=" + "9" * 5000, "pageSize=-1", "pageToken=%00", "pageToken=" + "x" * 5000):
        calls += [("GET", f"{CACHES}?{page}", b""), ("GET", f"/v1beta/operations?{page}", b"")]
    assert _failures(http, calls) == []


def test_another_key_cannot_see_or_touch_a_cache(http: httpx.Client) -> None:
    contents = [{"role": "user", "parts": [{"text": "word " * 5000}]}]
    made = http.post(
        CACHES, headers={"x-goog-api-key": "owner"}, json={"model": "models/gemini-2.5-flash", "contents": contents}
    )
    assert made.status_code == 200, made.text
    name = made.json()["name"]
    for method in ("GET", "DELETE"):
        assert http.request(method, f"/v1beta/{name}", headers={"x-goog-api-key": "stranger"}).status_code in (403, 404)
    listed = http.get(CACHES, headers={"x-goog-api-key": "stranger"}).json()
    assert name not in json.dumps(listed)
    assert http.get(f"/v1beta/{name}", headers={"x-goog-api-key": "owner"}).status_code == 200


UPLOAD = "/upload/v1beta/files"
RESUMABLE = {"x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start"}


def _upload_start(http: httpx.Client, key: str = "red") -> str:
    headers = {"x-goog-api-key": key, **RESUMABLE, "x-goog-upload-header-content-length": "10"}
    started = http.post(UPLOAD, headers=headers, json={"file": {"mimeType": "text/plain"}})
    assert started.status_code == 200, started.text
    return started.headers["x-goog-upload-url"]


def test_uploads_refuse_odd_metadata_commands_offsets_and_bodies_with_a_4xx(http: httpx.Client) -> None:
    calls: list[tuple[str, str, Any]] = []
    for value in ODD:
        for name in ("mimeType", "sizeBytes", "displayName", "name", "source", "expirationTime"):
            calls.append(("POST", UPLOAD, {"file": {"mimeType": "text/plain", "sizeBytes": 3, name: value}}))
        calls.append(("POST", UPLOAD, {"file": value}))
    assert _failures(http, calls, extra=RESUMABLE) == []
    url = _upload_start(http)
    for command in ("upload", "finalize", "upload, finalize", "query", "cancel", "bogus", ""):
        for offset in ("0", "5", "-1", "x", "9" * 30, ""):
            sent = http.post(
                url, headers={"x-goog-upload-command": command, "x-goog-upload-offset": offset}, content=b"abcde"
            )
            assert sent.status_code < 500, (command, offset, sent.text[:300])
    for tampered in (url + "x", url.replace("upload_id=", "upload_id=%00"), url.split("?")[0]):
        sent = http.post(tampered, headers={"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"})
        assert sent.status_code < 500, (tampered, sent.text[:300])
    multipart: list[tuple[str, str, Any]] = []
    for body in (
        b"",
        b"--x\r\n",
        b"--b\r\ncontent-type: application/json\r\n\r\n{bad\r\n--b--",
        b"--b\r\n\r\n" * 10_000,
    ):
        for kind in (
            "multipart/related; boundary=b",
            "multipart/related",
            "multipart/related; boundary=",
            "text/plain",
        ):
            multipart.append(("POST", UPLOAD + "?uploadType=multipart", body))
            assert (
                _failures(http, multipart[-1:], extra={"content-type": kind, "x-goog-upload-protocol": "multipart"})
                == []
            )


def test_files_names_pages_and_file_uris_get_a_4xx_and_stay_with_their_owner(http: httpx.Client) -> None:
    made = http.post(UPLOAD, headers={"x-goog-api-key": "owner", "x-goog-upload-protocol": "raw"}, content=b"hello")
    assert made.status_code == 200, made.text
    name = made.json()["file"]["name"]
    for method in ("GET", "DELETE"):
        assert http.request(method, f"/v1beta/{name}", headers={"x-goog-api-key": "stranger"}).status_code == 403
    download = http.get(f"/v1beta/{name}:download?alt=media", headers={"x-goog-api-key": "stranger"})
    assert download.status_code == 403 and b"hello" not in download.content
    assert name not in http.get("/v1beta/files", headers={"x-goog-api-key": "stranger"}).text
    calls: list[tuple[str, str, Any]] = []
    for odd in ("x" * 5000, "%00", "..%2F..", "a/b", ""):
        for method in ("GET", "DELETE", "PATCH", "POST"):
            calls += [(method, f"/v1beta/files/{odd}", b""), (method, f"/v1beta/files/{odd}:download?alt=media", b"")]
    for page in ("pageSize=" + "9" * 5000, "pageSize=-1", "pageToken=%00", "pageToken=" + "x" * 5000, "pageSize=1.5"):
        calls.append(("GET", f"/v1beta/files?{page}", b""))
    generate = "/v1beta/models/gemini-2.5-flash:generateContent"
    for value in ODD:
        calls.append(("POST", generate, {"contents": [{"parts": [{"fileData": {"fileUri": value}}]}]}))
        calls.append(
            ("POST", generate, {"contents": [{"parts": [{"fileData": {"fileUri": name, "mimeType": value}}]}]})
        )
    assert _failures(http, calls) == []


def test_batches_media_and_interactions_refuse_odd_bodies_with_a_4xx(http: httpx.Client) -> None:
    batch = "/v1beta/models/gemini-2.5-flash:batchGenerateContent"
    imagen = "/v1beta/models/imagen-4.0-generate-001:predict"
    tts = "/v1beta/models/gemini-2.5-flash-preview-tts:generateContent"
    image = "/v1beta/models/gemini-2.5-flash-image:generateContent"
    hi = [{"parts": [{"text": "hi"}]}]
    calls: list[tuple[str, str, Any]] = []
    for value in ODD:
        calls += [("POST", batch, {"batch": value}), ("POST", batch, {"batch": {"inputConfig": value}})]
        calls.append(("POST", batch, {"batch": {"inputConfig": {"requests": {"requests": value}}}}))
        calls.append(("POST", batch, {"batch": {"inputConfig": {"requests": {"requests": [{"request": value}]}}}}))
        calls.append(("POST", batch, {"batch": {"inputConfig": {"fileName": value}}}))
        for name in ("model", "input", "stream", "previous_interaction_id", "background", "tools", "response_format"):
            calls.append(("POST", "/v1beta/interactions", {"model": "gemini-2.5-flash", "input": "hi", name: value}))
        calls += [
            ("POST", imagen, {"instances": value}),
            ("POST", imagen, {"instances": [{"prompt": "x"}], "parameters": value}),
        ]
        for name in ("sampleCount", "aspectRatio", "personGeneration", "includeRaiReason"):
            calls.append(("POST", imagen, {"instances": [{"prompt": "x"}], "parameters": {name: value}}))
        config = {"responseModalities": ["IMAGE"], "imageConfig": {"aspectRatio": value}}
        calls.append(("POST", image, {"contents": hi, "generationConfig": config}))
        calls.append(
            (
                "POST",
                tts,
                {"contents": hi, "generationConfig": {"responseModalities": ["AUDIO"], "speechConfig": value}},
            )
        )
        voice = {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": value}}}
        calls.append(
            (
                "POST",
                tts,
                {"contents": hi, "generationConfig": {"responseModalities": ["AUDIO"], "speechConfig": voice}},
            )
        )
    for odd in ("x" * 5000, "%00", "a/b", ""):
        for method in ("GET", "DELETE", "POST"):
            calls += [(method, f"/v1beta/batches/{odd}", b""), (method, f"/v1beta/batches/{odd}:cancel", b"")]
            calls.append((method, f"/v1beta/interactions/{odd}", b""))
    assert _failures(http, calls) == []
    many = http.post(
        imagen,
        headers={"x-goog-api-key": "red"},
        json={"instances": [{"prompt": "x"}], "parameters": {"sampleCount": 10**6}},
    )
    assert many.status_code == 400


LIVE_MODEL = "models/gemini-2.5-flash-native-audio-latest"


def test_live_ends_every_bad_message_with_a_close_code_not_a_crash(running: RunningEmulator, caplog) -> None:
    import asyncio

    import websockets

    caplog.set_level(logging.ERROR)
    url = (
        running.url.replace("http", "ws")
        + "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=red"
    )
    messages = [b"", b"{", b"[]", b"null", b"\xff\xfe", b"{" * 100_000]
    messages += [
        json.dumps(m).encode() for m in ({"setup": None}, {"setup": {"model": 5}}, {"setup": {"model": "x" * 5000}})
    ]
    messages += [
        json.dumps(m).encode()
        for m in ({"clientContent": {"turns": "x"}}, {"realtimeInput": {"audio": {"data": "!!"}}})
    ]
    messages += [json.dumps({"toolResponse": {"functionResponses": v}}).encode() for v in ODD[:6]]

    turn = json.dumps({"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": True}})

    async def outcome(message: bytes, after_setup: bool) -> int | str:
        """The close code the message ended the session with, or "answered": it was taken (a null field, a
        video frame) and the next turn was answered."""
        async with websockets.connect(url, open_timeout=10, close_timeout=5, max_size=None) as ws:
            if after_setup:
                await ws.send(json.dumps({"setup": {"model": LIVE_MODEL}}))
                assert "setupComplete" in json.loads(await asyncio.wait_for(ws.recv(), 10))
            await ws.send(message)
            if after_setup:
                await ws.send(turn)
            try:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if "turnComplete" in frame.get("serverContent", {}):
                        return "answered"
            except websockets.ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else "no close frame"

    async def sweep() -> list[tuple[bytes, bool, int | str]]:
        return [(m[:40], after, await outcome(m, after)) for m in messages for after in (False, True)]

    for message, after_setup, code in asyncio.run(sweep()):
        # production's codes for bad input, never 1011 (internal) or a dropped connection
        assert code in (1007, 1008) or (after_setup and code == "answered"), (message, after_setup, code)
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the server log"
