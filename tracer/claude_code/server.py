"""A Messages API on a loopback port: the scripted model (or a pass-through) behind a socket.

tracer's own loop reaches the scripted model through the SDK's transport seam; the real Claude
Code can only be pointed at a URL (``ANTHROPIC_BASE_URL``). :class:`WireServer` is that URL: a
threaded HTTP/1.1 server on ``127.0.0.1`` that hands each request to a backend
(:class:`ScriptedBackend` here, :class:`~tracer.claude_code.proxy.ProxyBackend` for the real
API), streams the answer back chunk by chunk as it comes, and gives every exchange to the
:class:`~tracer.claude_code.capture.Capture`.

Scripted faults are played for real on the socket: a stream the transport cuts
(``cut_after``) ends the connection without the closing chunk, as a dropped connection does; a
``hang`` holds the answer until the server's own patience runs out, then closes.
"""

from __future__ import annotations

import contextlib
import hmac
import http.server
import secrets
import socket
import threading
from collections.abc import Callable
from typing import Any, Protocol

import httpx2

from tracer.agent.scripted import ScriptedTransport, _stable_id, estimate_tokens, sse_events
from tracer.claude_code.capture import Capture, Exchange, decode_body
from tracer.claude_code.side import (
    count_tokens,
    is_count_tokens,
    is_loop_request,
    message_json,
    side_response,
)

UNAUTHORISED = {
    "type": "error",
    "error": {"type": "authentication_error", "message": "not this session's key"},
}
#: How long closing waits for the exchanges still being written down.
SETTLE_S = 10.0
#: The largest request body read (Claude Code's longest sessions stay far below it).
MAX_BODY = 64 << 20


class Backend(Protocol):
    def answer(self, exchange: Exchange) -> httpx2.Response: ...


class ScriptedBackend:
    """The scenario's scripted answers for the loop's requests; side requests answered by shape.

    ``hang_s`` is how long a scripted ``hang`` holds a request before the server gives up (the
    real client would wait for minutes).
    """

    def __init__(self, transport: ScriptedTransport, *, hang_s: float = 30.0) -> None:
        self.transport = transport
        self.hang_s = hang_s
        self.side_calls = 0
        self._lock = threading.Lock()

    def answer(self, exchange: Exchange) -> httpx2.Response:
        path = exchange.url.split("?", 1)[0]
        body = decode_body(exchange.body)
        if is_count_tokens(path):
            return httpx2.Response(200, json=count_tokens(exchange.body))
        if not is_loop_request(body):
            return self._side(body, len(exchange.body))
        request = httpx2.Request(
            exchange.method,
            "http://scripted" + exchange.url,
            headers={"content-type": "application/json"},
            content=exchange.body,
            extensions={"timeout": {"read": self.hang_s}},
        )
        with self._lock:  # one script: the loop's requests take their answers in turn
            response = self.transport.handle_request(request)
        # A request sent without stream (2.1.88's fallback after a broken stream) is answered
        # by the transport itself with the scripted message, whole, as JSON.
        return response

    def _side(self, body: Any, size: int) -> httpx2.Response:
        with self._lock:
            self.side_calls += 1
            number = self.side_calls
        scripted = side_response(body)
        model = str(body.get("model", "scripted")) if isinstance(body, dict) else "scripted"
        message_id = _stable_id("msg", self.transport.seed, "side", number)
        tokens = estimate_tokens(size)
        if isinstance(body, dict) and body.get("stream"):
            events = sse_events(scripted, message_id, model, tokens)
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=b"".join(events)
            )
        return httpx2.Response(
            200,
            headers={"content-type": "application/json"},
            content=message_json(scripted, message_id, model, tokens),
        )


def session_token() -> str:
    """The key ``claude`` is given for one session: the only key the server takes."""
    return "tracer-" + secrets.token_hex(16)


class WireServer:
    """The loopback server: ``url`` is what ``ANTHROPIC_BASE_URL`` is set to.

    With a ``token``, a request that does not carry it (as ``x-api-key`` or a bearer
    ``authorization``) gets a 401 and goes nowhere: any local user can reach a loopback port,
    and the proxy would otherwise spend the user's key on their behalf."""

    def __init__(self, backend: Backend, capture: Capture, token: str | None = None) -> None:
        self.backend = backend
        self.capture = capture
        self.token = token
        handler = _handler(self)
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def __enter__(self) -> WireServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # The client may be gone a moment before the last exchange is written down.
        self.capture.settle(SETTLE_S)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _handler(server: WireServer) -> Callable[..., http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the capture is the log

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def do_HEAD(self) -> None:
            self._serve()

        def _serve(self) -> None:
            exchange = Exchange(self.command, self.path, dict(self.headers), self._body())
            if not self._authorised():
                refused = httpx2.Response(401, json=UNAUTHORISED)
                self._relay(refused, Exchange(self.command, self.path, {}, b""))
                return  # not captured: it is not the session's
            server.capture.begin()
            try:
                response = server.backend.answer(exchange)
            except Exception as exc:  # a backend that failed: a 500, and the capture says why
                response = httpx2.Response(
                    500, json={"type": "error", "error": {"type": "api_error", "message": "x"}}
                )
                exchange.error = f"{type(exc).__name__}: {exc}"
            exchange.status = response.status_code
            exchange.response_headers = dict(response.headers)
            try:
                self._relay(response, exchange)
            finally:
                response.close()
                server.capture.add(exchange)

        def _authorised(self) -> bool:
            if server.token is None:
                return True
            key = self.headers.get("x-api-key") or ""
            bearer = self.headers.get("authorization") or ""
            given = key or bearer.removeprefix("Bearer ").strip()
            return hmac.compare_digest(given.encode(), server.token.encode())

        def _body(self) -> bytes:
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                self.close_connection = True
                return b""
            if length:
                return self.rfile.read(length)
            if "chunked" in self.headers.get("transfer-encoding", "").lower():
                return _read_chunked(self.rfile)
            return b""

        def _relay(self, response: httpx2.Response, exchange: Exchange) -> None:
            self.send_response(response.status_code)
            skip = {"content-length", "transfer-encoding", "connection", "content-encoding"}
            for name, value in response.headers.items():
                if name.lower() not in skip:
                    self.send_header(name, value)
            if self.command == "HEAD":  # a reachability check: headers, never a body
                self.send_header("content-length", "0")
                self.end_headers()
                return
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for chunk in response.iter_bytes():
                    if chunk:
                        exchange.answer += chunk
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        self.wfile.flush()
            except (httpx2.HTTPError, OSError) as exc:
                # Cut as the scripted fault (or the upstream) cut it: no closing chunk.
                exchange.error = f"{type(exc).__name__}: {exc}"
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


def _read_chunked(stream: Any) -> bytes:
    out = bytearray()
    while len(out) <= MAX_BODY:
        size = int(stream.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            stream.readline()
            break
        out += stream.read(size)
        stream.readline()
    return bytes(out)
