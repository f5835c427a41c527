"""Zero-config structured output (issue 4): JSON that validates against the schema in every SDK's dialect,
in production's property order, deterministic per request; `text/x.enum`; streamed JSON; and a property-based
population of schemas checked with jsonschema."""

from __future__ import annotations

import datetime
import enum
import json
import re
from typing import Any

import httpx
import pytest
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from gemini_emulator.testing.pytest_plugin import Gemini

from schema_check import errors_in

MODEL = "gemini-2.5-flash"
JSON = "application/json"


def _raw(gemini: Gemini, body: dict[str, Any], path: str = f"/v1beta/models/{MODEL}:generateContent") -> Any:
    """POST a body as an SDK shapes it; the answer's JSON text, parsed, and the text itself."""
    response = httpx.post(gemini.url + path, json=body, headers={"x-goog-api-key": gemini.api_key}, timeout=10)
    assert response.status_code == 200, response.text
    text = "".join(p["text"] for p in response.json()["candidates"][0]["content"]["parts"])
    return json.loads(text), text


def _ask(schema: dict[str, Any], prompt: str = "Fill in the record", json_schema: bool = False) -> dict[str, Any]:
    key = "responseJsonSchema" if json_schema else "responseSchema"
    return {
        "contents": [{"role": "user", "parts": [{"text": prompt}]}],
        "generationConfig": {"responseMimeType": JSON, key: schema},
    }


# --- pydantic models through google-genai: response.parsed ------------------------------------------------


class Mood(enum.Enum):
    HAPPY = "happy"
    CALM = "calm"
    GRUMPY = "grumpy"


class Address(BaseModel):
    street: str
    city: str
    country: str


class Pet(BaseModel):
    name: str
    mood: Mood


class Person(BaseModel):
    name: str
    email: str
    age: int
    birthday: datetime.date
    nickname: str | None = None
    address: Address
    pets: list[Pet]
    scores: list[float]
    active: bool


def test_pydantic_model_parses_with_nested_models_lists_optional_enum_and_date(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type=JSON, response_schema=Person)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Invent a person", config=config)

    person = response.parsed
    assert isinstance(person, Person)
    assert isinstance(person.birthday, datetime.date)
    assert isinstance(person.address, Address) and person.address.city
    assert person.pets and all(isinstance(p.mood, Mood) for p in person.pets)
    assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", person.name)  # a name looks like a name
    assert "@" in person.email
    assert list(json.loads(response.text)) == list(Person.model_fields)  # pydantic's property_ordering


def test_list_of_pydantic_models_parses(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type=JSON, response_schema=list[Pet])
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Name some pets", config=config)
    assert response.parsed and all(isinstance(p, Pet) for p in response.parsed)


def test_enum_output_text_x_enum_parses_to_the_member(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type="text/x.enum", response_schema=Mood)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="How do you feel?", config=config)
    assert response.text in {m.value for m in Mood}  # the bare member, not JSON
    assert response.parsed == Mood(response.text)


def test_enum_output_from_a_raw_enum_schema(gemini_shared: Gemini) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Pick an instrument"}]}],
        "generationConfig": {
            "responseMimeType": "text/x.enum",
            "responseSchema": {"type": "STRING", "format": "enum", "enum": ["Percussion", "String", "Woodwind"]},
        },
    }
    response = httpx.post(
        f"{gemini_shared.url}/v1beta/models/{MODEL}:generateContent",
        json=body,
        headers={"x-goog-api-key": gemini_shared.api_key},
    )
    assert response.json()["candidates"][0]["content"]["parts"][0]["text"] in ("Percussion", "String", "Woodwind")


# --- responseSchema: the OpenAPI subset ----------------------------------------------------------------------

