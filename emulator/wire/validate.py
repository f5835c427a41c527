"""Request validation: production's 400s for bodies that are not JSON, have unknown or mistyped
fields, or break the request's rules (empty contents, bad roles, empty parts).

Known field names and types come from wire_fields.json, generated from the google-genai SDK's own
types (tools/gen_wire_fields.py), so no field a current SDK sends is refused. Like production's
parser, both lowerCamelCase and snake_case names are accepted, and enums take names or numbers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import VERTEX

_DATA = Path(__file__).with_name("wire_fields.json")
MAX_DEPTH = 64
# Arrays and objects nested deeper than this anywhere (Struct values, function args included) are refused: the
# printers (orjson) stop at 255 levels, and protobuf's parsers at 100.
MAX_JSON_DEPTH = 100
ROLES = frozenset({"user", "model", "function", ""})

_SCALARS = {
    "string": "TYPE_STRING",
    "bytes": "TYPE_BYTES",
    "int32": "TYPE_INT32",
    "int64": "TYPE_INT64",
    "uint32": "TYPE_UINT32",
    "float": "TYPE_FLOAT",
    "double": "TYPE_DOUBLE",
    "bool": "TYPE_BOOL",
    "duration": "TYPE_STRING",
    "timestamp": "TYPE_STRING",
}
_FLOAT_WORDS = frozenset({"NaN", "Infinity", "-Infinity"})
# Numbers written as strings, as proto3 JSON takes them: ASCII digits only (str.isdigit and float() would also take
# "²", "١", "inf" or "1_0", which no JSON number spells).
INTEGER_TEXT = re.compile(r"-?[0-9]+")
_NUMBER_TEXT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class FieldSpec:
    proto: str
    kind: str
    type: str
    repeated: bool


@dataclass(frozen=True)
class Schema:
    messages: dict[str, dict[str, FieldSpec]]  # both json and proto names map to the spec
    enums: dict[str, frozenset[str]]


@cache
def schema() -> Schema:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    messages: dict[str, dict[str, FieldSpec]] = {}
    for name, fields in data["messages"].items():
        table: dict[str, FieldSpec] = {}
        for json_name, f in fields.items():
            spec = FieldSpec(f["proto"], f["kind"], f.get("type", ""), bool(f.get("repeated")))
            table[json_name] = spec
            table[f["proto"]] = spec
        messages[name] = table
    # Enum names compare case-insensitively: production takes the lowercase schema types
    # ("object", "string") that firebase, ai-sdk 3 and LangChain send.
    return Schema(messages, {k: frozenset(x.upper() for x in v) for k, v in data["enums"].items()})


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object in a request body ({} when empty), or production's parse error."""
    if not raw.strip():
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        text = raw.decode("utf-8", "replace")
        start = max(0, exc.pos - 40)
        line_start = text.rfind("\n", 0, exc.pos) + 1
        start = max(start, line_start)
        snippet = text[start : exc.pos + 1].split("\n", 1)[0]
        raise errors.invalid_json(snippet, max(0, min(exc.pos, len(text)) - start)) from None
    if not isinstance(body, dict):
        raise errors.root_not_object()
    if raw.count(b"{") + raw.count(b"[") > MAX_JSON_DEPTH and nested_too_deeply(body):  # cheap test first
        raise errors.too_deep()
    return body


