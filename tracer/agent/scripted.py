"""The offline model: an HTTP transport that answers ``POST /v1/messages`` from a scenario.

The SDK is real and so is its stream parser: the transport plugs into ``anthropic.Anthropic`` as
its ``httpx2`` transport and replies with the same server-sent events the API sends
(``message_start``, ``content_block_start``, ``thinking_delta``/``text_delta``/``input_json_delta``
chunks, ``content_block_stop``, ``message_delta``, ``message_stop`` and ``ping``). Only the words
are scripted. Faults can be scripted too (:mod:`~tracer.agent.scripted_faults`): HTTP errors, cut
or silent or ping-only streams, error events and garbage, one per HTTP attempt.

A request sent without streaming (``"stream"`` false or absent: the fallback after a broken
stream) gets the same response as one JSON message, as the API answers it.

A ``validator`` may inspect each request body and refuse it the way the real API does (HTTP 400
``invalid_request_error``), so a deliberately broken loop fails as it would for real.

The transport keeps its own :class:`~tracer.agent.script_clock.ScriptClock` by default: a
scripted silence passes on the script's time, and the seam that reads this transport judges
stalls by the same clock (:attr:`ScriptedTransport.clock`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from tracer.agent.script_clock import Clock, ScriptClock
from tracer.agent.scripted_faults import (
    error_response,
    fault_response,
    plain_fault_response,
    sse,
)

_CHUNK = 24


@dataclass
class ScriptedResponse:
    """One scripted answer: its content blocks and the faults to play before it succeeds."""

    blocks: list[dict[str, Any]]
    stop_reason: str | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    """Each fault spends one HTTP attempt: a one-key mapping from :data:`FAULT_KINDS`."""


def _stable_id(prefix: str, *parts: object) -> str:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()
    return f"{prefix}_01{digest[:22]}"


def _chunks(text: str, size: int = _CHUNK) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def estimate_tokens(text_bytes: int) -> int:
    """A deterministic stand-in for the tokenizer: about four bytes a token."""
    return max(1, (text_bytes + 3) // 4)


def _stop_reason(response: ScriptedResponse) -> str:
    return response.stop_reason or (
        "tool_use" if any(b["type"] == "tool_use" for b in response.blocks) else "end_turn"
    )


def _output_tokens(response: ScriptedResponse) -> int:
    return estimate_tokens(len(json.dumps(response.blocks, ensure_ascii=False).encode()))


def plain_message(
    response: ScriptedResponse, message_id: str, model: str, input_tokens: int
) -> bytes:
    """The whole response as one JSON message: the API's answer to a request sent without
    streaming."""
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": response.blocks,
        "stop_reason": _stop_reason(response),
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": _output_tokens(response),
        },
    }
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def sse_events(
    response: ScriptedResponse, message_id: str, model: str, input_tokens: int
) -> list[bytes]:
    """The whole SSE stream for one response, as the API would send it."""
    blocks = response.blocks
    stop = _stop_reason(response)
    out_tokens = _output_tokens(response)
    events = [
        sse(
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
        sse("ping", {"type": "ping"}),
    ]
    start: dict[str, Any]  # the content_block_start's block: its shape depends on the kind
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
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        events += [
            sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": out_tokens},
            },
        )
    )
    events.append(sse("message_stop", {"type": "message_stop"}))
    return events


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
        clock: Clock | None = None,
    ) -> None:
        self.responses = responses
        self.seed = seed
        self.validator = validator
        self.clock: Clock = clock or ScriptClock()
        """The time scripted silences pass on (and stalls are judged by)."""
        self.requests: list[bytes] = []
        """Every request body received, retries included."""
        self._served = 0
        self._faults_left: list[dict[str, Any]] | None = None

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        self.requests.append(body)
        if request.url.path.rstrip("/") != "/v1/messages" or request.method != "POST":
            return error_response(404, "not_found_error", f"{request.method} {request.url.path}")
        payload = json.loads(body)
        if self.validator is not None and (problem := self.validator(payload)):
            return error_response(400, "invalid_request_error", problem)
        index = self._served
        response = self._response(index)
        if self._faults_left is None:
            self._faults_left = list(response.faults)
        model = payload.get("model", "scripted")
        message_id = _stable_id("msg", self.seed, index)
        request_id = _stable_id("req", self.seed, index)
        tokens = estimate_tokens(len(body))
        if not payload.get("stream"):
            plain = plain_message(response, message_id, model, tokens)
            if self._faults_left:
                return plain_fault_response(self._faults_left.pop(0), plain, request, self.clock)
            self._served += 1
            self._faults_left = None
            headers = {"content-type": "application/json", "request-id": request_id}
            return httpx2.Response(200, headers=headers, content=plain)
        events = sse_events(response, message_id, model, tokens)
        headers = {"content-type": "text/event-stream", "request-id": request_id}
        if self._faults_left:
            return fault_response(self._faults_left.pop(0), events, headers, request, self.clock)
        self._served += 1
        self._faults_left = None
        return httpx2.Response(200, headers=headers, content=b"".join(events))

    def _response(self, index: int) -> ScriptedResponse:
        if index < len(self.responses):
            return self.responses[index]
        # The script ran out: end politely instead of failing, so forced loops still finish.
        text = f"(the scripted model has no response {index + 1}; it stops here)"
        return ScriptedResponse([{"type": "text", "text": text}], "end_turn")
