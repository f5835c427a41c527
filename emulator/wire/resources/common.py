"""What every resource room does alike: who is calling (credential, namespace), paging parameters, mime types."""

from __future__ import annotations

from collections.abc import Mapping

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target
from gemini_emulator.wire import auth, validate
from gemini_emulator.wire.handlers import Context
from gemini_emulator.wire.incoming import Incoming


def caller(ctx: Context, request: Incoming, target: Target, record: Record) -> str:
    """The caller's namespace, after production's credential checks (the journal record learns it too)."""
    record.rpc = target.method
    credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
    record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
    return record.namespace


def page_size(query: Mapping[str, str], default: int, maximum: int) -> int:
    """`pageSize` (or `page_size`, as the 2026 resources' SDK sends it) as production reads it: an int32 (else its
    400), 0 or less meaning the default, capped."""
    text = query.get("page_size", query.get("pageSize", ""))
    if text and not validate.int_text_ok("int32", text):
        raise errors.payload_violations([errors.invalid_value("page_size", "TYPE_INT32", f'"{text[:100]}"')])
    size = int(text) if text else default
    return default if size <= 0 else min(size, maximum)


# The bare types accepted beside `type/subtype`, kept as given: `jsonl`, as Google's batch documentation uploads its
# input (`mime_type="jsonl"`). Best-known: no capture shows what production stores for it, nor which others it takes.
BARE_TYPES = frozenset({"jsonl"})


def mime_type(given: str) -> str:
    """A stored resource's mime type, checked: `type/subtype[;params]` (or one of BARE_TYPES) in
    printable ASCII without spaces, at most 255 characters (it is served back in a Content-Type header)."""
    mime = given.strip()
    typed = "/" in mime or mime in BARE_TYPES
    if not typed or len(mime) > 255 or any(not "!" <= c <= "~" for c in mime):
        raise errors.invalid_argument(f"Invalid mime type: {mime[:100]}")
    return mime
