"""Credentials: where the caller's key or token is read from, and which calls need which. [wire-facts §2]

Developer API and Firebase take an API key (`x-goog-api-key` header or `?key=`; a bearer token works
too); Vertex AI proper needs an OAuth bearer token; Vertex express mode takes either. By default any
credential is accepted; `--api-key` makes every other key, and every bearer token but that same value, fail as
production fails a bad key (400 API_KEY_INVALID; docs/conformance.md).
The credential names the caller's namespace (the bearer token when both are sent, on every route and in the admin
API alike) as a salted digest; it is never logged. `x-emulator-namespace` names it instead, at most
MAX_NAMESPACE_CHARS characters; with an admin token configured only a caller that also sends the admin token may.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from functools import lru_cache

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import DEVELOPER, Target

ADMIN_TOKEN_HEADER = "x-emulator-admin-token"  # emulator/admin/guard.py guards the admin API with it
MAX_NAMESPACE_CHARS = 128
# Namespace digests are keyed with a secret drawn at start-up: a digest seen in the journal or a listing cannot be
# checked against guessed keys offline.
_SALT = secrets.token_bytes(32)
SALT_BYTES = 32


def use_salt(salt: bytes) -> None:
    """Key the namespace digests with `salt` instead: every process sharing one store must name a key alike
    (seam.state.shared_salt draws it once for all of them)."""
    global _SALT
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a namespace salt is {SALT_BYTES} bytes")
    _SALT = salt


def salt() -> bytes:
    return _SALT


_RPC = {
    "generateContent": "GenerateContent",
    "streamGenerateContent": "StreamGenerateContent",
    "countTokens": "CountTokens",
}


AUTHORIZATION = "authorization"  # the bearer token's header
API_KEY_HEADER, API_KEY_PARAM = "x-goog-api-key", "key"


def bearer(headers: Mapping[str, str]) -> str:
    """The request's OAuth bearer token ("" without one)."""
    value = headers.get(AUTHORIZATION)
    if not value:
        return ""
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def api_key(headers: Mapping[str, str], query: Mapping[str, str]) -> str:
    return headers.get(API_KEY_HEADER, "") or query.get(API_KEY_PARAM, "")


def authenticate(target: Target, headers: Mapping[str, str], query: Mapping[str, str], required_key: str | None) -> str:
    """The caller's namespace (its key or token), or the error production answers with."""
    token = bearer(headers) if AUTHORIZATION in headers else ""  # no call for the usual request, with a key
    # api_key, less a call; only Vertex families take OAuth alone (Target.uses_oauth), and the usual target is not
    oauth = target.backend != DEVELOPER and target.uses_oauth
    key = "" if oauth else headers.get(API_KEY_HEADER, "") or query.get(API_KEY_PARAM, "")
    if not key and not token:
        if target.backend == "vertex" and target.family != "firebase-vertex":
            version = target.version if target.version != "v1beta" else "v1beta1"
            raise errors.vertex_credentials_missing(version, _RPC.get(target.method, "GenerateContent"))
        raise errors.unregistered_caller()
    if required_key is not None and not hmac.compare_digest((key or token).encode(), required_key.encode()):
        service = "aiplatform.googleapis.com" if target.backend == "vertex" else "generativelanguage.googleapis.com"
        raise errors.api_key_invalid(service)
    return token or key


APP_CHECK_HEADER = "x-firebase-appcheck"
FIREBASE_FAMILIES = frozenset({"firebase-developer", "firebase-vertex"})


def require_app_check(target: Target, headers: Mapping[str, str]) -> None:
    """Under `--app-check`, a Firebase AI Logic call's refusal when it carries no usable App Check token: none, an
    empty one, or the placeholder the Firebase SDKs send when they could not get one (base64 of a JSON object
    holding "error"). Any other token is accepted: the emulator verifies none."""
    if target.family not in FIREBASE_FAMILIES:
        return
    token = headers.get(APP_CHECK_HEADER, "").strip()
    if not token or _placeholder(token):
        raise errors.app_check_invalid()


def _placeholder(token: str) -> bool:
    if len(token) > 256 or "." in token:  # App Check tokens are JWTs (dotted); placeholders are short base64
        return False
    try:
        decoded = orjson.loads(base64.b64decode(token + "=" * (-len(token) % 4), validate=False))
    except (ValueError, orjson.JSONDecodeError):
        return False
    return isinstance(decoded, dict) and "error" in decoded


NAMESPACE_HEADER = "x-emulator-namespace"


def namespace_of(headers: Mapping[str, str], credential: str, admin_token: str | None) -> str:
    """The caller's namespace: the `x-emulator-namespace` header when given (and, when the server has an admin
    token, sent with it), else a salted digest of the credential ("key:" and 32 hex digits), so the key itself never
    appears in the journal or listings. A header past MAX_NAMESPACE_CHARS is the caller's 400."""
    explicit = headers.get(NAMESPACE_HEADER)
    if explicit and (explicit := explicit.strip()):
        if len(explicit) > MAX_NAMESPACE_CHARS:
            raise errors.ApiError(400, f"{NAMESPACE_HEADER}: at most {MAX_NAMESPACE_CHARS} characters")
        if admin_token is None or _admin_token_given(headers, admin_token):
            return explicit
    return key_namespace(credential)


def key_namespace(credential: str) -> str:
    """The namespace a credential names when no header names one ("" for none): what tests and fixtures look up."""
    return _digest(credential) if credential else ""


def _admin_token_given(headers: Mapping[str, str], admin_token: str) -> bool:
    given = headers.get(ADMIN_TOKEN_HEADER, "").encode("latin-1")
    return hmac.compare_digest(given, admin_token.encode())


@lru_cache(maxsize=1024)
def _digest(credential: str) -> str:
    return "key:" + hmac.new(_SALT, credential.encode(), hashlib.sha256).hexdigest()[:32]


def caller_namespace(headers: Mapping[str, str], query: Mapping[str, str], admin_token: str | None) -> str:
    """Namespace named by a request's own headers, as the API names it: the bearer token before the API key."""
    return namespace_of(headers, bearer(headers) or api_key(headers, query), admin_token)
