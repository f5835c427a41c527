"""The openai engine: a model behind an OpenAI-compatible /chat/completions, translated to the Gemini wire."""
