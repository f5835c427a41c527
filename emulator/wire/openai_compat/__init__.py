"""Gemini's OpenAI-compatible surface at /v1beta/openai/: chat completions (unary and SSE), embeddings, models.

translate: OpenAI request -> native generateContent body; printing: native response -> OpenAI bodies, errors,
SSE events; surface: the handlers, on the native generate path (see docs/conformance.md, "OpenAI compatibility").
"""
