"""Images and speech through generateContent, as google-genai users ask for them: image-out models answer real
PNGs beside their text, TTS models speak; a model that cannot do what responseModalities asks gets production's 400.
Every image is decoded (tests/pngcheck.py); every sound's length is checked against its sample rate."""

from __future__ import annotations

import base64
import io
import shutil

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors, types
from PIL import Image
from pngcheck import decode

from gemini_emulator.media import audio, images
from gemini_emulator.testing.pytest_plugin import Gemini

IMAGE_MODEL = "gemini-3.1-flash-image"
PRO_IMAGE = "gemini-3-pro-image"
TTS = "gemini-2.5-flash-preview-tts"
RATE = 24_000


def _image_parts(response: types.GenerateContentResponse) -> list[types.Part]:
    return [p for p in response.candidates[0].content.parts if p.inline_data is not None]


def _config(**kwargs: object) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(**kwargs)


@pytest.mark.parametrize(
    ("aspect", "size", "expected"),
    [("1:1", None, (1024, 1024)), ("16:9", "1K", (1344, 768)), ("3:4", "2K", (1728, 2368))],
)
def test_image_model_answers_text_then_a_png_of_the_asked_shape(
    client: genai.Client, aspect: str, size: str | None, expected: tuple[int, int]
) -> None:
    config = _config(
        response_modalities=["TEXT", "IMAGE"], image_config=types.ImageConfig(aspect_ratio=aspect, image_size=size)
    )
    response = client.models.generate_content(model=IMAGE_MODEL, contents="Draw a lighthouse at dusk", config=config)
    parts = response.candidates[0].content.parts
    assert parts[0].text and parts[-1].inline_data is not None  # text first, the picture after it
    blob = parts[-1].inline_data
    assert blob.mime_type == "image/png"
    assert decode(blob.data)[:2] == expected
    assert parts[-1].thought_signature  # Gemini 3 signs the image part
    usage = response.usage_metadata
    details = {d.modality: d.token_count for d in usage.candidates_tokens_details}
    assert details[types.MediaModality.IMAGE] == 1120 and details[types.MediaModality.TEXT] > 0
    assert usage.candidates_token_count == sum(details.values())
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count + (
        usage.thoughts_token_count or 0
    )
    again = client.models.generate_content(model=IMAGE_MODEL, contents="Draw a lighthouse at dusk", config=config)
    other = client.models.generate_content(model=IMAGE_MODEL, contents="Draw a fox", config=config)
    assert _image_parts(again)[0].inline_data.data == blob.data  # deterministic per request
    assert _image_parts(other)[0].inline_data.data != blob.data


def test_image_only_has_no_text_and_no_modalities_means_text_and_image(client: genai.Client) -> None:
    only = client.models.generate_content(
        model=PRO_IMAGE, contents="A red square", config=_config(response_modalities=["IMAGE"])
    )
    parts = only.candidates[0].content.parts
    assert all(p.text is None or p.text == "" for p in parts) and len(_image_parts(only)) == 1
    assert decode(_image_parts(only)[0].inline_data.data)[:2] == (1024, 1024)
    default = client.models.generate_content(model=PRO_IMAGE, contents="A red square")
    assert default.text and len(_image_parts(default)) == 1


def test_image_stream_carries_the_picture(client: genai.Client) -> None:
    chunks = list(
        client.models.generate_content_stream(
            model=IMAGE_MODEL, contents="Paint waves", config=_config(response_modalities=["TEXT", "IMAGE"])
        )
    )
    pictures = [p for c in chunks for p in c.candidates[0].content.parts or [] if p.inline_data is not None]
    assert len(pictures) == 1 and decode(pictures[0].inline_data.data)[:2] == (1024, 1024)
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    assert any(d.modality == types.MediaModality.IMAGE for d in chunks[-1].usage_metadata.candidates_tokens_details)


def test_vertex_image_answer(base_url: str) -> None:
    vertex = genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token="static-test-token"),
        http_options=types.HttpOptions(base_url=base_url),
    )
    response = vertex.models.generate_content(model=IMAGE_MODEL, contents="Draw a kite")
    assert decode(_image_parts(response)[0].inline_data.data)[:2] == (1024, 1024)
    details = [d.modality for d in response.usage_metadata.candidates_tokens_details]
    assert details == [types.MediaModality.TEXT, types.MediaModality.IMAGE]


