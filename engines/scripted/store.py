"""Per-caller script state: every API key (or bearer token) is its own namespace, made on its first write
(adding entries or setting strict mode; reading never makes one).

At most MAX_NAMESPACES namespaces besides the shared one are kept: a write that would make one more forgets the
namespace used longest ago (its entries and strict setting). A namespace holds at most MAX_ENTRIES pending entries.

The namespace "*" (seam.SHARED) is shared: its entries (e.g. loaded with --script at start-up) answer any caller
whose own script has nothing for the request. Mutations may come from other threads (the in-process pytest
fixture), so they hold a lock; the event loop only reads and counts under the same lock. `ScriptStore` is the
scripted engine's `seam.ScriptBook`: the admin API and the fixtures reach it through `ScriptedEngine.script_book()`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from time import monotonic
from typing import Any

from gemini_emulator.engines.scripted.entries import FOREVER, Entry, Subject, parse_entries
from gemini_emulator.seam import SHARED, EntryError, GenerateRequest

MAX_NAMESPACES = 1000  # namespaces kept besides the shared one; the one used longest ago is forgotten past it
MAX_ENTRIES = 10_000  # pending entries per namespace


@dataclass
class Namespace:
    name: str
    entries: list[Entry] = field(default_factory=list)
    strict: bool | None = None  # None: follow the shared namespace's setting, else the server's --strict
    answered: int = 0
    next_index: int = 0
    used: float = field(default_factory=monotonic)  # last write or answer, for forgetting the idlest namespace


Misses = list[tuple[str, list[str]]]  # (entry name, why its matcher did not hold)


@dataclass
class Selection:
    """The entry that answers a request, or why none did."""

    entry: Entry | None
    near_misses: Misses = field(default_factory=list)


class ScriptStore:
    """All namespaces' scripts."""

    def __init__(self, strict: bool = False) -> None:
        self.default_strict = strict
        self._lock = threading.Lock()
        # by name; read it, never change it, outside the store (an empty one: no script nor setting anywhere)
        self.spaces: dict[str, Namespace] = {}

    def namespace(self, name: str) -> Namespace:
        """The namespace (made when missing: a write)."""
        with self._lock:
            return self._get(name)

    def _get(self, name: str) -> Namespace:
        """The namespace for a write, made when missing (forgetting the idlest one past MAX_NAMESPACES)."""
        space = self.spaces.get(name)
        if space is None:
            others = len(self.spaces) - (SHARED in self.spaces)
            if name != SHARED and others >= MAX_NAMESPACES:
                idlest = min((s for s in self.spaces.values() if s.name != SHARED), key=lambda s: s.used)
                del self.spaces[idlest.name]
            space = self.spaces[name] = Namespace(name)
        space.used = monotonic()
        return space

    def add(
        self,
        namespace: str,
        entries: Any,
        *,
        replace: bool = False,
        predicate: Callable[[GenerateRequest], bool] | None = None,
    ) -> int:
        """Parse `entries` (one entry, a list, or {"entries": [...]}) and add them all, or raise an EntryError
        and add none; `predicate` becomes an extra matcher of each. Returns how many were added."""
        listed = entries.get("entries") if isinstance(entries, dict) else entries
        if isinstance(listed, list) and len(listed) > MAX_ENTRIES:  # refused before each one is validated
            raise EntryError("entries", f"at most {MAX_ENTRIES} pending entries per namespace")
        parsed = parse_entries(entries, predicate=predicate)
        self.add_entries(namespace, parsed, replace=replace)
        return len(parsed)

    def add_entries(self, name: str, entries: list[Entry], replace: bool = False) -> None:
        """Append entries already parsed (after clearing the namespace's script with `replace`); an EntryError past
        MAX_ENTRIES pending."""
        with self._lock:
            held = 0 if replace else len(self.spaces[name].entries) if name in self.spaces else 0
            if held + len(entries) > MAX_ENTRIES:
                raise EntryError("entries", f"at most {MAX_ENTRIES} pending entries per namespace ({held} held)")
            space = self._get(name)
            if replace:
                space.entries.clear()
            for entry in entries:
                entry.index = space.next_index
                space.next_index += 1
                space.entries.append(entry)

    def pending(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            space = self.spaces.get(name)
            return [e.describe() for e in space.entries] if space is not None else []

    def set_strict(self, name: str, strict: bool | None) -> None:
        with self._lock:
            if strict is None and name not in self.spaces:  # nothing to record: no namespace made
                return
            self._get(name).strict = strict

    def is_strict(self, name: str) -> bool:
        """The namespace's own setting, else the shared namespace's (it speaks for every caller, as its
        entries answer every caller), else the server's --strict."""
        if not self.spaces:  # no script nor setting anywhere (read without the lock, as `holds_entries` reads)
            return self.default_strict
        with self._lock:
            space = self.spaces.get(name)
            own = space.strict if space is not None else None
            shared = self.spaces.get(SHARED)
            default = self.default_strict if shared is None or shared.strict is None else shared.strict
        return default if own is None else own

    def reset(self, name: str | None = None) -> None:
        with self._lock:
            if name is None:
                self.spaces.clear()
            else:
                self.spaces.pop(name, None)

    def pending_counts(self) -> dict[str, int]:
        """Pending entries per namespace, for every namespace in use."""
        with self._lock:
            return {name: len(space.entries) for name, space in self.spaces.items()}

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self.spaces)

    def holds_entries(self, name: str) -> bool:
        """Whether the caller's script or the shared one has any entry (read without the lock: a hint that lets a
        caller with no script skip `select`; an entry added meanwhile is as if added just after)."""
        spaces = self.spaces
        if not spaces:  # the zero-config server's usual state: no namespace at all
            return False
        space = spaces.get(name)
        if space is not None and space.entries:
            return True
        shared = spaces.get(SHARED)
        return shared is not None and bool(shared.entries)

    def select(self, request: GenerateRequest) -> Selection:
        """The caller's own entries first, then the shared ones; within each, entries with a matcher
        before plain ones, and oldest first. Serving counts a use and drops a spent entry."""
        with self._lock:
            space, entry, misses = self._answering(request)
            return Selection(self._serve(space, entry) if space and entry else None, misses)

    def holds_kind(self, namespace: str, kind: str) -> bool:
        """Whether the caller's script or the shared one has an entry of this answer kind (e.g. `replay`)."""
        if not self.spaces:  # no namespace at all (read without the lock, as `holds_entries` reads)
            return False
        with self._lock:
            spaces = [self.spaces.get(name) for name in (namespace, SHARED)]
            return any(kind in e.spec for space in spaces if space is not None for e in space.entries)

    def peek(self, request: GenerateRequest) -> Entry | None:
        """The entry that would answer `request`, left unserved."""
        with self._lock:
            return self._answering(request)[1]

    def select_if(self, request: GenerateRequest, accept: Callable[[Entry], bool]) -> Entry | None:
        """Serve the entry that answers `request` only when `accept` takes it (one step: no other caller's
        request is served in between)."""
        with self._lock:
            space, entry, _ = self._answering(request)
            return self._serve(space, entry) if space and entry and accept(entry) else None

    def _answering(self, request: GenerateRequest) -> tuple[Namespace | None, Entry | None, Misses]:
        """The namespace and entry that answer `request` (the caller holds the lock), and the matchers that
        did not hold on the way."""
        misses: Misses = []
        subject = Subject(request)
        for name in (request.namespace, SHARED):
            space = self.spaces.get(name)
            if space is None or not space.entries:
                continue
            matched = [e for e in space.entries if not e.match.empty]
            plain = [e for e in space.entries if e.match.empty]
            for entry in matched:
                why = entry.match.failures(request, subject)
                if not why:
                    return space, entry, misses
                misses.append((entry.name, why))
            if plain:
                return space, plain[0], misses
        return None, None, misses

    @staticmethod
    def _serve(space: Namespace, entry: Entry) -> Entry:
        entry.served += 1
        space.answered += 1
        space.used = monotonic()
        if entry.times != FOREVER and entry.served >= entry.times:
            space.entries.remove(entry)
        return entry