RECIPE = {
    "type": "OBJECT",
    "title": "Recipe",
    "properties": {
        "recipe_name": {"type": "STRING", "title": "Recipe Name"},
        "servings": {"type": "INTEGER", "minimum": 1, "maximum": 8},
        "rating": {"type": "NUMBER", "minimum": 0, "maximum": 5},
        "cuisine": {"type": "STRING", "enum": ["italian", "thai", "mexican"]},
        "published": {"type": "STRING", "format": "date-time"},
        "author_email": {"type": "STRING", "format": "email", "nullable": True},
        "ingredients": {
            "type": "ARRAY",
            "minItems": 2,
            "maxItems": 4,
            "items": {
                "type": "OBJECT",
                "properties": {"item": {"type": "STRING"}, "grams": {"type": "INTEGER"}},
                "required": ["item", "grams"],
            },
        },
        "notes": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
    },
    "required": ["recipe_name", "servings", "cuisine", "ingredients"],
}


def test_response_schema_dict_through_the_sdk(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type=JSON, response_schema=RECIPE)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="A dinner recipe", config=config)
    value = json.loads(response.text)
    assert errors_in(value, RECIPE, json_schema=False) == []
    assert 2 <= len(value["ingredients"]) <= 4
    datetime.datetime.fromisoformat(value["published"])


def test_uppercase_lowercase_and_integer_types_mean_the_same(gemini_shared: Gemini) -> None:
    for kind in ("OBJECT", "object", 6):
        schema = {"type": kind, "properties": {"n": {"type": "integer"}, "ok": {"type": "BOOLEAN"}}}
        value, _ = _raw(gemini_shared, _ask(schema))
        assert isinstance(value["n"], int) and isinstance(value["ok"], bool)


def test_firebase_dialect_nullable_false_everywhere(gemini_shared: Gemini) -> None:
    """firebase/ai sends lowercase types, `nullable: false` on every node, generationConfig first, and an empty
    safetySettings list, on its own URL family."""
    schema = {
        "type": "object",
        "nullable": False,
        "properties": {
            "name": {"type": "string", "nullable": False},
            "age": {"type": "integer", "nullable": False},
            "tags": {"type": "array", "nullable": False, "items": {"type": "string", "nullable": False}},
        },
        "required": ["name", "age", "tags"],
    }
    body = {
        "generationConfig": {"responseMimeType": JSON, "responseSchema": schema},
        "safetySettings": [],
        "contents": [{"role": "user", "parts": [{"text": "Describe a user"}]}],
    }
    value, _ = _raw(gemini_shared, body, path=f"/v1beta/projects/demo/models/{MODEL}:generateContent")
    assert errors_in(value, schema, json_schema=False) == []
    assert None not in value.values()


def test_langchain_integer_bounds_give_ordinary_numbers(gemini_shared: Gemini) -> None:
    """LangChain bounds every integer by +/-(2**53 - 1): values stay inside and still look like data."""
    big = 2**53 - 1
    schema = {
        "type": "object",
        "properties": {
            "age": {"type": "integer", "minimum": -big, "maximum": big},
            "count": {"type": "integer", "minimum": -big, "maximum": big},
            "year": {"type": "integer", "minimum": 2000, "maximum": big},
        },
        "required": ["age", "count", "year"],
    }
    body = {**_ask(schema, "A person"), "safetySettings": []}
    body["generationConfig"]["stopSequences"] = []
    value, _ = _raw(gemini_shared, body)
    assert errors_in(value, schema, json_schema=False) == []
    assert 0 < value["age"] < 130 and 0 < value["count"] < 1000 and 2000 <= value["year"] < 2100


@pytest.mark.parametrize("json_schema", [False, True], ids=["responseSchema", "responseJsonSchema"])
def test_property_names_that_are_schema_keywords(gemini_shared: Gemini, json_schema: bool) -> None:
    kind = str.lower if json_schema else str.upper
    schema = {
        "type": kind("object"),
        "properties": {
            "type": {"type": kind("string"), "enum": ["fruit", "vegetable"]},
            "properties": {"type": kind("array"), "items": {"type": kind("string")}},
            "items": {"type": kind("integer")},
            "required": {"type": kind("boolean")},
        },
        "required": ["type", "properties", "items", "required"],
    }
    value, _ = _raw(gemini_shared, _ask(schema, "Describe produce", json_schema))
    assert errors_in(value, schema, json_schema) == []
    assert value["type"] in ("fruit", "vegetable") and isinstance(value["properties"], list)
    assert isinstance(value["items"], int) and isinstance(value["required"], bool)


