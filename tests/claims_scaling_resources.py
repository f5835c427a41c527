"""Claims of issue 34 (phase 2): batch jobs, file search stores, cached contents, Veo's operations, ephemeral tokens
and resumption handles, the per-key records (webhooks, agents, triggers, environments, voices), interactions and
templates, and tunings on the Redis store, shared by every process."""

from __future__ import annotations

from claim_type import Claim

_S = "tests/scaling/test_batch_store.py::"
_P = "tests/scaling/test_batches_processes.py::"
_C = "tests/scaling/test_batches_contract.py::"
_FS = "tests/scaling/test_file_search_redis_store.py::"
_FP = "tests/scaling/test_file_search_processes.py::"
_FC = "tests/scaling/test_file_search_contract.py::"
_CC = "tests/scaling/test_caches_contract.py::"
_CS = "tests/scaling/test_cache_store_redis.py::"
_OC = "tests/scaling/test_operations_contract.py::"
_OS = "tests/scaling/test_operation_store_redis.py::"
_LC = "tests/scaling/test_live_contract.py::"
_LS = "tests/scaling/test_live_store_redis.py::"
_SP = "tests/scaling/test_shared_resources_processes.py::"
_RS = "tests/scaling/test_record_store.py::"
_RP = "tests/scaling/test_records_processes.py::"
_RC = "tests/scaling/test_records_contract.py::"
_TC = "tests/scaling/test_tunings_contract.py::"
_TS = "tests/scaling/test_tuning_store_redis.py::"
_TP = "tests/scaling/test_tunings_processes.py::"

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
    Claim(
        "redis-caches-contract",
        "cachedContents.create|get|list|patch|delete and generateContent naming cachedContent on --store redis://...",
        "the cachedContents room on the Redis store passes the in-memory room's whole suite (google-genai sync and"
        " async, Developer and Vertex, generate, stream and countTokens with a cache, pages, update, expiry, other"
        " keys, the admin API, the journal)",
        (
            _CC + "test_generate_with_cache_counts_cached_tokens_and_the_engine_sees_the_cache",
            _CC + "test_list_pages_update_and_delete",
            _CC + "test_an_expired_cache_is_gone",
            _CC + "test_vertex_create_use_and_404",
            _CC + "test_admin_lists_removes_and_reset_clears_the_callers_caches",
        ),
        source="emulator-only (docs/scaling.md, Cached contents on Redis)",
    ),
    Claim(
        "redis-caches-store",
        "the Redis cache store (stores/caches_redis.py)",
        "an entry made through one store is read, patched and deleted through another; the count bound passes"
        " exactly its number of racing creates across four stores and the byte budgets are counted across stores;"
        " an expired entry is gone to the nanosecond, its hash carries a Redis TTL, its bytes are given back by the"
        " sweep; each call is one round trip; an unreachable Redis is the 503",
        (
            _CS + "test_an_entry_made_on_one_store_is_read_patched_and_deleted_on_another",
            _CS + "test_bounds_are_counted_across_stores_exactly_under_a_race",
            _CS + "test_expiry_to_the_nanosecond_and_the_sweep_gives_bytes_back",
            _CS + "test_each_call_is_one_round_trip",
            _CS + "test_an_unreachable_redis_is_the_503",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
    Claim(
        "redis-operations-contract",
        "predictLongRunning, fetchPredictOperation and operations.get|list|cancel|delete on --store redis://...",
        "Veo and the operations room on the Redis store pass the in-memory suites (google-genai on Vertex, REST on"
        " the Developer API, scripted holds, failures and filters, the video downloaded, list, cancel, delete, other"
        " keys, the admin API)",
        (
            _OC + "test_vertex_generate_videos_polls_to_inline_mp4s",
            _OC + "test_script_holds_fails_and_filters",
            _OC + "test_developer_rest_video_is_a_downloadable_file",
            _OC + "test_list_cancel_delete",
        ),
        source="emulator-only (docs/scaling.md, Operations on Redis)",
    ),
    Claim(
        "redis-operations-store",
        "the Redis operation store (stores/operations_redis.py)",
        "an operation created through one store is done through another on the wall clock once its producer gives"
        " the result; a cancel outlasts the producer's later result; a result past the byte budget fails the"
        " operation; the bound forgets the oldest done first; each call is one round trip; a producer whose lease"
        " lapses leaves its operation done with UNAVAILABLE, which its late result does not change",
        (
            _OS + "test_made_on_one_done_on_another_and_a_cancel_outlasts_the_result",
            _OS + "test_a_result_past_the_budget_fails_and_the_bound_forgets_done_first",
            _OS + "test_each_call_is_one_round_trip",
            _OS + "test_a_producer_that_stops_renewing_its_lease_leaves_its_operation_abandoned",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
    Claim(
        "redis-live-contract",
        "auth_tokens.create and Live sessions (BidiGenerateContent, ...Constrained) on --store redis://...",
        "the Live SDK and raw suites pass on the Redis store (an ephemeral token locking its setup and used up,"
        " resumption after a drop, close codes, the admin listing of sessions and handles)",
        (
            _LC + "test_ephemeral_token_locks_its_setup_and_is_used_up",
            _LC + "test_session_resumption_after_a_drop",
            _LC + "test_admin_lists_open_sessions_and_handles",
        ),
        source="emulator-only (docs/scaling.md, Ephemeral tokens and resumption handles on Redis)",
    ),
    Claim(
        "redis-live-store",
        "the Redis token and handle store (stores/live_redis.py)",
        "a three-use token's uses are spent once each under ten racing spends across two stores; newSessionExpireTime"
        " and expireTime hold and a resumption spends nothing; the oldest tokens go past the bound with their bytes"
        " counted in Redis; no token name reaches any Redis key or value; a handle saved through one store resumes"
        " through another; an unreachable Redis is the 503",
        (
            _LS + "test_uses_are_spent_once_each_under_a_race",
            _LS + "test_expiry_times_hold",
            _LS + "test_the_oldest_tokens_go_and_no_name_reaches_redis",
            _LS + "test_a_handle_saved_on_one_store_resumes_on_another",
            _LS + "test_an_unreachable_redis_is_the_503",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
    Claim(
        "redis-shared-resources-across-processes",
        "caches, Veo operations, tokens and handles on two gemini-emulator serve --store redis://... processes",
        "a cache made on one process is used by generateContent, patched and deleted on the other and expires on"
        " both; a video operation started on one is polled done on the other (Developer GET and Vertex"
        " fetchPredictOperation), listed and cancelled there; a token minted on one starts sessions on the other,"
        " its two uses spent across both; a handle saved on one resumes on the other; with Redis unreachable every"
        " such call gets the 503 UNAVAILABLE envelope within 5 s, and a Live session closes 1011 with its reason",
        (
            _SP + "test_a_cache_made_on_one_process_is_used_patched_and_deleted_on_another",
            _SP + "test_a_video_operation_started_on_one_process_is_polled_done_listed_and_cancelled_on_another",
            _SP + "test_a_token_minted_on_one_process_starts_sessions_on_another_and_handles_resume_across",
            _SP + "test_an_unreachable_redis_is_the_503_envelope",
        ),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-records-contract",
        "webhooks, agents, triggers, environments, voices, interactions and templates on --store redis://...",
        "their rooms on the Redis store pass the in-memory rooms' whole suites (tests/wire/resources/test_webhooks.py,"
        " test_agents.py, test_triggers.py, test_voices.py, tests/wire/media/test_interactions.py, test_templates.py:"
        " every method through google-genai sync and async, pages, bounds, 4xx envelopes, deliveries signed and"
        " retried, rotation, environment files and archives, TTS and Live in a stored voice, chained, streamed,"
        " background, cancelled and deleted interactions, templates rendered and streamed, namespaces apart; the"
        " one template test reading a stream's journal record the moment it ends aside)",
        (
            _RC + "test_every_method_sync",
            _RC + "test_rotation_signs_with_both_secrets_for_the_grace_then_only_the_new",
            _RC + "test_agents_every_method_async",
            _RC + "test_environment_files_sync",
            _RC + "test_an_uploaded_archive_is_unpacked_and_overwrite_is_asked",
            _RC + "test_chaining_two_interactions_carries_the_history",
            _RC + "test_background_run_completes_and_cancel",
            _RC + "test_tts_speaks_in_a_stored_voice_and_refuses_an_unknown_one",
            _RC + "test_a_live_setup_takes_a_stored_voice_and_refuses_an_unknown_one",
            _RC + "test_developer_unary_is_answered_as_the_rendered_generate_call",
        ),
        source="emulator-only (docs/scaling.md, Records on Redis)",
    ),
    Claim(
        "redis-records-across-processes",
        "records on two gemini-emulator serve --store redis://... processes",
        "a webhook rotated through one is seen rotated through the other; an agent made through one answers the"
        " other's interaction; a voice stored through one speaks through the other (and, deleted, is refused); a"
        " template set through one answers through the other; an"
        " interaction made through one is chained onto through the other; a background run"
        " of one is polled to completed, cancelled and deleted through the other, its end delivered once; a trigger"
        " made due by an advanced clock fires each of its runs once (each script entry consumed once) under readers"
        " of both; Redis unreachable is the 503 UNAVAILABLE envelope from each of these rooms, within 5 s",
        (
            _RP + "test_records_made_on_one_process_are_read_and_used_on_another",
            _RP + "test_a_due_trigger_fires_once_across_processes",
            _RP + "test_redis_unreachable_is_the_503_envelope",
        ),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-records-store",
        "the Redis record store (stores/keyed_redis.py, stores/records_redis.py)",
        "the count and byte bounds per caller and overall hold across two stores; a compare-and-set raced by eight"
        " stores loses no change; pages follow the memory store's token rule; reset leaves no key; create, get,"
        " list, subscribed and delete are one round trip, update and rotate two; eight trigger stores reading one"
        " advanced clock take each fire once; an environment's files are kept in 1 MiB chunks beside it, dropped"
        " with what replaces them and with it, and counted; a change that keeps losing its races is a 409 ABORTED;"
        " an interaction run whose process let its lease lapse is read as failed (503 UNAVAILABLE) and its late end"
        " stores nothing, as after a cancel through another store",
        (
            _RS + "test_count_bounds_hold_across_stores",
            _RS + "test_byte_bounds_hold_across_stores_and_changes",
            _RS + "test_racing_changes_lose_none",
            _RS + "test_pages_follow_the_memory_rule_and_reset_leaves_nothing",
            _RS + "test_each_call_is_its_round_trips",
            _RS + "test_a_due_trigger_fires_once_across_stores",
            _RS + "test_environment_files_are_kept_in_chunks_and_counted",
            _RS + "test_a_change_that_keeps_losing_is_a_409_not_a_5xx",
            "tests/scaling/test_interaction_store.py::test_a_run_whose_process_is_gone_reads_as_failed",
            "tests/scaling/test_interaction_store.py::test_a_cancel_through_another_store_is_kept_and_the_end_stores_nothing",
            "tests/scaling/test_interaction_store.py::test_the_byte_bound_over_everyone_is_counted_across_stores",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
    Claim(
        "redis-tunings-contract",
        "tuningJobs, tunedModels and the Registry's tuned models on --store redis://...",
        "the tunings room on the Redis store passes the in-memory room's whole suite (tests/wire/resources/"
        "test_tunings.py: google-genai 3.6.1 sync and async on Vertex and the Developer API, tune, get, list, cancel,"
        " delete, the create's operation polled, cancelled and deleted, held and failed schedules, bad creates, other"
        " keys, generate and countTokens on a finished job's tuned model), its jobs kept in Redis and listed and reset"
        " by the admin API",
        (
            _TC + "test_vertex_job_walks_to_succeeded_and_its_endpoint_generates",
            _TC + "test_developer_job_to_active_then_generate_on_the_tuned_model",
            _TC + "test_the_create_operation_is_readable_and_ends_with_the_tuned_model",
            _TC + "test_the_create_operation_cancelled_or_deleted_leaves_the_tuned_model",
            _TC + "test_async_vertex_tune_get_list_cancel",
            _TC + "test_the_jobs_are_on_redis",
        ),
        source="emulator-only (docs/scaling.md, Tunings on Redis)",
    ),
    Claim(
        "redis-tunings-store",
        "the Redis tuning store (stores/tunings_redis.py)",
        "a job added through one store is found through another by its name, its tuned model (a version suffix"
        " ignored) and its endpoint, never from another namespace; the caller's bound counts across stores, the"
        " oldest finished job forgotten past it; a release through another store finishes the held jobs; delete and"
        " reset leave no key of the caller; a schedule set through one store is the other's plan; create is two"
        " round trips, get, a tuned-model look-up, list and delete one, cancel two",
        (
            _TS + "test_a_job_is_found_through_another_store_by_each_of_its_names",
            _TS + "test_the_callers_bound_counts_across_stores_and_forgets_the_oldest_finished",
            _TS + "test_a_schedule_set_through_one_store_is_the_other_s_plan",
            _TS + "test_each_call_is_its_round_trips",
        ),
        source="emulator-only (docs/scaling.md, Tunings on Redis)",
    ),
    Claim(
        "redis-tunings-across-processes",
        "tunings on two gemini-emulator serve --store redis://... processes",
        "a schedule set through one process holds for the other's creates; a Vertex job created through one walks"
        " to SUCCEEDED by the wall clock with the same times through both, is listed and its tuned model shown by"
        " the Registry through the other, and its endpoint answers generate there; a job held through one is"
        " cancelled or released through the other; a Developer create's operation is polled done through the other"
        " and its tuned model generates, is deleted (then 404 on both) and is not another key's; Redis unreachable is"
        " the 503 UNAVAILABLE envelope from the tuning rooms and a tuned model's generate call, within 5 s",
        (
            _TP + "test_a_vertex_job_made_on_one_process_walks_and_generates_on_another",
            _TP + "test_a_developer_tuned_model_made_on_one_process_answers_on_another",
            _TP + "test_redis_unreachable_is_the_503_envelope_for_tunings",
        ),
        source="emulator-only (docs/scaling.md)",
    ),
]
