"""The operations room: `GET /{v}/.../operations/{id}` (any parent: `models/veo-3.0-generate-001/operations/x`,
`fileSearchStores/s/operations/x`, plain `operations/x`), `GET /{v}/operations` (a page: `operations`,
`nextPageToken`), `POST ...:cancel` and `DELETE` (both answer `{}`, google.protobuf.Empty). The state is
gemini_emulator.stores.operations; a caller sees only the operations of its own namespace."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.operations import PAGE_DEFAULT, PAGE_MAX, Operation
from gemini_emulator.stores.operations_redis import RedisOperationStore
from gemini_emulator.wire.handlers import Context, json_response
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.common import caller, page_size


async def handle(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    namespace = caller(ctx, request, target, record)
    ops = ctx.operations
    shared = ctx.shared_operations
    verb = target.method.partition(".")[2]
    if verb == "list":
        size = page_size(request.query, PAGE_DEFAULT, PAGE_MAX)
        token = request.query.get("pageToken", "")
        if shared is not None:
            page, following = await _shared_page(ctx, shared, namespace, size, token)
        else:
            page, following = ops.list(namespace, page_size=size, page_token=token)
        body: dict[str, Any] = {"operations": [op.view() for op in page]} if page else {}
        if following:
            body["nextPageToken"] = following
        return json_response(body)
    local = shared is None or ops.get(namespace, target.name) is not None  # this process's own kinds first
    if not local and ctx.tuning_operation is not None and target.name.startswith("tunedModels/"):
        answered = await ctx.tuning_operation(namespace, target.name, verb)  # a tuning create's, on Redis
        if answered is not None:
            return json_response(answered)
    if verb == "cancel":
        if local:
            ops.cancel(namespace, target.name)
        else:
            assert shared is not None
            await shared.cancel(namespace, target.name)
        return json_response({})
    if verb == "delete":
        if local:
            ops.delete(namespace, target.name)
        else:
            assert shared is not None
            await shared.delete(namespace, target.name)
        return json_response({})
    if local:
        return json_response(ops.require(namespace, target.name).view())
    assert shared is not None
    return json_response((await shared.require(namespace, target.name)).view())


async def _shared_page(
    ctx: Context, shared: RedisOperationStore, namespace: str, size: int, token: str
) -> tuple[list[Operation], str]:
    """On the Redis store: the shared operations (Veo's, file search documents'), newest first, then this process's
    own (none left but those of a store's own making; a tuning create's is not listed, its job is shared); a token
    names the next operation of either."""
    ops = ctx.operations
    if token and ops.get(namespace, token) is not None:
        return ops.list(namespace, page_size=size, page_token=token)
    page, following = await shared.list(namespace, size, token)
    if following or len(page) == size:
        if not following:  # the shared ones end exactly here: the next page is this process's own, if any
            own, _ = ops.list(namespace, page_size=1)
            following = own[0].name if own else ""
        return page, following
    own, following = ops.list(namespace, page_size=size - len(page))
    return page + own, following
