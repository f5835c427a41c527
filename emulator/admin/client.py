"""A small Python client for the admin API: script, journal, reset. Works against any running emulator
(in-process, another process, a container).

    admin = AdminClient("http://127.0.0.1:8080", api_key="my-test-key")  # admin_token="..." if the server has one
    admin.script({"text": "Hello!"}, {"error": "unavailable"})
    ...  # run the code under test with the same key
    calls = admin.journal()
    assert calls.last.user_text == "Say hello"
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx

from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER
from gemini_emulator.config import env_name
from gemini_emulator.wire.auth import NAMESPACE_HEADER

ADMIN = "/__emulator"


class AdminError(RuntimeError):
    """The admin API refused a call; the message is the emulator's own explanation."""


@dataclass(frozen=True)
class Call:
    """One journal record, with shortcuts for the usual assertions."""

    record: dict[str, Any]

    @property
    def body(self) -> Any:
        return self.record["body"]

    @property
    def rpc(self) -> str:
        return str(self.record["rpc"])

    @property
    def model(self) -> str:
        return str(self.record["model"])

    @property
    def entry(self) -> str | None:
        return self.record["entry"]

    @property
    def status(self) -> int:
        return int(self.record["status"])

    @property
    def contents(self) -> list[dict[str, Any]]:
        return self.body.get("contents", []) if isinstance(self.body, dict) else []

    @property
    def user_text(self) -> str:
        """Text of the last user turn of the request."""
        for content in reversed(self.contents):
            if content.get("role", "user") == "user":
                texts = [p["text"] for p in content.get("parts", []) if "text" in p]
                if texts:
                    return "\n".join(texts)
        return ""

    @property
    def function_responses(self) -> list[dict[str, Any]]:
        """functionResponse parts of the request's last turn."""
        last = self.contents[-1] if self.contents else {}
        return [p["functionResponse"] for p in last.get("parts", []) if "functionResponse" in p]


class Calls(list[Call]):
    """The journal as a list of Calls, oldest first."""

    @property
    def last(self) -> Call:
        if not self:
            raise AssertionError("the journal is empty: no request reached the emulator")
        return self[-1]

    @property
    def user_texts(self) -> list[str]:
        return [c.user_text for c in self]

    @property
    def entries(self) -> list[str | None]:
        return [c.entry for c in self]

    @property
    def statuses(self) -> list[int]:
        return [c.status for c in self]


class AdminClient:
    """Admin calls for one namespace: the one an API key (or an explicit namespace name) selects."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        namespace: str | None = None,
        timeout: float = 10.0,
        admin_token: str | None = None,
    ) -> None:
        """`admin_token` is sent in the x-emulator-admin-token header; by default it is read from
        GEMINI_EMULATOR_ADMIN_TOKEN (needed when the emulator listens on a non-loopback address)."""
        headers = {}
        admin_token = admin_token if admin_token is not None else os.environ.get(env_name("admin_token"))
        if admin_token:
            headers[ADMIN_TOKEN_HEADER] = admin_token
        if api_key:
            headers["x-goog-api-key"] = api_key
        if namespace:
            headers[NAMESPACE_HEADER] = namespace
        # Plain http needs no certificates: verify=False spares loading the CA bundle (24 ms of CPU a client,
        # which a fixture making one per test would pay each time); https keeps the default checks.
        plain = base_url.startswith("http://")
        self._http = httpx.Client(
            base_url=base_url.rstrip("/") + ADMIN, headers=headers, timeout=timeout, verify=not plain
        )

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text
            raise AdminError(f"{method} {ADMIN}{path}: {response.status_code} {message}")
        return response.json()

    def script(self, *entries: dict[str, Any]) -> list[dict[str, Any]]:
        """Append entries; returns the namespace's pending entries."""
        return list(self._call("POST", "/script", json=list(entries))["entries"])

    def replace(self, *entries: dict[str, Any]) -> list[dict[str, Any]]:
        return list(self._call("PUT", "/script", json=list(entries))["entries"])

    def pending(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "/script")["entries"])

    def clear(self) -> None:
        self._call("DELETE", "/script")

    def strict(self, on: bool | None = True) -> None:
        self._call("PUT", "/strict", json={"strict": on})

    def reset(self, api_key: str | None = None) -> None:
        """Forget this namespace's script, journal and resources (`api_key`: another key's namespace)."""
        self._call("POST", "/reset", headers={"x-goog-api-key": api_key} if api_key else None)

    def batch_schedule(self, **plan: Any) -> dict[str, Any]:
        """Set how this namespace's next batch jobs walk: pendingMs, runningMs, state ("SUCCEEDED", "FAILED",
        "CANCELLED", "EXPIRED"), hold, error ({code, message}); with no argument, back to the default."""
        if not plan:
            return dict(self._call("DELETE", "/batches"))
        return dict(self._call("PUT", "/batches", json=plan))

    def tuning_schedule(self, **plan: Any) -> dict[str, Any]:
        """Set how this namespace's next tuning jobs walk (the batch schedule's fields; state "SUCCEEDED",
        "FAILED" or "CANCELLED"); with no argument, back to the default (held jobs then finish)."""
        if not plan:
            return dict(self._call("DELETE", "/tunings"))
        return dict(self._call("PUT", "/tunings", json=plan))

    def templates(self, *templates: dict[str, Any]) -> dict[str, Any]:
        """Set this namespace's server prompt templates ({id, template} or {id, model, ..., prompt}); with no
        argument, remove them. Returns the namespace's templates as set."""
        if not templates:
            return dict(self._call("DELETE", "/templates"))
        return dict(self._call("PUT", "/templates", json=list(templates)))

    def clock(self) -> dict[str, Any]:
        """This namespace's emulator clock: {namespace, time, offsetSeconds}."""
        return dict(self._call("GET", "/clock"))

    def advance_clock(self, seconds: float | None = None, *, to: str | None = None) -> dict[str, Any]:
        """Move this namespace's clock `seconds` forward (or `to` an RFC 3339 time) and run the triggers it makes
        due; the clock as it then reads, with `executions` (those it ran)."""
        body: dict[str, Any] = {"time": to} if to is not None else {"advanceSeconds": seconds or 0}
        return dict(self._call("PUT", "/clock", json=body))

    def webhook_jwks(self) -> dict[str, Any]:
        """The JWKS dynamic webhooks (a request's webhook_config) are signed against."""
        return dict(self._call("GET", "/webhooks/jwks"))

    def resources(self, kind: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """This namespace's resources (cached contents, batches, files, operations) by kind."""
        params = {"kind": kind} if kind else {}
        return dict(self._call("GET", "/resources", params=params)["resources"])

    def journal(self, model: str | None = None, rpc: str | None = None, since: int = 0) -> Calls:
        params: dict[str, Any] = {k: v for k, v in {"model": model, "rpc": rpc, "since": since}.items() if v}
        records: list[dict[str, Any]] = []
        while True:  # the journal comes in pages; `next` is where the following one starts
            page = self._call("GET", "/journal", params=params)
            records.extend(page["records"])
            if page.get("next") is None:
                return Calls(Call(r) for r in records)
            params["since"] = page["next"]

    def health(self) -> bool:
        return self._call("GET", "/health").get("status") == "ok"
