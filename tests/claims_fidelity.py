"""Claims of issue 30: files, batches, request bodies, Vertex Gemini 3."""

from __future__ import annotations

from claim_type import Claim

FIDELITY_CLAIMS: list[Claim] = [
    Claim(
        "files-jsonl-short-mime",
        "POST /upload/v1beta/files, models/M:batchGenerateContent",
        "an upload naming mime_type 'jsonl' (as Google's batch guide writes it) is stored, and a batch made from "
        "it runs to a downloadable JSONL of results",
        ("tests/wire/resources/test_batches.py::test_batch_mode_as_the_batch_guide_writes_it",),
        source="the Gemini API batch mode guide (files.upload(..., config={'mime_type': 'jsonl'}))",
    ),
    Claim(
        "vertex-express-models-404",
        "POST /v1beta1/models/M:{method} (Vertex express)",
        "google-genai in express mode sends models/x here; an unknown model is Vertex's JSON 404 NOT_FOUND",
        ("tests/wire/test_wire_truth.py::test_vertex_express_models_name_gets_a_json_not_found",),
        source="google-genai 3.6.1 _api_client (express URL); the 404 wording as the project path's "
        "(docs/conformance.md, issue 13 row 12b); production's answer here is not captured",
    ),
    Claim(
        "gzip-request-body",
        "every JSON request",
        "Content-Encoding gzip is decoded within the body limit; other encodings and bad gzip are 400s naming why",
        ("tests/wire/test_request_encoding.py::",),
        source="Google APIs document gzip request bodies in general; no capture: the wordings are the emulator's",
        divergence="wordings are the emulator's own (production's answer to an undecodable body is not captured)",
    ),
    Claim(
        "embed-parts-not-a-list",
        "models/M:embedContent, :batchEmbedContents",
        "content.parts given as an object or a string is the 400 generate calls get for contents[i].parts",
        ("tests/wire/test_embeddings.py::test_content_parts_that_are_not_a_list_get_productions_400",),
        source="the generate walker's captured wording, carried over to the embedded Content (not captured on "
        "embeddings)",
    ),
]
