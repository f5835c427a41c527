"""Voices (issue 33): google-genai 3.6.1's `client.voices` (sync and async) against the emulator over real sockets,
and a created voice used by a TTS call and a Live session."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from websockets.sync.client import connect

from gemini_emulator.stores.voices import MAX_PER_NAMESPACE, PREBUILT
from gemini_emulator.testing.pytest_plugin import Gemini

TTS = "gemini-2.5-flash-preview-tts"
PROMPTED = {"type": "prompted", "display_name": "Ogre", "gender": "male", "prompted": {"input": "A deep voice."}}
AUDIO = {"data": "UklGRg==", "mime_type": "audio/wav"}


def client_for(gemini: Gemini, key: str | None = None) -> genai.Client:
    return genai.Client(api_key=key or gemini.api_key, http_options=types.HttpOptions(base_url=gemini.url))


def test_create_get_list_delete_a_prompted_voice(gemini: Gemini) -> None:
    client = client_for(gemini)
    made = client.voices.create(store=True, voice=PROMPTED)  # type: ignore[arg-type]
    assert made.id and made.id.startswith("voice_") and made.display_name == "Ogre" and made.type == "prompted"
    assert made.prompted and made.prompted.input == "A deep voice." and made.expire_time is not None
    assert client.voices.get(id=made.id).display_name == "Ogre"
    listed = client.voices.list()
    ids = [v.id for v in listed.voices or []]
    assert ids[0] == made.id  # the caller's stored voices first, then the catalogue
    assert ids[1:] == [name for name, _ in PREBUILT]
    client.voices.delete(id=made.id)
    with pytest.raises(Exception, match="404"):
        client.voices.get(id=made.id)
    with pytest.raises(Exception, match="404"):
        client.voices.delete(id=made.id)


def test_a_prebuilt_voice_reads_as_the_catalogue_lists_it(gemini: Gemini) -> None:
    client = client_for(gemini)  # kept: a client that is collected closes its connections under the call
    puck = client.voices.get(id="Puck")
    assert (puck.id, puck.display_name, puck.type, puck.description) == ("Puck", "Puck", "prebuilt", "Upbeat")


def test_list_filters_pages_and_a_token_bound_to_its_filters(gemini: Gemini) -> None:
    client = client_for(gemini)
    client.voices.create(store=True, voice=PROMPTED)  # type: ignore[arg-type]
    client.voices.create(store=True, voice=PROMPTED | {"display_name": "Fairy", "gender": "female"})  # type: ignore[arg-type]
    assert [v.display_name for v in client.voices.list(type_=["prompted"]).voices or []] == ["Fairy", "Ogre"]
    assert [v.display_name for v in client.voices.list(gender=["FEMALE"]).voices or []] == ["Fairy"]
    assert [v.id for v in client.voices.list(search="upbeat").voices or []] == ["Puck", "Laomedeia"]
    first = client.voices.list(page_size=5)
    second = client.voices.list(page_size=5, page_token=first.next_page_token)
    assert len(first.voices or []) == 5 and first.next_page_token
    assert not {v.id for v in first.voices or []} & {v.id for v in second.voices or []}
    with pytest.raises(Exception, match="other filters"):
        client.voices.list(page_size=5, page_token=first.next_page_token, gender=["male"])


def test_a_replicated_voice_not_stored_hands_back_a_key(gemini: Gemini) -> None:
    client = client_for(gemini)
    voice = {"type": "replicated", "replicated": {"source_audio": AUDIO, "consent_audio": AUDIO}}
    made = client.voices.create(voice=voice)  # type: ignore[arg-type]
    assert made.key and made.key.startswith("voicekey_") and made.id is None
    assert [v.type for v in client.voices.list().voices or []] == ["prebuilt"] * len(PREBUILT)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"voice": {"type": "prompted", "prompted": {"input": "x"}}}, "must be stored"),
        ({"store": True, "voice": {"type": "prompted"}}, "prompted.input is required"),
        ({"voice": {"type": "replicated", "replicated": {"source_audio": AUDIO}}}, "consent_audio"),
        ({"store": True, "voice": {"type": "prebuilt"}}, "voice.type"),
        ({"store": True, "voice": PROMPTED | {"pitch": "shrill"}}, "voice.pitch"),
        ({}, "voice is required"),
    ],
)
def test_bad_creates_are_400s(gemini: Gemini, body: dict[str, Any], said: str) -> None:
    answer = httpx.post(f"{gemini.url}/v1/voices", json=body, headers={"x-goog-api-key": gemini.api_key})
    assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert said in answer.json()["error"]["message"]


def test_another_key_sees_none_of_them(gemini: Gemini) -> None:
    client = client_for(gemini)
    mine = client.voices.create(store=True, voice=PROMPTED)  # type: ignore[arg-type]
    other = client_for(gemini, f"other-{uuid.uuid4()}")
    assert all(v.type == "prebuilt" for v in other.voices.list().voices or [])
    with pytest.raises(Exception, match="404"):
        other.voices.get(id=mine.id or "")


def test_a_namespace_holds_a_bounded_number(gemini: Gemini) -> None:
    headers = {"x-goog-api-key": gemini.api_key}
    with httpx.Client(base_url=gemini.url, headers=headers) as http:
        for _ in range(MAX_PER_NAMESPACE):
            assert http.post("/v1/voices", json={"store": True, "voice": PROMPTED}).status_code == 200
        full = http.post("/v1/voices", json={"store": True, "voice": PROMPTED})
    assert full.status_code == 429 and full.json()["error"]["status"] == "RESOURCE_EXHAUSTED"


def test_async_lifecycle(gemini: Gemini) -> None:
    async def run() -> None:
        client = client_for(gemini).aio
        made = await client.voices.create(store=True, voice=PROMPTED)  # type: ignore[arg-type]
        assert (await client.voices.get(id=made.id or "")).id == made.id
        assert (await client.voices.list()).voices
        await client.voices.delete(id=made.id or "")

    asyncio.run(run())


def test_tts_speaks_in_a_stored_voice_and_refuses_an_unknown_one(gemini: Gemini) -> None:
    client = client_for(gemini)
    made = client.voices.create(store=True, voice=PROMPTED)  # type: ignore[arg-type]

    def speak(voice: str) -> types.GenerateContentResponse:
        return client.models.generate_content(
            model=TTS,
            contents="Say hello",
            config=types.GenerateContentConfig(
                response_modalities=["AUDIO"],
                speech_config=types.SpeechConfig(voice_config=types.VoiceConfig(voice=voice)),
            ),
        )

    spoken = speak(made.id or "")
    part = spoken.candidates[0].content.parts[0]  # type: ignore[index, union-attr]
    assert part.inline_data and part.inline_data.mime_type and part.inline_data.mime_type.startswith("audio/L16")
    assert speak("Kore").candidates and speak("voicekey_held-by-the-caller").candidates
    with pytest.raises(Exception, match="400") as refused:
        speak("voice_nobodys")
    assert "Voice voice_nobodys was not found." in str(refused.value)


def test_a_live_setup_takes_a_stored_voice_and_refuses_an_unknown_one(gemini: Gemini) -> None:
    client = client_for(gemini)
    made = client.voices.create(store=True, voice=PROMPTED)  # type: ignore[arg-type]
    url = gemini.url.replace("http", "ws", 1)
    url += f"/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key={gemini.api_key}"

    def setup(voice: str) -> Any:
        speech = {"voiceConfig": {"voice": voice}}
        message = {"setup": {"model": "models/gemini-2.5-flash-native-audio-latest"}}
        message["setup"]["generationConfig"] = {"responseModalities": ["AUDIO"], "speechConfig": speech}
        with connect(url, open_timeout=10) as socket:
            socket.send(json.dumps(message))
            try:
                return json.loads(socket.recv(timeout=10))
            except Exception as closed:  # the session's close frame: its code and reason
                return closed

    assert setup(made.id or "") == {"setupComplete": {}}
    refused = setup("voice_nobodys")
    assert "1007" in str(refused) and "Voice voice_nobodys was not found." in str(refused)
