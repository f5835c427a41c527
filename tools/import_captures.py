"""The curated import: ../shared/corpus -> captures/, with provenance. Re-running it reproduces captures/.

    python tools/import_captures.py            # (re)write captures/ from the corpus
    python tools/import_captures.py --check    # fail if captures/ differs from a fresh import

What is imported (see captures/README.md):
- every byte-exact httprr trace (google/adk-go, tmc/langchaingo), one capture per trace file (a
  multi-exchange trace is a conversation);
- the faithful Firebase AI Logic mock responses: verbatim files as they are, a few re-framed ones marked
  `edited` with what was changed; requests reconstructed (marked `recorded: false`);
- a few js-genai recordings (re-serialised) for what no byte-exact capture shows: countTokens, Vertex
  unary/stream/function calling, computeTokens, Vertex embeddings, a 404 on a stream.
- the telling VCR cassettes of pydantic-ai (re-serialised: its recorder parsed the JSON bodies) and
  Mirascope (bodies as sent: verbatim), issue 13: a tool without arguments, mode ANY and structured output
  after a tool result, 2026 Vertex answers, two consecutive call turns, gemini-embedding-2 usage, the 2025
  and 2026 model-not-found wordings, an empty-text prompt. Only a cassette's Gemini interactions are taken.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import orjson

from gemini_emulator.captures.format import Capture, Exchange, load_dir
from gemini_emulator.captures.importers import (
    fixture_exchange,
    httprr_exchange,
    js_genai_exchange,
    reconstructed_request,
    split_httprr,
    vcr_exchange,
    vcr_interactions,
    vcr_recorded_date,
)
from gemini_emulator.protocol import framing, printers
from gemini_emulator.wire import catalogue

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
CAPTURES = ROOT / "captures"

SOURCES: dict[str, dict[str, str]] = {
    "google-adk-go": {
        "source": "google/adk-go",
        "commit": "0a51e153ad5a72ad8a003c5c0ef8d8e98f88139e",
        "licence": "Apache-2.0",
    },
    "tmc-langchaingo": {
        "source": "tmc/langchaingo",
        "commit": "8fea3de63675b901cf7a2cdc435c204cb7a93643",
        "licence": "MIT",
    },
    "googleapis-js-genai": {
        "source": "googleapis/js-genai",
        "commit": "6e9b35c45e21f0d37179a24d29dca01ebed698e6",
        "licence": "Apache-2.0",
    },
    "firebase-vertexai-sdk-test-data": {
        "source": "FirebaseExtended/vertexai-sdk-test-data",
        "commit": "2d6adfde6a9ab79867347fd1f9dfeaccf1c9e3d9",
        "licence": "Apache-2.0",
    },
    "pydantic-ai": {
        "source": "pydantic/pydantic-ai",
        "commit": "4fda38988f2939fa6ea9cdefcf120693e10ef491",
        "licence": "MIT",
    },
    "mirascope-py": {
        "source": "Mirascope/mirascope",
        "commit": "41d433578653411dbff96c6eaca4fa869aafc931",
        "licence": "MIT",
    },
}
FIREBASE_DATE = "2026-04-27"  # the pinned commit's date: the fixtures carry no recording date

# --- httprr traces: every one; names for what they show ------------------------------------------------

# Trace file stem -> (capture name, what it shows). Auth is what the exchange needs to reproduce (the
# recorded credential was scrubbed upstream): an API key unless said otherwise.
HTTPRR: dict[str, tuple[str, str]] = {
    # google/adk-go: 2026 Developer API, gemini-2.5-flash / 3.x
    "TestModel_Generate_ok": ("developer/unary-minimal", "One-word answer, unary: the minimal 2026 envelope"),
    "TestModel_GenerateStream_ok": ("developer/sse-minimal", "One-word answer streamed as a single SSE event"),
    "TestModel_TrackingHeaders_verifies_headers_are_set_vertex_disabled": (
        "developer/unary-tracking-headers",
        "Unary answer to a client sending its tracking headers",
    ),
    "TestModel_TrackingHeaders_verifies_headers_are_set_vertex_enabled": (
        "errors/vertex-express-credentials-missing",
        "Vertex express URL without an OAuth token: 401 UNAUTHENTICATED, CREDENTIALS_MISSING, Www-Authenticate",
    ),
    "TestLLMAgent_healthy_backend": ("developer/unary-agent-answer", "Unary answer with a system instruction"),
    "TestLLMAgentStreamingModeSSE": (
        "developer/sse-thought-summaries",
        "SSE stream of 19 events: thought summaries first, then the answer; usage on every chunk",
    ),
    "TestA2ARemoteAgentStreamingGeminiSuccess": ("developer/sse-long-answer", "A long answer streamed in 11 events"),
    "TestA2ARemoteAgentStreamingGeminiError": ("developer/sse-long-answer-2", "A long answer streamed in 12 events"),
    "TestA2ASingleHopFinalResponse_llm_mid-response_error": (
        "developer/sse-two-events",
        "A short answer streamed in 2 events",
    ),
    "TestA2ASingleHopFinalResponse_llm_mid-response_error_response": (
        "developer/sse-four-events",
        "An answer streamed in 4 events",
    ),
    "TestFunctionTool": (
        "conversations/function-call-round-trip",
        "Function call (id, thoughtSignature, finishMessage) and the answer to its response",
    ),
    "TestFunctionTool_Simple": ("conversations/function-tool-three-turns", "Three turns of a function tool loop"),
    "TestParallelAgentWithTools_agent1": ("conversations/parallel-agent-1", "Agent with tools, first of two"),
    "TestParallelAgentWithTools_agent2": ("conversations/parallel-agent-2", "Agent with tools, second of two"),
    "TestToolCallback_after_callback_response_used": ("conversations/tool-callback-after", "Tool loop, 2 turns"),
    "TestToolCallback_after_callback_returned_when_used_with_before_callback": (
        "conversations/tool-callback-after-with-before",
        "Tool loop, 2 turns",
    ),
    "TestToolCallback_before_callback_response_used": ("conversations/tool-callback-before", "Tool loop, 2 turns"),
    "TestToolCallback_both_callbacks_return_nil_actual_tool_is_executed": (
        "conversations/tool-callback-none",
        "Tool loop, 2 turns",
    ),
    "TestToolCallback_extra_after_callback_skipped": ("conversations/tool-callback-extra-after", "Tool loop, 2 turns"),
    "TestToolCallback_extra_before_callback_skipped": (
        "conversations/tool-callback-extra-before",
        "Tool loop, 2 turns",
    ),
    "TestParallelFunctionCalls_test_parallel_function_calls_gemini-2.5-flash": (
        "conversations/parallel-function-calls-sse-gemini-2.5-flash",
        "Parallel function calls streamed over SSE, and the answers to their responses",
    ),
    "TestParallelFunctionCalls_test_parallel_function_calls_gemini-3-flash-preview": (
        "conversations/parallel-function-calls-sse-gemini-3-flash",
        "Parallel function calls streamed over SSE (Gemini 3: ids, signatures, empty final text part)",
    ),
    "TestParallelFunctionCalls_test_parallel_function_calls_gemini-3.1-pro-preview": (
        "conversations/parallel-function-calls-sse-gemini-3.1-pro",
        "Parallel function calls streamed over SSE (Gemini 3.1 Pro)",
    ),
    "TestPluginCallbackIntegration_agent_tool_default_schema": (
        "conversations/unexpected-tool-call",
        "Unary and SSE turns, one ending in finishReason UNEXPECTED_TOOL_CALL with no content",
    ),
    "TestPluginCallbackIntegration_no_relevant_tools": (
        "developer/unary-text-with-signature",
        "Unary text answer whose part carries a thoughtSignature",
    ),
    "TestPluginCallbackIntegration_transfer_to_agent_tool": ("conversations/transfer-to-agent", "Tool loop, 2 turns"),
    "TestMCPToolSet": ("conversations/mcp-toolset", "MCP tool loop, 2 turns"),
    "TestMCPToolSetConfirmation_Conditional_Confirmation_Not_Required": (
        "conversations/mcp-confirmation-conditional-not-required",
        "MCP tool loop, 2 turns",
    ),
    "TestMCPToolSetConfirmation_Conditional_Confirmation_Not_Required_For_This_Tool": (
        "conversations/mcp-confirmation-conditional-not-required-for-tool",
        "MCP tool loop, 2 turns",
    ),
    "TestMCPToolSetConfirmation_Conditional_Confirmation_Required": (
        "conversations/mcp-confirmation-conditional-required",
        "MCP tool call awaiting confirmation",
    ),
    "TestMCPToolSetConfirmation_Conditional_Confirmation_Required_For_This_Tool": (
        "conversations/mcp-confirmation-conditional-required-for-tool",
        "MCP tool call awaiting confirmation",
    ),
    "TestMCPToolSetConfirmation_Conditional_Confirmation_Required_and_is_confirmed": (
        "conversations/mcp-confirmation-conditional-confirmed",
        "MCP tool loop, 2 turns",
    ),
    "TestMCPToolSetConfirmation_Conditional_Confirmation_Required_and_is_rejected": (
        "conversations/mcp-confirmation-conditional-rejected",
        "MCP tool loop, 2 turns",
    ),
    "TestMCPToolSetConfirmation_Confirmation_Required": (
        "conversations/mcp-confirmation-required",
        "MCP tool call awaiting confirmation",
    ),
    "TestMCPToolSetConfirmation_Confirmation_Required_and_is_confirmed": (
        "conversations/mcp-confirmation-confirmed",
        "MCP tool loop, 2 turns",
    ),
    "TestMCPToolSetConfirmation_Confirmation_Required_and_is_rejected": (
        "conversations/mcp-confirmation-rejected",
        "MCP tool loop, 2 turns",
    ),
    "TestMCPToolSetConfirmation_No_Confirmation_Required": (
        "conversations/mcp-no-confirmation",
        "MCP tool loop, 2 turns",
    ),
    **{
        f"TestDelegation_{n}": (f"conversations/gemini-3.5-delegation-{slug}", f"Gemini 3.5 agent delegation: {what}")
        for n, slug, what in (
            ("01_ChatToTaskToTool", "chat-task-tool", "chat to task to tool"),
            ("02_ChatToTwoTaskSequential", "two-tasks-sequential", "two tasks in sequence"),
            ("03_ChatToSingleTurn", "single-turn", "a single-turn sub-agent (turnToken)"),
            ("04_ChatToTwoSingleTurnParallel", "two-single-turn-parallel", "two single-turn sub-agents"),
            ("05_ChatChainedThroughChatToTask", "chained", "chat chained through chat to task"),
            ("06_ChatToTaskHITLResume", "hitl-resume", "human-in-the-loop resume"),
            ("07_ChatToTaskValidationRetry", "validation-retry", "validation retry"),
            ("08_ChatToTaskPlusFunctionTool", "task-plus-tool", "task plus a function tool"),
            ("09_ChatPeerTransferAcrossSiblings", "peer-transfer", "peer transfer across siblings"),
            ("11_ChatToSingleTurnChainedTools", "chained-tools", "single turn with chained tools"),
        )
    },
    # tmc/langchaingo: 2025-08 Go GAPIC REST client ($alt=json;enum-encoding=int: enums as numbers)
    "TestGoogleAICall": ("developer/int-enums-unary", "Unary answer with integer enums (GAPIC client)"),
    "TestGoogleAIGenerateContent": ("developer/int-enums-unary-2", "Unary answer with integer enums"),
    "TestLLMChainWithGoogleAI": ("developer/int-enums-unary-chain", "Unary answer with integer enums"),
    "TestGoogleAIWithOptions": ("developer/int-enums-generation-options", "Unary answer to generation options"),
    "TestGoogleAIWithHarmThreshold": ("developer/int-enums-safety-settings", "Unary answer to safety thresholds"),
    "TestGoogleAIWithJSONMode": ("developer/structured-output-json-mode", "JSON mode (responseMimeType)"),
    "TestGoogleAIWithTools": ("developer/function-call-int-enums", "Function call with integer enums"),
    "TestGoogleAIMultiModalContent": ("developer/multimodal-inline-image", "Inline image in the request"),
    "TestGoogleAIWithStreaming": ("developer/json-array-stream", "JSON-array stream of 13 elements (no alt=sse)"),
    "TestGoogleAIGenerateContentWithMultipleMessages": (
        "developer/json-array-stream-multiple-messages",
        "JSON-array stream answering a multi-turn history",
    ),
    "TestGoogleAIGenerateContentWithSystemMessage": (
        "developer/json-array-stream-system-message",
        "JSON-array stream answering with a system instruction",
    ),
    "TestGoogleAIToolCallResponse": (
        "conversations/function-call-json-array",
        "Function call (unary), then the answer to its response as a JSON-array stream",
    ),
    "TestGoogleAICreateEmbedding": ("embeddings/batch-embed-contents", "batchEmbedContents: two embeddings"),
    "TestGoogleAIErrorHandling": (
        "errors/no-credential-unregistered-caller",
        "No API key: 403 PERMISSION_DENIED, unregistered callers, no details",
    ),
}
AUTH_NONE = {"TestModel_TrackingHeaders_verifies_headers_are_set_vertex_enabled", "TestGoogleAIErrorHandling"}
# Hand-edited upstream (tests/protocol/test_printers_bytes.py): exchange -> (edited bytes, what production sends).
HTTPRR_EDITS = {("TestPluginCallbackIntegration_transfer_to_agent_tool", 1): (b"\n  }\n", b"\n}\n")}

# --- Firebase AI Logic mock responses ---------------------------------------------------------------------

FIREBASE_DIR = "firebase-vertexai-sdk-test-data/mock-responses"
# file -> (capture name, what it shows). Requests are reconstructed on the Firebase URL families.
FIREBASE: dict[str, tuple[str, str]] = {
    "googleai/streaming-success-basic-reply-short.txt": ("firebase/developer-sse-short", "Short answer, 3 events"),
    "googleai/streaming-success-basic-reply-long.txt": ("firebase/developer-sse-long", "Long answer, 36 events"),
    "googleai/streaming-success-citations.txt": ("firebase/developer-sse-citations", "citationMetadata in a stream"),
    "googleai/streaming-success-code-execution.txt": (
        "firebase/developer-sse-code-execution",
        "executableCode and codeExecutionResult parts, toolUsePromptTokenCount",
    ),
    "googleai/streaming-success-empty-parts.txt": ("firebase/developer-sse-image-output", "inlineData image parts"),
    "googleai/streaming-success-thinking-reply-thought-summary.txt": (
        "firebase/developer-sse-thinking",
        "Thought summaries (thought: true) then the answer",
    ),
    "googleai/streaming-success-thinking-function-call-thought-summary-signature.txt": (
        "firebase/developer-sse-thinking-function-call",
        "Thought summary, then a function call carrying a thoughtSignature",
    ),
    "googleai/streaming-failure-prompt-blocked-safety.txt": (
        "firebase/developer-sse-prompt-blocked",
        "Prompt blocked: promptFeedback.blockReason, no candidates",
    ),
    "googleai/unary-success-basic-reply-short.json": ("firebase/developer-unary-short", "Short unary answer"),
    "googleai/unary-success-code-execution.json": ("firebase/developer-unary-code-execution", "Code execution"),
    "googleai/unary-success-google-search-grounding.json": (
        "firebase/developer-unary-search-grounding",
        "groundingMetadata with searchEntryPoint HTML (< and > escaped)",
    ),
    "googleai/unary-success-url-context.json": ("firebase/developer-unary-url-context", "urlContextMetadata"),
    "googleai/unary-success-thinking-reply-thought-summary.json": (
        "firebase/developer-unary-thinking",
        "Thought summary part and thoughtsTokenCount",
    ),
    "googleai/unary-success-thinking-function-call-thought-summary-signature.json": (
        "firebase/developer-unary-thinking-function-call",
        "Function call with a thoughtSignature after a thought summary",
    ),
    "googleai/unary-failure-finish-reason-safety.json": (
        "firebase/developer-unary-finish-safety",
        "finishReason SAFETY with safety ratings",
    ),
    "googleai/unary-failure-only-prompt-feedback.json": (
        "firebase/developer-unary-only-prompt-feedback",
        "candidates: [] and promptFeedback only",
    ),
    "googleai/unary-failure-with-message-no-content.json": (
        "firebase/developer-unary-finish-other-message",
        "finishReason OTHER with a finishMessage and no content",
    ),
    "googleai/unary-failure-api-key.json": ("errors/api-key-invalid", "Bad API key: 400 API_KEY_INVALID"),
    "googleai/unary-failure-generativelanguage-api-not-enabled.json": (
        "errors/service-disabled",
        "API not enabled for the project: 403 SERVICE_DISABLED with Help links",
    ),
    "googleai/unary-failure-unknown-model.json": ("errors/unknown-model", "Unknown model on v1: 404 NOT_FOUND"),
    "googleai/streaming-failure-image-rejected.txt": ("errors/invalid-argument", "400 INVALID_ARGUMENT, no details"),
    "vertexai/streaming-success-basic-reply-short.txt": ("firebase/vertex-sse-short", "Vertex answer in one event"),
    "vertexai/streaming-success-basic-reply-long.txt": (
        "firebase/vertex-sse-long",
        "Vertex stream: createTime, usageMetadata {trafficType} until the last chunk",
    ),
    "vertexai/streaming-success-code-execution.txt": ("firebase/vertex-sse-code-execution", "Vertex code execution"),
    "vertexai/streaming-success-thinking-reply-thought-summary.txt": (
        "firebase/vertex-sse-thinking",
        "Vertex thought summaries",
    ),
    "vertexai/streaming-failure-prompt-blocked-safety.txt": (
        "firebase/vertex-sse-prompt-blocked",
        "Vertex prompt blocked in a stream",
    ),
    "vertexai/streaming-failure-empty-content.txt": (
        "firebase/vertex-sse-empty-content",
        "A candidate with an empty content object",
    ),
    "vertexai/streaming-failure-error-mid-stream.txt": (
        "errors/mid-stream-cancelled",
        "Two events, then production's raw error tail: 499 CANCELLED",
    ),
    "vertexai/unary-success-basic-reply-short.json": ("firebase/vertex-unary-short", "Vertex unary answer"),
    "vertexai/unary-success-constraint-decoding-json.json": (
        "firebase/vertex-unary-structured-output",
        "Constrained JSON decoding: the answer text is JSON",
    ),
    "vertexai/unary-success-function-call-with-arguments.json": (
        "firebase/vertex-unary-function-call",
        "A function call with arguments",
    ),
    "vertexai/unary-success-function-call-parallel-calls.json": (
        "firebase/vertex-unary-parallel-function-calls",
        "Parallel function calls",
    ),
    "vertexai/unary-success-function-call-empty-arguments.json": (
        "firebase/vertex-unary-function-call-empty-args",
        "A function call with args {}",
    ),
    "vertexai/unary-success-implicit-caching.json": (
        "firebase/vertex-unary-implicit-caching",
        "cachedContentTokenCount, not added to the total",
    ),
    "vertexai/unary-success-thinking-reply-thought-summary.json": ("firebase/vertex-unary-thinking", "Vertex thinking"),
    "vertexai/unary-success-code-execution.json": ("firebase/vertex-unary-code-execution", "Vertex code execution"),
    "vertexai/unary-failure-prompt-blocked-safety.json": ("firebase/vertex-unary-prompt-blocked", "Prompt blocked"),
    "vertexai/unary-failure-prompt-blocked-safety-with-message.json": (
        "firebase/vertex-unary-prompt-blocked-message",
        "Prompt blocked with a blockReasonMessage",
    ),
    "vertexai/unary-success-total-tokens.json": (
        "count-tokens/vertex-total-billable-characters",
        "Vertex countTokens: totalTokens and totalBillableCharacters",
    ),
    "vertexai/unary-success-no-billable-characters.json": (
        "count-tokens/vertex-no-billable-characters",
        "Vertex countTokens without totalBillableCharacters",
    ),
    "vertexai/unary-failure-quota-exceeded.json": (
        "errors/quota-exceeded-2024",
        "429 RESOURCE_EXHAUSTED, the 2024 form (ErrorInfo RATE_LIMIT_EXCEEDED, Help)",
    ),
    "vertexai/unary-failure-unsupported-user-location.json": (
        "errors/user-location-unsupported",
        "400 FAILED_PRECONDITION: user location not supported",
    ),
    "vertexai/unary-failure-iam-permission-denied.json": (
        "errors/iam-permission-denied",
        "403 PERMISSION_DENIED, IAM_PERMISSION_DENIED",
    ),
    "vertexai/unary-failure-firebasevertexai-api-not-enabled.json": (
        "errors/firebase-api-not-enabled",
        "403 SERVICE_DISABLED for firebasevertexai.googleapis.com",
    ),
    "vertexai/unary-failure-image-rejected.json": (
        "errors/invalid-argument-debug-info",
        "400 INVALID_ARGUMENT with a DebugInfo",
    ),
    "vertexai/unary-failure-model-not-found.json": (
        "errors/unknown-model-count-tokens",
        "countTokens on an unknown model: 404 with one DebugInfo",
    ),
    "vertexai/unary-failure-invalid-location-url-not-found.html": (
        "errors/html-404-invalid-location",
        "An invalid location: Google's HTML 404 page, not JSON",
    ),
}
FIREBASE_PROJECT = "my-project-id"  # the project name the fixtures' own texts use
# Errors whose request is evident from the message: (path, query) reconstructed from it.
FIREBASE_REQUESTS = {
    "googleai/unary-failure-unknown-model.json": "/v1/models/gemini-5.0-flash:generateContent",
    "vertexai/unary-failure-model-not-found.json": "/v1beta/models/test-model-name:countTokens",
    "vertexai/unary-failure-invalid-location-url-not-found.html": (
        "/v1beta/projects/my-project-id/locations/invalid-location/publishers/google/models/"
        "gemini-1.5-flash:generateContent"
    ),
}

# --- js-genai recordings (re-serialised): what no byte-exact capture shows -------------------------------

JS_GENAI_DIR = "googleapis-js-genai/test/system/recordings"
JS_GENAI: dict[str, tuple[str, str]] = {
    "Client_Tests_countTokens_ML_Dev_should_count_tokens_with_specified_parameters": (
        "count-tokens/developer",
        "Developer countTokens (contentTokens, systemInstructionsTokens, promptTokensDetails)",
    ),
    "Client_Tests_countTokens_Vertex_AI_should_count_tokens_with_specified_parameters": (
        "count-tokens/vertex",
        "Vertex countTokens (totalBillableCharacters)",
    ),
    "Client_Tests_computeTokens_Vertex_AI_should_compute_tokens_with_specified_parameters": (
        "count-tokens/vertex-compute-tokens",
        "Vertex computeTokens: token ids as strings, tokens in base64",
    ),
    "Client_Tests_embedContent_Vertex_AI_should_embed_content_with_specified_parameters": (
        "embeddings/vertex-predict",
        "Vertex embeddings through :predict (snake_case statistics)",
    ),
    "Client_Tests_generateContent_Vertex_AI_should_generate_content_with_system_instruction": (
        "vertex/unary-system-instruction",
        "Vertex unary answer (createTime, trafficType, billablePromptUsage)",
    ),
    "Client_Tests_generateContentStream_Vertex_AI_should_stream_generate_content_with_system_instruction": (
        "vertex/sse-system-instruction",
        "Vertex SSE stream",
    ),
    "Client_Tests_generateContentStream_ML_Dev_should_stream_generate_content_with_system_instruction": (
        "developer/sse-system-instruction-2025",
        "Developer SSE stream (2025-10)",
    ),
    "Client_Tests_generateContent_Vertex_AI_should_generate_content_with_given_valid_json_schema_in_responseSchema": (
        "vertex/structured-output-response-schema",
        "Vertex structured output from a responseSchema",
    ),
    "Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseSchema": (
        "developer/structured-output-response-schema",
        "Developer structured output from a responseSchema",
    ),
    "Chats_Tests_chats_function_calling_Vertex_AI_with_function_calling": (
        "vertex/function-call-round-trip",
        "Vertex chat with a function call and its response",
    ),
    "Chats_Tests_sendMessage_Send_message_stream_with_error": (
        "errors/unknown-model-stream",
        "404 on an alt=sse call: a plain error body served as text/event-stream",
    ),
}


# --- VCR cassettes (pydantic-ai, Mirascope): the telling ones ----------------------------------------------

_PYD = "tests/models/cassettes/test_google/"
# (corpus folder, path in it) -> (capture name, what it shows). Only the Gemini interactions are imported.
VCR: dict[tuple[str, str], tuple[str, str]] = {
    ("pydantic-ai", _PYD + "test_google_tool_config_any_with_tool_without_args.yaml"): (
        "conversations/vcr-any-mode-tool-without-arguments",
        "Mode ANY, a tool declared with an empty OBJECT: called (200), and called again after its result",
    ),
    ("pydantic-ai", _PYD + "test_google_model_thinking_part_from_other_model.yaml"): (
        "conversations/vcr-empty-object-parameters",
        "Function declarations whose parameters are an OBJECT with no properties, answered 200",
    ),
    (
        "pydantic-ai",
        "tests/models/cassettes/test_tool_choice_matrix/test_tool_choice_matrix[tools_plus_output-google].yaml",
    ): (
        "conversations/vcr-any-mode-final-result",
        "Mode ANY after a tool result: the final_result output tool is called",
    ),
    (
        "pydantic-ai",
        "tests/models/google/cassettes/test_structured_output/test_native_output_with_function_tools.yaml",
    ): (
        "conversations/vcr-json-after-tool-result",
        "responseMimeType application/json with a schema: the answer to a tool result is JSON",
    ),
    (
        "pydantic-ai",
        "tests/cassettes/test_tool_search/"
        "test_cross_provider_capability_replay[openai-responses-gpt-5.4-google-gemini-3-flash-preview].yaml",
    ): (
        "conversations/vcr-consecutive-call-turns",
        "user, model(call), model(call), user(two responses): answered 200 by gemini-3-flash-preview",
    ),
    ("pydantic-ai", _PYD + "test_google_vertex_tool_combination_omits_include_server_side_tool_invocations.yaml"): (
        "vertex/vcr-tool-combination-2026",
        "Vertex 2026-07: an empty JSON Schema object as parameters, a call without id or finishMessage, grounding",
    ),
    (
        "pydantic-ai",
        "tests/models/cassettes/test_multimodal_tool_returns/"
        "test_multimodal_tool_return_matrix[direct-uploaded_file-audio-google_vertex].yaml",
    ): (
        "vertex/vcr-function-call-round-trip-2026",
        "Vertex 2026-03 tool loop (gemini-3-flash-preview): avgLogprobs, no billablePromptUsage, no call id",
    ),
    ("pydantic-ai", _PYD + "test_google_vertex_service_tier_flex_stream.yaml"): (
        "vertex/vcr-sse-2026",
        "Vertex 2026-03 SSE stream: no avgLogprobs, no billablePromptUsage",
    ),
    ("pydantic-ai", "tests/cassettes/test_embeddings/test_google_task_prefix[default-query].yaml"): (
        "embeddings/vcr-gemini-embedding-2-batch",
        "gemini-embedding-2 batchEmbedContents: usageMetadata {promptTokenCount, promptTokenDetails}",
    ),
    ("pydantic-ai", "tests/cassettes/test_embeddings/test_google_task_prefix_vertex.yaml"): (
        "embeddings/vcr-vertex-embed-content",
        "Vertex embedContent on gemini-embedding-2: usageMetadata with promptTokensDetails",
    ),
    ("pydantic-ai", "tests/cassettes/test_embeddings/TestGoogle.test_embed_error.yaml"): (
        "errors/vcr-unknown-model-batch-embed",
        "batchEmbedContents on an unknown model: 404 'not supported for embedContent', no details",
    ),
    ("pydantic-ai", "tests/cassettes/test_model_name_suggestions/test_model_name_suggestion[google].yaml"): (
        "errors/vcr-unknown-model-2026",
        "Unknown model (gemini-3.6-flahs): 404, 'Call ModelService.ListModels', no details",
    ),
    ("mirascope-py", "python/tests/e2e/input/cassettes/test_model_not_found/google_gemini_2_5_flash.yaml"): (
        "errors/vcr-unknown-model-2025",
        "Unknown model, 2025-12: 404, 'Call ListModels', no details",
    ),
    ("mirascope-py", "python/tests/e2e/input/cassettes/test_call_with_empty_string/google_gemini_2_5_flash.yaml"): (
        "developer/vcr-empty-text-prompt",
        "An empty-text prompt: promptTokenCount 1",
    ),
    ("mirascope-py", "python/tests/e2e/input/cassettes/test_caching_tool/google_gemini_2_5_flash.yaml"): (
        "conversations/vcr-tool-without-arguments-2025",
        "2025-12 Developer requests declaring a no-argument tool (empty OBJECT), answered 200",
    ),
    ("mirascope-py", "python/tests/e2e/output/cassettes/test_call/google_gemini_2_5_flash/async_stream.yaml"): (
        "developer/vcr-sse-2025",
        "A 2025 Developer SSE stream, bodies as recorded",
    ),
}
VCR_FIDELITY = {"pydantic-ai": "re-serialised", "mirascope-py": "verbatim-fixture"}
_GEMINI_HOSTS = ("generativelanguage.googleapis.com", "aiplatform.googleapis.com")


def import_vcr() -> list[Capture]:
    out = []
    for (folder, rel), (name, description) in VCR.items():
        interactions = vcr_interactions((CORPUS / folder / rel).read_bytes())
        exchanges, dates = [], []
        for interaction in interactions:
            host = interaction.uri.split("/")[2]
            if not host.endswith(_GEMINI_HOSTS) or ":" not in interaction.uri.rsplit("/", 1)[-1]:
                continue
            vertex = host.endswith("aiplatform.googleapis.com")
            exchanges.append(vcr_exchange(interaction, "bearer" if vertex else "api-key"))
            dates.append(vcr_recorded_date(interaction))
        known = [d for d in dates if d]
        recorded = min(known) if known else "undated (the recorder kept no Date header)"
        provenance = _provenance(folder, rel, recorded, VCR_FIDELITY[folder], [])
        out.append(Capture(name, description, provenance, exchanges))
    return out


def _provenance(folder: str, path: str, recorded: str, fidelity: str, edits: list[str]) -> dict[str, Any]:
    source = SOURCES[folder]
    out: dict[str, Any] = {
        "source": source["source"],
        "path": path,
        "commit": source["commit"],
        "licence": source["licence"],
        "recorded": recorded,
        "fidelity": fidelity,
    }
    if edits:
        out["edits"] = edits
    return out


def import_httprr() -> list[Capture]:
    out = []
    for folder in ("google-adk-go", "tmc-langchaingo"):
        for path in sorted((CORPUS / folder).rglob("*.httprr")):
            stem = path.stem
            name, description = HTTPRR[stem]
            auth_default = "none" if stem in AUTH_NONE else "api-key"
            exchanges: list[Exchange] = []
            dates: list[str] = []
            edits: list[str] = []
            for i, (req, resp) in enumerate(split_httprr(path.read_bytes())):
                fix = HTTPRR_EDITS.get((stem, i))
                if fix is not None:
                    assert resp.endswith(fix[0]), (stem, i)
                    resp = resp[: -len(fix[0])] + fix[1]
                    edits.append(
                        f"exchange {i}: closing brace indented by hand upstream ({fix[0]!r}); {fix[1]!r} restored"
                    )
                exchange, date = httprr_exchange(req, resp, auth_default)
                exchanges.append(exchange)
                dates.append(date)
            rel = path.relative_to(CORPUS / folder).as_posix()
            fidelity = "edited" if edits else "byte-exact"
            out.append(Capture(name, description, _provenance(folder, rel, min(dates), fidelity, edits), exchanges))
    return out


def _servable(model: str) -> str:
    """The fixture's model when the catalogue serves it, else a stand-in (the request was not recorded)."""
    return model if model in catalogue.load().models else "gemini-2.5-flash"


