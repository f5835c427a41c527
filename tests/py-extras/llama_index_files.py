"""llama-index (llama-index-llms-google-genai) with file_mode="fileapi": an image goes through the Files API
(upload, then generateContent with fileData, then delete). Prints one JSON line for the pytest driver."""

import json
import os
import sys

from llama_index.core.llms import ChatMessage, ImageBlock, TextBlock
from llama_index.llms.google_genai import GoogleGenAI

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4

llm = GoogleGenAI(
    model="gemini-2.5-flash",
    api_key=os.environ["EMULATOR_KEY"],
    http_options={"base_url": os.environ["EMULATOR_URL"]},
    file_mode="fileapi",
)
message = ChatMessage(
    role="user", blocks=[ImageBlock(image=PNG, image_mimetype="image/png"), TextBlock(text="Describe it")]
)
reply = llm.chat([message])
print(json.dumps({"text": reply.message.content}))
sys.exit(0)
