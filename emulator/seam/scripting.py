"""Scripting, as the wire and the admin API see it: a script book per engine, namespaces, entry errors.

An engine that takes scripts (the `Scriptable` capability) hands out one `ScriptBook`. The admin API, the
`--script` file and the pytest fixtures talk to that book only: they pass entries as JSON-shaped data (one
entry, a list, or {"entries": [...]}) and the engine parses them, raising `EntryError` for one it cannot use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from gemini_emulator.seam.request import GenerateRequest

SHARED = "*"  # the namespace whose entries answer every caller (its own script has nothing for the request)


class EntryError(ValueError):
    """A script entry that cannot be used: names the field and what was expected."""

    def __init__(self, field_name: str, expected: str, index: int | None = None, name: str | None = None) -> None:
        self.field = field_name
        self.expected = expected
        self.index = index
        self.name = name  # the entry's own name, when it has one
        where = f"entry {index}" if index is not None else "entry" if name else ""
        where += f" ({name!r})" if name else ""
        super().__init__(f"{where + ': ' if where else ''}{field_name}: {expected}")


@runtime_checkable
class ScriptBook(Protocol):
    """Every namespace's script. Safe to call from any thread (the in-process fixtures script from the test's)."""

    default_strict: bool  # the server's --strict: what a namespace follows when neither it nor SHARED says

    def add(
        self,
        namespace: str,
        entries: Any,
        *,
        replace: bool = False,
        predicate: Callable[[GenerateRequest], bool] | None = None,
    ) -> int:
        """Parse `entries` (one entry, a list of entries, or {"entries": [...]}) and append them to the namespace's
        script (after clearing it with `replace`); all or nothing: an EntryError adds none. `predicate` becomes an
        extra matcher of every entry. Returns how many were added."""
        ...

    def pending(self, namespace: str) -> list[dict[str, Any]]:
        """The namespace's entries not yet used up, as the admin API lists them."""
        ...

    def pending_counts(self) -> dict[str, int]:
        """Pending entries per namespace, for every namespace in use."""
        ...

    def is_strict(self, namespace: str) -> bool:
        """Whether an unmatched request of this namespace gets an error instead of the zero-config answer."""
        ...

    def set_strict(self, namespace: str, strict: bool | None) -> None:
        """The namespace's own strict setting; None follows SHARED's, else the default."""
        ...

    def reset(self, namespace: str | None = None) -> None:
        """Forget one namespace's script and settings, or every namespace's with None."""
        ...
