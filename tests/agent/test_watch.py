"""The wire watcher on its own: attempts reported in order, stalls measured on a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from tracer.agent.watch import StreamStalled, WatchingTransport, describe_transport_error

PING = b'event: ping\ndata: {"type": "ping"}\n\n'
TEXT = b'event: content_block_delta\ndata: {"type": "content_block_delta"}\n\n'


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Timed(httpx2.SyncByteStream):
    """Yields chunks, moving the fake clock to each chunk's arrival time first."""

    def __init__(self, clock: Clock, chunks: list[tuple[float, bytes]]) -> None:
        self.clock, self.chunks = clock, chunks

    def __iter__(self) -> Iterator[bytes]:
        for at, chunk in self.chunks:
            self.clock.now = at
            yield chunk


class Inner(httpx2.BaseTransport):
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class Listener:
    streaming = True

    def __init__(self) -> None:
        self.heard: list[tuple[str, Any]] = []

    def started(self, body: bytes) -> None:
        self.heard.append(("started", body))

    def responded(self, status: int) -> None:
        self.heard.append(("responded", status))

    def failed(self, note: str) -> None:
        self.heard.append(("failed", note))


def _request(read: float = 5.0, connect: float = 2.0) -> httpx2.Request:
    timeout = {"connect": connect, "read": read, "write": read, "pool": read}
    return httpx2.Request(
        "POST", "http://x.invalid/v1/messages", content=b'{"a":1}', extensions={"timeout": timeout}
    )


def _play(chunks: list[tuple[float, bytes]], stall: float) -> tuple[list[bytes], Listener]:
    clock = Clock()
    response = httpx2.Response(200, stream=Timed(clock, chunks))
    watch = WatchingTransport(Inner(response), stall=stall, clock=clock)
    watch.listener = listener = Listener()
    got: list[bytes] = []
    answer = watch.handle_request(_request())
    for chunk in answer.stream:
        got.append(chunk)
    return got, listener


def test_content_keeps_a_stream_alive_however_slow() -> None:
    chunks = [(t, TEXT) for t in (1.0, 2.5, 4.0, 5.5)]
    got, listener = _play(chunks, stall=2.0)
    assert got == [TEXT] * 4
    assert listener.heard == [("started", b'{"a":1}'), ("responded", 200)]


def test_pings_alone_are_cut_once_the_stall_limit_passes() -> None:
    chunks = [(0.5, TEXT), *((0.5 + 0.4 * n, PING) for n in range(1, 20))]
    with pytest.raises(StreamStalled, match="only pings for 2 s"):
        _play(chunks, stall=2.0)


def test_the_stall_is_measured_from_the_last_content() -> None:
    # Content at 1.9 s resets the clock: pings until 3.8 s are fine, the one at 4.0 s is not.
    chunks = [(0.5, PING), (1.0, PING), (1.9, TEXT), (3.8, PING), (4.0, PING)]
    clock = Clock()
    response = httpx2.Response(200, stream=Timed(clock, chunks))
    watch = WatchingTransport(Inner(response), stall=2.0, clock=clock)
    watch.listener = listener = Listener()
    got: list[bytes] = []
    with pytest.raises(StreamStalled):
        for chunk in watch.handle_request(_request()).stream:
            got.append(chunk)
    assert got == [PING, PING, TEXT, PING]
    assert listener.heard[-1] == ("failed", "stream stalled: only pings for 2 s")


def test_an_event_split_across_chunks_still_counts() -> None:
    half = len(TEXT) // 2
    chunks = [(1.0, TEXT[:half]), (1.5, TEXT[half:]), (3.0, PING)]
    got, _ = _play(chunks, stall=2.0)
    assert b"".join(got) == TEXT + PING


def test_a_failed_attempt_names_its_limit() -> None:
    request = _request(read=0.5, connect=3.0)
    watch = WatchingTransport(Inner(httpx2.ConnectTimeout("x", request=request)), stall=1.0)
    watch.listener = listener = Listener()
    with pytest.raises(httpx2.ConnectTimeout):
        watch.handle_request(request)
    assert listener.heard[-1] == ("failed", "timed out: no connection within 3 s")
    read = describe_transport_error(httpx2.ReadTimeout("x"), request)
    assert read == "timed out: nothing received for 0.5 s"
    refused = describe_transport_error(httpx2.ConnectError("[Errno 111] refused"), request)
    assert refused == "cannot connect: [Errno 111] refused"
