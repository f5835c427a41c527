"""POST /v1beta/openai/images/generations with the official `openai` Python SDK (`client.images.generate`) and
over raw HTTP: Imagen and Gemini image models answered through the native engine seam (scripts, journal,
namespaces), every image decoded; errors in the surface's list-wrapped envelope."""

from __future__ import annotations

import base64
import io

import httpx
import openai
import pytest
from PIL import Image

from gemini_emulator.media import images
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.wire.openai_compat.images import nearest_aspect

PATH = "/v1beta/openai/images/generations"
IMAGEN = "imagen-4.0-generate-001"
GEMINI_IMAGE = "gemini-3.1-flash-image"


def _client(url: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1beta/openai/", api_key=key, max_retries=0)


def _picture(b64: str) -> Image.Image:
    picture = Image.open(io.BytesIO(base64.b64decode(b64)))
    picture.load()
    return picture


def test_imagen_as_the_guide_calls_it(gemini_shared: Gemini) -> None:
    """The compatibility guide's call: model, prompt, response_format b64_json, n."""
    client = _client(gemini_shared.url, gemini_shared.api_key)
    response = client.images.generate(
        model=IMAGEN, prompt="a portrait of a sheepadoodle wearing a cape", response_format="b64_json", n=3
    )
    assert isinstance(response.created, int) and len(response.data) == 3
    shown = [_picture(d.b64_json) for d in response.data]
    assert [(p.format, p.size) for p in shown] == [("PNG", (1024, 1024))] * 3
    assert len({d.b64_json for d in response.data}) == 3  # each sample its own picture
    again = client.images.generate(
        model=IMAGEN, prompt="a portrait of a sheepadoodle wearing a cape", response_format="b64_json", n=3
    )
    assert [d.b64_json for d in again.data] == [d.b64_json for d in response.data]  # deterministic
    native = httpx.post(
        f"{gemini_shared.url}/v1beta/models/{IMAGEN}:predict",
        headers={"x-goog-api-key": gemini_shared.api_key},
        json={
            "instances": [{"prompt": "a portrait of a sheepadoodle wearing a cape"}],
            "parameters": {"sampleCount": 3, "aspectRatio": "1:1"},
        },
    ).json()
    assert [p["bytesBase64Encoded"] for p in native["predictions"]] == [d.b64_json for d in response.data]
    record = gemini_shared.journal(model=IMAGEN)[0].record
    assert record["rpc"] == "openai.images.generations"
    assert record["body"]["parameters"] == {"sampleCount": 3, "aspectRatio": "1:1"}  # the native request


@pytest.mark.parametrize(
    ("size", "extra", "expected"),
    [
        ("1792x1024", {}, (1408, 768)),  # nearest Imagen ratio 16:9
        ("1024x1792", {}, (768, 1408)),
        ("1024x1024", {"aspect_ratio": "4:3"}, (1280, 896)),  # extra_body's aspect_ratio wins
        ("auto", {"extra_body": {"google": {"aspect_ratio": "3:4"}}}, (896, 1280)),
    ],
)
def test_size_and_aspect_ratio(
    gemini_shared: Gemini, size: str, extra: dict[str, object], expected: tuple[int, int]
) -> None:
    client = _client(gemini_shared.url, gemini_shared.api_key)
    response = client.images.generate(model=IMAGEN, prompt="a lighthouse", size=size, extra_body=extra)  # type: ignore[arg-type]
    assert _picture(response.data[0].b64_json).size == expected


def test_gemini_image_model_through_generate_content(gemini_shared: Gemini) -> None:
    """The 2026 guide's call on a Gemini image model: the native generateContent with responseModalities IMAGE;
    extra_body's generation_config reaches it."""
    client = _client(gemini_shared.url, gemini_shared.api_key)
    response = client.images.generate(
        model=GEMINI_IMAGE,
        prompt="a portrait of a sheepadoodle wearing a cape",
        response_format="b64_json",
        n=2,
        size="1536x1024",
        extra_body={"generation_config": {"image_config": {"aspect_ratio": "21:9"}}},
    )
    assert [_picture(d.b64_json).size for d in response.data] == [(1536, 672)] * 2
    record = gemini_shared.journal(model=GEMINI_IMAGE)[0].record
    config = record["body"]["generationConfig"]
    assert config["responseModalities"] == ["IMAGE"] and config["candidateCount"] == 2
    default = client.images.generate(model=GEMINI_IMAGE, prompt="a fox", size="1536x1024")
    assert _picture(default.data[0].b64_json).size == images.dimensions("3:2")


def test_scripted_images_and_url_format(gemini_shared: Gemini) -> None:
    mine = images.jpeg(320, 200, "mine")
    gemini_shared.script(
        {"match": {"text": "scripted"}, "image": base64.b64encode(mine).decode(), "times": 2},
        {"match": {"text": "refused"}, "error": {"code": 400, "message": "Image generation failed"}},
        {"match": {"text": "filtered"}, "blockReason": "SAFETY"},
    )
    client = _client(gemini_shared.url, gemini_shared.api_key)
    response = client.images.generate(model=IMAGEN, prompt="a scripted kite", n=1)
    assert base64.b64decode(response.data[0].b64_json) == mine
    url = client.images.generate(model=GEMINI_IMAGE, prompt="a scripted kite", response_format="url")
    assert url.data[0].url == "data:image/jpeg;base64," + base64.b64encode(mine).decode()
    with pytest.raises(openai.BadRequestError) as caught:
        client.images.generate(model=IMAGEN, prompt="refused, please")
    assert "Image generation failed" in str(caught.value.body)
    assert client.images.generate(model=IMAGEN, prompt="all filtered").data == []


def test_unknown_model_and_text_model(gemini_shared: Gemini) -> None:
    client = _client(gemini_shared.url, gemini_shared.api_key)
    with pytest.raises(openai.NotFoundError) as missing:
        client.images.generate(model="imagen-0-nope", prompt="x")
    assert "Call ModelService.ListModels" in str(missing.value.body)
    with pytest.raises(openai.BadRequestError) as text_only:
        client.images.generate(model="gemini-2.5-flash", prompt="x")
    assert "response modalities" in str(text_only.value.body)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"model": IMAGEN}, "prompt is not specified"),
        ({"model": IMAGEN, "prompt": 5}, "TYPE_STRING"),
        ({"prompt": "x"}, "model is not specified"),
        ({"model": IMAGEN, "prompt": "x", "n": 9}, "n: must be between 1 and 4"),
        ({"model": IMAGEN, "prompt": "x", "n": "two"}, "TYPE_INT32"),
        ({"model": IMAGEN, "prompt": "x", "size": "big"}, "size"),
        ({"model": IMAGEN, "prompt": "x", "size": "0x10"}, "size"),
        ({"model": IMAGEN, "prompt": "x", "response_format": "gif"}, "response_format"),
        ({"model": IMAGEN, "prompt": "x", "aspect_ratio": "2:1"}, "aspect ratio"),
        ({"model": GEMINI_IMAGE, "prompt": "x", "generation_config": {"bogus": 1}}, 'Unknown name "bogus"'),
        ({"model": GEMINI_IMAGE, "prompt": "x", "tools": "search"}, "tools"),
    ],
)
def test_bad_bodies_are_400s_in_the_surface_shape(http: httpx.Client, body: dict[str, object], words: str) -> None:
    got = http.post(PATH, headers={"authorization": "Bearer k"}, json=body)
    assert got.status_code == 400, got.text
    (envelope,) = got.json()
    assert envelope["error"]["status"] == "INVALID_ARGUMENT" and words in envelope["error"]["message"]


def test_fields_production_ignores_are_ignored_and_a_missing_key_is_refused(http: httpx.Client) -> None:
    body = {"model": IMAGEN, "prompt": "x", "quality": "hd", "style": "vivid", "user": "u", "output_format": "jpeg"}
    got = http.post(PATH, headers={"authorization": "Bearer k"}, json=body)
    assert got.status_code == 200 and list(got.json()) == ["created", "data"]
    assert _picture(got.json()["data"][0]["b64_json"]).format == "PNG"
    assert http.post(PATH, json=body).status_code == 403


def test_nearest_aspect() -> None:
    assert nearest_aspect((1792, 1024), images.IMAGEN_ASPECT_RATIOS) == "16:9"
    assert nearest_aspect((1000, 1000), images.ASPECT_RATIOS) == "1:1"
    assert nearest_aspect((4000, 500), images.ASPECT_RATIOS) == "8:1"
