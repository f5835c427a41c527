"""Checking synthesized JSON against the schema it was asked for, with a well-kept validator (jsonschema).

Gemini's OpenAPI subset (`responseSchema`, `parameters`) is turned into the JSON Schema it means: types in
lower case, `nullable` as an extra "null" type, and objects closed to undeclared properties (the model
writes only declared ones). JSON Schema (`responseJsonSchema`, `parametersJsonSchema`) is checked as is,
with the Draft 2020-12 validator. Formats are checked too, `date-time` and `time` included.
"""

from __future__ import annotations

import datetime
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

_TYPE_NUMBERS = {1: "string", 2: "number", 3: "integer", 4: "boolean", 5: "array", 6: "object", 7: "null"}
# OpenAPI-subset keywords and the JSON Schema keyword each means; anything else is annotation only.
_SAME = {
    "required": "required",
    "enum": "enum",
    "format": "format",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "minItems",
    "min_items": "minItems",
    "maxItems": "maxItems",
    "max_items": "maxItems",
    "minLength": "minLength",
    "min_length": "minLength",
    "maxLength": "maxLength",
    "max_length": "maxLength",
    "minProperties": "minProperties",
    "min_properties": "minProperties",
    "maxProperties": "maxProperties",
    "max_properties": "maxProperties",
}
_INT_KEYWORDS = {"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}

FORMATS = FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    return not isinstance(value, str) or isinstance(datetime.datetime.fromisoformat(value), datetime.datetime)


@FORMATS.checks("time", raises=ValueError)
def _time(value: object) -> bool:
    return not isinstance(value, str) or isinstance(datetime.time.fromisoformat(value), datetime.time)


def openapi_to_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema that a Gemini OpenAPI-subset schema means (either spelling of keywords)."""
    out: dict[str, Any] = {}
    raw = schema.get("type")
    kind = _TYPE_NUMBERS.get(raw) if isinstance(raw, int) else raw.lower() if isinstance(raw, str) else None
    nullable = schema.get("nullable") is True
    for key, value in schema.items():
        if key in _SAME:
            out[_SAME[key]] = int(value) if _SAME[key] in _INT_KEYWORDS else value
    if "properties" in schema:
        out["properties"] = {k: openapi_to_json_schema(v) for k, v in schema["properties"].items()}
        out["additionalProperties"] = False
    if "items" in schema:
        out["items"] = openapi_to_json_schema(schema["items"])
    any_of = schema.get("anyOf", schema.get("any_of"))
    if any_of:
        out["anyOf"] = [openapi_to_json_schema(s) for s in any_of]
    if kind is not None:
        out["type"] = [kind, "null"] if nullable else kind
    if nullable and "enum" in out:
        out["enum"] = [*out["enum"], None]
    if nullable and "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    return out


def errors_in(value: Any, schema: dict[str, Any], json_schema: bool) -> list[str]:
    """Every way `value` breaks `schema` ([] when it is valid); `json_schema` says which dialect it is in."""
    checked = schema if json_schema else openapi_to_json_schema(schema)
    validator = Draft202012Validator(checked, format_checker=FORMATS)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(value)]
