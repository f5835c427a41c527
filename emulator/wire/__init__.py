"""The Gemini API over HTTP: auth, request reading and rules, responses, handlers, sending (never an engine)."""
