"""The two JSON printers against production's own bytes. [wire-facts §4]

Evidence, most faithful first (../shared/corpus/README.md):
- httprr traces from google-adk-go and tmc-langchaingo: byte-exact bodies (Go removed the transport
  coding only). Every unary/error body must equal `printers.pretty(parsed)`, every SSE payload
  `printers.line(parsed)` and every JSON-array stream element `printers.indented(parsed)`.
- Firebase mock responses whose SSE events use CRLF separators: verbatim captures, except the few
  listed in captures.py as hand-edited.
A failure message names the capture, the file offset and the bytes on both sides.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from gemini_emulator.protocol import printers

import corpus as captures

# --- exclusions, each with its reason -----------------------------------------------------------

# Bodies whose doubles production spells the SimpleDtoa way (%.15g, else %.17g; C-style exponents),
# which the shortest round-trip form would get wrong: pinned by test_pretty_spells_floats_as_production.
LONG_DOUBLES: dict[str, str] = {
    "tmc-langchaingo/chains/testdata/TestLLMChainWithGoogleAI.httprr#0": "-0.023865083853403728",
    "tmc-langchaingo/llms/googleai/testdata/TestGoogleAIGenerateContent.httprr#0": "-0.050683832830852933",
    "tmc-langchaingo/llms/googleai/testdata/TestGoogleAIWithOptions.httprr#0": "-0.00052006928516285759",
    "tmc-langchaingo/llms/googleai/testdata/TestGoogleAIToolCallResponse.httprr#0": "-3.0261813662946224e-05",
    "tmc-langchaingo/llms/googleai/testdata/TestGoogleAIWithTools.httprr#0": "-6.3036306528374553e-05",
    # batchEmbedContents: 2304 values, 5 of them below 1e-4 (1.057061e-05, -5.856575e-05, 7.406435e-06...)
    "tmc-langchaingo/llms/googleai/testdata/TestGoogleAICreateEmbedding.httprr#0": "1.057061e-05",
}

# Edited by hand upstream: the body's closing brace is indented by two spaces ("...\"\n  }\n"), which
# no JSON printer produces; the request of the same exchange also has an enum edited relative to
# exchange #0 ("transfer_agent" for "calculator"). Every other byte is still compared below.
HAND_EDITED_UNARY = {
    "google-adk-go/plugin/functioncallmodifier/testdata/TestPluginCallbackIntegration_transfer_to_agent_tool"
    ".httprr#1": (b"\n  }\n", b"\n}\n"),
}

# Counts in the corpus snapshot (README.md: pinned upstream commits); lower bounds so that a corpus
# that silently reads as empty, or an exclusion that silently grows, fails.
MIN_UNARY = 109
MIN_HTTPRR_EVENTS = 93
MIN_FIREBASE_EVENTS = 130
MIN_ARRAY_ELEMENTS = 20


# --- helpers ------------------------------------------------------------------------------------


def _unary(exchange: captures.Exchange) -> bool:
    return exchange.body.startswith(b"{") and not captures.is_sse(exchange)


def _array_elements(body: bytes) -> list[bytes]:
    # A raw newline never occurs inside a JSON string, so "\n,\r\n" only ever separates elements.
    assert body.startswith(b"[{\n") and body.endswith(b"\n}\n]"), body[:20] + b"..." + body[-20:]
    return body[1:-2].split(b"\n,\r\n")


def _firebase_events(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if captures.firebase_name(path) in captures.FIREBASE_SSE_UNTERMINATED:
        assert data.endswith(b"}\r\n") and not data.endswith(captures.SSE_END)
        data += b"\r\n"
    return captures.split_sse(data)


def _line_event(payload: bytes) -> bytes:
    return b"data: " + printers.line(orjson.loads(payload)) + captures.SSE_END


# --- pretty: unary and error bodies ---------------------------------------------------------------


@pytest.mark.corpus
def test_pretty_reproduces_every_unary_and_error_body() -> None:
    checked: list[str] = []
    failures: list[str] = []
    statuses: set[int] = set()
    for ex in captures.exchanges():
        if not _unary(ex):
            continue
        if ex.name in HAND_EDITED_UNARY:  # compared apart from the edit, below
            continue
        got = printers.pretty(orjson.loads(ex.body))
        if got != ex.body:
            failures.append(f"{ex.name}: {captures.first_difference(ex.body, got, ex.body_offset)}")
        checked.append(ex.name)
        statuses.add(ex.status)
    print(f"pretty: {len(checked)} unary/error bodies pinned")
    assert not failures, "\n".join(failures)
    assert len(checked) >= MIN_UNARY
    assert {200, 401, 403} <= statuses  # success bodies and both error bodies in the traces


@pytest.mark.corpus
def test_pretty_matches_hand_edited_body_apart_from_the_edit() -> None:
    seen = 0
    for ex in captures.exchanges():
        if ex.name in HAND_EDITED_UNARY:
            edited, real = HAND_EDITED_UNARY[ex.name]
            assert ex.body.endswith(edited)
            restored = ex.body[: -len(edited)] + real
            got = printers.pretty(orjson.loads(ex.body))
            assert got == restored, captures.first_difference(restored, got, ex.body_offset)
            seen += 1
    assert seen == len(HAND_EDITED_UNARY)


def _simple_dtoa(value: float) -> bytes:
    """protobuf's SimpleDtoa: "%.15g", or "%.17g" when 15 digits do not round-trip."""
    short = f"{value:.15g}"
    return (short if float(short) == value else f"{value:.17g}").encode()