# --- responseJsonSchema: JSON Schema as AI SDK 4 sends it ----------------------------------------------------

AI_SDK_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "kind": {"const": "order"},
        "customer": {"$ref": "#/$defs/customer"},
        "shipping": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]},
        "note": {"type": ["string", "null"], "maxLength": 40},
        "payment": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"card": {"type": "string", "minLength": 4, "maxLength": 4}},
                    "required": ["card"],
                    "additionalProperties": False,
                },
                {"type": "string", "enum": ["cash", "invoice"]},
            ]
        },
        "quantity": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
        "discount": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        "ordered_on": {"type": "string", "format": "date"},
        "tracking": {"type": "string", "format": "uuid"},
    },
    "required": ["kind", "customer", "shipping", "payment", "quantity", "ordered_on"],
    "additionalProperties": False,
    "$defs": {
        "customer": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}},
            "required": ["name", "email"],
            "additionalProperties": False,
        },
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


def test_response_json_schema_through_the_sdk(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type=JSON, response_json_schema=AI_SDK_SCHEMA)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="An order", config=config)
    value = json.loads(response.text)
    assert errors_in(value, AI_SDK_SCHEMA, json_schema=True) == []
    assert value["kind"] == "order"
    assert set(value["customer"]) == {"name", "email"}  # $ref resolved, nothing invented


def test_ai_sdk_4_body_on_the_wire(gemini_shared: Gemini) -> None:
    """AI SDK 4 puts generationConfig first and sends draft-07 JSON Schema in responseJsonSchema."""
    body = {
        "generationConfig": {"responseMimeType": JSON, "responseJsonSchema": AI_SDK_SCHEMA},
        "contents": [{"role": "user", "parts": [{"text": "Another order please"}]}],
    }
    value, _ = _raw(gemini_shared, body)
    assert errors_in(value, AI_SDK_SCHEMA, json_schema=True) == []


def test_values_look_like_data(gemini_shared: Gemini) -> None:
    fields = ["full_name", "email", "city", "zip_code", "created_at", "userId", "phone", "country", "website"]
    schema = {"type": "OBJECT", "properties": {f: {"type": "STRING"} for f in fields}, "propertyOrdering": fields}
    value, _ = _raw(gemini_shared, _ask(schema, "Plan a trip to Lisbon for me"))
    assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", value["full_name"])
    assert re.fullmatch(r"[a-z.]+@[a-z.]+", value["email"])
    assert value["city"] == "Lisbon"  # the place the prompt names
    assert re.fullmatch(r"\d{5}", value["zip_code"])
    datetime.date.fromisoformat(value["created_at"])
    assert re.fullmatch(r"[a-z]+-\d{4}", value["userId"])
    assert re.fullmatch(r"\+[\d-]+", value["phone"])
    assert value["country"][0].isupper() and value["website"].startswith("https://")
    other, _ = _raw(gemini_shared, _ask(schema, "Describe a stranger"))
    assert other["city"][0].isupper() and other["city"].isalpha()  # a stock city, not a word of the prompt


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "format": "date"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"inner": schema, "extra": {"type": "string"}}, "required": ["inner"]}
    return schema


@pytest.mark.parametrize("json_schema", [False, True], ids=["responseSchema", "responseJsonSchema"])
def test_deep_required_nesting_is_written_to_the_bottom(gemini_shared: Gemini, json_schema: bool) -> None:
    schema = _nested(20)
    value, _ = _raw(gemini_shared, _ask(schema, json_schema=json_schema))
    assert errors_in(value, schema, json_schema) == []


