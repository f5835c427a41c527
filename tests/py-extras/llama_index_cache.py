"""llama-index (llama-index-llms-google-genai) with a cached content: the cache made with google-genai (llama-index
has no call that makes one; its docs make it so), then `GoogleGenAI(cached_content=...)` chats on it. Prints one
JSON line for the pytest driver."""

import json
import os

from google import genai
from google.genai import types
from llama_index.core.llms import ChatMessage
from llama_index.llms.google_genai import GoogleGenAI

SPEC = json.loads(os.environ["MATRIX_SPEC"])
MODEL = SPEC["model"]
url, key = os.environ["EMULATOR_URL"], os.environ["EMULATOR_KEY"]
client = genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url))
text = SPEC["prompts"]["cache_text"] * SPEC["cache_repeat"]
cache = client.caches.create(model=MODEL, config=types.CreateCachedContentConfig(contents=[text], ttl="120s"))
llm = GoogleGenAI(model=MODEL, api_key=key, http_options={"base_url": url}, cached_content=cache.name)
reply = llm.chat([ChatMessage(role="user", content=SPEC["prompts"]["cached"])])
usage = reply.raw.get("usage_metadata") or {}
print(
    json.dumps(
        {
            "cache": cache.name,
            "tokens": cache.usage_metadata.total_token_count,
            "text": reply.message.content,
            "usage": usage,
        },
        default=str,
    )
)
