"""The Live API: the BidiGenerateContent WebSocket protocol and ephemeral tokens, answered by the engine seam;
and Lyria RealTime's BidiGenerateMusic (music.py).

`serve` takes every WebSocket the app receives: a path the Live API does not dial is refused at the handshake
(403, before any upgrade); a Live path gets a session (room.py), journaled as one record with its messages.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from gemini_emulator.admin.journal import Journal
from gemini_emulator.protocol import routes
from gemini_emulator.stores.live import LiveStore
from gemini_emulator.wire.handlers import Context
from gemini_emulator.wire.incoming import headers_of, query_of
from gemini_emulator.wire.live.music import MusicSession
from gemini_emulator.wire.live.room import Session

RPC = "BidiGenerateContent"
MUSIC_RPC = "BidiGenerateMusic"
SWITCHING_PROTOCOLS = 101


async def serve(ctx: Context, store: LiveStore, journal: Journal, scope: Scope, receive: Receive, send: Send) -> None:
    """One WebSocket connection, start to end: a Live session, or a Lyria RealTime one on the music path."""
    ws = WebSocket(scope, receive, send)
    target = routes.match_live(scope["path"])
    kind: type[Session] | type[MusicSession] = Session
    rpc = RPC
    if target is None:
        target, kind, rpc = routes.match_music(scope["path"]), MusicSession, MUSIC_RPC
    if target is None:
        await ws.close()  # before the upgrade: uvicorn answers the handshake with 403
        return
    query = query_of(scope["query_string"])
    record = journal.begin("GET", scope["path"], query, scope["headers"])
    record.rpc = rpc
    session = kind(ctx, store, ws, target, record, headers_of(scope["headers"]), query)
    clean = False
    try:
        await session.run()
        clean = True
    finally:
        record.body = session.received_messages()
        journal.finish(record, SWITCHING_PROTOCOLS, session.transcript(), complete=clean)


def _stamp(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class AdminView:
    """Live sessions as the admin API lists and removes them (admin.api.Resources): open sessions, resumption
    handles and ephemeral tokens (a token's name is a credential: shown cut short)."""

    def __init__(self, store: LiveStore) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for name, info in self.store.sessions(namespace):
            out.append(
                {
                    "namespace": info["namespace"],
                    "name": name,
                    "kind": "session",
                    "model": info.get("model", ""),
                    "openedAt": _stamp(info["openedAt"]),
                    "turns": info.get("turns", 0),
                }
            )
        for ns, handle, saved in self.store.handles(namespace):
            out.append({"namespace": ns, "name": handle, "kind": "resumptionHandle", "contents": len(saved.contents)})
        for token in self.store.tokens(namespace):
            out.append(
                {
                    "namespace": token.namespace,
                    "name": token.name[:20] + "...",
                    "kind": "ephemeralToken",
                    "usesLeft": token.uses,
                    "expireTime": _stamp(token.expire_time),
                    "newSessionExpireTime": _stamp(token.new_session_expire_time),
                }
            )
        return out

    def remove(self, namespace: str, name: str) -> bool:
        return self.store.forget(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
