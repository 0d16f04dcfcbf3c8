"""The one seam to the model: every request goes through :meth:`ModelSeam.stream`.

It uses the real ``anthropic`` SDK and its streaming Messages API, online against the API or
offline against a :class:`~tracer.agent.scripted.ScriptedTransport`. It stands where the
streaming request of Claude Code's ``services/api/claude.ts`` stands, called once a turn.

Every way the API can fail ends in :class:`ModelError` with one line, never a hang:

* **Timeouts**, set through the SDK's own ``timeout`` (an ``httpx2.Timeout``): at most
  ``CONNECT_TIMEOUT`` to connect, and at most ``timeout`` seconds (``tracer record --timeout``)
  waiting for the answer or between two pieces of a stream. The SDK's default is ten minutes a
  read, retried twice without a word, half an hour for a server that never answers.
* **Stalls**: a stream that sends only ``ping`` events for ``timeout`` seconds is cut
  (:mod:`tracer.agent.watch`).
* **Cut streams**: a stream that breaks, stalls, or ends without ``message_stop`` (say in the
  middle of a ``tool_use``, whose input would then read ``{}``) is incomplete. The SDK cannot
  retry a response it has begun to read, so this seam sends the request again. Claude Code falls
  back to a non-streaming call instead.
* **Error events**: an ``event: error`` inside a 200 stream with ``overloaded_error`` (or
  ``api_error``) is retried with a back-off, as the SDK retries an HTTP 529 (or 500).
* **Garbage**: bad JSON, invalid UTF-8, or a 200 that is not an event stream at all (an HTML
  page from a proxy) is not retried.

All retries, the SDK's and ours, share one budget of ``MAX_ATTEMPTS`` HTTP attempts a request,
so a server that never answers fails after at most ``MAX_ATTEMPTS × timeout`` seconds plus the
SDK's short back-off. :class:`~tracer.agent.watch.WatchingTransport` reports each attempt to the
caller as it starts (with the exact bytes sent) and as it ends. Request headers, and with them
the API key, are never looked at.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from tracer.agent.api_failures import backoff, describe, error_of, one_line, what_broke
from tracer.agent.watch import WatchingTransport, describe_transport_error, proxy_for

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_TIMEOUT = 60.0
"""Seconds to wait for an answer, for the next piece of a stream, or for content among pings."""
CONNECT_TIMEOUT = 10.0
MAX_ATTEMPTS = 3
"""HTTP attempts a request may take in all: the SDK's retries and this seam's together."""
RETRIED_STREAM_ERRORS = ("overloaded_error", "api_error")
"""Error events inside a stream that are worth another try (HTTP 529 and 500 in disguise)."""


class ModelError(Exception):
    """The API still failed after every retry (or failed in a way no retry can mend)."""

    def __init__(self, note: str, attempts: int = 1) -> None:
        super().__init__(f"{note} (gave up after {attempts} attempts)" if attempts > 1 else note)
        self.note = note
        """What went wrong on the last attempt, without the count."""


@dataclass
class StreamedResponse:
    message_id: str
    model: str
    blocks: list[dict[str, Any]]
    stop_reason: str | None
    usage: dict[str, Any]
    body: bytes
    """The request body exactly as sent."""
    latency_ms: int
    attempts: int


@dataclass
class Attempt:
    status: int | None
    error: str | None = None


OnStart = Callable[[int, bytes], None]
OnEnd = Callable[[int, Attempt], None]


class _Attempts:
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

    def started(self, body: bytes) -> None:
        self._close()
        self.count += 1
        self.current, self.body = Attempt(None), body
        self._call(self.on_start, self.count, body)

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
            raise _ListenerFailed() from exc


class _ListenerFailed(anthropic.AnthropicError):
    """Carries a callback's exception (its ``__cause__``) out through the SDK."""


class _Retry(Exception):
    """This stream is incomplete; sending the request again may mend it."""

    def __init__(self, note: str, delay: float = 0.0) -> None:
        super().__init__(note)
        self.note, self.delay = note, delay


def _block_dict(block: Any) -> dict[str, Any]:
    data = block.model_dump(mode="json", exclude_none=True)
    if data.get("type") == "text" and not data.get("citations"):
        data.pop("citations", None)
    return data


