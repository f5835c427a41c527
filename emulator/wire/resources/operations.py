"""The operations room: `GET /{v}/.../operations/{id}` (any parent: `models/veo-3.0-generate-001/operations/x`,
`fileSearchStores/s/operations/x`, plain `operations/x`), `GET /{v}/operations` (a page: `operations`,
`nextPageToken`), `POST ...:cancel` and `DELETE` (both answer `{}`, google.protobuf.Empty). The state is
gemini_emulator.stores.operations; a caller sees only the operations of its own namespace."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.operations import PAGE_DEFAULT, PAGE_MAX
from gemini_emulator.wire.handlers import Context, json_response
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources.common import caller, page_size


async def handle(ctx: Context, request: Incoming, target: Target, record: Record) -> Response:
    namespace = caller(ctx, request, target, record)
    ops = ctx.operations
    verb = target.method.partition(".")[2]
    if verb == "list":
        size = page_size(request.query, PAGE_DEFAULT, PAGE_MAX)
        page, following = ops.list(namespace, page_size=size, page_token=request.query.get("pageToken", ""))
        body: dict[str, Any] = {"operations": [op.view() for op in page]} if page else {}
        if following:
            body["nextPageToken"] = following
        return json_response(body)
    if verb == "cancel":
        ops.cancel(namespace, target.name)
        return json_response({})
    if verb == "delete":
        ops.delete(namespace, target.name)
        return json_response({})
    return json_response(ops.require(namespace, target.name).view())