def _firebase_path(file: str, data: bytes) -> tuple[str, str]:
    if file in FIREBASE_REQUESTS:
        return FIREBASE_REQUESTS[file], ""
    stream = Path(file).name.startswith("streaming-")
    method = "streamGenerateContent" if stream else "generateContent"
    if "total-tokens" in file or "billable-characters" in file:
        method = "countTokens"
    found = re.search(rb'"modelVersion": "([^"]+)"', data)
    model = _servable(found.group(1).decode() if found else "gemini-2.5-flash")
    if file.startswith("googleai/"):
        path = f"/v1beta/projects/{FIREBASE_PROJECT}/models/{model}:{method}"
    else:
        path = f"/v1beta/projects/{FIREBASE_PROJECT}/locations/us-central1/publishers/google/models/{model}:{method}"
    return path, "alt=sse" if stream else ""


def _reprinted(data: bytes) -> tuple[bytes, list[str]]:
    """The fixture's bytes as production frames them, and what had to change (nothing for verbatim files)."""
    if data.startswith(b"<"):
        return data, []
    if data.startswith(b"data: "):
        text = data.replace(b"\r\n", b"\n")
        events, tail = text.split(b"\n\n"), b""
        if not events[-1].startswith(b"data: "):
            tail = events.pop()
        payloads = [orjson.loads(e[6:]) for e in events if e.strip()]
        body = b"".join(framing.sse_event(p) for p in payloads)
        if tail.strip():
            body += printers.pretty(orjson.loads(tail))
        edits = []
        if b"\r\n" not in data:
            edits.append("SSE separators re-typed by hand upstream (LF only); production's CRLF framing restored")
        elif body != data and body == data + b"\r\n":
            edits.append("final blank line lost upstream; restored")
        elif body != data:
            edits.append("events re-printed in production's one-line form")
        return body, edits
    body = printers.pretty(orjson.loads(data))
    if body == data:
        return body, []
    if body.rstrip(b"\n") == data.rstrip(b"\n"):
        return body, [f"the file ends {data[-2:]!r} (an editor's); production's single trailing newline restored"]
    return body, ["re-printed in production's pretty form (the file was hand-formatted)"]


