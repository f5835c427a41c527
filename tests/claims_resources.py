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

# File search stores (the `fsearch` helper, issue 16)
CLAIMS_FILE_SEARCH = [
    Claim(
        "file-search-stores-crud",
        "POST|GET /{v}/fileSearchStores, GET|DELETE /{v}/fileSearchStores/{id}",
        "fileSearchStores create (name derived from the display name: [a-z0-9] cut at 27, a dash, 12 random), get, "
        "list in pages, delete; a store with documents is refused without force (400 FAILED_PRECONDITION 'Cannot "
        "delete non-empty FileSearchStore') and removed with force=True",
        (
            "tests/wire/resources/test_file_search.py::test_create_get_list_delete",
            "tests/wire/resources/test_file_search.py::test_upload_poll_documents_and_force_delete",
            "tests/stores/test_file_search_store.py",
        ),
        source="pydantic-ai cassettes test_google_model_file_search_*.yaml (production 2025-11, 2026-07); "
        "python-genai#1774 (the non-empty errors)",
    ),
    Claim(
        "file-search-upload",
        "POST /upload/{v}/fileSearchStores/{id}:uploadToFileSearchStore",
        "google-genai's upload_to_file_search_store: start answered with X-Goog-Upload-URL on the same path, the "
        "finalize answered final with the operation {name: .../upload/operations/D, response: "
        "UploadToFileSearchStoreResponse{parent, documentName, mimeType, sizeBytes}} and no done; polled through "
        "operations.get until done (sync and async); the document is then STATE_ACTIVE",
        (
            "tests/wire/resources/test_file_search.py::test_upload_poll_documents_and_force_delete",
            "tests/wire/resources/test_file_search.py::test_async_upload_and_poll",
            "tests/sdk/test_js_matrix.py::test_js_sdk[genai-file-search.test.mjs]",
        ),
        source="pydantic-ai cassettes (start and finalize); the poll's done answer is best-known",
        divergence="the operation's schedule (operation_delay_ms) is the emulator's",
    ),
    Claim(
        "file-search-import",
        "POST /{v}/fileSearchStores/{id}:importFile",
        "A Files API file imported as a document (ImportFileOperation polled until done, response parent and "
        "documentName); another key's or an unknown file is the Files API's 403",
        ("tests/wire/resources/test_file_search.py::test_import_a_files_api_file",),
        source="google-genai 3.6.1 file_search_stores.import_file; the answer's shape is best-known",
    ),
    Claim(
        "file-search-documents",
        "GET /{v}/fileSearchStores/{id}/documents[/{doc}], DELETE .../documents/{doc}",
        "Documents listed, got (name, displayName, customMetadata, updateTime, createTime, state, sizeBytes, "
        "mimeType) and deleted (force for one with chunks, else 'Cannot delete non-empty Document')",
        ("tests/wire/resources/test_file_search.py::test_upload_poll_documents_and_force_delete",),
        source="REST reference (Documents); python-genai#1774",
    ),
    Claim(
        "file-search-isolation",
        "fileSearchStores/*",
        "Another key's store is not visible: get, delete, documents, upload and a fileSearch tool naming it get "
        "403 PERMISSION_DENIED 'You do not have permission to access the FileSearchStore {id} or it may not exist.'",
        (
            "tests/wire/resources/test_file_search.py::test_another_key_sees_nothing",
            "tests/wire/resources/test_file_search_generate.py::test_unknown_and_other_keys_stores_are_refused",
        ),
        source="best-known: the Files API's wording (no capture of production's)",
        divergence="the wording is a guess",
    ),
    Claim(
        "file-search-grounding",
        "POST /{v}/models/{m}:generateContent|streamGenerateContent with tools[].fileSearch",
        "The answer draws on the stored documents (the best-matching sentences quoted) and groundingMetadata cites "
        "them: groundingChunks[].retrievedContext {title?, text, fileSearchStore, customMetadata?}, "
        "groundingSupports {segment (bytes, startIndex absent at 0), groundingChunkIndices}; on the last streamed "
        "chunk; toolUsePromptTokenCount in usage; a scripted text answer is grounded in the same chunks",
        (
            "tests/wire/resources/test_file_search_generate.py::test_the_answer_quotes_and_cites_the_document",
            "tests/wire/resources/test_file_search_generate.py::test_the_wire_spells_it_as_production",
            "tests/wire/resources/test_file_search_generate.py::test_streamed_the_last_chunk_carries_the_grounding",
            "tests/wire/resources/test_file_search_generate.py::test_a_scripted_answer_is_grounded_in_the_retrieved_chunks",
            "tests/wire/resources/test_file_search_generate.py::test_async_generate_is_grounded",
            "tests/sdk/test_js_matrix.py::test_js_sdk[genai-file-search.test.mjs]",
        ),
        source="pydantic-ai cassettes test_google_model_file_search_tool[_stream].yaml and "
        "..._grounding_gemini_3[True].yaml (key order, segments, usage)",
        divergence="retrieval is word overlap, not semantic; title's place is best-known",
    ),
    Claim(
        "file-search-metadata-filter",
        "tools[].fileSearch.metadataFilter",
        "A metadataFilter of AND-joined comparisons picks documents by their custom metadata; an unreadable one "
        "is a 400",
        ("tests/wire/resources/test_file_search_generate.py::test_a_metadata_filter_picks_documents",),
        source="best-known: the guide's filter examples (AIP-160 subset)",
        divergence="only comparisons joined by AND",
    ),
    Claim(
        "file-search-bad-requests",
        "fileSearchStores/*",
        "Malformed store, upload, import and document requests get a 4xx envelope (unknown names, mistyped "
        "values, bad force, bad chunking, forged upload ids), never a 5xx",
        (
            "tests/wire/resources/test_file_search.py::test_bad_requests_get_envelopes",
            "tests/wire/resources/test_file_search.py::test_bad_document_requests",
            "tests/fuzz/test_schemathesis.py",
        ),
        source="emulator hardening; field checks as validate.py does them",
    ),
    Claim(
        "file-search-cassettes-replay",
        "fileSearchStores/*, generateContent with fileSearch",
        "The four recorded production exchanges (create, resumable upload start and finalize, generate and stream "
        "with fileSearch, a second turn echoing server-side tool parts, delete with force=True) replayed against "
        "the emulator get the recorded statuses, upload headers, content types and key sets (key order for the "
        "raw streams); an uploaded document is searchable at once, as the cassettes need",
        ("tests/wire/resources/test_file_search_captures.py::test_the_cassette_replays_with_production_shapes",),
        source="pydantic-ai cassettes test_google_model_file_search_tool[_stream].yaml, "
        "..._grounding_gemini_3[True|False].yaml",
    ),
    Claim(
        "file-search-server-side-invocations",
        "generateContent with fileSearch and toolConfig.includeServerSideToolInvocations",
        "The answer reports the search as a toolCall part then a toolResponse part (toolType FILE_SEARCH, one "
        "8-character id, the thought signature first), an event each when streamed, then the text",
        (
            "tests/wire/resources/test_file_search_generate.py::test_server_side_invocations_as_the_gemini_3_capture_shows",
        ),
        source="pydantic-ai cassette test_google_model_file_search_grounding_gemini_3[True].yaml (raw stream)",
    ),
    Claim(
        "file-search-scripted-states",
        "PUT /__emulator/fileSearchStores/state",
        "A document can be made to fail (its operation done with the scripted error, the store's "
        "failedDocumentsCount) or stay STATE_PENDING (its operation held) until set STATE_ACTIVE",
        ("tests/wire/resources/test_file_search.py::test_scripted_document_states",),
        source="emulator scripting (the Files API's PUT /__emulator/files/state, for documents)",
        divergence="emulator-only admin endpoint",
    ),
]

