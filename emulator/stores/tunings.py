"""Tuning jobs: Vertex AI `tuningJobs` and the Developer API's `tunedModels`, one record per job, and the tuned
model a finished job leaves behind.

A job walks its plan by the clock (stores/batches.Plan: PENDING for `pending_s`, RUNNING for `running_s`, then the
plan's final state; `hold` keeps it RUNNING until released or cancelled), read on each look; nothing runs in the
background. No weights are trained: a SUCCEEDED job's tuned model answers as its base model does (the wire room,
wire/resources/tunings.py, prints the shapes; handlers resolve a generate call on the tuned model to the base).

Bounds: at most MAX_JOBS_PER_NAMESPACE jobs per namespace (past it the oldest finished job is forgotten; with none
finished, `create` refuses) and MAX_JOBS in all (refused past it). Thread-safe. The wire room calls the `a*`
coroutines, whose names the Redis twin (stores/tunings_redis.py, `--store redis://...`) shares.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from gemini_emulator.stores.batches import Plan, Plans

MAX_JOBS_PER_NAMESPACE = 1_000
MAX_JOBS = 10_000
MAX_KEPT_TOTAL = 128 << 20  # create bodies kept (each at most 64 KiB), every namespace together
FINAL = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})  # the final states a tuning plan may name


class TuningsFull(Exception):
    """No room for another job: the message says which bound."""


@dataclass
class TuningJob:
    """One job: its names (the job's, the tuned model's, the endpoint's: equal on the Developer API), the
    catalogue model it tunes, what it was created with (no training data: only its count), its plan and clock."""

    name: str
    namespace: str
    surface: str  # "vertex" or "developer"
    tuned_model: str
    endpoint: str
    base_model: str  # the catalogue id a generate call on the tuned model is answered by
    kept: bytes  # the create body, training data left out, as JSON
    examples: int
    plan: Plan
    created: float  # the store's clock
    created_ns: int
    cancelled: float = 0.0
    released: float = 0.0  # when a held plan was let go (0: not)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def body(self) -> dict[str, Any]:
        """The create body, parsed afresh for a view."""
        parsed: dict[str, Any] = orjson.loads(self.kept)
        return parsed

    def phase(self, now: float) -> tuple[str, float]:
        """The job's state by the clock (PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED) and when it entered it."""
        started = self.created + self.plan.pending_s
        if self.cancelled:
            return "CANCELLED", self.cancelled
        if now < started:
            return "PENDING", self.created
        ended = started + self.plan.running_s
        if self.plan.hold:
            if not self.released:
                return "RUNNING", started
            ended = max(ended, self.released)
        if now < ended:
            return "RUNNING", started
        return self.plan.state, ended

    def started(self) -> float | None:
        """When the job started running (None: cancelled while PENDING, or not yet)."""
        at = self.created + self.plan.pending_s
        if self.cancelled and self.cancelled < at:
            return None
        return at


class Tunings:
    """Every namespace's tuning jobs, by name, and an index from tuned model and endpoint names to their job."""

    def __init__(self, plans: Plans | None = None) -> None:
        self.plans = plans or Plans()
        self.clock = time.monotonic
        self._spaces: dict[str, OrderedDict[str, TuningJob]] = {}
        self._tuned: dict[str, dict[str, str]] = {}  # namespace -> tuned model or endpoint name -> job name
        self._kept = 0  # bytes of the jobs' kept create bodies
        self._lock = threading.Lock()

    def wall_ns(self, at: float) -> int:
        """The wall-clock time (ns) of a moment on the store's clock."""
        return time.time_ns() - round((self.clock() - at) * 1e9)

    def create(self, job: TuningJob) -> TuningJob:
        """Keep a new job (its plan and clock set here), or TuningsFull."""
        with self._lock:
            space = self._spaces.setdefault(job.namespace, OrderedDict())
            if sum(len(s) for s in self._spaces.values()) >= MAX_JOBS:
                raise TuningsFull(f"the emulator holds {MAX_JOBS} tuning jobs, its bound; cancel or delete some")
            if self._kept + len(job.kept) > MAX_KEPT_TOTAL:
                raise TuningsFull(f"the emulator's tuning jobs would keep more than {MAX_KEPT_TOTAL} bytes of settings")
            if len(space) >= MAX_JOBS_PER_NAMESPACE and not self._forget_finished(space):
                raise TuningsFull(
                    f"this caller has {MAX_JOBS_PER_NAMESPACE} unfinished tuning jobs, the emulator's bound per caller"
                )
            job.plan, job.created, job.created_ns = self.plans.get(job.namespace), self.clock(), time.time_ns()
            space[job.name] = job
            self._kept += len(job.kept)
            index = self._tuned.setdefault(job.namespace, {})
            index[job.tuned_model] = index[job.endpoint] = job.name
            return job

    def _forget_finished(self, space: OrderedDict[str, TuningJob]) -> bool:
        now = self.clock()
        for name, job in space.items():
            if job.phase(now)[0] in FINAL:
                self._drop(space, name)
                return True
        return False

    def _drop(self, space: OrderedDict[str, TuningJob], name: str) -> None:
        job = space.pop(name)
        self._kept -= len(job.kept)
        index = self._tuned.get(job.namespace, {})
        index.pop(job.tuned_model, None)
        index.pop(job.endpoint, None)

    def get(self, namespace: str, name: str) -> TuningJob | None:
        with self._lock:
            space = self._spaces.get(namespace)
            return space.get(name) if space is not None else None

    def by_tuned(self, namespace: str, name: str) -> TuningJob | None:
        """The job whose tuned model or endpoint is `name` (a tuned model's version suffix `@N` ignored)."""
        with self._lock:
            job_name = self._tuned.get(namespace, {}).get(name.split("@", 1)[0])
            space = self._spaces.get(namespace)
            return space.get(job_name) if space is not None and job_name is not None else None

    def all(self, namespace: str | None = None) -> list[TuningJob]:
        """Jobs oldest first: one namespace's, or every namespace's."""
        with self._lock:
            spaces = [self._spaces.get(namespace, OrderedDict())] if namespace is not None else self._spaces.values()
            return [job for space in spaces for job in space.values()]

    def cancel(self, job: TuningJob) -> None:
        """End a job that is not done yet (a finished one is left as it is)."""
        with self._lock:
            if job.phase(self.clock())[0] not in FINAL:
                job.cancelled = self.clock()

    def remove(self, namespace: str, name: str) -> bool:
        with self._lock:
            space = self._spaces.get(namespace)
            if space is None or name not in space:
                return False
            self._drop(space, name)
            return True

    def release(self, namespace: str, plan: Plan) -> int:
        """Let a namespace's held jobs finish on `plan`'s final state (a plan without hold); how many there were."""
        with self._lock:
            now = self.clock()
            held = [
                j
                for j in self._spaces.get(namespace, OrderedDict()).values()
                if j.plan.hold and not j.released and not j.cancelled
            ]
            for job in held:
                job.plan = replace(job.plan, state=plan.state, error=plan.error)
                job.released = now
            return len(held)

    # --- the wire room's calls (the same names as stores/tunings_redis.py's, awaited there) -------------------
    async def acreate(self, job: TuningJob) -> TuningJob:
        return self.create(job)

    async def aget(self, namespace: str, name: str) -> TuningJob | None:
        return self.get(namespace, name)

    async def aby_tuned(self, namespace: str, name: str) -> TuningJob | None:
        return self.by_tuned(namespace, name)

    async def aall(self, namespace: str) -> list[TuningJob]:
        return self.all(namespace)

    async def acancel(self, job: TuningJob) -> None:
        self.cancel(job)

    async def aremove(self, namespace: str, name: str) -> bool:
        return self.remove(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._spaces.clear()
                self._tuned.clear()
                self._kept = 0
            else:
                self._kept -= sum(len(j.kept) for j in self._spaces.pop(namespace, OrderedDict()).values())
                self._tuned.pop(namespace, None)
        self.plans.reset(namespace)
