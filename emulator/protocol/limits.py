"""Sizes production sets that more than one room enforces (the wire refuses past them, engines never exceed them)."""

# The largest vector production's embedding models give (gemini-embedding-001 and -2: 3072 dimensions). A larger
# outputDimensionality is refused with a 400 whose wording is a guess (no capture of it; docs/conformance.md).
MAX_EMBEDDING_DIMENSIONS = 3072
