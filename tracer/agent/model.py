"""The one seam to the model: every request goes through :meth:`ModelSeam.stream`.

It uses the real ``anthropic`` SDK and its streaming Messages API, online against the API or
offline against a :class:`~tracer.agent.scripted.ScriptedTransport`. An ``httpx2`` event hook
sees each HTTP attempt (the SDK retries 429 and 5xx answers by itself), so the trace records the
exact bytes sent, their hash, and every retry. Request headers, and with them the API key, are
never looked at. A stream cut off mid-message is retried here, since the SDK cannot retry a
response it has already started to read; Claude Code falls back to a non-streaming call instead.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2

DEFAULT_MODEL = "claude-sonnet-5-5"
STREAM_RETRIES = 2


class ModelError(Exception):
    """The API still failed after every retry."""


@dataclass
class StreamedResponse:
    message_id: str
    model: str
    blocks: list[dict[str, Any]]
    stop_reason: str | None
    usage: dict[str, Any]
    body: bytes
    """The request body exactly as sent (the last attempt's)."""
    latency_ms: int
    attempts: int


@dataclass
class Attempt:
    status: int | None
    error: str | None = None


@dataclass
class _Wire:
    """What the event hooks saw for the current request."""

    bodies: list[bytes] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)


def _block_dict(block: Any) -> dict[str, Any]:
    data = block.model_dump(mode="json", exclude_none=True)
    if data.get("type") == "text" and not data.get("citations"):
        data.pop("citations", None)
    return data


class ModelSeam:
    """Streams one response per call. ``on_attempt(attempt_number, Attempt)`` reports each try."""

    def __init__(
        self,
        *,
        params: dict[str, Any],
        transport: httpx2.BaseTransport | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
    ) -> None:
        self.params = params
        self._wire = _Wire()
        http_client = httpx2.Client(
            transport=transport,
            event_hooks={"request": [self._on_request], "response": [self._on_response]},
            timeout=600,
        )
        self.client = anthropic.Anthropic(
            api_key=api_key or ("scripted" if transport is not None else None),
            base_url=base_url or ("http://scripted.invalid" if transport is not None else None),
            http_client=http_client,
            max_retries=max_retries,
        )

    def _on_request(self, request: httpx2.Request) -> None:
        self._wire.bodies.append(request.read())

    def _on_response(self, response: httpx2.Response) -> None:
        self._wire.statuses.append(response.status_code)

    def stream(
        self, messages: list[dict[str, Any]], on_attempt: Callable[[int, Attempt], None]
    ) -> StreamedResponse:
        """Send the whole history; return the finished response or raise :class:`ModelError`."""
        started = time.monotonic()
        attempts = 0
        for cut in range(STREAM_RETRIES + 1):
            self._wire = _Wire()
            try:
                with self.client.messages.stream(messages=messages, **self.params) as stream:
                    final = stream.get_final_message()
            except (anthropic.APIStatusError, anthropic.APIConnectionError) as exc:
                attempts += self._report(on_attempt, attempts, error=_describe(exc))
                raise ModelError(_describe(exc)) from exc
            except (httpx2.HTTPError, anthropic.APIError) as exc:
                attempts += self._report(on_attempt, attempts, error=f"stream cut: {exc}")
                if cut == STREAM_RETRIES:
                    raise ModelError(f"the response stream was cut off: {exc}") from exc
                continue
            attempts += self._report(on_attempt, attempts)
            return StreamedResponse(
                message_id=final.id,
                model=final.model,
                blocks=[_block_dict(b) for b in final.content],
                stop_reason=final.stop_reason,
                usage=final.usage.model_dump(mode="json", exclude_none=True),
                body=self._wire.bodies[-1],
                latency_ms=int((time.monotonic() - started) * 1000),
                attempts=attempts,
            )
        raise AssertionError("unreachable")

    def _report(
        self, on_attempt: Callable[[int, Attempt], None], done: int, error: str | None = None
    ) -> int:
        """Report the HTTP attempts of one ``messages.stream`` call; return how many there were."""
        statuses: list[int | None] = list(self._wire.statuses) or [None]
        for i, status in enumerate(statuses):
            note = f"HTTP {status}" if status is not None and status >= 400 else None
            if i == len(statuses) - 1 and error:
                note = error
            on_attempt(done + i + 1, Attempt(status, note))
        return len(statuses)

    def last_body(self) -> bytes | None:
        return self._wire.bodies[-1] if self._wire.bodies else None


def _describe(exc: Exception) -> str:
    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        err = body.get("error", {}) if isinstance(body.get("error"), dict) else {}
        return f"{exc.status_code} {err.get('type', 'error')}: {err.get('message', exc.message)}"
    return f"{type(exc).__name__}: {exc}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
