"""Claims of issue 33: the 2026 platform resources (voices and decisions here; webhooks in claims_webhooks.py)."""

from __future__ import annotations

from claim_type import Claim

_V = "tests/wire/resources/test_voices.py::"
_D = "tests/wire/test_decisions.py::"
_SDK = "google-genai 3.6.1 _gaos/voices.py, _gaos/types/voices, tests/gaos/test_voices_lifecycle.py"

PLATFORM_CLAIMS: list[Claim] = [
    Claim(
        "voices-crud",
        "POST /{ver}/voices, GET /{ver}/voices/{id}, DELETE /{ver}/voices/{id}",
        "A stored voice (store: true) gets an id voice_…, keeps its descriptive fields and an expire_time a year "
        "on; get reads it (a prebuilt speaker's name reads the catalogue entry); delete answers {}; unknown ids "
        "are 404 NOT_FOUND; a replicated voice with store false hands back a voicekey_… and is not kept; bad "
        "creates are 400 INVALID_ARGUMENT; past 100 stored voices a 429 RESOURCE_EXHAUSTED",
        (
            _V + "test_create_get_list_delete_a_prompted_voice",
            _V + "test_a_prebuilt_voice_reads_as_the_catalogue_lists_it",
            _V + "test_a_replicated_voice_not_stored_hands_back_a_key",
            _V + "test_bad_creates_are_400s",
            _V + "test_a_namespace_holds_a_bounded_number",
            _V + "test_async_lifecycle",
        ),
        source=_SDK,
        divergence="best-known: error wordings, the id's form past voice_, field order; nothing is synthesised "
        "from a voice's prompt or sample (no sample_audio is returned)",
    ),
    Claim(
        "voices-list",
        "GET /{ver}/voices",
        "The caller's stored voices newest first, then the 30 prebuilt speakers; filters (language_code, "
        "region_code, accent, persona, contexts, gender, pitch, type) match case-insensitively, any of their "
        "values; search matches display_name and description; 50 a page unless asked, at most 1000; a page "
        "token is refused under other filters; another key sees none of the caller's voices",
        (
            _V + "test_create_get_list_delete_a_prompted_voice",
            _V + "test_list_filters_pages_and_a_token_bound_to_its_filters",
            _V + "test_another_key_sees_none_of_them",
        ),
        source=_SDK + "; the prebuilt names and styles: the speech-generation guide's voice table",
        divergence="best-known: prebuilt voices carry no gender or language_code (sources disagree)",
    ),
    Claim(
        "voices-in-speech",
        "speechConfig.voiceConfig.voice in TTS generate calls and Live setups",
        "A stored voice's id, a prebuilt speaker or a voicekey_… speaks; another voice_… is a 400 (generate) or a "
        "1007 close (Live) naming it",
        (
            _V + "test_tts_speaks_in_a_stored_voice_and_refuses_an_unknown_one",
            _V + "test_a_live_setup_takes_a_stored_voice_and_refuses_an_unknown_one",
        ),
        source="google-genai 3.6.1 types.VoiceConfig.voice; _gaos voice_output.py (pass the id to "
        "SpeechConfig.voice_config.voice)",
        divergence="best-known: the refusal's wording and status",
    ),
    Claim(
        "decisions-create",
        "POST /{ver}/decisions",
        "Each question (noul, choice, score) answered through the engine seam: a noul's P(true) in [0.01, 0.99] "
        "with confidence max(noul, 1-noul); a choice's and a score's normalised probabilities, confidence the "
        "highest, a score's expected level and its legend; usage as the Interactions API prints it; a script "
        "entry's JSON text decides; the same request, the same answer; bad requests are 400s, an unknown model 404",
        (
            _D + "test_zero_config_answers_are_calibrated_and_deterministic",
            _D + "test_a_script_entry_decides",
            _D + "test_an_engine_answer_that_is_no_json_is_uniform",
            _D + "test_bad_decisions_are_400s",
            _D + "test_an_unknown_model_is_production_404",
            _D + "test_async_create",
        ),
        source="google-genai 3.6.1 _gaos/decisions.py and _gaos/types/decisions (the answers' definitions)",
        divergence="best-known: wordings, the 64-question bound, rounding to 4 places; nothing is calibrated",
    ),
]
