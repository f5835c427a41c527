"""Claims of the Gemini resources (issue 16): files, operations, cached contents, batches."""

from __future__ import annotations

from claim_type import Claim

# Claims proposed by the `files` helper (issue 16) for tests/claims.py; the lead merges them.

CLAIMS = [
    Claim(
        "operations-get",
        "GET /{v}/{...}/operations/{id}",
        "An operation is polled by its name under any parent; it prints name, metadata, done (left out while "
        "false), then response or error (a google.rpc.Status); done after its schedule, on read",
        (
            "tests/wire/resources/test_operations_room.py::test_sdk_polls_an_operation_until_done",
            "tests/wire/resources/test_operations_room.py::test_sdk_async_sees_an_error",
            "tests/stores/test_operations_store.py",
        ),
        source="google-genai 3.6.1 operations.py (Developer GET {operationName}); google.longrunning.Operation",
    ),
    Claim(
        "operations-isolation",
        "GET /{v}/operations/{id}",
        "Another key's operation is not found (404 NOT_FOUND)",
        ("tests/wire/resources/test_operations_room.py::test_another_key_cannot_see_it",),
        source="best-known: no capture of production's wording",
        divergence="the 404 wording 'Operation not found: {name}' is a guess",
    ),
]

CLAIMS += [
    Claim(
        "files-resumable-upload",
        "POST /upload/{v}/files",
        "The resumable upload as google-genai speaks it: start answered 200 with an empty text/plain body, "
        "X-Goog-Upload-Status active and X-Goog-Upload-URL (?upload_id=...&upload_protocol=resumable) on this host; "
        'chunks at offsets; the finalize answered final with a pretty {"file": File}',
        (
            "tests/wire/resources/test_files_room.py::test_resumable_by_hand_two_chunks_and_wrong_offsets",
            "tests/wire/resources/test_files_room.py::test_sdk_upload_from_a_path_in_chunks",
            "tests/wire/resources/test_files_room.py::test_sdk_upload_get_list_download_delete",
        ),
        source="a public transcript of google-genai 1.21.1's upload exchange with production (2025-06-24); "
        "google-genai 3.6.1 _api_client._upload_fd",
        divergence="uri and the upload URL name the emulator's host, not generativelanguage.googleapis.com",
    ),
    Claim(
        "files-file-shape",
        "GET /{v}/files/{id}",
        "A File prints name, displayName (when set), mimeType, sizeBytes (string), createTime, updateTime, "
        "expirationTime (48 h later, 9 digits), sha256Hash (base64 of the hex digest), uri, state, source",
        ("tests/stores/test_files_store.py::test_view_spells_fields_as_production",),
        source="production upload answers quoted in a public transcript (2025) and a REST tutorial (2024)",
    ),
    Claim(
        "files-permission",
        "GET|DELETE /{v}/files/{id}, generateContent fileData",
        "Another key's, a deleted or an unknown file: 403 PERMISSION_DENIED 'You do not have permission to access "
        "the File {id} or it may not exist.'",
        (
            "tests/wire/resources/test_files_room.py::test_another_key_gets_production_403_everywhere",
            "tests/wire/resources/test_file_uris.py::test_unknown_deleted_and_other_keys_files_are_production_403",
        ),
        source="issue threads quoting production (deprecated-generative-ai-js#236, python-genai#1218, "
        "dify-plugin-daemon#192)",
    ),
    Claim(
        "files-video-processing",
        "POST /upload/{v}/files",
        "A video is PROCESSING right after its upload, then ACTIVE; a file not ACTIVE is refused in generate",
        (
            "tests/wire/resources/test_files_room.py::test_a_video_is_processing_then_active",
            "tests/wire/resources/test_file_uris.py::test_a_processing_file_is_refused_until_active",
        ),
        source="a 2024 REST tutorial's upload answer (video, PROCESSING)",
        divergence="the 400 FAILED_PRECONDITION wording for a file not ACTIVE is best-known",
    ),
]

CLAIMS += [
    Claim(
        "files-other-clients",
        "POST /upload/{v}/files, generateContent fileData",
        "@google/genai 3 (Node) and langchain-google-genai upload or use files as production expects",
        (
            "tests/sdk/test_js_matrix.py::test_js_sdk[genai-files.test.mjs]",
            "tests/wire/resources/test_files_clients.py",
        ),
        source="the clients' own code paths (no capture of theirs)",
    ),
    Claim(
        "files-bounds",
        "POST /upload/{v}/files",
        "Uploads are streamed into storage: a raw upload past --max-body-bytes is stored; the byte budget refuses with "
        "429 and frees a refused upload's bytes; a stalled chunk is a 408 with final",
        (
            "tests/wire/resources/test_files_room.py::test_a_raw_upload_past_the_request_body_limit_is_streamed",
            "tests/wire/resources/test_files_room.py::test_the_byte_budget_refuses_with_429_and_frees_on_delete",
            "tests/wire/resources/test_files_room.py::test_a_stalled_upload_chunk_gets_408_and_its_bytes_are_freed",
        ),
        divergence="emulator bounds (budget, memory spill, 256 open sessions); production's 20 GB project quota "
        "answer is not captured",
    ),
]

