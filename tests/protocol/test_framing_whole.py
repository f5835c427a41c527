"""`framing.whole`, the stream of an answer that is all at hand printed in one pass, pinned to the framer's own
pieces (`first`, each `next`, `end`) joined: for every mix of body classes the builders make (ColonFree, Plain,
FloatFree, a plain dict) and strings that would trip a one-pass print (colons, quotes, `<`, a key with a colon,
a non-str key, a float), the same bytes; and one piece only under the size it is given."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from gemini_emulator.protocol import framing, printers

_TEXTS = ["In short, rivers ", "a: b", ":first", "", "tab\there", "ünïcode ✓"]
_ODD_TEXTS = ['say "hi": now', "<b>bold</b>", 'x\\":y', "[{,:"]


def _body(kind: type[dict[str, Any]], text: str, n: int) -> dict[str, Any]:
    body = kind()
    body["candidates"] = [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}]
    body["usageMetadata"] = {"promptTokenCount": 11, "candidatesTokenCount": n, "serviceTier": "standard"}
    body["modelVersion"] = "gemini-2.5-flash"
    body["responseId"] = "z7vkIzbjIj98fp_mxErGlN"
    return body


def _bodies() -> list[list[dict[str, Any]]]:
    """Streams of one to four bodies: each class with each text it may hold, and odd ones."""
    one: list[dict[str, Any]] = []
    for n, text in enumerate(_TEXTS):
        one.append(_body(printers.Plain, text, n))
        if ":" not in text:
            one.append(_body(printers.ColonFree, text, n))
    for n, text in enumerate(_TEXTS + _ODD_TEXTS):
        one.append(_body(printers.FloatFree, text, n))
        one.append(_body(dict, text, n))
    key_colon = _body(printers.FloatFree, "x", 1)
    key_colon["a:"] = "b"
    non_str = _body(printers.FloatFree, "x", 1)
    non_str[7] = "seven"  # type: ignore[index]
    floats = _body(dict, "x", 1)
    floats["avgLogprobs"] = -0.123456789
    one += [key_colon, non_str, floats]
    streams = [[b] for b in one]
    streams += [list(s) for s in itertools.combinations(one[:12], 2)]
    streams += [one[i : i + 4] for i in range(len(one) - 3)]
    return streams


def _general(framer: framing.Framer, bodies: list[dict[str, Any]]) -> bytes:
    pieces = [framer.first(bodies[0]), *(framer.next(b) for b in bodies[1:]), *framer.end()]
    return b"".join(pieces)


@pytest.mark.parametrize("framer", [framing.sse, framing.json_array], ids=["sse", "array"])
def test_whole_is_the_framers_pieces_joined(framer: framing.Framer) -> None:
    joined_once = 0
    for bodies in _bodies():
        general = _general(framer, bodies)
        pieces = framing.whole(framer, bodies, 1 << 20)
        assert b"".join(pieces) == general, bodies
        joined_once += len(pieces) == 1 < len(bodies)
    assert joined_once  # the one-pass print was taken


@pytest.mark.parametrize("framer", [framing.sse, framing.json_array], ids=["sse", "array"])
def test_whole_keeps_the_pieces_of_a_stream_as_long_as_most(framer: framing.Framer) -> None:
    bodies = [_body(printers.ColonFree, "word " * 40, n) for n in range(4)]
    general = [framer.first(bodies[0]), *(framer.next(b) for b in bodies[1:]), *framer.end()]
    size = len(b"".join(general))
    assert framing.whole(framer, bodies, size) == general  # not under `most`: the framer's own pieces
    assert framing.whole(framer, bodies, size + 1) == [b"".join(general)]


def test_whole_of_no_body_fails_as_first_does() -> None:
    with pytest.raises(IndexError):
        framing.whole(framing.sse, [], 1 << 20)
