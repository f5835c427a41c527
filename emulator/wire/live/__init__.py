"""The Live API: the BidiGenerateContent WebSocket protocol and ephemeral tokens, answered by the engine seam.

`serve` takes every WebSocket the app receives: a path the Live API does not dial is refused at the handshake
(403, before any upgrade); a Live path gets a session (room.py), journaled as one record with its messages.
"""

from __future__ import annotations

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from gemini_emulator.admin.journal import Journal
from gemini_emulator.protocol import routes
from gemini_emulator.stores.live import LiveStore
from gemini_emulator.wire.handlers import Context
from gemini_emulator.wire.incoming import headers_of, query_of
from gemini_emulator.wire.live.room import Session

RPC = "BidiGenerateContent"
SWITCHING_PROTOCOLS = 101


async def serve(ctx: Context, store: LiveStore, journal: Journal, scope: Scope, receive: Receive, send: Send) -> None:
    """One WebSocket connection, start to end."""
    target = routes.match_live(scope["path"])
    ws = WebSocket(scope, receive, send)
    if target is None:
        await ws.close()  # before the upgrade: uvicorn answers the handshake with 403
        return
    query = query_of(scope["query_string"])
    record = journal.begin("GET", scope["path"], query, scope["headers"])
    record.rpc = RPC
    session = Session(ctx, store, ws, target, record, headers_of(scope["headers"]), query)
    clean = False
    try:
        await session.run()
        clean = True
    finally:
        record.body = session.received
        journal.finish(record, SWITCHING_PROTOCOLS, session.transcript(), complete=clean)
