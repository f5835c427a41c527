"""Speech for a text, as 16-bit little-endian mono PCM at 24 kHz: what Gemini's audio answers carry
(`audio/pcm;rate=24000` in the Live API, `audio/L16;codec=pcm;rate=24000` from the TTS models).

Real speech through espeak-ng when it is on the PATH; otherwise a deterministic waveform whose length follows the
text (about 15 characters a second, as speech runs): the same text always gives the same bytes. Both are bounded:
at most MAX_SECONDS of audio, and espeak-ng gets a few seconds before the waveform is used instead. Answers are
kept in a small cache (CACHE_ENTRIES, CACHE_BYTES) keyed by text, voice and voice source, so a scripted line
spoken again costs nothing; `speak_now` says whether speech can be had without running a program.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
import sys
import threading
from array import array
from collections import OrderedDict
from itertools import groupby

RATE = 24_000  # samples a second
SAMPLE_BYTES = 2  # 16-bit
PCM_MIME = "audio/pcm;rate=24000"  # the Live API's output
TTS_MIME = "audio/L16;codec=pcm;rate=24000"  # the TTS models' output
CHARS_PER_SECOND = 15.0
MAX_SECONDS = 120.0  # what one answer carries at most (5.76 MB)
_ESPEAK_TIMEOUT = 5.0
_VOICE_PITCH = 140.0  # Hz of the synthetic voice
CACHE_ENTRIES = 256  # answers kept by `speak`
CACHE_BYTES = 32 << 20  # and at most this much PCM in all


def duration_for(text: str) -> float:
    """Seconds of speech for `text`: 0.25 s at least, MAX_SECONDS at most."""
    return min(MAX_SECONDS, max(0.25, len(text) / CHARS_PER_SECOND))


def speak(text: str, voice: str = "", use_espeak: bool = True) -> bytes:
    """PCM for `text` (24 kHz, 16-bit LE, mono); `voice` changes the synthetic voice's pitch. Runs espeak-ng when
    it is installed (a subprocess: call this from a thread then); the same text and voice give the same object
    back while it is cached."""
    program = _espeak_program() if use_espeak else None
    key = (text, voice, program)
    if (pcm := _CACHE.get(key)) is not None:
        return pcm
    made = _espeak(program, text) if program else None
    pcm = synthetic(text, voice) if made is None else made
    _CACHE.put(key, pcm)
    return pcm


def speak_now(text: str, voice: str = "") -> bytes | None:
    """`speak(text, voice)` when it needs no program run (cached, or the synthetic voice: a few ms of CPU at most,
    fine on an event loop); None when espeak-ng would have to run."""
    program = _espeak_program()
    if program is None or not text.strip():
        return speak(text, voice)
    return _CACHE.get((text, voice, program))


class _Cache:
    """A least-recently-used map of answers, bounded in entries and bytes; safe across threads."""

    def __init__(self, entries: int, size: int) -> None:
        self.entries, self.size, self.held = entries, size, 0
        self.data: OrderedDict[tuple[str, str, str | None], bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str, str | None]) -> bytes | None:
        with self.lock:
            pcm = self.data.get(key)
            if pcm is not None:
                self.data.move_to_end(key)
            return pcm

    def put(self, key: tuple[str, str, str | None], pcm: bytes) -> None:
        if len(pcm) > self.size // 4:  # a long answer would push out many short ones
            return
        with self.lock:
            if key in self.data:
                return
            self.data[key] = pcm
            self.held += len(pcm)
            while len(self.data) > self.entries or self.held > self.size:
                self.held -= len(self.data.popitem(last=False)[1])


_CACHE = _Cache(CACHE_ENTRIES, CACHE_BYTES)
_found: tuple[str | None, str | None] = ("\0", None)  # (PATH, espeak-ng found on it)


def _espeak_program() -> str | None:
    """espeak-ng's path, looked up again only when PATH changes."""
    global _found
    path = os.environ.get("PATH")
    if _found[0] != path:
        _found = (path, shutil.which("espeak-ng"))
    return _found[1]


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


def _espeak(program: str, text: str) -> bytes | None:
    """espeak-ng's speech for `text` resampled to 24 kHz, or None when it fails."""
    if not text.strip():
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
