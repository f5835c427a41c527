"""Cached contents (the `cachedContents` resource): what each caller cached, until it expires or is deleted.

    caches = CacheStore()
    entry = caches.create(namespace, CachedContent(...))      # the store names it and stamps its times
    caches.get(namespace, "cachedContents/abc")                # None when missing, expired or another caller's
    page, token = caches.list(namespace, page_size=50, page_token="")

Expiry is honoured on read, by the clock: an entry past its `expireTime` is gone (dropped on the next access of
its namespace), nothing runs in the background. A namespace sees only its own entries. Bounds: at most
`max_per_namespace` entries and `max_bytes_per_namespace` bytes of cached JSON per namespace, `max_bytes` over
every namespace; past one a create is refused (CacheFull), nothing is evicted behind a caller's back.
"""

from __future__ import annotations

import builtins
import secrets
import string
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

MAX_PER_NAMESPACE = 1000
MAX_BYTES_PER_NAMESPACE = 64 << 20
MAX_BYTES = 512 << 20
DEFAULT_TTL_NS = 3600 * 10**9  # one hour when neither ttl nor expireTime is given (public probe, 2026-09)
PAGE_DEFAULT, PAGE_MAX = 50, 1000  # best-known: the Files API's page bounds (production's are not captured)
_ALPHABET = string.ascii_lowercase + string.digits

Clock = Callable[[], int]  # nanoseconds since the epoch


class CacheFull(Exception):
    """A create past one of the store's bounds; the message says which."""


@dataclass
class CachedContent:
    """One cached content. Times are nanoseconds since the epoch; `tokens_text`/`tokens_media` the cached
    prompt's token count by modality (the wire counts them; usageMetadata.totalTokenCount is their sum)."""

    model: str  # as production names it: models/M, or projects/P/locations/L/publishers/google/models/M
    served_model: str = ""  # the catalogue id serving it (an alias resolved): what a generate call must match
    members: bytes = b""  # contents, systemInstruction, tools and toolConfig as one JSON object (members())
    display_name: str = ""
    tokens_text: int = 0
    tokens_media: int = 0
    size: int = 0  # len(members): the store's budget counts exactly the bytes it keeps
    parent: str = ""  # "" (Developer) or "projects/P/locations/L/" (Vertex): the name's prefix
    name: str = ""
    created: int = 0
    updated: int = 0
    expires: int = 0

    @property
    def tokens(self) -> int:
        return self.tokens_text + self.tokens_media

    def decoded(self) -> dict[str, Any]:
        """The cached members as a request spells them (`contents`, `systemInstruction`, `tools`, `toolConfig`),
        parsed afresh: the store keeps the JSON bytes, since parsed JSON holds ~20x its size in objects."""
        members: dict[str, Any] = orjson.loads(self.members) if self.members else {}
        return members


def new_id(vertex: bool) -> str:
    """A fresh id: 40 lowercase letters and digits on the Developer API (cassette and probe names), 19 digits on
    Vertex (its "cache content metadata 8754364356910645200" error)."""
    if vertex:
        return str(10**18 + secrets.randbelow(9 * 10**18))
    return "".join(secrets.choice(_ALPHABET) for _ in range(40))


def stamp(ns: int, digits: int = 6) -> str:
    """RFC 3339 in UTC with `digits` fractional digits: production prints createTime with 6, expireTime with 9."""
    seconds, rest = divmod(ns, 10**9)
    base = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{base}.{rest:09d}"[: len(base) + 1 + digits] + "Z"