class ModelSeam:
    """Streams one response per call; ``on_start``/``on_end`` hear about each HTTP attempt."""

    def __init__(
        self,
        *,
        params: dict[str, Any],
        transport: httpx2.BaseTransport | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        self.params = params
        self.timeout = timeout
        self.max_attempts = max_attempts
        inner = transport or httpx2.HTTPTransport(proxy=proxy_for(base_url))
        self._watch = WatchingTransport(inner, stall=timeout)
        self.client = anthropic.Anthropic(
            api_key=api_key or ("scripted" if transport is not None else None),
            base_url=base_url or ("http://scripted.invalid" if transport is not None else None),
            http_client=httpx2.Client(transport=self._watch),
            max_retries=max_attempts - 1,
            timeout=httpx2.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
        )

    def stream(
        self, messages: list[dict[str, Any]], on_start: OnStart, on_end: OnEnd
    ) -> StreamedResponse:
        """Send the whole history; return the finished response or raise :class:`ModelError`."""
        attempts = _Attempts(on_start, on_end)
        self._watch.listener = attempts
        try:
            return self._stream(messages, attempts)
        except _ListenerFailed as exc:
            raise exc.__cause__ or exc from None

    def _stream(self, messages: list[dict[str, Any]], attempts: _Attempts) -> StreamedResponse:
        began = time.monotonic()
        while True:
            # The SDK may retry only what is left of the budget.
            client = self.client.with_options(max_retries=self.max_attempts - attempts.count - 1)
            try:
                final = self._one_stream(client, messages, attempts)
            except _Retry as retry:
                attempts.finish(retry.note)
                if attempts.count >= self.max_attempts:
                    raise ModelError(retry.note, attempts.count) from None
                time.sleep(retry.delay)
                continue
            except ModelError as exc:
                attempts.finish(exc.note)
                raise
            attempts.finish()
            return StreamedResponse(
                message_id=final.id,
                model=final.model,
                blocks=[_block_dict(b) for b in final.content],
                stop_reason=final.stop_reason,
                usage=final.usage.model_dump(mode="json", exclude_none=True),
                body=attempts.body or b"",
                latency_ms=int((time.monotonic() - began) * 1000),
                attempts=attempts.count,
            )

    def _one_stream(
        self, client: anthropic.Anthropic, messages: list[dict[str, Any]], attempts: _Attempts
    ) -> Any:
        """One ``messages.stream`` call (the SDK may retry inside it); the final message."""
        opened = started = stopped = False
        count = 0
        try:
            with client.messages.stream(messages=messages, **self.params) as stream:
                opened = True
                _expect_event_stream(stream.response)
                for event in stream:
                    count += 1
                    started = started or event.type == "message_start"
                    stopped = stopped or event.type == "message_stop"
                final = stream.current_message_snapshot if started else None
        except anthropic.APIStatusError as exc:
            kind, text = error_of(exc)
            if not opened:
                raise ModelError(describe(exc), attempts.count) from None
            if kind in RETRIED_STREAM_ERRORS:
                delay = backoff(exc.response.headers, attempts.count)
                raise _Retry(f"{kind} in the stream: {text}", delay) from None
            raise ModelError(f"{kind} in the stream: {text}") from None
        except _ListenerFailed:
            raise
        except anthropic.APIConnectionError as exc:
            note = attempts.note() or describe(exc)
            raise ModelError(note, attempts.count) from None
        except httpx2.HTTPError as exc:
            # Raised while reading the stream, after the SDK's retries were over.
            note = attempts.note() or f"stream cut off: {describe_transport_error(exc, None)}"
            raise _Retry(note) from None
        except ModelError:
            raise
        except (
            anthropic.APIError,
            ValueError,
            TypeError,
            KeyError,
            IndexError,
            RuntimeError,
        ) as exc:
            # Bad JSON, invalid UTF-8, events out of order: the SDK's parser gave up on the bytes.
            raise ModelError(f"malformed event stream: {what_broke(exc)}") from None
        if not count:
            raise ModelError("malformed answer: a 200 response that held no events")
        if not started or final is None:
            raise ModelError("malformed event stream: no message_start")
        if not stopped:
            raise _Retry("stream cut off: it ended without message_stop")
        return final


def _expect_event_stream(response: httpx2.Response) -> None:
    """A 200 that says it is something else (an HTML error page, plain JSON) is not a stream."""
    kind = response.headers.get("content-type", "")
    if kind and not kind.split(";")[0].strip().lower() == "text/event-stream":
        raise ModelError(
            f"malformed answer: HTTP {response.status_code} with content-type "
            f"{one_line(kind)}, not an event stream"
        )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
