"""Speech for a text, as 16-bit little-endian mono PCM at 24 kHz: what Gemini's audio answers carry
(`audio/pcm;rate=24000` in the Live API, `audio/L16;codec=pcm;rate=24000` from the TTS models).

Real speech through espeak-ng when it is on the PATH; otherwise a deterministic waveform whose length follows the
text (about 15 characters a second, as speech runs): the same text always gives the same bytes. Both are bounded:
at most MAX_SECONDS of audio, and espeak-ng gets a few seconds before the waveform is used instead.
"""

from __future__ import annotations

import hashlib
import math
import shutil
import subprocess
import sys
from array import array
from itertools import groupby

RATE = 24_000  # samples a second
SAMPLE_BYTES = 2  # 16-bit
PCM_MIME = "audio/pcm;rate=24000"  # the Live API's output
TTS_MIME = "audio/L16;codec=pcm;rate=24000"  # the TTS models' output
CHARS_PER_SECOND = 15.0
MAX_SECONDS = 120.0  # what one answer carries at most (5.76 MB)
_ESPEAK_TIMEOUT = 5.0
_VOICE_PITCH = 140.0  # Hz of the synthetic voice


def duration_for(text: str) -> float:
    """Seconds of speech for `text`: 0.25 s at least, MAX_SECONDS at most."""
    return min(MAX_SECONDS, max(0.25, len(text) / CHARS_PER_SECOND))


def speak(text: str, voice: str = "", use_espeak: bool = True) -> bytes:
    """PCM for `text` (24 kHz, 16-bit LE, mono); `voice` changes the synthetic voice's pitch."""
    if use_espeak and (pcm := _espeak(text)) is not None:
        return pcm
    return synthetic(text, voice)


def synthetic(text: str, voice: str = "") -> bytes:
    """A deterministic waveform: a voiced tone per character, its pitch from the character and the voice.

    Each character is one hump of `per_letter` samples that starts and ends silent, so its samples depend only
    on its pitch: one hump is computed per distinct pitch (at most 32) and the answer is their concatenation,
    which keeps two minutes of audio at a few milliseconds of CPU instead of a Python step per sample."""
    samples = int(duration_for(text) * RATE)
    shift = int.from_bytes(hashlib.blake2b(voice.encode(), digest_size=2).digest(), "big") % 60
    letters = text or " "
    per_letter = max(1, samples // max(1, len(letters)))
    humps: dict[int, bytes] = {}
    silence = bytes(per_letter * SAMPLE_BYTES)

    def hump(char: str) -> bytes:
        if char.isspace():
            return silence
        key = ord(char) % 32
        if (made := humps.get(key)) is None:
            step = 2.0 * math.pi * (_VOICE_PITCH + shift + key * 4.0) / RATE
            wave = array(
                "h",
                (int(9000 * math.sin(math.pi * j / per_letter) * math.sin(step * (j + 1))) for j in range(per_letter)),
            )
            if sys.byteorder == "big":
                wave.byteswap()
            made = humps[key] = wave.tobytes()
        return made

    whole, rest = divmod(samples, per_letter)
    last = len(letters) - 1
    spoken = letters[:whole] + letters[last] * max(0, whole - len(letters))  # the character of each hump
    out = [hump(char) * len(tuple(run)) for char, run in groupby(spoken)]
    if rest:
        out.append(hump(letters[min(last, whole)])[: rest * SAMPLE_BYTES])
    return b"".join(out)


def seconds_of(pcm: bytes) -> float:
    """How long `pcm` (24 kHz, 16-bit mono) plays."""
    return len(pcm) / (RATE * SAMPLE_BYTES)


def _espeak(text: str) -> bytes | None:
    """espeak-ng's speech for `text` resampled to 24 kHz, or None when it is not installed or fails."""
    program = shutil.which("espeak-ng")
    if program is None or not text.strip():
        return None
    try:
        done = subprocess.run(
            [program, "--stdout", "--", text[: int(MAX_SECONDS * CHARS_PER_SECOND)]],
            capture_output=True,
            timeout=_ESPEAK_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    wav = done.stdout
    if done.returncode != 0 or len(wav) < 44 or wav[:4] != b"RIFF":
        return None
    rate = int.from_bytes(wav[24:28], "little")
    data = wav.find(b"data")
    if data < 0 or rate <= 0:
        return None
    return _resample(wav[data + 8 :], rate)


def _resample(pcm: bytes, rate: int) -> bytes:
    """16-bit mono PCM at `rate` to RATE, by linear interpolation, at most MAX_SECONDS long."""
    source = array("h")
    source.frombytes(pcm[: len(pcm) // 2 * 2])
    if sys.byteorder == "big":
        source.byteswap()
    if not source:
        return b""
    count = min(int(len(source) * RATE / rate), int(MAX_SECONDS * RATE))
    out = array("h", bytes(count * SAMPLE_BYTES))
    step = rate / RATE
    last = len(source) - 1
    for i in range(count):
        position = i * step
        left = min(int(position), last)
        right = min(left + 1, last)
        fraction = position - left
        out[i] = int(source[left] * (1 - fraction) + source[right] * fraction)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()
