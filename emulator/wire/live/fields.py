"""The Live API's client messages as the field checker knows them: names, kinds and types, in both spellings.

Taken from google-genai 3.6.1's types (LiveClientMessage, LiveClientSetup, LiveClientContent,
LiveClientRealtimeInput, LiveClientToolResponse, RealtimeInputConfig, ...) and its _live_converters.py, which
decide the wire names; nested messages (Content, Tool, GenerationConfig, Blob, FunctionResponse,
AudioTranscriptionConfig, SafetySetting) are wire_fields.json's. Production's parser takes lowerCamelCase and
snake_case alike, and google-genai sends both in one message: `{"client_content": {"turns": ...}}`, and
`realtimeInputConfig` with the SDK's snake_case inside (`automatic_activity_detection`).
"""

from __future__ import annotations

from typing import Any

from gemini_emulator.wire import validate


def _m(type_name: str, repeated: bool = False) -> dict[str, Any]:
    return {"kind": "message", "type": type_name, "repeated": repeated}


def _s(kind: str, repeated: bool = False) -> dict[str, Any]:
    return {"kind": kind, "repeated": repeated}


MESSAGES: dict[str, dict[str, dict[str, Any]]] = {
    "BidiGenerateContentClientMessage": {
        "setup": _m("BidiGenerateContentSetup"),
        "clientContent": _m("BidiGenerateContentClientContent"),
        "realtimeInput": _m("BidiGenerateContentRealtimeInput"),
        "toolResponse": _m("BidiGenerateContentToolResponse"),
        "contextUpdate": _m("BidiGenerateContentContextUpdate"),
    },
    "BidiGenerateContentSetup": {
        "model": _s("string"),
        "generationConfig": _m("GenerationConfig"),
        "systemInstruction": _m("Content"),
        "tools": _m("Tool", repeated=True),
        "toolConfig": _m("ToolConfig"),
        "realtimeInputConfig": _m("RealtimeInputConfig"),
        "sessionResumption": _m("SessionResumptionConfig"),
        "contextWindowCompression": _m("ContextWindowCompressionConfig"),
        "inputAudioTranscription": _m("AudioTranscriptionConfig"),
        "outputAudioTranscription": _m("AudioTranscriptionConfig"),
        "proactivity": _m("ProactivityConfig"),
        "explicitVadSignal": _s("bool"),
        "historyConfig": _m("HistoryConfig"),
        "avatarConfig": _s("value"),
        "safetySettings": _m("SafetySetting", repeated=True),
        "labels": _s("struct"),
    },
    "RealtimeInputConfig": {
        "automaticActivityDetection": _m("AutomaticActivityDetection"),
        "activityHandling": _s("string"),
        "turnCoverage": _s("string"),
        "interimTranscriptTimestampEnabled": _s("bool"),
    },
    "AutomaticActivityDetection": {
        "disabled": _s("bool"),
        "startOfSpeechSensitivity": _s("string"),
        "endOfSpeechSensitivity": _s("string"),
        "prefixPaddingMs": _s("int32"),
        "silenceDurationMs": _s("int32"),
    },
    "SessionResumptionConfig": {"handle": _s("string"), "transparent": _s("bool")},
    "ContextWindowCompressionConfig": {"triggerTokens": _s("int64"), "slidingWindow": _m("SlidingWindow")},
    "SlidingWindow": {"targetTokens": _s("int64")},
    "ProactivityConfig": {"proactiveAudio": _s("bool"), "proactiveVideo": _s("bool")},
    "HistoryConfig": {"initialHistoryInClientContent": _s("bool")},
    "BidiGenerateContentClientContent": {"turns": _m("Content", repeated=True), "turnComplete": _s("bool")},
    "BidiGenerateContentRealtimeInput": {
        "mediaChunks": _m("Blob", repeated=True),
        "audio": _m("Blob"),
        "video": _m("Blob"),
        "text": _s("string"),
        "activityStart": _s("struct"),
        "activityEnd": _s("struct"),
        "audioStreamEnd": _s("bool"),
    },
    "BidiGenerateContentToolResponse": {"functionResponses": _m("FunctionResponse", repeated=True)},
    "BidiGenerateContentContextUpdate": {
        "systemInstruction": _m("Content"),
        "tools": _m("LiveContextUpdateTools"),
    },
    "LiveContextUpdateTools": {"tools": _m("Tool", repeated=True)},
}

CLIENT_MESSAGE = "BidiGenerateContentClientMessage"
KINDS = tuple(MESSAGES[CLIENT_MESSAGE])  # the oneof: exactly one per message


_TABLE: validate.Schema | None = None


def table() -> validate.Schema:
    """The field table with the Live messages added (built once)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = validate.extended(MESSAGES)
    return _TABLE
