"""Values that validate against a schema: Gemini's OpenAPI subset (`responseSchema`, `parameters`) or
JSON Schema (`responseJsonSchema`, `parametersJsonSchema`), in any SDK's dialect.

Keywords are read in lowerCamelCase only: the wire has normalised a Schema's names (emulator/wire/validate.py),
and JSON Schema has no other spelling (a snake_case word in a JSON Schema document is the caller's, no keyword).

Deterministic for a given seed; values look like data (names are names, an `email` format is an email,
dates are dates, enums pick a member). Property order follows production: `propertyOrdering` when given;
otherwise required properties first in the order `required` lists them, then the rest (alphabetically for
the OpenAPI subset, in declaration order for JSON Schema). See docs/conformance.md for the evidence.

Every keyword constrains the value; `pattern` is met by trying the composed text, then a value built from the
pattern's own literals and classes, then stock values (digits, words, codes), each checked with `re.search`
on at most PATTERN_PROBE characters (a caller's regex cannot run long on so little); when none matches the
composed text stands (the VCR recordings hold 3 requests with a `pattern`, e.g. `(?=.*[0-9]).+`).
Numbers come from an everyday range (ages are 18-80, years 1990-2025, ...) moved inside the schema's bounds,
so LangChain's +/-2**53 bounds still give ordinary numbers. Below SOFT_DEPTH only what the schema requires is written;
tests/engines/synth/test_synth_structured.py checks the output with jsonschema over a generated population of
schemas in both dialects.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from fractions import Fraction
from typing import Any

from gemini_emulator.engines.synth.prose import Rng

# Proto numbering of google.ai.generativelanguage Type, sent by GAPIC clients (proto_enums.json).
_TYPE_NUMBERS = {1: "string", 2: "number", 3: "integer", 4: "boolean", 5: "array", 6: "object", 7: "null"}
SOFT_DEPTH = 10  # below this depth only what the schema requires is written (required properties, minItems)
MAX_DEPTH = 64  # a hard stop for schemas that require themselves without end (then null is written)
# The most a value may cost, in characters (roughly): 65,536 output tokens, gemini-2.5's output limit, at about
# 4 characters each. Past it arrays stop growing, strings stop at it and further values are null, so a request
# of a few bytes (minItems: 1e9, or properties that each require the whole schema again) cannot hang the server.
BUDGET = 65_536 * 4

# The regex parser's own modules (no stubs): `pattern` is met by reading the pattern.
_sre: Any = importlib.import_module("re._constants")
_sre_parser: Any = importlib.import_module("re._parser")

_FIRST = ("Alex", "Maria", "Kenji", "Amara", "Lucas", "Priya", "Sofia", "Omar", "Elena", "Tom")
_LAST = ("Morgan", "Rossi", "Tanaka", "Okafor", "Silva", "Sharma", "Novak", "Haddad", "Berg", "Walsh")
_CITIES = ("Paris", "Lisbon", "Kyoto", "Nairobi", "Toronto", "Oslo", "Lima", "Seoul", "Dublin", "Austin")
_COUNTRIES = ("France", "Portugal", "Japan", "Kenya", "Canada", "Norway", "Peru", "Korea", "Ireland", "Chile")
_COLORS = ("red", "blue", "green", "amber", "violet", "teal", "black", "white")
_WORDS = ("river", "garden", "signal", "harbor", "lantern", "meadow", "circuit", "summit", "canvas", "orbit")
_PUNCTUATION = "\"'.,;:!?()[]{}<>*`"
# Capitalized words that start requests rather than name places ("Describe Paris" names Paris).
_OPENERS = frozenset(
    "what what's where when who why which how tell give list write describe please show find plan create make "
    "generate can could would should is are do does the this that a an i i'm my fill name".split()
)
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


class Synthesizer:
    """Builds one value per call to `value`; `hints` are words from the prompt used for free text."""

    def __init__(self, seed: str, json_schema: bool, root: dict[str, Any], hints: list[str] | None = None) -> None:
        self.rng = Rng(seed)
        self.json_schema = json_schema
        self.root = root
        self.hints = hints or []
        self.spent = 0  # characters (roughly) written so far, against BUDGET

    # --- dispatch ---------------------------------------------------------------------------------

    def value(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        if self.spent >= BUDGET:
            return None
        self.spent += 4 + 2 * depth  # the value's punctuation and indentation (output is indented JSON)
        made = self._value(schema, name, depth)
        if isinstance(made, str):
            self.spent += len(made)
        return made

    def _value(self, schema: Any, name: str, depth: int) -> Any:
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return None if depth > MAX_DEPTH else self._free(name)
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return self.rng.choice(enum)
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                usable = [o for o in options if not (isinstance(o, dict) and type_of(self._resolve(o)) == "null")]
                return self.value(self.rng.choice(usable or options), name, depth + 1)
        all_of = schema.get("allOf")
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
        ordering = schema.get("propertyOrdering")
        if isinstance(ordering, list) and ordering:
            first = [n for n in ordering if n in properties]
            return first + sorted(n for n in names if n not in first)
        required = [n for n in (schema.get("required") or []) if n in properties]
        rest = [n for n in names if n not in required]
        return required + (rest if self.json_schema else sorted(rest))

    def _object(self, schema: dict[str, Any], name: str, depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        out: dict[str, Any] = {}
        required = {r for r in schema.get("required") or [] if isinstance(r, str)}
        most = _int(schema.get("maxProperties"), -1)
        most = most if most >= 0 else len(properties) + len(required) + 100
        for prop in self.property_order(schema):
            if prop not in required and (depth >= SOFT_DEPTH or len(out) + len(required - set(out)) >= most):
                continue
            out[prop] = self.value(properties[prop], prop, depth + 1)
        extra = schema.get("additionalProperties")
        for prop in required - set(out):  # JSON Schema may require a property it does not describe
            out[prop] = self.value(extra if isinstance(extra, dict) else {}, prop, depth + 1)
        least = _int(schema.get("minProperties"), 1 if not properties and isinstance(extra, dict) else 0)
        words = [w for w in _WORDS if w not in out]
        while len(out) < least and words and extra is not False and (len(out) < most):
            word = words.pop(self.rng.below(len(words)))
            out[word] = self.value(extra if isinstance(extra, dict) else {}, word, depth + 1)
        return out

    def _array(self, schema: dict[str, Any], name: str, depth: int) -> list[Any]:
        low = _int(schema.get("minItems"), 0)
        high = _int(schema.get("maxItems"), max(low, 3))
        count = low if depth >= SOFT_DEPTH else min(high, max(low, 2 + self.rng.below(2)))
        items = schema.get("items")
        prefix = schema.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        if items is False:  # JSON Schema: nothing past the prefix
            count = min(count, len(prefix))
        unique = schema.get("uniqueItems") is True
        singular = name[:-1] if name.endswith("s") else name
        out: list[Any] = []
        seen: set[str] = set()
        for i in range(count):
            if self.spent >= BUDGET:
                break
            item = prefix[i] if i < len(prefix) else items
            item = item if isinstance(item, dict) else {}
            value = self.value(item, singular, depth + 1)
            for _ in range(8 if unique else 0):  # uniqueItems: draw again, then number free text
                if _key(value) not in seen:
                    break
                value = self.value(item, singular, depth + 1)
            if unique and _key(value) in seen and isinstance(value, str) and _free_text(self._resolve(item)):
                value = f"{value} {i + 1}"
            if unique and _key(value) in seen:
                continue  # fewer items rather than a repeated one
            seen.add(_key(value))
            out.append(value)
        return out

    # --- scalars ----------------------------------------------------------------------------------

    def _string(self, schema: dict[str, Any], name: str, depth: int) -> str:
        text = self._formatted(str(schema.get("format") or "").lower()) or self._named_text(name)
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and pattern:
            fits = (max(_int(schema.get("minLength"), 0), 0), _int(schema.get("maxLength"), -1))
            matched = _matching(pattern, text, fits)
            if matched is not None:
                return matched
        low = max(_int(schema.get("minLength"), 0), 0)
        high = _int(schema.get("maxLength"), -1)  # -1: no limit (0 is a limit: the empty string)
        if 0 <= high < low:
            low = high
        low = min(low, max(0, BUDGET - self.spent))
        while len(text) < low:
            text += " " + self.rng.choice(_WORDS)
        if 0 <= high < len(text):
            text = text[:high]
            if len(text.rstrip()) >= low:
                text = text.rstrip()
        return text

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
            return self._hint(_CITIES, proper=True)
        if "country" in n:
            return pick(_COUNTRIES)
        if "phone" in n:
            return f"+1-555-{100 + self.rng.below(900)}-{1000 + self.rng.below(9000)}"
        if "url" in n or "link" in n or "website" in n:
            return f"https://example.com/{pick(_WORDS)}"
        if "zip" in n or "postal" in n or "postcode" in n:
            return f"{10000 + self.rng.below(90000)}"
        if "street" in n or n in ("address", "address_line", "addressline"):
            return f"{1 + self.rng.below(200)} {pick(_WORDS).title()} Street"
        if "date" in n or n.endswith("_at") or name.endswith("At"):
            return self._date()
        if "colo" in n:
            return pick(_COLORS)
        if n == "id" or n.endswith("_id") or name.endswith("Id"):
            return f"{pick(_WORDS)[:3]}-{1000 + self.rng.below(9000)}"
        if any(k in n for k in ("description", "summary", "reason", "explanation", "text", "content", "answer")):
            topic = " ".join(w for w in (h.strip(_PUNCTUATION) for h in self.hints[:3]) if w) or pick(_WORDS)
            return f"A short note about {topic}."
        if "title" in n or "headline" in n:
            return f"The {pick(_WORDS).title()} {pick(_WORDS).title()}"
        return self._hint(_WORDS)

    def _hint(self, fallback: tuple[str, ...], proper: bool = False) -> str:
        """A word of the prompt (for a place: a capitalized one, not a sentence opener), else a stock value."""
        words = [w.strip(_PUNCTUATION) for w in self.hints]
        words = [w for w in words if w and (not proper or (w[:1].isupper() and w.lower() not in _OPENERS))]
        return self.rng.choice(words) if words else self.rng.choice(fallback)

    def _free(self, name: str) -> Any:
        return self._named_text(name)

    def _integer(self, schema: dict[str, Any], name: str, depth: int) -> int:
        n = name.lower()
        low, high = (18, 80) if "age" in n else (1990, 2025) if "year" in n else (1, 10) if "count" in n else (1, 100)
        step = _step(schema)
        return int(self._multiple(_limits(schema), _integer_step(step) if step else 1, low, high))

    def _number(self, schema: dict[str, Any], name: str, depth: int) -> float:
        bounds = _limits(schema)
        step = _step(schema)
        if step is not None:
            try:
                return float(self._multiple(bounds, step, 0, 100))
            except OverflowError:  # a bound / step past the float range (a tiny multipleOf): whole multiples
                return float(self._multiple(bounds, _integer_step(step), 0, 100))
        lo, _, hi, _ = bounds
        a, b = _window(lo, hi, 0.0, 100.0)
        span = b - a
        if span <= 0:
            return float(a)
        value = round(a + span * (1 + self.rng.below(98)) / 100, 2)
        if not (a < value < b):  # rounding reached (or passed) an end of a narrow range
            value = a + span / 2
        return float(value)

    def _multiple(
        self, bounds: tuple[float | None, bool, float | None, bool], step: float, low: int, high: int
    ) -> float:
        """k * step for a whole k that puts it inside the bounds, in the everyday range [low, high] if it can."""
        first, last = _whole(*bounds, step)
        a, b = _window(first, last, math.ceil(low / step), max(math.floor(high / step), math.ceil(low / step)))
        k = int(a) + self.rng.below(int(b) - int(a) + 1) if b >= a else int(a)
        value = k * step
        return round(value, 12) if isinstance(value, float) else value  # 3 * 0.1 is 0.3, not 0.30000000000000004


PATTERN_PROBE = 16  # longest candidate a caller's pattern is tried on: 2**16 steps of backtracking at worst
_PATTERN_MAX = 256  # longer patterns are not tried at all
_STOCK = ("a1", "A1b2", "abc123", "42", "0", "1.5", "-1", "hello", "Hello", "ABC", "a", "A", "x-1", "2024-01-01")


def _matching(pattern: str, text: str, fits: tuple[int, int] = (0, -1)) -> str | None:
    """A short string `re.search(pattern)` accepts within (minLength, maxLength; -1: none), or None (an invalid or
    unmet pattern)."""
    if len(pattern) > _PATTERN_MAX:
        return None
    try:
        compiled = re.compile(pattern)
        parsed = _sre_parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
    candidates = [text] if len(text) <= PATTERN_PROBE else []
    built = _from_parsed(parsed, 0)
    if built is not None:
        candidates.append(built)
    candidates += _STOCK
    low, high = fits
    for candidate in candidates:
        if not low <= len(candidate) <= (PATTERN_PROBE if high < 0 else min(high, PATTERN_PROBE)):
            continue
        if compiled.search(candidate):
            return candidate
    return None


def _from_parsed(parsed: Any, depth: int) -> str | None:
    """A string built from a parsed pattern: literals kept, each class's first member, each repeat at its
    minimum (at least once), the first alternative; assertions and anchors add nothing."""
    c = _sre

    if depth > 20:
        return None
    out = []
    for op, av in parsed:
        if op is c.LITERAL:
            out.append(chr(av))
        elif op is c.ANY:
            out.append("a")
        elif op is c.IN:
            out.append(_class_member(av))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, _, sub = av
            piece = _from_parsed(sub, depth + 1)
            if piece is None:
                return None
            out.append(piece * max(1, min(low, PATTERN_PROBE)))
        elif op is c.SUBPATTERN:
            piece = _from_parsed(av[-1], depth + 1)
            if piece is None:
                return None
            out.append(piece)
        elif op is c.BRANCH:
            piece = _from_parsed(av[1][0], depth + 1)
            if piece is None:
                return None
            out.append(piece)
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        else:
            return None
        if sum(map(len, out)) > PATTERN_PROBE:
            return None
    return "".join(out)


def _class_member(items: Any) -> str:
    c = _sre
    for op, av in items:
        if op is c.NEGATE:
            return "a" if not any(o is c.LITERAL and v == ord("a") for o, v in items) else "b"
        if op is c.LITERAL:
            return chr(av)
        if op is c.RANGE:
            return chr(av[0])
        if op is c.CATEGORY:
            return {c.CATEGORY_DIGIT: "1", c.CATEGORY_SPACE: " ", c.CATEGORY_WORD: "a"}.get(av, "a")
    return "a"


def _whole(
    lo: float | None, lo_open: bool, hi: float | None, hi_open: bool, step: float
) -> tuple[int | None, int | None]:
    """The smallest and largest whole k with k * step inside the bounds (None: unbounded on that side)."""
    first = last = None
    if lo is not None:
        q = lo / step
        first = math.ceil(q) + (1 if lo_open and q == math.ceil(q) else 0)
    if hi is not None:
        q = hi / step
        last = math.floor(q) - (1 if hi_open and q == math.floor(q) else 0)
    return first, last


def _integer_step(step: float) -> int:
    """The smallest whole number that is a multiple of `step` as written: 3 for 1.5, 2 for 0.4, 5 for 2.5, 1
    for 1e-300 (an integer schema's multipleOf 1.5 allows 3, 6, 9, ..., not every whole k * 1.5)."""
    if isinstance(step, int) or step.is_integer():
        return max(int(step), 1)
    return Fraction(repr(step)).numerator


def _step(schema: dict[str, Any]) -> float | None:
    raw = schema.get("multipleOf")
    return raw if isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0 else None


def _key(value: Any) -> str:
    """A value's identity for uniqueItems."""
    return json.dumps(value, sort_keys=True)


def _free_text(schema: dict[str, Any]) -> bool:
    """A string schema whose values may be any text (so a number can be appended to one)."""
    constrained = ("enum", "const", "format", "pattern", "maxLength", "anyOf", "oneOf", "allOf", "not", "$ref", "ref")
    return type_of(schema) in ("string", None) and not any(k in schema for k in constrained)


def _limits(schema: dict[str, Any]) -> tuple[float | None, bool, float | None, bool]:
    """(lower bound, exclusive?, upper bound, exclusive?) from minimum/maximum and JSON Schema's numeric
    exclusiveMinimum/exclusiveMaximum (or OpenAPI 3.0's boolean forms)."""

    def number(raw: Any) -> float | None:
        return float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None

    lo, hi = number(schema.get("minimum")), number(schema.get("maximum"))
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    lo_open, hi_open = ex_lo is True, ex_hi is True
    strict_lo, strict_hi = number(ex_lo), number(ex_hi)
    if strict_lo is not None and (lo is None or strict_lo >= lo):
        lo, lo_open = strict_lo, True
    if strict_hi is not None and (hi is None or strict_hi <= hi):
        hi, hi_open = strict_hi, True
    return lo, lo_open, hi, hi_open


def _window(lo: float | None, hi: float | None, low: float, high: float) -> tuple[float, float]:
    """The range values are drawn from: the everyday range [low, high] (so that SDKs sending +/-2**53 bounds,
    like LangChain, still get ordinary numbers), moved next to the allowed range when it lies outside it,
    and cut to [lo, hi]."""
    span = high - low
    if lo is not None and lo >= high:
        low, high = lo, lo + span
    elif hi is not None and hi <= low:
        low, high = hi - span, hi
    a = low if lo is None else max(lo, low)
    b = high if hi is None else min(hi, high)
    return a, b


def _int(raw: Any, default: int) -> int:
    """minItems/maxLength arrive as numbers or (int64 in proto JSON) as strings."""
    try:
        return int(raw)
    except (TypeError, ValueError):
        return default


def synthesize(schema: dict[str, Any], seed: str, json_schema: bool, hints: list[str] | None = None) -> Any:
    """One value valid against `schema`."""
    return Synthesizer(seed, json_schema, schema, hints).value(schema)
