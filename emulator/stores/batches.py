"""Batch jobs (Developer API `batches/{id}`): what a job holds beside its long-running operation, and the schedule
each caller's next jobs follow.

A job is an Operation (stores/operations.py, kind "batch") whose `extra["job"]` is a BatchJob: the requests to
answer, then the answers. The wire room (wire/resources/batches.py) answers the requests lazily, on the first read
that finds the job past its RUNNING phase (yielding to the event loop between items), so nothing runs unasked; a
job cancelled or deleted before then never asks the engine. A Plan says how long a job stays PENDING and RUNNING
and how it ends; a caller sets the plan of its namespace through the admin API (`PUT /__emulator/batches`), else
the default applies (done within a second).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

FINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED"})
MAX_PLANS = 10_000  # namespaces with a plan of their own (past it the oldest plan is forgotten)


@dataclass(frozen=True)
class Plan:
    """A job's schedule: PENDING for `pending_s`, RUNNING for `running_s`, then `state` (SUCCEEDED, FAILED,
    CANCELLED or EXPIRED); `hold` keeps it RUNNING until the plan changes or the job is cancelled; `error` is
    the Status a FAILED job carries (default: the emulator's INTERNAL)."""

    pending_s: float = 0.1
    running_s: float = 0.3
    state: str = "SUCCEEDED"
    hold: bool = False
    error: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pendingMs": round(self.pending_s * 1000),
            "runningMs": round(self.running_s * 1000),
            "state": self.state,
            "hold": self.hold,
        }
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass
class BatchJob:
    """What a batch holds: its kind ("generate" or "embed"), model, display name, the requests (inlined, each
    {"request": ..., "metadata"?: ...}, or read from `input_file`), and once answered the results (one per
    request: {"response": ...} or {"error": Status}, with "metadata"/"key" carried over) or `output_file`.
    Requests and results are kept as the JSON bytes the byte bounds count, one per item (parsed JSON costs up to
    ~20x its bytes in objects)."""

    kind: str
    model: str
    display_name: str
    requests: list[bytes] = field(default_factory=list)
    input_file: str = ""
    plan: Plan = field(default_factory=Plan)
    created_ns: int = 0
    results: list[bytes] | None = None
    output_file: str = ""
    ended_ns: int = 0
    size: int = 0  # bytes held: the requests until answered, then the results (the byte bounds count these)
    outcome: str = ""  # a final state other than the plan's (a file job whose input file is gone: FAILED)
    counts: tuple[int, int] | None = None  # (requests, answered without error), once answered
    listed: int = -1  # the requests' count where they are not held here (a job read from Redis); -1: len(requests)

    def request_count(self) -> int:
        """How many requests the job was given (before it was answered)."""
        return self.listed if self.listed >= 0 else len(self.requests)


class Plans:
    """Each namespace's plan for the batches it creates next (the default for the rest). Thread-safe."""

    def __init__(self, default: Plan | None = None) -> None:
        self.default = default or Plan()
        self._plans: dict[str, Plan] = {}
        self._lock = threading.Lock()

    def get(self, namespace: str) -> Plan:
        with self._lock:
            return self._plans.get(namespace, self.default)

    def set(self, namespace: str, plan: Plan | None) -> None:
        """Set (None: clear) a namespace's plan."""
        with self._lock:
            self._plans.pop(namespace, None)
            if plan is not None:
                if len(self._plans) >= MAX_PLANS:
                    self._plans.pop(next(iter(self._plans)))
                self._plans[namespace] = plan

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._plans.clear()
            else:
                self._plans.pop(namespace, None)
