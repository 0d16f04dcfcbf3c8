"""Rebuilding a streamed Messages API response from its raw server-sent events.

A streamed ``/v1/messages`` answer is a sequence of ``event:``/``data:`` pairs: ``message_start``
(the message shell and the input-side usage), then per content block ``content_block_start``,
``content_block_delta`` pieces (``text_delta``, ``thinking_delta``, ``signature_delta``, and
``input_json_delta`` fragments of a tool's input, valid JSON only once joined), and
``content_block_stop``; then ``message_delta`` (``stop_reason`` and the final ``output_tokens``)
and ``message_stop``. ``ping`` keeps the connection alive. This is the same folding the
``anthropic`` SDK's stream accumulator does, written out so a logged ``body_raw`` can be read
without the SDK.
"""

from __future__ import annotations

from typing import Any

from tracer.errors import UserError
from tracer.files.untrusted import loads


def sse_events(raw: str) -> list[dict[str, Any]]:
    """The ``data`` objects of an SSE text, in order (comments and bad lines skipped)."""
    events: list[dict[str, Any]] = []
    for chunk in raw.replace("\r\n", "\n").split("\n\n"):
        lines = chunk.split("\n")
        data = "\n".join(line[5:].lstrip() for line in lines if line.startswith("data:"))
        if not data:
            continue
        try:  # bounded like every line: no NaN, no 1e400, no nesting past json's recursion
            obj = loads(data, "an SSE event")
        except UserError:
            continue
        if isinstance(obj, dict):
            events.append(obj)
    return events


def accumulate(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Fold stream events into the final message (``content``, ``stop_reason``, ``usage``)."""
    message: dict[str, Any] = {"content": [], "usage": {}}
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            start = event.get("message")
            start = start if isinstance(start, dict) else {}
            message.update({k: v for k, v in start.items() if k != "content"})
            usage = start.get("usage")
            message["usage"] = dict(usage) if isinstance(usage, dict) else {}
            message["content"] = []
        elif kind == "content_block_start":
            block = event.get("content_block")
            block = dict(block) if isinstance(block, dict) else {"type": "text", "text": ""}
            if block.get("type") in ("tool_use", "server_tool_use"):
                partial[len(message["content"])] = ""
            message["content"].append(block)
        elif kind == "content_block_delta":
            _apply_delta(message["content"], partial, event)
        elif kind == "content_block_stop":
            index = _index(event, len(message["content"]) - 1)
            if index in partial:
                message["content"][index]["input"] = _tool_input(partial.pop(index))
        elif kind == "message_delta":
            delta = event.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            message["stop_reason"] = delta.get("stop_reason", message.get("stop_reason"))
            message["stop_sequence"] = delta.get("stop_sequence", message.get("stop_sequence"))
            usage = event.get("usage")
            message["usage"].update(usage if isinstance(usage, dict) else {})
    for index, text in partial.items():  # a stream cut before content_block_stop
        message["content"][index]["input"] = _tool_input(text)
    return message


def _index(event: dict[str, Any], default: int) -> int:
    """An event's block index; a log can hold anything there, so a non-integer means none."""
    index = event.get("index", default)
    return index if isinstance(index, int) and not isinstance(index, bool) else -1


def _tool_input(text: str) -> Any:
    """A tool's input from its joined JSON fragments; kept as text when they do not parse."""
    try:
        return loads(text, "a tool input") if text else {}
    except UserError:
        return {"_partial_json": text}


def _apply_delta(
    content: list[dict[str, Any]], partial: dict[int, str], event: dict[str, Any]
) -> None:
    index = _index(event, len(content) - 1)
    if not 0 <= index < len(content):
        return
    block, delta = content[index], event.get("delta")
    if not isinstance(delta, dict):
        return
    kind = delta.get("type")
    field = {
        "text_delta": "text",
        "thinking_delta": "thinking",
        "signature_delta": "signature",
        "input_json_delta": "partial_json",
    }.get(str(kind))
    piece = delta.get(field) if field else None
    if not isinstance(piece, str):
        return  # a delta without text of its kind adds nothing
    if kind == "input_json_delta":
        partial[index] = partial.get(index, "") + piece
    else:
        # piece is a str only when field named its key: field is set here
        block[field] = str(block.get(field, "")) + piece  # type: ignore[index, arg-type]


def parse_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """The message a logged response holds: ``body`` when not streamed, else ``body_raw``."""
    body = response.get("body")
    if isinstance(body, dict) and body.get("type") == "message":
        return body
    raw = response.get("body_raw")
    if isinstance(raw, str) and raw.strip():
        return accumulate(sse_events(raw))
    return None
