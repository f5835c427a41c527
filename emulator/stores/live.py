"""Live API session state per namespace: open sessions (bounded), session-resumption handles and ephemeral tokens.

A resumption handle names a saved conversation (the setup and the turns so far) that a new session presenting it
continues; handles are bounded per namespace (the oldest forgotten first) and expire after RESUMPTION_TTL_S, as
production keeps them for two hours. Ephemeral tokens (`POST /v1alpha/auth_tokens`) carry their uses left, expiry,
new-session expiry and the setup they lock; a token is its own namespace's credential, so state it opens lands in
the namespace of the key that minted it. Everything here is plain data, guarded by one lock (the in-process test
server and the serving thread may both touch it).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

RESUMPTION_TTL_S = 2 * 60 * 60  # production: handles stay valid for 2 hours after the session ends (docs)
MAX_HANDLES = 256  # per namespace
MAX_TOKENS = 1024  # per namespace
DEFAULT_SESSIONS_PER_NAMESPACE = 64
DEFAULT_SESSIONS_TOTAL = 1024


@dataclass
class Saved:
    """What a resumption handle restores."""

    setup: dict[str, Any]
    contents: list[dict[str, Any]]
    saved_at: float = field(default_factory=time.monotonic)


@dataclass
class Token:
    """An ephemeral token (AuthToken): its name is what the client presents."""

    name: str
    namespace: str  # the minting key's namespace
    uses: int  # sessions it may still start (0: used up)
    expire_time: float  # wall clock: no message after this
    new_session_expire_time: float  # wall clock: no new session after this
    constraints: dict[str, Any] | None  # bidiGenerateContentSetup fields locked into every session
    field_mask: str = ""


class LiveStore:
    """Open sessions, resumption handles and ephemeral tokens, per namespace."""

    def __init__(
        self, per_namespace: int = DEFAULT_SESSIONS_PER_NAMESPACE, total: int = DEFAULT_SESSIONS_TOTAL
    ) -> None:
        self.per_namespace = per_namespace
        self.total = total
        self._open: dict[str, int] = {}
        self._handles: dict[str, OrderedDict[str, Saved]] = {}
        self._tokens: dict[str, Token] = {}
        self._sessions: dict[str, dict[str, Any]] = {}
        self._serial = 0
        self._lock = threading.Lock()

    # Open sessions

    def open(self, namespace: str, path: str = "") -> str:
        """Count a new session in: its id, or "" (nothing counted) when a limit is reached."""
        with self._lock:
            mine = self._open.get(namespace, 0)
            if mine >= self.per_namespace or sum(self._open.values()) >= self.total:
                return ""
            self._open[namespace] = mine + 1
            self._serial += 1
            session = f"sessions/{self._serial}"
            self._sessions[session] = {"namespace": namespace, "path": path, "openedAt": time.time(), "turns": 0}
            return session

    def update(self, session: str, **facts: Any) -> None:
        """Note facts about an open session (its model, its turns) for the admin API."""
        with self._lock:
            if session in self._sessions:
                self._sessions[session].update(facts)

    def close(self, session: str) -> None:
        with self._lock:
            info = self._sessions.pop(session, None)
            if info is None:
                return
            namespace = info["namespace"]
            left = self._open.get(namespace, 0) - 1
            if left > 0:
                self._open[namespace] = left
            else:
                self._open.pop(namespace, None)

    def open_sessions(self) -> dict[str, int]:
        with self._lock:
            return dict(self._open)

    def sessions(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return [(k, dict(v)) for k, v in self._sessions.items() if namespace in (None, v["namespace"])]

    def handles(self, namespace: str | None = None) -> list[tuple[str, str, Saved]]:
        with self._lock:
            return [
                (ns, handle, saved)
                for ns, held in self._handles.items()
                if namespace in (None, ns)
                for handle, saved in held.items()
            ]

    def tokens(self, namespace: str | None = None) -> list[Token]:
        with self._lock:
            return [t for t in self._tokens.values() if namespace in (None, t.namespace)]

    def forget(self, namespace: str, name: str) -> bool:
        """Remove a resumption handle or an ephemeral token by name."""
        with self._lock:
            held = self._handles.get(namespace)
            if held and name in held:
                del held[name]
                return True
            token = self._tokens.get(name)
            if token is not None and token.namespace == namespace:
                del self._tokens[name]
                return True
            return False

    # Resumption handles

    def save(self, namespace: str, setup: dict[str, Any], contents: list[dict[str, Any]]) -> str:
        """A new handle for this conversation state."""
        handle = "live-" + secrets.token_hex(16)
        with self._lock:
            held = self._handles.setdefault(namespace, OrderedDict())
            held[handle] = Saved(dict(setup), [dict(c) for c in contents])
            while len(held) > MAX_HANDLES:
                held.popitem(last=False)
        return handle

    def resume(self, namespace: str, handle: str) -> Saved | None:
        """The state a handle saved, or None (unknown, another namespace's, or expired)."""
        with self._lock:
            held = self._handles.get(namespace)
            saved = held.get(handle) if held else None
            if saved is None:
                return None
            if time.monotonic() - saved.saved_at > RESUMPTION_TTL_S:
                del held[handle]  # type: ignore[union-attr]
                return None
            return saved

    # Ephemeral tokens

    def mint(
        self,
        namespace: str,
        uses: int,
        expire_time: float,
        new_session_expire_time: float,
        constraints: dict[str, Any] | None,
        field_mask: str = "",
    ) -> Token:
        token = Token(
            "auth_tokens/" + secrets.token_hex(24),
            namespace,
            uses,
            expire_time,
            new_session_expire_time,
            constraints,
            field_mask,
        )
        with self._lock:
            mine = [t for t in self._tokens.values() if t.namespace == namespace]
            if len(mine) >= MAX_TOKENS:  # the oldest of this namespace goes
                self._tokens.pop(mine[0].name, None)
            self._tokens[token.name] = token
        return token

    def token(self, name: str) -> Token | None:
        with self._lock:
            return self._tokens.get(name)

    def spend(self, name: str, resuming: bool = False) -> str:
        """Use the token for a new session: "" when it may, else why not ("unknown", "expired", "used"). A
        resumption does not count as a use (types.AuthToken.uses), but still needs an unexpired token."""
        with self._lock:
            token = self._tokens.get(name)
            if token is None:
                return "unknown"
            now = time.time()
            if now > token.expire_time or (not resuming and now > token.new_session_expire_time):
                return "expired"
            if resuming:
                return ""
            if token.uses <= 0:
                return "used"
            token.uses -= 1
            return ""

    def usable(self, name: str) -> bool:
        """The token's sessions may still send messages (before its expireTime)."""
        with self._lock:
            token = self._tokens.get(name)
            return token is not None and time.time() <= token.expire_time

    # Admin

    def describe(self) -> dict[str, Any]:
        """What the admin API shows: open sessions per namespace, handles and tokens held (never a token's name)."""
        with self._lock:
            tokens: dict[str, int] = {}
            for t in self._tokens.values():
                tokens[t.namespace] = tokens.get(t.namespace, 0) + 1
            return {
                "openSessions": dict(self._open),
                "openSessionsTotal": sum(self._open.values()),
                "limits": {"perNamespace": self.per_namespace, "total": self.total},
                "resumptionHandles": {ns: len(h) for ns, h in self._handles.items() if h},
                "ephemeralTokens": tokens,
            }

    def reset(self, namespace: str | None = None) -> None:
        """Forget handles and tokens (open sessions stay counted until they end)."""
        with self._lock:
            if namespace is None:
                self._handles.clear()
                self._tokens.clear()
                return
            self._handles.pop(namespace, None)
            for name in [n for n, t in self._tokens.items() if t.namespace == namespace]:
                del self._tokens[name]
