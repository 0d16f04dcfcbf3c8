"""Watching the wire: each HTTP attempt as it starts and ends, and streams that only ping.

The SDK hides its own retries: a 529, a timeout or a refused connection is tried again inside
one ``messages.stream(...)`` call, and the caller only sees the last failure. To put *every*
attempt in the trace, and to put it there while it is still running, :class:`WatchingTransport`
sits between the SDK's ``httpx2`` client and the real transport (or the scripted one). Each
request that passes through it is one attempt: it reports the start with the exact body, then
the status line, then how the attempt failed (a timeout, a refused connection) if it did.

It also watches the bytes of a streamed answer. The API sends ``ping`` events to keep a quiet
connection open; the SDK drops them, so a stream that sends nothing else would keep it waiting
forever, and no read timeout ever fires (bytes do arrive). :class:`_StallWatch` notes when the
last event that was not a ping arrived and cuts the stream with :class:`StreamStalled` once that
is longer ago than the stall limit. A plain answer (the fallback after a broken stream, sent
without streaming) has no events and no pings: only how it failed is watched there.

Nothing here reads request headers, where the API key travels.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import httpx2


class StreamStalled(httpx2.ReadTimeout):
    """Events kept coming, but none of them carried the answer."""


class AttemptListener(Protocol):
    """What the seam wants to hear about the attempts of the request in flight."""

    streaming: bool
    """Whether the attempts going out now ask for a stream."""

    def started(self, body: bytes) -> None: ...

    def responded(self, status: int) -> None: ...

    def failed(self, note: str) -> None: ...


@dataclass
class _Quiet:
    """The listener when no request is being tracked: hears nothing."""

    streaming: bool = True

    def started(self, body: bytes) -> None:
        pass

    def responded(self, status: int) -> None:
        pass

    def failed(self, note: str) -> None:
        pass


def _limits(request: httpx2.Request) -> dict[str, Any]:
    """The timeouts httpx2 attached to this request (the SDK's ``timeout``, per phase)."""
    limits = request.extensions.get("timeout")
    return limits if isinstance(limits, dict) else {}


def _seconds(value: Any) -> str:
    return f"{value:g} s" if isinstance(value, int | float) else "no limit"


def describe_transport_error(exc: Exception, request: httpx2.Request | None) -> str:
    """One line for a failed attempt, naming the limit that ran out."""
    limits = _limits(request) if request is not None else {}
    if isinstance(exc, httpx2.ConnectTimeout):
        return f"timed out: no connection within {_seconds(limits.get('connect'))}"
    if isinstance(exc, httpx2.ReadTimeout):
        return f"timed out: nothing received for {_seconds(limits.get('read'))}"
    if isinstance(exc, httpx2.WriteTimeout | httpx2.PoolTimeout):
        return f"timed out: {type(exc).__name__}"
    if isinstance(exc, httpx2.ConnectError):
        return f"cannot connect: {exc}" if str(exc) else "cannot connect"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _describe_mid_stream(exc: Exception, request: httpx2.Request, streaming: bool) -> str:
    """One line for an answer that broke after it began: stalled, or cut off."""
    if isinstance(exc, StreamStalled):
        return str(exc)
    if not streaming:
        if isinstance(exc, httpx2.ReadTimeout):
            return describe_transport_error(exc, request)
        return f"answer cut off: {describe_transport_error(exc, request)}"
    if isinstance(exc, httpx2.ReadTimeout):
        return f"stream stalled: nothing received for {_seconds(_limits(request).get('read'))}"
    return f"stream cut off: {describe_transport_error(exc, request)}"


class _StallWatch(httpx2.SyncByteStream):
    """Passes a response's bytes through, and cuts it when only pings have come for too long."""

    def __init__(
        self,
        inner: Any,
        stall: float | None,
        on_fail: Callable[[str], None],
        request: httpx2.Request,
        clock: Callable[[], float],
        streaming: bool,
    ) -> None:
        self._inner = inner
        self._stall = stall
        self._on_fail = on_fail
        self._request = request
        self._clock = clock
        self._streaming = streaming

    def __iter__(self) -> Iterator[bytes]:
        last_content = self._clock()
        pending = b""
        event: bytes | None = None
        try:
            for chunk in self._inner:
                now = self._clock()
                if not self._streaming:
                    # A plain answer has no events: its whole body must come within the limit,
                    # so a server that trickles bytes cannot hold it open forever.
                    if self._stall is not None and now - last_content > self._stall:
                        raise StreamStalled(
                            f"answer stalled: not whole after {self._stall:g} s",
                            request=self._request,
                        )
                    yield chunk
                    continue
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    line = line.rstrip(b"\r")
                    if line.startswith(b"event:"):
                        event = line[6:].strip()
                    elif not line:
                        # A blank line ends an event: it counts as progress unless it was a ping.
                        if event is not None and event != b"ping":
                            last_content = now
                        event = None
                if self._stall is not None and now - last_content > self._stall:
                    raise StreamStalled(
                        f"stream stalled: only pings for {self._stall:g} s", request=self._request
                    )
                yield chunk
        except httpx2.TransportError as exc:
            self._on_fail(_describe_mid_stream(exc, self._request, self._streaming))
            raise

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


class WatchingTransport(httpx2.BaseTransport):
    """Wraps a transport; tells :attr:`listener` about every attempt that goes through it."""

    def __init__(
        self,
        inner: httpx2.BaseTransport,
        *,
        stall: float | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.inner = inner
        self.stall = stall
        self.clock = clock
        self.listener: AttemptListener = _Quiet()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        listener = self.listener
        listener.started(request.read())
        try:
            response = self.inner.handle_request(request)
        except httpx2.TransportError as exc:
            listener.failed(describe_transport_error(exc, request))
            raise
        listener.responded(response.status_code)
        response.stream = _StallWatch(
            response.stream, self.stall, listener.failed, request, self.clock, listener.streaming
        )
        return response

    def close(self) -> None:
        self.inner.close()


def proxy_for(base_url: str | None) -> str | None:
    """The proxy the environment names for the API's host: a transport of our own would not
    look (``httpx2`` reads ``HTTPS_PROXY`` only for the transport it makes itself)."""
    url = httpx2.URL(base_url or "https://api.anthropic.com")
    if url.host and urllib.request.proxy_bypass(url.host):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(url.scheme) or proxies.get("all")
