"""Long-running operations (google.longrunning.Operation), one store for every kind that has them: batch jobs,
video generation (Veo), file search imports. A producer creates an operation, hands it its result whenever it
has one, and the wire room that serves `GET {name}` prints `view()`.

    ops = OperationStore(default_delay_s=0.5)
    op = ops.create(namespace, "batch", name=f"batches/{new_id()}", metadata={...})   # or parent="models/veo-3"
    ops.complete(op, response={"@type": "...", ...})    # or error=ApiError(...) / {"code": .., "message": ..}
    ops.get(namespace, op.name).view()                  # {"name", "metadata"?, "done"?, "response"|"error"}
    page, token = ops.list(namespace, kind="batch", page_size=50, page_token="")

State advances on read, by the clock: nothing runs in the background, so nothing leaks or hangs. An operation
is done once its schedule has run out (`ready_at`, `delay_s` after creation: the setting
`operation_delay_ms`, or the producer's own, e.g. a script's) and it has a result. Before that `done` is absent
(proto3 JSON leaves a false bool out, as production's first answer to predictLongRunning does). A producer that
walks states (a batch: PENDING, RUNNING, SUCCEEDED) passes `steps`, [(seconds after creation, state), ...], and
reads `op.state()` to print its metadata; the last step's time is when the operation becomes done.

`hold=True` keeps an operation running until `complete(..., at=...)` or `release()` is called (a script that
wants a job to stay RUNNING). Cancelling marks it done with production's CANCELLED error unless it was done.

Bounds: at most `max_per_namespace` operations per namespace; past it the oldest done one is forgotten (then
the oldest of all), so one caller's loop cannot grow the server. Names are unique per store; a namespace sees
only its own operations (another's name is simply not found).

Vertex AI polls with `POST .../models/{m}:fetchPredictOperation` and a body `{"operationName": name}`: its
answer is the same `view()` (the wire room for Veo decides the path; see docs/conformance.md).
"""

from __future__ import annotations

import builtins
import secrets
import string
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from time import monotonic
from typing import Any

from gemini_emulator.protocol import errors

DEFAULT_DELAY_S = 0.5  # zero-config: done within a second
MAX_PER_NAMESPACE = 1000
PAGE_DEFAULT, PAGE_MAX = 50, 1000
_ALPHABET = string.ascii_lowercase + string.digits


