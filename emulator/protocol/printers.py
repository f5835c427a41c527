"""The two JSON printers production uses, byte for byte. [wire-facts §4]

- `pretty`: unary and error bodies; 2-space indent, `": "`, one member per line, one trailing newline.
- `line`: SSE payloads; one line, `": "` after keys and a bare `,` between members.
Both escape `<` and `>` as \\u003c / \\u003e and print every other character as raw UTF-8.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_INDENT_2
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


def double(value: float) -> orjson.Fragment:
    """A finite double as protobuf's SimpleDtoa prints it: %.15g, or %.17g when that does not round-trip
    (`-0.00052006928516285759`, `1.057061e-05`, `1` for 1.0), as in every byte-exact capture. The printers spell
    each float of what they print so; a maker may put the spelled value in itself (a FloatFree dict may hold it)."""
    text = f"{value:.15g}"
    if float(text) != value:
        text = f"{value:.17g}"
    return orjson.Fragment(text.encode())


def _doubles(obj: Any) -> Any:
    """`obj` with every finite float replaced by production's spelling; containers holding no float are
    returned as they are (no copy), so the common float-free answer costs one walk and no allocation."""
    kind = type(obj)
    if kind is float:
        return double(obj) if math.isfinite(obj) else obj
    if kind is dict:
        items: Any = obj.items()
    elif kind is list:
        if obj and type(obj[0]) is float and all(type(v) is float for v in obj):
            return _float_list(obj)  # an embedding's values: one pass, no call per number
        items = enumerate(obj)
    else:
        return obj
    copy = None
    for key, value in items:
        if type(value) in _WALKED:
            new = _doubles(value)
            if new is not value:
                if copy is None:
                    copy = kind(obj)
                copy[key] = new
    return obj if copy is None else copy


_WALKED = (float, dict, list)


def _float_list(values: list[float]) -> list[Any]:
    """`double` of each float of `values` (non-finite ones kept as they are), inlined for long lists."""
    fragment, isfinite = orjson.Fragment, math.isfinite
    out: list[Any] = []
    append = out.append
    for value in values:
        if not isfinite(value):
            append(value)
            continue
        text = f"{value:.15g}"
        append(fragment((text if float(text) == value else f"{value:.17g}").encode()))
    return out


class FloatFree(dict[str, Any]):
    """A dict its maker knows holds no float anywhere: printed without searching it for one (orjson prints a dict
    subclass as a dict). Response bodies are built as these when the engine's parts hold no float."""

    __slots__ = ()


class Plain(FloatFree):
    """A FloatFree dict whose maker checked every string in it, keys and values: each is `plain_string`. Its
    compact JSON needs no search: every `":` in it is a key's end, and there is no `<` or `>` to escape."""

    __slots__ = ()


class ColonFree(Plain):
    """A Plain dict none of whose strings holds a `:` at all: in its compact JSON every `:` is a key's end."""

    __slots__ = ()


_PLAIN = (Plain, ColonFree)


def plain_string(text: str) -> bool:
    """Whether `text` may go in a Plain dict: no `"` (whose escape `\\"` may precede a `:`), no `<` or `>`, and
    no `:` first (a string opening with `":` looks like a key's end)."""
    return '"' not in text and "<" not in text and ">" not in text and text[:1] != ":"


