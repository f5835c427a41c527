"""The URL grammar: every family and version the SDKs use, and what is not routed."""

from __future__ import annotations

import pytest

from gemini_emulator.protocol.routes import match


@pytest.mark.parametrize(
    ("path", "family", "backend", "version"),
    [
        ("/v1/models/gemini-2.5-flash:generateContent", "developer", "developer", "v1"),
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "developer", "developer", "v1beta"),
        (
            "/v1beta1/projects/p/locations/us-central1/publishers/google/models/m:countTokens",
            "vertex",
            "vertex",
            "v1beta1",
        ),
        ("/v1/projects/p/locations/global/publishers/google/models/m:generateContent", "vertex", "vertex", "v1"),
        ("/v1beta1/publishers/google/models/m:generateContent", "vertex-express", "vertex", "v1beta1"),
        ("/v1beta/projects/p/models/m:generateContent", "firebase-developer", "developer", "v1beta"),
        (
            "/v1beta/projects/p/locations/us-central1/publishers/google/models/m:generateContent",
            "firebase-vertex",
            "vertex",
            "v1beta",
        ),
        (
            "/v1beta1/projects/p/locations/REDACTED/publishers/google/models/m:generateContent",
            "vertex",
            "vertex",
            "v1beta1",
        ),
    ],
)
def test_post_families(path: str, family: str, backend: str, version: str) -> None:
    target = match("POST", path)
    assert target is not None
    assert (target.action, target.family, target.backend, target.version) == ("call", family, backend, version)


def test_get_models() -> None:
    assert match("GET", "/v1beta/models").action == "list_models"
    got = match("GET", "/v1/models/gemini-2.5-flash")
    assert (got.action, got.model) == ("get_model", "gemini-2.5-flash")
    assert match("GET", "/v1beta1/publishers/google/models").family == "vertex-express"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1beta/models/m:explode"),
        ("POST", "/v2/models/m:generateContent"),
        ("GET", "/v1beta/models/m:generateContent"),
        ("DELETE", "/v1beta/models/m"),
        ("POST", "/v1beta1/projects/p/publishers/google/models/m:generateContent"),
        ("POST", "/v1beta/publishers/google/models/m:generateContent"),
        ("POST", "/v1beta/projects/p/locations/invalid-location/publishers/google/models/m:generateContent"),
        ("POST", "/v1beta/projects/p/locations/us_central1/publishers/google/models/m:generateContent"),
    ],
)
def test_not_routed(method: str, path: str) -> None:
    assert match(method, path) is None
