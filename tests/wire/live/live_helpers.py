"""Helpers shared by the Live tests."""

from __future__ import annotations

import time

from gemini_emulator.admin.client import Call
from gemini_emulator.testing.pytest_plugin import Gemini


def session_record(gemini: Gemini, timeout: float = 5.0) -> Call:
    """The namespace's one Live session record, once the server has finished it: a client's close returns before
    the server has seen it, so the record is polled for (bounded), not read at once."""
    deadline = time.monotonic() + timeout
    while True:
        records = gemini.journal(rpc="BidiGenerateContent")
        if len(records) == 1 and records[0].status:
            return records[0]
        if time.monotonic() > deadline:
            raise AssertionError(f"no finished Live session record within {timeout} s: {records}")
        time.sleep(0.02)
