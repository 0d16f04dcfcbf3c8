"""The offline model: an HTTP transport that answers ``POST /v1/messages`` from a scenario.

The SDK is real and so is its stream parser: the transport plugs into ``anthropic.Anthropic`` as
its ``httpx2`` transport and replies with the same server-sent events the API sends
(``message_start``, ``content_block_start``, ``thinking_delta``/``text_delta``/``input_json_delta``
chunks, ``content_block_stop``, ``message_delta``, ``message_stop`` and ``ping``). Only the words
are scripted. Faults can be scripted too, each one spending one HTTP attempt (a response's
``faults:`` list, played in order before the response succeeds):

* ``{status: 529}``: an HTTP error answer (429, 500 and 529 are retried by the SDK itself);
* ``{cut_after: N}``: N events, then the connection drops;
* ``{hang: N}``: N events, then silence; ``{hang: 0}`` never answers at all. The transport
  waits out the request's own read timeout and then fails as the network layer would;
* ``{pings_forever: N}``: N events, then nothing but ``ping`` events, forever;
* ``{no_message_stop: N}``: N events, then a clean end, short of ``message_stop``;
* ``{error_event: overloaded_error}``: the stream starts, then carries an ``event: error``;
* ``{malformed: json}`` (or ``utf8``, or ``html``): a data line that is not JSON, bytes that are
  not UTF-8, or an HTML page sent with status 200.

Faults that the client retries carry ``retry-after-ms: 1``, so tests need not sleep.

A ``validator`` may inspect each request body and refuse it the way the real API does (HTTP 400
``invalid_request_error``), so a deliberately broken loop fails as it would for real.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2

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
_CHUNK = 24
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
_RETRY_NOW = {"retry-after-ms": "1"}  # the client honours it: tests need not sleep


@dataclass
class ScriptedResponse:
    """One scripted answer: its content blocks and the faults to play before it succeeds."""

    blocks: list[dict[str, Any]]
    stop_reason: str | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    """Each fault spends one HTTP attempt: a one-key mapping from :data:`FAULT_KINDS`."""


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


def _stable_id(prefix: str, *parts: object) -> str:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()
    return f"{prefix}_01{digest[:22]}"


def _chunks(text: str, size: int = _CHUNK) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def estimate_tokens(text_bytes: int) -> int:
    """A deterministic stand-in for the tokenizer: about four bytes a token."""
    return max(1, (text_bytes + 3) // 4)


def sse_events(
    response: ScriptedResponse, message_id: str, model: str, input_tokens: int
) -> list[bytes]:
    """The whole SSE stream for one response, as the API would send it."""
    blocks = response.blocks
    stop = response.stop_reason or (
        "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    )
    out_tokens = estimate_tokens(len(json.dumps(blocks, ensure_ascii=False).encode()))
    events = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": input_tokens,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                        "output_tokens": 1,
                    },
                },
            },
        ),
        _sse("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
        elif kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            raw = json.dumps(block.get("input", {}), ensure_ascii=False)
            deltas = [{"type": "input_json_delta", "partial_json": ""}]
            deltas += [{"type": "input_json_delta", "partial_json": c} for c in _chunks(raw, 16)]
        else:
            raise ValueError(f"cannot stream a {kind!r} block")
        events.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        events += [
            _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": out_tokens},
            },
        )
    )
    events.append(_sse("message_stop", {"type": "message_stop"}))
    return events


def _read_timeout(request: httpx2.Request) -> float | None:
    limits = request.extensions.get("timeout")
    value = limits.get("read") if isinstance(limits, dict) else None
    return float(value) if isinstance(value, int | float) else None


def _wait_out(request: httpx2.Request) -> None:
    """Be a silent server: wait for the client's read timeout, then time out as httpcore does.
    With no timeout at all, that is forever, as it would be for real."""
    limit = _read_timeout(request)
    if limit is None:
        threading.Event().wait()
    time.sleep(limit or 0)
    raise httpx2.ReadTimeout("timed out", request=request)


class _FaultyStream(httpx2.SyncByteStream):
    """Sends the first ``after`` events, then misbehaves in one of the scripted ways."""

    def __init__(self, events: list[bytes], kind: str, after: int, request: httpx2.Request) -> None:
        self._events, self._kind, self._after, self._request = events, kind, after, request
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
            _wait_out(self._request)
        # pings_forever: often enough that no read timeout fires, until the client hangs up.
        limit = _read_timeout(self._request)
        every = min(limit / 4, 1.0) if limit else 1.0
        while not self._closed.is_set():
            yield _sse("ping", {"type": "ping"})
            self._closed.wait(every)

    def close(self) -> None:
        self._closed.set()


Validator = Callable[[dict[str, Any]], str | None]


class ScriptedTransport(httpx2.BaseTransport):
    """Answers each new request with the next scripted response.

    A retry of the same request (the SDK's, after a scripted fault) gets the same response, so
    faults never shift the script.
    """

    def __init__(
        self,
        responses: list[ScriptedResponse],
        *,
        seed: str = "tracer",
        validator: Validator | None = None,
    ) -> None:
        self.responses = responses
        self.seed = seed
        self.validator = validator
        self.requests: list[bytes] = []
        """Every request body received, retries included."""
        self._served = 0
        self._faults_left: list[dict[str, Any]] | None = None

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        self.requests.append(body)
        if request.url.path.rstrip("/") != "/v1/messages" or request.method != "POST":
            return self._error(404, "not_found_error", f"{request.method} {request.url.path}")
        payload = json.loads(body)
        if self.validator is not None and (problem := self.validator(payload)):
            return self._error(400, "invalid_request_error", problem)
        index = self._served
        response = self._response(index)
        if self._faults_left is None:
            self._faults_left = list(response.faults)
        model = payload.get("model", "scripted")
        message_id = _stable_id("msg", self.seed, index)
        events = sse_events(response, message_id, model, estimate_tokens(len(body)))
        headers = {
            "content-type": "text/event-stream",
            "request-id": _stable_id("req", self.seed, index),
        }
        if self._faults_left:
            return self._fault(self._faults_left.pop(0), events, headers, request)
        self._served += 1
        self._faults_left = None
        return httpx2.Response(200, headers=headers, content=b"".join(events))

    def _fault(
        self,
        fault: dict[str, Any],
        events: list[bytes],
        headers: dict[str, str],
        request: httpx2.Request,
    ) -> httpx2.Response:
        """The answer of one faulty attempt."""
        ((kind, value),) = fault.items()
        if kind == "status":
            status = int(value)
            return self._error(
                status,
                ERROR_TYPES.get(status, "api_error"),
                ERROR_TEXT.get(status, "error"),
                retry_now=True,
            )
        if kind == "hang" and int(value) == 0:
            _wait_out(request)
        if kind == "error_event":
            text = "Overloaded" if value == "overloaded_error" else f"scripted {value}"
            error = _sse("error", {"type": "error", "error": {"type": value, "message": text}})
            body = b"".join(events[:2]) + error
            return httpx2.Response(200, headers={**headers, **_RETRY_NOW}, content=body)
        if kind == "malformed":
            return _malformed(str(value), events, headers)
        return httpx2.Response(
            200, headers=headers, stream=_FaultyStream(events, kind, int(value), request)
        )

    def _response(self, index: int) -> ScriptedResponse:
        if index < len(self.responses):
            return self.responses[index]
        # The script ran out: end politely instead of failing, so forced loops still finish.
        text = f"(the scripted model has no response {index + 1}; it stops here)"
        return ScriptedResponse([{"type": "text", "text": text}], "end_turn")

    @staticmethod
    def _error(status: int, kind: str, message: str, retry_now: bool = False) -> httpx2.Response:
        headers = {"content-type": "application/json"}
        if retry_now:
            headers.update(_RETRY_NOW)
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