def test_recursive_ref_and_required_names_without_properties(gemini_shared: Gemini) -> None:
    """A self-referencing tree (pydantic and zod emit these) ends; a required name with no property schema
    is still written."""
    schema = {
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["label", "children", "weight"],
            }
        },
    }
    value, _ = _raw(gemini_shared, _ask(schema, json_schema=True))
    assert errors_in(value, schema, json_schema=True) == []
    assert value["children"] and "weight" in value


# --- property order, determinism, streaming -------------------------------------------------------------------

UNORDERED = {
    "zeta": {"type": "STRING"},
    "alpha": {"type": "STRING"},
    "mid": {"type": "INTEGER"},
    "beta": {"type": "BOOLEAN"},
}


def test_property_ordering_is_honoured(gemini_shared: Gemini) -> None:
    order = ["mid", "zeta", "beta", "alpha"]
    schema = {"type": "OBJECT", "properties": UNORDERED, "propertyOrdering": order}
    _, text = _raw(gemini_shared, _ask(schema))
    assert list(json.loads(text)) == order
    schema = {"type": "OBJECT", "properties": UNORDERED, "property_ordering": order}  # pydantic's spelling
    assert list(_raw(gemini_shared, _ask(schema))[0]) == order


def test_without_ordering_required_first_then_the_rest(gemini_shared: Gemini) -> None:
    """OpenAPI subset: required ones in `required` order, then the others alphabetically; JSON Schema: the
    others in declaration order (the rule in engines/synth/schema.py)."""
    schema = {"type": "OBJECT", "properties": UNORDERED, "required": ["mid", "zeta"]}
    assert list(_raw(gemini_shared, _ask(schema))[0]) == ["mid", "zeta", "alpha", "beta"]
    schema = {"type": "object", "properties": UNORDERED, "required": ["mid", "zeta"]}
    assert list(_raw(gemini_shared, _ask(schema, json_schema=True))[0]) == ["mid", "zeta", "alpha", "beta"]
    declared = {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}}
    assert list(_raw(gemini_shared, _ask(declared, json_schema=True))[0]) == ["b", "a"]
    assert list(_raw(gemini_shared, _ask({**declared, "type": "OBJECT"}))[0]) == ["a", "b"]


def test_same_request_same_json_different_prompt_different_values(gemini_shared: Gemini) -> None:
    first = _raw(gemini_shared, _ask(RECIPE, "A dinner recipe"))[1]
    assert _raw(gemini_shared, _ask(RECIPE, "A dinner recipe"))[1] == first
    others = {_raw(gemini_shared, _ask(RECIPE, f"A recipe for guest {i}"))[1] for i in range(3)}
    assert first not in others and len(others) == 3


def test_streamed_json_is_split_over_chunks_and_concatenates_to_the_unary_text(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type=JSON, response_schema=Person)
    models = gemini_shared.client.models
    chunks = list(models.generate_content_stream(model=MODEL, contents="Invent a person", config=config))
    texts = [c.text for c in chunks if c.text]
    assert len(texts) > 1
    with pytest.raises(json.JSONDecodeError):
        json.loads(texts[0])  # a piece of the JSON, not a whole document
    joined = "".join(texts)
    assert Person.model_validate_json(joined)
    assert joined == models.generate_content(model=MODEL, contents="Invent a person", config=config).text


def test_json_without_a_schema_is_still_json(gemini_shared: Gemini) -> None:
    config = types.GenerateContentConfig(response_mime_type=JSON)
    response = gemini_shared.client.models.generate_content(model=MODEL, contents="Tell me about tea", config=config)
    assert isinstance(json.loads(response.text), dict | list)


# --- a generated population of schemas, checked with jsonschema ----------------------------------------------

_NAMES = ["type", "properties", "items", "required", "enum", "anyOf", "format", "title", "$ref", "name", "email"]
_NAMES += ["age", "city", "id", "created_at", "description", "count", "year", "score", "tags", "zip_code", "fooBar"]
_FORMATS = ["email", "date", "date-time", "uuid"]
_WORDS = ["red", "green", "blue", "type", "items", "null", "N/A", "multi word", "x"]
_BIG = 2**53 - 1


