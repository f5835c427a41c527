"""Credentials: where the caller's key or token is read from, and which calls need which. [wire-facts §2]

Developer API and Firebase take an API key (`x-goog-api-key` header or `?key=`; a bearer token works
too); Vertex AI proper needs an OAuth bearer token; Vertex express mode takes either. By default any
credential is accepted; `--api-key` makes every other key fail as production fails a bad key.
The credential names the caller's namespace; it is never logged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target

_RPC = {
    "generateContent": "GenerateContent",
    "streamGenerateContent": "StreamGenerateContent",
    "countTokens": "CountTokens",
}


def _bearer(headers: Mapping[str, str]) -> str:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def api_key(headers: Mapping[str, str], query: Mapping[str, str]) -> str:
    return headers.get("x-goog-api-key", "") or query.get("key", "")


def authenticate(target: Target, headers: Mapping[str, str], query: Mapping[str, str], required_key: str | None) -> str:
    """The caller's namespace (its key or token), or the error production answers with."""
    token = _bearer(headers)
    key = "" if target.uses_oauth else api_key(headers, query)
    if not key and not token:
        if target.backend == "vertex" and target.family != "firebase-vertex":
            version = target.version if target.version != "v1beta" else "v1beta1"
            raise errors.vertex_credentials_missing(version, _RPC.get(target.method, "GenerateContent"))
        raise errors.unregistered_caller()
    if key and required_key is not None and key != required_key:
        service = "aiplatform.googleapis.com" if target.backend == "vertex" else "generativelanguage.googleapis.com"
        raise errors.api_key_invalid(service)
    return key or token


NAMESPACE_HEADER = "x-emulator-namespace"


def namespace_of(headers: Mapping[str, str], credential: str) -> str:
    """The caller's namespace: the `x-emulator-namespace` header when given, else a digest of the
    credential ("key:1a2b3c4d5e6f7a8b"), so the key itself never appears in the journal or listings."""
    explicit = headers.get(NAMESPACE_HEADER, "").strip()
    if explicit:
        return explicit
    return _digest(credential) if credential else ""


@lru_cache(maxsize=1024)
def _digest(credential: str) -> str:
    return "key:" + hashlib.sha256(credential.encode()).hexdigest()[:16]


def caller_namespace(headers: Mapping[str, str], query: Mapping[str, str]) -> str:
    """Namespace named by an admin request's own headers (same credential headers as the API)."""
    return namespace_of(headers, api_key(headers, query) or _bearer(headers))
