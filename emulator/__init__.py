"""gemini-emulator: a local, wire-true emulator of Google's Gemini API."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gemini-emulator")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
