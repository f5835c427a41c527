"""Environments (google-genai 3.6.1's `client.environments`): each namespace's agent sandboxes and the files in
their workspaces.

An environment holds its configuration (mode, network, sources, custom_config, system_instruction, as the SDK's
CreateEnvironmentRequest has them) and a workspace: files by relative path (`src/main.py`), their bytes in memory.
Directories are what the paths imply. Nothing runs in a sandbox here: an inline source is written to its target
when the environment is made; the other sources (gcs, repository, skill_registry) are recorded, not fetched.

Bounds: MAX_PER_NAMESPACE environments per namespace and MAX_ENVIRONMENTS in all; MAX_CONFIG_BYTES of
configuration an environment; MAX_FILES files and MAX_ENVIRONMENT_BYTES bytes an environment, MAX_FILE_BYTES a file,
MAX_BYTES_PER_NAMESPACE bytes of files per namespace and MAX_BYTES in all (past any, a create or a write is refused:
EnvironmentsFull); paths of at most MAX_PATH_CHARS characters and MAX_DEPTH segments, without `.` or `..`
segments. Thread-safe.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from gemini_emulator.stores.keyed import Full, Keyed

MODES = ("on_demand", "self_hosted")  # EnvironmentMode
SOURCE_TYPES = ("gcs", "inline", "repository", "skill_registry")  # SourceType
MAX_PER_NAMESPACE = 100
MAX_ENVIRONMENTS = 10_000
MAX_CONFIG_BYTES = 64 << 10
MAX_FILES = 1000
MAX_FILE_BYTES = 8 << 20
MAX_ENVIRONMENT_BYTES = 32 << 20
MAX_BYTES_PER_NAMESPACE = 64 << 20
MAX_BYTES = 256 << 20
MAX_PATH_CHARS = 1024
MAX_DEPTH = 32
ID_PREFIX = "env_"
KEY_PREFIX = "envkey_"


class EnvironmentsFull(Full):
    """No room for another environment or file: the message says which bound."""


class BadPath(ValueError):
    """A workspace path that cannot be one: the message says why."""


class FileExists(Exception):
    """A write without overwrite onto a file that is there."""


def clean_path(path: str) -> str:
    """A workspace path, relative and normalised (`/src//main.py` is `src/main.py`; "" the root); BadPath."""
    if len(path) > MAX_PATH_CHARS:
        raise BadPath(f"path must be at most {MAX_PATH_CHARS} characters.")
    parts = [part for part in path.split("/") if part]
    if any(part in (".", "..") for part in parts):
        raise BadPath("path must not hold . or .. segments.")
    if len(parts) > MAX_DEPTH:
        raise BadPath(f"path must have at most {MAX_DEPTH} segments.")
    if any(ord(c) < 0x20 or c == "\x7f" for c in path):
        raise BadPath("path must not hold control characters.")
    return "/".join(parts)


def stamp(seconds: float) -> str:
    """Epoch seconds as the environments' timestamps print them (YYYY-MM-DDThh:mm:ssZ)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@dataclass
class WorkspaceFile:
    """One file of a workspace."""

    data: bytes
    mime_type: str
    created: float
    modified: float
    blob: str = ""  # on Redis: where its bytes are kept (`data` empty until read: stores/records_redis.py)
    held: int = 0  # on Redis: its size

    @property
    def size(self) -> int:
        return self.held if self.blob else len(self.data)


@dataclass
class Environment:
    """One sandbox: its configuration (JSON, as given) and its workspace."""

    id: str
    namespace: str
    config: dict[str, Any]
    created: float
    updated: float
    accessed: float
    key: str = ""  # a self_hosted environment's key: shown once, at create
    files: dict[str, WorkspaceFile] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files.values())