def _type(draw: st.DrawFn, name: str, json_schema: bool) -> str:
    """A type name as the dialect spells it: JSON Schema in lower case, the OpenAPI subset in either case."""
    return name if json_schema else draw(st.sampled_from([name.upper(), name]))


def _bounds(draw: st.DrawFn, integer: bool, exclusive: bool) -> dict[str, Any]:
    """minimum/maximum (and, for JSON Schema, their exclusive forms) that leave at least one valid value."""
    if integer:
        number = st.integers(-1000, 1000) | st.sampled_from([-_BIG, _BIG, 0, 2025])
    else:
        number = st.floats(-1000, 1000, allow_nan=False, allow_infinity=False) | st.sampled_from([0.0, 0.5, -_BIG])
    low, high = draw(st.none() | number), draw(st.none() | number)
    if low is not None and high is not None and low > high:
        low, high = high, low
    out: dict[str, Any] = {}
    if low is not None:
        out["minimum"] = low
    if high is not None:
        out["maximum"] = high
    room = None if low is None or high is None else high - low
    for side in ("minimum", "maximum"):
        if exclusive and side in out and draw(st.booleans()) and (room is None or room >= (3 if integer else 0.01)):
            out["exclusiveM" + side[1:]] = out.pop(side)
            room = None if room is None else room - (1 if integer else 0.005)
    return out


def _scalar(draw: st.DrawFn, json_schema: bool, kind: str = "") -> dict[str, Any]:
    kind = kind or draw(st.sampled_from(["string", "string", "integer", "number", "boolean"]))
    node: dict[str, Any] = {"type": _type(draw, kind, json_schema)}
    if kind in ("integer", "number"):
        node |= _bounds(draw, kind == "integer", exclusive=json_schema)
        step = draw(st.sampled_from([2, 5, 7] if kind == "integer" else [0.25, 0.5, 2]))
        ends = [v for k, v in node.items() if k != "type"]  # the bounds just drawn
        if json_schema and draw(st.booleans()) and (len(ends) < 2 or max(ends) - min(ends) > 2 * step):
            node["multipleOf"] = step
    elif kind == "string":
        extra = draw(st.sampled_from(["plain", "format", "enum", "length"]))
        if extra == "format":
            node["format"] = draw(st.sampled_from(_FORMATS))
        elif extra == "enum":
            node["enum"] = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4, unique=True))
            if not json_schema and draw(st.booleans()):
                node["format"] = "enum"
        elif extra == "length":
            low = draw(st.integers(0, 30))
            if draw(st.booleans()):
                node["minLength"] = low
            if draw(st.booleans()):
                node["maxLength"] = low + draw(st.integers(0, 20))
    return node


def _decorate(draw: st.DrawFn, node: dict[str, Any], json_schema: bool) -> dict[str, Any]:
    """The node, sometimes titled and described, sometimes nullable in the dialect's way."""
    if draw(st.booleans()):
        node["title"] = "A title"
    if draw(st.integers(0, 3)) == 0:
        node["description"] = "Some description"
    if draw(st.integers(0, 3)) == 0 and "type" in node:
        if not json_schema:
            node["nullable"] = draw(st.booleans())
        elif draw(st.booleans()):
            node["type"] = [node["type"], "null"]
            if "enum" in node:
                node["enum"] = [*node["enum"], None]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


