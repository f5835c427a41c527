"""Triggers (google-genai 3.6.1's `client.triggers`): each namespace's scheduled agent interactions, their
executions, and the emulator clock they run against.

A trigger holds a standard five-field cron `schedule` read in its IANA `time_zone` (cronsim parses it) and the
interaction it starts. Its `next_run_time` is the first fire after its creation on the namespace's clock; each
fire (or `run`) is an Execution (in_progress, then completed or failed), newest last.

The clock (`Clock`) is wall time plus an offset per namespace, which the admin API only moves forward: a
namespace's triggers see its own time, and advancing one namespace's clock runs nobody else's. `due` names the
fires a clock reading has passed: at most MAX_CATCH_UP per trigger per reading, MAX_DUE in all. The missed fires
past those bounds are skipped, and so is a fire that finds the trigger's previous execution still in progress: each
such reading leaves one `skipped` execution naming the first fire it skipped and why, and the trigger's next run
moves past the reading.

Bounds: MAX_PER_NAMESPACE triggers per namespace and MAX_TRIGGERS in all (a create past either is refused),
MAX_EXECUTIONS kept per trigger (the oldest forgotten), schedules, zones and names of bounded length.
Thread-safe.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from gemini_emulator.stores.keyed import Full, Keyed, page_of

STATUSES = ("active", "paused", "error")  # TriggerStatus
EXECUTION_STATUSES = ("in_progress", "completed", "failed", "skipped", "timed_out")  # TriggerExecutionStatus
MAX_PER_NAMESPACE = 100
MAX_TRIGGERS = 10_000
MAX_EXECUTIONS = 200  # kept per trigger
MAX_CATCH_UP = 10  # fires run per trigger per clock reading
MAX_DUE = 100  # fires run per clock reading in all
# Best-known: why fires were skipped (production's wording for a skipped execution is not documented)
SKIPPED_PAST_BOUNDS = (
    f"Skipped: the clock passed more scheduled runs than the emulator runs at one reading"
    f" ({MAX_CATCH_UP} per trigger, {MAX_DUE} in all)."
)
SKIPPED_BUSY = "Skipped: the previous execution was still in progress."
MAX_SCHEDULE_CHARS = 256
MAX_ZONE_CHARS = 64
MAX_NAME_CHARS = 512
MAX_ADVANCE_S = 10 * 366 * 86400.0  # the furthest one admin call moves a clock


class TriggersFull(Full):
    """No room for another trigger: the message says which bound."""


class BadSchedule(ValueError):
    """A schedule or time zone that cannot be read: the message says why."""


def zone(name: str) -> ZoneInfo:
    """The IANA time zone `name`, or BadSchedule."""
    if not name or len(name) > MAX_ZONE_CHARS or name.startswith(("/", ".")) or ".." in name:
        raise BadSchedule(f"Invalid time_zone: {name[:100]!r}.")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadSchedule(f"Invalid time_zone: {name[:100]!r}.") from None


def next_fire(schedule: str, time_zone: str, after: float) -> float:
    """The first time (epoch seconds) strictly after `after` that `schedule` fires in `time_zone`; BadSchedule."""
    if not schedule or len(schedule) > MAX_SCHEDULE_CHARS or len(schedule.split()) != 5:
        raise BadSchedule(f"Invalid schedule: {schedule[:100]!r}: expected five cron fields.")
    start = datetime.fromtimestamp(after, zone(time_zone)).replace(microsecond=0)
    try:
        return next(CronSim(schedule, start)).timestamp()
    except (CronSimError, StopIteration) as exc:
        raise BadSchedule(f"Invalid schedule: {schedule[:100]!r}: {exc}.") from None


class Clock:
    """Wall time plus each namespace's offset (seconds, only ever grown)."""

    def __init__(self) -> None:
        self._offsets: dict[str, float] = {}
        self._lock = threading.Lock()

    def offset(self, namespace: str) -> float:
        with self._lock:
            return self._offsets.get(namespace, 0.0)

    def now(self, namespace: str) -> float:
        return time.time() + self.offset(namespace)

    def advance(self, namespace: str, seconds: float) -> float:
        """Move the namespace's clock `seconds` (0 to MAX_ADVANCE_S) forward; its new reading."""
        if not 0 <= seconds <= MAX_ADVANCE_S:
            raise ValueError(f"expected 0 to {MAX_ADVANCE_S:.0f} seconds, not {seconds}")
        with self._lock:
            self._offsets[namespace] = self._offsets.get(namespace, 0.0) + seconds
            return time.time() + self._offsets[namespace]

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            if namespace is None:
                self._offsets.clear()
            else:
                self._offsets.pop(namespace, None)


@dataclass
class Execution:
    """One run of a trigger (scheduled or asked for)."""

    id: str
    trigger_id: str
    scheduled: float
    status: str = "in_progress"
    started: float = 0.0
    ended: float = 0.0
    interaction_id: str = ""
    error: str = ""
    environment_id: str = ""


@dataclass
class Trigger:
    """One scheduled interaction and its executions (oldest first)."""

    id: str
    namespace: str
    schedule: str
    time_zone: str
    interaction: dict[str, Any]
    display_name: str = ""
    environment_id: str = ""
    execution_timeout_seconds: int = 0
    max_consecutive_failures: int = 0
    status: str = "active"
    consecutive_failures: int = 0
    created: float = 0.0
    updated: float = 0.0
    next_run: float = 0.0
    last_run: float = 0.0
    last_pause: float = 0.0
    last_resume: float = 0.0
    previous_interaction_id: str = ""
    executions: list[Execution] = field(default_factory=list)


def _new_id() -> str:
    return secrets.token_hex(8)