# Claims for issue 16 (cached contents, batches), by the `batches` helper: Claim(...) entries for tests/claims.py.
# Test paths exist on main (commits 3d12550, d133841, bcda0f7, 23c0aa6).
CC = "tests/wire/resources/test_cached_contents.py::"
BT = "tests/wire/resources/test_batches.py::"

CLAIMS_BATCHES = (
    Claim(
        "cache-shape",
        "cachedContents create/get/list/patch/delete",
        "A cache prints name, model, createTime, updateTime, expireTime, displayName ('' when unset), "
        "usageMetadata.totalTokenCount and never its contents; createTime with 6 fractional digits, expireTime with 9; "
        "no ttl means one hour; delete and an empty list answer {}",
        (CC + "test_create_prints_production_fields", CC + "test_list_pages_update_and_delete"),
        source="pydantic-ai cassette test_cache/test_google_model_cached_content.yaml; public probe record 2026-09-07",
    ),
    Claim(
        "cache-usage",
        "generateContent / streamGenerateContent / countTokens with cachedContent",
        "promptTokenCount includes the cache; cachedContentTokenCount and cacheTokensDetails report it; the engine "
        "reads the cache's contents, systemInstruction and tools first",
        (
            CC + "test_generate_with_cache_counts_cached_tokens_and_the_engine_sees_the_cache",
            CC + "test_stream_with_cache_reports_cached_tokens_on_the_last_chunk",
            CC + "test_count_tokens_with_a_cache",
        ),
        source="pydantic-ai cassette (3512 cached of 3520); probe 03",
    ),
    Claim(
        "cache-refusals",
        "generateContent with cachedContent",
        "systemInstruction, tools or toolConfig beside a cache: 400 'CachedContent can not be used with "
        "GenerateContent request setting system_instruction, tools or tool_config...'; a missing, expired, deleted "
        "or other key's cache: 403 'CachedContent not found (or permission denied)' (Vertex: 404 'Not found: cache "
        "content metadata ID.'); another model: 400; below the model's minimum: 400 'Cached content is too small...'",
        (
            CC + "test_request_config_beside_a_cache_is_refused",
            CC + "test_deleted_and_other_keys_caches_are_403",
            CC + "test_an_expired_cache_is_gone",
            CC + "test_too_small_and_model_mismatch",
            CC + "test_vertex_create_use_and_404",
        ),
        source="probe 01/04/05/07; Firebase fixtures vertexai/unary-failure-*context-cache*; litellm#17696",
    ),
    Claim(
        "batch-operation-shape",
        "batchGenerateContent, asyncBatchEmbedContent, batches/{id}",
        "A job is an Operation {name: batches/ID, metadata: GenerateContentBatch (@type v1main), done, response}; "
        "state BATCH_STATE_PENDING -> RUNNING -> SUCCEEDED (or FAILED, CANCELLED, EXPIRED on the scheduled plan); "
        "results in metadata.output.inlinedResponses.inlinedResponses or output.responsesFile; list in operations",
        (
            BT + "test_inline_batch_walks_to_succeeded_with_the_same_answers_as_generate",
            BT + "test_scheduled_outcomes",
            BT + "test_file_batch_to_completion_with_the_result_file_downloaded",
        ),
        source="google-genai 3.6.1 batches.py (_BatchJob_from_mldev); ai.google.dev/api/batch-api",
        divergence="no capture of production batch traffic: every shape is best-known; item errors omit details "
        "(google-genai 3.6.1 types JobError.details as strings)",
    ),
    Claim(
        "batch-items-as-calls",
        "batchGenerateContent",
        "Each item is answered as a generateContent call would be (same script entries, engine, zero-config text "
        "and usage); a scripted error or a request production would refuse fails only its item",
        (
            BT + "test_items_are_scripted_like_calls_and_a_failed_item_has_its_error",
            BT + "test_cancel_a_held_job_before_the_engine_is_asked",
        ),
        source="emulator behaviour (docs/conformance.md, Batches)",
    ),
)

RESOURCE_CLAIMS = [*CLAIMS, *CLAIMS_BATCHES]