def test_vertex_image_output_options_answer_a_jpeg(base_url: str, gemini_shared: Gemini) -> None:
    """imageConfig.imageOutputOptions (google-genai's output_mime_type, Vertex only): a real JPEG of the asked
    shape, counted as an image in the usage."""
    vertex = genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=gemini_shared.api_key),
        http_options=types.HttpOptions(base_url=base_url),
    )
    image_config = types.ImageConfig(aspect_ratio="16:9", output_mime_type="image/jpeg", output_compression_quality=40)
    config = _config(response_modalities=["TEXT", "IMAGE"], image_config=image_config)
    response = vertex.models.generate_content(model=IMAGE_MODEL, contents="Draw a kite", config=config)
    (part,) = _image_parts(response)
    assert part.inline_data.mime_type == "image/jpeg"
    picture = Image.open(io.BytesIO(part.inline_data.data))
    picture.load()
    assert (picture.format, picture.size) == ("JPEG", (1344, 768))
    details = {d.modality: d.token_count for d in response.usage_metadata.candidates_tokens_details}
    assert details[types.MediaModality.IMAGE] == 1120
    sent = gemini_shared.journal(model=IMAGE_MODEL).last.record["body"]
    options = sent["generationConfig"]["imageConfig"]["imageOutputOptions"]
    assert options == {"mimeType": "image/jpeg", "compressionQuality": 40}
    bad = types.ImageConfig(output_mime_type="image/tiff")
    with pytest.raises(errors.ClientError) as caught:
        vertex.models.generate_content(
            model=IMAGE_MODEL, contents="Draw a kite", config=_config(response_modalities=["IMAGE"], image_config=bad)
        )
    assert caught.value.code == 400 and "image/tiff" in caught.value.message


def test_scripted_image_from_base64_and_from_a_path(gemini_shared: Gemini, tmp_path: object) -> None:
    picture = images.png(40, 30, "scripted")
    path = tmp_path / "cat.png"  # type: ignore[operator]
    path.write_bytes(images.png(8, 6, "file"))
    gemini_shared.script(
        {"match": {"text": "base64"}, "text": "Here you are.", "image": base64.b64encode(picture).decode()},
        {"match": {"text": "file"}, "image": {"path": str(path)}},
    )
    client = gemini_shared.client
    first = client.models.generate_content(model=IMAGE_MODEL, contents="base64 please")
    assert first.text == "Here you are."
    assert _image_parts(first)[0].inline_data.data == picture
    second = client.models.generate_content(model=IMAGE_MODEL, contents="from a file")
    assert decode(_image_parts(second)[0].inline_data.data)[:2] == (8, 6)
    journal = gemini_shared.journal(model=IMAGE_MODEL)
    assert len(journal) == 2
    shown = journal[0].record["response"]  # media by type and size, not its bytes
    assert f'"<{len(picture)} bytes of base64 media>"' in shown and '"mimeType": "image/png"' in shown
    assert base64.b64encode(picture).decode()[:300] not in shown


def test_journal_shows_uploaded_media_by_size(gemini_shared: Gemini) -> None:
    upload = images.png(300, 200, "upload")
    part = types.Part.from_bytes(data=upload, mime_type="image/png")
    gemini_shared.client.models.generate_content(model="gemini-2.5-flash", contents=[part, "What is this?"])
    call = gemini_shared.journal().last
    blob = call.contents[0]["parts"][0]["inlineData"]
    assert blob == {"data": f"<{len(upload)} bytes of base64 media>", "mime_type": "image/png"}  # as sent


def test_bad_scripted_image_is_refused(gemini_shared: Gemini) -> None:
    with pytest.raises(Exception) as caught:
        gemini_shared.script({"image": base64.b64encode(b"not an image at all").decode()})
    assert "image" in str(caught.value)


def _pcm(response: types.GenerateContentResponse) -> bytes:
    parts = response.candidates[0].content.parts
    assert all(p.inline_data is not None and p.inline_data.mime_type == audio.TTS_MIME for p in parts)
    return b"".join(p.inline_data.data for p in parts)


def _speech(voice: str) -> types.GenerateContentConfig:
    voice_config = types.VoiceConfig(prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=voice))
    return _config(response_modalities=["AUDIO"], speech_config=types.SpeechConfig(voice_config=voice_config))


def test_tts_speaks_the_prompt_as_24khz_pcm_whose_length_follows_the_text(client: genai.Client) -> None:
    short = _pcm(client.models.generate_content(model=TTS, contents="Hello there.", config=_speech("Kore")))
    long_text = "Say cheerfully: have a wonderful day, and thank you for all the help with the garden this spring."
    long = _pcm(client.models.generate_content(model=TTS, contents=long_text, config=_speech("Kore")))
    assert len(short) % 2 == 0 and len(long) % 2 == 0  # 16-bit samples
    assert 0.2 < len(short) / (RATE * 2) < len(long) / (RATE * 2) < audio.MAX_SECONDS
    assert len(long) > 3 * len(short)
    puck = _pcm(client.models.generate_content(model=TTS, contents="Hello there.", config=_speech("Puck")))
    assert len(puck) == len(short)
    if shutil.which("espeak-ng") is None:
        assert puck != short  # the synthetic voice follows the voice name


