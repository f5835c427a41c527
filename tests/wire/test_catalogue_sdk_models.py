"""The catalogue keeps up with the SDKs (issue 30): every model id the pinned google-genai names in its model type
list is served (or known retired), so an SDK upgrade that names a new model fails here, naming it. The
@google/genai half is in tests/sdk/test_js_matrix.py (it needs the npm install)."""

from __future__ import annotations

import re
from pathlib import Path

import google.genai
import httpx
import pytest
from google.genai import types

from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.wire import catalogue

SDK_MODELS = Path(google.genai.__file__).parent / "_gaos" / "types" / "interactions" / "model.py"


def known_ids() -> set[str]:
    """Every id the catalogue answers for, on either backend, or refuses as production does for a retired one."""
    c = catalogue.load()
    return set(c.models) | set(c.aliases) | set(c.media) | set(c.vertex_only) | c.no_longer_available


def sdk_python_ids() -> list[str]:
    """The ids of google-genai's Interactions `Model` type (a Literal of quoted ids, one a line)."""
    return re.findall(r'^\s+"([a-z0-9][a-z0-9.-]*)",\s*$', SDK_MODELS.read_text(encoding="utf-8"), re.M)


def test_every_model_google_genai_names_is_in_the_catalogue() -> None:
    ids = sdk_python_ids()
    assert len(ids) > 30, f"the SDK's model list moved: {SDK_MODELS}"
    missing = [m for m in ids if m not in known_ids()]
    assert not missing, f"google-genai {google.genai.__version__} names models the catalogue lacks: {missing}"


def test_a_new_sdk_model_answers_through_the_sdk(gemini_shared: Gemini) -> None:
    client = gemini_shared.client
    text = client.models.generate_content(model="gemini-4-argon", contents="Hello")
    assert text.text and text.model_version == "gemini-4-argon"
    config = types.GenerateContentConfig(response_modalities=["IMAGE"])
    picture = client.models.generate_content(model="gemini-nano-banana-2.1", contents="A red square", config=config)
    parts = picture.candidates[0].content.parts
    assert parts and parts[0].inline_data and parts[0].inline_data.mime_type == "image/png"
    assert client.models.get(model="gemini-3.8-flash-tts").supported_actions == [
        "generateContent",
        "countTokens",
        "batchGenerateContent",
    ]


def test_vertex_veo_ga_ids_generate_videos(gemini_shared: Gemini) -> None:
    vertex = gemini_shared.vertex_client()
    for model in ("veo-3.1-generate-001", "veo-3.1-lite-generate-001"):
        op = vertex.models.generate_videos(model=model, prompt="A cat surfing at sunset")
        assert op.name and f"/models/{model}/operations/" in op.name


def test_models_added_through_the_admin_api_serve_every_caller(gemini_shared: Gemini) -> None:
    """issue 30: a model named in code but not in the catalogue need not wait for a release."""
    from google.genai import errors

    admin = gemini_shared.admin._http
    client = gemini_shared.client
    with pytest.raises(errors.ClientError) as before:
        client.models.generate_content(model="gemini-9-preview", contents="Hello")
    assert before.value.code == 404  # an unknown model is still production's 404
    added = [{"name": "gemini-9-preview", "like": "gemini-3.1-pro-preview", "displayName": "Gemini 9 Preview"}]
    try:
        assert admin.put("/models", json=added).json()["serving"] == ["gemini-9-preview"]
        answer = client.models.generate_content(model="gemini-9-preview", contents="Hello")
        assert answer.text and answer.model_version == "gemini-9-preview"
        shown = client.models.get(model="gemini-9-preview")
        assert shown.display_name == "Gemini 9 Preview" and shown.input_token_limit == 1048576
        refused = admin.put("/models", json=[{"name": "x", "inputTokenLimit": "many"}])
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == "models[0].inputTokenLimit: expected a whole number, not 'many'"
    finally:
        admin.delete("/models")
    with pytest.raises(errors.ClientError):
        client.models.generate_content(model="gemini-9-preview", contents="Hello")


def test_a_models_file_given_by_flag_or_variable(tmp_path: Path) -> None:
    from served import clean_env, spawn

    path = tmp_path / "models.json"
    path.write_text('[{"name": "house-model", "like": "gemini-2.5-flash"}]', encoding="utf-8")
    for served in (spawn("--models", str(path)), spawn(env=clean_env(GEMINI_EMULATOR_MODELS=str(path)))):
        try:
            answer = httpx.post(
                f"{served.url}/v1beta/models/house-model:countTokens?key=k",
                json={"contents": [{"parts": [{"text": "one two"}]}]},
            )
            assert answer.status_code == 200 and answer.json()["totalTokens"] == 2
        finally:
            served.terminate()
