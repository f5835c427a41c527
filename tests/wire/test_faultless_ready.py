"""A ready answer with no fault in it (handlers.built_bodies, then faults.whole_ready) against the general path
it shortcuts (built_ready's (body, fault) pairs, then faults.streamed_ready): the same bodies, headers and bytes."""

from __future__ import annotations

from typing import Any

import pytest

from gemini_emulator.protocol import framing, routes
from gemini_emulator.seam import Chunk
from gemini_emulator.wire import faults, handlers, responses, sending

CHUNKS: dict[str, list[Chunk]] = {
    "one": [Chunk([{"text": "Sunny in Paris."}], "STOP")],
    "three": [Chunk([{"text": "a "}]), Chunk([{"text": 'b: "c"'}]), Chunk([], "STOP", usage={"thoughtsTokenCount": 2})],
    "headers": [Chunk([{"text": "x"}], "STOP", headers={"x-extra": "1"})],
    "raw": [Chunk(raw={"candidates": []})],
}


def _run(chunks: list[Chunk], backend: str, int_enums: bool, frame: Any, fast: bool) -> tuple[bytes, dict[str, str]]:
    target = routes.match("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent")
    assert target is not None
    builder = responses.ResponseBuilder(backend, "gemini-2.5-flash", "fp", responses.Usage(7), False)
    headers: dict[str, str] = {"content-type": "text/event-stream"}
    if fast:
        assert handlers._faultless(chunks)
        ready = faults.whole_ready(frame, handlers.built_bodies(chunks, builder, target, int_enums, headers), headers)
    else:
        built = handlers.built_ready(chunks, builder, target, int_enums, headers)
        ready = faults.streamed_ready(frame, built, headers)
    assert isinstance(ready, sending.Ready)
    return b"".join(ready.pieces), headers


@pytest.mark.parametrize("name", CHUNKS)
@pytest.mark.parametrize("backend", ["developer", "vertex"])
@pytest.mark.parametrize("int_enums", [False, True])
@pytest.mark.parametrize("frame", [framing.sse, framing.json_array])
def test_a_faultless_ready_answer_sends_as_the_general_path(
    name: str, backend: str, int_enums: bool, frame: Any
) -> None:
    assert _run(CHUNKS[name], backend, int_enums, frame, True) == _run(CHUNKS[name], backend, int_enums, frame, False)