def new_id(length: int = 12) -> str:
    """A resource id as production's look: lowercase letters and digits (t_file_name's `[a-z0-9]+`)."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


Clock = Callable[[], float]


@dataclass
class Operation:
    """One long-running operation. Read it through `done()`, `state()` and `view()`, which look at the clock."""

    name: str
    namespace: str
    kind: str
    created: float
    ready_at: float
    clock: Clock
    metadata: dict[str, Any] | None = None
    steps: list[tuple[float, str]] = field(default_factory=list)
    response: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    held: bool = False
    cancelled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # the producer's own notes (never printed)
    # A producer that prints the operation itself (a batch, whose answers it keeps as JSON bytes): `view()` with
    # no metadata of its own asks it, so every room that lists operations prints the same thing.
    printer: Callable[[Operation], dict[str, Any]] | None = None

    @property
    def has_result(self) -> bool:
        return self.response is not None or self.error is not None

    def done(self) -> bool:
        """Finished: cancelled, or its schedule over (and not held) with a result to show."""
        if self.cancelled:
            return True
        return not self.held and self.has_result and self.clock() >= self.ready_at

    def state(self) -> str:
        """The current step's state ("" without steps); once done, the last step's (a cancelled operation
        keeps the step it was in: its producer reads `cancelled` and prints its own cancelled state)."""
        if not self.steps:
            return ""
        if self.done() and not self.cancelled:
            return self.steps[-1][1]
        elapsed = self.clock() - self.created
        current = self.steps[0][1]
        for at, state in self.steps[:-1]:  # the last step is reached only by being done
            if elapsed >= at:
                current = state
        return current

    def view(self, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """The Operation as production prints it: name, metadata, done, then response or error. `metadata`
        replaces the stored one for this view (a producer that prints its state)."""
        if metadata is None and self.printer is not None:
            return self.printer(self)
        body: dict[str, Any] = {"name": self.name}
        shown = metadata if metadata is not None else self.metadata
        if shown is not None:
            body["metadata"] = shown
        if self.done():
            body["done"] = True
            if self.error is not None:
                body["error"] = self.error
            elif self.response is not None:
                body["response"] = self.response
        return body


def error_status(error: errors.ApiError | dict[str, Any]) -> dict[str, Any]:
    """A google.rpc.Status as an Operation carries it: {code (the rpc code number), message, details?}."""
    if isinstance(error, dict):
        return error
    status: dict[str, Any] = {"code": RPC_CODES.get(error.status, 2), "message": error.message}
    if error.details:
        status["details"] = error.details
    return status


# google.rpc.Code numbers: an Operation's error carries these, not the HTTP status.
RPC_CODES = {
    "OK": 0,
    "CANCELLED": 1,
    "UNKNOWN": 2,
    "INVALID_ARGUMENT": 3,
    "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5,
    "ALREADY_EXISTS": 6,
    "PERMISSION_DENIED": 7,
    "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9,
    "ABORTED": 10,
    "OUT_OF_RANGE": 11,
    "UNIMPLEMENTED": 12,
    "NOT_IMPLEMENTED": 12,
    "INTERNAL": 13,
    "UNAVAILABLE": 14,
    "DATA_LOSS": 15,
    "UNAUTHENTICATED": 16,
}
CANCELLED_STATUS = {"code": 1, "message": "Operation cancelled."}  # best-known wording (docs/conformance.md)


def operation_not_found(name: str) -> errors.ApiError:
    """No such operation for this caller (best-known wording; docs/conformance.md)."""
    return errors.ApiError(404, f"Operation not found: {name}", status="NOT_FOUND")


class OperationStore:
    """Every namespace's operations (module docstring: the API, the schedule, the bounds). Thread-safe."""

    def __init__(
        self,
        default_delay_s: float = DEFAULT_DELAY_S,
        max_per_namespace: int = MAX_PER_NAMESPACE,
        clock: Clock = monotonic,
    ) -> None:
        self.default_delay_s = default_delay_s
        self.max_per_namespace = max_per_namespace
        self.clock = clock
        self._spaces: dict[str, OrderedDict[str, Operation]] = {}
        self._lock = threading.Lock()

    def create(
        self,
        namespace: str,
        kind: str,
        *,
        name: str | None = None,
        parent: str = "",
        metadata: dict[str, Any] | None = None,
        delay_s: float | None = None,
        steps: list[tuple[float, str]] | None = None,
        response: dict[str, Any] | None = None,
        error: errors.ApiError | dict[str, Any] | None = None,
        hold: bool = False,
    ) -> Operation:
        """A new operation: named `name`, else `{parent}/operations/{id}` (`operations/{id}` without a parent).
        Done `delay_s` after now (default: the store's), or at the last of `steps`, once it has a result."""
        now = self.clock()
        if steps:
            delay = steps[-1][0]
        else:
            delay = self.default_delay_s if delay_s is None else max(0.0, delay_s)
        with self._lock:
            space = self._spaces.setdefault(namespace, OrderedDict())
            if name is None:
                prefix = f"{parent}/operations/" if parent else "operations/"
                name = prefix + new_id()
                while name in space:
                    name = prefix + new_id()
            op = Operation(
                name=name,
                namespace=namespace,
                kind=kind,
                created=now,
                ready_at=now + delay,
                clock=self.clock,
                metadata=metadata,
                steps=list(steps or []),
                response=response,
                error=error_status(error) if error is not None else None,
                held=hold,
            )
            space[name] = op
            self._bound(space)
        return op

    def _bound(self, space: OrderedDict[str, Operation]) -> None:
        while len(space) > self.max_per_namespace:
            oldest_done = next((n for n, o in space.items() if o.done()), None)
            space.pop(oldest_done if oldest_done is not None else next(iter(space)))

    def complete(
        self,
        op: Operation,
        response: dict[str, Any] | None = None,
        error: errors.ApiError | dict[str, Any] | None = None,
        at: float | None = None,
    ) -> None:
        """Give `op` its result (a response, or an error: an ApiError or a google.rpc.Status dict). With `at`
        (seconds from now) the schedule is moved too, and a hold released."""
        if op.cancelled:
            return
        if error is not None:
            op.error, op.response = error_status(error), None
        else:
            op.response, op.error = response if response is not None else {}, None
        if at is not None:
            op.ready_at = self.clock() + max(0.0, at)
            op.held = False

    def release(self, op: Operation) -> None:
        """End a hold: the operation is done as its schedule says."""
        op.held = False

    def get(self, namespace: str, name: str) -> Operation | None:
        with self._lock:
            space = self._spaces.get(namespace)
            return space.get(name) if space is not None else None

    def require(self, namespace: str, name: str) -> Operation:
        """`get`, or production's (best-known) 404."""
        op = self.get(namespace, name)
        if op is None:
            raise operation_not_found(name)
        return op

    def list(
        self, namespace: str, kind: str | None = None, page_size: int = PAGE_DEFAULT, page_token: str = ""
    ) -> tuple[list[Operation], str]:
        """A page of the namespace's operations, newest first, and the token of the next page ("" at the end).
        A token is the name of the next operation to show; an unknown one starts over."""
        size = PAGE_DEFAULT if page_size <= 0 else min(page_size, PAGE_MAX)
        with self._lock:
            held = self._spaces.get(namespace)
            ops = [o for o in reversed(held.values()) if kind is None or o.kind == kind] if held else []
        start = next((i for i, o in enumerate(ops) if o.name == page_token), 0) if page_token else 0
        page = ops[start : start + size]
        following = ops[start + size].name if start + size < len(ops) else ""
        return page, following

    def cancel(self, namespace: str, name: str) -> Operation:
        """Cancel a running operation (done with CANCELLED); one already done is left as it is."""
        op = self.require(namespace, name)
        if not op.done():
            op.cancelled = True
            op.error, op.response = dict(CANCELLED_STATUS), None
        return op

    def delete(self, namespace: str, name: str) -> None:
        """`remove`, or production's (best-known) 404."""
        if not self.remove(namespace, name):
            raise operation_not_found(name)

    def all(self, namespace: str | None = None) -> builtins.list[Operation]:
        """Every operation of a namespace (None: of all), oldest first."""
        with self._lock:
            spaces = [self._spaces.get(namespace, OrderedDict())] if namespace is not None else self._spaces.values()
            return [op for space in spaces for op in space.values()]

    def remove(self, namespace: str, name: str) -> bool:
        """Forget one operation; False when the namespace has none of that name."""
        with self._lock:
            space = self._spaces.get(namespace)
            return space is not None and space.pop(name, None) is not None

    def counts(self) -> dict[str, int]:
        """Operations held per namespace."""
        with self._lock:
            return {k: len(v) for k, v in self._spaces.items() if v}

    def reset(self, namespace: str | None = None) -> None:
        """Forget one namespace's operations, or every namespace's."""
        with self._lock:
            if namespace is None:
                self._spaces.clear()
            else:
                self._spaces.pop(namespace, None)
