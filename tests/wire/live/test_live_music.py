"""Lyria RealTime (issue 33) through unmodified google-genai (`client.aio.live.music`, wss:// over --tls), and the
BidiGenerateMusic socket spoken to byte by byte (`websockets`) for each bad message."""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from typing import Any

import pytest
import websockets
from google import genai
from google.genai import types

from gemini_emulator.admin.client import Call
from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "models/lyria-realtime-exp"
PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateMusic"
TIMEOUT = 20
CHUNK_BYTES = 96_000  # 0.5 s of 16-bit stereo at 48 kHz


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, TIMEOUT))


def music_record(gemini: Gemini, timeout: float = 5.0) -> Call:
    """The namespace's one finished music session record (polled, bounded: the client's close returns first)."""
    deadline = time.monotonic() + timeout
    while True:
        records = gemini.journal(rpc="BidiGenerateMusic")
        if len(records) == 1 and records[0].status:
            return records[0]
        if time.monotonic() > deadline:
            raise AssertionError(f"no finished music session record within {timeout} s: {records}")
        time.sleep(0.02)


async def _audio(session: Any, count: int) -> list[types.LiveMusicServerMessage]:
    out = []
    async for message in session.receive():
        out.append(message)
        if len([m for m in out if m.server_content]) >= count:
            return out
    return out


def _connect(client: Any, model: str = MODEL) -> Any:
    with warnings.catch_warnings():  # "Realtime music generation is experimental"
        warnings.simplefilter("ignore")
        return client.aio.live.music.connect(model=model)


def test_a_session_plays_pauses_and_stops(gemini_tls: Gemini) -> None:
    barrier = "barrier prompt"
    gemini_tls.script({"match": {"text": barrier}, "blockReason": "OTHER"})

    async def go() -> tuple[list[Any], list[Any]]:
        async with _connect(gemini_tls.client) as session:
            await session.set_weighted_prompts([types.WeightedPrompt(text="minimal techno", weight=1.0)])
            config = types.LiveMusicGenerationConfig(bpm=90, scale=types.Scale.D_MAJOR_B_MINOR, seed=7, density=0.5)
            await session.set_music_generation_config(config)
            await session.play()
            playing = await _audio(session, 3)
            await session.pause()
            await session.set_weighted_prompts([types.WeightedPrompt(text=barrier, weight=1.0)])
            after: list[Any] = []
            async for message in session.receive():  # what was in flight, then the barrier
                after.append(message)
                if message.filtered_prompt:
                    break
            await session.stop()
            return playing, after

    playing, after = run(go())
    chunks = [c for m in playing if m.server_content for c in m.server_content.audio_chunks or []]
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.mime_type == "audio/pcm;rate=48000"
        assert len(chunk.data) == CHUNK_BYTES and len(chunk.data) % 4 == 0
        assert any(chunk.data[i] for i in range(0, 4000))  # not silence
    assert chunks[0].data != chunks[1].data or chunks[1].data != chunks[2].data
    filtered = after[-1].filtered_prompt
    assert filtered.text == barrier and filtered.filtered_reason == "OTHER"
    record = music_record(gemini_tls)
    assert record.model == "lyria-realtime-exp"
    body = record.body
    assert body[0] == {"setup": {"model": MODEL}}
    assert {"playbackControl": "PLAY"} in body and {"playbackControl": "PAUSE"} in body
    assert {"musicGenerationConfig": {"bpm": 90, "scale": "D_MAJOR_B_MINOR", "seed": 7, "density": 0.5}} in body
    sent = [json.loads(line) for line in str(record.record["response"]).splitlines()]
    assert sent[0] == {"setupComplete": {}}
    pieces = [m for m in sent if "serverContent" in m]
    assert pieces and pieces[0]["serverContent"]["audioChunks"][0]["data"] == "<96000 bytes, 0.500 s of audio>"
    barrier_at = next(i for i, m in enumerate(sent) if "filteredPrompt" in m)
    assert not [m for m in sent[barrier_at:] if "serverContent" in m]  # nothing after the pause
    assert record.entry


