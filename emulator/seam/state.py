"""The state-store seam: where a namespace's shared state lives, chosen by one setting (`--store`).

`memory` (the default) keeps everything in this process, as always. `redis://host:port/db` (or `rediss://`) keeps
the state every request touches (scripts, strict settings, the journal) in one Redis, so any number of worker
processes and replicas serve one consistent emulator. The stores themselves live with their owners (the scripted
engine's `RedisScriptStore`, the admin layer's `RedisJournal`); this module holds what they share: the parsed
setting, one connection pair per URL per process, and what a Redis that cannot be reached becomes (production's
503 UNAVAILABLE envelope and one rate-limited log line naming the store by its URL without a password).

Connections: the request path uses redis.asyncio (it never blocks the event loop); the sync client serves the
admin API (which calls it off the loop, in a thread) and the in-process fixtures' threads. Both time out: a Redis
that does not answer is a 503 within SOCKET_TIMEOUT_S, never a hang.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from time import monotonic
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gemini_emulator.protocol import errors

MEMORY = "memory"
SCHEMES = ("redis", "rediss", "unix")
CONNECT_TIMEOUT_S = 1.0  # a Redis that does not accept the connection: a 503 after this
SOCKET_TIMEOUT_S = 2.0  # a Redis that accepted but does not answer: a 503 after this
LOG_EVERY_S = 10.0  # one "unavailable" log line per store per this many seconds
KEY_PREFIX = "gemini-emulator:"  # every key the emulator writes starts with it (one Redis may hold other data)
# The version of the models added at run time (stores/models_redis.py); the journal's group commit reads it in its
# own Lua call and hands it to `RedisLink.saw_models`, so processes learn of changes with no round trip of their own.
MODELS_VERSION = KEY_PREFIX + "models:v"
UNAVAILABLE = "The service is currently unavailable."  # production's 503 UNAVAILABLE wording (best-known)

log = logging.getLogger("gemini_emulator")


def check_store(value: str) -> str:
    """The `--store` value, checked: `memory` or a redis URL; else a one-line ValueError."""
    if value == MEMORY:
        return value
    scheme = urlsplit(value).scheme
    if scheme not in SCHEMES:
        raise ValueError(f"--store must be `memory` or a redis://host:port/db URL, not {shown_url(value)!r}")
    try:
        import redis  # noqa: F401
    except ImportError:
        missing = "--store redis://...: the redis package is missing: pip install 'gemini-emulator[redis]'"
        raise ValueError(missing) from None
    return value


def shown_url(url: str) -> str:
    """The URL as logs and messages show it: any password replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))


@dataclass
class RedisLink:
    """One Redis's clients for this process: `sync` (thread-safe pool) and `aio` (made on first use, on the loop
    that uses it), and the rate-limited "unavailable" log line."""

    url: str
    shown: str = ""
    _sync: Any = None
    _aio: Any = None
    _aio_loop: Any = None
    _last_log: float = -LOG_EVERY_S
    _quiet: int = 0
    failing: bool = False  # since the last success
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Called (on the event loop) with the models' version a write saw (MODELS_VERSION); the app sets it. What it
    # returns, when not None, is awaited by the writer (the catalogue brought up to date).
    on_models: Callable[[int], Awaitable[Any] | None] | None = None

    def __post_init__(self) -> None:
        self.shown = shown_url(self.url)

    def _options(self) -> dict[str, Any]:
        return {
            "socket_connect_timeout": CONNECT_TIMEOUT_S,
            "socket_timeout": SOCKET_TIMEOUT_S,
            "retry_on_timeout": False,
            "health_check_interval": 0,
        }

    @property
    def sync(self) -> Any:
        if self._sync is None:
            import redis

            with self._lock:
                if self._sync is None:
                    self._sync = redis.Redis.from_url(self.url, **self._options())
        return self._sync

    @property
    def aio(self) -> Any:
        """The asyncio client of the running loop (a new loop, as in a test's second app, gets its own)."""
        import asyncio

        loop = asyncio.get_running_loop()
        if self._aio is None or self._aio_loop is not loop:
            import redis.asyncio

            self._aio = redis.asyncio.Redis.from_url(self.url, **self._options())
            self._aio_loop = loop
        return self._aio

    def unavailable(self, exc: BaseException) -> errors.ApiError:
        """The 503 a request gets while Redis cannot be reached, after one log line per LOG_EVERY_S."""
        now = monotonic()
        with self._lock:
            self.failing = True
            if now - self._last_log >= LOG_EVERY_S:
                quiet, self._quiet, self._last_log = self._quiet, 0, now
                more = f" ({quiet} more failures since the last such line)" if quiet else ""
                log.error("state store %s unavailable: %s%s", self.shown, _reason(exc), more)
            else:
                self._quiet += 1
        return errors.ApiError(503, UNAVAILABLE)

    def command(self, method: str, *args: Any) -> Any:
        """One plain Redis command through the sync client (`method` is redis-py's name for it), as the 503 when
        Redis cannot be reached."""
        try:
            result = getattr(self.sync, method)(*args)
        except failures() as exc:
            raise self.unavailable(exc) from None
        if self.failing:
            self.recovered()
        return result

    def saw_models(self, version: int) -> Awaitable[Any] | None:
        """A write's reply carried the models' version (MODELS_VERSION): the app compares it with its own and
        may hand back what brings it up to date, for the writer to await."""
        return self.on_models(version) if self.on_models is not None else None

    def recovered(self) -> None:
        """After a success that followed failures (the caller checks `failing`): one line, the store is back."""
        with self._lock:
            if self.failing:
                self.failing, self._quiet, self._last_log = False, 0, -LOG_EVERY_S
                log.warning("state store %s answers again", self.shown)