def import_firebase() -> list[Capture]:
    out = []
    for file, (name, description) in FIREBASE.items():
        data = (CORPUS / FIREBASE_DIR / file).read_bytes()
        body, edits = _reprinted(data)
        if b"key1234" in data:
            edits.append("the API key in DebugInfo is a placeholder ('key1234'), not production's echo of a key")
        path, query = _firebase_path(file, data)
        exchange = fixture_exchange(body, reconstructed_request(path, query, f"(not recorded: the request of {name})"))
        fidelity = "edited" if edits else "verbatim-fixture"
        rel = f"mock-responses/{file}"
        out.append(
            Capture(
                name,
                description,
                _provenance("firebase-vertexai-sdk-test-data", rel, FIREBASE_DATE, fidelity, edits),
                [exchange],
            )
        )
    return out


def import_js_genai() -> list[Capture]:
    out = []
    for stem, (name, description) in JS_GENAI.items():
        path = CORPUS / JS_GENAI_DIR / f"{stem}.json"
        recording = orjson.loads(path.read_bytes())
        exchanges, dates = [], []
        for interaction in recording["interactions"]:
            vertex = "/projects/" in interaction["request"]["url"]
            exchange, date = js_genai_exchange(interaction, "bearer" if vertex else "api-key")
            exchanges.append(exchange)
            dates.append(date)
        rel = f"test/system/recordings/{stem}.json"
        provenance = _provenance("googleapis-js-genai", rel, min(dates), "re-serialised", [])
        out.append(Capture(name, description, provenance, exchanges))
    return out