def test_the_same_prompts_and_seed_give_the_same_music(gemini_tls: Gemini) -> None:
    async def once() -> bytes:
        async with _connect(gemini_tls.client) as session:
            await session.set_weighted_prompts([types.WeightedPrompt(text="piano", weight=1.0)])
            await session.set_music_generation_config(types.LiveMusicGenerationConfig(seed=3))
            await session.play()
            messages = await _audio(session, 2)
            return b"".join(c.data for m in messages if m.server_content for c in m.server_content.audio_chunks)

    assert run(once()) == run(once())


def test_unknown_model_is_refused_as_live_refuses_one(gemini_tls: Gemini) -> None:
    async def go() -> None:
        async with _connect(gemini_tls.client, "models/lyria-nope"):
            pass

    # connect() reads setupComplete itself and lets the close out as websockets' error (live_music.py)
    with pytest.raises(websockets.ConnectionClosed) as caught:
        run(go())
    assert caught.value.rcvd is not None and caught.value.rcvd.code == 1008
    assert caught.value.rcvd.reason.startswith(
        "models/lyria-nope is not found for API version v1, or is not supported for bidiGenerateMusic."
    )


def test_two_keys_are_apart(gemini_tls: Gemini) -> None:
    other = genai.Client(api_key=gemini_tls.api_key + "-other", http_options=types.HttpOptions(base_url=gemini_tls.url))

    async def go() -> None:
        async with _connect(other) as session:
            await session.set_weighted_prompts([types.WeightedPrompt(text="jazz", weight=1.0)])
            await session.play()
            await _audio(session, 1)

    run(go())
    assert gemini_tls.journal(rpc="BidiGenerateMusic") == []  # the other key's session is not this key's


# ---- the socket byte by byte ----------------------------------------------------------------------------------


def _url(gemini: Gemini, key: str | None = None) -> str:
    return gemini.url.replace("http", "ws", 1) + PATH + f"?key={key if key is not None else gemini.api_key}"


async def _closed_by(url: str, *messages: Any) -> tuple[list[Any], int, str]:
    frames = []
    async with websockets.connect(url) as ws:
        try:
            for message in messages:
                await ws.send(message if isinstance(message, str) else json.dumps(message))
            while True:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None, "closed without a close frame"
            return frames, closed.rcvd.code, closed.rcvd.reason


def closed_by(url: str, *messages: Any) -> tuple[list[Any], int, str]:
    return asyncio.run(_closed_by(url, *messages))


SETUP = {"setup": {"model": MODEL}}


@pytest.mark.parametrize(
    ("messages", "reason"),
    [
        ([{"playbackControl": "PLAY"}], "Request contains an invalid argument."),
        ([SETUP, SETUP], "Request contains an invalid argument."),
        ([{"setup": {"model": MODEL, "bogus": 1}}], "Invalid JSON payload received. Unknown name \"bogus\" at 'setup'"),
        ([SETUP, {"playbackControl": "REWIND"}], "Invalid value at 'playback_control' ('REWIND')"),
        ([SETUP, {"clientContent": {"weightedPrompts": [{"text": "a", "weight": 0}]}}], "Weight must not be 0."),
        ([SETUP, {"clientContent": {"weightedPrompts": []}}], "weightedPrompts must hold 1 to 16 prompts."),
        ([SETUP, {"musicGenerationConfig": {"bpm": 300}}], "bpm must be in [60, 200], got 300."),
        ([SETUP, {"musicGenerationConfig": {"scale": "Z_MAJOR"}}], "Invalid value at 'music_generation_config.scale'"),
        (
            [SETUP, {"musicGenerationConfig": {"tempo": 1}}],
            "Invalid JSON payload received. Unknown name \"tempo\" at 'music_generation_config': Cannot find field.",
        ),
        ([SETUP, "not json"], "Invalid JSON payload received."),
        ([SETUP, {"clientContent": {}, "playbackControl": "PLAY"}], "Request contains an invalid argument."),
    ],
)
def test_bad_messages_close_1007(gemini_shared: Gemini, messages: list[Any], reason: str) -> None:
    frames, code, got = closed_by(_url(gemini_shared), *messages)
    assert code == 1007
    assert got.startswith(reason)
    assert not [f for f in frames if "serverContent" in f]


def test_no_key_closes_1008(gemini_shared: Gemini) -> None:
    url = gemini_shared.url.replace("http", "ws", 1) + PATH
    _, code, _ = closed_by(url, SETUP)
    assert code == 1008


