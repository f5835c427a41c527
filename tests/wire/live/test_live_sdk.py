"""The Live API through unmodified google-genai over --tls: it dials wss:// whatever the base URL says."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from google.genai import errors, types
from live_helpers import session_record

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash-native-audio-latest"
TIMEOUT = 20


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, TIMEOUT))


async def _turn(session: Any) -> list[types.LiveServerMessage]:
    out = []
    async for message in session.receive():
        out.append(message)
    return out


def test_text_turn_scripted_over_tls(gemini_tls: Gemini) -> None:
    assert gemini_tls.url.startswith("https://")
    gemini_tls.script({"match": {"text": "weather"}, "text": "Sunny and mild in Paris today."})

    async def go() -> list[types.LiveServerMessage]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config={"response_modalities": ["TEXT"]}) as s:
            assert s.setup_complete is not None
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "What is the weather?"}]})
            return await _turn(s)

    messages = run(go())
    text = "".join(m.text or "" for m in messages if m.server_content and m.server_content.model_turn)
    assert text == "Sunny and mild in Paris today."
    assert len([m for m in messages if m.server_content and m.server_content.model_turn]) > 1  # in pieces
    assert any(m.server_content and m.server_content.generation_complete for m in messages)
    last = messages[-1]
    assert last.server_content and last.server_content.turn_complete
    assert last.usage_metadata and last.usage_metadata.total_token_count
    assert last.usage_metadata.response_tokens_details[0].modality == types.MediaModality.TEXT
    record = session_record(gemini_tls)
    assert record.entry and record.model == MODEL


def test_zero_config_remembers_the_conversation(gemini_tls: Gemini) -> None:
    gemini_tls.script({"match": {"turn": 1}, "text": "second answer"})

    async def go() -> tuple[str, str]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config={"response_modalities": ["TEXT"]}) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "Hello"}]})
            first = "".join(m.text or "" for m in await _turn(s))
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "And now?"}]})
            second = "".join(m.text or "" for m in await _turn(s))
            return first, second

    first, second = run(go())
    assert first and first != "second answer"  # the zero-config answer
    assert second == "second answer"  # the script saw one earlier model turn


def test_audio_turn_with_transcription(gemini_tls: Gemini) -> None:
    gemini_tls.script({"text": "Hello from the emulator, speaking."})
    config = {"response_modalities": ["AUDIO"], "output_audio_transcription": {}}

    async def go() -> list[types.LiveServerMessage]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config=config) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "Say hello"}]})
            return await _turn(s)

    messages = run(go())
    pcm = b"".join(m.data for m in messages if m.data)
    assert len(pcm) > 24_000 * 2 * 0.5  # at least half a second of 24 kHz 16-bit speech
    mimes = {
        p.inline_data.mime_type
        for m in messages
        if m.server_content and m.server_content.model_turn
        for p in m.server_content.model_turn.parts or []
        if p.inline_data
    }
    assert mimes == {"audio/pcm;rate=24000"}
    said = "".join(
        m.server_content.output_transcription.text or ""
        for m in messages
        if m.server_content and m.server_content.output_transcription
    )
    assert said == "Hello from the emulator, speaking."
    assert messages[-1].usage_metadata.response_tokens_details[0].modality == types.MediaModality.AUDIO


def test_tool_call_round_trip(gemini_tls: Gemini) -> None:
    gemini_tls.script(
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"match": {"hasFunctionResponse": True}, "text": "It is 21 degrees."},
    )
    tools = [{"function_declarations": [{"name": "get_weather", "parameters": {"type": "OBJECT"}}]}]

    async def go() -> tuple[types.LiveServerToolCall, str]:
        config = {"response_modalities": ["TEXT"], "tools": tools}
        async with gemini_tls.client.aio.live.connect(model=MODEL, config=config) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "Weather in Paris?"}]})
            async for message in s.receive():
                if message.tool_call:
                    call = message.tool_call
                    break
            fc = call.function_calls[0]
            await s.send_tool_response(
                function_responses=[types.FunctionResponse(id=fc.id, name=fc.name, response={"temp": 21})]
            )
            return call, "".join(m.text or "" for m in await _turn(s))

    call, text = run(go())
    assert call.function_calls[0].name == "get_weather" and call.function_calls[0].args == {"city": "Paris"}
    assert call.function_calls[0].id
    assert text == "It is 21 degrees."


def _tone(seconds: float, loud: bool = True, rate: int = 16_000) -> bytes:
    import math
    import struct

    n = int(seconds * rate)
    amplitude = 8000 if loud else 0
    return b"".join(struct.pack("<h", int(amplitude * math.sin(2 * math.pi * 220 * i / rate))) for i in range(n))


def test_realtime_audio_with_activity_signals(gemini_tls: Gemini) -> None:
    gemini_tls.script({"text": "I heard you.", "live": {"inputTranscription": "book a table"}})
    config = {
        "response_modalities": ["TEXT"],
        "input_audio_transcription": {},
        "realtime_input_config": {"automatic_activity_detection": {"disabled": True}},
    }

    async def go() -> list[types.LiveServerMessage]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config=config) as s:
            await s.send_realtime_input(activity_start=types.ActivityStart())
            pcm = _tone(0.5)
            for start in range(0, len(pcm), 640):  # 20 ms pieces
                await s.send_realtime_input(
                    audio=types.Blob(data=pcm[start : start + 640], mime_type="audio/pcm;rate=16000")
                )
            await s.send_realtime_input(activity_end=types.ActivityEnd())
            return await _turn(s)

    messages = run(go())
    heard = [
        m.server_content.input_transcription.text
        for m in messages
        if m.server_content and m.server_content.input_transcription
    ]
    assert heard == ["book a table"]
    assert "".join(m.text or "" for m in messages) == "I heard you."


def test_automatic_activity_detection_ends_the_turn_on_silence(gemini_tls: Gemini) -> None:
    gemini_tls.script({"text": "Got it."})
    config = {"response_modalities": ["TEXT"], "input_audio_transcription": {}}

    async def go() -> list[types.LiveServerMessage]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config=config) as s:
            pcm = _tone(0.4) + _tone(1.0, loud=False)
            for start in range(0, len(pcm), 640):
                await s.send_realtime_input(
                    audio=types.Blob(data=pcm[start : start + 640], mime_type="audio/pcm;rate=16000")
                )
            return await _turn(s)

    messages = run(go())
    heard = [
        m.server_content.input_transcription.text
        for m in messages
        if m.server_content and m.server_content.input_transcription
    ]
    assert heard and "seconds of audio" in heard[0]  # the zero-config placeholder
    assert "".join(m.text or "" for m in messages) == "Got it."


def test_barge_in_interrupts_the_answer(gemini_tls: Gemini) -> None:
    gemini_tls.script(
        {"text": "one two three four five six seven eight", "chunkDelayMs": 400},
        {"text": "Sure, stopping."},
    )

    async def go() -> list[types.LiveServerMessage]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config={"response_modalities": ["TEXT"]}) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "Count"}]})
            seen = []
            async for message in s.receive():
                seen.append(message)
                if message.text:  # the model is speaking: talk over it
                    await s.send_realtime_input(text="stop")
                if message.server_content and message.server_content.interrupted:
                    break
            seen += await _turn(s)
            return seen

    messages = run(go())
    assert any(m.server_content and m.server_content.interrupted for m in messages)
    assert "".join(m.text or "" for m in messages).endswith("Sure, stopping.")


def test_session_resumption_after_a_drop(gemini_tls: Gemini) -> None:
    gemini_tls.script(
        {"text": "Your name is Ada.", "live": {"drop": True}},
        {"match": {"turn": 1, "request": "My name is Ada"}, "text": "Still Ada."},
    )

    async def go() -> tuple[str, str]:
        config: dict[str, Any] = {"response_modalities": ["TEXT"], "session_resumption": {}}
        handle = ""
        async with gemini_tls.client.aio.live.connect(model=MODEL, config=config) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "My name is Ada"}]})
            async for message in s.receive():
                if message.session_resumption_update and message.session_resumption_update.new_handle:
                    handle = message.session_resumption_update.new_handle
            with pytest.raises(errors.APIError) as dropped:  # the drop: no close frame
                await _turn(s)
            assert dropped.value.code == 1006
        config["session_resumption"] = {"handle": handle}
        async with gemini_tls.client.aio.live.connect(model=MODEL, config=config) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "What is my name?"}]})
            return handle, "".join(m.text or "" for m in await _turn(s))

    handle, text = run(go())
    assert handle
    assert text == "Still Ada."  # the second session's request held the first one's conversation


def test_scripted_go_away(gemini_tls: Gemini) -> None:
    gemini_tls.script({"text": "Bye soon.", "live": {"goAway": "0.2s"}})

    async def go() -> tuple[Any, BaseException | None]:
        async with gemini_tls.client.aio.live.connect(model=MODEL, config={"response_modalities": ["TEXT"]}) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "hi"}]})
            await _turn(s)
            going = None
            try:
                async for message in s.receive():
                    if message.go_away:
                        going = message.go_away
            except Exception as exc:
                return going, exc
            return going, None

    going, ended = run(go())
    assert going is not None and going.time_left == "0.2s"
    assert ended is not None  # then the server ends the session


def test_wrong_model_closes_1008(gemini_tls: Gemini) -> None:
    async def go() -> None:
        async with gemini_tls.client.aio.live.connect(model="gemini-nope", config={"response_modalities": ["TEXT"]}):
            pass

    with pytest.raises(errors.APIError) as caught:
        run(go())
    assert caught.value.code == 1008
    assert "models/gemini-nope is not found for API version" in str(caught.value)
    assert "or is not supported for bidiGenerateContent" in str(caught.value)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_ephemeral_token_locks_its_setup_and_is_used_up(gemini_tls: Gemini) -> None:
    from google import genai

    gemini_tls.script({"text": "token session", "times": 2})
    alpha = types.HttpOptions(base_url=gemini_tls.url, api_version="v1alpha")
    minter = genai.Client(api_key=gemini_tls.api_key, http_options=alpha)
    token = minter.auth_tokens.create(
        config={"uses": 1, "live_connect_constraints": {"model": MODEL, "config": {"response_modalities": ["TEXT"]}}}
    )
    assert token.name and token.name.startswith("auth_tokens/")
    client = genai.Client(api_key=token.name, http_options=alpha)

    async def go() -> str:
        # The token locks TEXT: the session's AUDIO request is overridden.
        async with client.aio.live.connect(model=MODEL, config={"response_modalities": ["AUDIO"]}) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "hi"}]})
            return "".join(m.text or "" for m in await _turn(s))

    with pytest.warns(errors.ExperimentalWarning):
        assert run(go()) == "token session"
    with pytest.raises(errors.APIError) as refused, pytest.warns(errors.ExperimentalWarning):
        run(go())  # uses: 1
    assert refused.value.code == 1008
    journal = gemini_tls.journal()
    leaks = [c.record for c in journal if token.name in str(c.record)]
    assert not leaks  # a credential never reaches the journal


AUDIO_NATIVE = "gemini-3.1-flash-live-preview"  # audio-native on the Gemini API (google-genai's live tests)


def test_an_audio_native_model_refuses_text_and_serves_audio_with_a_transcript(gemini_tls: Gemini) -> None:
    """issue 30: production refuses TEXT on the audio-native Live models; the emulator had served it."""

    async def text() -> None:
        async with gemini_tls.client.aio.live.connect(model=AUDIO_NATIVE, config={"response_modalities": ["TEXT"]}):
            pass

    with pytest.raises(errors.APIError) as caught:
        run(text())
    assert caught.value.code == 1007
    assert "The requested combination of response modalities (TEXT) is not supported by the model." in str(caught.value)
    gemini_tls.script({"text": "Hello from the audio model."})

    async def audio() -> list[types.LiveServerMessage]:
        config = {"response_modalities": ["AUDIO"], "output_audio_transcription": {}}
        async with gemini_tls.client.aio.live.connect(model=AUDIO_NATIVE, config=config) as s:
            await s.send_client_content(turns={"role": "user", "parts": [{"text": "Say hello"}]})
            return await _turn(s)

    messages = run(audio())
    spoken = [m for m in messages if m.server_content and m.server_content.model_turn]
    assert spoken and all(p.inline_data for m in spoken for p in m.server_content.model_turn.parts)
    heard = "".join(
        m.server_content.output_transcription.text or ""
        for m in messages
        if m.server_content and m.server_content.output_transcription
    )
    assert heard == "Hello from the audio model."
