"""Imagen on :predict, as google-genai 3.6.1 calls it on Vertex AI (generate_images, edit_image, upscale_image) and
as REST callers and @google/genai call it on the Developer API; every image is decoded (tests/pngcheck.py)."""

from __future__ import annotations

import base64
import io
import warnings

import google.oauth2.credentials
import httpx
import pytest
from google import genai
from google.genai import errors, types
from PIL import Image
from pngcheck import decode

from gemini_emulator.media import images, jpeg
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.wire.media import imagen

GENERATE = "imagen-4.0-generate-001"
warnings.filterwarnings("ignore", message="The (generate_images|edit_image) method is deprecated")


def _vertex(base_url: str, token: str = "static-test-token") -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="demo-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token=token),
        http_options=types.HttpOptions(base_url=base_url),
    )


@pytest.fixture
def vertex(base_url: str) -> genai.Client:
    return _vertex(base_url)


def test_generate_images_count_and_aspect_ratio(vertex: genai.Client) -> None:
    config = types.GenerateImagesConfig(number_of_images=3, aspect_ratio="16:9", person_generation="ALLOW_ADULT")
    response = vertex.models.generate_images(model=GENERATE, prompt="A lighthouse in a storm", config=config)
    assert len(response.generated_images) == 3
    pictures = [g.image.image_bytes for g in response.generated_images]
    assert all(decode(p)[:2] == (1408, 768) for p in pictures)
    assert len(set(pictures)) == 3  # each sample differs
    assert all(g.image.mime_type == "image/png" for g in response.generated_images)
    again = vertex.models.generate_images(model=GENERATE, prompt="A lighthouse in a storm", config=config)
    assert [g.image.image_bytes for g in again.generated_images] == pictures


@pytest.mark.parametrize("quality", [None, 20, 95])
def test_generate_images_as_jpeg(vertex: genai.Client, quality: int | None) -> None:
    """output_mime_type / output_compression_quality (parameters.outputOptions): a real JPEG of Imagen's size."""
    config = types.GenerateImagesConfig(
        number_of_images=2, aspect_ratio="9:16", output_mime_type="image/jpeg", output_compression_quality=quality
    )
    response = vertex.models.generate_images(model=GENERATE, prompt="A lighthouse in a storm", config=config)
    for generated in response.generated_images:
        assert generated.image.mime_type == "image/jpeg"
        picture = Image.open(io.BytesIO(generated.image.image_bytes))
        picture.load()
        assert (picture.format, picture.size) == ("JPEG", (768, 1408))
    expected = jpeg.quant_tables(jpeg.DEFAULT_QUALITY if quality is None else quality)[0][0]
    assert generated.image.image_bytes.find(bytes([0xFF, 0xDB])) > 0
    assert picture.quantization[0][0] == expected  # the luminance table of the asked quality


def test_jpeg_on_developer_rest_and_bad_output_options(http: httpx.Client) -> None:
    headers = {"x-goog-api-key": "k"}
    body = {
        "instances": [{"prompt": "a kite"}],
        "parameters": {"sampleCount": 1, "outputOptions": {"mimeType": "image/jpeg", "compressionQuality": 60}},
    }
    response = http.post(f"/v1beta/models/{GENERATE}:predict", json=body, headers=headers)
    (prediction,) = response.json()["predictions"]
    assert prediction["mimeType"] == "image/jpeg"
    assert Image.open(io.BytesIO(base64.b64decode(prediction["bytesBase64Encoded"]))).size == (1024, 1024)
    for options, words in [({"mimeType": "image/webp"}, "mimeType"), ({"compressionQuality": 101}, "0 and 100")]:
        body["parameters"]["outputOptions"] = options
        refused = http.post(f"/v1beta/models/{GENERATE}:predict", json=body, headers=headers)
        assert refused.status_code == 400 and words in refused.json()["error"]["message"]


def test_upscale_a_jpeg(vertex: genai.Client) -> None:
    source = types.Image(image_bytes=images.jpeg(320, 240, "small"), mime_type="image/jpeg")
    config = types.UpscaleImageConfig(output_mime_type="image/jpeg")
    response = vertex.models.upscale_image(
        model="imagen-4.0-upscale-preview", image=source, upscale_factor="x2", config=config
    )
    assert Image.open(io.BytesIO(response.generated_images[0].image.image_bytes)).size == (640, 480)


def test_generate_default_is_four_square_images(vertex: genai.Client) -> None:
    response = vertex.models.generate_images(model="imagen-4.0-fast-generate-001", prompt="A red circle")
    assert [decode(g.image.image_bytes)[:2] for g in response.generated_images] == [(1024, 1024)] * 4


def test_safety_attributes_rai_reason_and_enhanced_prompt(vertex: genai.Client) -> None:
    config = types.GenerateImagesConfig(
        number_of_images=1, include_safety_attributes=True, include_rai_reason=True, enhance_prompt=True
    )
    response = vertex.models.generate_images(model=GENERATE, prompt="A red circle", config=config)
    (only,) = response.generated_images
    assert only.safety_attributes is not None and only.enhanced_prompt == "A red circle"
    assert response.positive_prompt_safety_attributes.content_type == "Positive Prompt"