@st.composite
def _schemas(draw: st.DrawFn, json_schema: bool, depth: int = 0, refs: tuple[str, ...] = ()) -> dict[str, Any]:
    """One schema node: containers get rarer with depth; JSON Schema adds const, oneOf (of
    different types, so that no value matches twice) and `$ref`s to `refs`."""
    shapes = ["scalar"] * (2 + depth) + ["object", "array", "anyOf"] * (depth < 3)
    if json_schema:
        shapes += ["const"] + ["oneOf"] * (depth < 3) + ["ref"] * bool(refs)
    shape = draw(st.sampled_from(shapes))
    child = _schemas(json_schema, depth + 1, refs)
    if shape == "scalar":
        node = _scalar(draw, json_schema)
    elif shape == "const":
        return {"const": draw(st.sampled_from(["fixed", 7, True, None]))}
    elif shape == "ref":
        return {"$ref": "#/$defs/" + draw(st.sampled_from(refs)).replace("~", "~0").replace("/", "~1")}
    elif shape == "anyOf":
        node = {"anyOf": draw(st.lists(child, min_size=2, max_size=3))}
    elif shape == "oneOf":
        kinds = draw(st.lists(st.sampled_from(["string", "integer", "boolean"]), min_size=2, max_size=3, unique=True))
        return {"oneOf": [_scalar(draw, True, kind) for kind in kinds]}
    elif shape == "array":
        node = {"type": _type(draw, "array", json_schema), "items": draw(child)}
        low = draw(st.none() | st.integers(0, 4))
        high = draw(st.none() | st.integers(low or 0, 5))
        node |= {k: v for k, v in (("minItems", low), ("maxItems", high)) if v is not None}
        if json_schema and (low or 0) <= 1 and draw(st.booleans()):
            node["uniqueItems"] = True
    else:
        names = draw(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=5, unique=True))
        node = {"type": _type(draw, "object", json_schema), "properties": {n: draw(child) for n in names}}
        required = draw(st.lists(st.sampled_from(names), unique=True))
        if required:
            node["required"] = required
        least = draw(st.integers(0, len(names)))
        if draw(st.integers(0, 3)) == 0:
            node["minProperties"] = least
        if draw(st.integers(0, 3)) == 0:
            node["maxProperties"] = draw(st.integers(max(least, len(required)), len(names)))
        if not json_schema and draw(st.booleans()):
            node[draw(st.sampled_from(["propertyOrdering", "property_ordering"]))] = draw(st.permutations(names))
        if json_schema and draw(st.booleans()):
            node["additionalProperties"] = False
    return _decorate(draw, node, json_schema)


@st.composite
def _json_schema_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A JSON Schema document as AI SDK 4 sends one: sometimes `$schema`, sometimes `$defs` used through `$ref`."""
    names = tuple(draw(st.lists(st.sampled_from(["item", "type", "Thing", "a~b", "x/y"]), max_size=2, unique=True)))
    root = draw(_schemas(True, refs=names))
    if names:
        definitions = {name: draw(_schemas(True, depth=1)) for name in names}
        root = {"type": "object", "properties": {"root": root}, "required": ["root"], "$defs": definitions}
    if draw(st.booleans()):
        root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **root}
    return root


_PROMPTS = st.sampled_from(["Fill it in", "Generate sample data", "Describe Paris and Kyoto", "x", "List the items"])
_POPULATION = settings(max_examples=150, deadline=None, database=None, derandomize=True)


def _check_population(http: httpx.Client, schema: dict[str, Any], prompt: str, json_schema: bool) -> None:
    response = http.post(
        f"/v1beta/models/{MODEL}:generateContent",
        json=_ask(schema, prompt, json_schema),
        headers={"x-goog-api-key": "synth-population"},
    )
    assert response.status_code == 200, response.text
    text = response.json()["candidates"][0]["content"]["parts"][0]["text"]
    assert errors_in(json.loads(text), schema, json_schema) == [], text


@pytest.mark.slow
@_POPULATION
@given(schema=_schemas(False), prompt=_PROMPTS)
def test_population_openapi_subset(http: httpx.Client, schema: dict[str, Any], prompt: str) -> None:
    _check_population(http, schema, prompt, json_schema=False)


@pytest.mark.slow
@_POPULATION
@given(schema=_json_schema_documents(), prompt=_PROMPTS)
def test_population_json_schema(http: httpx.Client, schema: dict[str, Any], prompt: str) -> None:
    _check_population(http, schema, prompt, json_schema=True)