@pytest.mark.corpus
def test_production_float_spelling_is_simple_dtoa() -> None:
    """Characterises the corpus for whoever fixes the float spelling: one rule fits every literal."""
    literals = 0
    for ex in captures.exchanges():
        texts = [e[6:-4] for e in captures.split_sse(ex.body)] if captures.is_sse(ex) else [ex.body]
        for text in texts:
            for lit in captures.float_literals(text):
                assert _simple_dtoa(float(lit)) == lit, f"{ex.name}: {lit!r}"
                literals += 1
    print(f"float spelling: {literals} literals follow %.15g/%.17g")
    assert literals >= 2000


@pytest.mark.corpus
def test_pretty_spells_floats_as_production() -> None:
    failures = []
    seen = 0
    for ex in captures.exchanges():
        if ex.name in LONG_DOUBLES:
            seen += 1
            literal = LONG_DOUBLES[ex.name].encode()
            assert literal in ex.body and orjson.dumps(float(literal)) != literal  # shortest form would differ
            got = printers.pretty(orjson.loads(ex.body))
            if got != ex.body:
                failures.append(f"{ex.name}: {captures.first_difference(ex.body, got, ex.body_offset)}")
    assert not failures, "\n".join(failures)
    assert seen == len(LONG_DOUBLES)


# --- line: SSE payloads ---------------------------------------------------------------------------


@pytest.mark.corpus
def test_line_reproduces_every_httprr_sse_event() -> None:
    events = 0
    failures = []
    for ex in captures.exchanges():
        if not captures.is_sse(ex):
            continue
        offset = ex.body_offset
        for event in captures.split_sse(ex.body):
            got = _line_event(event[6:-4])
            if got != event:
                failures.append(f"{ex.name}: {captures.first_difference(event, got, offset)}")
            offset += len(event)
            events += 1
    print(f"line: {events} httprr SSE events pinned")
    assert not failures, "\n".join(failures)
    assert events >= MIN_HTTPRR_EVENTS


@pytest.mark.corpus
def test_line_reproduces_every_verbatim_firebase_sse_event() -> None:
    files = captures.firebase_sse_files()
    names = {captures.firebase_name(p) for p in files}
    assert set(captures.FIREBASE_SSE_EDITED) | captures.FIREBASE_SSE_UNTERMINATED <= names  # exclusions stay accurate
    events = 0
    failures = []
    for path in files:
        if captures.firebase_name(path) in captures.FIREBASE_SSE_EDITED:
            continue
        offset = 0
        for event in _firebase_events(path):
            got = _line_event(event[6:-4])
            if got != event:
                failures.append(f"{captures.firebase_name(path)}: {captures.first_difference(event, got, offset)}")
            offset += len(event)
            events += 1
    print(f"line: {events} Firebase CRLF SSE events pinned from {len(files) - len(captures.FIREBASE_SSE_EDITED)} files")
    assert not failures, "\n".join(failures)
    assert events >= MIN_FIREBASE_EVENTS


@pytest.mark.corpus
def test_edited_firebase_sse_files_really_differ() -> None:
    """Each listed edit is visible: the exclusion hides no printer defect."""
    root = captures.require_corpus() / captures.FIREBASE_MOCKS
    for name in captures.FIREBASE_SSE_EDITED:
        events = captures.split_sse((root / name).read_bytes())
        assert any(_line_event(e[6:-4]) != e for e in events), name


# --- indented: JSON-array stream elements --------------------------------------------------------


@pytest.mark.corpus
def test_indented_reproduces_every_json_array_element() -> None:
    elements = 0
    failures = []
    for ex in captures.exchanges():
        if not captures.is_json_array_stream(ex):
            continue
        for text in _array_elements(ex.body):
            got = printers.indented(orjson.loads(text))
            if got != text:
                failures.append(f"{ex.name}: {captures.first_difference(text, got)}")
            elements += 1
    print(f"indented: {elements} JSON-array elements pinned")
    assert not failures, "\n".join(failures)
    assert elements >= MIN_ARRAY_ELEMENTS


