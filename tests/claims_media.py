"""Claims of images, speech, Imagen, Veo, computeTokens and the Interactions API (issue 18)."""

from __future__ import annotations

from claim_type import Claim

# Claims for issue 18 (helper `media`), for the lead to merge into tests/claims.py.
MEDIA = "tests/engines/synth/test_synth_media.py::"

MEDIA_CLAIMS = (
    Claim(
        "media-catalogue",
        "GET /{v}/models",
        "ListModels holds today's TTS, image-out, Imagen, Veo and embedding models with production's fields",
        (MEDIA + "test_catalogue_lists_media_models",),
        source="v1beta ListModels body of 2026-06-26 (search-index file id 56402526620)",
    ),
    Claim(
        "image-out-png",
        "generateContent / streamGenerateContent",
        "An image-out model answers text then an inlineData image/png of the requested aspect ratio and size, "
        "signed on Gemini 3, with candidatesTokensDetails TEXT and IMAGE (1120 a 1K/2K image)",
        (
            MEDIA + "test_image_model_answers_text_then_a_png_of_the_asked_shape",
            MEDIA + "test_image_only_has_no_text_and_no_modalities_means_text_and_image",
            MEDIA + "test_image_stream_carries_the_picture",
            MEDIA + "test_vertex_image_answer",
        ),
        source="Firebase vertexai/unary-success-empty-part.json; vercel-ai issue-10660-image-thought-signature",
        divergence="the picture is a deterministic pattern, not a drawing",
    ),
    Claim(
        "tts-pcm",
        "generateContent / streamGenerateContent",
        "A TTS model answers audio/L16;codec=pcm;rate=24000 whose length follows the text; multi-speaker voices",
        (
            MEDIA + "test_tts_speaks_the_prompt_as_24khz_pcm_whose_length_follows_the_text",
            MEDIA + "test_tts_usage_counts_audio_tokens",
            MEDIA + "test_tts_stream_and_multi_speaker",
            MEDIA + "test_scripted_text_is_spoken",
        ),
        source="best-known: audio token rate 25/s, stream piece size",
    ),
    Claim(
        "response-modalities-refused",
        "generateContent",
        "responseModalities a model cannot make get production's 400 (TTS combination text; text-model text)",
        (MEDIA + "test_modalities_a_model_cannot_answer_are_refused",),
        source="BerriAI/litellm#11118, Laisky/one-api#45",
    ),
    Claim(
        "journal-media-by-size",
        "GET /__emulator/journal",
        "Base64 media in request and response bodies is journaled as its size beside its mimeType",
        (
            MEDIA + "test_scripted_image_from_base64_and_from_a_path",
            MEDIA + "test_journal_shows_uploaded_media_by_size",
        ),
        source="issue 18",
    ),
)

IMAGEN = "tests/wire/media/test_imagen.py::"
IMAGEN_CLAIMS = (
    Claim(
        "imagen-predict",
        "POST {imagen model}:predict (Developer, Vertex)",
        "generate_images, edit_image and upscale_image answer decodable PNGs of Imagen's sizes; sampleCount, "
        "aspectRatio, includeRaiReason/raiFilteredReason, includeSafetyAttributes, enhancePrompt as recorded",
        (
            IMAGEN + "test_generate_images_count_and_aspect_ratio",
            IMAGEN + "test_safety_attributes_rai_reason_and_enhanced_prompt",
            IMAGEN + "test_scripted_images_filtered_and_blocked",
            IMAGEN + "test_edit_image_with_a_mask_answers_at_the_reference_size",
            IMAGEN + "test_upscale_multiplies_the_input_size",
            IMAGEN + "test_developer_predict_as_recorded",
        ),
        source="Firebase vertexai/*generate-images*.json; vercel-ai issue-10843-google-imagen-generate-image.json",
        divergence="always PNG; refusal texts are the emulator's own",
    ),
)

COMPUTE = "tests/wire/media/test_compute_tokens.py::"
COMPUTE_CLAIMS = (
    Claim(
        "compute-tokens",
        "POST {vertex model}:computeTokens",
        "tokensInfo per content (role, int64-string ids, base64 tokens with their leading space), as many as "
        "countTokens counts; the recorded sentence gets production's very tokens",
        (
            COMPUTE + "test_the_recorded_sentence_gets_the_recorded_tokens",
            COMPUTE + "test_wire_shape_ids_are_strings",
            COMPUTE + "test_as_many_tokens_as_count_tokens_per_content",
        ),
        ("count-tokens/vertex-compute-tokens",),
        divergence="token ids are a digest, not Gemini's vocabulary",
    ),
)
# Remove from tests/claims.py / the golden divergences: "compute-tokens" GAP (computeTokens is served now).

