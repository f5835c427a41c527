"""Other clients on an uploaded file: langchain-google-genai sends a `media` block with the file's uri as
fileData (the Files API path LangChain apps take), and meets production's 403 for a file that is not the caller's.
(llama-index's image-through-Files path is not installed in this environment: not covered here.)"""

from __future__ import annotations

import io

import pytest
from langchain_core.messages import HumanMessage
from langchain_google_genai import ChatGoogleGenerativeAI

from gemini_emulator.testing.pytest_plugin import Gemini

MODEL = "gemini-2.5-flash"


def _ask(gemini: Gemini, uri: str) -> str:
    llm = ChatGoogleGenerativeAI(model=MODEL, google_api_key=gemini.api_key, base_url=gemini.url)
    message = HumanMessage(
        content=[{"type": "text", "text": "Describe it"}, {"type": "media", "file_uri": uri, "mime_type": "image/png"}]
    )
    return str(llm.invoke([message]).content)


def test_langchain_uses_an_uploaded_file(gemini_shared: Gemini) -> None:
    image = gemini_shared.client.files.upload(
        file=io.BytesIO(b"\x89PNG" + b"\0" * 64), config={"mime_type": "image/png"}
    )
    assert f"the attached file {image.name} (image/png)" in _ask(gemini_shared, image.uri)
    sent = gemini_shared.journal(rpc="generateContent").last.body
    # langchain-google-genai spells the fields in snake_case (proto JSON accepts both): as sent, in the journal
    assert {"fileData": {"file_uri": image.uri, "mime_type": "image/png"}} in sent["contents"][0]["parts"]


def test_langchain_meets_production_403_for_an_unknown_file(gemini_shared: Gemini) -> None:
    with pytest.raises(Exception, match="You do not have permission to access the File nosuchfile9"):
        _ask(gemini_shared, f"{gemini_shared.url}/v1beta/files/nosuchfile9")
