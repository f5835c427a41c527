"""litellm's context caching with a gemini/ model through a custom api_base (the only way to point it at an
emulator): a system message marked cache_control. Prints one JSON line: what litellm did."""

import json
import os

import litellm

base = os.environ["EMULATOR_URL"] + "/v1beta"
key = os.environ["EMULATOR_KEY"]
plain = litellm.completion(
    model="gemini/gemini-2.5-flash", messages=[{"role": "user", "content": "Say hello"}], api_base=base, api_key=key
)
big = "The quick brown fox jumps over the lazy dog. " * 400
cached = [
    {"role": "system", "content": [{"type": "text", "text": big, "cache_control": {"type": "ephemeral"}}]},
    {"role": "user", "content": "Summarise"},
]
try:
    litellm.completion(model="gemini/gemini-2.5-flash", messages=cached, api_base=base, api_key=key)
    error = ""
except Exception as raised:  # litellm 1.77.7 raises before any request (see docs/conformance.md)
    error = f"{type(raised).__name__}: {raised}"
print(json.dumps({"plain": plain.choices[0].message.content, "cache_error": error}))
