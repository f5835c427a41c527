"""Generation surfaces beyond text: Imagen and Veo (predict, predictLongRunning), the Interactions API and
computeTokens."""