# --- escaping: '<' and '>' escaped, '&', "'", '=' and non-ASCII raw --------------------------------


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [k, *_strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _byte_exact_units() -> list[tuple[str, bytes, bytes]]:
    """(name, captured bytes, printer output) for every pinned body, event and element."""
    units = []
    for ex in captures.exchanges():
        if captures.is_sse(ex):
            units += [(ex.name, e, _line_event(e[6:-4])) for e in captures.split_sse(ex.body)]
        elif captures.is_json_array_stream(ex):
            units += [(ex.name, t, printers.indented(orjson.loads(t))) for t in _array_elements(ex.body)]
        elif ex.name not in HAND_EDITED_UNARY:
            units.append((ex.name, ex.body, printers.pretty(orjson.loads(ex.body))))
    return units


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("char", "escaped"),
    [
        ("&", b"\\u0026"),
        ("'", b"\\u0027"),
        ("=", b"\\u003d"),
        ("é", b"\\u00e9"),
        ("í", b"\\u00ed"),
        ("Ł", b"\\u0141"),
        ("…", b"\\u2026"),
    ],
)
def test_raw_characters_in_byte_exact_captures(char: str, escaped: bytes) -> None:
    """Production writes these characters raw inside strings; the printers must too."""
    hits = []
    for name, captured, got in _byte_exact_units():
        text = captured[6:-4] if captured.startswith(b"data: ") else captured
        if any(char in s for s in _strings(orjson.loads(text))):
            assert char.encode() in captured and escaped not in captured.lower()
            assert got == captured, f"{name}: {captures.first_difference(captured, got)}"
            hits.append(name)
    print(f"{char!r} raw: {len(hits)} byte-exact units in {len(set(hits))} exchanges, e.g. {hits[0]}")
    assert hits, f"no byte-exact capture holds {char!r}"


@pytest.mark.corpus
def test_no_unicode_escapes_in_byte_exact_responses() -> None:
    """Nothing but control characters would ever be \\u-escaped: no capture response holds one."""
    for ex in captures.exchanges():
        assert b"\\u" not in ex.body, ex.name


# Firebase unary fixtures (verbatim pretty bodies; none of the byte-exact traces returns '<' or '>').
LT_GT_FIXTURES = (
    "googleai/unary-success-google-search-grounding.json",
    "googleai/unary-success-google-search-grounding-empty-grounding-chunks.json",
    "vertexai/unary-success-google-search-grounding.json",
)
AMP_FIXTURES = (
    "googleai/unary-success-url-context-mixed-validity.json",
    "vertexai/unary-success-url-context-mixed-validity.json",
)


@pytest.mark.corpus
@pytest.mark.parametrize("name", LT_GT_FIXTURES)
def test_lt_gt_escaped_as_in_grounding_captures(name: str) -> None:
    data = (captures.require_corpus() / captures.FIREBASE_MOCKS / name).read_bytes()
    obj = orjson.loads(data)
    assert any("<" in s and ">" in s for s in _strings(obj))  # searchEntryPoint.renderedContent HTML
    assert b"<" not in data and b">" not in data and b"\\u003c" in data and b"\\u003e" in data
    got = printers.pretty(obj)
    assert got == data, captures.first_difference(data, got)


@pytest.mark.corpus
@pytest.mark.parametrize("name", AMP_FIXTURES)
def test_amp_raw_as_in_url_context_captures(name: str) -> None:
    data = (captures.require_corpus() / captures.FIREBASE_MOCKS / name).read_bytes()
    assert b"&" in data and b"\\u0026" not in data
    got = printers.pretty(orjson.loads(data))
    assert got == data, captures.first_difference(data, got)


def test_escaping_rule_on_both_printers() -> None:
    """Independent of the corpus: only '<' and '>' are escaped, in keys and values alike."""
    obj = {"k<>": "<a href='x?y=1&z=2'>Łazienki, Frédéric…</a>"}
    value = "\\u003ca href='x?y=1&z=2'\\u003eŁazienki, Frédéric…\\u003c/a\\u003e"
    assert printers.line(obj) == ('{"k\\u003c\\u003e": "' + value + '"}').encode()
    assert printers.pretty(obj) == ('{\n  "k\\u003c\\u003e": "' + value + '"\n}\n').encode()


# --- the emulator's own unary bodies, over a real socket -------------------------------------------


def _reference_pretty(obj: Any) -> bytes:
    """An oracle independent of orjson: stdlib json with production's separators and escaping."""
    text = json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    return text.replace("<", "\\u003c").replace(">", "\\u003e").encode()


PROMPT = {"contents": [{"role": "user", "parts": [{"text": "Write three paragraphs about <b>tags</b> & café"}]}]}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/v1beta/models/gemini-2.5-flash:generateContent", PROMPT, 200),
        ("POST", "/v1/models/gemini-2.5-flash:countTokens", PROMPT, 200),
        ("POST", "/v1beta/models/no-such-model:generateContent", PROMPT, 404),
        ("GET", "/v1beta/models/gemini-2.5-flash", None, 200),
    ],
)
def test_emulator_unary_bodies_are_pretty(gemini_emulator, method, path, body, status) -> None:
    resp = httpx.request(method, gemini_emulator.url + path, json=body, headers={"x-goog-api-key": "k"})
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == "application/json; charset=UTF-8"
    raw = resp.content
    assert raw.startswith(b'{\n  "') and raw.endswith(b"\n}\n") and not raw.endswith(b"\n\n")
    parsed = json.loads(raw)
    assert raw == printers.pretty(parsed)
    assert raw == _reference_pretty(parsed)
