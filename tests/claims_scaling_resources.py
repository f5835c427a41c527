"""Claims of issue 34 (phase 2): batch jobs and file search stores on the Redis store, shared by every process."""

from __future__ import annotations

from claim_type import Claim

_S = "tests/scaling/test_batch_store.py::"
_P = "tests/scaling/test_batches_processes.py::"
_C = "tests/scaling/test_batches_contract.py::"
_FS = "tests/scaling/test_file_search_redis_store.py::"
_FP = "tests/scaling/test_file_search_processes.py::"
_FC = "tests/scaling/test_file_search_contract.py::"

SCALING_RESOURCE_CLAIMS: list[Claim] = [
    Claim(
        "redis-batches-contract",
        "batches.create|get|list|cancel|delete on --store redis://...",
        "the batches room on the Redis store passes the in-memory room's whole suite (google-genai sync and async,"
        " schedules, holds, cancel, delete, pages, the admin API, embeddings, file jobs, 4xx envelopes), the"
        " generic operations listing aside",
        (
            _C + "test_inline_batch_walks_to_succeeded_with_the_same_answers_as_generate",
            _C + "test_cancel_a_held_job_before_the_engine_is_asked",
            _C + "test_list_pages_delete_and_other_keys",
            _C + "test_admin_lists_removes_and_reset_clears_batches",
        ),
        source="emulator-only (docs/scaling.md, Batch jobs on Redis)",
    ),
    Claim(
        "redis-batches-across-processes",
        "batches on two gemini-emulator serve --store redis://... processes",
        "a job created through one process is polled to SUCCEEDED through the other with its answers, answered once"
        " however many processes poll at once (each script entry consumed once), a plan set through either holds"
        " for both, cancel and delete through either",
        (_P + "test_a_batch_created_on_one_process_is_answered_once_and_read_on_another",),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-batches-claims-budgets",
        "the Redis batch store (stores/batches_redis.py)",
        "one claim wins a race of eight; a lapsed claim is taken over with its partial answers dropped and the dead"
        " holder stores nothing more; the byte budgets per caller and in all are counted across stores; the bound"
        " forgets the oldest done job first; create, get, list, cancel and delete are one round trip each",
        (
            _S + "test_one_claim_wins_the_race",
            _S + "test_answers_committed_once_and_a_lapsed_claim_taken_over",
            _S + "test_budgets_are_counted_across_processes",
            _S + "test_the_bound_forgets_the_oldest_done_job_first",
            _S + "test_each_call_is_one_round_trip",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
    Claim(
        "redis-file-search-contract",
        "fileSearchStores and documents, and generate's fileSearch tool, on --store redis://...",
        "the file search room on the Redis store passes the in-memory room's whole suite (stores, uploads resumable"
        " and multipart, imports, documents, pages, scripted states, bounds, media, other keys, the captures"
        " replayed, grounded generate calls unary, streamed and async, 4xx envelopes); the byte budget is Redis's",
        (
            _FC + "test_create_get_list_delete",
            _FC + "test_upload_poll_documents_and_force_delete",
            _FC + "test_the_answer_quotes_and_cites_the_document",
            _FC + "test_a_metadata_filter_picks_documents",
            _FC + "test_scripted_document_states",
            _FC + "test_the_documents_byte_budget_counted_in_redis",
        ),
        source="emulator-only (docs/scaling.md, File search stores on Redis)",
    ),
    Claim(
        "redis-file-search-across-processes",
        "file search on two gemini-emulator serve --store redis://... processes",
        "a store created and a document uploaded and imported through one process are got, listed and retrieved by"
        " a generate call's fileSearch tool through the other; a next-document state scripted through one holds for"
        " an upload through the other (pending and not retrieved until released); deletes through either hold for"
        " both; Redis unreachable is the 503 UNAVAILABLE envelope for the room and a grounded generate call",
        (
            _FP + "test_a_store_and_document_made_on_one_process_are_found_on_another",
            _FP + "test_redis_unreachable_is_the_503_envelope",
        ),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-file-search-store",
        "the Redis file search store (stores/file_search_redis.py)",
        "search results equal the memory store's from a cold process and a warm one (queries, topK, a filter,"
        " overlapping chunks); the store, document and byte bounds hold across two stores under races; a document"
        " is pending until its ready time by the wall clock for both; the parsed-document cache stays within its"
        " bound; each call is its documented round trips (a warm search 1, a cold one 2, texts fetched 16 MiB at"
        " most a round trip); a document deleted between a search's two round trips is not searched",
        (
            _FS + "test_search_results_are_the_memory_stores_cold_or_warm",
            _FS + "test_bounds_hold_across_processes_however_the_calls_race",
            _FS + "test_pending_until_its_ready_time_by_the_wall_clock_for_both",
            _FS + "test_the_parsed_documents_stay_within_their_bound",
            _FS + "test_each_call_is_its_documented_round_trips",
            _FS + "test_a_redis_that_cannot_be_reached_is_the_503",
            _FS + "test_a_document_deleted_between_the_two_round_trips_is_not_searched",
            _FS + "test_texts_are_fetched_at_most_fetch_bytes_a_round_trip",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
]
