"""`fileData.fileUri` in a generate or countTokens request, checked against the caller's stored files (Developer
API): a Files API uri (`https://generativelanguage.googleapis.com/v1beta/files/ID`, this emulator's own
`http://host:port/v1beta/files/ID`, or `files/ID`) must name one of the caller's files, else production's 403; a
file still PROCESSING, or FAILED, is refused as production refuses it. Other uris (gs://, YouTube, public URLs)
are left alone. A known file counts in the prompt as media does (protocol/tokens.py).

On `--store redis://...` the files are in Redis, which this synchronous check cannot ask: the async entry points
(`handlers.call`, the caches room) first `prefetch` the files a request names (one round trip each), and `check`
reads those (SEEN, this request's own; a batch item prefetches as a request does). A path that did not prefetch
(interactions) leaves its uris alone there rather than refuse files it cannot see."""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.stores.files import FileReader, FileStore, StoredFile

MAX_PREFETCH = 256  # distinct files one request may name on Redis (each one round trip); the rest are refused
SEEN: ContextVar[dict[str, StoredFile | None] | None] = ContextVar("files_seen", default=None)
_FILES_URI = re.compile(r"^(?:[a-z]+://[^/]+)?/?(?:v1|v1beta|v1alpha)?/?(files/[^/:?#]+)(?::download)?(?:\?.*)?$")


def no_permission(file_id: str) -> errors.ApiError:
    """Another key's, a deleted, an expired or an unknown file: production's 403 (issue threads quoting it for
    files.get and for generateContent with a fileUri; docs/conformance.md)."""
    return errors.ApiError(403, f"You do not have permission to access the File {file_id} or it may not exist.")


def not_active(file_id: str) -> errors.ApiError:
    """A file used before it is ACTIVE (best-known wording: an application's notes quote "not in an ACTIVE
    state"; docs/conformance.md)."""
    return errors.ApiError(
        400, f"The File {file_id} is not in an ACTIVE state and usage is not allowed.", status="FAILED_PRECONDITION"
    )


def file_name(uri: str) -> str | None:
    """`files/ID` when `uri` is a Files API uri, else None."""
    found = _FILES_URI.match(uri.strip())
    return found[1] if found else None


def _named(contents: Any) -> list[str]:
    names: list[str] = []
    for content in contents if isinstance(contents, list) else []:
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            data = (part.get("fileData") or part.get("file_data")) if isinstance(part, dict) else None
            uri = (data.get("fileUri") or data.get("file_uri")) if isinstance(data, dict) else None
            name = file_name(uri) if isinstance(uri, str) else None
            if name is not None and name not in names:
                names.append(name)
    return names


async def prefetch(files: FileReader, target: Target, body: Any, namespace: str) -> None:
    """On Redis: the files a request's contents (or its generateContentRequest's) name, for `check` (SEEN)."""
    if target.backend != DEVELOPER or not isinstance(body, dict):
        return
    inner = body.get("generateContentRequest")
    names = _named(body.get("contents")) + (_named(inner.get("contents")) if isinstance(inner, dict) else [])
    seen: dict[str, StoredFile | None] = {}
    for name in names[:MAX_PREFETCH]:
        seen[name] = await files.get(namespace, name)
    SEEN.set(seen)


def check(files: FileStore, target: Target, contents: Iterable[Any], namespace: str) -> None:
    """Refuse the request when a fileData part names a file the caller does not have, or one not ACTIVE."""
    if target.backend != DEVELOPER:
        return
    seen = SEEN.get()
    if seen is None and files.elsewhere:  # on Redis, not prefetched: left alone (module docstring)
        return
    for content in contents:
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            data = part.get("fileData") if isinstance(part, dict) else None
            uri = data.get("fileUri") if isinstance(data, dict) else None
            name = file_name(uri) if isinstance(uri, str) else None
            if name is None:
                continue
            stored = files.get(namespace, name) if seen is None else seen.get(name)
            if stored is None:
                raise no_permission(name.removeprefix("files/"))
            if stored.state != "ACTIVE":
                raise not_active(stored.id)
