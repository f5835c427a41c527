"""Claims of issue 30: the catalogue, Live modalities."""

from __future__ import annotations

from claim_type import Claim

CATALOGUE_CLAIMS: list[Claim] = [
    Claim(
        "catalogue-follows-the-sdks",
        "GET /{ver}/models, every model call",
        "every id in the Interactions Model type of google-genai and @google/genai is served (or refused as "
        "retired); new ids answer through the SDK (text, image output); Vertex Veo GA ids generate videos",
        (
            "tests/wire/test_catalogue_sdk_models.py::test_every_model_google_genai_names_is_in_the_catalogue",
            "tests/wire/test_catalogue_sdk_models.py::test_a_new_sdk_model_answers_through_the_sdk",
            "tests/wire/test_catalogue_sdk_models.py::test_vertex_veo_ga_ids_generate_videos",
            "tests/sdk/test_js_matrix.py::test_every_model_google_genai_for_node_names_is_in_the_catalogue",
        ),
        source="google-genai 3.6.1 _gaos/types/interactions/model.py; @google/genai 3.3.0 dist/genai.d.ts",
        divergence="Model fields other than id and description are copied from the nearest family member (no "
        "ListModels body with them is captured); Lyria answers a tone, Omni answers text",
    ),
    Claim(
        "catalogue-user-models",
        "--models FILE, PUT /__emulator/models",
        "models added without a release (copied from a catalogue model, fields changed) serve every caller; an "
        "unknown model is still production's 404",
        (
            "tests/wire/test_catalogue_sdk_models.py::test_models_added_through_the_admin_api_serve_every_caller",
            "tests/wire/test_catalogue_sdk_models.py::test_a_models_file_given_by_flag_or_variable",
        ),
        source="emulator-only",
        divergence="emulator-only: global, not per namespace",
    ),
    Claim(
        "live-audio-native-modalities",
        "Live API",
        "gemini-3.1-flash-live-preview (Gemini API) and gemini-live-2.5-flash-native-audio (Vertex) refuse "
        "responseModalities TEXT: a 1007 close 'The requested combination of response modalities (TEXT) is not "
        "supported by the model.'; AUDIO with outputAudioTranscription is served",
        (
            "tests/wire/live/test_live_sdk.py::test_an_audio_native_model_refuses_text_and_serves_audio_with_a_transcript",
            "tests/wire/live/test_live_raw.py::test_vertex_path_needs_a_bearer_token_and_answers_in_vertex_shapes",
        ),
        source="google-genai 3.6.1 tests/live_api/test_live_session.py (the refusal's words; the close code 1007 "
        "is best-known, the code Live uses for an invalid setup)",
    ),
]
