"""Per-namespace state of the Gemini resources (files, cached contents, batches, operations, Live sessions), kept
apart from the wire as moto keeps backends apart from responses: a store per resource kind holds what each caller
made, bounded in count and bytes; the wire rooms (gemini_emulator.wire.resources, .live) speak HTTP or WebSocket
about it. Stores import only protocol, seam and media, never the wire, admin or an engine."""