class TriggerStore(Keyed[Trigger]):
    """Every namespace's triggers, oldest first."""

    full = TriggersFull
    noun = "triggers"

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__(MAX_PER_NAMESPACE, MAX_TRIGGERS)
        self.clock = clock or Clock()

    def create(
        self, namespace: str, schedule: str, time_zone: str, interaction: dict[str, Any], **extra: Any
    ) -> Trigger:
        """A new active trigger (`extra`: display_name, environment_id, execution_timeout_seconds,
        max_consecutive_failures), or TriggersFull / BadSchedule."""
        now = self.clock.now(namespace)
        first = next_fire(schedule, time_zone, now)
        with self._lock:
            self._room(namespace)
            trigger_id = self._fresh_id(namespace, _new_id)
            made = Trigger(trigger_id, namespace, schedule, time_zone, interaction, created=now, updated=now)
            made.next_run = first
            for key, value in extra.items():
                setattr(made, key, value)
            return self._put(namespace, trigger_id, made)

    def executions(self, trigger: Trigger, size: int, token: str = "") -> tuple[list[Execution], str] | None:
        """A page of the trigger's executions, newest first (as `page`)."""
        with self._lock:
            held = list(reversed(trigger.executions))
        return page_of(held, [e.id for e in held], size, token)

    def update(self, namespace: str, trigger_id: str, display_name: str | None, status: str | None) -> Trigger | None:
        """Change the fields given; a paused trigger resumed runs next at its first fire after now. None: unknown."""
        now = self.clock.now(namespace)
        with self._lock:
            found = self._find(namespace, trigger_id)
            if found is None:
                return None
            if display_name is not None:
                found.display_name = display_name
            if status is not None and status != found.status:
                if status == "paused":
                    found.last_pause = now
                elif status == "active":
                    found.last_resume, found.consecutive_failures = now, 0
                    found.next_run = next_fire(found.schedule, found.time_zone, now)
                found.status = status
            found.updated = now
            return found

    def due(self, namespace: str) -> list[tuple[Trigger, float]]:
        """The namespace's active triggers' fires its clock has passed (bounded, module docstring), oldest first;
        each trigger's next run moves past the reading."""
        now = self.clock.now(namespace)
        fires: list[tuple[Trigger, float]] = []
        with self._lock:
            for held in self._held_by(namespace):
                fires += [(held, fire) for fire in due_fires(held, now, MAX_DUE - len(fires))]
        fires.sort(key=lambda fire: fire[1])
        return fires

    def begin(self, trigger: Trigger, scheduled: float) -> Execution:
        """A new in_progress execution of `trigger` (the oldest forgotten past MAX_EXECUTIONS)."""
        now = self.clock.now(trigger.namespace)
        with self._lock:
            ran = Execution(_new_id(), trigger.id, scheduled, started=now, environment_id=trigger.environment_id)
            trigger.executions.append(ran)
            del trigger.executions[:-MAX_EXECUTIONS]
            trigger.last_run = now
            return ran

    def end(self, trigger: Trigger, ran: Execution, interaction_id: str, error: str, timed_out: bool = False) -> None:
        """The execution finished: completed (or failed with `error`; `timed_out`: past its timeout); a trigger
        failing its max_consecutive_failures times in a row goes to status error."""
        now = self.clock.now(trigger.namespace)
        with self._lock:
            ended(trigger, ran, now, interaction_id, error, timed_out)

    def reset(self, namespace: str | None = None) -> None:
        super().reset(namespace)
        self.clock.reset(namespace)


def ended(trigger: Trigger, ran: Execution, now: float, interaction_id: str, error: str, timed_out: bool) -> None:
    """TriggerStore.end's change of `trigger` and its execution `ran` (both stores')."""
    ran.ended, ran.interaction_id, ran.error = now, interaction_id, error
    ran.status = "timed_out" if timed_out else "failed" if error else "completed"
    if interaction_id:
        trigger.previous_interaction_id = interaction_id
    if error:
        trigger.consecutive_failures += 1
        limit = trigger.max_consecutive_failures
        if limit and trigger.consecutive_failures >= limit and trigger.status == "active":
            trigger.status = "error"
    else:
        trigger.consecutive_failures = 0


def due_fires(held: Trigger, now: float, room: int) -> list[float]:
    """TriggerStore.due's change of one trigger: the fires of `held` that `now` has passed (at most MAX_CATCH_UP,
    and `room` more in all), its next run moved past them; a busy or overrun trigger's skipped execution added."""
    fires: list[float] = []
    if held.status != "active" or held.next_run > now:
        return fires
    if any(ran.status == "in_progress" for ran in held.executions):
        skip(held, now, SKIPPED_BUSY)
        return fires
    while held.next_run <= now and len(fires) < MAX_CATCH_UP and len(fires) < room:
        fires.append(held.next_run)
        held.next_run = next_fire(held.schedule, held.time_zone, held.next_run)
    if held.next_run <= now:
        skip(held, now, SKIPPED_PAST_BOUNDS)
    return fires


def skip(trigger: Trigger, now: float, why: str) -> None:
    """Record the fires from the trigger's next run to `now` as skipped, and move its next run past `now`."""
    skipped = Execution(_new_id(), trigger.id, trigger.next_run, "skipped", now, now, error=why)
    skipped.environment_id = trigger.environment_id
    trigger.executions.append(skipped)
    del trigger.executions[:-MAX_EXECUTIONS]
    trigger.next_run = next_fire(trigger.schedule, trigger.time_zone, now)


def stamp_s(seconds: float) -> str:
    """Epoch seconds as RFC 3339 in UTC with microseconds."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
