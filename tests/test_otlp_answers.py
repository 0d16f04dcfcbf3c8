"""``export --otlp-endpoint`` against collectors that answer badly: one line each, the right exit.

A fake collector on a loopback port plays one script per connection (raw bytes, so it can
answer what no HTTP library would: a bad status line, a 100 KB header, a body that never ends,
one byte at a time). Every socket has a timeout and the server stops with the test, so nothing
waits forever and nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tracer.cli.main import main
from tracer.export.otlp import send as otlp_send

Script = Callable[[socket.socket, bytes], None]
SECRET = "sk-test-0123456789abcdef"


class Collector:
    """A loopback TCP server; connection *n* runs ``scripts[n]`` (the last one repeats)."""

    def __init__(self, scripts: list[Script], tls: ssl.SSLContext | None = None) -> None:
        self.scripts = scripts
        self.tls = tls
        self.requests: list[tuple[bytes, bytes, float]] = []  # head, body, arrival
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.stopped = threading.Event()
        self.threads: list[threading.Thread] = []
        self.accepter = threading.Thread(target=self._accept, daemon=True)
        self.accepter.start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            script = self.scripts[min(len(self.requests), len(self.scripts) - 1)]
            thread = threading.Thread(target=self._serve, args=(conn, script), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket, script: Script) -> None:
        conn.settimeout(5)
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
            head, body = _read_request(conn)
            self.requests.append((head, body, time.monotonic()))
            script(conn, head)
        except OSError:  # the client gave up first (or refused our certificate)
            pass
        finally:
            conn.close()

    def stop(self) -> None:
        self.stopped.set()
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept() now, not at its timeout
        self.server.close()
        self.accepter.join(timeout=5)
        for thread in self.threads:
            thread.join(timeout=6)


def _read_request(conn: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 1 << 20:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if data[:1] == b"\x16":
            # A TLS handshake sent to a plain port: it never holds a blank line, so answer at
            # once, as a plain HTTP server does, rather than wait out the socket's timeout.
            return data, b""
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head, body


def answer(status: str, headers: str = "", body: bytes = b"") -> Script:
    def play(conn: socket.socket, head: bytes) -> None:
        extra = f"{headers}\r\n" if headers else ""
        conn.sendall(
            f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body
        )

    return play


def raw(data: bytes) -> Script:
    return lambda conn, head: conn.sendall(data)


def trickle(conn: socket.socket, head: bytes) -> None:
    """One byte of a good answer every 0.3 s: each read succeeds well within its timeout."""
    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
        conn.sendall(bytes([byte]))
        time.sleep(0.3)


def endless(conn: socket.socket, head: bytes) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    chunk = b"x" * 8192
    for _ in range(10_000):  # 80 MB at most, far past what the client may read
        conn.sendall(chunk)


@pytest.fixture
def collector() -> Iterator[Callable[..., Collector]]:
    made: list[Collector] = []

    def make(*scripts: Script, tls: ssl.SSLContext | None = None) -> Collector:
        made.append(Collector(list(scripts), tls))
        return made[-1]

    try:
        yield make
    finally:
        for c in made:
            c.stop()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in list(os.environ):
        if key.startswith("OTEL_"):
            monkeypatch.delenv(key)
    monkeypatch.setattr(otlp_send, "FIRST_BACKOFF_S", 0.05)
    return monkeypatch


def _export(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["export", "09-no-tools", "--otlp-endpoint", url, *extra])
    return code, capsys.readouterr().err


def test_429_then_200_is_retried_after_a_backoff(
    collector: Callable[..., Collector], capsys: pytest.CaptureFixture[str]
) -> None:
    c = collector(answer("429 Too Many Requests"), answer("200 OK"))
    code, err = _export(c.url, capsys)
    assert code == 0 and err.startswith("sent ") and err.count("\n") == 1, err
    assert len(c.requests) == 2 and c.requests[0][1] == c.requests[1][1]  # the same batch


def test_503_waits_as_retry_after_says(
    collector: Callable[..., Collector], capsys: pytest.CaptureFixture[str]
) -> None:
    c = collector(answer("503 Service Unavailable", "Retry-After: 1"), answer("200 OK"))
    code, err = _export(c.url, capsys)
    assert code == 0 and err.startswith("sent "), err
    assert c.requests[1][2] - c.requests[0][2] >= 0.95  # not the 0.05 s backoff


def test_a_retry_after_past_the_deadline_gives_up_at_once(
    collector: Callable[..., Collector],
    capsys: pytest.CaptureFixture[str],
    clean_env: pytest.MonkeyPatch,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean_env.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2000")
    c = collector(answer("503 Service Unavailable", "Retry-After: 30"))
    waits: list[float] = []
    monkeypatch.setattr(otlp_send.time, "sleep", waits.append)
    code, err = _export(c.url, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "answered 503" in err and "gave up" in err and "sent " not in err
    # Judged by what it asked to wait, not by a stopwatch a busy machine can stop.
    assert waits == [] and len(c.requests) == 1


def test_a_trickling_collector_is_given_up_on_at_the_deadline(
    collector: Callable[..., Collector],
    capsys: pytest.CaptureFixture[str],
    clean_env: pytest.MonkeyPatch,
) -> None:
    clean_env.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1000")
    c = collector(trickle)
    began = time.monotonic()
    code, err = _export(c.url, capsys)
    took = time.monotonic() - began
    assert code == 2 and err.count("\n") == 1 and "within 1 s" in err and "gave up" in err, err
    assert took > 0.9, "it waited out the deadline (load can only make that later)"


def test_an_endless_body_is_read_only_so_far(
    collector: Callable[..., Collector], capsys: pytest.CaptureFixture[str]
) -> None:
    c = collector(endless)
    code, err = _export(c.url, capsys)
    assert code == 2 and err.count("\n") == 1 and "runs past 64 KB" in err, err


def test_a_redirect_is_not_followed_and_the_header_goes_nowhere(
    collector: Callable[..., Collector],
    capsys: pytest.CaptureFixture[str],
    clean_env: pytest.MonkeyPatch,
) -> None:
    elsewhere = collector(answer("200 OK"))
    c = collector(answer("302 Found", f"Location: {elsewhere.url}/v1/traces?api_key={SECRET}"))
    clean_env.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"Authorization=Bearer {SECRET}")
    code, err = _export(c.url, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "302" in err and "not followed" in err and "sent " not in err
    assert f"{elsewhere.url}/v1/traces?api_key=***" in err and SECRET not in err
    assert elsewhere.requests == []  # neither the spans nor the Authorization header went on
    assert SECRET.encode() in c.requests[0][0]


@pytest.mark.parametrize(
    ("script", "words"),
    [
        (raw(b"HELLO THERE\r\n\r\n"), "not HTTP (a TLS port? use https://)"),
        (raw(b"\x15\x03\x01\x00\x02\x02\x46"), "not HTTP (a TLS port? use https://)"),
        (raw(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"), "longer than 64 KB"),
        (raw(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"), "cut short (5 bytes"),
        (raw(b""), "closed the connection without an answer"),
    ],
    ids=["bad-status-line", "tls-port", "100kb-header", "short-body", "no-answer"],
)
def test_bad_answers_are_one_line_each(
    collector: Callable[..., Collector],
    capsys: pytest.CaptureFixture[str],
    script: Script,
    words: str,
) -> None:
    c = collector(script)
    code, err = _export(c.url, capsys)
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert "Traceback" not in err and "sent " not in err


def test_gzip_and_a_query_string_kept_in_place(
    collector: Callable[..., Collector],
    capsys: pytest.CaptureFixture[str],
    clean_env: pytest.MonkeyPatch,
) -> None:
    c = collector(answer("200 OK"))
    clean_env.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"{c.url}/base?api_key={SECRET}")
    code, err = _export("", capsys)  # --otlp-endpoint "" takes the environment's
    assert code == 0, err
    ((head, body, _),) = c.requests
    assert head.startswith(f"POST /base/v1/traces?api_key={SECRET} HTTP/1.1".encode())
    assert b"content-encoding: gzip" in head.lower()
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    spans = ExportTraceServiceRequest.FromString(gzip.decompress(body)).resource_spans
    assert spans[0].scope_spans[0].spans
    assert "api_key=***" in err and SECRET not in err


def test_an_error_never_shows_a_password_or_an_api_key(
    collector: Callable[..., Collector], capsys: pytest.CaptureFixture[str]
) -> None:
    # A careless collector that echoes what it was sent back in its error.
    def echo(conn: socket.socket, head: bytes) -> None:
        answer("400 Bad Request", body=head)(conn, head)

    c = collector(echo)
    host = c.url.removeprefix("http://")
    code, err = _export(f"http://user:{SECRET}@{host}/v1/traces?api_key={SECRET}", capsys)
    assert code == 2 and err.count("\n") == 1 and "answered 400" in err, err
    assert SECRET not in err and "api_key=***" in err
    assert b"Authorization: Basic " in c.requests[0][0]  # the password went as Basic auth


def test_bad_compression_and_a_missing_certificate_are_one_line(
    capsys: pytest.CaptureFixture[str], clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "brotli")
    code, err = _export("http://127.0.0.1:9", capsys)
    assert code == 2 and "'brotli' is not supported" in err and err.count("\n") == 1
    clean_env.delenv("OTEL_EXPORTER_OTLP_COMPRESSION")
    clean_env.setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem")
    code, err = _export("https://127.0.0.1:9", capsys)
    assert code == 2 and "OTEL_EXPORTER_OTLP_CERTIFICATE: not a file" in err


def test_retry_after_reads_seconds_and_dates() -> None:
    import email.utils

    assert otlp_send._retry_after("3") == 3.0
    later = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 < (otlp_send._retry_after(later) or 0) <= 60
    assert otlp_send._retry_after("soon") is None and otlp_send._retry_after(None) is None


def test_https_to_a_plain_http_port_is_one_line(
    collector: Callable[..., Collector], capsys: pytest.CaptureFixture[str]
) -> None:
    c = collector(answer("400 Bad Request"))
    code, err = _export(c.url.replace("http://", "https://"), capsys)
    assert code == 2 and err.count("\n") == 1 and "TLS failed" in err, err
    assert "Traceback" not in err


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_a_private_ca_is_trusted_only_when_named(
    collector: Callable[..., Collector],
    capsys: pytest.CaptureFixture[str],
    clean_env: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert, key)
    c = collector(answer("200 OK"), tls=server)
    url = c.url.replace("http://", "https://")
    code, err = _export(url, capsys)
    assert code == 2 and err.count("\n") == 1 and "not trusted" in err, err
    assert "OTEL_EXPORTER_OTLP_CERTIFICATE" in err
    clean_env.setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", str(cert))
    code, err = _export(url, capsys)
    assert code == 0 and err.startswith("sent ") and url in err, err


def test_a_partial_success_is_not_reported_as_sent(
    collector: Callable[..., Collector], capsys: pytest.CaptureFixture[str]
) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )

    body = ExportTraceServiceResponse()
    body.partial_success.rejected_spans = 1
    body.partial_success.error_message = "span too large"
    c = collector(
        answer("200 OK", "Content-Type: application/x-protobuf", body.SerializeToString())
    )
    code, err = _export(c.url, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "rejected 1 of its spans: span too large" in err and "sent " not in err
    # An empty 200, as most collectors answer, is a plain success.
    ok = collector(answer("200 OK"))
    assert _export(ok.url, capsys)[0] == 0