def test_tts_usage_counts_audio_tokens(client: genai.Client) -> None:
    response = client.models.generate_content(model=TTS, contents="One two three four five.", config=_speech("Kore"))
    pcm = _pcm(response)
    details = response.usage_metadata.candidates_tokens_details
    assert [d.modality for d in details] == [types.MediaModality.AUDIO]
    assert details[0].token_count == max(1, round(len(pcm) / (RATE * 2) * 25))


def test_tts_stream_and_multi_speaker(client: genai.Client) -> None:
    speakers = types.MultiSpeakerVoiceConfig(
        speaker_voice_configs=[
            types.SpeakerVoiceConfig(
                speaker=name,
                voice_config=types.VoiceConfig(prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=voice)),
            )
            for name, voice in (("Joe", "Kore"), ("Jane", "Puck"))
        ]
    )
    config = _config(
        response_modalities=["AUDIO"], speech_config=types.SpeechConfig(multi_speaker_voice_config=speakers)
    )
    text = "Joe: How is the weather today, Jane?\nJane: Sunny, with a light breeze from the west."
    unary = _pcm(client.models.generate_content(model=TTS, contents=text, config=config))
    chunks = list(client.models.generate_content_stream(model=TTS, contents=text, config=config))
    streamed = b"".join(p.inline_data.data for c in chunks for p in c.candidates[0].content.parts)
    assert streamed == unary and len(chunks) >= 2
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_scripted_text_is_spoken(gemini_shared: Gemini) -> None:
    gemini_shared.script({"text": "This is the scripted line."})
    response = gemini_shared.client.models.generate_content(model=TTS, contents="anything", config=_speech("Kore"))
    assert _pcm(response) == audio.speak("This is the scripted line.", "Kore")


@pytest.mark.parametrize(
    ("model", "modalities", "message"),
    [
        (
            TTS,
            None,
            "The requested combination of response modalities is not supported by the model. "
            f"models/{TTS} accepts the following combination of response modalities:\n* AUDIO\n",
        ),
        (TTS, ["TEXT"], f"models/{TTS} accepts the following combination of response modalities:\n* AUDIO\n"),
        ("gemini-2.5-flash", ["TEXT", "IMAGE"], "Model does not support the requested response modalities: text,image"),
        (PRO_IMAGE, ["AUDIO"], "accepts the following combination of response modalities:\n* TEXT, IMAGE\n* IMAGE\n"),
    ],
)
def test_modalities_a_model_cannot_answer_are_refused(
    client: genai.Client, model: str, modalities: list[str] | None, message: str
) -> None:
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model=model, contents="x", config=_config(response_modalities=modalities))
    assert caught.value.code == 400 and caught.value.status == "INVALID_ARGUMENT"
    assert message in caught.value.message


def test_media_models_refuse_other_methods(client: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="imagen-4.0-generate-001", contents="x")
    assert caught.value.code == 404 and "is not supported for generateContent" in caught.value.message
    with pytest.raises(errors.ClientError) as caught:
        client.models.embed_content(model=TTS, contents="x")
    assert caught.value.code == 404


def test_catalogue_lists_media_models(client: genai.Client) -> None:
    listed = {m.name.removeprefix("models/"): m for m in client.models.list(config={"page_size": 1000})}
    assert {IMAGE_MODEL, PRO_IMAGE, TTS, "imagen-4.0-generate-001", "veo-3.1-generate-preview"} <= set(listed)
    assert listed["imagen-4.0-generate-001"].supported_actions == ["predict"]
    assert listed["veo-3.0-generate-001"].supported_actions == ["predictLongRunning"]


def test_unknown_image_config_field_is_production_400(http: httpx.Client) -> None:
    """agentjido/req_llm#517 quotes production's answer to imageConfig.outputMimeType (Developer API, 2026-03)."""
    body = {
        "contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"responseModalities": ["IMAGE"], "imageConfig": {"outputMimeType": "image/png"}},
    }
    resp = http.post(f"/v1beta/models/{IMAGE_MODEL}:generateContent", json=body, headers={"x-goog-api-key": "k"})
    error = resp.json()["error"]
    assert resp.status_code == 400
    assert error["message"] == (
        "Invalid JSON payload received. Unknown name \"outputMimeType\" at 'generation_config.image_config': "
        "Cannot find field."
    )
    assert error["details"][0]["fieldViolations"][0]["field"] == "generation_config.image_config"
