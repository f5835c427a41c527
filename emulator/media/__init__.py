"""Media the emulator makes up: speech as PCM audio, pictures as PNG. A leaf: it imports nothing else of ours, so
engines (which answer with media parts) and the wire (the Live API's audio) share one maker of each."""
