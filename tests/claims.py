"""The conformance claims: what the emulator says it does like production, and the tests that lock each one.

tools/conformance_matrix.py renders these with a test run's outcomes into docs/conformance-matrix.md:
- status: conforming; documented divergence (`divergence`: why); not yet (`not_yet`: what is missing);
  FAILING when a locking test failed in the run;
- verification level, from `evidence`: captures in captures/ (their fidelity: byte-exact capture, verbatim
  SDK fixture, re-serialised recording, edited fixture), else `source` (SDK source, docs or an issue
  thread quoting production); live-verified when `live` names a dated check against the real service;
- `tests`: node-id prefixes; every one must match tests of the run.
"""

from __future__ import annotations

from claim_type import Claim

GOLDEN = "tests/captures/test_golden.py::"
REPLAY = GOLDEN + "test_capture_replays_byte_for_byte"
FACTS = GOLDEN + "test_scripted_answer_keeps_the_capture_facts"
ZERO = GOLDEN + "test_zero_config_answer_keeps_the_capture_facts"
PRINTERS = "tests/protocol/test_printers_bytes.py::"
FRAMING = "tests/protocol/test_framing_bytes.py::"
WIRE_ERRORS = "tests/wire/test_wire_errors.py::"
SEAMS = "tests/captures/test_replay_seams.py::"
TRUTH = "tests/wire/test_wire_truth.py::"
VCR = "tests/captures/test_vcr_corpus.py::"

