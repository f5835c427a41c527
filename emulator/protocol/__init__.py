"""Wire facts every layer may import: errors, tokens, printers, framing, routes, headers, enums (nothing else)."""