def test_nothing_is_sent_before_play(gemini_shared: Gemini) -> None:
    prompts = {"clientContent": {"weightedPrompts": [{"text": "ambient", "weight": 1.0}]}}
    frames, code, _ = closed_by(_url(gemini_shared), SETUP, prompts, {"playbackControl": "STOP"}, {"bogus": 1})
    assert frames == [{"setupComplete": {}}] and code == 1007


def test_a_scripted_error_ends_the_session(gemini: Gemini, gemini_shared: Gemini) -> None:
    gemini_shared.script({"match": {"method": "bidiGenerateMusic"}, "error": "quota"})
    prompts = {"clientContent": {"weightedPrompts": [{"text": "ambient", "weight": 1.0}]}}
    frames, code, _ = closed_by(_url(gemini_shared), SETUP, prompts)
    assert frames == [{"setupComplete": {}}] and code == 1011


def test_an_oversized_message_is_refused(gemini_shared: Gemini) -> None:
    big = {"clientContent": {"weightedPrompts": [{"text": "x" * 70_000, "weight": 1.0}]}}
    _, code, reason = closed_by(_url(gemini_shared), SETUP, big)
    assert code == 1007 and "at most 65536 bytes" in reason


def test_music_sessions_count_with_live_sessions_and_play_at_a_bounded_lead() -> None:
    from gemini_emulator.config import Settings
    from gemini_emulator.testing.server import start

    running = start(Settings(port=0, max_live_sessions_per_namespace=1))
    try:
        url = running.url.replace("http", "ws", 1) + PATH
        prompts = {"clientContent": {"weightedPrompts": [{"text": "drums", "weight": 1.0}]}}

        async def go() -> tuple[int, str, int]:
            async with websockets.connect(url + "?key=a") as first:
                await first.send(json.dumps(SETUP))
                await first.recv()
                refused = await _closed_by(url + "?key=a", SETUP)
                await first.send(json.dumps(prompts))
                await first.send(json.dumps({"playbackControl": "PLAY"}))
                began = time.monotonic()
                pieces = 0
                while pieces < 12:  # 6 s of audio: past the 4 s lead, it comes at the wall clock's pace
                    if "serverContent" in json.loads(await asyncio.wait_for(first.recv(), 10)):
                        pieces += 1
                held_back = time.monotonic() - began
            return refused[1], refused[2], int(held_back * 10)

        code, reason, tenths = asyncio.run(go())
        assert code == 1011 and reason == "Resource has been exhausted (e.g. check quota)."
        assert tenths >= 10  # 12 chunks (6 s) took at least 6 - 4 - one chunk = 1.5 s: the lead is bounded
    finally:
        running.stop()


def test_stop_starts_the_music_again_from_its_first_beat(gemini_tls: Gemini) -> None:
    gemini_tls.script({"match": {"text": "barrier"}, "blockReason": "OTHER"})

    async def go() -> tuple[bytes, bytes]:
        async with _connect(gemini_tls.client) as session:
            await session.set_weighted_prompts([types.WeightedPrompt(text="strings", weight=2.0)])
            await session.play()
            first = [c.data for m in await _audio(session, 3) for c in m.server_content.audio_chunks or []]
            await session.stop()
            await session.set_weighted_prompts([types.WeightedPrompt(text="barrier", weight=1.0)])
            async for message in session.receive():  # chunks in flight before STOP, then the barrier
                if message.filtered_prompt:
                    break
            await session.play()
            async for message in session.receive():
                if message.server_content:
                    return first[0], message.server_content.audio_chunks[0].data
            raise AssertionError("no audio after PLAY")

    start, restarted = run(go())
    assert start == restarted


def test_a_scripted_drop_cuts_the_connection(gemini_shared: Gemini) -> None:
    gemini_shared.script({"match": {"method": "bidiGenerateMusic"}, "text": "x", "dropAfterChunks": 0})
    prompts = {"clientContent": {"weightedPrompts": [{"text": "ambient", "weight": 1.0}]}}

    async def go() -> Any:
        async with websockets.connect(_url(gemini_shared)) as ws:
            await ws.send(json.dumps(SETUP))
            await ws.recv()
            await ws.send(json.dumps(prompts))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            return closed.value.rcvd

    assert asyncio.run(go()) is None  # no close frame: the SDK sees 1006