CLAIMS: tuple[Claim, ...] = (
    # --- bytes on the wire, every endpoint -------------------------------------------------------------
    Claim(
        "unary-pretty-json",
        "all endpoints",
        'Unary and error bodies are production\'s pretty JSON (2-space indent, `": "`, one trailing newline), '
        "`application/json; charset=UTF-8`",
        (PRINTERS + "test_pretty_reproduces_every_unary_and_error_body", REPLAY + "[developer/unary-minimal]"),
        ("developer/unary-*", "conversations/*"),
    ),
    Claim(
        "doubles-simple-dtoa",
        "all endpoints",
        "Doubles are spelled as production's SimpleDtoa (%.15g, else %.17g, C exponents)",
        (PRINTERS + "test_pretty_spells_floats_as_production", PRINTERS + "test_production_float_spelling"),
        ("developer/int-enums-*", "embeddings/batch-embed-contents"),
    ),
    Claim(
        "html-escapes",
        "all endpoints",
        "`<` and `>` are escaped as \\u003c / \\u003e, every other character is raw UTF-8",
        (PRINTERS + "test_lt_gt_escaped_as_in_grounding_captures", REPLAY + "[firebase/developer-unary-search"),
        ("firebase/developer-unary-search-grounding",),
    ),
    Claim(
        "sse-framing",
        "streamGenerateContent?alt=sse",
        "`data: <one-line JSON>\\r\\n\\r\\n` per chunk, nothing else; `text/event-stream` + "
        "`Content-Disposition: attachment`",
        (FRAMING + "test_sse_reproduces_every_httprr_sse_body", FRAMING + "test_emulator_sse_stream", REPLAY),
        ("developer/sse-*", "conversations/parallel-function-calls-sse-*"),
    ),
    Claim(
        "json-array-framing",
        "streamGenerateContent (no alt)",
        "`[` + pretty chunk + (`\\n,\\r\\n` + pretty chunk)* + `\\n]`, `application/json; charset=UTF-8`",
        (FRAMING + "test_json_array_reproduces_every_captured_array_stream", FRAMING + "test_emulator_json_array"),
        ("developer/json-array-stream*",),
    ),
    Claim(
        "chunk-boundaries",
        "streamGenerateContent",
        "Each chunk leaves as soon as it is produced; chunks ready at the same moment leave in one piece, a delayed "
        "chunk on its own and on time (replayed streams keep the recorded cuts)",
        (
            "tests/engines/test_engine_seam.py::test_chunks_are_written_as_produced",
            "tests/wire/test_sending.py::test_ready_events_leave_together",
            "tests/wire/test_sending.py::test_delayed_events_leave_on_time",
            REPLAY + "[developer/sse-thought",
        ),
        ("developer/sse-thought-summaries",),
    ),
    Claim(
        "error-before-first-chunk",
        "streamGenerateContent",
        "An error before the first chunk is a plain HTTP error (array-wrapped without alt=sse); on alt=sse it "
        "keeps `text/event-stream`",
        (
            "tests/engines/test_engine_seam.py::test_engine_error_before_first_chunk_is_an_http_error",
            FRAMING + "test_emulator_stream_error_before_first_chunk",
            FACTS + "[errors/invalid-argument]",
        ),
        ("errors/unknown-model-stream", "errors/invalid-argument"),
    ),
    Claim(
        "mid-stream-error-tail",
        "streamGenerateContent?alt=sse",
        'An error after the first chunk keeps the 200 and ends the body with the raw pretty `{"error": ...}`',
        (
            "tests/engines/test_engine_seam.py::test_engine_error_mid_stream_is_productions_error_tail",
            FRAMING + "test_sse_mid_stream_error_tail",
            REPLAY + "[errors/mid-stream-cancelled]",
        ),
        ("errors/mid-stream-cancelled",),
    ),
    Claim(
        "mid-stream-error-json-array",
        "streamGenerateContent (no alt)",
        "An error after the first chunk of a JSON-array stream",
        ("tests/engines/test_engine_seam.py::test_engine_error_mid_array_stream_keeps_the_array_parseable",),
        source="not captured from production",
        divergence="sent as a final array element so the body stays valid JSON (docs/conformance.md)",
    ),
    # --- generateContent: the response layout ----------------------------------------------------------
    Claim(
        "developer-key-order",
        "generateContent (Developer)",
        "Response, candidate, content, part and usageMetadata keys in production's 2026 order",
        (FACTS, ZERO, "tests/wire/test_wire_families.py::"),
        ("developer/unary-minimal", "conversations/gemini-3.5-*", "developer/sse-*"),
    ),
    Claim(
        "stream-chunk-contents",
        "streamGenerateContent (Developer)",
        "Every chunk carries running usageMetadata, modelVersion and one responseId; finishReason only on the last",
        (FACTS + "[developer/sse-thought-summaries]", ZERO + "[developer/sse-long-answer]"),
        ("developer/sse-thought-summaries", "developer/sse-long-answer*"),
    ),
    Claim(
        "service-tier",
        "generateContent (Developer)",
        "`usageMetadata.serviceTier: standard` and the `X-Gemini-Service-Tier: standard` header",
        (FACTS + "[conversations/gemini-3.5-delegation", REPLAY + "[conversations/gemini-3.5-delegation"),
        ("conversations/gemini-3.5-delegation-*",),
    ),
    Claim(
        "function-call-gemini-3",
        "generateContent (Developer)",
        "Gemini 3 function calls: `functionCall {name, args, id}`, a sibling `thoughtSignature`, finishMessage "
        '"Model generated function call(s)."',
        (FACTS + "[conversations/gemini-3.5-delegation", REPLAY + "[conversations/gemini-3.5-delegation"),
        ("conversations/gemini-3.5-delegation-*",),
    ),
    Claim(
        "function-call-gemini-2.5",
        "generateContent (Developer)",
        "gemini-2.5 function calls: no id; finishMessage on unary turns",
        (FACTS + "[conversations/function-call-round-trip]", FACTS + "[conversations/tool-callback"),
        ("conversations/function-call-round-trip", "conversations/tool-callback-*", "conversations/mcp-*"),
        not_yet="the emulator mints an id on every model and sends finishMessage on Gemini 3 only "
        "(golden divergences function-call-id-before-gemini-3, function-call-finish-message)",
    ),
    Claim(
        "function-call-round-trip",
        "generateContent (Developer)",
        "A recorded tool loop replays through google-genai, turn by turn",
        ("tests/engines/test_replay_engine.py::test_a_conversation_plays_in_order_through_the_sdk", REPLAY + "[conv"),
        ("conversations/function-call-round-trip",),
    ),
    Claim(
        "gemini-3-stream-signature-part",
        "streamGenerateContent (Developer)",
        'Gemini 3 streams end with a `{text: "", thoughtSignature}` part',
        (FACTS + "[conversations/parallel-function-calls-sse-gemini-3",),
        ("conversations/parallel-function-calls-sse-gemini-3*",),
        not_yet="only zero-config text answers end so; a scripted function call does not "
        "(golden divergence gemini-3-trailing-signature-part)",
    ),
    Claim(
        "thinking-parts",
        "generateContent",
        "Thought summaries (`thought: true`) first, thoughtsTokenCount in usage, signatures kept in place",
        (
            FACTS + "[firebase/developer-sse-thinking",
            FACTS + "[firebase/developer-unary-thinking",
            FACTS + "[firebase/vertex-sse-thinking]",
        ),
        ("firebase/developer-sse-thinking*", "firebase/developer-unary-thinking*", "firebase/vertex-*-thinking"),
    ),
    Claim(
        "structured-output",
        "generateContent",
        "responseSchema / responseMimeType answers: the JSON is the text part",
        (FACTS + "[vertex/structured-output-response-schema]", ZERO + "[developer/structured-output-response-schema]"),
        ("vertex/structured-output-response-schema", "firebase/vertex-unary-structured-output"),
    ),
    Claim(
        "prompt-blocked",
        "generateContent",
        "A blocked prompt: `promptFeedback.blockReason`, no candidates",
        (FACTS + "[firebase/vertex-unary-prompt-blocked]", FACTS + "[firebase/developer-sse-prompt-blocked]"),
        ("firebase/vertex-unary-prompt-blocked", "firebase/developer-sse-prompt-blocked"),
    ),
    Claim(
        "unexpected-tool-call",
        "streamGenerateContent (Developer)",
        "finishReason UNEXPECTED_TOOL_CALL arrives in a chunk without content, modelVersion or responseId",
        (FACTS + "[conversations/unexpected-tool-call]",),
        ("conversations/unexpected-tool-call",),
        not_yet="a scripted finishReason keeps the usual envelope (golden divergence unexpected-tool-call-shape)",
    ),
    Claim(
        "int-enums",
        "generateContent (GAPIC clients)",
        "`?$alt=json;enum-encoding=int` answers enums as numbers",
        (WIRE_ERRORS + "test_integer_enums_for_gapic_clients",),
        ("developer/int-enums-*",),
    ),
    Claim(
        "grounding-citations",
        "generateContent",
        "groundingMetadata, urlContextMetadata, citationMetadata",
        (FACTS + "[firebase/developer-unary-search-grounding]", REPLAY + "[firebase/developer-unary-url-context]"),
        ("firebase/developer-unary-search-grounding", "firebase/developer-unary-url-context"),
        not_yet="no search or URL tools are simulated; a raw entry or a capture replays them",
    ),
    # --- Vertex ------------------------------------------------------------------------------------
    Claim(
        "vertex-shape",
        "generateContent (Vertex)",
        "createTime, content as role then parts, no candidate index; interim chunks' usageMetadata holds only "
        "trafficType",
        ("tests/sdk/test_sdk_vertex.py::", FACTS + "[firebase/vertex-", FACTS + "[vertex/"),
        ("firebase/vertex-sse-*", "vertex/*"),
        divergence="the Vertex fixtures disagree on index and content order; the emulator follows the CRLF "
        "streams and the 2025-10 recordings (golden divergences vertex-candidate-index, vertex-content-key-order)",
    ),
    Claim(
        "vertex-billable-prompt-usage",
        "generateContent (Vertex)",
        "No usageMetadata.billablePromptUsage (0 of 113 Vertex answers of 2025-05..2026-07)",
        (TRUTH + "test_vertex_unary_answer_has_avg_logprobs", VCR + "test_vertex_answers", FACTS + "[vertex/vcr-"),
        ("vertex/vcr-*",),
        divergence="js-genai's 2025-08..12 recordings had it (57 of 60); the emulator follows 2026 "
        "(golden divergence billable-prompt-usage-2025)",
    ),
    Claim(
        "vertex-avg-logprobs",
        "generateContent (Vertex)",
        "Unary candidates carry `avgLogprobs` after finishReason unless a server-side tool is enabled; streams none",
        (TRUTH + "test_vertex_unary_answer_has_avg_logprobs", VCR + "test_vertex_answers", FACTS + "[vertex/vcr-"),
        ("vertex/vcr-function-call-round-trip-2026", "vertex/vcr-sse-2026", "vertex/vcr-tool-combination-2026"),
    ),
    Claim(
        "vertex-candidate-score",
        "generateContent (Vertex)",
        "candidate `score`",
        (FACTS + "[vertex/unary-system-instruction]",),
        ("vertex/unary-system-instruction",),
        not_yet="not produced (golden divergence vertex-candidate-score)",
    ),
    Claim(
        "vertex-function-calls",
        "generateContent (Vertex)",
        "Function calls without `id` and without `finishMessage`",
        (TRUTH + "test_vertex_function_call_has_no_finish_message_nor_id", VCR + "test_vertex_answers"),
        ("vertex/vcr-function-call-round-trip-2026",),
        divergence="the one 2026-07 Vertex call recorded carries an id (golden divergence vertex-call-id-2026-07)",
    ),
    # --- errors ------------------------------------------------------------------------------------
    Claim(
        "no-credential",
        "errors",
        "No credential on the Developer API: 403 PERMISSION_DENIED, unregistered callers, no details",
        (WIRE_ERRORS + "test_no_credential_is_403_permission_denied", REPLAY + "[errors/no-credential"),
        ("errors/no-credential-unregistered-caller",),
    ),
    Claim(
        "vertex-credentials-missing",
        "errors",
        "Vertex without OAuth: 401 UNAUTHENTICATED, CREDENTIALS_MISSING details, Www-Authenticate",
        (WIRE_ERRORS + "test_vertex_without_oauth_is_401", REPLAY + "[errors/vertex-express-credentials-missing]"),
        ("errors/vertex-express-credentials-missing",),
    ),
    Claim(
        "api-key-invalid",
        "errors",
        "A rejected key: 400 INVALID_ARGUMENT, ErrorInfo API_KEY_INVALID and LocalizedMessage",
        (WIRE_ERRORS + "test_wrong_key_when_one_is_configured", REPLAY + "[errors/api-key-invalid]"),
        ("errors/api-key-invalid",),
    ),
    Claim(
        "unknown-model",
        "errors",
        "Unknown model: 404 {code, message, status} naming the API version and method (embedContent for a batch), "
        '"Call ModelService.ListModels"',
        (
            WIRE_ERRORS + "test_unknown_model_names_version_and_method",
            TRUTH + "test_unknown_model_through_the_sdk",
            VCR + "test_model_not_found_bodies",
            REPLAY + "[errors/vcr-unknown-model",
        ),
        ("errors/vcr-unknown-model-*", "errors/unknown-model"),
    ),
    Claim(
        "retired-model",
        "errors",
        'Models shut down in 2026: 404 "This model models/X is no longer available"',
        ("tests/sdk/test_sdk_developer.py::test_retired_models_fail_like_production",),
        source="issue google/adk-docs#1840",
    ),
    Claim(
        "request-validation",
        "errors",
        "Unknown fields, wrong types, empty contents, bad roles: production's 400 texts and field violations",
        (WIRE_ERRORS + "test_unknown_fields_are_named_with_their_path", WIRE_ERRORS + "test_request_rules"),
        source="issue threads quoting production (docs/conformance.md)",
    ),
    Claim(
        "catalogue-errors",
        "errors",
        "Scripted errors (quota, unavailable, internal, location, cancelled...) in production's envelope order",
        (FACTS + "[errors/", "tests/sdk/test_sdk_errors.py::"),
        ("errors/quota-exceeded-2024", "errors/user-location-unsupported", "errors/iam-permission-denied"),
    ),
    Claim(
        "html-404",
        "errors",
        "Unroutable URLs get Google's HTML 404 page",
        (WIRE_ERRORS + "test_unknown_paths_get_googles_html_404",),
        ("errors/html-404-invalid-location",),
    ),
    Claim(
        "invalid-location",
        "errors",
        "An invalid location on a Firebase AI Logic Vertex path gets the HTML 404 page; region-shaped names "
        "(`us-central1`, `global`) are routed",
        (
            REPLAY + "[errors/html-404-invalid-location]",
            SEAMS + "test_an_invalid_firebase_location_gets_the_html_404",
            SEAMS + "test_region_shaped_firebase_locations_are_served",
            "tests/protocol/test_routes.py::test_not_routed",
        ),
        ("errors/html-404-invalid-location",),
    ),
    # --- countTokens, embeddings, models ------------------------------------------------------------------
    Claim(
        "count-tokens",
        "countTokens",
        "`{totalTokens, promptTokensDetails}`; Vertex adds totalBillableCharacters; equal to generateContent's "
        "promptTokenCount",
        (
            "tests/sdk/test_sdk_developer.py::test_count_tokens_matches_prompt_token_count",
            "tests/wire/test_wire_families.py::test_vertex_count_tokens_has_billable_characters",
            FACTS + "[count-tokens/",
        ),
        ("count-tokens/*",),
        divergence="counts are an estimate (no tokenizer offline); contentTokens and systemInstructionsTokens "
        "(Oct 2025) are not sent (golden divergence count-tokens-shape)",
    ),
    Claim(
        "compute-tokens",
        "computeTokens (Vertex)",
        "`{tokensInfo: [{role, tokenIds, tokens}]}`",
        (FACTS + "[count-tokens/vertex-compute-tokens]",),
        ("count-tokens/vertex-compute-tokens",),
        not_yet="answers 501 NOT_IMPLEMENTED (a recorded computeTokens replays)",
    ),
    Claim(
        "embeddings",
        "embedContent, batchEmbedContents, predict",
        "Embedding responses in production's shape (batchEmbedContents `{embeddings: [{values}]}`, Vertex predictions)",
        (FACTS + "[embeddings/",),
        ("embeddings/*",),
    ),
    Claim(
        "models",
        "models.list / models.get",
        "ListModels pages and Model resources",
        (
            "tests/sdk/test_sdk_developer.py::test_list_and_get_models",
            "tests/sdk/test_sdk_developer.py::test_list_models",
        ),
        source="SDK source and docs (no capture exists)",
    ),
    # --- replay ------------------------------------------------------------------------------------------
    Claim(
        "replay-bytes",
        "replay engine",
        "Recorded exchanges replay with the recorded status, headers that matter, body bytes and chunk cuts",
        (REPLAY, "tests/engines/test_replay_engine.py::"),
        ("developer/*", "conversations/*", "firebase/*", "errors/*", "vertex/*"),
    ),
    Claim(
        "replay-retired-models",
        "replay engine",
        "Captures of models since retired (gemini-2.0, 1.5; the JSON-array and integer-enum traces) and of "
        "unknown models' 404s replay; an unrecorded request on such a model gets the catalogue's 404",
        (
            REPLAY + "[developer/json-array-stream]",
            REPLAY + "[developer/int-enums-unary]",
            REPLAY + "[errors/unknown-model-",
            SEAMS + "test_a_retired",
            SEAMS + "test_the_scripted_engine_serves_a_retired_model_only_through_a_replay_entry",
        ),
        ("developer/json-array-stream*", "developer/int-enums-*", "errors/unknown-model-*"),
    ),
    Claim(
        "replay-count-tokens-embeddings",
        "replay engine",
        "countTokens, computeTokens and embeddings captures replay; unrecorded calls get the wire's own answer",
        (
            REPLAY + "[count-tokens/",
            REPLAY + "[embeddings/",
            SEAMS + "test_count_tokens_gets_the_recorded_count_through_the_sdk",
            SEAMS + "test_unrecorded_",
        ),
        ("count-tokens/*", "embeddings/*"),
    ),
    Claim(
        "replay-headers",
        "replay engine",
        "Replayed answers carry the recorded `X-Gemini-Service-Tier`, or none when the recording has none",
        (REPLAY, SEAMS + "test_recorded_headers_replace_the_wires_service_tier"),
        ("developer/sse-*", "conversations/gemini-3.5-delegation-*"),
    ),
    Claim(
        "replay-reset",
        "replay engine",
        "The admin reset restarts the caller's recorded conversations (all callers' with `?all=true`)",
        (SEAMS + "test_the_admin_reset_restarts_",),
        source="emulator-only behaviour (no production analogue)",
    ),
    # --- issue 13: what other client libraries' recordings show --------------------------------------
    Claim(
        "tool-without-arguments",
        "generateContent",
        "A function declared with an empty OBJECT as parameters is called (200), Developer and Vertex",
        (TRUTH + "test_a_tool_without_arguments_is_called", VCR + "test_a_tool_without_arguments_is_answered"),
        ("conversations/vcr-any-mode-tool-without-arguments", "conversations/vcr-tool-without-arguments-2025"),
    ),
    Claim(
        "after-a-tool-result",
        "generateContent",
        "After a function response: mode ANY calls again; JSON output stays schema-valid JSON",
        (
            TRUTH + "test_mode_any_after_a_tool_result_calls_again",
            TRUTH + "test_structured_output_after_a_tool_result_is_json",
            VCR + "test_after_a_tool_result",
        ),
        ("conversations/vcr-any-mode-final-result", "conversations/vcr-json-after-tool-result"),
    ),
    Claim(
        "service-tier-header-unary-only",
        "generateContent (Developer)",
        "`X-Gemini-Service-Tier` on unary answers only; streams carry `usageMetadata.serviceTier` without it",
        (TRUTH + "test_service_tier_header_only_on_unary_developer_answers",),
        source="issue 13's report of 24 streams of 2026-08 (no capture here shows a post-2026-06 stream's headers)",
    ),
    Claim(
        "embedding-2-usage",
        "batchEmbedContents / embedContent",
        "gemini-embedding-2 answers carry usageMetadata (promptTokenDetails in batches, promptTokensDetails on Vertex)",
        (TRUTH + "test_gemini_embedding_2_batch_reports_usage", VCR + "test_gemini_embedding_2_batch_usage"),
        ("embeddings/vcr-*",),
    ),
    Claim(
        "retirement-per-backend",
        "catalogue",
        "text-embedding-004 retired on the Developer API, still served on Vertex",
        (TRUTH + "test_text_embedding_004_is_retired_on_developer_only",),
        ("embeddings/vertex-predict",),
    ),
    Claim(
        "consecutive-call-turns",
        "generateContent",
        "Function responses pair with the calls of all consecutive model turns before them",
        (TRUTH + "test_two_consecutive_call_turns", VCR + "test_consecutive_call_turns"),
        ("conversations/vcr-consecutive-call-turns",),
    ),
    Claim(
        "lenient-requests",
        "generateContent",
        "`tools` as one object accepted; an empty-text prompt counts 1 token; arguments honour `pattern`",
        (
            TRUTH + "test_tools_as_a_single_object_is_accepted",
            TRUTH + "test_an_empty_text_prompt_counts_one_token",
            TRUTH + "test_synthesized_arguments_honour_pattern",
        ),
        ("developer/vcr-empty-text-prompt",),
    ),
    Claim(
        "vertex-models-path",
        "Vertex",
        "`projects/P/locations/L/models/x` (google-genai's Vertex path for `models/x`): Vertex's JSON 404",
        (TRUTH + "test_vertex_models_name_gets_a_json_not_found",),
        source="no capture of production's answer",
        divergence="answered 404 NOT_FOUND with the publisher-model wording; publisher models are not served there",
    ),
)