def curated() -> list[Capture]:
    captures = import_httprr() + import_firebase() + import_js_genai() + import_vcr()
    names = [c.name for c in captures]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, duplicates
    return sorted(captures, key=lambda c: c.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with captures/ instead of writing")
    parser.add_argument("--out", type=Path, default=CAPTURES, help="captures directory (default: captures/)")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(
            "the curated import reads the raw corpus ../shared/corpus, which is not beside this clone "
            f"(no folder {CORPUS}): put the shared folder beside the repo, as CI has it; captures/ as "
            "committed is what the tests use",
            file=sys.stderr,
        )
        return 2
    fresh = curated()
    if args.check:
        existing = {c.name: c.dumps() for c in load_dir(args.out)}
        wanted = {c.name: c.dumps() for c in fresh}
        stale = sorted(n for n in wanted.keys() | existing.keys() if wanted.get(n) != existing.get(n))
        extra = [n for n in stale if n not in wanted and not n.startswith("recorded/")]
        problems = [n for n in stale if n in wanted] + extra
        for name in problems:
            print(f"captures/{name}.json differs from a fresh import", file=sys.stderr)
        return 1 if problems else 0
    for capture in fresh:
        capture.write(args.out)
    print(f"{len(fresh)} captures, {sum(len(c.exchanges) for c in fresh)} exchanges written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