# Files without bytes, Vertex batch prediction jobs, litellm and llama-index (the `resx` helper, issue 16)
CLAIMS_RESX = [
    Claim(
        "files-metadata-only-create",
        "POST /{v}/files",
        'The media.upload metadata URI makes a File record without bytes and answers {"file": File} with no '
        "sizeBytes and no sha256Hash; names, display names and MIME types are checked as for an upload",
        (
            "tests/wire/resources/test_files_create_register.py::test_metadata_only_create_makes_a_file_without_bytes",
            "tests/wire/resources/test_files_create_register.py::"
            "test_metadata_only_create_with_a_name_an_empty_body_and_refusals",
        ),
        source="best-known: the media.upload reference (metadata URI); no capture",
        divergence="production's handling of a metadata-only File is undocumented; the emulator keeps it usable",
    ),
    Claim(
        "files-register",
        "POST /{v}/files:register",
        'google-genai files.register_files: {"uris": [gs://...]} answered {"files": [File]} with source REGISTERED, '
        "in the API key's namespace; without a bearer token a 401 UNAUTHENTICATED CREDENTIALS_MISSING",
        (
            "tests/wire/resources/test_files_create_register.py::"
            "test_sdk_register_files_makes_registered_files_for_the_key",
            "tests/wire/resources/test_files_create_register.py::test_sdk_register_files_async",
            "tests/wire/resources/test_files_create_register.py::test_register_needs_an_oauth_token_and_gs_uris",
            "tests/wire/resources/test_files_create_register.py::test_a_registered_file_is_another_keys_403",
        ),
        source="google-genai 3.6.1 files.py (_register_files, register_files); RegisterFilesResponse type",
        divergence="Cloud Storage is not read: MIME type from the extension, no size or hash, empty bytes",
    ),
]

