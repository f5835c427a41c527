"""Claims of issue 34 (phase 2): batch jobs, the per-key records (webhooks, agents, triggers, environments) and
interactions on the Redis store, shared by every process."""

from __future__ import annotations

from claim_type import Claim

_S = "tests/scaling/test_batch_store.py::"
_P = "tests/scaling/test_batches_processes.py::"
_C = "tests/scaling/test_batches_contract.py::"
_RS = "tests/scaling/test_record_store.py::"
_RP = "tests/scaling/test_records_processes.py::"
_RC = "tests/scaling/test_records_contract.py::"

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
]
