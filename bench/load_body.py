"""bench/load.py's generators with a request body of the caller's own (the media and cached-content runs).

    python bench/load_body.py TEMPLATE_FILE MODE ARGS...

TEMPLATE_FILE holds the request body with one `%d` (each request's running number, so no two are identical);
MODE and ARGS are bench/load.py's `requests` or `volume`, whose requests then carry that body. `run(template,
MODE, ARGS...)` does that from the benchmark's process and returns the generator's JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def run(template: bytes, *args: object, timeout: float = 900) -> Any:
    """Run a bench/load.py generator (MODE, ARGS...) in a process of its own with `template` as the body."""
    with tempfile.NamedTemporaryFile(prefix="gemini-bench-body-", suffix=".json") as handle:
        handle.write(template)
        handle.flush()
        argv = [sys.executable, __file__, handle.name, *map(str, args)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        raise RuntimeError(f"load generator {args[0]} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


if __name__ == "__main__":
    import load

    load.PROMPT = Path(sys.argv[1]).read_bytes()
    del sys.argv[1]
    sys.exit(load.main())
