"""Answers without a script: prose, schema-shaped JSON, tool calls, built-in tools, embeddings, call ids."""
