"""Values that validate against a schema: Gemini's OpenAPI subset (`responseSchema`, `parameters`) or
JSON Schema (`responseJsonSchema`, `parametersJsonSchema`), in any SDK's dialect.

Deterministic for a given seed; values look like data (names are names, an `email` format is an email,
dates are dates, enums pick a member). Property order follows production: `propertyOrdering` when given;
otherwise required properties first in the order `required` lists them, then the rest (alphabetically for
the OpenAPI subset, in declaration order for JSON Schema). See docs/conformance.md for the evidence.
"""

from __future__ import annotations

import re
from typing import Any

from engines.zero_config import Rng

# Proto numbering of google.ai.generativelanguage Type, sent by GAPIC clients (proto_enums.json).
_TYPE_NUMBERS = {1: "string", 2: "number", 3: "integer", 4: "boolean", 5: "array", 6: "object", 7: "null"}
MAX_DEPTH = 12

_FIRST = ("Alex", "Maria", "Kenji", "Amara", "Lucas", "Priya", "Sofia", "Omar", "Elena", "Tom")
_LAST = ("Morgan", "Rossi", "Tanaka", "Okafor", "Silva", "Sharma", "Novak", "Haddad", "Berg", "Walsh")
_CITIES = ("Paris", "Lisbon", "Kyoto", "Nairobi", "Toronto", "Oslo", "Lima", "Seoul", "Dublin", "Austin")
_COUNTRIES = ("France", "Portugal", "Japan", "Kenya", "Canada", "Norway", "Peru", "Korea", "Ireland", "Chile")
_COLORS = ("red", "blue", "green", "amber", "violet", "teal", "black", "white")
_WORDS = ("river", "garden", "signal", "harbor", "lantern", "meadow", "circuit", "summit", "canvas", "orbit")
_COMPANIES = ("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Works", "Wayne Foods")


def type_of(schema: dict[str, Any]) -> str | list[str] | None:
    """The schema's type, lowercased ("OBJECT", "object" and 6 all mean "object"); a list for JSON Schema's
    `["string", "null"]`; None when absent."""
    raw = schema.get("type")
    if isinstance(raw, list):
        return [t.lower() if isinstance(t, str) else _TYPE_NUMBERS.get(t, "string") for t in raw]
    if isinstance(raw, int) and not isinstance(raw, bool):
        return _TYPE_NUMBERS.get(raw)
    if isinstance(raw, str):
        return raw.lower()
    return None


def _get(schema: dict[str, Any], camel: str) -> Any:
    """A keyword in either spelling (the Python SDK sends snake_case inside schemas)."""
    if camel in schema:
        return schema[camel]
    snake = re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()
    return schema.get(snake)


