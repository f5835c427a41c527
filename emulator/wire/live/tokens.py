"""Ephemeral tokens: `POST /v1alpha/auth_tokens` mints one; `...BidiGenerateContentConstrained` sessions spend it.

google-genai's `client.auth_tokens.create(config=...)` (tokens.py, _tokens_converters.py) posts `{uses, expireTime,
newSessionExpireTime, bidiGenerateContentSetup, fieldMask}` (fieldMask a comma-joined string of setup fields) and
reads back an AuthToken whose `name` ("auth_tokens/...") is the credential a client then connects with
(`Authorization: Token <name>`, or `?access_token=`). Its documented rules (types.AuthToken, CreateAuthTokenConfig):
uses default 1, 0 no limit, resuming a session is not a use; expireTime default 30 minutes ahead, newSessionExpireTime
60 seconds ahead, each less than 20 hours ahead; a `bidiGenerateContentSetup` locks every field it sets, and with a
`fieldMask` only the fields the mask names. The token's state lives in the LiveStore, in the minting key's namespace.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.live import LiveStore, TokensFull
from gemini_emulator.wire import auth, handlers, validate
from gemini_emulator.wire.incoming import Incoming

DEFAULT_EXPIRE_S = 30 * 60
DEFAULT_NEW_SESSION_S = 60
MAX_AHEAD_S = 20 * 60 * 60
_FIELDS = {"uses", "expireTime", "newSessionExpireTime", "bidiGenerateContentSetup", "fieldMask", "name"}
_SNAKE = {"expire_time": "expireTime", "new_session_expire_time": "newSessionExpireTime"}
_SNAKE |= {"bidi_generate_content_setup": "bidiGenerateContentSetup", "field_mask": "fieldMask"}


async def create(
    ctx: handlers.Context, store: LiveStore, request: Incoming, target: Target, record: Record
) -> Response:
    """POST /v1alpha/auth_tokens."""
    record.rpc = "auth_tokens.create"
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        record.namespace = namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        raw = await ctx.bodies.read(request.receive, request.headers)
        body = await validate.parsed_body(raw)
        record.body = body
        body = {_SNAKE.get(k, k): v for k, v in body.items()}
        unknown = sorted(set(body) - _FIELDS)
        if unknown:
            raise errors.payload_violations([errors.unknown_name(unknown[0], "")])
        now = time.time()
        uses = body.get("uses", 1)
        if not isinstance(uses, int) or isinstance(uses, bool) or uses < 0:
            raise errors.payload_violations([errors.invalid_value("uses", "TYPE_INT32", repr(uses))])
        expire = _time(body, "expireTime", now + DEFAULT_EXPIRE_S, now)
        new_session = _time(body, "newSessionExpireTime", now + DEFAULT_NEW_SESSION_S, now)
        setup = body.get("bidiGenerateContentSetup")
        if setup is not None and not isinstance(setup, dict):
            raise errors.payload_violations(
                [errors.invalid_value("bidi_generate_content_setup", "BidiGenerateContentSetup", repr(setup))]
            )
        mask = body.get("fieldMask", "")
        if not isinstance(mask, str):
            raise errors.payload_violations([errors.invalid_value("field_mask", "TYPE_STRING", repr(mask))])
        if store.shared is not None:  # the Redis store: the token accepted by every process
            token = await store.shared.mint(namespace, uses or 1_000_000_000, expire, new_session, setup, mask)
        else:
            token = store.mint(namespace, uses or 1_000_000_000, expire, new_session, setup, mask)
        return handlers.json_response({"name": token.name})
    except TokensFull as full:
        return handlers.error_response(errors.ApiError(429, f"gemini-emulator: {full}."))
    except errors.ApiError as error:
        return handlers.error_response(error)


def _time(body: dict[str, Any], key: str, default: float, now: float) -> float:
    text = body.get(key)
    if text is None:
        return default
    try:
        when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        value = when.timestamp()
    except ValueError:
        raise errors.payload_violations(
            [errors.invalid_value(_snake(key), "google.protobuf.Timestamp", f'"{text}"')]
        ) from None
    if value - now >= MAX_AHEAD_S:
        raise errors.invalid_argument(f"{key} must be less than 20 hours in the future.")  # best-known wording
    return value


def _snake(key: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def locked(setup: dict[str, Any], constraints: dict[str, Any], mask: str) -> dict[str, Any]:
    """The session's setup with the token's locked fields applied: all it sets, or only the fields `mask` names
    (`temperature` and other generation settings may be named bare or as generationConfig.x)."""
    if not mask:
        return setup | constraints
    out = dict(setup)
    for name in (m.strip() for m in mask.split(",") if m.strip()):
        head, _, rest = name.partition(".")
        if rest and head == "generationConfig":
            config = dict(out.get("generationConfig") or {})
            given = (constraints.get("generationConfig") or {}).get(rest)
            if given is None:
                config.pop(rest, None)
            else:
                config[rest] = given
            out["generationConfig"] = config
        elif head in constraints:
            out[head] = constraints[head]
        else:
            out.pop(head, None)
    return out


def redacted(body: bytes) -> bytes:
    """The answer as the journal keeps it: the token's name is a credential."""
    return re.sub(rb"auth_tokens/[A-Za-z0-9_-]+", b"auth_tokens/REDACTED", body)