CLAIMS += [
    Claim(
        "vertex-batch-prediction-jobs",
        "POST|GET|DELETE /{v}/projects/{p}/locations/{l}/batchPredictionJobs[/{id}[:cancel]]",
        "google-genai in Vertex mode creates (Cloud Storage or BigQuery source), gets, lists (newest first, pages), "
        "cancels and deletes batch prediction jobs; JOB_STATE_* walk the namespace's batch schedule; a SUCCEEDED "
        "job's outputInfo names the destination",
        (
            "tests/wire/resources/test_prediction_jobs.py::test_gcs_job_walks_to_succeeded_with_output_info",
            "tests/wire/resources/test_prediction_jobs.py::test_bigquery_job_list_cancel_delete",
            "tests/wire/resources/test_prediction_jobs.py::"
            "test_a_failed_schedule_fails_the_job_and_another_key_sees_nothing",
            "tests/wire/resources/test_prediction_jobs.py::test_bad_creates_are_400s_and_keys_are_refused",
        ),
        source="best-known: google-genai 3.6.1 batches.py (_BatchJob_from_vertex); BatchPredictionJob reference",
        divergence="inputs in Cloud Storage/BigQuery are not read: no item is answered; outputInfo points at an "
        "empty destination",
    ),
]

CLAIMS += [
    Claim(
        "llama-index-files",
        "POST /upload/{v}/files, generateContent fileData, DELETE /{v}/files/{id}",
        "llama-index-llms-google-genai (file_mode=fileapi, http_options base_url) uploads an image through the Files "
        "API (resumable start, upload + finalize), sends it as fileData and deletes it; the emulator journals and "
        "answers each step",
        (
            "tests/sdk/test_py_extras.py::test_files_upload[llama-index-llms-google-genai (Python)]",
            "tests/sdk/test_py_extras.py::test_files_use[llama-index-llms-google-genai (Python)]",
            "tests/sdk/test_py_extras.py::test_files_delete[llama-index-llms-google-genai (Python)]",
        ),
        source="llama-index-llms-google-genai 0.11.3 utils.chat_message_to_gemini",
    ),
    Claim(
        "llama-index-cached-content",
        "generateContent with cachedContent",
        "llama-index GoogleGenAI(cached_content=NAME) sends cachedContent and reads the emulator's "
        "cachedContentTokenCount from usage (the cache made with google-genai)",
        ("tests/sdk/test_py_extras.py::test_cache_use[llama-index-llms-google-genai (Python)]",),
        source="llama-index-llms-google-genai 0.11.3 base.py (cached_content)",
    ),
    Claim(
        "litellm-context-caching",
        "GET|POST /v1beta/cachedContents, generateContent with cachedContent",
        "litellm 1.110.2 with api_base: a cache_control system message makes litellm list cachedContents, create one "
        "(the message as system_instruction) and generate with cachedContent; cached_tokens = cachedContentTokenCount",
        (
            "tests/sdk/test_py_extras.py::test_cache_create[litellm (Python)]",
            "tests/sdk/test_py_extras.py::test_cache_use[litellm (Python)]",
        ),
        source="litellm 1.110.2 vertex_ai_context_caching (collection_endpoint under api_base; 1.77.7-1.108.x could "
        "not: 1.77.7 raised, 1.106.12/1.108.0 built {api_base}/models/M:cachedContents)",
    ),
    Claim(
        "litellm-files",
        "POST /upload/v1beta/files, generateContent file_data, DELETE /v1beta/files/{id}",
        "litellm create_file(custom_llm_provider=gemini, api_base) speaks the resumable upload; a file part whose uri "
        "is on production's host goes out as file_data and resolves to the caller's file; file_delete deletes",
        (
            "tests/sdk/test_py_extras.py::test_files_upload[litellm (Python)]",
            "tests/sdk/test_py_extras.py::test_files_use[litellm (Python)]",
            "tests/sdk/test_py_extras.py::test_files_delete[litellm (Python)]",
        ),
        source="litellm 1.110.2 llms/gemini/files, vertex_ai/gemini/transformation.process_gemini_media",
        divergence="with the emulator's own http:// file uri litellm downloads the file as an image URL instead: "
        "name the file by production's uri",
    ),
    Claim(
        "batch-cancel-bodies",
        "POST .../batchPredictionJobs/{id}:cancel, POST /{v}/batches/{id}:cancel",
        "A cancel's body is the cancel request (name only): empty or {} accepted; not an object, unknown names or a "
        "mistyped name are the usual 400s (Vertex and Developer)",
        ("tests/wire/resources/test_prediction_jobs.py::test_a_malformed_cancel_body_is_a_400_on_a_real_job",),
        source="best-known: proto JSON transcoding of CancelBatchPredictionJobRequest / CancelBatchRequest",
    ),
    Claim(
        "file-search-media",
        "GET /{v}/fileSearchStores/{s}/media/{id}?alt=media",
        "An image document is kept whole; its retrieved chunks carry retrievedContext.mediaId "
        "(fileSearchStores/S/media/ID) and download_media serves its bytes with its MIME type (uploaded or "
        "imported); another key's store is the store's 403, a missing blob 404, no alt=media 400",
        (
            "tests/wire/resources/test_file_search_media.py::"
            "test_an_image_document_is_cited_with_its_media_and_downloads_whole",
            "tests/wire/resources/test_file_search_media.py::test_an_imported_image_keeps_its_bytes",
            "tests/wire/resources/test_file_search_media.py::test_another_keys_media_is_403_and_a_missing_blob_404",
        ),
        source="google-genai 3.6.1 file_search_stores.download_media (GET /{name=fileSearchStores/*/media/*}), "
        "types.RetrievedContext.media_id, tests/file_search_stores/test_multimodal_flow.py",
        divergence="best-known: blob id = document id, mediaId's key position, the 404 wording; images retrieved by "
        "their printable runs (no image understanding)",
    ),
]

RESOURCE_CLAIMS = [*CLAIMS, *CLAIMS_BATCHES, *CLAIMS_FILE_SEARCH, *CLAIMS_RESX]
