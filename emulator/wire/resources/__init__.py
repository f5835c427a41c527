"""The wire rooms of the Gemini resources: Files (uploads and downloads), cached contents, batches, operations and
file search stores; each speaks its HTTP protocol about the state in gemini_emulator.stores."""
