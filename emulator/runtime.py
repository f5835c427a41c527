"""Process-wide tuning for the `serve` command. In-process servers (emulator.server) share their host's
interpreter and are left alone."""

from __future__ import annotations

import gc

# Collections run after this many net allocations (CPython's default is 700), and a full collection is
# considered every 20 x 10 of those. Each request allocates a few thousand objects and frees nearly all of them
# at once, so young collections find little; with 1,000 streams open, a full collection at CPython's pace walks
# a million live objects and stalls every stream for ~100 ms (bench/extras.py held_streams measures it).
GC_THRESHOLDS = (50_000, 20, 10)


def tune_gc() -> None:
    """Freeze what start-up built (modules, catalogue, field tables: never garbage) out of every collection,
    and collect less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