class LuaScripts:
    """One store's Lua scripts on its RedisLink, registered once per client (the sync one; each event loop's
    asyncio one): `await call(name, args, keys)` on the request path, `call_sync` in threads (the admin API's).
    A Redis that cannot be reached is the 503 (RedisLink.unavailable); the first success after failures logs
    that it answers again."""

    def __init__(self, link: RedisLink, scripts: Mapping[str, str]) -> None:
        self.link = link
        self.scripts = dict(scripts)
        self._aio: dict[str, Any] = {}
        self._aio_client: Any = None
        self._sync: dict[str, Any] = {}

    async def call(self, name: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        try:
            client = self.link.aio
            if client is not self._aio_client:
                self._aio = {script: client.register_script(text) for script, text in self.scripts.items()}
                self._aio_client = client
            result = await self._aio[name](keys=list(keys), args=list(args))
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return result

    def call_sync(self, name: str, args: Sequence[Any], keys: Sequence[str] = ()) -> Any:
        try:
            if not self._sync:
                client = self.link.sync
                self._sync = {script: client.register_script(text) for script, text in self.scripts.items()}
            result = self._sync[name](keys=list(keys), args=list(args))
        except failures() as exc:
            raise self.link.unavailable(exc) from None
        if self.link.failing:
            self.link.recovered()
        return result


def reply_text(value: Any) -> str:
    """A Redis reply's value as text (redis-py answers bytes; a decoded client or a number, as is)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]


_LINKS: dict[str, RedisLink] = {}
_LINKS_LOCK = threading.Lock()


def link(url: str) -> RedisLink:
    """The one RedisLink of `url` in this process (the script store and the journal share its pools)."""
    with _LINKS_LOCK:
        known = _LINKS.get(url)
        if known is None:
            known = _LINKS[url] = RedisLink(url)
        return known


def failures() -> tuple[type[BaseException], ...]:
    """The exceptions that mean Redis cannot be reached right now (connection refused or lost, timeouts)."""
    import redis.exceptions

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


SALT_ENV = "GEMINI_EMULATOR_INTERNAL_SALT"  # how `--workers` hands its processes the salt (never a setting)


def shared_salt(store: RedisLink, fresh: bytes) -> bytes:
    """The namespace salt every process on this store uses: `fresh` if none was drawn yet, else the one that was
    (kept in Redis, so replicas name a key alike; the key itself never reaches Redis). A one-line ValueError
    when Redis cannot be reached at start-up."""
    key = KEY_PREFIX + "salt"
    try:
        store.sync.set(key, fresh, nx=True)
        held = store.sync.get(key)
    except failures() as exc:
        raise ValueError(f"--store {store.shown}: cannot reach Redis at start-up: {_reason(exc)}") from None
    return bytes(held)
