"""`python -m emulator` is the `gemini-emulator` command."""

from emulator.cli import main

raise SystemExit(main())
