"""The response builder's shortcuts against its general path: the laid-out text body (`_text_body`, with its
one-part case) against `build`'s full layout, and the usual usageMetadata display against the key-by-key one."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from gemini_emulator.protocol import printers
from gemini_emulator.seam import Chunk
from gemini_emulator.wire import responses

PARTS: dict[str, list[dict[str, Any]]] = {
    "one": [{"text": "Here is a clear answer about rivers. "}],
    "colon": [{"text": "a: b"}],
    "colon first": [{"text": ":a"}],
    "quote": [{"text": 'say "hi": <b>'}],
    "empty text": [{"text": ""}],
    "two": [{"text": "one "}, {"text": "two"}],
    "signed": [{"text": "x", "thoughtSignature": "c2ln"}],
    "thought": [{"text": "thinking", "thought": True}, {"text": "answer"}],
    "none": [],
    "not text": [{"text": 3}],
}
USAGES: list[dict[str, Any] | None] = [
    None,
    {},
    {"thoughtsTokenCount": 35},
    {"thoughtsTokenCount": 0},
    {"toolUsePromptTokenCount": 4},
    {"thoughtsTokenCount": 2, "toolUsePromptTokenCount": 4},
    {"thoughtsTokenCount": True},
]
MODELS = ["gemini-2.5-flash", "tunedModels/a:b", 'odd"model']


def _general(builder: responses.ResponseBuilder, chunk: Chunk, final: bool, stream: bool) -> dict[str, Any]:
    """`build` with its laid-out shortcut refused: the full layout."""

    class General(responses.ResponseBuilder):
        __slots__ = ()

        def _text_body(self, *args: Any) -> None:
            return None

    general = General(builder.backend, builder.model_version, builder.fingerprint, builder.usage, builder.server_tools)
    return general.build(chunk, final=final, stream=stream)


@pytest.mark.parametrize("backend", ["developer", "vertex"])
@pytest.mark.parametrize("model", MODELS)
def test_the_laid_out_text_body_prints_as_the_full_layout(backend: str, model: str) -> None:
    cases = itertools.product(PARTS.items(), USAGES, (None, "STOP", "MAX_TOKENS"), (False, True), (False, True))
    for (name, parts), usage, reason, stream, server_tools in cases:
        final = reason is not None or not stream
        shortcut, general = (
            responses.ResponseBuilder(backend, model, "fp-" + name, responses.Usage(11), server_tools) for _ in "ab"
        )
        fast = shortcut.build(Chunk([dict(p) for p in parts], reason, usage=usage), final=final, stream=stream)
        full = _general(general, Chunk([dict(p) for p in parts], reason, usage=usage), final, stream)
        case = (name, usage, reason, stream, server_tools)
        assert list(fast) == list(full), case  # the values: printed (a spelled float is a Fragment, equal to none)
        assert printers.pretty(fast) == printers.pretty(full), case
        assert printers.line(fast) == printers.line(full), case
        assert shortcut.usage == general.usage, case


def test_the_usual_developer_usage_is_laid_out_as_key_by_key() -> None:
    counts = (0, 3)
    for prompt, media, candidates, cached, cached_media, thoughts, tool_use in itertools.product(counts, repeat=7):
        usage = responses.Usage(prompt, media, candidates, cached_text=cached, cached_media=cached_media)
        for generated in ({}, {"IMAGE": 1290}):
            usage.candidates_media = dict(generated)
            fast, full = usage.developer(thoughts, tool_use), usage._developer(thoughts, tool_use)
            assert fast == full and list(fast) == list(full)