# This wave's surfaces keep their claims in modules of their own (the Claim record is in claim_type.py).
from claims_agents import AGENT_CLAIMS  # noqa: E402
from claims_catalogue import CATALOGUE_CLAIMS  # noqa: E402
from claims_fidelity import FIDELITY_CLAIMS  # noqa: E402
from claims_firebase_live import FIREBASE_LIVE_CLAIMS  # noqa: E402
from claims_live import LIVE_CLAIMS  # noqa: E402
from claims_media import MEDIA_CLAIMS  # noqa: E402
from claims_music import MUSIC_CLAIMS  # noqa: E402
from claims_platform import PLATFORM_CLAIMS  # noqa: E402
from claims_resources import RESOURCE_CLAIMS  # noqa: E402
from claims_scaling import SCALING_CLAIMS  # noqa: E402
from claims_scaling_files import SCALING_FILE_CLAIMS  # noqa: E402
from claims_scaling_redis import SCALING_REDIS_CLAIMS  # noqa: E402
from claims_scaling_resources import SCALING_RESOURCE_CLAIMS  # noqa: E402
from claims_scaling_rest import SCALING_REST_CLAIMS  # noqa: E402
from claims_templates import TEMPLATE_CLAIMS  # noqa: E402
from claims_triggers import TRIGGER_CLAIMS  # noqa: E402
from claims_tunings import TUNING_CLAIMS  # noqa: E402
from claims_web import WEB_CLAIMS  # noqa: E402
from claims_webhooks import WEBHOOK_CLAIMS  # noqa: E402

CLAIMS = (
    CLAIMS
    + tuple(RESOURCE_CLAIMS)
    + tuple(LIVE_CLAIMS)
    + tuple(MEDIA_CLAIMS)
    + tuple(CATALOGUE_CLAIMS)
    + tuple(TUNING_CLAIMS)
    + tuple(FIDELITY_CLAIMS)
    + tuple(WEB_CLAIMS)
    + tuple(PLATFORM_CLAIMS)
    + tuple(TEMPLATE_CLAIMS)
    + tuple(WEBHOOK_CLAIMS)
    + tuple(FIREBASE_LIVE_CLAIMS)
    + tuple(TRIGGER_CLAIMS)
    + tuple(MUSIC_CLAIMS)
    + tuple(AGENT_CLAIMS)
    + tuple(SCALING_CLAIMS)
    + tuple(SCALING_REDIS_CLAIMS)
    + tuple(SCALING_RESOURCE_CLAIMS)
    + tuple(SCALING_FILE_CLAIMS)
    + tuple(SCALING_REST_CLAIMS)
)
