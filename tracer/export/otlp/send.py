"""POST the spans to a collector as the OTLP/HTTP exporter specification asks, and no further.

* **Retries.** 429, 502, 503 and 504 are worth another try: after ``Retry-After`` when the
  collector sends one (seconds or an HTTP date), else after an exponential backoff with jitter
  (:data:`FIRST_BACKOFF_S`, doubling). Every other answer is final.
* **One deadline.** Each batch has ``OTEL_EXPORTER_OTLP_TIMEOUT`` in all, retries and waits
  included. A socket timeout alone bounds only the wait for *each* piece of the answer, so a
  collector sending one byte every three seconds would never be given up on; a timer closes the
  connection when the deadline passes instead.
* **No redirects.** ``http.client`` follows none, and neither does tracer: a redirected POST
  loses its body (302, 303) or carries the headers (an API key) to another host. A 3xx is an
  error that names where it pointed.
* **Bounded reads.** The answer's status line and each header line are read by ``http.client``,
  which stops past 64 KB a line and 100 headers; its body is read up to :data:`MAX_ANSWER` bytes.
  A bad status line, a short body, a body that never ends, a TLS port spoken to in plain HTTP:
  each is one line naming the endpoint, never a traceback.
* **Partial success.** A 200 whose body says some spans were rejected (``partial_success``) is
  reported as such, never as "sent N spans".
* **No secrets shown.** The endpoint is printed without its password and with its query's values
  hidden; a header value, password or query value echoed back by the server is blanked out.

Only the standard library: nothing is sent anywhere but the endpoint given (no proxy is used).
"""

from __future__ import annotations

import base64
import contextlib
import email.utils
import gzip
import http.client
import json
import random
import socket
import ssl
import threading
import time
import urllib.parse
from typing import Any

from tracer.errors import UserError
from tracer.export.otlp.http import Target, batches, shown_url, to_protobuf

RETRYABLE = (429, 502, 503, 504)
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 16.0
MAX_ANSWER = 64 * 1024


class _Failed(Exception):
    """One exchange went wrong in a way worth one line."""


def _scrub(text: str, target: Target) -> str:
    """A server's words, one line, short, with anything secret we sent blanked out."""
    for secret in target.secrets():
        text = text.replace(secret, "***")
    return " ".join(text.split())[:200]


def _encode(batch: dict[str, Any], target: Target) -> tuple[bytes, dict[str, str]]:
    if target.protocol == "http/json":
        body, content_type = json.dumps(batch).encode(), "application/json"
    else:
        body, content_type = to_protobuf(batch), "application/x-protobuf"
    headers = {**target.headers, "Content-Type": content_type, "User-Agent": "tracer"}
    parts = urllib.parse.urlsplit(target.url)
    if parts.username and not any(k.lower() == "authorization" for k in headers):
        user, password = parts.username, parts.password or ""
        pair = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    if target.compression == "gzip":
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    return body, headers


def _context(target: Target) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=target.certificate)
    if target.client_certificate:
        context.load_cert_chain(target.client_certificate, target.client_key)
    return context


def _exchange(
    target: Target, body: bytes, headers: dict[str, str], deadline: float
) -> tuple[int, str, Any, bytes]:
    """One POST: (status, reason, headers, body of at most MAX_ANSWER bytes)."""
    parts = urllib.parse.urlsplit(target.url)
    left = max(deadline - time.monotonic(), 0.001)
    host, port = parts.hostname or "", parts.port
    if parts.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, port, timeout=left, context=_context(target)
        )
    else:
        conn = http.client.HTTPConnection(host, port, timeout=left)
    expired = threading.Event()

    def stop() -> None:  # the deadline: whatever is being read now ends
        expired.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed: nothing left to stop
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(left, stop)
    timer.daemon = True
    timer.start()
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    try:
        conn.request("POST", path, body=body, headers=headers)
        answer = conn.getresponse()
        data = answer.read(MAX_ANSWER + 1)
        if len(data) > MAX_ANSWER:
            raise _Failed(f"the answer's body runs past {MAX_ANSWER // 1024} KB; stopped reading")
        if answer.length:  # announced more than arrived before the connection closed
            raise http.client.IncompleteRead(data, answer.length)
        if expired.is_set():
            raise TimeoutError
        return answer.status, answer.reason, answer.headers, data
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        if expired.is_set() or isinstance(exc, TimeoutError):
            raise _Failed(
                f"no complete answer within {target.timeout_s:g} s "
                "(OTEL_EXPORTER_OTLP_TIMEOUT); gave up"
            ) from None
        raise _Failed(_explain(exc, parts.scheme)) from None
    finally:
        timer.cancel()
        conn.close()


