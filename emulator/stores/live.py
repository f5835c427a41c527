"""Live API session state per namespace: open sessions (bounded), session-resumption handles and ephemeral tokens.

A resumption handle names a saved conversation (the setup and the turns so far) that a new session presenting it
continues; handles are bounded per namespace (the oldest forgotten first) and expire after RESUMPTION_TTL_S, as
production keeps them for two hours. Ephemeral tokens (`POST /v1alpha/auth_tokens`) carry their uses left, expiry,
new-session expiry and the setup they lock (kept as the JSON bytes counted); a token is its own namespace's
credential, so state it opens lands in the namespace of the key that minted it. Tokens are bounded per namespace
(MAX_TOKENS, MAX_TOKEN_BYTES_PER_NAMESPACE: the namespace's oldest go) and over every namespace (MAX_TOKEN_BYTES:
past it a mint is refused, TokensFull); a token past its expireTime can start or carry nothing and is dropped
whenever its namespace mints (and everywhere before a mint is refused). Everything here is plain data, guarded
by one lock (the in-process test server and the serving thread may both touch it).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from gemini_emulator.stores.live_redis import RedisLiveShared

RESUMPTION_TTL_S = 2 * 60 * 60  # production: handles stay valid for 2 hours after the session ends (docs)
MAX_HANDLES = 256  # per namespace
MAX_TOKENS = 1024  # per namespace
MAX_TOKEN_BYTES_PER_NAMESPACE = 16 << 20  # the locked setups' JSON, per namespace
MAX_TOKEN_BYTES = 256 << 20  # ... over every namespace
TOKEN_OVERHEAD = 256  # what a token costs beside its setup, as the byte bounds count it
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
    locked_setup: bytes  # the bidiGenerateContentSetup locked into every session, as JSON (b"": none)
    field_mask: str = ""

    @property
    def constraints(self) -> dict[str, Any] | None:
        """The locked setup, parsed afresh (a session starting with this token applies it)."""
        parsed: dict[str, Any] | None = orjson.loads(self.locked_setup) if self.locked_setup else None
        return parsed

    @property
    def size(self) -> int:
        return len(self.locked_setup) + TOKEN_OVERHEAD


class TokensFull(Exception):
    """A mint past the bound over every namespace (or a setup past a namespace's whole budget)."""


def new_token_name(replica: str = "") -> str:
    """A fresh ephemeral token's name: `auth_tokens/` and 48 random hex digits; on a replica given a name
    (`--replica NAME`) the digits follow `NAME-`, so a proxy can send a Live session opened with the token to the
    replica that minted it (docs/scaling.md). The name only routes; the digits after it are the secret."""
    return "auth_tokens/" + (f"{replica}-" if replica else "") + secrets.token_hex(24)


class LiveStore:
    """Open sessions, resumption handles and ephemeral tokens, per namespace. With `shared` (the Redis store,
    stores/live_redis.py) tokens and handles live there, and the Live rooms await it instead; the admin calls
    below then read it; open sessions stay here (the process holding their sockets)."""

    def __init__(
        self,
        per_namespace: int = DEFAULT_SESSIONS_PER_NAMESPACE,
        total: int = DEFAULT_SESSIONS_TOTAL,
        replica: str = "",
    ) -> None:
        self.per_namespace = per_namespace
        self.total = total
        self.replica = replica  # names the tokens minted here (new_token_name)
        self._open: dict[str, int] = {}
        self._handles: dict[str, OrderedDict[str, Saved]] = {}
        self._tokens: dict[str, Token] = {}  # by name
        self._minted: dict[str, OrderedDict[str, Token]] = {}  # per namespace, oldest first
        self._token_bytes: dict[str, int] = {}
        self._token_total = 0
        self._sessions: dict[str, dict[str, Any]] = {}
        self._serial = 0
        self._lock = threading.Lock()
        self.shared: RedisLiveShared | None = None

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
        if self.shared is not None:
            return self.shared.handles(namespace)
        with self._lock:
            return [
                (ns, handle, saved)
                for ns, held in self._handles.items()
                if namespace in (None, ns)
                for handle, saved in held.items()
            ]

    def tokens(self, namespace: str | None = None) -> list[Token]:
        if self.shared is not None:
            return self.shared.tokens(namespace)
        with self._lock:
            return [t for t in self._tokens.values() if namespace in (None, t.namespace)]

    def forget(self, namespace: str, name: str) -> bool:
        """Remove a resumption handle or an ephemeral token by name."""
        if self.shared is not None:
            return self.shared.forget(namespace, name)
        with self._lock:
            held = self._handles.get(namespace)
            if held and name in held:
                del held[name]
                return True
            token = self._tokens.get(name)
            if token is not None and token.namespace == namespace:
                self._drop_token(token)
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
        """A new token; TokensFull when it would pass the bound over every namespace."""
        token = Token(
            name=new_token_name(self.replica),
            namespace=namespace,
            uses=uses,
            expire_time=expire_time,
            new_session_expire_time=new_session_expire_time,
            locked_setup=orjson.dumps(constraints) if constraints is not None else b"",
            field_mask=field_mask,
        )
        if token.size > MAX_TOKEN_BYTES_PER_NAMESPACE:
            raise TokensFull(
                f"a token's setup may take at most {MAX_TOKEN_BYTES_PER_NAMESPACE - TOKEN_OVERHEAD} bytes of JSON"
            )
        now = time.time()
        with self._lock:
            self._drop_expired(namespace, now)
            mine = self._minted.setdefault(namespace, OrderedDict())
            while mine and (
                len(mine) >= MAX_TOKENS
                or self._token_bytes.get(namespace, 0) + token.size > MAX_TOKEN_BYTES_PER_NAMESPACE
            ):
                self._drop_token(next(iter(mine.values())))  # the oldest of this namespace goes
            if self._token_total + token.size > MAX_TOKEN_BYTES:
                for other in list(self._minted):
                    self._drop_expired(other, now)
                if self._token_total + token.size > MAX_TOKEN_BYTES:
                    raise TokensFull(f"the emulator's ephemeral tokens would take more than {MAX_TOKEN_BYTES} bytes")
            self._minted.setdefault(namespace, mine)[token.name] = token
            self._tokens[token.name] = token
            self._token_bytes[namespace] = self._token_bytes.get(namespace, 0) + token.size
            self._token_total += token.size
        return token

    def _drop_expired(self, namespace: str, now: float) -> None:
        """Forget the namespace's tokens past their expireTime (the lock is held)."""
        for token in [t for t in self._minted.get(namespace, {}).values() if now > t.expire_time]:
            self._drop_token(token)

    def _drop_token(self, token: Token) -> None:
        """The lock is held."""
        self._tokens.pop(token.name, None)
        mine = self._minted.get(token.namespace)
        if mine is None or mine.pop(token.name, None) is None:
            return
        self._token_bytes[token.namespace] -= token.size
        self._token_total -= token.size
        if not mine:
            del self._minted[token.namespace], self._token_bytes[token.namespace]

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
        tokens: dict[str, int] = {}
        for t in self.tokens():
            tokens[t.namespace] = tokens.get(t.namespace, 0) + 1
        handles: dict[str, int] = {}
        for ns, _, _ in self.handles():
            handles[ns] = handles.get(ns, 0) + 1
        with self._lock:
            return {
                "openSessions": dict(self._open),
                "openSessionsTotal": sum(self._open.values()),
                "limits": {"perNamespace": self.per_namespace, "total": self.total},
                "resumptionHandles": handles,
                "ephemeralTokens": tokens,
            }

    def reset(self, namespace: str | None = None) -> None:
        """Forget handles and tokens (open sessions stay counted until they end)."""
        if self.shared is not None:
            self.shared.reset(namespace)
        with self._lock:
            if namespace is None:
                self._handles.clear()
                self._tokens.clear()
                self._minted.clear()
                self._token_bytes.clear()
                self._token_total = 0
                return
            self._handles.pop(namespace, None)
            for token in list(self._minted.get(namespace, {}).values()):
                self._drop_token(token)
