"""The Live API: the BidiGenerateContent WebSocket protocol and ephemeral tokens, answered by the engine seam."""
