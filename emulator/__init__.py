"""gemini-emulator: a local, wire-true emulator of Google's Gemini API."""

__version__ = "0.1.0"
