"""Claims of issue 33's triggers: `client.triggers` (create, get, list, update, delete, run, list_executions), cron
schedules run against the admin API's emulator clock, and their executions."""

from __future__ import annotations

from claim_type import Claim

_T = "tests/wire/resources/test_triggers.py::"
_SDK = "google-genai 3.6.1 _gaos/triggers.py, _gaos/types/triggers/, tests/gaos/test_triggers_lifecycle.py"

TRIGGER_CLAIMS: list[Claim] = [
    Claim(
        "triggers-crud",
        "POST|GET /{v}/triggers, GET|PATCH|DELETE /{v}/triggers/{id}",
        "create takes {interaction (an agent interaction), schedule, time_zone, display_name?, environment_id?, "
        "execution_timeout_seconds?, max_consecutive_failures?} and answers the Trigger with id, status active, "
        "consecutive_failure_count, next_run_time, create_time, update_time; get, list ({triggers, next_page_token}) "
        "and update ({display_name?, status?}: pausing sets last_pause_time, resuming last_resume_time) answer it; "
        "delete answers {}; an unknown id is a 404; each key sees only its own",
        (_T + "test_every_method_sync", _T + "test_every_method_async", _T + "test_namespaces_apart"),
        source=f"{_SDK} (paths, snake_case fields, statuses, page_size/page_token)",
        divergence="best-known: the id's form (a bare id), the key order, page sizes (50, at most 1000), the page "
        "token, the filter query (ignored) and every error's wording",
    ),
    Claim(
        "triggers-schedule",
        "POST /{v}/triggers",
        "schedule is a standard five-field cron expression read in time_zone (an IANA zone); another is a 400 "
        "INVALID_ARGUMENT",
        (_T + "test_bad_schedules_and_zones_are_400s", _T + "test_bad_bodies_are_400s"),
        source=f'{_SDK} ("The cron schedule ... Standard cron format", "Time zone in which the schedule should be '
        'interpreted")',
        divergence="best-known: production's refusal wording; cronsim reads the cron (its extensions such as L and "
        "# are accepted)",
    ),
    Claim(
        "triggers-clock",
        "PUT /__emulator/clock, GET /__emulator/clock",
        "Each namespace has an emulator clock (wall time plus an offset the admin API only moves forward); advancing "
        "it runs the fires of the namespace's active triggers it passes, at most 10 per trigger and 100 per advance, "
        "oldest first, and lists their executions; paused triggers do not fire; a triggers call also runs what is "
        "due first; the fires past the bound, and a fire that finds the previous execution in progress, leave one "
        "skipped execution (its scheduled_time the first fire skipped, its error why)",
        (
            _T + "test_advancing_the_clock_runs_the_due_executions",
            _T + "test_a_paused_trigger_does_not_fire_and_catch_up_is_bounded",
            _T + "test_a_fire_while_the_previous_execution_runs_is_skipped",
            _T + "test_namespaces_apart",
        ),
        source="the emulator's own (production runs triggers on its own clock); the skipped status is the SDK's "
        "TriggerExecutionStatus",
        divergence="deliberate: no timer of its own; best-known: when production skips a fire and its wording",
    ),
    Claim(
        "triggers-executions",
        "POST|GET /{v}/triggers/{id}/executions",
        "run answers a TriggerExecution (id, trigger_id, status completed or failed, scheduled_time, start_time, "
        "end_time, interaction_id or error) once the engine has answered the trigger's interaction through the seam "
        "(kept as an interaction of the key, readable with client.interactions.get); list_executions pages them "
        "newest first ({trigger_executions, next_page_token}); max_consecutive_failures failures in a row set "
        "status error; each execution is a journal record (rpc triggers.execute)",
        (
            _T + "test_every_method_sync",
            _T + "test_advancing_the_clock_runs_the_due_executions",
            _T + "test_a_failing_execution_and_max_consecutive_failures",
        ),
        source=f"{_SDK} (TriggerExecution, TriggerExecutionStatus, max_consecutive_failures' docstring)",
        divergence="best-known: a built-in agent answers as gemini-2.5-flash does (a stored agent as itself: "
        "claims_agents), run answers once "
        "the execution ends, run works on a paused trigger, the newest-first order; executions past 200 per trigger "
        "are forgotten",
    ),
    Claim(
        "triggers-bounds",
        "POST /{v}/triggers",
        "At most 100 triggers per key (then a 429) and 10000 in all; schedules of at most 256 characters, zones of "
        "64, names of 512; execution_timeout_seconds at most 3600 (an execution past it is timed_out)",
        (_T + "test_bounds",),
        source="the emulator's own bounds",
        divergence="deliberate: production's quotas are not published",
    ),
]
