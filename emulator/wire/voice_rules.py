"""The voice a speech config names, checked against the caller's voices (stores/voices.py): TTS generate calls
and Live setups may name a prebuilt speaker, one of the caller's stored voices (`voice_…`) or a replicated voice's
key (`voicekey_…`, held by the caller) in `speechConfig.voiceConfig.voice`. The refusal's wording is best-known
(docs/conformance.md, "Voices")."""

from __future__ import annotations

from typing import Any

from gemini_emulator.protocol import errors
from gemini_emulator.stores.voices import Voices

MAX_SPEAKERS = 16  # speaker configs looked at (production takes two)


def check_speech(voices: Voices, namespace: str, speech: Any) -> None:
    """A speech config's voice (`voiceConfig.voice`, each speaker's in `multiSpeakerVoiceConfig`), refused when
    the caller has no such voice: a prebuilt speaker, a stored voice of its own, or a replicated voice's key."""
    if not isinstance(speech, dict):
        return
    configs = [speech.get("voiceConfig")]
    multi = speech.get("multiSpeakerVoiceConfig")
    if isinstance(multi, dict) and isinstance(multi.get("speakerVoiceConfigs"), list):
        configs += [s.get("voiceConfig") for s in multi["speakerVoiceConfigs"][:MAX_SPEAKERS] if isinstance(s, dict)]
    for config in configs:
        voice = config.get("voice") if isinstance(config, dict) else None
        if isinstance(voice, str) and voice and not voices.usable(namespace, voice):
            raise errors.invalid_argument(f"Voice {voice[:100]} was not found.")
