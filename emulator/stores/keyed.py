"""Each namespace's records of one kind, by id, oldest first: the shape the per-key resource stores share
(webhooks, triggers, stored voices).

`Keyed` holds the records and their two bounds (per namespace and overall), under one lock; a store subclasses it
and adds its kind's own changes, taking `self._lock` and finding records with `_find`. A namespace with no record
left is forgotten, so an emptied key costs nothing. `page_of` is the listing rule the stores' List methods share: a
page token is the id of the first record of the next page.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from inspect import iscoroutine
from typing import Generic, TypeVar

T = TypeVar("T")
Page = tuple[list[T], str]


class Full(Exception):
    """No room for another record: the message says which bound."""


class Keyed(Generic[T]):
    """Records of one kind per namespace, bounded in count (`per_namespace`, `overall`) and, where a store gives
    `size_of`, in bytes (`bytes_per_namespace`, `bytes_overall`; 0: no byte bound). Thread-safe."""

    full: type[Exception] = Full  # what a store raises when a bound is reached (its own subclass of Full)
    noun = "records"  # what the bound messages call the records

    def __init__(
        self, per_namespace: int, overall: int, *, bytes_per_namespace: int = 0, bytes_overall: int = 0
    ) -> None:
        self.per_namespace, self.overall = per_namespace, overall
        self.bytes_per_namespace, self.bytes_overall = bytes_per_namespace, bytes_overall
        self._spaces: dict[str, OrderedDict[str, T]] = {}
        self._held = 0
        self._bytes: dict[str, int] = {}  # each namespace's bytes, as size_of counts them
        self._total = 0
        self._lock = threading.Lock()

    def size_of(self, record: T) -> int:
        """The bytes a record counts against the byte bounds (none by default)."""
        return 0

    # The methods from here to `get` expect the caller to hold the lock.

    def _room(self, namespace: str, size: int = 0) -> None:
        """Raise `full` unless the namespace may hold one more record of `size` bytes."""
        space = self._spaces.get(namespace)
        if space is not None and len(space) >= self.per_namespace:
            raise self.full(f"this caller has {self.per_namespace} {self.noun}, the emulator's bound per caller")
        if self._held >= self.overall:
            raise self.full(f"the emulator holds {self.overall} {self.noun}, its bound")
        self._check_bytes(namespace, size)

    def _check_bytes(self, namespace: str, more: int) -> None:
        """Raise `full` unless the namespace's records may take `more` bytes."""
        if self.bytes_per_namespace and self._bytes.get(namespace, 0) + more > self.bytes_per_namespace:
            raise self.full(f"this caller's {self.noun} would take more than {self.bytes_per_namespace} bytes")
        if self.bytes_overall and self._total + more > self.bytes_overall:
            raise self.full(f"the emulator's {self.noun} would take more than {self.bytes_overall} bytes")

    def _add_bytes(self, namespace: str, more: int) -> None:
        """Count `more` bytes (negative: fewer) of the namespace's records, checked before with `_check_bytes`."""
        if more:
            self._bytes[namespace] = self._bytes.get(namespace, 0) + more
            self._total += more

    def _fresh_id(self, namespace: str, new_id: Callable[[], str]) -> str:
        """An id from `new_id` that the namespace does not hold yet."""
        held = self._spaces.get(namespace)
        record_id = new_id()
        while held is not None and record_id in held:
            record_id = new_id()
        return record_id

    def _put(self, namespace: str, record_id: str, record: T) -> T:
        """Add a record under an id the namespace does not hold (after `_room`)."""
        self._spaces.setdefault(namespace, OrderedDict())[record_id] = record
        self._held += 1
        self._add_bytes(namespace, self.size_of(record))
        return record

    def _find(self, namespace: str, record_id: str) -> T | None:
        space = self._spaces.get(namespace)
        return space.get(record_id) if space is not None else None

    def _held_by(self, namespace: str) -> list[T]:
        """The namespace's records, oldest first."""
        space = self._spaces.get(namespace)
        return list(space.values()) if space is not None else []

    def get(self, namespace: str, record_id: str) -> T | None:
        with self._lock:
            return self._find(namespace, record_id)

    def page(self, namespace: str, size: int, token: str = "") -> Page[T] | None:
        """Up to `size` records from the one `token` names ("": from the start) and the next page's token ("":
        none); None for a token that names none of this namespace's records."""
        with self._lock:
            space = self._spaces.get(namespace)
            held, ids = (list(space.values()), list(space)) if space is not None else ([], [])
        return page_of(held, ids, size, token)

    def ids(self, namespace: str) -> list[str]:
        with self._lock:
            return list(self._spaces.get(namespace, ()))

    def delete(self, namespace: str, record_id: str) -> bool:
        with self._lock:
            space = self._spaces.get(namespace)
            gone = space.pop(record_id, None) if space is not None else None
            if space is None or gone is None:
                return False
            self._held -= 1
            self._add_bytes(namespace, -self.size_of(gone))
            if not space:
                del self._spaces[namespace]
                self._bytes.pop(namespace, None)
            return True

    def all(self, namespace: str | None = None) -> list[T]:
        """Every record, or one namespace's, oldest first within a namespace (the admin views)."""
        with self._lock:
            if namespace is not None:
                return self._held_by(namespace)
            return [held for space in self._spaces.values() for held in space.values()]

    def owned(self, namespace: str | None = None) -> list[tuple[str, T]]:
        """(namespace, record) for every record, or one namespace's, oldest first within a namespace."""
        with self._lock:
            return [
                (name, held)
                for name, space in self._spaces.items()
                if namespace is None or name == namespace
                for held in space.values()
            ]

    def many(self, namespace: str, ids: Sequence[str]) -> list[T | None]:
        """The records of `ids` (None for one not held)."""
        with self._lock:
            return [self._find(namespace, record_id) for record_id in ids]

    def count(self, namespace: str) -> int:
        with self._lock:
            space = self._spaces.get(namespace)
            return len(space) if space is not None else 0

    def reset(self, namespace: str | None = None) -> None:
        """Forget every namespace's records, or one namespace's."""
        with self._lock:
            if namespace is None:
                self._spaces.clear()
                self._bytes.clear()
            else:
                self._spaces.pop(namespace, None)
                self._bytes.pop(namespace, None)
            self._held = sum(len(space) for space in self._spaces.values())
            self._total = sum(self._bytes.values())


def page_of(held: Sequence[T], ids: Sequence[str], size: int, token: str) -> Page[T] | None:
    """`held[i]` has id `ids[i]`: up to `size` of them from the one `token` names, and the next one's id ("": none);
    None when `token` names none."""
    start = 0
    if token:
        if token not in ids:
            return None
        start = ids.index(token)
    following = ids[start + size] if start + size < len(ids) else ""
    return list(held[start : start + size]), following


R = TypeVar("R")


async def settled(value: R | Awaitable[R]) -> R:
    """A store call's result: awaited when the store is a Redis twin's (its methods are coroutines), as it is when
    the store is in memory (the rooms call either kind alike)."""
    if iscoroutine(value):
        return await value
    return value  # type: ignore[return-value]