def test_scripted_images_filtered_and_blocked(gemini_shared: Gemini, base_url: str) -> None:
    token = gemini_shared.api_key  # a bearer token is a namespace like an API key
    picture = images.png(1024, 1024, "mine")
    gemini_shared.script(
        {"match": {"text": "two of four"}, "image": [base64.b64encode(picture).decode()] * 2},
        {"match": {"text": "nothing"}, "blockReason": "SAFETY"},
        {"match": {"text": "blocked prompt"}, "error": {"code": 400, "message": "Image generation failed"}},
    )
    vertex = _vertex(base_url, token)
    config = types.GenerateImagesConfig(number_of_images=4, include_rai_reason=True)
    some = vertex.models.generate_images(model=GENERATE, prompt="two of four please", config=config)
    assert [g.image.image_bytes for g in some.generated_images if g.rai_filtered_reason is None] == [picture, picture]
    assert "filtered out 2 generated images" in some.generated_images[-1].rai_filtered_reason
    none = vertex.models.generate_images(model=GENERATE, prompt="nothing at all", config=config)
    assert not (none.generated_images[0].image and none.generated_images[0].image.image_bytes)
    assert none.generated_images[0].rai_filtered_reason == imagen.ALL_FILTERED
    with pytest.raises(errors.ClientError) as caught:
        vertex.models.generate_images(model=GENERATE, prompt="a blocked prompt", config=config)
    assert caught.value.code == 400 and caught.value.message == "Image generation failed"
    assert [c.rpc for c in gemini_shared.journal(model=GENERATE)] == ["predict"] * 3


def test_edit_image_with_a_mask_answers_at_the_reference_size(vertex: genai.Client) -> None:
    source = images.png(640, 480, "source")
    raw = types.RawReferenceImage(
        reference_id=1, reference_image=types.Image(image_bytes=source, mime_type="image/png")
    )
    mask = types.MaskReferenceImage(
        reference_id=2, config=types.MaskReferenceConfig(mask_mode="MASK_MODE_BACKGROUND", mask_dilation=0.06)
    )
    response = vertex.models.edit_image(
        model="imagen-3.0-capability-001",
        prompt="Put the scene at sunset",
        reference_images=[raw, mask],
        config=types.EditImageConfig(edit_mode="EDIT_MODE_INPAINT_INSERTION", number_of_images=2),
    )
    assert [decode(g.image.image_bytes)[:2] for g in response.generated_images] == [(640, 480)] * 2


def test_upscale_multiplies_the_input_size(vertex: genai.Client) -> None:
    source = types.Image(image_bytes=images.png(300, 200, "small"), mime_type="image/png")
    response = vertex.models.upscale_image(model="imagen-4.0-upscale-preview", image=source, upscale_factor="x4")
    assert decode(response.generated_images[0].image.image_bytes)[:2] == (1200, 800)


def test_developer_predict_as_recorded(http: httpx.Client) -> None:
    """vercel-ai's recording issue-10843-google-imagen-generate-image: the request and the answer's shape."""
    body = {"instances": [{"prompt": "a hamster in a hat"}], "parameters": {"sampleCount": 1, "aspectRatio": "4:3"}}
    response = http.post(f"/v1beta/models/{GENERATE}:predict", json=body, headers={"x-goog-api-key": "k"})
    assert response.status_code == 200
    (prediction,) = response.json()["predictions"]
    assert list(prediction) == ["mimeType", "bytesBase64Encoded"]
    assert decode(base64.b64decode(prediction["bytesBase64Encoded"]))[:2] == (1280, 896)


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"instances": [{"prompt": "x"}], "bogus": 1}, 400, 'Unknown name "bogus"'),
        ({"instances": [{"prompt": "x"}], "parameters": {"sampleCount": 9}}, 400, "sampleCount"),
        ({"instances": [{"prompt": "x"}], "parameters": {"aspectRatio": "2:1"}}, 400, "aspect ratio"),
        ({"instances": []}, 400, "instances"),
        ({"instances": [{"prompt": ""}]}, 400, "prompt"),
    ],
)
def test_bad_bodies_are_400s(http: httpx.Client, body: dict[str, object], status: int, words: str) -> None:
    response = http.post(f"/v1beta/models/{GENERATE}:predict", json=body, headers={"x-goog-api-key": "k"})
    assert response.status_code == status and words in response.json()["error"]["message"]


def test_imagen_refuses_generate_content_and_edit_models_are_vertex_only(http: httpx.Client) -> None:
    headers = {"x-goog-api-key": "k"}
    body = {"contents": [{"parts": [{"text": "x"}]}]}
    refused = http.post(f"/v1beta/models/{GENERATE}:generateContent", json=body, headers=headers)
    assert refused.status_code == 404 and "not supported for generateContent" in refused.json()["error"]["message"]
    edit = http.post("/v1beta/models/imagen-3.0-capability-001:predict", json={"instances": [{}]}, headers=headers)
    assert edit.status_code == 404


def test_journal_shows_predictions_by_size(gemini_shared: Gemini) -> None:
    body = {"instances": [{"prompt": "a kite"}], "parameters": {"sampleCount": 1}}
    url = f"{gemini_shared.url}/v1beta/models/{GENERATE}:predict"
    assert httpx.post(url, json=body, headers={"x-goog-api-key": gemini_shared.api_key}).status_code == 200
    shown = gemini_shared.journal(model=GENERATE).last.record["response"]
    assert "bytes of base64 media>" in shown and "iVBORw0KGgo" not in shown
