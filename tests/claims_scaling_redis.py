"""Claims of issue 34 (phase 1): the state-store seam, scripts and the journal on Redis, --workers."""

from __future__ import annotations

from claim_type import Claim

_C = "tests/scaling/test_store_contract.py::"
_W = "tests/scaling/test_workers.py::"

SCALING_REDIS_CLAIMS: list[Claim] = [
    Claim(
        "redis-scripts-contract",
        "--store memory | redis://host:port/db",
        "the in-memory and the Redis script book pass one contract: order, times, matchers before plain entries,"
        " strict and its fallbacks, the shared namespace *, reset, MAX_ENTRIES (all or nothing) and MAX_NAMESPACES"
        " (the idlest forgotten); a plain request costs one Redis call",
        (
            _C + "test_order_and_times",
            _C + "test_matchers_come_before_plain_entries",
            _C + "test_strict_and_its_fallbacks",
            _C + "test_shared_namespace_answers_when_own_has_nothing",
            _C + "test_namespaces_apart_and_reset",
            _C + "test_bounds",
            _C + "test_redis_answer_is_async_and_one_round_trip",
        ),
        source="emulator-only (docs/scaling.md, Shared state on Redis)",
    ),
    Claim(
        "redis-journal-contract",
        "GET|DELETE /__emulator/journal on --store redis://...",
        "the Redis journal keeps the memory journal's order, cap eviction (the biggest namespace's oldest first,"
        " counted), pages and clears; no API key reaches Redis",
        (_C + "test_journal_order_cap_paging", _C + "test_no_credential_reaches_redis"),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-workers",
        "gemini-emulator serve --store redis://... --workers N",
        "4 workers serve 1,000 scripted entries to 50 concurrent clients, each exactly once, the journal whole and"
        " strict mode alike from any worker; a killed worker loses no acknowledged entry and is replaced;"
        " --workers is refused on the memory store, saying why",
        (
            _W + "test_thousand_entries_consumed_exactly_once_by_four_workers",
            _W + "test_a_killed_worker_loses_no_acknowledged_entry",
            _W + "test_workers_refused_on_the_memory_store",
        ),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-unavailable",
        "any call needing the store while Redis is down",
        "503 UNAVAILABLE in Google's envelope within seconds, never a hang or a 500; served again once Redis is back"
        " (with appendonly the script survives the restart)",
        (_W + "test_redis_restarted_mid_run",),
        source="Google's generic 503 wording",
        divergence="best-known: no capture of production losing its backing store",
    ),
]
