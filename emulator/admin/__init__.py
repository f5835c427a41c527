"""The admin API under /__emulator: its handlers and token guard, the journal, the inspector, the client."""
