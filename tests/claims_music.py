"""Claims of Lyria RealTime, google-genai's `client.aio.live.music` (issue 33)."""

from __future__ import annotations

from claim_type import Claim

MUSIC = "tests/wire/live/test_live_music.py::"
SDK_SOURCE = "google-genai 3.6.1 live_music.py (AsyncLiveMusic.connect, AsyncMusicSession) and types.py LiveMusic*"

MUSIC_CLAIMS = [
    Claim(
        "music-session",
        "WS /ws/google.ai.generativelanguage.{v}.GenerativeService.BidiGenerateMusic",
        "setup {model} answered setupComplete {}; clientContent.weightedPrompts, musicGenerationConfig and "
        "playbackControl PLAY/PAUSE/STOP/RESET_CONTEXT; after PLAY serverContent.audioChunks of 16-bit stereo "
        "48 kHz PCM, none before PLAY nor after PAUSE; the same prompts and seed give the same audio",
        (
            MUSIC + "test_a_session_plays_pauses_and_stops",
            MUSIC + "test_the_same_prompts_and_seed_give_the_same_music",
            MUSIC + "test_nothing_is_sent_before_play",
            MUSIC + "test_stop_starts_the_music_again_from_its_first_beat",
        ),
        source=SDK_SOURCE + "; the music-generation guide (ai.google.dev) for the PCM format",
        divergence="no capture: the mime type `audio/pcm;rate=48000`, the 0.5 s chunks and the pacing (4 s ahead of "
        "real time) are guesses; the audio is a synthesized tone a beat, not music",
    ),
    Claim(
        "music-errors",
        "WS …GenerativeService.BidiGenerateMusic",
        "a message before setup, a second setup, an unknown field or value, a zero weight, an out-of-range config "
        "field close 1007; an unknown model 1008 naming it as Live does; no key 1008; each key its own namespace",
        (
            MUSIC + "test_bad_messages_close_1007",
            MUSIC + "test_unknown_model_is_refused_as_live_refuses_one",
            MUSIC + "test_no_key_closes_1008",
            MUSIC + "test_two_keys_are_apart",
        ),
        source="the Live API's close frames (docs/conformance.md, Live); ranges from the SDK's field descriptions",
        divergence="production's music close frames and their wording are not captured",
    ),
    Claim(
        "music-scripts-journal-bounds",
        "WS …GenerativeService.BidiGenerateMusic",
        "each weighted prompt asked of the engine (method bidiGenerateMusic): a blockReason filters it "
        "(filteredPrompt), an error ends the session; one journal record per session with the prompts, config "
        "and controls, audio as sizes; sessions count against the Live session limits, messages at most 64 KiB",
        (
            MUSIC + "test_a_session_plays_pauses_and_stops",
            MUSIC + "test_a_scripted_error_ends_the_session",
            MUSIC + "test_a_scripted_drop_cuts_the_connection",
            MUSIC + "test_an_oversized_message_is_refused",
            MUSIC + "test_music_sessions_count_with_live_sessions_and_play_at_a_bounded_lead",
        ),
        source="emulator behaviour (README, scripts)",
        divergence="production's filteredReason wording is not captured: the script's blockReason is sent",
    ),
]
