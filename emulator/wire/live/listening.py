"""Realtime audio input: the pieces a client streams, gathered into a user turn, and when that turn ends.

With automatic activity detection on (the default) the emulator decides as a voice activity detector would, but
deterministically: a piece is speech when its level (RMS of 16-bit samples) reaches SPEECH_RMS; a turn ends once
`silence_ms` of quiet audio follows speech (counted in the audio's own samples, so faster-than-real-time senders get
the same answer), when no piece has come for `silence_ms` of wall time after speech, or at `audioStreamEnd`. With
it off, `activityStart` / `activityEnd` bracket the turn. A turn keeps at most MAX_TURN_SECONDS of audio.
"""

from __future__ import annotations

import math
import re
import sys
from array import array

SPEECH_RMS = 500.0  # about -36 dBFS: a quiet voice is louder, digital silence and hiss are not
DEFAULT_SILENCE_MS = 800  # best-known: production's default end-of-speech silence is not published
DEFAULT_INPUT_RATE = 16_000  # the Live API's input: audio/pcm;rate=16000 (docs)
MAX_TURN_SECONDS = 60.0
# The rates a claimed `rate=` is clamped to (telephone to studio PCM): the rate only converts bytes to seconds, so a
# client naming rate=999999 (or 000) can neither stretch the turn's bound nor divide by zero.
MIN_INPUT_RATE, MAX_INPUT_RATE = 8_000, 48_000
MAX_TURN_BYTES = int(MAX_TURN_SECONDS * 2 * MAX_INPUT_RATE)  # audio kept per turn: 60 s at the highest rate, 5.76 MB
_BLOCK = 4096  # samples per math.hypot call
_RATE = re.compile(r"rate=([0-9]{3,6})")


def rate_of(mime_type: str, default: int = DEFAULT_INPUT_RATE) -> int:
    """The sample rate a PCM mime type names (audio/pcm;rate=16000), clamped to MIN..MAX_INPUT_RATE, else
    `default` (the input default)."""
    m = _RATE.search(mime_type or "")
    return min(max(int(m.group(1)), MIN_INPUT_RATE), MAX_INPUT_RATE) if m else default


def level(pcm: bytes) -> float:
    """RMS of 16-bit little-endian samples."""
    usable = len(pcm) - len(pcm) % 2
    if usable <= 0 or pcm.count(0) == len(pcm):  # digital silence, found at C speed
        return 0.0
    samples = array("h", pcm[:usable])
    if sys.byteorder == "big":
        samples.byteswap()
    # sqrt(sum of squares) in C (math.hypot), by blocks so that a long piece is never one huge argument list
    norms = [math.hypot(*samples[i : i + _BLOCK]) for i in range(0, len(samples), _BLOCK)]
    return (norms[0] if len(norms) == 1 else math.hypot(*norms)) / math.sqrt(len(samples))


class Listener:
    """One user turn's audio as it arrives."""

    def __init__(self, silence_ms: int = DEFAULT_SILENCE_MS) -> None:
        self.silence_ms = silence_ms
        self.reset()

    def reset(self) -> None:
        self.audio = bytearray()
        self.mime_type = f"audio/pcm;rate={DEFAULT_INPUT_RATE}"
        self.seconds = 0.0  # audio received this turn, kept or not
        self.pieces = 0
        self.heard = False  # speech seen this turn
        self.quiet_s = 0.0  # quiet audio since the last speech

    @property
    def holding(self) -> bool:
        return self.pieces > 0

    def feed(self, pcm: bytes, mime_type: str) -> tuple[bool, bool]:
        """Take one piece: (speech began with it, the turn's end of speech is in it)."""
        rate = rate_of(mime_type)
        self.mime_type = mime_type or self.mime_type
        seconds = len(pcm) / (2 * rate)
        self.seconds += seconds
        self.pieces += 1
        if len(self.audio) + len(pcm) <= min(MAX_TURN_BYTES, MAX_TURN_SECONDS * 2 * rate):
            self.audio += pcm
        loud = level(pcm) >= SPEECH_RMS
        began = loud and not self.heard
        if loud:
            self.heard = True
            self.quiet_s = 0.0
            return began, False
        if self.heard:
            self.quiet_s += seconds
            return False, self.quiet_s * 1000 >= self.silence_ms
        return False, False
