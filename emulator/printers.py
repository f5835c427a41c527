"""The two JSON printers production uses, byte for byte. [wire-facts §4]

- `pretty`: unary and error bodies; 2-space indent, `": "`, one member per line, one trailing newline.
- `line`: SSE payloads; one line, `": "` after keys and a bare `,` between members.
Both escape `<` and `>` as \\u003c / \\u003e and print every other character as raw UTF-8.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
# Outside strings, the indented form's only whitespace is "\n" + indent and the space after ":".
# A raw newline never occurs inside an orjson string (it is escaped), so removing "\n" + spaces
# yields exactly production's one-line form.
_BREAKS = re.compile(rb"\n *")


def _escape(data: bytes) -> bytes:
    # '<' and '>' can only occur inside JSON strings, so a plain replace is exact.
    if b"<" in data:
        data = data.replace(b"<", b"\\u003c")
    if b">" in data:
        data = data.replace(b">", b"\\u003e")
    return data


def indented(obj: Any) -> bytes:
    """Pretty form without the trailing newline (the JSON-array stream joins these)."""
    return _escape(orjson.dumps(obj, option=_OPTIONS))


def pretty(obj: Any) -> bytes:
    """Unary/error body: the pretty form plus the single trailing newline."""
    return indented(obj) + b"\n"


def line(obj: Any) -> bytes:
    """SSE payload: one line, `": "` after keys, bare `,` between members."""
    return _escape(_BREAKS.sub(b"", orjson.dumps(obj, option=_OPTIONS)))


def canonical(obj: Any) -> bytes:
    """Compact, key-sorted JSON: equal for requests that differ only in key order or whitespace."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
