"""Claims of issue 34 (phase 2): batch jobs on the Redis store, shared by every process."""

from __future__ import annotations

from claim_type import Claim

_S = "tests/scaling/test_batch_store.py::"
_P = "tests/scaling/test_batches_processes.py::"
_C = "tests/scaling/test_batches_contract.py::"

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
]
