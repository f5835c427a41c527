"""`python -m gemini_emulator` is the `gemini-emulator` command."""

from gemini_emulator.cli import main

raise SystemExit(main())
