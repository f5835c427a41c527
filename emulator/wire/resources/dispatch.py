"""One entry for the rooms routed as Target(action="room", method="room.verb") (protocol/routes.py `_ROOM_RULES`):
each goes to its room's `handle`. A room raises ApiError for production's refusals; they leave here as Google's
envelope. `register` puts the rooms' stores into the admin API's resource views (list, remove, reset)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.responses import Response

from gemini_emulator.admin.api import Admin
from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.operations import OperationStore
from gemini_emulator.stores.operations_redis import RedisOperationStore
from gemini_emulator.wire.handlers import Context, error_response
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import file_search, files, operations

Room = Callable[[Context, Incoming, Target, Record], Awaitable[Response]]
ROOMS: dict[str, Room] = {
    "operations": operations.handle,
    "files": files.handle,
    "fileSearchStores": file_search.handle,
}


async def dispatch(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    room = ROOMS.get(target.method.partition(".")[0])
    try:
        if room is None:
            raise errors.not_implemented(f"the {target.method} method")
        return await room(ctx, request, target, record)
    except errors.ApiError as error:
        return error_response(error)


class OperationsView:
    """The operations as the admin API lists and removes them (admin.api.Resources)."""

    def __init__(self, store: OperationStore, shared: RedisOperationStore | None = None) -> None:
        self.store = store
        self.shared = shared  # the Redis store's (read with its sync client: the admin API calls off the loop)

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        ops = self.store.all(namespace) + (self.shared.all(namespace) if self.shared is not None else [])
        return [
            {"namespace": op.namespace, "name": op.name, "kind": op.kind, "done": op.done(), "state": op.state()}
            for op in ops
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if self.store.remove(namespace, name):
            return True
        return self.shared is not None and self.shared.remove(namespace, name)

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
        if self.shared is not None:
            self.shared.reset(namespace)


def register(admin: Admin, ctx: Context) -> None:
    admin.resources["operations"] = OperationsView(ctx.operations, ctx.shared_operations)
    admin.resources["files"] = files.FilesView(ctx)
    admin.resources["fileSearchStores"] = file_search.FileSearchView(ctx)
