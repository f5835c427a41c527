"""Media answers: an answer's chunks dressed as the request's output modalities ask (GenerateRequest.output_modalities).

- IMAGE (the image-out models): a PNG part after the text (gemini_emulator.media.images), of the requested
  `imageConfig.aspectRatio` and `imageSize`, its picture derived from the request; a JPEG when
  `imageConfig.imageOutputOptions.mimeType` is image/jpeg (at its `compressionQuality`); a script's own images
  instead when the entry gives them. With responseModalities ["IMAGE"] the text parts go.
- AUDIO (the TTS models): the answer's text spoken (gemini_emulator.media.audio.speak) as one
  `audio/L16;codec=pcm;rate=24000` part, in the voice of `speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName`;
  with `multiSpeakerVoiceConfig`, each "Speaker: line" in that speaker's voice. A stream carries the sound in pieces
  of at most AUDIO_PIECE_SECONDS.
Gemini 3 models put a thought signature on the image part (vercel-ai fixture issue-10660-image-thought-signature).
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from gemini_emulator.engines.synth.calls import mint_signature
from gemini_emulator.media import audio, images
from gemini_emulator.seam import Chunk, GenerateRequest

AUDIO_PIECE_SECONDS = 2.0
Blob = tuple[bytes, str]  # (bytes, MIME type)


def dress(
    request: GenerateRequest, chunks: list[Chunk], given: list[Blob] | None = None, speech: str | None = None
) -> list[Chunk]:
    """`chunks` as the request's output modalities ask; `given` are a script's images, `speech` the text to speak
    (default: the answer's own text)."""
    outputs = request.output_modalities
    if any("functionCall" in p for c in chunks for p in c.parts):  # a call is no picture nor speech
        return chunks
    if "AUDIO" in outputs:
        return _spoken(request, chunks, speech)
    if "IMAGE" in outputs or given:
        return _with_images(request, chunks, given, text="TEXT" in outputs or given is not None)
    return chunks


def image_size(request: GenerateRequest) -> tuple[int, int]:
    """The (width, height) the request's imageConfig asks for (or the wire's own, GenerateRequest.image_size)."""
    if request.image_size is not None:
        return request.image_size
    config = request.generation_config.get("imageConfig") or {}
    aspect = config.get("aspectRatio") if isinstance(config, dict) else None
    size = config.get("imageSize") if isinstance(config, dict) else None
    return images.dimensions(str(aspect or "1:1"), str(size or "1K"))


def output_format(request: GenerateRequest) -> tuple[str, int | None]:
    """(MIME type, JPEG quality) of the images the request asks for (imageConfig.imageOutputOptions; PNG by
    default; the wire has refused other types)."""
    config = request.generation_config.get("imageConfig") or {}
    options = config.get("imageOutputOptions") if isinstance(config, dict) else None
    if not isinstance(options, dict):
        return images.PNG_MIME, None
    mime = images.JPEG_MIME if options.get("mimeType") == images.JPEG_MIME else images.PNG_MIME
    quality = options.get("compressionQuality")
    return mime, quality if isinstance(quality, int) and not isinstance(quality, bool) else None


def _with_images(request: GenerateRequest, chunks: list[Chunk], given: list[Blob] | None, text: bool) -> list[Chunk]:
    out = [dataclasses.replace(c, parts=[p for p in c.parts if text or _kept_without_text(p)]) for c in chunks]
    last_of: dict[int, Chunk] = {}
    for chunk in out:
        last_of[chunk.index] = chunk
    for index, chunk in last_of.items():
        seed = f"{request.fingerprint}:image:{index}"
        if given is not None:
            blobs = given
        else:
            mime, quality = output_format(request)
            blobs = [(images.picture(*image_size(request), seed, mime, quality), mime)]
        for i, (data, mime) in enumerate(blobs):
            part: dict[str, Any] = {"inlineData": {"mimeType": mime, "data": base64.b64encode(data).decode()}}
            if i == 0 and request.model.startswith("gemini-3"):
                part["thoughtSignature"] = mint_signature(seed)
            chunk.parts.append(part)
    return [c for c in out if c.parts or c.finish_reason or c is out[-1]]


def _kept_without_text(part: dict[str, Any]) -> bool:
    """With IMAGE alone: thoughts and signature carriers stay; answer text goes."""
    return "text" not in part or bool(part.get("thought")) or (part["text"] == "" and "thoughtSignature" in part)


def _spoken(request: GenerateRequest, chunks: list[Chunk], speech: str | None) -> list[Chunk]:
    if speech is None:
        texts = [p["text"] for c in chunks for p in c.parts if isinstance(p.get("text"), str) and not p.get("thought")]
        speech = "".join(texts)
    pcm = speak(speech, request.generation_config.get("speechConfig"))
    last = chunks[-1] if chunks else Chunk(finish_reason="STOP")
    piece = int(AUDIO_PIECE_SECONDS * audio.RATE) * audio.SAMPLE_BYTES
    pieces = [pcm[i : i + piece] for i in range(0, len(pcm), piece)] if request.stream else [pcm]
    out = [Chunk(parts=[_audio_part(p)], usage=last.usage) for p in pieces or [b""]]
    out[-1].finish_reason = last.finish_reason or "STOP"
    out[-1].finish_message = last.finish_message
    out[-1].fault, out[-1].headers = last.fault, last.headers
    return out


def speak(text: str, speech_config: Any) -> bytes:
    """PCM for `text` in the configured voice, or line by line in each speaker's voice (multi-speaker)."""
    config = speech_config if isinstance(speech_config, dict) else {}
    speakers = _speaker_voices(config)
    if not speakers:
        return audio.speak(text, _voice(config.get("voiceConfig")))
    pcm = bytearray()
    limit = int(audio.MAX_SECONDS * audio.RATE) * audio.SAMPLE_BYTES
    for line in text.splitlines() or [text]:
        name, _, said = line.partition(":")
        voice = speakers.get(name.strip())
        if voice is None:
            voice, said = next(iter(speakers.values())), line
        if said.strip():
            pcm += audio.speak(said.strip(), voice)
        if len(pcm) >= limit:
            return bytes(pcm[:limit])
    return bytes(pcm)


def _speaker_voices(config: dict[str, Any]) -> dict[str, str]:
    multi = config.get("multiSpeakerVoiceConfig")
    if not isinstance(multi, dict):
        return {}
    voices = {}
    for speaker in multi.get("speakerVoiceConfigs") or []:
        if isinstance(speaker, dict) and isinstance(speaker.get("speaker"), str):
            voices[speaker["speaker"]] = _voice(speaker.get("voiceConfig"))
    return voices


def _voice(voice_config: Any) -> str:
    if not isinstance(voice_config, dict):
        return ""
    prebuilt = voice_config.get("prebuiltVoiceConfig")
    if isinstance(prebuilt, dict) and isinstance(prebuilt.get("voiceName"), str):
        return str(prebuilt["voiceName"])
    return str(voice_config.get("voice") or "")


def _audio_part(pcm: bytes) -> dict[str, Any]:
    return {"inlineData": {"mimeType": audio.TTS_MIME, "data": base64.b64encode(pcm).decode()}}