def _explain(exc: BaseException, scheme: str) -> str:
    """One line for an exchange that failed below HTTP's status codes."""
    if isinstance(exc, http.client.IncompleteRead):
        return f"the answer was cut short ({len(exc.partial)} bytes, more were announced)"
    if isinstance(exc, http.client.LineTooLong):
        return "a line of the answer is longer than 64 KB: not an OTLP collector"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the collector closed the connection without an answer"
    if isinstance(exc, http.client.BadStatusLine):
        hint = " (a TLS port? use https://)" if scheme == "http" else ""
        return f"the answer is not HTTP{hint}"
    if isinstance(exc, http.client.HTTPException):
        return f"the answer is not well-formed HTTP ({type(exc).__name__})"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (
            f"the server's certificate is not trusted ({exc.verify_message}); "
            "OTEL_EXPORTER_OTLP_CERTIFICATE names a CA file to trust"
        )
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason or 'handshake'}): is this an https port?"
    reason = getattr(exc, "strerror", None) or type(exc).__name__
    return f"cannot send the spans ({reason})"


def _rejected(data: bytes, protocol: str) -> tuple[int, str] | None:
    """A 200 answer's ``partial_success``: (spans rejected, why), or None when all were taken.

    The specification lets a collector take a request and still refuse some of its spans; it
    says so in the body, which is small (an ``ExportTraceServiceResponse``)."""
    if not data.strip():
        return None
    try:
        if protocol == "http/json":
            partial = json.loads(data).get("partialSuccess") or {}
            count, why = (
                int(partial.get("rejectedSpans") or 0),
                str(partial.get("errorMessage") or ""),
            )
        else:
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                ExportTraceServiceResponse,
            )

            answer = ExportTraceServiceResponse.FromString(data)
            count, why = answer.partial_success.rejected_spans, answer.partial_success.error_message
    except Exception:  # not the response message at all: a 200 is a 200
        return None
    return (count, why) if count > 0 else None


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds from now: a number, or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _backoff(attempt: int) -> float:
    """The wait before try ``attempt + 1``: doubling from FIRST_BACKOFF_S, with jitter."""
    base = min(FIRST_BACKOFF_S * 2 ** (attempt - 1), MAX_BACKOFF_S)
    return base * random.uniform(0.8, 1.2)


def _send(target: Target, body: bytes, headers: dict[str, str]) -> None:
    """One batch, retried as the specification says, within one deadline."""
    where = f"{target.shown} ({target.protocol})"
    deadline = time.monotonic() + target.timeout_s
    attempt = 0
    while True:
        attempt += 1
        try:
            status, reason, answer_headers, data = _exchange(target, body, headers, deadline)
        except _Failed as exc:
            raise UserError(f"{where}: {_scrub(str(exc), target)}") from None
        if 200 <= status < 300:
            if rejected := _rejected(data, target.protocol):
                count, why = rejected
                raise UserError(
                    f"{where}: the collector took the request but rejected {count} of its spans"
                    + (f": {_scrub(why, target)}" if why else "")
                )
            return
        said = f"the collector answered {status} {_scrub(reason, target)}"
        if 300 <= status < 400:
            location = shown_url(answer_headers.get("Location", "") or "") or "nowhere"
            raise UserError(
                f"{where}: {said}, a redirect to {location}: not followed (it would drop the "
                "spans or take the headers elsewhere); give the collector's own URL"
            )
        if status in RETRYABLE:
            wait = _retry_after(answer_headers.get("Retry-After"))
            wait = _backoff(attempt) if wait is None else wait
            if time.monotonic() + wait >= deadline:
                tries = "once" if attempt == 1 else f"{attempt} times"
                raise UserError(
                    f"{where}: {said} ({tries}); the next try, {wait:.1f} s later, would pass "
                    f"the {target.timeout_s:g} s deadline (OTEL_EXPORTER_OTLP_TIMEOUT): gave up"
                )
            time.sleep(wait)
            continue
        detail = _scrub(data.decode("utf-8", "replace"), target)
        raise UserError(f"{where}: {said}: {detail}" if detail else f"{where}: {said}")


def post(payload: dict[str, Any], target: Target) -> int:
    """Send every span; the number sent. Any failure is a :class:`UserError`, one line."""
    sent = 0
    parts = batches(payload)
    for batch in parts:
        body, headers = _encode(batch, target)
        try:
            _send(target, body, headers)
        except UserError as exc:
            if sent:  # say what did arrive: the backend shows a part of the trace
                raise UserError(f"{exc.message} ({sent} spans were sent before)") from None
            raise
        sent += len(batch["resourceSpans"][0]["scopeSpans"][0]["spans"])
    return sent
