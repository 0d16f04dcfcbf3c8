"""The one seam to the model: every request goes through :meth:`ModelSeam.stream`.

It uses the real ``anthropic`` SDK and its streaming Messages API, online against the API or
offline against a :class:`~tracer.agent.scripted.ScriptedTransport`. It stands where
``queryModel`` in Claude Code's ``src/services/api/claude.ts`` stands, called once a turn.

Every way the API can fail ends in :class:`ModelError` with one line, never a hang:

* **Before the stream opens** (an HTTP 429, 5xx or 529, a refused connection, a timeout), the
  SDK retries on its own, as Claude Code's ``withRetry`` does; the last failure is final.
* **A broken stream**: once a 200 stream has begun, anything that keeps it from being a whole
  message (the connection cut midway, a stream that stalls or only pings, an ``event: error``
  inside it, bytes no parser can read, an end without ``message_stop``) is answered as Claude
  Code 2.1.88 answers it: the same request is sent once more **without streaming**
  (``executeNonStreamingRequest``), and the SDK retries that plain request if it fails. What the
  SDK raises for a broken read differs between its versions (2.16 lets the ``httpx2`` error
  through, 2.17 wraps it in ``APIConnectionError``), so the seam tells the two cases apart by
  whether the stream had opened, never by the exception's class.
* **Timeouts**, set through the SDK's own ``timeout`` (an ``httpx2.Timeout``): at most
  ``CONNECT_TIMEOUT`` to connect, and at most ``timeout`` seconds (``tracer record --timeout``)
  waiting for the answer or between two pieces of a stream. The SDK's default is ten minutes a
  read; 2.1.88's fallback allows five minutes a plain request.
* **Stalls**: a stream that sends only ``ping`` events for ``timeout`` seconds is cut
  (:mod:`tracer.agent.watch`) and falls back like any broken stream. Here tracer is stricter
  than 2.1.88, whose idle watchdog is off unless ``CLAUDE_ENABLE_STREAM_WATCHDOG`` is set (it
  then cuts after 90 s and falls back the same way); without it 2.1.88 waits on the pings for
  as long as they come. tracer bounds every wait.
* Where tracer differs in a corner: a stream that ends cleanly without ``message_stop`` after
  some blocks were complete is kept by 2.1.88 as far as it got; tracer falls back for it too,
  so that no tool ever runs on a half-received answer.

All attempts, the SDK's retries and the fallback together, share one budget of
``MAX_ATTEMPTS`` HTTP attempts a request, so a server that never answers fails after at most
``MAX_ATTEMPTS × timeout`` seconds plus the SDK's short back-off. :class:`~tracer.agent.watch.
WatchingTransport` reports each attempt to the caller as it starts (with the exact bytes sent,
and whether it streams) and as it ends, through the count :mod:`tracer.agent.attempts` keeps.
Request headers, and with them the API key, are never looked at.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from tracer.agent.api_failures import describe, error_of, one_line, what_broke
from tracer.agent.attempts import Attempts, ListenerFailed, OnEnd, OnStart
from tracer.agent.script_clock import Clock, WallClock
from tracer.agent.watch import WatchingTransport, describe_transport_error, proxy_for

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_TIMEOUT = 60.0
"""Seconds to wait for an answer, for the next piece of a stream, or for content among pings."""
CONNECT_TIMEOUT = 10.0
MAX_ATTEMPTS = 3
"""HTTP attempts a request may take in all: the SDK's retries and the fallback together."""


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


