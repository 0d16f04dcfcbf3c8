"""The scripted server's misbehaviours: each fault a scenario can script, played for real.

:class:`~tracer.agent.scripted.ScriptedTransport` answers from a scenario; when a response has
``faults:`` left, each attempt spends one here instead. A fault is a one-key mapping:

* ``{status: 529}``: an HTTP error answer (429, 500 and 529 are retried by the SDK itself);
* ``{cut_after: N}``: N events, then the connection drops;
* ``{hang: N}``: N events, then silence; ``{hang: 0}`` never answers at all. The transport
  waits out the request's own read timeout and then fails as the network layer would;
* ``{pings_forever: N}``: N events, then nothing but ``ping`` events, forever;
* ``{no_message_stop: N}``: N events, then a clean end, short of ``message_stop``;
* ``{error_event: overloaded_error}``: the stream starts, then carries an ``event: error``;
* ``{malformed: json}`` (or ``utf8``, or ``html``): a data line that is not JSON, bytes that are
  not UTF-8, or an HTML page sent with status 200.

A request sent without streaming (the fallback after a broken stream, as Claude Code 2.1.88's
``executeNonStreamingRequest``) meets the same fault as its plain-JSON equivalent: silence
(``hang``, ``pings_forever``: a plain answer has no pings to send) until the client's read
timeout, a body cut short (``cut_after``, ``no_message_stop``), the HTTP status an error event
stands for (``error_event``), or a body no parser can read (``malformed``).

Waits are measured on the transport's clock (:mod:`tracer.agent.script_clock`): scripted
silence passes on the script's time, so no recording sits idle and a busy machine cannot change
what a fault does. Faults that the client retries carry ``retry-after-ms: 1``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx2

from tracer.agent.script_clock import Clock

ERROR_TYPES = {
    400: "invalid_request_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
ERROR_TEXT = {
    429: "Number of request tokens has exceeded your per-minute rate limit",
    500: "Internal server error",
    529: "Overloaded",
}

#: The fault kinds a response may script, and what each takes.
FAULT_KINDS = {
    "status": "an HTTP status code (400 to 599)",
    "cut_after": "a number of events",
    "hang": "a number of events (0: no answer at all)",
    "pings_forever": "a number of events",
    "no_message_stop": "a number of events",
    "error_event": "an error type, such as overloaded_error",
    "malformed": "json, utf8 or html",
}
MALFORMED = ("json", "utf8", "html")
RETRY_NOW = {"retry-after-ms": "1"}  # the client honours it: tests need not sleep
STATUS_OF_ERROR = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429}
"""The HTTP status a plain (non-streaming) answer gives for what a stream says in an error event."""


def sse(event: str, data: dict[str, Any]) -> bytes:
    """One server-sent event, framed as the API frames it."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def fault_problem(fault: dict[str, Any]) -> str | None:
    """What is wrong with one scripted fault, or ``None`` when it can be played."""
    if len(fault) != 1 or next(iter(fault)) not in FAULT_KINDS:
        return "each fault is one of " + ", ".join(f"{{{k}: …}}" for k in FAULT_KINDS)
    ((kind, value),) = fault.items()
    if kind == "malformed":
        ok = value in MALFORMED
    elif kind == "error_event":
        ok = isinstance(value, str) and value.isidentifier()
    else:
        low, high = (400, 599) if kind == "status" else (0, 10**6)
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    return None if ok else f"{kind} takes {FAULT_KINDS[kind]}, not {value!r}"


def _read_timeout(request: httpx2.Request) -> float | None:
    limits = request.extensions.get("timeout")
    value = limits.get("read") if isinstance(limits, dict) else None
    return float(value) if isinstance(value, int | float) else None


def _wait_out(request: httpx2.Request, clock: Clock) -> None:
    """Be a silent server: let the client's read timeout pass, then time out as httpcore does.
    With no timeout at all, that is forever, as it would be for real."""
    limit = _read_timeout(request)
    if limit is None:
        threading.Event().wait()
    clock.sleep(limit or 0)
    raise httpx2.ReadTimeout("timed out", request=request)


