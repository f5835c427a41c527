"""Voices: the prebuilt catalogue every caller sees, and the custom voices each namespace creates.

google-genai 3.6.1's `client.voices` (its generated `_gaos/voices.py`, `_gaos/types/voices/`): a stored voice
(`store: true`) gets an id `voice_…` and is listed (newest first, before the prebuilt ones), fetched and deleted; a
replicated voice made with `store: false` is not kept and hands back a `voicekey_…` the caller keeps. The prebuilt
voices are the 30 TTS speakers (their names and one-word styles as the speech-generation docs list them,
best-known: no listing was recorded). Nothing is synthesised from a voice's prompt or sample: speech in a custom
voice is the emulator's synthetic voice, as for the prebuilt ones.

Bounds: MAX_PER_NAMESPACE stored voices a namespace (production's "maximum active stored voice quota", a
RESOURCE_EXHAUSTED past it), MAX_VOICES in all, MAX_VOICE_BYTES a voice as kept (audio payloads are not kept).
Thread-safe.
"""

from __future__ import annotations

import secrets
import string
from typing import Any

import orjson

from gemini_emulator.stores.keyed import Full, Keyed

# (name, style): the speech-generation guide's table of prebuilt voices, in its order.
PREBUILT: tuple[tuple[str, str], ...] = (
    ("Zephyr", "Bright"),
    ("Puck", "Upbeat"),
    ("Charon", "Informative"),
    ("Kore", "Firm"),
    ("Fenrir", "Excitable"),
    ("Leda", "Youthful"),
    ("Orus", "Firm"),
    ("Aoede", "Breezy"),
    ("Callirrhoe", "Easy-going"),
    ("Autonoe", "Bright"),
    ("Enceladus", "Breathy"),
    ("Iapetus", "Clear"),
    ("Umbriel", "Easy-going"),
    ("Algieba", "Smooth"),
    ("Despina", "Smooth"),
    ("Erinome", "Clear"),
    ("Algenib", "Gravelly"),
    ("Rasalgethi", "Informative"),
    ("Laomedeia", "Upbeat"),
    ("Achernar", "Soft"),
    ("Alnilam", "Firm"),
    ("Schedar", "Even"),
    ("Gacrux", "Mature"),
    ("Pulcherrima", "Forward"),
    ("Achird", "Friendly"),
    ("Zubenelgenubi", "Casual"),
    ("Vindemiatrix", "Gentle"),
    ("Sadachbia", "Lively"),
    ("Sadaltager", "Knowledgeable"),
    ("Sulafat", "Warm"),
)
PREBUILT_NAMES = frozenset(name for name, _ in PREBUILT)
MAX_PER_NAMESPACE = 100
MAX_VOICES = 10_000
MAX_VOICE_BYTES = 16 << 10  # a voice's descriptive fields as kept (JSON)
KEY_PREFIX = "voicekey_"
ID_PREFIX = "voice_"
_ID_CHARS = string.ascii_lowercase + string.digits


class VoicesFull(Full):
    """No room for another stored voice: the message says which bound."""


def prebuilt_voices() -> list[dict[str, Any]]:
    """The prebuilt catalogue as ListVoices prints it (id and display_name the speaker's name)."""
    return [{"type": "prebuilt", "description": style, "display_name": name, "id": name} for name, style in PREBUILT]


def new_key() -> str:
    """A replicated voice's client-held key (`store: false`): opaque, never kept here."""
    return KEY_PREFIX + secrets.token_urlsafe(24)


class Voices(Keyed[bytes]):
    """Each namespace's stored voices (kept as their JSON), newest last (ListVoices prints them newest first)."""

    full = VoicesFull
    noun = "stored voices"

    def __init__(self) -> None:
        super().__init__(MAX_PER_NAMESPACE, MAX_VOICES)

    def create(self, namespace: str, voice: dict[str, Any]) -> dict[str, Any]:
        """Store `voice` (its output fields, without an id) and return it with its new id."""
        with self._lock:
            self._room(namespace)
            voice_id = self._fresh_id(namespace, _new_id)
            stored = {"id": voice_id, **voice}
            data = orjson.dumps(stored)
            if len(data) > MAX_VOICE_BYTES:
                raise ValueError(f"a voice's fields take at most {MAX_VOICE_BYTES} bytes of JSON")
            self._put(namespace, voice_id, data)
            return stored

    def voice(self, namespace: str, voice_id: str) -> dict[str, Any] | None:
        data = self.get(namespace, voice_id)
        return None if data is None else dict(orjson.loads(data))

    def stored(self, namespace: str) -> list[dict[str, Any]]:
        """The namespace's stored voices, newest first."""
        return [orjson.loads(data) for data in reversed(self.all(namespace))]

    def usable(self, namespace: str, voice: str) -> bool:
        """Whether a speech config may name `voice`: a prebuilt speaker, one of the namespace's stored voices,
        or a replicated voice's key (held by the caller, so not checked)."""
        return voice in PREBUILT_NAMES or voice.startswith(KEY_PREFIX) or self.get(namespace, voice) is not None

    def voices(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(namespace, voice) for every stored voice, or one namespace's, oldest first (the admin view)."""
        return [(name, orjson.loads(data)) for name, data in self.owned(namespace)]


def _new_id() -> str:
    return ID_PREFIX + "".join(secrets.choice(_ID_CHARS) for _ in range(12))
