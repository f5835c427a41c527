"""The voice a speech config names, checked against the caller's voices (stores/voices.py): TTS generate calls
and Live setups may name a prebuilt speaker, one of the caller's stored voices (`voice_…`) or a replicated voice's
key (`voicekey_…`, held by the caller) in `speechConfig.voiceConfig.voice`. The refusal's wording is best-known
(docs/conformance.md, "Voices")."""

from __future__ import annotations

from typing import Any

from gemini_emulator.protocol import errors
from gemini_emulator.stores.records_redis import RedisVoices
from gemini_emulator.stores.voices import Voices

MAX_SPEAKERS = 16  # speaker configs looked at (production takes two)


class Unchecked(errors.ApiError):
    """On the Redis store: the stored voices (`names`) a speech config names, to be looked up (awaited, `confirm`)
    before the call goes on. Raised by the synchronous check; a caller that cannot await gets its 400."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(400, f"Voice {names[0][:100]} was not found.", "INVALID_ARGUMENT")
        self.names = names


def check_speech(voices: Voices | RedisVoices, namespace: str, speech: Any, later: list[str] | None = None) -> None:
    """A speech config's voice (`voiceConfig.voice`, each speaker's in `multiSpeakerVoiceConfig`), refused when
    the caller has no such voice: a prebuilt speaker, a stored voice of its own, or a replicated voice's key. On
    the Redis store a stored voice is looked up later: its name is added to `later`, or, without `later`,
    Unchecked is raised."""
    if not isinstance(speech, dict):
        return
    configs = [speech.get("voiceConfig")]
    multi = speech.get("multiSpeakerVoiceConfig")
    if isinstance(multi, dict) and isinstance(multi.get("speakerVoiceConfigs"), list):
        configs += [s.get("voiceConfig") for s in multi["speakerVoiceConfigs"][:MAX_SPEAKERS] if isinstance(s, dict)]
    unchecked: list[str] = []
    for config in configs:
        voice = config.get("voice") if isinstance(config, dict) else None
        if not isinstance(voice, str) or not voice:
            continue
        if isinstance(voices, RedisVoices):
            if not voices.known(voice):
                unchecked.append(voice)
        elif not voices.usable(namespace, voice):
            raise errors.invalid_argument(f"Voice {voice[:100]} was not found.")
    if unchecked:
        if later is None:
            raise Unchecked(unchecked)
        later += unchecked


async def confirm(voices: Voices | RedisVoices, namespace: str, names: list[str]) -> None:
    """The stored voices `names` looked up (one round trip): the 400 for the first the caller does not have."""
    if not names or not isinstance(voices, RedisVoices):
        return
    for name, held in zip(names, await voices.many(namespace, names), strict=True):
        if held is None:
            raise errors.invalid_argument(f"Voice {name[:100]} was not found.")