class _FaultyStream(httpx2.SyncByteStream):
    """Sends the first ``after`` events, then misbehaves in one of the scripted ways."""

    def __init__(
        self, events: list[bytes], kind: str, after: int, request: httpx2.Request, clock: Clock
    ) -> None:
        self._events, self._kind, self._after, self._request = events, kind, after, request
        self._clock = clock
        self._closed = threading.Event()

    def __iter__(self) -> Iterator[bytes]:
        if self._kind == "no_message_stop":
            yield from self._events[: min(self._after, len(self._events) - 1)]
            return
        yield from self._events[: self._after]
        if self._kind == "cut_after":
            raise httpx2.RemoteProtocolError(
                "peer closed connection without sending complete message"
            )
        if self._kind == "hang":
            _wait_out(self._request, self._clock)
        # pings_forever: often enough that no read timeout fires, until the client hangs up.
        limit = _read_timeout(self._request)
        every = min(limit / 4, 1.0) if limit else 1.0
        while not self._closed.is_set():
            yield sse("ping", {"type": "ping"})
            self._clock.sleep(every)

    def close(self) -> None:
        self._closed.set()


def fault_response(
    fault: dict[str, Any],
    events: list[bytes],
    headers: dict[str, str],
    request: httpx2.Request,
    clock: Clock,
) -> httpx2.Response:
    """The answer of one faulty streamed attempt: ``events`` is the whole stream it spoils."""
    ((kind, value),) = fault.items()
    if kind == "status":
        status = int(value)
        return error_response(
            status,
            ERROR_TYPES.get(status, "api_error"),
            ERROR_TEXT.get(status, "error"),
            retry_now=True,
        )
    if kind == "hang" and int(value) == 0:
        _wait_out(request, clock)
    if kind == "error_event":
        text = "Overloaded" if value == "overloaded_error" else f"scripted {value}"
        error = sse("error", {"type": "error", "error": {"type": value, "message": text}})
        body = b"".join(events[:2]) + error
        return httpx2.Response(200, headers={**headers, **RETRY_NOW}, content=body)
    if kind == "malformed":
        return _malformed(str(value), events, headers)
    return httpx2.Response(
        200, headers=headers, stream=_FaultyStream(events, kind, int(value), request, clock)
    )


class _CutBody(httpx2.SyncByteStream):
    """The first half of a plain answer's body, then a dropped connection."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def __iter__(self) -> Iterator[bytes]:
        yield self._body[: len(self._body) // 2]
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete message")


def plain_fault_response(
    fault: dict[str, Any], body: bytes, request: httpx2.Request, clock: Clock
) -> httpx2.Response:
    """The answer of one faulty attempt sent without streaming: ``body`` is the JSON message it
    spoils (see the module's docstring for how each fault reads without a stream)."""
    ((kind, value),) = fault.items()
    if kind == "status" or kind == "error_event":
        status = int(value) if kind == "status" else STATUS_OF_ERROR.get(str(value), 500)
        return error_response(
            status,
            ERROR_TYPES.get(status, "api_error"),
            ERROR_TEXT.get(status, "error"),
            retry_now=True,
        )
    if kind in ("hang", "pings_forever"):
        _wait_out(request, clock)
    headers = {"content-type": "application/json"}
    if kind == "malformed":
        if value == "html":
            return _malformed("html", [], headers)
        broken = body[: len(body) // 2] if value == "json" else b'{"id": "\xff\xfe"}'
        return httpx2.Response(200, headers=headers, content=broken)
    return httpx2.Response(200, headers=headers, stream=_CutBody(body))


def error_response(
    status: int, kind: str, message: str, retry_now: bool = False
) -> httpx2.Response:
    """An HTTP error answer with the API's JSON error body."""
    headers = {"content-type": "application/json"}
    if retry_now:
        headers.update(RETRY_NOW)
    if status == 400:
        headers["x-should-retry"] = "false"
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return httpx2.Response(status, headers=headers, json=body)


def _malformed(how: str, events: list[bytes], headers: dict[str, str]) -> httpx2.Response:
    """A 200 whose body a stream parser cannot read."""
    if how == "html":
        page = b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>\n"
        return httpx2.Response(200, headers={"content-type": "text/html"}, content=page)
    if how == "json":
        broken = b'event: content_block_start\ndata: {"type": "content_block_start", "ind\n\n'
    else:
        broken = b'event: ping\ndata: {"type": "ping", "note": "\xff\xfe"}\n\n'
    return httpx2.Response(200, headers=headers, content=b"".join(events[:1]) + broken)
