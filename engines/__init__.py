"""Answer engines: plugins that turn a parsed Gemini request into response chunks (no HTTP here)."""