class EnvironmentStore(Keyed[Environment]):
    """Every namespace's environments, oldest first (module docstring: bounds); the byte bounds count their files."""

    full = EnvironmentsFull
    noun = "environments"

    def __init__(self) -> None:
        super().__init__(
            MAX_PER_NAMESPACE, MAX_ENVIRONMENTS, bytes_per_namespace=MAX_BYTES_PER_NAMESPACE, bytes_overall=MAX_BYTES
        )

    def size_of(self, record: Environment) -> int:
        return record.size

    def create(
        self, namespace: str, config: dict[str, Any], files: dict[str, tuple[bytes, str]], self_hosted: bool
    ) -> Environment:
        """A new environment of `config` with `files` (path: (bytes, mime type)) in its workspace; EnvironmentsFull,
        or ValueError when the configuration is past MAX_CONFIG_BYTES."""
        if len(orjson.dumps(config)) > MAX_CONFIG_BYTES:
            raise ValueError(f"an environment's configuration takes at most {MAX_CONFIG_BYTES} bytes of JSON")
        size = sum(len(data) for data, _ in files.values())
        _check_files(len(files), size)
        now = time.time()
        with self._lock:
            self._room(namespace, size)
            env_id = self._fresh_id(namespace, _new_id)
            made = Environment(env_id, namespace, config, now, now, now)
            if self_hosted:
                made.key = KEY_PREFIX + secrets.token_urlsafe(24)
            made.files = {path: WorkspaceFile(data, mime, now, now) for path, (data, mime) in files.items()}
            return self._put(namespace, env_id, made)

    def touched(self, namespace: str, env_id: str) -> Environment | None:
        """The environment, its last access now."""
        with self._lock:
            found = self._find(namespace, env_id)
            if found is not None:
                found.accessed = time.time()
            return found

    def listed(self, namespace: str) -> list[Environment]:
        return self.all(namespace)

    def write(
        self, env: Environment, files: dict[str, tuple[bytes, str]], overwrite: bool
    ) -> list[tuple[str, WorkspaceFile]]:
        """Write `files` into the environment's workspace (all or none); FileExists without `overwrite`,
        BadPath where a file would sit under another or over a directory, EnvironmentsFull past a bound."""
        now = time.time()
        with self._lock:
            if self._find(env.namespace, env.id) is not env:
                raise KeyError(env.id)  # deleted meanwhile
            replaced, added = planned(env, files, overwrite)
            self._check_bytes(env.namespace, added - replaced)
            for path, (data, mime) in files.items():
                created = env.files[path].created if path in env.files else now
                env.files[path] = WorkspaceFile(data, mime, created, now)
            env.updated = now
            self._add_bytes(env.namespace, added - replaced)
            return [(path, env.files[path]) for path in files]


def _new_id() -> str:
    return ID_PREFIX + secrets.token_hex(8)


def planned(env: Environment, files: dict[str, tuple[bytes, str]], overwrite: bool) -> tuple[int, int]:
    """A write of `files` into the environment checked (EnvironmentStore.write's refusals but the byte bounds):
    the bytes it replaces and the bytes it adds."""
    for path in files:
        if path in env.files and not overwrite:
            raise FileExists(path)
        if any(held.startswith(path + "/") for held in env.files):
            raise BadPath(f"{path} is a directory.")
        parents = path.split("/")[:-1]
        if any("/".join(parents[: i + 1]) in env.files for i in range(len(parents))):
            raise BadPath(f"{path} lies under a file.")
    replaced = sum(env.files[p].size for p in files if p in env.files)
    added = sum(len(data) for data, _ in files.values())
    _check_files(len(env.files.keys() | files.keys()), env.size - replaced + added)
    return replaced, added


def _check_files(count: int, size: int) -> None:
    if count > MAX_FILES:
        raise EnvironmentsFull(f"an environment holds at most {MAX_FILES} files")
    if size > MAX_ENVIRONMENT_BYTES:
        raise EnvironmentsFull(f"an environment's files take at most {MAX_ENVIRONMENT_BYTES} bytes")