def holds_float(obj: Any) -> bool:
    """Whether any float occurs in `obj`: one loop over an explicit stack (answers rarely hold one)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        for value in item.values() if type(item) is dict else item:
            kind = type(value)
            if kind is float:
                return True
            if kind is dict or kind is list:
                stack.append(value)
    return False


def _dumps(obj: Any, option: int = _OPTIONS) -> bytes:
    kind = type(obj)
    if kind is float or ((kind is dict or kind is list) and holds_float(obj)):
        obj = _doubles(obj)
    try:
        return orjson.dumps(obj, option=option)
    except TypeError:  # a key that is not a str (see _compact)
        return orjson.dumps(obj, option=option | orjson.OPT_NON_STR_KEYS)


def indented(obj: Any) -> bytes:
    """Pretty form without the trailing newline (the JSON-array stream joins these)."""
    if type(obj) in _PLAIN:
        return _dumps(obj)
    return _escape(_dumps(obj))


def pretty(obj: Any) -> bytes:
    """Unary/error body: the pretty form plus the single trailing newline."""
    if type(obj) in _PLAIN:
        return _dumps(obj, _OPTIONS | orjson.OPT_APPEND_NEWLINE)
    return _escape(_dumps(obj, _OPTIONS | orjson.OPT_APPEND_NEWLINE))


def line(obj: Any) -> bytes:
    """SSE payload: one line, `": "` after keys, bare `,` between members."""
    compact = _compact(obj)
    kind = type(obj)
    if kind is ColonFree:
        return compact.replace(b":", b": ")  # one byte to find: half the cost of `":`
    if kind is Plain:
        return compact.replace(b'":', b'": ')
    # In compact JSON a `":` is a key's closing quote and its colon, unless the quote is escaped (`\\":`) or
    # opens a string that starts with a colon (first, or after `:`, `,`, `[` or `{`). Without those, a space after
    # every `":` is exactly production's form; with them (or a key ending in one of those characters: the test
    # is conservative), the indented form with its line breaks removed is.
    if b':":' in compact.translate(_SUSPECTS) or compact.startswith(b'":'):
        return _escape(_BREAKS.sub(b"", _dumps(obj)))
    return _escape(compact.replace(b'":', b'": '))


_SUSPECTS = bytes.maketrans(b"\\,[{", b"::::")  # what may precede a `":` that is not a key's end, as ":"


def lines(objs: list[Any], sep: bytes) -> bytes | None:
    """`sep.join(map(line, objs))` printed in one pass, when every one of `objs` is Plain (`sep`: no `<`, `>` or
    `"`, and each `:` followed by a space); None for any other list (the caller prints them one by one). In the
    compact JSON of a Plain dict every `":` is a key's end, and `sep` makes none; when all are ColonFree, every `:`
    is one, and `sep` goes in with its `: ` as `:` (the replace that spaces the keys' colons spaces it again)."""
    colons = False
    for obj in objs:
        kind = type(obj)
        if kind is not ColonFree:
            if kind is not Plain:
                return None
            colons = True
    try:
        if colons:
            return sep.join(map(orjson.dumps, objs)).replace(b'":', b'": ')
        return sep.replace(b": ", b":").join(map(orjson.dumps, objs)).replace(b":", b": ")
    except TypeError:  # a key that is not a str: `line` prints it
        return None


def indented_all(objs: list[Any], sep: bytes) -> bytes | None:
    """`sep.join(map(indented, objs))` printed in one pass, when every one of `objs` is FloatFree (`sep` holding
    no `<` or `>`: escaping the joined bytes escapes each); None for any other list."""
    escape = False
    for obj in objs:
        kind = type(obj)
        if kind not in _PLAIN:
            if kind is not FloatFree:
                return None
            escape = True
    try:
        joined = sep.join([orjson.dumps(obj, option=_OPTIONS) for obj in objs])
    except TypeError:  # a key that is not a str: `indented` prints it
        return None
    return _escape(joined) if escape else joined


def _compact(obj: Any) -> bytes:
    kind = type(obj)
    if kind is float or ((kind is dict or kind is list) and holds_float(obj)):
        obj = _doubles(obj)
    try:
        return orjson.dumps(obj)
    except TypeError:
        # A key that is not a str (an int, a str subclass): orjson prints those only in its slower
        # OPT_NON_STR_KEYS mode, which prints str keys the same; any other error it raises again.
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)


def canonical(obj: Any) -> bytes:
    """Compact, key-sorted JSON: equal for requests that differ only in key order or whitespace."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # a key that is not a str (see _compact)
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
