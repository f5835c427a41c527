"""Claims of the Live API (issue 17)."""

from __future__ import annotations

from claim_type import Claim

# Claims for issue 17 (the Live API), to merge into tests/claims.py (helper `live`).
SDK_LIVE = "tests/wire/live/test_live_sdk.py::"
RAW_LIVE = "tests/wire/live/test_live_raw.py::"
JS_LIVE = "tests/sdk/test_js_matrix.py::test_js_sdk[live.test.mjs]"

LIVE_CLAIMS = [
    Claim(
        "live-text-turn",
        "WS /ws/google.ai.generativelanguage.{v1beta,v1alpha,v1}.GenerativeService.BidiGenerateContent",
        "setup -> setupComplete {}; clientContent turn -> modelTurn parts in pieces, generationComplete, "
        "turnComplete with usageMetadata (responseTokenCount, *TokensDetails)",
        (
            SDK_LIVE + "test_text_turn_scripted_over_tls",
            RAW_LIVE + "test_snake_case_and_camel_case_both_accepted",
            JS_LIVE,
        ),
        source="js-genai recordings live_ML_Dev_should_send_text_in_async_session.websocket.log, "
        "live_ML_Dev_should_reply_to_realtime_text_input.websocket.log",
    ),
    Claim(
        "live-vertex-shapes",
        "WS /ws/google.cloud.aiplatform.{v1,v1beta1}.LlmBidiService/BidiGenerateContent",
        "bearer token required; setupComplete carries a sessionId; modelTurn has role model; Vertex usage names "
        "(candidatesTokenCount)",
        (RAW_LIVE + "test_vertex_path_needs_a_bearer_token_and_answers_in_vertex_shapes",),
        source="js-genai recordings live_Vertex_*.websocket.log; google-genai _UsageMetadata_from_vertex",
    ),
    Claim(
        "live-audio-out",
        "Live API",
        "responseModalities AUDIO: inlineData audio/pcm;rate=24000 pieces of 9,600 bytes, outputTranscription",
        (SDK_LIVE + "test_audio_turn_with_transcription", JS_LIVE),
        source="js-genai recordings live_Vertex_should_send_text_in_async_session (9,600-byte pieces), "
        "live_ML_Dev_should_receive_transcription_in_async_session_with_transcription_enabled",
    ),
    Claim(
        "live-close-codes",
        "Live API",
        "wrong model: 1008 with production's reason cut at 123 bytes; unknown field: 1007 'Invalid JSON payload "
        "received. Unknown name ...'; message before setup: 1007; no key: 1008; never a JSON error frame",
        (
            RAW_LIVE + "test_wrong_model_closes_1008_with_the_reason_cut_at_123_bytes",
            RAW_LIVE + "test_unknown_field_in_setup_closes_1007",
            RAW_LIVE + "test_message_before_setup_closes_1007",
            RAW_LIVE + "test_no_key_closes_1008",
            SDK_LIVE + "test_wrong_model_closes_1008",
        ),
        source="livekit/agents#4414 and google/adk-python#3964 (1008 reason), google-gemini/cookbook#781 (1007)",
        divergence="message before setup, activity signals with automatic detection on, limits: best-known close "
        "codes and reasons (docs/conformance.md, Live)",
    ),
    Claim(
        "live-tools",
        "Live API",
        "toolCall functionCalls with ids; toolResponse continues the turn; pending calls cancelled by new input "
        "(toolCallCancellation)",
        (
            SDK_LIVE + "test_tool_call_round_trip",
            RAW_LIVE + "test_pending_tool_calls_are_cancelled_by_new_input_or_by_script",
            JS_LIVE,
        ),
        source="js-genai recordings live_*_should_send_tool_response.websocket.log",
        divergence="Developer call ids are the engine's 8-character ids, not function-call-<digits>",
    ),
    Claim(
        "live-realtime",
        "Live API",
        "realtimeInput audio (20 ms pieces), activityStart/End, automatic activity detection ending the turn on "
        "silence, inputTranscription from the script (placeholder otherwise), barge-in interrupted",
        (
            SDK_LIVE + "test_realtime_audio_with_activity_signals",
            SDK_LIVE + "test_automatic_activity_detection_ends_the_turn_on_silence",
            SDK_LIVE + "test_barge_in_interrupts_the_answer",
            JS_LIVE,
        ),
        source="google-genai live.py send_realtime_input; Live API docs",
        divergence="voice activity detection is a deterministic level threshold (docs/conformance.md, Live)",
    ),
    Claim(
        "live-resumption-goaway",
        "Live API",
        "sessionResumptionUpdate handles restore the conversation in a new session after a drop; scripted goAway "
        "with timeLeft, then the session ends",
        (SDK_LIVE + "test_session_resumption_after_a_drop", SDK_LIVE + "test_scripted_go_away"),
        source="google-genai types LiveServerSessionResumptionUpdate, LiveServerGoAway",
    ),
    Claim(
        "live-ephemeral-tokens",
        "POST /v1alpha/auth_tokens; WS ...BidiGenerateContentConstrained",
        "tokens with uses and locked setup; a used-up token is refused (1008); the journal never holds the token",
        (SDK_LIVE + "test_ephemeral_token_locks_its_setup_and_is_used_up", JS_LIVE),
        source="google-genai tokens.py, types.AuthToken; @google/genai live connect (access_token)",
    ),
    Claim(
        "live-journal-limits",
        "Live API",
        "one journal record per session with audio summarised by size and duration; per-namespace open-session "
        "limit (1011); admin liveSessions resources",
        (
            RAW_LIVE + "test_the_journal_holds_one_record_per_session_with_audio_summarised",
            RAW_LIVE + "test_open_session_limits_per_namespace",
            RAW_LIVE + "test_admin_lists_open_sessions_and_handles",
        ),
        source="issue 17",
    ),
]
