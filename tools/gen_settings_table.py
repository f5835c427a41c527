"""Write the README's configuration tables from the settings' declarations.

    python tools/gen_settings_table.py           # rewrite the tables in README.md
    python tools/gen_settings_table.py --check   # exit 1 when README.md disagrees with the declarations

The emulator's table comes from gemini_emulator.config (the fields of `Settings`), the openai engine's from
gemini_emulator.engines.openai.config.VARIABLES. Each table sits between two marker comments; the rest of the
README is left alone. tests/testing/test_settings.py runs the check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gemini_emulator.config import SETTINGS, Setting
from gemini_emulator.engines.openai.config import VARIABLES

README = Path(__file__).resolve().parents[1] / "README.md"
TABLES = {
    "settings": "emulator/config.py",
    "openai-settings": "engines/openai/config.py",
}


def _default(setting: Setting) -> str:
    if setting.shown is not None or setting.kind is bool or setting.default is None or setting.secret:
        return setting.default_text
    return f"`{setting.default}`" if setting.kind is str else str(setting.default)


def _meaning(setting: Setting) -> str:
    if not setting.choices:
        return setting.help
    return f"{setting.help}; one of {', '.join(f'`{c}`' for c in setting.choices)}"


def settings_table() -> str:
    rows = [
        "| flag | environment | default | meaning |",
        "|---|---|---|---|",
        *(f"| `{s.flag}` | `{s.env}` | {_default(s)} | {_meaning(s)} |" for s in SETTINGS),
    ]
    return "\n".join(rows)


def openai_table() -> str:
    rows = [
        "| environment | default | meaning |",
        "|---|---|---|",
        *(f"| `{v.env}` | {v.default} | {v.help} |" for v in VARIABLES),
    ]
    return "\n".join(rows)


def _markers(name: str) -> tuple[str, str]:
    source = TABLES[name]
    return (
        f"<!-- {name}: generated from {source} by tools/gen_settings_table.py; edit there, not here -->",
        f"<!-- end of {name} -->",
    )


def render(readme: str) -> str:
    """`readme` with each generated table replaced by what the declarations say now."""
    for name, table in (("settings", settings_table()), ("openai-settings", openai_table())):
        begin, end = _markers(name)
        try:
            head, rest = readme.split(begin + "\n", 1)
            _, tail = rest.split(end, 1)
        except ValueError:
            raise SystemExit(f"README.md lacks the markers {begin!r} ... {end!r}") from None
        readme = f"{head}{begin}\n{table}\n{end}{tail}"
    return readme


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether README.md is up to date")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if wanted != current:
            print("README.md's configuration tables are stale: run python tools/gen_settings_table.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
