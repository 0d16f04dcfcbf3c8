"""The seam against real sockets on loopback: the SDK's timeout and the stall detector hold.

The scripted transport stands in for the network layer when it plays ``hang``; these tests use
the real ``httpx2`` transport against tiny servers on 127.0.0.1 instead, so they prove that the
limits really reach the SDK's HTTP client. Nothing leaves the machine.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from tracer.agent.attempts import Attempt
from tracer.agent.model import ModelError, ModelSeam
from tracer.agent.scripted import ScriptedResponse, ScriptedTransport
from tracer.agent.watch import proxy_for

pytestmark = pytest.mark.usefixtures("quick_sdk_retries")

PARAMS = {"model": "claude-test", "max_tokens": 16}
MESSAGES = [{"role": "user", "content": "hi"}]
PLAIN_MESSAGE = {
    "id": "msg_2",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": "plain"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}

Handler = Callable[[socket.socket, threading.Event], None]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)


@pytest.fixture
def server() -> Iterator[Callable[[Handler], str]]:
    """``server(handler) -> base_url``: a loopback server that runs ``handler`` per connection."""
    stop = threading.Event()
    sockets: list[socket.socket] = []

    def start(handler: Handler) -> str:
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(0.05)
        sockets.append(listener)

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                sockets.append(conn)
                threading.Thread(target=handler, args=(conn, stop), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    stop.set()
    for sock in sockets:
        sock.close()


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += conn.recv(65536)


def _read_request_head_and_body(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += conn.recv(65536)
    return body


def _silent(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    stop.wait()  # never a byte back


def _pings_only(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    start = {"type": "message_start", "message": {"id": "msg_1", "type": "message",
             "role": "assistant", "model": "m", "content": [], "stop_reason": None,
             "usage": {"input_tokens": 1, "output_tokens": 1}}}  # fmt: skip
    conn.sendall(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        + f"event: message_start\ndata: {json.dumps(start)}\n\n".encode()
    )
    try:
        while not stop.wait(0.03):
            conn.sendall(b'event: ping\ndata: {"type": "ping"}\n\n')
    except OSError:
        return  # the client hung up: the point of the test


class _Log:
    def __init__(self) -> None:
        self.starts: list[int] = []
        self.streams: list[bool] = []
        self.ends: list[tuple[int, Attempt]] = []

    def start(self, number: int, body: bytes, streaming: bool) -> None:
        sent = json.loads(body)
        assert sent["messages"] == MESSAGES
        assert bool(sent.get("stream")) == streaming, "the flag says what the body asks for"
        self.starts.append(number)
        self.streams.append(streaming)

    def end(self, number: int, attempt: Attempt) -> None:
        self.ends.append((number, attempt))


def test_a_silent_server_meets_the_sdks_read_timeout(server: Any) -> None:
    seam = ModelSeam(params=PARAMS, base_url=server(_silent), api_key="k", timeout=0.2)
    seam.max_attempts = 2
    log = _Log()
    with pytest.raises(ModelError) as caught:
        seam.stream(MESSAGES, log.start, log.end)
    assert str(caught.value) == "timed out: nothing received for 0.2 s (gave up after 2 attempts)"
    assert log.starts == [1, 2]
    assert [(n, a.status, a.error) for n, a in log.ends] == [
        (1, None, "timed out: nothing received for 0.2 s"),
        (2, None, "timed out: nothing received for 0.2 s"),
    ]


def test_a_real_stream_of_pings_is_cut_by_the_stall_detector(server: Any) -> None:
    # Real sockets and the wall clock: load can only make a stall be seen later, never sooner,
    # and nothing below depends on when it is seen.
    seam = ModelSeam(
        params=PARAMS, base_url=server(_pings_only), api_key="k", timeout=0.25, max_attempts=2
    )
    log = _Log()
    with pytest.raises(ModelError) as caught:
        seam.stream(MESSAGES, log.start, log.end)
    # The server pings the plain fallback too: its body never ends, and is cut all the same.
    assert str(caught.value) == "answer stalled: not whole after 0.25 s (gave up after 2 attempts)"
    assert log.streams == [True, False]
    assert [(a.status, a.error) for _, a in log.ends] == [
        (200, "stream stalled: only pings for 0.25 s"),
        (200, "answer stalled: not whole after 0.25 s"),
    ]


def test_a_real_stream_cut_midway_is_answered_by_a_plain_request(server: Any) -> None:
    answered: list[bool] = []

    def cut_then_plain(conn: socket.socket, stop: threading.Event) -> None:
        head = _read_request_head_and_body(conn)
        if b'"stream":true' in head.replace(b" ", b""):
            answered.append(True)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: 100000\r\n\r\nevent: ping\ndata: {}\n\n"
            )
            conn.close()  # cut: far short of the length promised
            return
        answered.append(False)
        body = json.dumps(PLAIN_MESSAGE).encode()
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        conn.close()

    seam = ModelSeam(params=PARAMS, base_url=server(cut_then_plain), api_key="k", timeout=5)
    log = _Log()
    response = seam.stream(MESSAGES, log.start, log.end)
    assert response.blocks == [{"type": "text", "text": "plain"}]
    assert answered == [True, False] and log.streams == [True, False]
    assert log.ends[0][1].error is not None and log.ends[0][1].error.startswith("stream cut off")


def test_a_refused_connection_is_named(server: Any) -> None:
    spare = socket.create_server(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens there now
    seam = ModelSeam(
        params=PARAMS, base_url=f"http://127.0.0.1:{port}", api_key="k", max_attempts=1
    )
    log = _Log()
    with pytest.raises(ModelError) as caught:
        seam.stream(MESSAGES, log.start, log.end)
    assert str(caught.value).startswith("cannot connect:")
    assert log.starts == [1] and log.ends[0][1].error == str(caught.value)


def test_the_timeout_is_the_sdks_own() -> None:
    seam = ModelSeam(params=PARAMS, transport=ScriptedTransport([]), timeout=7.5)
    assert seam.client.timeout == httpx2.Timeout(7.5, connect=7.5)
    assert ModelSeam(params=PARAMS, transport=ScriptedTransport([])).client.timeout == (
        httpx2.Timeout(60.0, connect=10.0)
    )
    assert seam.client.max_retries == 2, "the SDK's retries are bounded by the attempt budget"


def test_a_200_with_no_events_is_malformed() -> None:
    class Empty(httpx2.BaseTransport):
        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            return httpx2.Response(200, content=b"<html>no stream here</html>")

    seam = ModelSeam(params=PARAMS, transport=Empty())
    log = _Log()
    with pytest.raises(ModelError) as caught:
        seam.stream(MESSAGES, log.start, log.end)
    # As in 2.1.88, a stream that never began is one more broken stream: the plain request
    # follows, and it is garbage too.
    assert log.streams == [True, False]
    assert log.ends[0][1].error == "malformed answer: a 200 response that held no events"
    assert str(caught.value) == (
        "malformed answer: HTTP 200 that is not a message (gave up after 2 attempts)"
    )


def test_a_bug_in_a_callback_is_not_taken_for_a_network_failure() -> None:
    seam = ModelSeam(params=PARAMS, transport=ScriptedTransport([ScriptedResponse(
        [{"type": "text", "text": "hi"}])]))  # fmt: skip

    starts: list[int] = []

    def explode(number: int, body: bytes, streaming: bool) -> None:
        starts.append(number)
        raise LookupError("a bug of ours")

    with pytest.raises(LookupError, match="a bug of ours"):
        seam.stream(MESSAGES, explode, lambda n, a: None)
    assert starts == [1], "not retried as if the network had failed"


def test_the_proxy_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert proxy_for(None) == "http://proxy.invalid:3128"
    monkeypatch.setenv("NO_PROXY", "api.anthropic.com")
    assert proxy_for(None) is None


def test_a_bug_in_the_end_callback_surfaces_as_itself() -> None:
    seam = ModelSeam(params=PARAMS, transport=ScriptedTransport([ScriptedResponse(
        [{"type": "text", "text": "hi"}])]))  # fmt: skip

    def explode(number: int, attempt: Attempt) -> None:
        raise LookupError("a bug of ours")

    with pytest.raises(LookupError, match="a bug of ours"):
        seam.stream(MESSAGES, lambda n, b, s: None, explode)