def nested_too_deeply(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when arrays and objects nest more than `limit` levels anywhere in `value`."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                stack.append((child, depth + 1))
    return False


class _Walker:
    def __init__(self, backend: str, version: str) -> None:
        self.schema = schema()
        self.backend, self.version = backend, version
        self.violations: list[tuple[str | None, str]] = []

    @property
    def type_prefix(self) -> str:  # only a violation's message needs it
        package = "google.cloud.aiplatform" if self.backend == VERTEX else "google.ai.generativelanguage"
        return f"type.googleapis.com/{package}.{self.version}."

    def message(self, value: dict[str, Any], name: str, path: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise errors.too_deep()
        table = self.schema.messages.get(name)
        if table is None:  # a message the table does not describe: accept it as production might
            return
        for key, item in value.items():
            spec = table.get(key)
            if spec is None:
                self.violations.append(errors.unknown_name(key, path))
                continue
            if item is None:
                continue
            kind = spec.kind
            if spec.repeated:
                sub = f"{path}.{spec.proto}" if path else spec.proto
                if not isinstance(item, list):
                    self.violations.append(errors.invalid_value(sub, self._type_name(spec), _show(item)))
                    continue
                for i, element in enumerate(item):
                    if kind in _PLAIN and _scalar_ok(kind, element, None):  # the common case, no path built
                        continue
                    if kind == "message" and type(element) is dict:  # contents, parts: straight to the walk
                        self.message(element, spec.type, f"{sub}[{i}]", depth + 1)
                        continue
                    self.value(element, spec, f"{sub}[{i}]", depth)
            elif isinstance(item, list) and kind != "value":
                self.violations.append(errors.not_repeating(key, path))
            elif kind in _PLAIN and _scalar_ok(kind, item, None):
                continue
            else:
                self.value(item, spec, f"{path}.{spec.proto}" if path else spec.proto, depth)

    def value(self, item: Any, spec: FieldSpec, path: str, depth: int) -> None:
        kind = spec.kind
        if kind in ("value",):
            return
        if kind == "struct":
            if not isinstance(item, dict):
                self.violations.append(errors.invalid_value(path, "google.protobuf.Struct", _show(item)))
            return
        if kind == "message":
            if isinstance(item, dict):
                self.message(item, spec.type, path, depth + 1)
            else:
                self.violations.append(errors.invalid_value(path, self._type_name(spec), _show(item)))
            return
        if kind == "map":
            if not isinstance(item, dict):
                self.violations.append(errors.invalid_value(path, self._type_name(spec), _show(item)))
                return
            for i, (_, sub) in enumerate(item.items()):
                if isinstance(sub, dict):
                    self.message(sub, spec.type, f"{path}[{i}].value", depth + 1)
                else:
                    self.violations.append(
                        errors.invalid_value(f"{path}[{i}].value", self._type_name(spec), _show(sub))
                    )
            return
        if not _scalar_ok(kind, item, self.schema.enums.get(spec.type)):
            self.violations.append(errors.invalid_value(path, self._type_name(spec), _show(item)))

    def _type_name(self, spec: FieldSpec) -> str:
        if spec.kind in _SCALARS:
            return _SCALARS[spec.kind]
        return self.type_prefix + spec.type


_PLAIN = frozenset({"string", "bytes", "duration", "timestamp", "bool", "int32", "int64", "uint32", "float", "double"})


def _scalar_ok(kind: str, item: Any, enum_values: frozenset[str] | None) -> bool:
    if kind in ("string", "bytes", "duration", "timestamp"):
        return isinstance(item, str)
    if kind == "bool":
        return isinstance(item, bool)
    if kind in ("int32", "int64", "uint32"):
        if isinstance(item, bool):
            return False
        if isinstance(item, int):
            return True
        if isinstance(item, float):
            return item.is_integer()
        return isinstance(item, str) and INTEGER_TEXT.fullmatch(item.strip()) is not None
    if kind in ("float", "double"):
        if isinstance(item, bool):
            return False
        if isinstance(item, int | float):
            return True
        if isinstance(item, str):
            return item in _FLOAT_WORDS or _NUMBER_TEXT.fullmatch(item.strip()) is not None
        return False
    if kind == "enum":
        if isinstance(item, int) and not isinstance(item, bool):
            return True
        return isinstance(item, str) and (enum_values is None or item.upper() in enum_values)
    return True


def _show(item: Any) -> str:
    return orjson.dumps(item).decode() if not isinstance(item, str) else f'"{item}"'


def check_fields(body: dict[str, Any], message: str, backend: str, version: str) -> None:
    """Unknown names and mistyped values anywhere in the body: one 400 listing every violation."""
    walker = _Walker(backend, version)
    walker.message(body, message, "", 0)
    if walker.violations:
        raise errors.payload_violations(walker.violations)


def check_contents(contents: Any, message: str = "GenerateContentRequest") -> list[dict[str, Any]]:
    """The request's rules on contents: present, non-empty parts, roles from production's vocabulary."""
    if not contents:
        raise errors.contents_not_specified(message)
    for i, content in enumerate(contents):
        if not isinstance(content, dict):
            continue
        if content.get("role", "") not in ROLES:
            raise errors.invalid_role()
        if not content.get("parts"):
            raise errors.parts_empty(message, i)
    return contents
