"""Claims of issue 34 (phase 2): file search documents' upload sessions and operations, environments' upload
sessions, Vertex batch prediction jobs, models added at run time, the openai engine's tool-call ids and the replay
engine's conversation progress on the Redis store, shared by every process."""

from __future__ import annotations

from claim_type import Claim

_U = "tests/scaling/test_file_search_uploads_processes.py::"
_J = "tests/scaling/test_prediction_jobs_shared.py::"
_M = "tests/scaling/test_models_shared.py::"
_O = "tests/scaling/test_openai_ids_processes.py::"
_FO = "tests/scaling/test_file_search_operations_processes.py::"
_E = "tests/scaling/test_environment_uploads_processes.py::"
_R = "tests/scaling/test_replay_contract.py::"

SCALING_REST_CLAIMS: list[Claim] = [
    Claim(
        "redis-replay-progress-across-processes",
        "--engine replay (and replay script entries) on two serve --store redis://... processes",
        "a recorded conversation whose identical turns alternate between the processes gets the recorded answers"
        " in order; another caller starts from its beginning; an admin reset through either restarts it; the"
        " replay engine's and replay seams' suites pass on Redis; Redis unreachable is the 503 envelope",
        (
            _R + "test_a_conversation_whose_turns_alternate_between_processes_plays_in_order",
            _R + "test_redis_unreachable_is_the_503_envelope_for_a_replayed_request",
            _R + "test_identical_requests_replay_in_recorded_order",
            "tests/scaling/test_replay_seams_contract.py::test_the_admin_reset_restarts_a_callers_recorded_conversations",
            "tests/scaling/test_replay_seams_contract.py::test_count_tokens_gets_the_recorded_count_through_the_sdk",
        ),
        source="emulator-only (docs/scaling.md, The replay engine's conversation progress on Redis)",
    ),
    Claim(
        "redis-document-operations-across-processes",
        "fileSearchStores/S/operations/D and .../upload/operations/D on two serve --store redis://... processes",
        "an import started through one process is polled done (raw and by google-genai), listed and deleted"
        " through the other; an upload's operation is done at the first poll through either; the next document's"
        " state scripted through one holds or fails the operation of an upload or import through the other, held"
        " past its schedule through both until its document is released or failed by name through either; Redis"
        " unreachable is the 503 envelope for a poll and an import; the in-memory file search suite passes on Redis",
        (
            _FO + "test_an_import_started_on_one_process_is_polled_done_on_another",
            _FO + "test_scripted_states_hold_and_fail_operations_across_processes",
            _FO + "test_redis_unreachable_is_the_503_envelope_for_a_poll_and_an_import",
            "tests/scaling/test_file_search_contract.py::test_scripted_document_states",
            "tests/scaling/test_operation_store_redis.py::test_a_document_state_changes_only_its_own_file_search_operation",
        ),
        source="emulator-only (docs/scaling.md, File search stores on Redis)",
    ),
    Claim(
        "redis-environment-uploads-across-processes",
        "PUT /upload/{v}/environments/{id}/files/{path} (resumable) on two serve --store redis://... processes",
        "google-genai's environments.files.upload started through one process is finalized through the other; a"
        " raw upload's chunk, query and finalize land on either and the file downloads whole through either, no"
        " bytes left held; an archive fed through both unpacks; an environment file's session is not taken by the"
        " Files API's URL; Redis gone mid-upload is the 503 envelope with the upload front end's headers; the"
        " in-memory environments suite passes on Redis",
        (
            _E + "test_an_environment_upload_whose_requests_land_on_different_processes",
            _E + "test_an_environment_session_is_not_a_files_session_across_processes",
            _E + "test_redis_gone_mid_environment_upload_is_the_503_with_the_upload_headers",
            "tests/scaling/test_records_contract.py::test_environment_files_sync",
        ),
        source="emulator-only (docs/scaling.md, Records on Redis)",
    ),
    Claim(
        "redis-document-uploads-across-processes",
        "upload_to_file_search_store (resumable) on two gemini-emulator serve --store redis://... processes",
        "google-genai's 17 MiB text document upload and a 9 MiB image upload whose chunks alternate between the"
        " processes each make one document, got, listed, searched and downloaded through either, no bytes left"
        " held; a file search session is not taken by the Files API's URL nor the other way round; Redis gone"
        " mid-upload is the 503 envelope with the upload front end's headers",
        (
            _U + "test_a_document_upload_whose_chunks_land_on_different_processes",
            _U + "test_a_document_session_is_not_a_files_session_across_processes",
            _U + "test_redis_gone_mid_document_upload_is_the_503_with_the_upload_headers",
        ),
        source="emulator-only (docs/scaling.md, File search stores on Redis)",
    ),
    Claim(
        "redis-prediction-jobs",
        "projects/P/locations/L/batchPredictionJobs on --store redis://...",
        "the in-memory suite passes on Redis; a job created through one process is read, paged, cancelled, listed"
        " by the admin API and deleted through another, on the schedule set through either; creates racing"
        " through two processes never share a name; past the per-caller bound the oldest is forgotten; Redis"
        " unreachable is the 503 envelope",
        (
            _J + "test_gcs_job_walks_to_succeeded_with_output_info",
            _J + "test_bigquery_job_list_cancel_delete",
            _J + "test_a_job_created_through_one_process_is_seen_and_changed_through_the_other",
            _J + "test_creates_racing_through_two_processes_never_share_a_name",
            _J + "test_the_count_bound_forgets_the_oldest",
            _J + "test_redis_unreachable_is_the_503_envelope",
        ),
        source="emulator-only (docs/scaling.md, Batch prediction jobs on Redis)",
    ),
    Claim(
        "redis-runtime-models",
        "PUT|GET|DELETE /__emulator/models on --store redis://...",
        "the in-memory test passes on Redis; a model added through one process is served, got and listed by"
        " another at once (its unknown-model request asks Redis before the 404); an override or removal through"
        " one holds on another from its second request (the first learns the version from the journal's group"
        " commit); a process started later serves them; a refused change stores nothing; Redis unreachable is the"
        " 503 envelope",
        (
            _M + "test_models_added_through_the_admin_api_serve_every_caller",
            _M + "test_a_model_added_through_one_process_is_served_by_the_other",
            _M + "test_models_refused_on_one_process_are_stored_nowhere",
            _M + "test_redis_unreachable_is_the_503_envelope",
        ),
        source="emulator-only (docs/scaling.md, Models added at run time on Redis)",
    ),
    Claim(
        "redis-openai-tool-call-ids",
        "--engine openai on two gemini-emulator serve --store redis://... processes",
        "a function call answered through one process and its response sent through the other reach an upstream"
        " that accepts only its own ids with the id it issued, unary and streamed; on the memory store the same"
        " conversation is refused; Redis unreachable is the 503 envelope",
        (
            _O + "test_a_call_answered_through_one_process_keeps_its_upstream_id_through_the_other",
            _O + "test_without_the_shared_store_another_process_mints_ids_the_upstream_refuses",
            _O + "test_redis_unreachable_is_the_503_envelope",
        ),
        source="emulator-only (docs/scaling.md, The openai engine's tool-call ids on Redis)",
    ),
]
