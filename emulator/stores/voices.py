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
import threading
from collections import OrderedDict
from typing import Any

import orjson

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


class VoicesFull(Exception):
    """No room for another stored voice: the message says which bound."""


def prebuilt_voices() -> list[dict[str, Any]]:
    """The prebuilt catalogue as ListVoices prints it (id and display_name the speaker's name)."""
    return [{"type": "prebuilt", "description": style, "display_name": name, "id": name} for name, style in PREBUILT]


def new_key() -> str:
    """A replicated voice's client-held key (`store: false`): opaque, never kept here."""
    return KEY_PREFIX + secrets.token_urlsafe(24)


class Voices:
    """Each namespace's stored voices, newest last (ListVoices prints them newest first)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_namespace: dict[str, OrderedDict[str, bytes]] = {}
        self._count = 0

    def create(self, namespace: str, voice: dict[str, Any]) -> dict[str, Any]:
        """Store `voice` (its output fields, without an id) and return it with its new id."""
        with self._lock:
            kept = self._by_namespace.setdefault(namespace, OrderedDict())
            if len(kept) >= MAX_PER_NAMESPACE:
                raise VoicesFull(f"at most {MAX_PER_NAMESPACE} stored voices per project: delete one first")
            if self._count >= MAX_VOICES:
                raise VoicesFull(f"the emulator keeps at most {MAX_VOICES} stored voices")
            voice_id = ID_PREFIX + "".join(secrets.choice(_ID_CHARS) for _ in range(12))
            stored = {"id": voice_id, **voice}
            data = orjson.dumps(stored)
            if len(data) > MAX_VOICE_BYTES:
                raise ValueError(f"a voice's fields take at most {MAX_VOICE_BYTES} bytes of JSON")
            kept[voice_id] = data
            self._count += 1
            return stored

    def get(self, namespace: str, voice_id: str) -> dict[str, Any] | None:
        with self._lock:
            kept = self._by_namespace.get(namespace)
            data = None if kept is None else kept.get(voice_id)
        return None if data is None else dict(orjson.loads(data))

    def delete(self, namespace: str, voice_id: str) -> bool:
        with self._lock:
            kept = self._by_namespace.get(namespace)
            if kept is None or kept.pop(voice_id, None) is None:
                return False
            self._count -= 1
            if not kept:
                del self._by_namespace[namespace]
            return True

    def stored(self, namespace: str) -> list[dict[str, Any]]:
        """The namespace's stored voices, newest first."""
        with self._lock:
            found = self._by_namespace.get(namespace)
            kept = [] if found is None else list(found.values())
        return [orjson.loads(data) for data in reversed(kept)]

    def usable(self, namespace: str, voice: str) -> bool:
        """Whether a speech config may name `voice`: a prebuilt speaker, one of the namespace's stored voices,
        or a replicated voice's key (held by the caller, so not checked)."""
        if voice in PREBUILT_NAMES or voice.startswith(KEY_PREFIX):
            return True
        with self._lock:
            kept = self._by_namespace.get(namespace)
            return kept is not None and voice in kept

    def all(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(namespace, voice) for every stored voice, or one namespace's, oldest first (the admin view)."""
        with self._lock:
            picked = [
                (name, list(kept.values()))
                for name, kept in self._by_namespace.items()
                if namespace is None or name == namespace
            ]
        return [(name, orjson.loads(data)) for name, datas in picked for data in datas]

    def reset(self, namespace: str | None = None) -> None:
        """Forget every stored voice, or one namespace's."""
        with self._lock:
            if namespace is None:
                self._by_namespace.clear()
            else:
                self._by_namespace.pop(namespace, None)
            self._count = sum(len(kept) for kept in self._by_namespace.values())