class Synthesizer:
    """Builds one value per call to `value`; `hints` are words from the prompt used for free text."""

    def __init__(self, seed: str, json_schema: bool, root: dict[str, Any], hints: list[str] | None = None) -> None:
        self.rng = Rng(seed)
        self.json_schema = json_schema
        self.root = root
        self.hints = hints or []

    # --- dispatch ---------------------------------------------------------------------------------

    def value(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return None if depth > MAX_DEPTH else self._free(name)
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return self.rng.choice(enum)
        for key in ("anyOf", "oneOf"):
            options = _get(schema, key)
            if isinstance(options, list) and options:
                usable = [o for o in options if not (isinstance(o, dict) and type_of(self._resolve(o)) == "null")]
                return self.value(self.rng.choice(usable or options), name, depth + 1)
        all_of = _get(schema, "allOf")
        if isinstance(all_of, list) and all_of:
            merged: dict[str, Any] = {}
            for part in all_of:
                if isinstance(part, dict):
                    part = self._resolve(part)
                    merged = {
                        **merged,
                        **part,
                        "properties": {**merged.get("properties", {}), **(part.get("properties") or {})},
                    }
            return self.value({**{k: v for k, v in schema.items() if k != "allOf"}, **merged}, name, depth + 1)
        kind = type_of(schema)
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            if "properties" in schema:
                kind = "object"
            elif "items" in schema:
                kind = "array"
            else:
                return self._free(name)
        return {
            "object": self._object,
            "array": self._array,
            "string": self._string,
            "integer": self._integer,
            "number": self._number,
            "boolean": lambda s, n, d: self.rng.below(2) == 1,
            "null": lambda s, n, d: None,
        }.get(kind, lambda s, n, d: self._free(n))(schema, name, depth)

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref") or schema.get("ref")
        seen = 0
        while isinstance(ref, str) and ref.startswith("#/") and seen < 32:
            target: Any = self.root
            for piece in ref[2:].split("/"):
                target = target.get(piece.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                return {}
            extra = {k: v for k, v in schema.items() if k not in ("$ref", "ref")}
            schema = {**target, **extra}
            ref = schema.get("$ref") or schema.get("ref") if "$ref" in target or "ref" in target else None
            seen += 1
        return schema

    # --- containers -------------------------------------------------------------------------------

    def property_order(self, schema: dict[str, Any]) -> list[str]:
        properties = schema.get("properties") or {}
        names = list(properties)
        ordering = _get(schema, "propertyOrdering")
        if isinstance(ordering, list) and ordering:
            first = [n for n in ordering if n in properties]
            return first + sorted(n for n in names if n not in first)
        required = [n for n in (schema.get("required") or []) if n in properties]
        rest = [n for n in names if n not in required]
        return required + (rest if self.json_schema else sorted(rest))

    def _object(self, schema: dict[str, Any], name: str, depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        out: dict[str, Any] = {}
        required = set(schema.get("required") or [])
        for prop in self.property_order(schema):
            if depth >= MAX_DEPTH - 2 and prop not in required:
                continue
            out[prop] = self.value(properties[prop], prop, depth + 1)
        if not properties and isinstance(schema.get("additionalProperties"), dict):
            out[self.rng.choice(_WORDS)] = self.value(schema["additionalProperties"], name, depth + 1)
        return out

    def _array(self, schema: dict[str, Any], name: str, depth: int) -> list[Any]:
        low = _int(_get(schema, "minItems"), 0)
        high = _int(_get(schema, "maxItems"), max(low, 3))
        count = low if depth >= MAX_DEPTH - 2 else min(high, max(low, 2 + self.rng.below(2)))
        items = schema.get("items")
        prefix = _get(schema, "prefixItems")
        out: list[Any] = []
        for i in range(count):
            item = prefix[i] if isinstance(prefix, list) and i < len(prefix) else items
            singular = name[:-1] if name.endswith("s") else name
            out.append(self.value(item if isinstance(item, dict) else {}, singular, depth + 1))
        if schema.get("uniqueItems") and len({repr(v) for v in out}) < len(out):
            out = [v if not isinstance(v, str) else f"{v} {i + 1}" for i, v in enumerate(out)]
        return out

    # --- scalars ----------------------------------------------------------------------------------

    def _string(self, schema: dict[str, Any], name: str, depth: int) -> str:
        text = self._formatted(str(schema.get("format") or "").lower()) or self._named_text(name)
        low = _int(_get(schema, "minLength"), 0)
        high = _int(_get(schema, "maxLength"), 0)
        while len(text) < low:
            text += " " + self.rng.choice(_WORDS)
        if high and len(text) > high:
            text = text[:high]
        return text[: max(high, low)] if high and low > high else text

    def _formatted(self, fmt: str) -> str | None:
        """A value for a JSON Schema / OpenAPI string format, or None for an unknown format."""
        if fmt == "email":
            return f"{self.rng.choice(_FIRST).lower()}.{self.rng.choice(_LAST).lower()}@example.com"
        if fmt == "date":
            return self._date()
        if fmt == "date-time":
            return f"{self._date()}T{self.rng.below(24):02d}:{self.rng.below(60):02d}:00Z"
        if fmt == "time":
            return f"{self.rng.below(24):02d}:{self.rng.below(60):02d}:00"
        if fmt in ("uri", "url"):
            return f"https://example.com/{self.rng.choice(_WORDS)}"
        if fmt == "uuid":
            return self._uuid()
        if fmt == "ipv4":
            return f"192.0.2.{1 + self.rng.below(254)}"
        return None

    def _date(self) -> str:
        return f"20{10 + self.rng.below(16)}-{1 + self.rng.below(12):02d}-{1 + self.rng.below(28):02d}"

    def _uuid(self) -> str:
        digits = "".join("0123456789abcdef"[self.rng.below(16)] for _ in range(32))
        return f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-a{digits[17:20]}-{digits[20:32]}"

    def _named_text(self, name: str) -> str:
        n = name.lower()
        pick = self.rng.choice
        if n in ("first_name", "firstname", "given_name", "givenname"):
            return pick(_FIRST)
        if n in ("last_name", "lastname", "surname", "family_name", "familyname"):
            return pick(_LAST)
        if "email" in n:
            return f"{pick(_FIRST).lower()}@example.com"
        if "name" in n and any(k in n for k in ("company", "org", "business")):
            return pick(_COMPANIES)
        if "name" in n or n in ("author", "person", "user", "owner", "customer"):
            return f"{pick(_FIRST)} {pick(_LAST)}"
        if "city" in n or "location" in n or "place" in n:
            return self._hint(_CITIES)
        if "country" in n:
            return pick(_COUNTRIES)
        if "phone" in n:
            return f"+1-555-{100 + self.rng.below(900)}-{1000 + self.rng.below(9000)}"
        if "url" in n or "link" in n or "website" in n:
            return f"https://example.com/{pick(_WORDS)}"
        if "date" in n or n.endswith("_at") or n.endswith("At"):
            return self._date()
        if "colo" in n:
            return pick(_COLORS)
        if n == "id" or n.endswith("_id") or n.endswith("Id"):
            return f"{pick(_WORDS)[:3]}-{1000 + self.rng.below(9000)}"
        if any(k in n for k in ("description", "summary", "reason", "explanation", "text", "content", "answer")):
            topic = " ".join(self.hints[:3]) or pick(_WORDS)
            return f"A short note about {topic}."
        if "title" in n or "headline" in n:
            return f"The {pick(_WORDS).title()} {pick(_WORDS).title()}"
        return self._hint(_WORDS)

    def _hint(self, fallback: tuple[str, ...]) -> str:
        return self.rng.choice(self.hints) if self.hints else self.rng.choice(fallback)

    def _free(self, name: str) -> Any:
        return self._named_text(name)

    def _bounds(self, schema: dict[str, Any], low: float, high: float) -> tuple[float, float, bool, bool]:
        lo, hi = schema.get("minimum"), schema.get("maximum")
        ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        lo_open = hi_open = False
        if isinstance(ex_lo, int | float) and not isinstance(ex_lo, bool):
            lo, lo_open = ex_lo, True
        elif ex_lo is True:
            lo_open = True
        if isinstance(ex_hi, int | float) and not isinstance(ex_hi, bool):
            hi, hi_open = ex_hi, True
        elif ex_hi is True:
            hi_open = True
        lo = float(lo) if isinstance(lo, int | float) and not isinstance(lo, bool) else None
        hi = float(hi) if isinstance(hi, int | float) and not isinstance(hi, bool) else None
        # Sensible ranges even for SDKs that send +/-2**53 bounds (LangChain).
        a = max(lo, low) if lo is not None and lo < low else (lo if lo is not None else low)
        b = min(hi, high) if hi is not None and hi > high else (hi if hi is not None else high)
        if lo is not None and a < lo:
            a = lo
        if b < a:
            b = a if hi is None else hi
            a = min(a, b)
        return a, b, lo_open and a == lo, hi_open and b == hi

    def _integer(self, schema: dict[str, Any], name: str, depth: int) -> int:
        n = name.lower()
        low, high = (18, 80) if "age" in n else (1990, 2025) if "year" in n else (1, 10) if "count" in n else (1, 100)
        a, b, a_open, b_open = self._bounds(schema, low, high)
        first = int(a) + (1 if a_open or a != int(a) else 0)
        last = int(b) - (1 if b_open and b == int(b) else 0)
        if last < first:
            return first
        return first + self.rng.below(last - first + 1)

    def _number(self, schema: dict[str, Any], name: str, depth: int) -> float:
        a, b, a_open, b_open = self._bounds(schema, 0.0, 100.0)
        span = b - a
        value = round(a + span * (1 + self.rng.below(98)) / 100, 2) if span > 0 else a
        if (a_open and value <= a) or (b_open and value >= b) or not (a <= value <= b):
            value = a + span / 2
        return float(value)


def _int(raw: Any, default: int) -> int:
    """minItems/maxLength arrive as numbers or (int64 in proto JSON) as strings."""
    try:
        return int(raw)
    except (TypeError, ValueError):
        return default


def synthesize(schema: dict[str, Any], seed: str, json_schema: bool, hints: list[str] | None = None) -> Any:
    """One value valid against `schema`."""
    return Synthesizer(seed, json_schema, schema, hints).value(schema)
