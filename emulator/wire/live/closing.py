"""How a Live session ends on an error: a WebSocket close frame with a code and a reason, never a JSON frame.

Production closes the socket; the SDKs turn the close into their error (google-genai live.py: `APIError.raise_error(
code, reason)`; @google/genai hands the CloseEvent to `onclose`). What is known (docs/conformance.md, Live):
- 1007 (invalid frame payload data) for a request the parser or the checks refuse: "Request contains an invalid
  argument." (google-gemini/cookbook#781), the proto parser's "Invalid JSON payload received. Unknown name ..."
  (discuss.ai.google.dev "Error 1007 (Unknown name)"), an invalid API key.
- 1008 (policy violation) for a model that does not serve bidiGenerateContent: "models/X is not found for API
  version v1beta, or is not supported for bidiGenerateContent. Call" (livekit/agents#4414, google/adk-python#3964:
  the reason cut at the protocol's 123 bytes), and for "Requested entity was not found." / "Operation not supported".
- 1011 (internal error) for "Internal error encountered." and for quota and overload.
A close reason holds at most 123 bytes of UTF-8 (RFC 6455 §5.5: 125 bytes of payload, 2 of them the code); longer
reasons are cut there, on a character boundary, as production's are.
"""

from __future__ import annotations

from dataclasses import dataclass

from gemini_emulator.protocol import errors

INVALID = 1007
POLICY = 1008
INTERNAL = 1011
NORMAL = 1000
MAX_REASON_BYTES = 123
INVALID_ARGUMENT = "Request contains an invalid argument."


@dataclass(frozen=True)
class Close(Exception):
    """End the session with this close frame."""

    code: int
    reason: str

    def frame_reason(self) -> str:
        return cut(self.reason)


def cut(reason: str) -> str:
    """`reason` within a close frame's 123 bytes, cut on a character boundary."""
    data = reason.encode("utf-8")
    if len(data) <= MAX_REASON_BYTES:
        return reason
    return data[:MAX_REASON_BYTES].decode("utf-8", "ignore")


def code_for(status: int) -> int:
    """The close code for an error production would answer over HTTP with `status`."""
    if status in (401, 403, 404):
        return POLICY
    if 400 <= status < 500 and status != 429:
        return INVALID
    return INTERNAL


def from_error(error: errors.ApiError) -> Close:
    """An HTTP error envelope's facts as a close frame: its code by status, its message as the reason."""
    message = error.message.split("\n", 1)[0] or INVALID_ARGUMENT
    return Close(code_for(error.code), message)


def invalid(reason: str = INVALID_ARGUMENT) -> Close:
    return Close(INVALID, reason)
