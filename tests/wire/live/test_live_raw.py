"""The Live WebSocket spoken to byte by byte (the `websockets` client): each bad message ends the session with a
close frame as production's does, never a JSON frame the SDK cannot parse, never a traceback in the server log."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import pytest
import websockets
from live_helpers import session_record

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "models/gemini-2.5-flash-native-audio-latest"
DEV = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
VERTEX = "/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent"


def _url(gemini: Gemini, path: str = DEV, query: str = "") -> str:
    return gemini.url.replace("http", "ws", 1) + path + (query if query else f"?key={gemini.api_key}")


async def _closed_by(url: str, *messages: Any, headers: dict[str, str] | None = None) -> tuple[list[Any], int, str]:
    """Send `messages` (dicts as JSON, str as is), read until the server closes: (frames, close code, reason)."""
    frames = []
    async with websockets.connect(url, additional_headers=headers or {}) as ws:
        try:
            for message in messages:
                await ws.send(message if isinstance(message, str) else json.dumps(message))
            while True:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None, "closed without a close frame"
            return frames, closed.rcvd.code, closed.rcvd.reason


def closed_by(url: str, *messages: Any, headers: dict[str, str] | None = None) -> tuple[list[Any], int, str]:
    return asyncio.run(_closed_by(url, *messages, headers=headers))


@pytest.fixture(autouse=True)
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> Any:
    caplog.set_level(logging.WARNING)
    yield
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], caplog.text


def test_unknown_field_in_setup_closes_1007(gemini_shared: Gemini) -> None:
    frames, code, reason = closed_by(_url(gemini_shared), {"setup": {"model": MODEL, "bogus": 1}})
    assert frames == []
    assert code == 1007
    assert reason == "Invalid JSON payload received. Unknown name \"bogus\" at 'setup': Cannot find field."


def test_unknown_top_level_message_closes_1007(gemini_shared: Gemini) -> None:
    _, code, reason = closed_by(_url(gemini_shared), {"setup": {"model": MODEL}}, {"hello": {}})
    assert code == 1007 and 'Unknown name "hello"' in reason


def test_message_before_setup_closes_1007(gemini_shared: Gemini) -> None:
    first = {"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": True}}
    frames, code, reason = closed_by(_url(gemini_shared), first)
    assert frames == [] and code == 1007 and reason == "Request contains an invalid argument."


def test_not_json_closes_1007(gemini_shared: Gemini) -> None:
    _, code, _ = closed_by(_url(gemini_shared), "{not json")
    assert code == 1007


def test_wrong_model_closes_1008_with_the_reason_cut_at_123_bytes(gemini_shared: Gemini) -> None:
    _, code, reason = closed_by(_url(gemini_shared), {"setup": {"model": "models/gemini-nope"}})
    assert code == 1008
    assert reason.startswith("models/gemini-nope is not found for API version v1beta, or is not supported for ")
    assert len(reason.encode()) == 123


def test_a_generate_content_model_is_not_a_live_model(gemini_shared: Gemini) -> None:
    _, code, reason = closed_by(_url(gemini_shared), {"setup": {"model": "models/gemini-2.5-flash"}})
    assert code == 1008 and "bidiGenerateContent" in reason


def test_no_key_closes_1008(gemini_shared: Gemini) -> None:
    _, code, reason = closed_by(_url(gemini_shared, query="?"), {"setup": {"model": MODEL}})
    assert code == 1008 and "unregistered callers" in reason


def test_snake_case_and_camel_case_both_accepted(gemini_shared: Gemini) -> None:
    gemini_shared.script({"text": "ok", "times": 2})

    async def go() -> list[list[Any]]:
        seen = []
        for kind, turn_complete in (("client_content", "turn_complete"), ("clientContent", "turnComplete")):
            async with websockets.connect(_url(gemini_shared)) as ws:
                setup = {"model": MODEL, "generation_config": {"response_modalities": ["TEXT"]}}
                await ws.send(json.dumps({"setup": setup}))
                assert json.loads(await ws.recv()) == {"setupComplete": {}}
                turns = [{"role": "user", "parts": [{"text": "hi"}]}]
                await ws.send(json.dumps({kind: {"turns": turns, turn_complete: True}}))
                frames = []
                while not frames or "turnComplete" not in frames[-1].get("serverContent", {}):
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                seen.append(frames)
        return seen

    for frames in asyncio.run(go()):
        assert frames[0] == {"serverContent": {"modelTurn": {"parts": [{"text": "ok"}]}}}
        assert frames[1] == {"serverContent": {"generationComplete": True}}
        assert set(frames[2]) == {"serverContent", "usageMetadata"}


def test_vertex_path_needs_a_bearer_token_and_answers_in_vertex_shapes(gemini_shared: Gemini) -> None:
    setup = {
        "model": "projects/p/locations/us-central1/publishers/google/models/gemini-live-2.5-flash-native-audio",
        "generationConfig": {"responseModalities": ["AUDIO"]},
        "outputAudioTranscription": {},
    }
    _, code, _ = closed_by(_url(gemini_shared, VERTEX, "?"), {"setup": setup})
    assert code == 1008  # no bearer token
    headers = {"Authorization": f"Bearer {gemini_shared.api_key}"}
    text = setup | {"generationConfig": {"responseModalities": ["TEXT"]}}
    _, code, reason = closed_by(_url(gemini_shared, VERTEX, "?"), {"setup": text}, headers=headers)
    assert (code, reason) == (
        1007,
        "The requested combination of response modalities (TEXT) is not supported by the model.",
    )
    gemini_shared.script({"text": "vertex"})

    async def go() -> list[Any]:
        async with websockets.connect(_url(gemini_shared, VERTEX, "?"), additional_headers=headers) as ws:
            await ws.send(json.dumps({"setup": setup}))
            frames = [json.loads(await ws.recv())]
            await ws.send(
                json.dumps(
                    {"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": True}}
                )
            )
            while "turnComplete" not in frames[-1].get("serverContent", {}):
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            return frames

    frames = asyncio.run(go())
    assert set(frames[0]["setupComplete"]) == {"sessionId"}
    turns = [f["serverContent"]["modelTurn"] for f in frames if "modelTurn" in f.get("serverContent", {})]
    assert turns and all(set(t) == {"role", "parts"} and "inlineData" in t["parts"][0] for t in turns)
    heard = [
        f["serverContent"]["outputTranscription"]["text"]
        for f in frames
        if "outputTranscription" in f.get("serverContent", {})
    ]
    assert "".join(heard) == "vertex"
    assert "candidatesTokenCount" in frames[-1]["usageMetadata"]


def test_the_journal_holds_one_record_per_session_with_audio_summarised(gemini_shared: Gemini) -> None:
    import base64

    pcm = base64.b64encode(bytes(3200)).decode()
    setup = {"model": MODEL, "generationConfig": {"responseModalities": ["AUDIO"]}}
    gemini_shared.script({"text": "hi"})

    async def go() -> None:
        async with websockets.connect(_url(gemini_shared)) as ws:
            await ws.send(json.dumps({"setup": setup}))
            await ws.recv()
            await ws.send(json.dumps({"realtimeInput": {"audio": {"mimeType": "audio/pcm;rate=16000", "data": pcm}}}))
            await ws.send(json.dumps({"realtimeInput": {"audioStreamEnd": True}}))
            while "turnComplete" not in json.loads(await asyncio.wait_for(ws.recv(), 10)).get("serverContent", {}):
                pass

    asyncio.run(go())
    # The client has closed; the server finishes the session's record when it sees the close: wait for that.
    deadline = time.monotonic() + 10
    while not (records := gemini_shared.journal(rpc="BidiGenerateContent")) or not records[0].record["complete"]:
        assert time.monotonic() < deadline, "the session's record was never completed"
        time.sleep(0.01)
    [record] = records
    assert record.status == 101
    assert record.body[1] == {
        "realtimeInput": {"audio": {"mimeType": "audio/pcm;rate=16000", "data": "<3200 bytes, 0.100 s of audio>"}}
    }
    assert "s of audio>" in record.record["response"] and pcm not in record.record["response"]


async def _session(url: str, setup: dict[str, Any]) -> Any:
    ws = await websockets.connect(url)
    await ws.send(json.dumps({"setup": setup}))
    assert "setupComplete" in json.loads(await ws.recv())
    return ws


async def _until(ws: Any, key: str) -> list[Any]:
    """Frames up to and including the first whose serverContent (or top level) has `key`."""
    frames = []
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        frames.append(frame)
        if key in frame or key in frame.get("serverContent", {}):
            return frames


TEXT_SETUP = {"model": MODEL, "generationConfig": {"responseModalities": ["TEXT"]}}
HI = {"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": True}}


def test_scripted_interruption(gemini_shared: Gemini) -> None:
    gemini_shared.script({"text": "one two three four five six", "live": {"interrupted": True}})

    async def go() -> list[Any]:
        ws = await _session(_url(gemini_shared), TEXT_SETUP)
        await ws.send(json.dumps(HI))
        frames = await _until(ws, "interrupted")
        await ws.close()
        return frames

    frames = asyncio.run(go())
    assert frames[-1] == {"serverContent": {"interrupted": True}}
    assert 1 <= len(frames) - 1 < 4  # part of the answer, then the interruption; no turnComplete
    assert not any("turnComplete" in f.get("serverContent", {}) for f in frames)


def test_pending_tool_calls_are_cancelled_by_new_input_or_by_script(gemini_shared: Gemini) -> None:
    tools = [{"functionDeclarations": [{"name": "slow_lookup"}]}]
    gemini_shared.script(
        {"functionCall": {"name": "slow_lookup", "id": "call-1"}},
        {"match": {"text": "never mind"}, "text": "OK."},
        {"functionCall": {"name": "slow_lookup", "id": "call-2"}},
        {"match": {"text": "again"}, "text": "Cancelled by script.", "live": {"cancelToolCalls": True}},
    )

    async def go() -> tuple[list[Any], list[Any]]:
        ws = await _session(_url(gemini_shared), TEXT_SETUP | {"tools": tools})
        await ws.send(json.dumps(HI))
        await _until(ws, "toolCall")
        await ws.send(json.dumps({"realtimeInput": {"text": "never mind"}}))
        first = await _until(ws, "turnComplete")
        await ws.send(json.dumps(HI))
        await _until(ws, "toolCall")
        await ws.send(json.dumps({"clientContent": {"turns": [{"role": "user", "parts": [{"text": "again"}]}]}}))
        await ws.send(json.dumps({"clientContent": {"turnComplete": True}}))
        second = await _until(ws, "turnComplete")
        await ws.close()
        return first, second

    first, second = asyncio.run(go())
    assert first[0] == {"toolCallCancellation": {"ids": ["call-1"]}}
    assert first[1] == {"serverContent": {"modelTurn": {"parts": [{"text": "OK."}]}}}
    assert second[0] == {"toolCallCancellation": {"ids": ["call-2"]}}


def test_compression_video_and_realtime_text_are_accepted(gemini_shared: Gemini) -> None:
    import base64

    gemini_shared.script({"match": {"text": "what do you see"}, "text": "Frame."})
    setup = TEXT_SETUP | {
        "contextWindowCompression": {"triggerTokens": "25600", "slidingWindow": {"targetTokens": 12800}},
        "realtimeInputConfig": {"automaticActivityDetection": {"disabled": False, "silenceDurationMs": 300}},
    }

    async def go() -> list[Any]:
        ws = await _session(_url(gemini_shared), setup)
        frame = base64.b64encode(b"\xff\xd8\xff" + bytes(100)).decode()
        await ws.send(json.dumps({"realtimeInput": {"video": {"mimeType": "image/jpeg", "data": frame}}}))
        await ws.send(json.dumps({"realtimeInput": {"text": "what do you see"}}))
        frames = await _until(ws, "turnComplete")
        await ws.close()
        return frames

    assert asyncio.run(go())[0] == {"serverContent": {"modelTurn": {"parts": [{"text": "Frame."}]}}}


def test_activity_signals_with_automatic_detection_on_close_1007(gemini_shared: Gemini) -> None:
    _, code, reason = closed_by(_url(gemini_shared), {"setup": TEXT_SETUP}, {"realtimeInput": {"activityStart": {}}})
    assert code == 1007 and "automatic activity detection" in reason


def test_open_session_limits_per_namespace() -> None:
    from gemini_emulator.config import Settings
    from gemini_emulator.testing.server import start

    running = start(Settings(port=0, max_live_sessions_per_namespace=1))
    try:
        url = running.url.replace("http", "ws", 1) + DEV

        async def go() -> tuple[int, str, Any]:
            first = await _session(url + "?key=a", TEXT_SETUP)
            refused = await _closed_by(url + "?key=a", {"setup": TEXT_SETUP})
            other = await _session(url + "?key=b", TEXT_SETUP)  # another namespace still gets one
            await other.close()
            await first.close()
            return refused[1], refused[2], None

        code, reason, _ = asyncio.run(go())
        assert code == 1011 and reason == "Resource has been exhausted (e.g. check quota)."
    finally:
        running.stop()


def test_admin_lists_open_sessions_and_handles(gemini_shared: Gemini) -> None:
    import httpx

    gemini_shared.script({"text": "ok"})

    async def go() -> dict[str, Any]:
        ws = await _session(_url(gemini_shared), TEXT_SETUP | {"sessionResumption": {}})
        await ws.send(json.dumps(HI))
        await _until(ws, "turnComplete")
        async with httpx.AsyncClient() as http:
            listed = await http.get(
                gemini_shared.url + "/__emulator/resources",
                params={"kind": "liveSessions"},
                headers={"x-goog-api-key": gemini_shared.api_key},
            )
        await ws.close()
        return dict(listed.json())

    shown = asyncio.run(go())["resources"]["liveSessions"]
    kinds = sorted(item["kind"] for item in shown)
    assert kinds == ["resumptionHandle", "session"]
    session = next(i for i in shown if i["kind"] == "session")
    assert session["model"] == "gemini-2.5-flash-native-audio-latest" and session["turns"] == 1


def test_a_session_journals_at_most_a_mebibyte_each_way(gemini_shared: Gemini) -> None:
    big = "x" * 600_000

    async def go() -> None:
        ws = await _session(_url(gemini_shared), TEXT_SETUP)
        for _ in range(3):
            turn = {"turns": [{"role": "user", "parts": [{"text": big}]}], "turnComplete": False}
            await ws.send(json.dumps({"clientContent": turn}))
        await ws.close()

    asyncio.run(go())
    record = session_record(gemini_shared)
    assert record.body[-1] == {"journalCut": True}
    assert len(json.dumps(record.body)) < 1_300_000


def test_scripted_audio_and_transcription_are_sent_as_given(gemini_shared: Gemini) -> None:
    import base64

    pcm = bytes(range(256)) * 40  # 10,240 bytes: two pieces
    audio = base64.b64encode(pcm).decode()
    gemini_shared.script({"text": "ignored words", "live": {"audio": audio, "outputTranscription": "as scripted"}})
    setup = {"model": MODEL, "generationConfig": {"responseModalities": ["AUDIO"]}, "outputAudioTranscription": {}}

    async def go() -> list[Any]:
        ws = await _session(_url(gemini_shared), setup)
        await ws.send(json.dumps(HI))
        frames = await _until(ws, "turnComplete")
        await ws.close()
        return frames

    frames = asyncio.run(go())
    parts = [p for f in frames for p in f.get("serverContent", {}).get("modelTurn", {}).get("parts", [])]
    assert b"".join(base64.b64decode(p["inlineData"]["data"]) for p in parts) == pcm
    assert [len(base64.b64decode(p["inlineData"]["data"])) for p in parts] == [9600, 640]
    said = [
        f["serverContent"]["outputTranscription"]["text"]
        for f in frames
        if "outputTranscription" in f.get("serverContent", {})
    ]
    assert said == ["as scripted"]


def test_deflate_is_kept_for_small_messages_and_skipped_for_long_ones(gemini_shared: Gemini) -> None:
    """With permessage-deflate negotiated (as google-genai's client offers it), the ~13 KB base64 audio messages
    leave uncompressed (RSV1 unset: RFC 7692 lets an endpoint send any message so; deflating them cost most of a
    core at 200 sessions, bench/live.py) and the short ones compressed; every one parses."""
    from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory, PerMessageDeflate
    from websockets.frames import CTRL_OPCODES, Frame

    seen: list[tuple[int, bool]] = []  # (payload bytes on the wire, compressed)

    class Recording(PerMessageDeflate):
        def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
            if frame.opcode not in CTRL_OPCODES:
                seen.append((len(frame.data), frame.rsv1))
            return super().decode(frame, max_size=max_size)

    class Factory(ClientPerMessageDeflateFactory):
        def process_response_params(self, params: Any, accepted_extensions: Any) -> Any:
            extension = super().process_response_params(params, accepted_extensions)
            extension.__class__ = Recording
            return extension

    gemini_shared.script({"text": "A spoken answer long enough for several audio pieces."})
    setup = {"model": MODEL, "generationConfig": {"responseModalities": ["AUDIO"]}}

    async def go() -> list[Any]:
        factory = Factory(client_max_window_bits=True)
        async with websockets.connect(_url(gemini_shared), compression=None, extensions=[factory]) as ws:
            await ws.send(json.dumps({"setup": setup}))
            await ws.recv()
            await ws.send(json.dumps(HI))
            return await _until(ws, "turnComplete")

    frames = asyncio.run(go())
    audio = [f for f in frames if "inlineData" in json.dumps(f)]
    assert len(audio) >= 2 and len(seen) == len(frames) + 1  # + setupComplete
    assert all(size >= 4096 for size, compressed in seen if not compressed)
    assert any(not compressed for _, compressed in seen) and any(compressed for _, compressed in seen)
