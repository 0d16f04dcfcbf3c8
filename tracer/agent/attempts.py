"""The HTTP attempts behind one request, each heard as it starts and as it ends.

The SDK retries a request inside one ``messages.stream`` or ``messages.create`` call, so the
seam (:mod:`tracer.agent.model`) never sees the attempts it makes. It hears them from below:
:class:`~tracer.agent.watch.WatchingTransport` calls an :class:`Attempts` (its
:class:`~tracer.agent.watch.AttemptListener`) for each request that goes through it, and the
:class:`Attempts` counts them, keeps the body of the streamed one (the request the trace logs),
and hands each start and each end (an :class:`Attempt`: its status, or how it failed) to the
caller's ``on_start`` and ``on_end`` while the request is still running.

Claude Code 2.1.88 needs no such listener: it builds its client with ``maxRetries: 0`` and lets
``withRetry`` (``src/services/api/withRetry.ts``) make every attempt itself, for the stream and
for the plain fallback alike, so each one passes through its own code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic


@dataclass
class Attempt:
    status: int | None
    error: str | None = None


OnStart = Callable[[int, bytes, bool], None]
"""Hears each attempt as it goes out: its number, the exact body, and whether it streams."""
OnEnd = Callable[[int, Attempt], None]


class Attempts:
    """The HTTP attempts behind one request, reported as each starts and as each ends.

    An attempt ends when the next one starts (the SDK retried it) or when the seam is done with
    the stream. A callback that raises is a bug of ours, not a network failure: it travels
    through the SDK as an error of the SDK's own kind, which it neither wraps nor retries.
    """

    def __init__(self, on_start: OnStart, on_end: OnEnd) -> None:
        self.on_start, self.on_end = on_start, on_end
        self.count = 0
        self.current: Attempt | None = None
        self.body: bytes | None = None
        self.streaming = True
        """Whether the attempts going out now stream (false for the fallback)."""

    def started(self, body: bytes) -> None:
        self._close()
        self.count += 1
        self.current = Attempt(None)
        if self.streaming:
            self.body = body  # the request as the trace logs it: the streamed one
        self._call(self.on_start, self.count, body, self.streaming)

    def responded(self, status: int) -> None:
        if self.current is not None:
            self.current.status = status
            self.current.error = f"HTTP {status}" if status >= 400 else None

    def failed(self, note: str) -> None:
        if self.current is not None:
            self.current.error = note

    def note(self) -> str | None:
        return self.current.error if self.current is not None else None

    def finish(self, note: str | None = None) -> None:
        if note and self.current is not None:
            self.current.error = note
        self._close()

    def _close(self) -> None:
        if self.current is not None:
            attempt, self.current = self.current, None
            self._call(self.on_end, self.count, attempt)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        try:
            callback(*args)
        except Exception as exc:
            raise ListenerFailed() from exc


class ListenerFailed(anthropic.AnthropicError):
    """Carries a callback's exception (its ``__cause__``) out through the SDK."""