INTERACTIONS = "tests/wire/media/test_interactions.py::"
INTERACTIONS_CLAIMS = (
    Claim(
        "interactions",
        "POST /{v}/interactions, GET/DELETE /{v}/interactions/{id}, POST .../{id}/cancel",
        "client.interactions create (text, tools, structured output, stream as SSE events, background), chaining "
        "with previous_interaction_id, get, delete, cancel; answered by the same engine and script entries",
        (
            INTERACTIONS + "test_create_answers_text_steps_and_usage",
            INTERACTIONS + "test_chaining_two_interactions_carries_the_history",
            INTERACTIONS + "test_tools_call_then_result",
            INTERACTIONS + "test_structured_output",
            INTERACTIONS + "test_stream_is_the_sse_event_sequence",
            INTERACTIONS + "test_absent_stream_is_json",
            INTERACTIONS + "test_background_run_completes_and_cancel",
            INTERACTIONS + "test_store_false_and_delete_and_isolation",
            INTERACTIONS + "test_bad_requests",
        ),
        source="best-known: google-genai 3.6.1 _gaos types (no public capture of the Interactions API)",
    ),
)

VEO = "tests/wire/media/test_veo.py::"
VEO_CLAIMS = (
    Claim(
        "veo-operations",
        "POST {veo}:predictLongRunning, GET operations/{id}, POST {veo}:fetchPredictOperation",
        "generate_videos returns an operation polled to done; Vertex videos inline, Developer videos as "
        "downloadable generated files; a script entry holds, fails or filters it",
        (
            VEO + "test_vertex_generate_videos_polls_to_inline_mp4s",
            VEO + "test_script_holds_fails_and_filters",
            VEO + "test_developer_rest_video_is_a_downloadable_file",
        ),
        source="best-known: google-genai 3.6.1 models.py/operations.py converters",
        divergence="the MP4 is a valid container without decodable frames",
    ),
)

# JPEG output, the OpenAI-compatible images/generations and @google/genai's media calls (the `mediax` helper)
IMAGEN = "tests/wire/media/test_imagen.py::"
OPENAI_IMAGES = "tests/wire/test_openai_images.py::"
JS = "tests/sdk/test_js_matrix.py::test_js_sdk[genai-media.test.mjs]"

MEDIAX_CLAIMS = [
    Claim(
        "imagen-jpeg",
        ":predict (Imagen)",
        "parameters.outputOptions {mimeType: image/jpeg, compressionQuality} answers real baseline JPEGs of "
        "Imagen's size at the asked quality (default 75); another type or a quality outside 0-100 is a 400",
        (
            IMAGEN + "test_generate_images_as_jpeg",
            IMAGEN + "test_jpeg_on_developer_rest_and_bad_output_options",
            IMAGEN + "test_upscale_a_jpeg",
            "tests/media/test_jpeg.py::test_decodes_to_the_asked_size",
            "tests/media/test_jpeg.py::test_quality_quantises",
        ),
        source="google-genai 3.6.1 models.py _GenerateImagesConfig_to_vertex (outputOptions); Vertex Imagen docs",
        divergence="the picture is the emulator's own (flat blocks with one shading); refusal texts are guesses",
    ),
    Claim(
        "image-out-jpeg",
        "generateContent / streamGenerateContent",
        "imageConfig.imageOutputOptions {mimeType: image/jpeg, compressionQuality} answers an inlineData "
        "image/jpeg of the asked aspect ratio, counted as an image in the usage",
        (MEDIA + "test_vertex_image_output_options_answer_a_jpeg",),
        source="google-genai 3.6.1 models.py _ImageConfig_to_vertex (imageOutputOptions; the SDK refuses it "
        "on the Developer API)",
        divergence="served on the Developer API too: production's answer there is not captured",
    ),
    Claim(
        "openai-images-generations",
        "POST /v1beta/openai/images/generations",
        "client.images.generate: Imagen models through :predict and Gemini image models through generateContent "
        "(the same engine, scripts and journal), n, size (nearest aspect ratio), response_format b64_json/url, "
        "extra_body aspect_ratio/generation_config; other fields ignored; errors list-wrapped",
        (
            OPENAI_IMAGES + "test_imagen_as_the_guide_calls_it",
            OPENAI_IMAGES + "test_size_and_aspect_ratio",
            OPENAI_IMAGES + "test_gemini_image_model_through_generate_content",
            OPENAI_IMAGES + "test_scripted_images_and_url_format",
            OPENAI_IMAGES + "test_unknown_model_and_text_model",
            OPENAI_IMAGES + "test_bad_bodies_are_400s_in_the_surface_shape",
            OPENAI_IMAGES + "test_fields_production_ignores_are_ignored_and_a_missing_key_is_refused",
        ),
        source="ai.google.dev/gemini-api/docs/openai 'Generate an image' (2025 and 2026-06-22 versions); "
        "best-known: no capture of this path",
    ),
    Claim(
        "genai-js-media",
        "generateContent IMAGE/AUDIO, :predict, :predictLongRunning, interactions, computeTokens",
        "@google/genai 3: image output, TTS, generateImages/editImage/upscaleImage, generateVideos polled to "
        "done (Vertex), interactions chained and streamed, computeTokens consistent with countTokens",
        (JS,),
        source="the SDK's own calls over real sockets",
    ),
]

MEDIA_CLAIMS = MEDIA_CLAIMS + tuple(MEDIAX_CLAIMS)
