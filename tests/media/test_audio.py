"""The speech maker: 24 kHz 16-bit mono PCM whose length follows the text, the same bytes for the same text."""

from __future__ import annotations

import shutil

import pytest

from gemini_emulator.media import audio


def test_the_synthetic_voice_is_deterministic_and_its_length_follows_the_text() -> None:
    short, long = audio.synthetic("Hi there."), audio.synthetic("Hi there. " * 20)
    assert short == audio.synthetic("Hi there.") and short != audio.synthetic("Hi there.", voice="Kore")
    assert len(short) % 2 == 0 and audio.seconds_of(short) == pytest.approx(audio.duration_for("Hi there."))
    assert audio.seconds_of(long) > 10 * audio.seconds_of(short) and any(short)


def test_audio_is_bounded() -> None:
    assert audio.seconds_of(audio.synthetic("x" * 1_000_000)) == audio.MAX_SECONDS
    assert audio.seconds_of(audio.synthetic("")) == 0.25


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_espeak_speech_is_resampled_to_24_khz() -> None:
    pcm = audio.speak("Hello world, this is a test.")
    assert 0.5 < audio.seconds_of(pcm) < 6


def test_speech_is_cached_and_the_synthetic_voice_needs_no_thread() -> None:
    first = audio.speak("A line spoken twice.", "Kore")
    assert audio.speak("A line spoken twice.", "Kore") is first  # the cached object, not a recomputation
    assert audio.speak("A line spoken twice.", "Puck") != first
    now = audio.speak_now("A line spoken twice.", "Kore")
    if shutil.which("espeak-ng") is None:
        assert now is first and audio.speak_now("Never spoken before.") == audio.synthetic("Never spoken before.")
    else:  # espeak-ng would run for a new line: the caller goes to a thread
        assert now is first and audio.speak_now("Never spoken before.") is None
