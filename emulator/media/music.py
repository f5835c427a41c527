"""Music-like audio for Lyria RealTime: 16-bit little-endian PCM, stereo, 48 kHz, as production documents its
output (ai.google.dev/gemini-api/docs/music-generation, "raw 16-bit PCM audio, 48kHz, stereo").

Deterministic: one note a beat (60/bpm s), picked from the config's scale by a hash of the prompts, the seed and
the beat's number; the melody on the left channel, a bass note (the scale's root, two octaves down) on the right.
`muteBass` puts the melody on both, `onlyBassAndDrums` the bass on both; `brightness` moves the melody an octave
up past 0.5, `density` shortens the notes (the rest of the beat silent). Cheap: a note is one period of a sine
repeated (bytes arithmetic in C), and a session holds at most one beat beyond the chunk it is cutting.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from typing import Any

RATE = 48_000
CHANNELS = 2
FRAME_BYTES = 4  # 16-bit stereo
MIME_TYPE = "audio/pcm;rate=48000"  # best-known: what community clients of Lyria RealTime read (no capture)
CHUNK_S = 0.5  # the emulator's chunk length (production's is not captured)
CHUNK_BYTES = int(RATE * CHUNK_S) * FRAME_BYTES
DEFAULT_BPM = 120
AMPLITUDE = 6000

# The major scale's steps from its root; the roots of SCALES (wire/live/music.py) as semitones above C.
_MAJOR = (0, 2, 4, 5, 7, 9, 11)
_ROOTS = {
    "C_MAJOR_A_MINOR": 0,
    "D_FLAT_MAJOR_B_FLAT_MINOR": 1,
    "D_MAJOR_B_MINOR": 2,
    "E_FLAT_MAJOR_C_MINOR": 3,
    "E_MAJOR_D_FLAT_MINOR": 4,
    "F_MAJOR_D_MINOR": 5,
    "G_FLAT_MAJOR_E_FLAT_MINOR": 6,
    "G_MAJOR_E_MINOR": 7,
    "A_FLAT_MAJOR_F_MINOR": 8,
    "A_MAJOR_G_FLAT_MINOR": 9,
    "B_FLAT_MAJOR_G_MINOR": 10,
    "B_MAJOR_A_FLAT_MINOR": 11,
}


def _hz(semitones_above_c4: int) -> float:
    return 261.63 * 2 ** (semitones_above_c4 / 12)


def _tone(hz: float, frames: int) -> array[int]:
    """`frames` samples of a sine at about `hz` (a whole number of samples a period), mono."""
    period = max(2, round(RATE / hz))
    cycle = array("h", (int(AMPLITUDE * math.sin(2 * math.pi * i / period)) for i in range(period)))
    whole = cycle * (frames // period + 1)
    return whole[:frames]


class Synth:
    """The session's music: steered by its prompts and config, cut into CHUNK_BYTES pieces."""

    def __init__(self) -> None:
        self.key = b""
        self.config: dict[str, Any] = {}
        self.beat = 0
        self.buffer = bytearray()

    def steer(self, prompts: list[dict[str, Any]], config: dict[str, Any]) -> None:
        """New prompts or config: they shape the beats made from now on."""
        self.key = repr(([(p["text"], p["weight"]) for p in prompts], config.get("seed"))).encode()
        self.config = dict(config)

    def reset(self) -> None:
        """The context forgotten (STOP, RESET_CONTEXT): the music starts again from its first beat."""
        self.beat = 0
        self.buffer.clear()

    def chunk(self) -> bytes:
        """The next CHUNK_BYTES of PCM."""
        while len(self.buffer) < CHUNK_BYTES:
            self.buffer += self._next_beat()
        out = bytes(self.buffer[:CHUNK_BYTES])
        del self.buffer[:CHUNK_BYTES]
        return out

    def _next_beat(self) -> bytes:
        config = self.config
        bpm = int(config.get("bpm") or DEFAULT_BPM)
        frames = int(RATE * 60 / bpm)
        digest = hashlib.sha256(self.key + self.beat.to_bytes(8, "little")).digest()
        self.beat += 1
        root = _ROOTS.get(str(config.get("scale") or ""), 0)
        step = _MAJOR[digest[0] % len(_MAJOR)] + 12 * (digest[1] % 2)
        octave = 12 if float(config.get("brightness") or 0.5) > 0.5 else 0
        density = float(config.get("density", 0.5))
        sounding = max(1, int(frames * (0.4 + 0.6 * density)))
        melody = _tone(_hz(root + step + octave), sounding) + array("h", bytes(2 * (frames - sounding)))
        bass = _tone(_hz(root - 24), frames)
        if config.get("onlyBassAndDrums"):
            melody = bass
        elif config.get("muteBass"):
            bass = melody
        out = array("h", bytes(FRAME_BYTES * frames))
        out[0::2] = melody
        out[1::2] = bass
        return out.tobytes()