class CacheStore:
    """Every namespace's cached contents (module docstring: expiry, isolation, bounds). Thread-safe."""

    remote = False  # stores/caches_redis.py's twin is; the rooms await it

    def __init__(
        self,
        max_per_namespace: int = MAX_PER_NAMESPACE,
        max_bytes_per_namespace: int = MAX_BYTES_PER_NAMESPACE,
        max_bytes: int = MAX_BYTES,
        clock: Clock = time.time_ns,
    ) -> None:
        self.max_per_namespace = max_per_namespace
        self.max_bytes_per_namespace = max_bytes_per_namespace
        self.max_bytes = max_bytes
        self.clock = clock
        self._spaces: dict[str, OrderedDict[str, CachedContent]] = {}
        self._bytes: dict[str, int] = {}
        self._lock = threading.Lock()

    def now(self) -> int:
        return self.clock()

    def create(self, namespace: str, entry: CachedContent, expires: int) -> CachedContent:
        """Store `entry` under a new name; `expires` is its expiry time (ns). CacheFull past a bound."""
        now = self.clock()
        with self._lock:
            space = self._live(namespace, now, make=True)
            used = self._bytes.get(namespace, 0)
            if len(space) >= self.max_per_namespace:
                raise CacheFull(
                    f"this caller holds {len(space)} cached contents, the most the emulator keeps per caller; "
                    "delete some first"
                )
            if used + entry.size > self.max_bytes_per_namespace:
                raise CacheFull(
                    f"this caller's cached contents would take {used + entry.size} bytes, past the emulator's "
                    f"{self.max_bytes_per_namespace} per caller; delete some first"
                )
            if sum(self._bytes.values()) + entry.size > self.max_bytes:
                raise CacheFull(f"the emulator's cached contents would take more than {self.max_bytes} bytes")
            vertex = bool(entry.parent)
            name = f"{entry.parent}cachedContents/{new_id(vertex)}"
            while name in space:
                name = f"{entry.parent}cachedContents/{new_id(vertex)}"
            entry.name, entry.created, entry.updated, entry.expires = name, now, now, expires
            space[name] = entry
            self._bytes[namespace] = used + entry.size
        return entry

    def _live(self, namespace: str, now: int, make: bool = False) -> OrderedDict[str, CachedContent]:
        """The namespace's entries with the expired ones dropped (the lock is held). Only a create (`make`) adds
        a namespace: a lookup under a key never seen costs nothing."""
        space = self._spaces.get(namespace)
        if space is None:
            if not make:
                return OrderedDict()
            space = self._spaces[namespace] = OrderedDict()
        gone = [name for name, entry in space.items() if entry.expires <= now]
        for name in gone:
            self._bytes[namespace] -= space.pop(name).size
        if not space and not make:
            self._spaces.pop(namespace, None)
            self._bytes.pop(namespace, None)
        return space

    def get(self, namespace: str, name: str) -> CachedContent | None:
        """The live entry called `name` in this namespace, or None (missing, expired, deleted, another's)."""
        with self._lock:
            return self._live(namespace, self.clock()).get(name)

    cached = get  # the generate path's look-up (the Redis store's reads what the request fetched before)

    def list(
        self, namespace: str, page_size: int = PAGE_DEFAULT, page_token: str = "", parent: str = ""
    ) -> tuple[list[CachedContent], str]:
        """A page of the namespace's live entries under `parent`, oldest first, and the next page's token (""
        at the end). A token is the name of the next entry to show; one that names no live entry starts over."""
        size = PAGE_DEFAULT if page_size <= 0 else min(page_size, PAGE_MAX)
        with self._lock:
            entries = [e for e in self._live(namespace, self.clock()).values() if e.parent == parent]
        start = next((i for i, e in enumerate(entries) if e.name == page_token), 0) if page_token else 0
        page = entries[start : start + size]
        following = entries[start + size].name if start + size < len(entries) else ""
        return page, following

    def set_expiry(self, namespace: str, name: str, expires: int) -> CachedContent | None:
        """Move a live entry's expiry (a patch); None when it is not there."""
        now = self.clock()
        with self._lock:
            entry = self._live(namespace, now).get(name)
            if entry is not None:
                entry.expires, entry.updated = expires, now
            return entry

    def delete(self, namespace: str, name: str) -> bool:
        """Remove a live entry; False when there was none."""
        with self._lock:
            entry = self._live(namespace, self.clock()).pop(name, None)
            if entry is None:
                return False
            self._bytes[namespace] -= entry.size
            return True

    def counts(self) -> dict[str, int]:
        """Live entries per namespace (namespaces holding none left out)."""
        now = self.clock()
        with self._lock:
            sizes = {ns: len(self._live(ns, now)) for ns in list(self._spaces)}
        return {ns: n for ns, n in sizes.items() if n}

    def all(self, namespace: str | None = None) -> builtins.list[tuple[str, CachedContent]]:
        """(namespace, entry) for every live entry, or one namespace's."""
        now = self.clock()
        with self._lock:
            names = [namespace] if namespace is not None else list(self._spaces)
            return [(ns, e) for ns in names for e in self._live(ns, now).values()]

    def reset(self, namespace: str | None = None) -> None:
        """Forget one namespace's entries, or every namespace's."""
        with self._lock:
            if namespace is None:
                self._spaces.clear()
                self._bytes.clear()
            else:
                self._spaces.pop(namespace, None)
                self._bytes.pop(namespace, None)
