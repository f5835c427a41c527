"""The scripted engine (the default): script entries and matchers, the namespace store, rendering to chunks."""
