"""litellm with gemini/ models against the emulator (`api_base`, the only way to point it elsewhere): a plain
completion; a file uploaded (`create_file`), used in a completion and deleted (`file_delete`); a completion whose
system message is marked cache_control (litellm's context caching: it lists cachedContents, creates one, then
generates with it). Prints one JSON line: what litellm returned, or where it raised."""

import json
import os

import litellm

SPEC = json.loads(os.environ["MATRIX_SPEC"])
MODEL = "gemini/" + SPEC["model"]
url, key = os.environ["EMULATOR_URL"], os.environ["EMULATOR_KEY"]
base = url + "/v1beta"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
out: dict[str, object] = {}

plain = litellm.completion(
    model=MODEL, messages=[{"role": "user", "content": SPEC["prompts"]["text"]}], api_base=base, api_key=key
)
out["plain"] = plain.choices[0].message.content

made = litellm.create_file(
    file=("dots.png", PNG, "image/png"), purpose="user_data", custom_llm_provider="gemini", api_base=url, api_key=key
)
out["file"] = made.id
# litellm passes a file through as fileData only when its uri is production's (else it fetches the URL as an
# image): the emulator resolves its files under production's host too (docs/conformance.md, Files).
name = "files/" + made.id.rsplit("/files/", 1)[1]
uri = "https://generativelanguage.googleapis.com/v1beta/" + name
content = [
    {"type": "file", "file": {"file_id": uri, "format": "image/png"}},
    {"type": "text", "text": SPEC["prompts"]["describe"]},
]
used = litellm.completion(model=MODEL, messages=[{"role": "user", "content": content}], api_base=base, api_key=key)
out["file_text"] = used.choices[0].message.content
deleted = litellm.file_delete(file_id=made.id, custom_llm_provider="gemini", api_base=url, api_key=key)
out["deleted"] = deleted.deleted

text = SPEC["prompts"]["cache_text"] * SPEC["cache_repeat"]
cached = [
    {"role": "system", "content": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]},
    {"role": "user", "content": SPEC["prompts"]["cached"]},
]
try:
    answer = litellm.completion(model=MODEL, messages=cached, api_base=base, api_key=key)
    out["cached_text"] = answer.choices[0].message.content
    out["cached_tokens"] = answer.usage.prompt_tokens_details.cached_tokens
    out["cache_error"] = ""
except Exception as raised:  # litellm before 1.109.0 raised here (docs/conformance.md)
    out["cache_error"] = f"{type(raised).__name__}: {raised}"
print(json.dumps(out, default=str))
