"""The app sends the usual model calls (app.HANDLERS_ALONE) straight to handlers.call, before asking the other
rooms whether they claim the call: no other room may claim those methods, on any URL family."""

from __future__ import annotations

import pytest

from gemini_emulator import app
from gemini_emulator.config import Settings
from gemini_emulator.protocol import routes
from gemini_emulator.wire.media import imagen, veo
from gemini_emulator.wire.resources import batches

PATHS = (
    "/v1beta/models/{model}:{method}",
    "/v1/projects/p1/locations/us-central1/publishers/google/models/{model}:{method}",
    "/v1/publishers/google/models/{model}:{method}",
    "/v1beta/projects/p1/models/{model}:{method}",
)
MODELS = ("gemini-2.5-flash", "imagen-4.0-generate-001", "veo-3.0-generate-001", "gemini-embedding-001")


@pytest.mark.parametrize("method", sorted(app.HANDLERS_ALONE))
def test_no_other_room_claims_the_usual_calls(method: str) -> None:
    ctx = app.create_app(Settings()).state.context
    for path in PATHS:
        for model in MODELS:
            target = routes.match("POST", path.format(model=model, method=method))
            assert target is not None and target.action == "call"
            assert target.method not in batches.METHODS
            assert not veo.claims(ctx, target)
            assert not imagen.claims(ctx, target)