class _StreamBroke(Exception):
    """The stream had begun and did not end in a whole message: time for the fallback."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


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
        clock: Clock | None = None,
    ) -> None:
        self.params = params
        self.timeout = timeout
        self.max_attempts = max_attempts
        # A transport that keeps its own time (the scripted server) is judged by that time.
        self.clock: Clock = clock or getattr(transport, "clock", None) or WallClock()
        inner = transport or httpx2.HTTPTransport(proxy=proxy_for(base_url))
        self._watch = WatchingTransport(inner, stall=timeout, clock=self.clock.now)
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
        attempts = Attempts(on_start, on_end)
        self._watch.listener = attempts
        try:
            return self._stream(messages, attempts)
        except ListenerFailed as exc:
            raise exc.__cause__ or exc from None

    def _budget(self, attempts: Attempts) -> anthropic.Anthropic:
        """The client, allowed only the retries left in this request's budget."""
        return self.client.with_options(max_retries=self.max_attempts - attempts.count - 1)

    def _stream(self, messages: list[dict[str, Any]], attempts: Attempts) -> StreamedResponse:
        began = time.monotonic()  # what the answer really took, whoever's clock judges stalls
        try:
            try:
                final = self._one_stream(self._budget(attempts), messages, attempts)
            except _StreamBroke as broke:
                attempts.finish(broke.note)
                if attempts.count >= self.max_attempts:
                    raise ModelError(broke.note, attempts.count) from None
                final = self._without_streaming(messages, attempts)
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
        self, client: anthropic.Anthropic, messages: list[dict[str, Any]], attempts: Attempts
    ) -> Any:
        """One ``messages.stream`` call (the SDK may retry inside it until the stream opens);
        the final message, or :class:`_StreamBroke` once it opened and then failed."""
        opened = started = stopped = False
        count = 0
        try:
            # Plain dicts in the SDK's MessageParam shape (built by tracer.model.normalize); the
            # SDK types them as TypedDicts, which a dict[str, Any] cannot be shown to match
            with client.messages.stream(messages=messages, **self.params) as stream:  # type: ignore[arg-type]
                opened = True
                _expect_event_stream(stream.response)
                for event in stream:
                    count += 1
                    started = started or event.type == "message_start"
                    stopped = stopped or event.type == "message_stop"
                final = stream.current_message_snapshot if started else None
        except (ListenerFailed, _StreamBroke):
            raise
        except anthropic.APIStatusError as exc:
            if not opened:  # the SDK's retries were spent before a stream began
                raise ModelError(describe(exc), attempts.count) from None
            kind, text = error_of(exc)
            raise _StreamBroke(f"{kind} in the stream: {text}") from None
        except (
            anthropic.APIError,
            httpx2.HTTPError,
            ValueError,
            TypeError,
            KeyError,
            IndexError,
            RuntimeError,
        ) as exc:
            if not opened:
                raise ModelError(attempts.note() or describe(exc), attempts.count) from None
            raise _StreamBroke(attempts.note() or _broken(exc)) from None
        if not count:
            raise _StreamBroke("malformed answer: a 200 response that held no events")
        if not started or final is None:
            raise _StreamBroke("malformed event stream: no message_start")
        if not stopped:
            raise _StreamBroke("stream cut off: it ended without message_stop")
        return final

    def _without_streaming(self, messages: list[dict[str, Any]], attempts: Attempts) -> Any:
        """The fallback: the same request as one plain ``messages.create`` (the SDK retries it
        within what is left of the budget)."""
        attempts.streaming = False
        try:
            message = self._budget(attempts).messages.create(messages=messages, **self.params)  # type: ignore[arg-type]  # as in _one_stream
        except ListenerFailed:
            raise
        except anthropic.APIStatusError as exc:
            raise ModelError(describe(exc), attempts.count) from None
        except anthropic.APIConnectionError as exc:
            raise ModelError(attempts.note() or describe(exc), attempts.count) from None
        except (anthropic.APIError, httpx2.HTTPError, ValueError, TypeError, KeyError) as exc:
            raise ModelError(f"malformed answer: {what_broke(exc)}", attempts.count) from None
        if not isinstance(message, anthropic.types.Message):
            # The SDK hands back the text of a 200 that is not JSON (an HTML page from a proxy).
            raise ModelError("malformed answer: HTTP 200 that is not a message", attempts.count)
        return message


def _broken(exc: Exception) -> str:
    """One line for a stream the seam gave up reading: cut off, or unreadable."""
    cause = exc.__cause__ if isinstance(exc, anthropic.APIConnectionError) else exc
    if isinstance(cause, httpx2.HTTPError):
        return f"stream cut off: {describe_transport_error(cause, None)}"
    if isinstance(exc, anthropic.APIConnectionError):
        return f"stream cut off: {describe(exc)}"
    # Bad JSON, invalid UTF-8, events out of order: the SDK's parser gave up on the bytes.
    return f"malformed event stream: {what_broke(exc)}"


def _expect_event_stream(response: httpx2.Response) -> None:
    """A 200 that says it is something else (an HTML error page, plain JSON) is not a stream."""
    kind = response.headers.get("content-type", "")
    if kind and not kind.split(";")[0].strip().lower() == "text/event-stream":
        raise _StreamBroke(
            f"malformed answer: HTTP {response.status_code} with content-type "
            f"{one_line(kind)}, not an event stream"
        )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
